/* runner.h: UDP benchmark runners behind one interface, in one table.
 *
 * Owns: the runner interface (struct runner), the table of runners
 * (netperf, iperf3, builtin), choosing the first available runner of a list,
 * the parameters of a run and the shape of its result. Each runner lives in
 * its own module (runner_netperf.c, runner_iperf3.c, runner_builtin.c) and
 * fills a struct runner_result; verify.c turns results into verdicts.
 * Also owns the small process helpers the external-tool runners share
 * (finding a binary in PATH, running argv with a deadline, the printable
 * command line). Must never: log above debug, change the host, send traffic
 * anywhere but params->peer, or run longer than duration + a grace period.
 *
 * Adding a runner = one module defining `const struct runner runner_X` and
 * one row in runner.c's table. */
#ifndef CX5_RUNNER_H
#define CX5_RUNNER_H

#include <json-c/json.h>

#include "base/cpuset.h"
#include "base/util.h"
#include "os/netcounters.h"

/* What to run. Sizes in bytes; 0 means "the runner's/system default". */
struct runner_params {
	const char *peer;      /* address of the receiving host (required) */
	uint16_t port;	       /* control port; 0: the runner's default_port */
	uint32_t duration_sec; /* >= 1 */
	uint64_t message_size; /* datagram payload, netperf -m (required) */
	uint64_t send_buffer;  /* SO_SNDBUF request, netperf -s; 0: default */
	uint64_t recv_buffer;  /* SO_RCVBUF request at the receiver, netperf -S */
	uint32_t streams;      /* parallel streams, >= 1 */
	/* CPUs to pin the sender's streams to, stream i on the i-th CPU of the
	 * set (wrapping). NULL or empty: no pinning. netperf pins only when
	 * streams > 1 (the single-stream command stays the operator's exact
	 * one). */
	const struct cpuset *cpus;
	bool gso; /* builtin only: UDP_SEGMENT when the kernel has it */
	/* builtin only: the STATE version `serve` answered before the run
	 * (udpsend.h); 0: the newest. */
	uint16_t state_version;
	/* Non-zero once the caller caught a signal: the tools are stopped as
	 * at their deadline (the figures are then partial). NULL: never. */
	int (*stop)(void);
};

/* One stream's figures (one netperf process, one iperf3 stream, one
 * builtin socket). */
struct runner_stream {
	int cpu;	   /* pinned CPU, -1 when not pinned */
	uint64_t sent;	   /* datagrams the sender handed to the kernel */
	uint64_t received; /* datagrams the receiver counted */
	uint64_t lost;	   /* sent - received (0 when received > sent) */
	double send_mbps;  /* 10^6 bits/s, sender side */
	double recv_mbps;  /* 10^6 bits/s, receiver side */
};

/* What happened. runner_result_init() before a run; runner_result_done()
 * after it, ALWAYS (also on failure: command and raw output are evidence).
 * Exception to the ret_* rule on purpose: a failed run still fills
 * `runner`, `command`, `raw_output` and `error`. */
struct runner_result {
	char runner[16];      /* name of the runner that ran ("iperf3") */
	char *command;	      /* exact command line(s) run, one per line (stream) */
	char *raw_output;     /* the tool's raw stdout+stderr, per stream in order;
			       * builtin: its own report (text or JSON) */
	double elapsed_sec;   /* measured interval as the tool reports it */
	uint64_t sent;	      /* datagrams sent, summed over streams */
	uint64_t send_errors; /* failed sends (netperf "Errors", ENOBUFS) */
	uint64_t received;    /* datagrams received, summed */
	uint64_t lost;	      /* sent - received (0 when received > sent) */
	double send_mbps;     /* summed over streams, 10^6 bits/s */
	double recv_mbps;
	double loss_percent;	     /* 100 * lost / sent; 100 when sent == 0 */
	uint64_t send_buffer_actual; /* as reported by the tool (kernel doubles it); 0 unknown */
	uint64_t recv_buffer_actual;
	double sender_cpu_percent;     /* CPU time of the sender / wall time * 100
					* (100 = one full CPU), summed; < 0: unknown */
	struct runner_stream *streams; /* n_streams entries (malloc'd) */
	size_t n_streams;
	char **warnings; /* strv of one-line warnings ("send buffer clamped ..."), may be NULL */
	/* builtin: the peer's state around the run (peerstate.h's document,
	 * artifact "peer_state.json"), or NULL. */
	struct json_object *peer_state;
	/* builtin: the peer's kernel counters (STATE version 2) before and
	 * after the run, for the loss ledger; has_peer_counters false when
	 * the peer gave none. */
	bool has_peer_counters;
	struct netcounters peer_before, peer_after;
	char *error; /* NULL on success; else object + cause + remedy, one line */
};

