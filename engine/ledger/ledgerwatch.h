/* ledgerwatch.h: the loss ledger's snapshots around one run, on both
 * hosts.
 *
 * Owns: when the snapshots are taken and where they come from: this host's
 * (the sender's) from netcounters.h for the interface that routes to the
 * peer; the peer's (the receiver's) from `cx5prof serve`'s STATE version 2
 * (udpsend.h), which the builtin runner also asks on its own connection
 * right before and after its test; where no serve gives them and the
 * profile tunes the peer through SSH (peer.ssh), the peer's `cx5prof
 * counters --address PEER` through ssh (peerssh.h). Three moments: idle (the window of
 * LEDGER_IDLE_USEC before the run, for the idle rate), before and after.
 * Must never: change anything on either host, or ask the peer anything
 * but STATE. */
#ifndef CX5_LEDGERWATCH_H
#define CX5_LEDGERWATCH_H

#include "bench/runner.h"
#include "bench/udpbench.h"
#include "ledger.h"

enum ledger_moment { LEDGER_IDLE, LEDGER_BEFORE, LEDGER_AFTER, _LEDGER_MOMENT_MAX };

struct profile;

struct ledger_watch {
	char *peer;
	const struct profile *ssh; /* the peer's counters through ssh (peer.ssh); NULL: through serve */
	uint16_t serve_port;
	char *ifname; /* the local interface to the peer, NULL when unknown */
	struct netcounters local[_LEDGER_MOMENT_MAX], remote[_LEDGER_MOMENT_MAX];
	bool has_local[_LEDGER_MOMENT_MAX], has_remote[_LEDGER_MOMENT_MAX];
	uint16_t state_version; /* the STATE version serve answered; 0: none */
	char *remote_source;	/* "cx5prof serve on 198.18.0.2:12866" */
	char *remote_why;	/* why the peer's counters are unknown */
};

/* Start watching a run to peer: the idle snapshots. asked: the caller
 * already asked serve at serve_port (0: its default) for its STATE, and
 * state is the answer (NULL: none came), received at state_usec: the
 * peer's idle snapshot when it is version 2. Else the peer is asked now.
 * ssh (may be NULL): a profile with peer.ssh, asked through ssh when serve
 * gives no counters. A peer that did not answer once is not asked again.
 * -ENOMEM only: what cannot be read leaves that side unknown. */
int ledger_watch_start(struct ledger_watch *w, const char *peer, uint16_t serve_port, bool asked,
		       const struct udpb_state *state, uint64_t state_usec, const struct profile *ssh);

/* The snapshots right before the run, once the idle window has passed
 * (this sleeps the rest of it). runner_asks: the runner asks serve itself
 * (builtin); the peer is then asked here only through ssh. */
int ledger_watch_before(struct ledger_watch *w, bool runner_asks);

/* The snapshots right after the run; the peer's before and after from
 * the runner when it brought them (builtin: moved out of *peer_before and
 * *peer_after, which may be NULL), else asked now. */
int ledger_watch_after(struct ledger_watch *w, struct netcounters *peer_before,
		       struct netcounters *peer_after);

/* The ledger of a finished run: in's figures (filled by the caller), its
 * two sides from the snapshots of w. NULL *ret (and 0) when the run sent
 * nothing. */
int ledger_watch_compute(const struct ledger_watch *w, struct ledger_input *in, struct ledger **ret);

void ledger_watch_done(struct ledger_watch *w);

/* The input of a runner's run (verify): its figures and parameters. */
struct ledger_input ledger_input_of_run(const struct runner_params *p, const struct runner_result *res,
					uint32_t mtu);

#endif
