/* runner_iperf3.c: the iperf3 UDP runner.
 *
 * Owns: building and running
 *   iperf3 -c PEER -u -b 0 -l M -t D [-p PORT] [-P N] [-w S] [-A CPU] --json
 * and turning iperf3's failures (no server, busy server, start-up errors)
 * into one line with the remedy. Must never: probe the server's port
 * before the run (a one-shot `iperf3 -s -1` would take the probe for its
 * client and exit), or run iperf3 through a shell. */
#define _GNU_SOURCE
#include "runner.h"

#include <inttypes.h>

#include "base/child.h"
#include "parse_iperf3.h"

#define IPERF3_PORT	 5201
#define IPERF3_GRACE_SEC 10

static uint16_t port_of(const struct runner_params *p)
{
	return p->port ? p->port : IPERF3_PORT;
}

static int iperf3_available(const struct runner_params *p, char **ret_reason)
{
	_cleanup_free_ char *path = NULL;
	int r;

	(void)p;
	r = runner_find_binary("iperf3", &path);
	if (r == -ENOENT) {
		*ret_reason = strdup("iperf3 is not installed (not found in PATH)");
		return *ret_reason ? 0 : -ENOMEM;
	}
	return r < 0 ? r : 1;
}

static int build_argv(const struct runner_params *p, int cpu, char ***ret)
{
	_cleanup_strv_free_ char **a = NULL;
	uint64_t buf = p->send_buffer ? p->send_buffer : p->recv_buffer;
	char num[32];
	int r = 0;

	r |= strv_extend(&a, "iperf3");
	r |= strv_extend(&a, "-c");
	r |= strv_extend(&a, p->peer);
	r |= strv_extend(&a, "-u");
	r |= strv_extend(&a, "-b");
	r |= strv_extend(&a, "0");
	r |= strv_extend(&a, "-l");
	snprintf(num, sizeof(num), "%" PRIu64, p->message_size);
	r |= strv_extend(&a, num);
	r |= strv_extend(&a, "-t");
	snprintf(num, sizeof(num), "%" PRIu32, p->duration_sec);
	r |= strv_extend(&a, num);
	if (p->port && p->port != IPERF3_PORT) {
		r |= strv_extend(&a, "-p");
		snprintf(num, sizeof(num), "%u", p->port);
		r |= strv_extend(&a, num);
	}
	if (p->streams > 1) {
		r |= strv_extend(&a, "-P");
		snprintf(num, sizeof(num), "%" PRIu32, p->streams);
		r |= strv_extend(&a, num);
	}
	if (buf) {
		_cleanup_free_ char *s = NULL;
		if (runner_format_size(buf, &s) < 0)
			return -ENOMEM;
		r |= strv_extend(&a, "-w");
		r |= strv_extend(&a, s);
	}
	if (cpu >= 0) {
		r |= strv_extend(&a, "-A");
		snprintf(num, sizeof(num), "%d", cpu);
		r |= strv_extend(&a, num);
	}
	r |= strv_extend(&a, "--json");
	if (r < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(a);
	return 0;
}

static int explain(const struct runner_params *p, struct runner_result *res, int r, const char *iperf_error,
		   const struct child *c)
{
	size_t first = c->output ? strcspn(c->output, "\n") : 0;

	switch (r) {
	case -EBUSY:
		return runner_fail(
		    res, r,
		    "iperf3 server on %s:%u is busy running another test: wait for it to finish "
		    "or start another `iperf3 -s -p PORT` for cx5prof",
		    p->peer, port_of(p));
	case -ECONNREFUSED:
		return runner_fail(
		    res, r,
		    "no iperf3 server on %s:%u: start `iperf3 -s -p %u` on the peer and check its "
		    "firewall",
		    p->peer, port_of(p), port_of(p));
	case -EHOSTUNREACH:
		return runner_fail(res, r,
				   "iperf3 cannot reach the peer '%s' (%s): check verify.peer and the route",
				   p->peer, iperf_error ? iperf_error : "unreachable");
	case -EIO:
		return runner_fail(res, r, "iperf3 failed: %s", iperf_error ? iperf_error : "unknown error");
	case -EDOM:
		if (iperf_error)
			return runner_fail(res, -EBADMSG, "iperf3 printed a %s: not a measurement; run again",
					   iperf_error);
		return runner_fail(res, r, "iperf3 measured for 0 s: no throughput; use a longer duration");
	case -ENODATA:
		return runner_fail(res, -EBADMSG,
				   "iperf3's JSON has no end summary (exit status %d): run it again",
				   c->exit_status);
	default:
		return runner_fail(res, -EBADMSG, "iperf3 printed no JSON result (exit status %d): %.*s",
				   c->exit_status, (int)(first > 200 ? 200 : first),
				   c->output ? c->output : "no output");
	}
}

static int iperf3_run(const struct runner_params *p, struct runner_result *res)
{
	_cleanup_free_ char *path = NULL, *iperf_error = NULL;
	_cleanup_strv_free_ char **argv = NULL;
	struct child kid = {.out_fd = -1, .exit_status = -1};
	struct iperf3_report rep;
	int cpu = p->cpus ? cpuset_next(p->cpus, -1) : -1;
	uint64_t t0;
	int r;

	runner_result_init(res, "iperf3");
	if (!p->peer || p->duration_sec == 0 || p->message_size == 0)
		return runner_fail(res, -EINVAL, "iperf3 needs a peer, a duration and a message size");
	r = runner_find_binary("iperf3", &path);
	if (r == -ENOENT) {
		_cleanup_free_ char *avail = NULL;
		if (runner_available_names(p, &avail) < 0)
			return -ENOMEM;
		return runner_fail(res, r,
				   "iperf3 is not installed (not found in PATH); available runners: %s; "
				   "install iperf3 or set verify.runner",
				   *avail ? avail : "none");
	}
	if (r < 0)
		return runner_fail(res, r, "cannot look up iperf3 in PATH: %s", strerror(-r));
	if (p->send_buffer && p->recv_buffer && p->send_buffer != p->recv_buffer) {
		r = runner_warn(
		    res, "iperf3 has one buffer size (-w) for both sides: using the send buffer %" PRIu64,
		    p->send_buffer);
		if (r < 0)
			return r;
	}

	r = build_argv(p, cpu, &argv);
	if (r >= 0)
		r = runner_argv_to_string(argv, &res->command);
	if (r < 0)
		return r;
	t0 = now_usec();
	r = child_spawn(path, argv, NULL, &kid);
	if (r < 0)
		return runner_fail(res, r, "cannot start iperf3: %s", strerror(-r));
	pause_point("bench-running");
	r = child_wait_until(&kid, 1, t0 + ((uint64_t)p->duration_sec + IPERF3_GRACE_SEC) * 1000000, p->stop);
	res->raw_output = kid.output ? strdup(kid.output) : strdup("");
	if (r < 0 || !res->raw_output) {
		child_done(&kid);
		return r < 0 ? runner_fail(res, r, "waiting for iperf3 failed: %s", strerror(-r)) : -ENOMEM;
	}
	if (kid.timed_out) {
		child_done(&kid);
		return runner_fail(res, -ETIMEDOUT, "iperf3 did not finish within %u s and was stopped",
				   p->duration_sec + IPERF3_GRACE_SEC);
	}

	r = parse_iperf3(res->raw_output, &rep, &iperf_error);
	if (r < 0) {
		r = explain(p, res, r, iperf_error, &kid);
		child_done(&kid);
		return r;
	}
	res->elapsed_sec = rep.elapsed_sec;
	res->sent = rep.sent;
	res->received = rep.received;
	res->send_mbps = rep.send_mbps;
	res->recv_mbps = rep.recv_mbps;
	res->send_buffer_actual = rep.sndbuf_actual;
	res->recv_buffer_actual = rep.rcvbuf_actual;
	if (rep.n_streams > 0) {
		res->streams = calloc(rep.n_streams, sizeof(*res->streams));
		if (!res->streams) {
			iperf3_report_done(&rep);
			child_done(&kid);
			return -ENOMEM;
		}
		for (size_t i = 0; i < rep.n_streams; i++)
			res->streams[i] = (struct runner_stream){
			    .cpu = cpu,
			    .sent = rep.streams[i].sent,
			    .received = rep.streams[i].received,
			    .send_mbps = rep.streams[i].send_mbps,
			    .recv_mbps = rep.streams[i].recv_mbps,
			};
		res->n_streams = rep.n_streams;
	}
	runner_result_compute_loss(res);
	if (res->elapsed_sec > 0)
		res->sender_cpu_percent = 100.0 * kid.cpu_sec / res->elapsed_sec;
	/* iperf3 reports the client's sockets only: its receive figure is not
	 * the receiver's, so that side is judged from the limits. */
	r = runner_warn_clamped(p, res->send_buffer_actual, 0, res);
	if (r >= 0)
		r = runner_check_sent(p, res);
	if (r >= 0 && !rep.has_sum_received)
		r = runner_warn(res, "%s has no end.sum_received: the receive rate is estimated from end.sum",
				*rep.version ? rep.version : "this iperf3");
	iperf3_report_done(&rep);
	child_done(&kid);
	return r < 0 ? r : 0;
}

const struct runner runner_iperf3 = {
    .name = "iperf3",
    .summary = "iperf3 -u -b 0 (iperf3 -s on the peer, TCP 5201)",
    .default_port = IPERF3_PORT,
    .available = iperf3_available,
    .run = iperf3_run,
};
