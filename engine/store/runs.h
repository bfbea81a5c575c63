/* runs.h: benchmark rounds ("runs") in the history database.
 *
 * Owns: the runs and artifacts tables' rows. A run is recorded with its
 * artifacts and its pending mirror outbox row in ONE SQLite transaction, so
 * a round is either fully remembered (and will be mirrored) or not at all.
 * Must never: talk to the network (the mirror drains the outbox later),
 * store secrets (an artifact is evidence from the host, never a key).
 *
 * Stored in history.h's runs and artifacts tables; the command line and the
 * IRQ map are kept as the artifacts "command" and "irq_map".
 *
 * Strings in struct run_record are plain C strings; NULL means unknown.
 * Numbers: 0 means "not set / unknown" for the parameters (mtu,
 * message_size, socket buffers, streams); results are stored as given.
 * runs_record() only reads the record (the caller keeps ownership); records
 * returned by runs_get()/runs_list() are owned by the caller and released
 * with run_record_done() / run_records_free(). */
#ifndef CX5_RUNS_H
#define CX5_RUNS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/util.h"

struct history; /* history.h */

/* One piece of evidence: "command", "runner_output", "ethtool_i",
 * "counters_before", "counters_after", "interrupts_before",
 * "interrupts_after", "profile", ... Names: [a-z0-9_.-], 1..64 bytes; they
 * become file names in `cx5prof export`. */
struct run_artifact {
	char *name;
	char *content;
};

struct run_record {
	int64_t id;		/* set by runs_get/runs_list; ignored by runs_record */
	int64_t transaction_id; /* apply transaction this run verified; 0: none */
	int64_t campaign_id;	/* the campaign this run is a round of (campaigns.h); 0: none */
	int64_t started_usec;	/* microseconds since the epoch; 0: runs_record uses "now" */
	int64_t ended_usec;	/* 0: same as started_usec */

	/* What ran, where. */
	char *runner;	    /* "netperf", "iperf3", "builtin" (required) */
	char *command_line; /* exactly as run, e.g. "netperf -H 198.18.0.2 -t UDP_STREAM ..." */
	char *profile;	    /* profile name, NULL for an ad-hoc bench */
	char *profile_hash; /* profile_hash() of the effective profile, or NULL */
	char *test;	    /* "UDP_STREAM" */
	char *ifname;	    /* local interface */
	char *peer;	    /* peer address */

	/* Parameters: what an operator changes between rounds. */
	uint32_t mtu;
	uint64_t message_size; /* bytes (netperf -m) */
	uint64_t send_buffer;  /* bytes (netperf -s) */
	uint64_t recv_buffer;  /* bytes (netperf -S) */
	uint32_t streams;
	double duration_s;
	char *irq_policy;	/* "numa-local", "cpulist", "irqbalance", ... */
	char *irq_map;		/* compact IRQ->CPU map, e.g. "mlx5_comp0-7 -> 8-15" */
	char *driver;		/* "mlx5_core" */
	char *driver_version;	/* "5.8-1.0.1" */
	char *firmware_version; /* "16.35.2000 (MT_0000000080)" */

	/* Results. */
	uint64_t sent;	   /* datagrams sent */
	uint64_t received; /* datagrams received */
	uint64_t lost;	   /* sent - received (as the runner computed it) */
	double send_mbps;
	double recv_mbps;
	double loss_pct; /* NAN when nothing was sent: runs_record stores NULL, always */
	bool passed;	 /* every threshold held */
	char *verdict;	 /* one line: why it passed/failed, NULL if no thresholds */

	/* The loss ledger (ledger.h): what limited the run ("receiver-socket-
	 * buffer", "sender", "path", "unknown", ...) and the whole document as
	 * JSON text; NULL: none (nothing measured, or a run from before). */
	char *limited_by;
	char *ledger;

	struct run_artifact *artifacts;
	size_t n_artifacts;

	/* The benchmark peer's facts, from the "peer_state.json" artifact
	 * (peerstate.h) when runs_get loads one; not written by runs_record.
	 * NULL / 0: unknown. */
	char *peer_driver, *peer_driver_version, *peer_firmware;
	uint64_t peer_mtu, peer_rmem_max;
};

/* Record a run, its artifacts and its pending outbox row in one SQLite
 * transaction. -EINVAL: runner missing or an artifact name invalid;
 * other -errno from the database. *ret_id (may be NULL) gets the run id. */
int runs_record(struct history *h, const struct run_record *r, int64_t *ret_id);

/* One run with its artifacts. -ENOENT if there is no such run. */
int runs_get(struct history *h, int64_t id, struct run_record *ret);

/* The newest `limit` runs (0: all), newest first, without artifacts. */
int runs_list(struct history *h, size_t limit, struct run_record **ret, size_t *ret_n);

/* Add or replace one artifact of an existing run (e.g. "analysis.json"
 * written by `cx5prof analyze`). -ENOENT: no such run; -EINVAL: bad name. */
int runs_set_artifact(struct history *h, int64_t run, const char *name, const char *content);

void run_record_done(struct run_record *r);
void run_records_free(struct run_record *v, size_t n);

/* The artifact called name, or NULL. */
const struct run_artifact *run_record_artifact(const struct run_record *r, const char *name);

/* JSON of a run (keys documented in schemas/history.schema.json); with
 * artifacts when with_artifacts. NULL on out of memory. */
struct json_object *run_record_to_json(const struct run_record *r, bool with_artifacts);

bool run_artifact_name_valid(const char *name);

/* What became of the run, one rule for every runner: "interrupted" when a
 * signal cut it or it ran materially shorter than asked (verdict
 * "interrupted: ..."), "error" when no
 * datagram was sent or the benchmark failed to run (verdict "error: ..."),
 * "drift" when the host differed from its profile, "recorded" when no
 * threshold judged it (verdict "recorded: no thresholds set"), else "pass"
 * or "fail" (a threshold). JSON "outcome"; for people pass, recorded,
 * FAIL, drift, error. */
const char *run_record_outcome(const struct run_record *r);

/* The artifact of "key: value" lines on the host tuning a run ran under
 * (net.core.* sysctls, irqbalance, bench_cpus), recorded by verify. */
#define ARTIFACT_TUNING "host_tuning"
/* The value of key in that artifact, whole (caller frees); NULL when
 * absent or out of memory. */
char *run_record_tuning(const struct run_record *r, const char *key);
/* The host a run ran on, JSON (schemas/host-facts.schema.json): host
 * name, kernel release, each port's NIC model, PCI address, NUMA node and
 * local CPUs, driver and firmware; recorded by verify. */
#define ARTIFACT_HOST_FACTS "host_facts.json"
/* The same for people: "pass", "recorded", "FAIL", "drift", "error",
 * "interrupted". */
const char *run_record_outcome_label(const struct run_record *r);

#endif
