/* runner_builtin.c: the `builtin` runner: cx5prof's own UDP stream
 * benchmark (udpsend.h) against `cx5prof serve` on the peer.
 *
 * Owns: translating runner_params into a udpsend run and its result into
 * a runner_result. Must never: send to anything but params->peer, log
 * above debug. */
#define _GNU_SOURCE
#include <inttypes.h>

#include "peerstate.h"
#include "runner.h"
#include "udpsend.h"

static int builtin_available(const struct runner_params *p, char **ret_reason)
{
	/* Built in, so always there. Probing the peer here would cost a
	 * `serve --once` its one test: an absent server is reported by run. */
	(void)p;
	*ret_reason = NULL;
	return 1;
}

static char *report_text(const struct udpsend_result *res)
{
	_cleanup_free_ char *text = NULL;

	text = strprintf(
	    "builtin: sent %" PRIu64 " received %" PRIu64 " lost %" PRIu64 " (%.4f%%) send %.1f Mbps "
	    "recv %.1f Mbps sender_cpu %.1f%% gso %s send_usec %" PRIu64 " recv_window_usec %" PRIu64 "\n",
	    res->sent, res->received, res->lost, res->loss_percent, res->send_mbps, res->recv_mbps,
	    res->cpu_percent, res->gso_used ? "on" : "off", res->send_usec, res->recv_window_usec);
	for (unsigned i = 0; text && i < res->streams; i++) {
		const struct udpsend_stream *s = &res->stream[i];
		char *n =
		    strprintf("%sstream %u cpu %d sent %" PRIu64 " received %" PRIu64 " lost %" PRIu64
			      " send %.1f Mbps recv %.1f Mbps\n",
			      text, i, s->cpu, s->sent, s->received, s->lost, s->send_mbps, s->recv_mbps);
		free(text);
		text = n;
	}
	for (unsigned i = 0; text && i < res->ncpus; i++) {
		char *n = strprintf("%sreceiver cpu%u softirq %.2f%%\n", text, res->softirq[i].cpu,
				    res->softirq[i].softirq_centipct / 100.0);
		free(text);
		text = n;
	}
	return TAKE_PTR(text);
}

static int builtin_run(const struct runner_params *p, struct runner_result *res)
{
	struct udpsend_params sp = {
	    .peer = p->peer,
	    .port = p->port,
	    .duration_s = p->duration_sec,
	    .message_size = p->message_size > UINT32_MAX ? UINT32_MAX : (uint32_t)p->message_size,
	    .send_buffer = p->send_buffer,
	    .recv_buffer = p->recv_buffer,
	    .streams = p->streams ? p->streams : 1,
	    .cpus = p->cpus,
	    .gso = p->gso,
	    .peer_state = true,
	    .state_version = p->state_version,
	};
	_cleanup_free_ struct udpsend_result *ur = calloc(1, sizeof(*ur));
	int r;

	snprintf(res->runner, sizeof(res->runner), "builtin");
	if (!ur)
		return runner_fail(res, -ENOMEM, "builtin: out of memory");
	/* No runner_warn_clamped(): udpsend's notes judge the buffers from
	 * the sizes the sockets got (the peer's from `serve`). */
	free(res->command);
	res->command = NULL;
	if (udpsend_command_line(&sp, &res->command) < 0)
		return runner_fail(res, -ENOMEM, "builtin: out of memory");
	r = udpsend_run(&sp, ur);
	if (r < 0) {
		runner_fail(res, r, "%s", ur->error ? ur->error : "builtin benchmark failed");
		udpsend_result_done(ur);
		return r;
	}
	free(res->raw_output);
	res->raw_output = report_text(ur);
	res->elapsed_sec = (double)ur->recv_window_usec / 1e6;
	res->sent = ur->sent;
	res->send_errors = ur->send_errors;
	res->received = ur->received;
	res->send_mbps = ur->send_mbps;
	res->recv_mbps = ur->recv_mbps;
	res->send_buffer_actual = ur->send_buffer_actual;
	res->recv_buffer_actual = ur->recv_buffer_actual;
	res->sender_cpu_percent = ur->cpu_percent;
	free(res->streams);
	res->streams = calloc(ur->streams, sizeof(*res->streams));
	res->n_streams = res->streams ? ur->streams : 0;
	for (size_t i = 0; i < res->n_streams; i++) {
		const struct udpsend_stream *s = &ur->stream[i];
		res->streams[i] = (struct runner_stream){
		    .cpu = s->cpu,
		    .sent = s->sent,
		    .received = s->received,
		    .send_mbps = s->send_mbps,
		    .recv_mbps = s->recv_mbps,
		};
	}
	runner_result_compute_loss(res);
	if (ur->peer_before)
		res->peer_state = peerstate_to_json(ur->peer_before, ur->peer_after);
	if (ur->peer_before && ur->peer_after &&
	    peerstate_netcounters(ur->peer_before, ur->peer_before_usec, &res->peer_before) >= 0) {
		res->has_peer_counters =
		    peerstate_netcounters(ur->peer_after, ur->peer_after_usec, &res->peer_after) >= 0;
		if (!res->has_peer_counters)
			netcounters_done(&res->peer_before);
	}
	for (char **n = ur->notes; n && *n; n++)
		runner_warn(res, "%s", *n);
	udpsend_result_done(ur);
	return runner_check_sent(p, res);
}

const struct runner runner_builtin = {
    .name = "builtin",
    .summary = "cx5prof's own UDP stream (sendmmsg, optional GSO) against `cx5prof serve`",
    .default_port = UDPB_DEFAULT_PORT,
    .available = builtin_available,
    .run = builtin_run,
};
