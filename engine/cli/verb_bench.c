/* verb_bench.c: `cx5prof bench`: an ad-hoc run of the built-in UDP stream
 * benchmark against `cx5prof serve` on the peer.
 *
 * Owns: the bench command line, printing the result (human and JSON, keys
 * in schemas/bench.schema.json) and recording the run in the history.
 * Must never: send traffic anywhere but --peer. */
#define _GNU_SOURCE
#include <inttypes.h>

#include "base/log.h"
#include "base/output.h"
#include "bench/peerstate.h"
#include "bench/udpsend.h"
#include "ledger/ledgerwatch.h"
#include "mirror/mirror.h"
#include "os/link.h"
#include "store/history.h"
#include "store/runs.h"
#include "verbkit.h"
#include "verbs.h"

enum {
	OPT_PEER = 'H',
	OPT_PORT = 'p',
	OPT_DURATION = 'l',
	OPT_MESSAGE = 'm',
	OPT_SOCKBUF = 1000,
	OPT_SNDBUF = 's',
	OPT_RCVBUF = 'S',
	OPT_STREAMS = 'n',
	OPT_CPUS = 1001,
	OPT_GSO = 1002,
	OPT_NO_RECORD = 1003,
};

const struct cli_option bench_options[] = {
    {"peer", CLI_ARG_REQUIRED, OPT_PEER, "ADDR", "numeric address of the host running `cx5prof serve`"},
    {"port", CLI_ARG_REQUIRED, OPT_PORT, "PORT", "its control port (default 12866)"},
    {"duration", CLI_ARG_REQUIRED, OPT_DURATION, "SECONDS", "test length, 1..3600 (default 10)"},
    {"message-size", CLI_ARG_REQUIRED, OPT_MESSAGE, "BYTES",
     "UDP payload per datagram, as netperf -m (default 8000)"},
    {"socket-buffer", CLI_ARG_REQUIRED, OPT_SOCKBUF, "SIZE",
     "send and receive socket buffers (4M), as -s/-S"},
    {"send-buffer", CLI_ARG_REQUIRED, OPT_SNDBUF, "SIZE", "sender's SO_SNDBUF, as netperf -s"},
    {"recv-buffer", CLI_ARG_REQUIRED, OPT_RCVBUF, "SIZE", "receiver's SO_RCVBUF, as netperf -S"},
    {"streams", CLI_ARG_REQUIRED, OPT_STREAMS, "N", "parallel streams, 1..64 (default 1)"},
    {"cpus", CLI_ARG_REQUIRED, OPT_CPUS, "LIST",
     "pin stream i to the i-th CPU of LIST; none: no pinning (default: the NIC's local CPUs)"},
    {"gso", CLI_ARG_NONE, OPT_GSO, NULL, "send with UDP GSO (UDP_SEGMENT) when the kernel allows"},
    {"no-record", CLI_ARG_NONE, OPT_NO_RECORD, NULL, "do not record the run in the history"},
    {0},
};

struct bench_args {
	struct udpsend_params p;
	struct cpuset cpus;
	bool cpus_given;
	bool no_record;
};

static int parse_u32(const char *opt, const char *arg, uint32_t min, uint32_t max, uint32_t *ret)
{
	uint32_t v;

	if (safe_atou32(arg, &v) < 0 || v < min || v > max) {
		log_error("bench: invalid --%s '%s': expected %u..%u", opt, arg, min, max);
		return EXIT_USAGE;
	}
	*ret = v;
	return 0;
}

static int parse_buffer(const char *opt, const char *arg, uint64_t *ret)
{
	uint64_t v;

	if (parse_size(arg, &v) < 0 || v > UDPB_MAX_RECV_BUFFER) {
		log_error("bench: invalid --%s '%s': expected a size up to 1G (e.g. 4M)", opt, arg);
		return EXIT_USAGE;
	}
	*ret = v;
	return 0;
}

