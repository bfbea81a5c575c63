/* serveloop.h: `serve`'s connection dispatcher.
 *
 * Owns: accepting control connections as they come, reading each one's
 * request without blocking (a frame within UDPSINK_SETUP_TIMEOUT_USEC of
 * the connection or of its previous answer), the bounds on waiting
 * connections (SERVE_MAX_PENDING in all, SERVE_MAX_PER_SOURCE from one
 * address; to make room, the oldest waiting one of the address with the
 * most is closed), one running test at a time in its own thread
 * (udpsink_session), an immediate "busy" ERROR to a SETUP while a test
 * runs, and STATE answers (peerstate.h) at any time, at the level serve
 * was given, rate-limited per address and in all, from facts read at
 * most once per refresh interval and anew after each test. A connection whose
 * test completed goes back to waiting, whatever other connections wait,
 * so its client can ask for the state after the run; it is never closed
 * to make room. Must never: wait on one client while another is ready,
 * change the host, or end because of what a client sent. */
#ifndef CX5_SERVELOOP_H
#define CX5_SERVELOOP_H

#include <signal.h>

#include "base/cpuset.h"
#include "peerstate.h"

#define SERVE_MAX_PENDING    64
#define SERVE_MAX_PER_SOURCE 8
/* Requests one connection may make (STATE, SETUP); then it is closed. */
#define SERVE_MAX_REQUESTS 8

/* STATE requests answered: SERVE_STATE_BURST at once from one address,
 * then one per SERVE_STATE_INTERVAL_MS; from all addresses together
 * SERVE_STATE_GLOBAL_BURST, then one per SERVE_STATE_GLOBAL_INTERVAL_MS.
 * A client asks once before its test and once after, which is not
 * counted (it comes on the connection that ran the test). */
#define SERVE_STATE_BURST	       4
#define SERVE_STATE_INTERVAL_MS	       500
#define SERVE_STATE_GLOBAL_BURST       16
#define SERVE_STATE_GLOBAL_INTERVAL_MS 125
#define SERVE_STATE_REFRESH_MS_DEFAULT 250
#define SERVE_STATE_REFRESH_MS_MAX     60000

struct serveloop_config {
	int lfd;		    /* listening socket (udpsink_listen) */
	const struct cpuset *cpus;  /* serve --cpus, or NULL */
	bool once;		    /* return after the first test's connection ends */
	enum peerstate_level state; /* what STATE gives (serve --state) */
	unsigned state_refresh_ms;  /* facts read at most this often (--state-refresh) */
	const volatile sig_atomic_t *quit;
};

/* Serve until *quit (or, with once, until the connection of the first
 * test ends). *ret_test_r: the last test's result (0 completed or none
 * ran, -errno failed). -errno only when the dispatcher itself could not
 * run (-ENOMEM, -EMFILE). */
int serveloop_run(const struct serveloop_config *c, int *ret_test_r);

#endif
