/* runner_netperf.c: the netperf UDP_STREAM runner.
 *
 * Owns: building the command operators type,
 *   netperf -H PEER -t UDP_STREAM -l D -- -m M -s S -S S
 * running it (N processes pinned with -T to the given CPUs for N streams,
 * figures summed), and turning netperf's failures into one line with the
 * remedy. Must never: add options an operator would not recognise to the
 * single-stream command, or run netperf through a shell. */
#define _GNU_SOURCE
#include "runner.h"

#include <inttypes.h>

#include "base/child.h"
#include "os/netprobe.h"
#include "parse_netperf.h"

#define NETPERF_PORT	  12865
#define NETPERF_GRACE_SEC 15 /* control connection set-up and result exchange */
#define PROBE_TIMEOUT_MS  2000

static uint16_t port_of(const struct runner_params *p)
{
	return p->port ? p->port : NETPERF_PORT;
}

static char *no_netserver(const struct runner_params *p)
{
	return strprintf("no netserver on %s:%u: start `netserver -p %u` on the peer and check its firewall",
			 p->peer, port_of(p), port_of(p));
}

static int netperf_available(const struct runner_params *p, char **ret_reason)
{
	_cleanup_free_ char *path = NULL;
	int r;

	r = runner_find_binary("netperf", &path);
	if (r == -ENOENT) {
		*ret_reason = strdup("netperf is not installed (not found in PATH)");
		return *ret_reason ? 0 : -ENOMEM;
	}
	if (r < 0)
		return r;
	if (!p || !p->peer)
		return 1;
	r = netprobe_tcp(p->peer, port_of(p), PROBE_TIMEOUT_MS);
	if (r == 0)
		return 1;
	*ret_reason = no_netserver(p);
	return *ret_reason ? 0 : -ENOMEM;
}