static int parse_opt(int id, const char *arg, void *userdata)
{
	struct bench_args *a = userdata;
	uint32_t v = 0;
	int r;

	switch (id) {
	case OPT_PEER:
		a->p.peer = arg;
		return 0;
	case OPT_PORT:
		r = parse_u32("port", arg, 1, 65535, &v);
		a->p.port = (uint16_t)v;
		return r;
	case OPT_DURATION:
		return parse_u32("duration", arg, 1, UDPB_MAX_DURATION, &a->p.duration_s);
	case OPT_MESSAGE:
		return parse_u32("message-size", arg, UDPB_MIN_MESSAGE, UDPB_MAX_MESSAGE, &a->p.message_size);
	case OPT_SOCKBUF:
		r = parse_buffer("socket-buffer", arg, &a->p.send_buffer);
		a->p.recv_buffer = a->p.send_buffer;
		return r;
	case OPT_SNDBUF:
		return parse_buffer("send-buffer", arg, &a->p.send_buffer);
	case OPT_RCVBUF:
		return parse_buffer("recv-buffer", arg, &a->p.recv_buffer);
	case OPT_STREAMS:
		return parse_u32("streams", arg, 1, UDPB_MAX_STREAMS, &a->p.streams);
	case OPT_CPUS:
		cpuset_done(&a->cpus);
		a->cpus_given = true;
		if (streq(arg, "none"))
			return 0; /* empty set: not pinned */
		if (cpuset_parse_list(arg, &a->cpus) < 0 || cpuset_count(&a->cpus) == 0) {
			log_error("bench: invalid --cpus '%s': expected a CPU list such as 0-3,8", arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_GSO:
		a->p.gso = true;
		return 0;
	case OPT_NO_RECORD:
		a->no_record = true;
		return 0;
	}
	return EXIT_USAGE;
}

static void print_result(const struct udpsend_params *p, const struct udpsend_result *res,
			 struct json_object *peer, struct json_object *ledger, const char *command)
{
	out_open_object(NULL);
	out_string(OUT_JSON, "runner", NULL, "builtin");
	out_string(OUT_JSON, "command", NULL, command);
	out_string(OUT_ANY, "peer", "builtin UDP stream to %s", p->peer);
	out_uint(OUT_ANY, "port", ":%" PRIu64, p->port);
	out_uint(OUT_ANY, "duration_s", ": %" PRIu64 " s", p->duration_s);
	out_uint(OUT_ANY, "message_size", ", %" PRIu64 "-byte messages", p->message_size);
	out_uint(OUT_ANY, "streams", ", %" PRIu64 " stream(s)", p->streams);
	out_bool(OUT_ANY, "gso", ", gso %s", res->gso_used);
	out_uint(OUT_JSON, "gso_segments", NULL, res->gso_used ? res->gso_segments : 1);
	out_uint(OUT_JSON, "send_buffer", NULL, p->send_buffer);
	out_uint(OUT_JSON, "recv_buffer", NULL, p->recv_buffer);
	out_uint(OUT_ANY, "send_buffer_actual", "\nsocket buffers (kernel-doubled): send %" PRIu64,
		 res->send_buffer_actual);
	out_uint(OUT_ANY, "recv_buffer_actual", ", receive %" PRIu64 "\n", res->recv_buffer_actual);

	out_text("%-6s %-4s %12s %12s %10s %7s %10s %10s %6s\n", "stream", "cpu", "sent", "received", "lost",
		 "loss%", "send_Mbps", "recv_Mbps", "cpu%");
	out_open_array("per_stream");
	for (unsigned i = 0; i < res->streams; i++) {
		const struct udpsend_stream *s = &res->stream[i];
		double loss = s->sent ? 100.0 * (double)s->lost / (double)s->sent : 0.0;
		double cpu = s->send_usec ? s->cpu_sec * 1e8 / (double)s->send_usec : 0.0;

		out_open_object(NULL);
		out_uint(OUT_ANY, "stream", "%-6" PRIu64 " ", i);
		if (s->cpu >= 0)
			out_int(OUT_ANY, "cpu", "%-4" PRId64 " ", s->cpu);
		else
			out_string(OUT_ANY, "cpu", "%-4s ", NULL);
		out_bool(OUT_JSON, "gso", NULL, s->gso);
		out_uint(OUT_ANY, "sent", "%12" PRIu64 " ", s->sent);
		out_uint(OUT_ANY, "received", "%12" PRIu64 " ", s->received);
		out_uint(OUT_ANY, "lost", "%10" PRIu64 " ", s->lost);
		out_double(OUT_ANY, "loss_percent", "%7.3f ", loss);
		out_double(OUT_ANY, "send_mbps", "%10.1f ", s->send_mbps);
		out_double(OUT_ANY, "recv_mbps", "%10.1f ", s->recv_mbps);
		out_double(OUT_ANY, "cpu_percent", "%6.1f\n", cpu);
		out_uint(OUT_JSON, "send_errors", NULL, s->send_errors);
		out_uint(OUT_JSON, "reordered", NULL, s->reordered);
		out_close_object();
	}
	out_close_array();
	out_text("%-6s %-4s ", "total", "");
	out_uint(OUT_ANY, "sent", "%12" PRIu64 " ", res->sent);
	out_uint(OUT_ANY, "received", "%12" PRIu64 " ", res->received);
	out_uint(OUT_ANY, "lost", "%10" PRIu64 " ", res->lost);
	out_double(OUT_ANY, "loss_percent", "%7.3f ", res->loss_percent);
	out_double(OUT_ANY, "send_mbps", "%10.1f ", res->send_mbps);
	out_double(OUT_ANY, "recv_mbps", "%10.1f ", res->recv_mbps);
	out_double(OUT_ANY, "sender_cpu_percent", "%6.1f\n", res->cpu_percent);
	out_uint(OUT_JSON, "send_errors", NULL, res->send_errors);
	out_uint(OUT_JSON, "send_usec", NULL, res->send_usec);
	out_uint(OUT_JSON, "recv_window_usec", NULL, res->recv_window_usec);

	out_text("receiver softirq load:");
	out_open_array("receiver_softirq");
	for (unsigned i = 0; i < res->ncpus; i++) {
		out_open_object(NULL);
		out_uint(OUT_ANY, "cpu", " cpu%" PRIu64, res->softirq[i].cpu);
		out_double(OUT_ANY, "softirq_percent", " %.1f%%", res->softirq[i].softirq_centipct / 100.0);
		out_close_object();
	}
	out_close_array();
	out_text("%s\n", res->ncpus ? "" : " unknown");
	out_open_array("notes");
	for (char **n = res->notes; n && *n; n++)
		out_string(OUT_ANY, NULL, "note: %s\n", *n);
	out_close_array();
	peerstate_render(peer);
	ledger_render(ledger);
	out_close_object();
}

static char *report_text(const struct udpsend_result *res)
{
	return strprintf(
	    "sent %" PRIu64 " received %" PRIu64 " lost %" PRIu64 " loss %.4f%% send %.1f Mbps "
	    "recv %.1f Mbps sender cpu %.1f%% gso %s send_usec %" PRIu64 " recv_window_usec %" PRIu64,
	    res->sent, res->received, res->lost, res->loss_percent, res->send_mbps, res->recv_mbps,
	    res->cpu_percent, res->gso_used ? "on" : "off", res->send_usec, res->recv_window_usec);
}

/* The history's pass/fail of an ad-hoc run (no thresholds to hold): it
 * sent datagrams and some arrived. 100% loss is a failure. */
static bool bench_passed(const struct udpsend_result *res)
{
	return res->sent > 0 && res->received > 0;
}

static void record(struct cli *cli, const struct udpsend_params *p, const struct udpsend_result *res,
		   struct json_object *peer, struct json_object *ledger, const char *command,
		   const char *ifname, int64_t started_usec)
{
	_cleanup_free_ char *raw = report_text(res), *verdict = NULL, *ledger_txt = ledger_text(ledger);
	struct run_artifact arts[4] = {{(char *)"command", (char *)command}, {(char *)"runner_output", raw}};
	size_t n_arts = raw ? 2 : 1;
	struct run_record rec = {
	    .started_usec = started_usec,
	    .ended_usec = history_now_usec(),
	    .runner = (char *)"builtin",
	    .command_line = (char *)command,
	    .ifname = (char *)ifname,
	    .peer = (char *)p->peer,
	    .message_size = p->message_size,
	    .send_buffer = p->send_buffer,
	    .recv_buffer = p->recv_buffer,
	    .streams = p->streams,
	    .duration_s = p->duration_s,
	    .sent = res->sent,
	    .received = res->received,
	    .lost = res->lost,
	    .send_mbps = res->send_mbps,
	    .recv_mbps = res->recv_mbps,
	    .loss_pct = res->loss_percent,
	    /* bench has no thresholds, and runs.h stores a verdict as a plain
	     * bool: "pass" only means datagrams went out and arrived. */
	    .passed = bench_passed(res),
	    .artifacts = arts,
	    .limited_by = (char *)ledger_doc_limited_by(ledger),
	    .ledger = ledger ? (char *)json_object_to_json_string_ext(ledger, JSON_C_TO_STRING_PLAIN) : NULL,
	};
	struct history *h = NULL;
	int r;

	if (peer)
		arts[n_arts++] = (struct run_artifact){
		    (char *)PEERSTATE_ARTIFACT,
		    (char *)json_object_to_json_string_ext(peer, JSON_C_TO_STRING_PRETTY)};
	if (ledger_txt)
		arts[n_arts++] = (struct run_artifact){(char *)"loss_ledger", ledger_txt};
	rec.n_artifacts = n_arts;

	if (!rec.passed) {
		verdict =
		    strprintf("no thresholds (ad-hoc bench): %" PRIu64 " of %" PRIu64 " datagrams received",
			      res->received, res->sent);
		rec.verdict = verdict;
	}
	if (txn_verb_open_history(cli, VERB_HISTORY_OPTIONAL, &h) != EXIT_OK || !h)
		return;
	r = runs_record(h, &rec, NULL);
	if (r < 0)
		log_warn_errno(r, "bench: cannot record the run in %s: %m", cli->db_path);
	else
		mirror_opportunistic(h, NULL); /* never fails the bench */
	history_close(h);
}

/* The run's loss ledger document (NULL when nothing was sent): the peer's
 * counters from serve's answers around the run. */
static int bench_ledger(const struct udpsend_params *p, const struct udpsend_result *res,
			struct ledger_watch *lw, struct json_object **ret)
{
	_cleanup_(netcounters_done) struct netcounters pb = {0}, pa = {0};
	_cleanup_ledger_ struct ledger *l = NULL;
	struct link_info li = {0};
	struct ledger_input in = {
	    .sent = res->sent,
	    .received = res->received,
	    .send_errors = res->send_errors,
	    .send_mbps = res->send_mbps,
	    .sender_cpu_percent = res->cpu_percent,
	    .message_size = p->message_size,
	    .send_buffer = p->send_buffer,
	    .recv_buffer = p->recv_buffer,
	    .recv_buffer_actual = res->recv_buffer_actual,
	    .send_buffer_setting = "bench --send-buffer",
	    .recv_buffer_setting = "bench --recv-buffer",
	};
	bool have = res->peer_before && res->peer_after &&
		    peerstate_netcounters(res->peer_before, res->peer_before_usec, &pb) >= 0 &&
		    peerstate_netcounters(res->peer_after, res->peer_after_usec, &pa) >= 0;
	int r;

	if (lw->ifname && link_get(lw->ifname, &li) >= 0)
		in.mtu = li.mtu;
	r = ledger_watch_after(lw, have ? &pb : NULL, have ? &pa : NULL);
	if (r >= 0)
		r = ledger_watch_compute(lw, &in, &l);
	if (r < 0)
		return r;
	*ret = l ? ledger_to_json(l) : NULL;
	return l && !*ret ? -ENOMEM : 0;
}

int verb_bench(struct cli *cli, int argc, char **argv)
{
	struct bench_args a = {
	    .p = {.duration_s = 10, .message_size = 8000, .streams = 1, .peer_state = true}};
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_free_ char *command = NULL, *ifname = NULL;
	_cleanup_cpuset_ struct cpuset cpus = CPUSET_INIT;
	struct udpsend_result res = {0};
	_cleanup_(ledger_watch_done) struct ledger_watch lw = {0};
	struct json_object *peer, *ledger = NULL;
	int64_t started_usec;
	int r;

	r = cli_parse(cli, cli->verb, argc, argv, parse_opt, &a, &args);
	if (r != 0) {
		cpuset_done(&a.cpus);
		return r < 0 ? EXIT_OK : r;
	}
	cpus = a.cpus;
	if (args[0]) {
		log_error("bench: unexpected argument '%s'", args[0]);
		return EXIT_USAGE;
	}
	if (!a.p.peer) {
		log_error("bench: --peer ADDR is required (the host running `cx5prof serve`)");
		return EXIT_USAGE;
	}
	if (!a.p.port)
		a.p.port = UDPB_DEFAULT_PORT;
	if (!a.cpus_given) {
		r = udpsend_local_cpus(a.p.peer, &cpus, &ifname);
		if (r < 0)
			log_info("bench: streams not pinned: no NIC-local CPU list for the route to %s (use "
				 "--cpus)",
				 a.p.peer);
	}
	a.p.cpus = &cpus;
	if (udpsend_command_line(&a.p, &command) < 0)
		return log_error("out of memory"), EXIT_ERROR;

	/* The loss ledger's idle window, then the run. */
	r = ledger_watch_start(&lw, a.p.peer, a.p.port, false, NULL, 0, NULL);
	if (r >= 0)
		r = ledger_watch_before(&lw, true);
	if (r < 0)
		return log_error("out of memory"), EXIT_ERROR;
	a.p.state_version = lw.state_version;
	started_usec = history_now_usec();
	r = udpsend_run(&a.p, &res);
	if (r < 0) {
		log_error("bench: %s", strna(res.error));
		udpsend_result_done(&res);
		return r == -EINVAL ? EXIT_USAGE : EXIT_ERROR;
	}
	for (char **n = res.notes; n && *n; n++)
		log_info("bench: %s", *n);
	peer = res.peer_before ? peerstate_to_json(res.peer_before, res.peer_after) : NULL;
	r = bench_ledger(&a.p, &res, &lw, &ledger);
	if (r < 0) {
		json_object_put(peer);
		udpsend_result_done(&res);
		return log_error("out of memory"), EXIT_ERROR;
	}
	print_result(&a.p, &res, peer, ledger, command);
	if (!a.no_record)
		record(cli, &a.p, &res, peer, ledger, command, ifname, started_usec);
	json_object_put(peer);
	json_object_put(ledger);
	udpsend_result_done(&res);
	r = out_finish();
	return r < 0 ? EXIT_ERROR : EXIT_OK;
}
