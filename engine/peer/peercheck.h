/* peercheck.h: blame the right host: the path and the peer, checked
 * before a benchmark.
 *
 * Owns: the checks verify (any runner) and doctor run against the
 * benchmark peer: the jumbo path (DF probe at the local MTU, then at 1500
 * to name what does pass), and, when a `cx5prof serve` answers STATE on
 * the peer, its MTU against this host's (and against the datagrams the
 * run will send), its rmem_max against the receive buffer asked, and its
 * driver and firmware against the local port's (results are comparable
 * only between like hosts). Must never: change anything, or send more
 * than the probes of netprobe.h and one STATE request, to the peer only. */
#ifndef CX5_PEERCHECK_H
#define CX5_PEERCHECK_H

#include "bench/udpbench.h"
#include "os/probe.h"

enum peercheck_status { PEERCHECK_PASS, PEERCHECK_WARN, PEERCHECK_FAIL, PEERCHECK_SKIP, _PEERCHECK_MAX };
const char *peercheck_status_to_string(enum peercheck_status s); /* "pass", "warn", "fail", "skip" */

struct peercheck_finding {
	const char *name; /* "path-mtu", "peer-serve", "peer-mtu", "peer-rmem", "peer-match" */
	enum peercheck_status status;
	bool mtu; /* a failure of the MTU: datagrams of this size cannot arrive */
	char *detail;
	char *fix; /* NULL on pass and skip */
};

struct peercheck_input {
	const char *peer;		 /* the benchmark peer (address) */
	uint16_t serve_port;		 /* where `cx5prof serve` may answer; 0: its default */
	unsigned timeout_ms;		 /* each probe */
	const struct iface_state *local; /* the local port, or NULL */
	uint64_t message_size;		 /* UDP payload of the run; 0: any MTU mismatch fails */
	uint64_t recv_buffer;		 /* receive buffer the run asks of the peer; 0: none */
	bool must_match;		 /* a driver/firmware difference fails (else warns) */
	bool df_probe;			 /* probe the path (doctor has its own jumbo-path) */
};

struct peercheck {
	struct peercheck_finding *f;
	size_t n;
	struct udpb_state *state; /* the peer's answer, NULL when no serve answered */
	uint64_t state_usec;	  /* now_usec() when it came */
};

struct profile;

/* Where a `cx5prof serve` may answer on the peer: the profile's
 * verify.port when builtin is its first runner, else 0 (the default). */
uint16_t peercheck_serve_port(const struct profile *p);

/* Run the checks. -ENOMEM only: everything else is a finding. */
int peercheck_run(const struct peercheck_input *in, struct peercheck *ret);
void peercheck_done(struct peercheck *pc);

/* The first finding that fails on the MTU, or NULL. */
const struct peercheck_finding *peercheck_mtu_failure(const struct peercheck *pc);
/* The peer-match finding, or NULL when the driver/firmware were not compared. */
const struct peercheck_finding *peercheck_match(const struct peercheck *pc);

/* Print the findings through output.h: JSON array "peer_checks" (check,
 * status, detail, fix); for people one "check" line each, and the fix. */
void peercheck_render(const struct peercheck *pc);

#endif
