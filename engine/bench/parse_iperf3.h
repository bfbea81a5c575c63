/* parse_iperf3.h: the JSON iperf3 (3.x) prints with `--json` for a UDP
 * test (client side).
 *
 * Owns: turning that document into numbers. Sources, best first:
 * end.sum_sent + end.sum_received (iperf3 3.11 and later: exact sender and
 * receiver figures); else end.sum (older versions: the sender's packets and
 * rate with the receiver's lost_packets folded in). Must never: run
 * iperf3, or report a receiver rate it did not read (the fallback marks
 * it estimated).
 *
 * iperf3's receiver "packets" is the highest sequence number seen, and
 * "lost_packets" the gaps, so datagrams received = packets - lost_packets;
 * the sender's "packets" is what it sent. */
#ifndef CX5_PARSE_IPERF3_H
#define CX5_PARSE_IPERF3_H

#include "base/util.h"

struct iperf3_stream {
	uint64_t sent;	   /* sender packets */
	uint64_t received; /* packets - lost_packets */
	double send_mbps;
	double recv_mbps; /* estimated: send_mbps * received / sent (iperf3
			   * reports only the sender's rate per stream) */
};

struct iperf3_report {
	char version[32];      /* "iperf 3.12"; "" when absent */
	bool has_sum_received; /* end.sum_received present (exact receiver side) */
	double elapsed_sec;    /* receiver's seconds (sender's when older) */
	uint64_t blksize;      /* start.test_start.blksize; 0 when absent */
	uint64_t sent;	       /* datagrams sent */
	uint64_t received;     /* datagrams received */
	uint64_t lost_packets; /* iperf3's own count (sequence gaps) */
	double lost_percent;   /* iperf3's own figure */
	double send_mbps;
	double recv_mbps;	/* estimated when !has_sum_received */
	uint64_t sndbuf_actual; /* start.sndbuf_actual; 0 when absent */
	uint64_t rcvbuf_actual;
	double host_cpu_percent;       /* end.cpu_utilization_percent.host_total; -1 absent */
	double remote_cpu_percent;     /* remote_total; -1 absent */
	struct iperf3_stream *streams; /* end.streams[].udp */
	size_t n_streams;
};

/* Parse iperf3 --json output. Text before the first '{' (a warning line)
 * is skipped. 0 on success. Failures:
 *   -EBUSY          "the server is busy running a test"
 *   -ECONNREFUSED   "unable to connect to server" / "Connection refused"
 *   -EHOSTUNREACH   "Network is unreachable", "No route to host", "Connection
 *                   timed out", "unable to resolve"
 *   -EIO            any other "error" reported by iperf3 (*ret_error says it)
 *   -EBADMSG        not JSON, or truncated JSON
 *   -ENODATA        valid JSON without an end summary
 *   -EDOM           zero elapsed time, a non-finite figure, or a negative
 *                   rate (*ret_error then names it: "negative
 *                   bits_per_second in end.sum_received")
 * ret_error (may be NULL): iperf3's own error text when it gave one (also
 * from a plain "iperf3: error - ..." line), else NULL; caller frees.
 * *ret is written only on success; free with iperf3_report_done(). */
int parse_iperf3(const char *text, struct iperf3_report *ret, char **ret_error);
void iperf3_report_done(struct iperf3_report *r);

#endif
