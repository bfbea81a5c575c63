/* verify.h: "is this host in the profile's state, and does it really move
 * UDP at line rate?", answered with evidence.
 *
 * Owns: the verification of one profile: the state part (every managed key
 * against the live host, through plan_build(): a pending change IS a drift,
 * IRQ pins included), the benchmark part (the path and the peer checked
 * first (peercheck.h): datagrams that cannot arrive are not sent, and the
 * error names the MTUs; runner chosen from the profile's list, drop
 * counters and interrupt/softirq snapshots around the run, the loss
 * ledger's snapshots on both hosts (ledgerwatch.h) and its bottleneck), the
 * threshold table and its verdicts, the report (human and JSON, keys in
 * schemas/verify.schema.json) and the run record for the history. Must
 * never: change the host (verification only reads and measures), or call a
 * figure it could not measure a pass or a failure (it is "n/a"), except
 * the run's own figures (throughput, loss) of a run that produced no data:
 * those fail, so that a run which sent nothing can never pass.
 *
 * Exit codes (exitcode.h), most important first: EXIT_DRIFT when any
 * managed key differs or a precondition fails; EXIT_ERROR when the
 * benchmark could not run (no server, tool missing); EXIT_BENCH_FAIL when a
 * threshold failed; EXIT_OK otherwise. */
#ifndef CX5_VERIFY_H
#define CX5_VERIFY_H

#include "bench/irqspread.h"
#include "bench/runner.h"
#include "ledger/ledger.h"
#include "os/counters.h"
#include "peer/peercheck.h"

struct profile;
struct history;

struct verify_options {
	const struct profile *profile;
	const char *source;	 /* "PROFILE.yaml", or "history" (last applied) */
	int64_t transaction_id;	 /* the apply transaction verified; 0: none */
	int64_t campaign_id;	 /* the campaign this run is a round of; 0: none */
	bool bench;		 /* false: --no-bench */
	bool bench_anyway;	 /* benchmark a host that differs from the profile too */
	bool progress;		 /* elapsed/total on stderr during the run */
	struct history *history; /* where to record the run; NULL: not recorded */
	/* A caught signal (apply_interrupted: a campaign): the benchmark stops
	 * at it and the run counts as interrupted. NULL: none watched. */
	int (*interrupted)(void);
};

enum verify_status { VERIFY_PASS, VERIFY_FAIL, VERIFY_NA, _VERIFY_STATUS_MAX };
const char *verify_status_to_string(enum verify_status s); /* "pass", "fail", "n/a" */

struct verify_drift {
	char *object; /* "ens1f0", "sysctl", "irq ens1f0 q3" */
	char *key;    /* "mtu", "net.core.rmem_max", "smp_affinity_list 98" */
	char *current;
	char *expected;
};

struct verify_problem {
	char *object;
	char *message;
	char *remedy;
};

struct verify_threshold {
	const char *name;  /* profile key under verify: "throughput_mbps", ... */
	const char *label; /* "receive throughput" */
	const char *op;	   /* ">=" or "<=" */
	const char *unit;  /* "Mbps", "%" */
	double limit;
	double value; /* < 0: not measured */
	enum verify_status status;
	char *note; /* why n/a, or NULL */
};

struct verify_port_counters {
	char *ifname;
	struct counter_snapshot before, after;
	struct counter_delta *d;
	size_t n;
};

struct verify_report {
	char *profile_name;
	char *source;
	int64_t transaction_id;

	/* State. */
	char **interfaces; /* ports the profile manages */
	struct verify_drift *drifts;
	size_t n_drifts;
	struct verify_problem *problems;
	size_t n_problems;
	char **warnings;

	/* Benchmark. */
	bool bench_ran;
	char *bench_skipped; /* why no benchmark ran, or NULL */
	char *peer;
	struct runner_params params; /* params.peer points to peer */
	struct cpuset pin_cpus;	     /* CPUs the streams were pinned to (may be empty) */
	char *runners_skipped;	     /* "netperf: not installed ..." lines, or NULL */
	int bench_r;		     /* the runner's return value */
	struct runner_result result;
	struct verify_threshold *thresholds;
	size_t n_thresholds;
	bool has_spread;
	struct irqspread_result spread;
	struct irqspread_snapshot intr_before, intr_after;
	struct verify_port_counters *counters;
	size_t n_counters;
	struct peercheck peer_checks;	/* the path and the peer, before the run */
	struct ledger *ledger;		/* where the lost datagrams went; NULL: nothing measured */
	struct json_object *ledger_doc; /* its document (ledger.h) */

	int64_t started_usec, ended_usec; /* wall clock of the run (history_now_usec) */
	/* Why the run's figures do not count, or NULL: a signal during it, or
	 * it ran materially shorter than asked (VERIFY_SHORT_RUN). */
	char *interrupted;

	/* History. */
	int64_t run_id;	    /* 0: not recorded */
	char *record_error; /* why recording failed, or NULL */
};

/* The benchmark the profile describes, for verify and for doctor (which
 * probes the port of the runner verify would use): the runners to try, in
 * order (verify.runner, else netperf, iperf3, builtin), and the parameters
 * of a run against verify.peer (NULL when the profile has none), defaults
 * filled in. ret->cpus is left NULL: verify pins the streams itself. */
void verify_bench_params(const struct profile *p, struct runner_params *ret, char *const **ret_runners);

/* The benchmark's seconds when verify.duration is unset. */
#define VERIFY_DEFAULT_DURATION_S 10

/* A run that measured less than this share of its duration was cut short. */
#define VERIFY_SHORT_RUN 0.8

/* Verify. -errno only when verification itself could not proceed (memory,
 * the host's interfaces unreadable); drifts, runner failures and failed
 * thresholds are results, in the report. */
int verify_run(const struct verify_options *o, struct verify_report **ret);
void verify_report_free(struct verify_report *r);
static inline void verify_report_freep(struct verify_report **r)
{
	if (*r)
		verify_report_free(*r);
}
#define _cleanup_verify_report_ _cleanup_(verify_report_freep)

/* The exit code (see above; an interrupted run is an error) and the
 * one-word result: "pass", "drift", "error", "fail", "interrupted", or
 * "recorded" for a run measured with no thresholds to judge it. */
int verify_exit_code(const struct verify_report *r);
const char *verify_result_word(const struct verify_report *r);

/* The label ("receive throughput") and unit ("Mbps") of the threshold
 * called name ("throughput_mbps", "peer_must_match"); false when there is
 * none. */
bool verify_threshold_describe(const char *name, const char **ret_label, const char **ret_unit);

/* Print the report through output.h. */
void verify_render(const struct verify_report *r);

#endif