struct runner {
	const char *name;      /* "netperf", "iperf3", "builtin" */
	const char *summary;   /* one line for docs and `doctor` */
	uint16_t default_port; /* netperf 12865, iperf3 5201, builtin: its serve port */
	/* Can this runner be tried for these params? 1 yes; 0 no, with
	 * *ret_reason (caller frees) saying why in one line with the remedy
	 * ("netperf is not installed (not found in PATH)", "no netserver on
	 * 198.18.0.2:12865: start `netserver -p 12865` on the peer and check its
	 * firewall"); -errno on failure. Must not disturb a one-shot server:
	 * iperf3's check is the binary only. */
	int (*available)(const struct runner_params *p, char **ret_reason);
	/* Run the benchmark. 0 on success with res filled; -errno on failure
	 * with res->error set (-ENOENT tool missing, -ECONNREFUSED no server,
	 * -EBUSY server busy, -ETIMEDOUT tool hung, -EBADMSG unparsable output,
	 * -EINVAL bad params, -EIO the run sent no datagram: see
	 * runner_check_sent). res->runner is set in both cases. */
	int (*run)(const struct runner_params *p, struct runner_result *res);
};

extern const struct runner runner_netperf;
extern const struct runner runner_iperf3;
extern const struct runner runner_builtin; /* runner_builtin.c */

/* The runner called name, or NULL. */
const struct runner *runner_find(const char *name);

/* First available runner of `names` (NULL-terminated list of names, e.g.
 * {"netperf", "iperf3", "builtin", NULL}). 0 with *ret set; -ENOENT when
 * none is available, -EINVAL for a name not in the table (*ret_why then
 * names it). *ret_why (may be NULL; caller frees; set in every case it is
 * non-NULL, else NULL) collects one line per skipped runner
 * ("netperf: netperf is not installed ...") so the report can say why
 * the chosen runner is not the first one, and an error can list them. */
int runner_select(char *const *names, const struct runner_params *p, const struct runner **ret,
		  char **ret_why);
/* The same over the names after `after` in the list: the next runner to
 * try when `after` ran and found no server (-ECONNREFUSED). -ENOENT (and
 * *ret_why NULL) when `after` is the last. */
int runner_select_after(char *const *names, const struct runner *after, const struct runner_params *p,
			const struct runner **ret, char **ret_why);

/* Names of the runners available for p, ", "-separated ("iperf3, builtin"),
 * "" when none. For "netperf is not installed; available: iperf3". */
int runner_available_names(const struct runner_params *p, char **ret);

void runner_result_init(struct runner_result *res, const char *runner_name);
void runner_result_done(struct runner_result *res);
/* Fill lost and loss_percent from sent/received (and each stream's lost). */
void runner_result_compute_loss(struct runner_result *res);
/* A run that sent no datagram measured nothing: -EIO with res->error
 * saying so (with the failed sends, netperf's "Errors" column or the
 * builtin's ENOBUFS count), never a result. With failed sends among sent
 * ones, 0 and a warning. Every runner calls it once its figures are in. */
int runner_check_sent(const struct runner_params *p, struct runner_result *res);
/* printf into res->error (replacing it); returns err (a -errno) for
 * `return runner_fail(res, -ECONNREFUSED, "...")`. */
int runner_fail(struct runner_result *res, int err, const char *fmt, ...) _printf_(3, 4);
int runner_warn(struct runner_result *res, const char *fmt, ...) _printf_(2, 3);

/* ---- helpers for runners that run an external tool ---- */

/* Full path of `name` searched in $PATH; -ENOENT when absent. */
int runner_find_binary(const char *name, char **ret);

/* argv as one shell-readable line ("netperf -H 198.18.0.2 -t UDP_STREAM"),
 * words quoted only when needed. */
int runner_argv_to_string(char *const *argv, char **ret);

/* Socket buffer clamping, which the kernel does silently: add a warning to
 * res for each requested buffer the kernel did not grant. When the tool
 * reported the size the socket got (send_actual: the sender's; recv_actual:
 * the receiver's on the peer; 0 when unknown), that decides: clamped when
 * below twice the request (Linux doubles it), and the warning names the
 * tool's figure and the limit it implies. Without one, the request is
 * compared with net.core.wmem_max / rmem_max read through the sysroot
 * (this host's limits: the receiver's are on the peer). Called after the
 * run, when the figures are in. */
int runner_warn_clamped(const struct runner_params *p, uint64_t send_actual, uint64_t recv_actual,
			struct runner_result *res);

/* Format a byte size as netperf's -s/-S take it: "4M" when a whole number
 * of MiB, "64K" for KiB, else plain bytes (netperf: K/M/G are 1024-based). */
int runner_format_size(uint64_t bytes, char **ret);

#endif