/* argv of one netperf process; cpu >= 0 pins it (-T cpu, = local only). */
static int build_argv(const struct runner_params *p, int cpu, char ***ret)
{
	_cleanup_strv_free_ char **a = NULL;
	_cleanup_free_ char *s = NULL, *rs = NULL;
	char num[32];
	int r = 0;

	r |= strv_extend(&a, "netperf");
	r |= strv_extend(&a, "-H");
	r |= strv_extend(&a, p->peer);
	r |= strv_extend(&a, "-t");
	r |= strv_extend(&a, "UDP_STREAM");
	r |= strv_extend(&a, "-l");
	snprintf(num, sizeof(num), "%" PRIu32, p->duration_sec);
	r |= strv_extend(&a, num);
	if (p->port && p->port != NETPERF_PORT) {
		r |= strv_extend(&a, "-p");
		snprintf(num, sizeof(num), "%u", p->port);
		r |= strv_extend(&a, num);
	}
	if (cpu >= 0) {
		r |= strv_extend(&a, "-T");
		snprintf(num, sizeof(num), "%d,", cpu);
		r |= strv_extend(&a, num);
	}
	r |= strv_extend(&a, "--");
	r |= strv_extend(&a, "-m");
	snprintf(num, sizeof(num), "%" PRIu64, p->message_size);
	r |= strv_extend(&a, num);
	if (p->send_buffer) {
		if (runner_format_size(p->send_buffer, &s) < 0)
			return -ENOMEM;
		r |= strv_extend(&a, "-s");
		r |= strv_extend(&a, s);
	}
	if (p->recv_buffer) {
		if (runner_format_size(p->recv_buffer, &rs) < 0)
			return -ENOMEM;
		r |= strv_extend(&a, "-S");
		r |= strv_extend(&a, rs);
	}
	if (r < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(a);
	return 0;
}

/* CPU for stream i: the i-th of p->cpus, wrapping; -1 when not pinning. */
static int stream_cpu(const struct runner_params *p, uint32_t i)
{
	unsigned n = p->cpus ? cpuset_count(p->cpus) : 0;
	int cpu = -1;

	if (p->streams <= 1 || n == 0)
		return -1;
	for (unsigned k = 0; k <= i % n; k++)
		cpu = cpuset_next(p->cpus, cpu);
	return cpu;
}

static int explain(const struct runner_params *p, struct runner_result *res, int r, const char *field,
		   const struct child *c)
{
	_cleanup_free_ char *msg = NULL;
	size_t first = c->output ? strcspn(c->output, "\n") : 0;

	switch (r) {
	case -ECONNREFUSED:
		msg = no_netserver(p);
		return runner_fail(res, r, "%s", msg ? msg : "no netserver");
	case -EHOSTUNREACH:
		return runner_fail(res, r, "netperf cannot resolve the peer '%s': check verify.peer",
				   p->peer);
	case -ENODATA:
		return runner_fail(res, -EBADMSG,
				   "netperf output is truncated (no receiver line; exit status %d): "
				   "the run was cut short or netserver died; run it again",
				   c->exit_status);
	case -EDOM:
		if (field)
			return runner_fail(res, -EBADMSG,
					   "netperf printed a negative %s: not a measurement; check the "
					   "netperf and netserver versions and run again",
					   field);
		return runner_fail(
		    res, r,
		    "netperf measured for 0 s (or printed a non-finite figure): no throughput; "
		    "use a longer duration");
	case -EPROTONOSUPPORT:
		return runner_fail(res, -EBADMSG, "netperf printed a throughput unit cx5prof does not know");
	default:
		return runner_fail(res, -EBADMSG, "netperf printed no result (exit status %d): %.*s",
				   c->exit_status, (int)(first > 200 ? 200 : first),
				   c->output ? c->output : "no output");
	}
}

static int netperf_run(const struct runner_params *p, struct runner_result *res)
{
	_cleanup_free_ char *path = NULL, *cmds = NULL, *raw = NULL;
	_cleanup_free_ struct child *kids = NULL;
	size_t cmds_len = 0, raw_len = 0;
	uint32_t n = p->streams ? p->streams : 1;
	double cpu_sec = 0;
	uint64_t t0;
	FILE *cf = NULL, *rf = NULL;
	int r;

	runner_result_init(res, "netperf");
	if (!p->peer || p->duration_sec == 0 || p->message_size == 0)
		return runner_fail(res, -EINVAL, "netperf needs a peer, a duration and a message size");
	r = runner_find_binary("netperf", &path);
	if (r == -ENOENT) {
		_cleanup_free_ char *avail = NULL;
		if (runner_available_names(p, &avail) < 0)
			return -ENOMEM;
		return runner_fail(res, r,
				   "netperf is not installed (not found in PATH); available runners: %s; "
				   "install netperf (Debian: non-free) or set verify.runner",
				   *avail ? avail : "none");
	}
	if (r < 0)
		return runner_fail(res, r, "cannot look up netperf in PATH: %s", strerror(-r));

	kids = calloc(n, sizeof(*kids));
	if (!kids)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		kids[i] = (struct child){.out_fd = -1, .exit_status = -1};
	res->streams = calloc(n, sizeof(*res->streams));
	if (!res->streams)
		return -ENOMEM;
	cf = open_memstream(&cmds, &cmds_len);
	if (!cf)
		return -ENOMEM;

	t0 = now_usec();
	for (uint32_t i = 0; i < n; i++) {
		_cleanup_strv_free_ char **argv = NULL;
		_cleanup_free_ char *line = NULL;
		int cpu = stream_cpu(p, i);

		r = build_argv(p, cpu, &argv);
		if (r >= 0)
			r = runner_argv_to_string(argv, &line);
		if (r >= 0) {
			fprintf(cf, "%s%s", i ? "\n" : "", line);
			r = child_spawn(path, argv, NULL, &kids[i]);
		}
		if (r < 0) {
			fclose(cf);
			res->command = TAKE_PTR(cmds);
			for (uint32_t k = 0; k < n; k++)
				child_done(&kids[k]);
			return runner_fail(res, r, "cannot start netperf: %s", strerror(-r));
		}
		res->streams[i].cpu = cpu;
	}
	fclose(cf);
	res->command = TAKE_PTR(cmds);

	pause_point("bench-running");
	r = child_wait_until(kids, n, t0 + ((uint64_t)p->duration_sec + NETPERF_GRACE_SEC) * 1000000,
			     p->stop);

	rf = open_memstream(&raw, &raw_len);
	if (!rf)
		r = -ENOMEM;
	for (uint32_t i = 0; rf && i < n; i++) {
		if (n > 1)
			fprintf(rf, "== stream %u (cpu %d) ==\n", i + 1, res->streams[i].cpu);
		fputs(kids[i].output ? kids[i].output : "", rf);
		cpu_sec += kids[i].cpu_sec;
	}
	if (rf)
		fclose(rf);
	res->raw_output = TAKE_PTR(raw);
	res->n_streams = n;

	for (uint32_t i = 0; r >= 0 && i < n; i++) {
		struct netperf_report rep;
		struct runner_stream *s = &res->streams[i];
		const char *field = NULL;

		if (kids[i].timed_out) {
			r = runner_fail(res, -ETIMEDOUT, "netperf did not finish within %u s and was stopped",
					p->duration_sec + NETPERF_GRACE_SEC);
			break;
		}
		r = parse_netperf_field(kids[i].output ? kids[i].output : "", &rep, &field);
		if (r < 0) {
			r = explain(p, res, r, field, &kids[i]);
			break;
		}
		s->sent = rep.sent;
		s->received = rep.received;
		s->send_mbps = rep.send_mbps;
		s->recv_mbps = rep.recv_mbps;
		res->sent += rep.sent;
		res->send_errors += rep.send_errors;
		res->received += rep.received;
		res->send_mbps += rep.send_mbps;
		res->recv_mbps += rep.recv_mbps;
		if (rep.elapsed_sec > res->elapsed_sec)
			res->elapsed_sec = rep.elapsed_sec;
		if (i == 0) {
			res->send_buffer_actual = rep.send_socket;
			res->recv_buffer_actual = rep.recv_socket;
		}
	}
	for (uint32_t k = 0; k < n; k++)
		child_done(&kids[k]);
	if (r < 0)
		return r;
	/* After the run: netperf prints the socket sizes it got. */
	r = runner_warn_clamped(p, res->send_buffer_actual, res->recv_buffer_actual, res);
	if (r < 0)
		return r;
	runner_result_compute_loss(res);
	if (res->elapsed_sec > 0)
		res->sender_cpu_percent = 100.0 * cpu_sec / res->elapsed_sec;
	return runner_check_sent(p, res);
}

const struct runner runner_netperf = {
    .name = "netperf",
    .summary = "netperf UDP_STREAM (netserver on the peer, TCP 12865)",
    .default_port = NETPERF_PORT,
    .available = netperf_available,
    .run = netperf_run,
};
