/* udpsend.h: the sending side of the built-in UDP benchmark.
 *
 * Owns: the client end of the control protocol (udpbench.h) and the UDP
 * sender: N streams, each a connected socket in its own thread pinned to
 * a CPU, sending with sendmmsg in batches, optionally as UDP GSO
 * super-datagrams (UDP_SEGMENT) cut by the kernel into message_size
 * datagrams. Every datagram carries (cookie, stream, sequence number) so the
 * receiver counts exactly. Must never: send to any address but the one
 * given, or run longer than the duration plus bounded grace periods. */
#ifndef CX5_UDPSEND_H
#define CX5_UDPSEND_H

#include "base/cpuset.h"
#include "udpbench.h"

#define UDPSEND_CONNECT_TIMEOUT_USEC (5 * 1000000ull)
#define UDPSEND_REPLY_TIMEOUT_USEC   (10 * 1000000ull)
/* REPORT after DONE: the receiver drains for at most 2 s. */
#define UDPSEND_REPORT_TIMEOUT_USEC (10 * 1000000ull)

struct udpsend_params {
	const char *peer;	   /* numeric address of the `cx5prof serve` host */
	uint16_t port;		   /* control port; 0: UDPB_DEFAULT_PORT */
	uint32_t duration_s;	   /* 1..UDPB_MAX_DURATION */
	uint32_t message_size;	   /* UDP payload per datagram, netperf -m */
	uint64_t send_buffer;	   /* SO_SNDBUF request (netperf -s); 0: default */
	uint64_t recv_buffer;	   /* SO_RCVBUF request at the receiver (netperf -S); 0: default */
	uint32_t streams;	   /* 1..UDPB_MAX_STREAMS */
	const struct cpuset *cpus; /* stream i on the i-th CPU (wrapping); NULL/empty: not pinned */
	bool gso;		   /* UDP_SEGMENT when the kernel and the path allow it */
	bool peer_state;	   /* ask for the peer's STATE before and after the run */
	/* The STATE version to ask first (udpbench.h); 0: the newest. An
	 * older serve's refusal costs a new connection: callers that already
	 * asked (udpsend_query_state) pass the version it answered. */
	uint16_t state_version;
};

struct udpsend_stream {
	int cpu;	      /* pinned CPU or -1 */
	bool gso;	      /* GSO stayed on for the whole run */
	uint64_t sent;	      /* datagrams handed to the kernel */
	uint64_t send_errors; /* failed sends (ENOBUFS, ECONNREFUSED, ...) */
	uint64_t bytes_sent;
	uint64_t send_usec;
	double cpu_sec;	   /* user + system time of the stream's thread */
	uint64_t received; /* from the receiver's REPORT */
	uint64_t bytes_received;
	uint64_t reordered;
	uint64_t recv_window_usec;
	uint64_t lost; /* sent - received (0 when received > sent) */
	double send_mbps;
	double recv_mbps;
};

struct udpsend_result {
	uint32_t streams;
	struct udpsend_stream stream[UDPB_MAX_STREAMS];
	uint64_t sent, send_errors, received, lost;
	double send_mbps, recv_mbps, loss_percent;
	uint64_t send_usec;	   /* longest stream's sending time */
	uint64_t recv_window_usec; /* receiver: first to last arrival */
	double cpu_percent;	   /* sender CPU time / send time * 100 (100 = one CPU) */
	uint64_t send_buffer_actual;
	uint64_t recv_buffer_actual;
	bool gso_used;	       /* at least one stream sent with GSO */
	unsigned gso_segments; /* datagrams per GSO send */
	uint16_t ncpus;	       /* receiver's softirq load per CPU */
	struct udpb_cpu_load softirq[UDPB_MAX_CPUS];
	/* With params.peer_state: the peer's answers (NULL when it gave none;
	 * a note says why). */
	struct udpb_state *peer_before, *peer_after;
	uint64_t peer_before_usec, peer_after_usec; /* now_usec() when each answer came */
	char **notes;				    /* one-line notes (GSO fallback, buffer clamped) */
	char *error;				    /* set on failure: object + cause + remedy */
};

/* Run one test against `cx5prof serve` at p->peer. 0 on success with *res
 * filled (res must be zeroed by the caller; free with udpsend_result_done);
 * -errno with res->error on failure (-ECONNREFUSED no server, -EBUSY
 * server busy, -ETIMEDOUT, -EPROTO bad reply, -EINVAL bad params, -EIO no
 * datagram was sent: every send failed). */
int udpsend_run(const struct udpsend_params *p, struct udpsend_result *res);
void udpsend_result_done(struct udpsend_result *res);

/* Ask `cx5prof serve` at peer:port (0: the default port) for its state
 * on a connection of its own, connecting and waiting for the answer at
 * most timeout_ms each: in the newest STATE version, and again in version
 * 1 on a new connection when an older serve refuses it (ret->version says
 * which answered). -errno with *ret_error (caller frees) as udpsend_run's
 * errors; -EPROTO also for a server that does not know STATE (an older
 * cx5prof). */
int udpsend_query_state(const char *peer, uint16_t port, unsigned timeout_ms, struct udpb_state *ret,
			char **ret_error);

/* The equivalent `cx5prof bench ...` command line (for history). */
int udpsend_command_line(const struct udpsend_params *p, char **ret);

/* The interface that carries traffic to peer: the one that owns the
 * source address of the route (caller frees). Nothing is sent. -ENODEV no
 * interface owns it, -EINVAL peer is not a numeric address. */
int udpsend_route_ifname(const char *peer, char **ret);

/* The CPUs local to the NIC that carries traffic to peer: the route's
 * source address -> its interface -> device/local_cpulist (sysroot).
 * Only CPUs this process may run on are kept. Nothing is sent. -ENODEV no
 * interface owns the source address, -ENODATA the interface has no
 * local_cpulist (virtual devices such as veth) or none of its CPUs is
 * usable here. */
int udpsend_local_cpus(const char *peer, struct cpuset *ret, char **ret_ifname);

#endif
