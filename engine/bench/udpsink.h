/* udpsink.h: the receiving side of the built-in UDP benchmark (`serve`).
 *
 * Owns: the listening control socket, one test session at a time (SETUP ->
 * N UDP sinks counting with recvmmsg -> DONE -> drain -> REPORT), and the
 * per-CPU softirq load measured over the test from /proc/stat through the
 * sysroot. Must never: send UDP anywhere (the sinks only receive), wait
 * without a deadline, or let a client's bytes crash or stall the server. */
#ifndef CX5_UDPSINK_H
#define CX5_UDPSINK_H

#include <netinet/in.h>
#include <signal.h>

#include "base/cpuset.h"
#include "udpbench.h"

/* Timeouts of the control conversation. */
#define UDPSINK_SETUP_TIMEOUT_USEC (5 * 1000000ull)  /* whole SETUP frame after accept */
#define UDPSINK_FRAME_TIMEOUT_USEC (5 * 1000000ull)  /* any frame, once its first byte came */
#define UDPSINK_DONE_GRACE_USEC	   (15 * 1000000ull) /* DONE after duration + this */
#define UDPSINK_DRAIN_MAX_USEC	   (2 * 1000000ull)  /* draining after DONE */

/* Connections the kernel queues before serve accepts them: serve
 * accepts at once (serveloop.h), so this only absorbs bursts. */
#define UDPSINK_BACKLOG 128

/* Listening TCP socket on bind:port ("0.0.0.0", "::", "198.18.0.2"). */
int udpsink_listen(const char *bind, uint16_t port, int *ret_fd);

struct udpsink_summary {
	char peer[INET6_ADDRSTRLEN + 8]; /* "198.18.0.1:40312" */
	struct udpb_setup setup;	 /* valid once a SETUP was decoded */
	bool completed;			 /* REPORT sent */
	uint64_t sent;			 /* datagrams the client says it sent */
	uint64_t received;
	uint64_t stray; /* datagrams on the sinks that were not this test's */
};

/* Run the test a client asked for with setup (already read and decoded
 * by the dispatcher, serveloop.h) on the accepted control connection cfd
 * to its REPORT (closes nothing: the caller owns cfd). cpus (NULL or
 * empty: none) pins sink i to the i-th CPU of the set, wrapping. *quit
 * (set by a signal handler) aborts the session. 0 when the test
 * completed; -errno otherwise, with *ret_reason (caller frees) saying why
 * in one line ("waiting for done: timed out waiting for the client").
 * *ret summary is filled in every case. */
int udpsink_session(int cfd, const struct udpb_setup *setup, const struct cpuset *cpus,
		    const volatile sig_atomic_t *quit, struct udpsink_summary *ret, char **ret_reason);

/* The one-line text and the ERROR code for a decoding or I/O failure of
 * the control conversation ("truncated frame", UDPB_ERR_PROTOCOL); the
 * text is NULL for an errno without one. */
const char *udpsink_error_text(int r);
uint16_t udpsink_error_code(int r);

/* "198.18.0.1:40312" for the peer of a connected socket ("?:0" unknown). */
void udpsink_peer_name(int cfd, char *buf, size_t size);

/* Refuse a connection with an ERROR frame (best effort, bounded). */
void udpsink_refuse(int fd, uint16_t code, const char *text);

#endif
