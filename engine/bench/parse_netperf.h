/* parse_netperf.h: the text netperf (2.x) prints for a UDP_STREAM test.
 *
 * Owns: turning netperf's output into numbers, in every form operators
 * produce: the classic banner + header + two data lines (sender, then
 * receiver), `-P 0` (two data lines, no header), and `-o LIST` CSV (a row
 * of column titles, then a row of values); throughput in any `-f` unit,
 * converted to 10^6 bits/s; and netperf's own error messages. Must never:
 * run netperf, or guess a number that is not in the text.
 *
 * netperf prints SO_SNDBUF/SO_RCVBUF as the kernel reports them (doubled:
 * `-s 2M` prints 4194304). Without a header (`-P 0`) the unit cannot be
 * seen; netperf's default, 10^6 bits/s, is assumed. */
#ifndef CX5_PARSE_NETPERF_H
#define CX5_PARSE_NETPERF_H

#include "base/util.h"

struct netperf_report {
	uint64_t send_socket;  /* local socket buffer, bytes; 0 when not printed */
	uint64_t recv_socket;  /* remote socket buffer, bytes; 0 when not printed */
	uint64_t message_size; /* bytes; 0 when not printed */
	double elapsed_sec;
	uint64_t sent;	      /* messages sent (sender "Okay") */
	uint64_t send_errors; /* failed sends (sender "Errors") */
	uint64_t received;    /* messages received (receiver "Okay") */
	double send_mbps;     /* 10^6 bits/s */
	double recv_mbps;     /* 10^6 bits/s */
	char unit[24];	      /* unit as printed ("10^6bits/sec"); "" when assumed */
};

/* Parse netperf's output (stdout and stderr together is fine).
 * 0 on success. Failures, each with a distinct meaning:
 *   -ECONNREFUSED  netperf could not reach netserver ("establish control")
 *   -EHOSTUNREACH  name resolution failed ("could not resolve host")
 *   -ENODATA       truncated: sender line found but no receiver line
 *   -EDOM          elapsed time is zero, or a figure is not finite, or a
 *                  figure is negative (netperf prints none: a corrupt or
 *                  foreign line must not pass as a 0% loss)
 *   -EPROTONOSUPPORT throughput unit not understood (e.g. "Trans/s")
 *   -EBADMSG       no result in the text at all
 * *ret is written only on success. A report with 0 messages sent parses
 * (it is what netperf printed); the runner refuses it as a run. */
int parse_netperf(const char *text, struct netperf_report *ret);
/* The same; on -EDOM for a negative figure, *ret_field (may be NULL; a
 * static string) names it: "sender throughput", "receiver Okay messages",
 * or the -o column title ("Local Send Calls"). parse_netperf() is kept for
 * callers that need no name (the fuzz harness). */
int parse_netperf_field(const char *text, struct netperf_report *ret, const char **ret_field);

/* Throughput in `unit` ("10^6bits/sec", "KBytes/s", ...) to 10^6 bits/s:
 * the factor to multiply by. -EPROTONOSUPPORT for an unknown unit. */
int netperf_unit_factor(const char *unit, double *ret);

#endif
