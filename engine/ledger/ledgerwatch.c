/* ledgerwatch.c: the ledger's snapshots around a run (see ledgerwatch.h).
 *
 * Owns: the sleep of the idle window and the STATE questions of the
 * ledger. Must never: ask the peer more than once per moment. */
#define _GNU_SOURCE
#include "ledgerwatch.h"

#include <time.h>

#include "bench/peerstate.h"
#include "bench/udpsend.h"
#include "peer/peerssh.h"

#define STATE_TIMEOUT_MS 2000

static int take_local(struct ledger_watch *w, enum ledger_moment m)
{
	int r;

	if (w->has_local[m])
		netcounters_done(&w->local[m]);
	r = netcounters_take(w->ifname, &w->local[m]);
	w->has_local[m] = r >= 0;
	return r;
}

static int set_remote_why(struct ledger_watch *w, const char *why)
{
	if (w->remote_why)
		return 0; /* the first reason is the one that matters */
	w->remote_why = strdup(why);
	return w->remote_why ? 0 : -ENOMEM;
}

/* The peer's counters from a STATE answer received at usec. */
static int remote_from_state(struct ledger_watch *w, enum ledger_moment m, const struct udpb_state *st,
			     uint64_t usec)
{
	int r;

	if (st->version < 2)
		return set_remote_why(w, "the peer's cx5prof serve is older: it does not send its counters");
	if (w->has_remote[m])
		netcounters_done(&w->remote[m]);
	r = peerstate_netcounters(st, usec, &w->remote[m]);
	w->has_remote[m] = r >= 0;
	return r == -ENOMEM ? r : 0;
}

/* Through ssh: the peer's `cx5prof counters`. */
static int ask_ssh(struct ledger_watch *w, enum ledger_moment m)
{
	_cleanup_free_ char *err = NULL, *why = NULL;
	int r;

	if (w->has_remote[m])
		netcounters_done(&w->remote[m]);
	r = peerssh_counters(w->ssh, w->peer, &w->remote[m], &err);
	w->has_remote[m] = r >= 0;
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		why = strprintf("%s", err ? err : strerror(-r));
		return why ? set_remote_why(w, why) : -ENOMEM;
	}
	return 0;
}

static int ask_remote(struct ledger_watch *w, enum ledger_moment m)
{
	_cleanup_free_ struct udpb_state *st = NULL;
	_cleanup_free_ char *err = NULL, *why = NULL;
	int r;

	if (w->remote_why)
		return 0; /* no serve, or an older one, or ssh failed: nothing to ask for */
	if (w->ssh)
		return ask_ssh(w, m);
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	r = udpsend_query_state(w->peer, w->serve_port, STATE_TIMEOUT_MS, st, &err);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		why = strprintf("no cx5prof serve answered on the peer: %s", err ? err : strerror(-r));
		return why ? set_remote_why(w, why) : -ENOMEM;
	}
	w->state_version = st->version;
	return remote_from_state(w, m, st, now_usec());
}

/* No serve gives counters: the peer tuned through ssh answers instead. */
static int switch_to_ssh(struct ledger_watch *w, const struct profile *ssh)
{
	free(w->remote_why);
	w->remote_why = NULL;
	w->ssh = ssh;
	free(w->remote_source);
	w->remote_source = strprintf("`cx5prof counters` through ssh %s", peerssh_target(ssh));
	return w->remote_source ? ask_remote(w, LEDGER_IDLE) : -ENOMEM;
}

int ledger_watch_start(struct ledger_watch *w, const char *peer, uint16_t serve_port, bool asked,
		       const struct udpb_state *state, uint64_t state_usec, const struct profile *ssh)
{
	int r;

	*w = (struct ledger_watch){.serve_port = serve_port ? serve_port : UDPB_DEFAULT_PORT};
	w->peer = strdup(peer);
	w->remote_source = strprintf("cx5prof serve on %s:%u", peer, w->serve_port);
	if (!w->peer || !w->remote_source)
		return -ENOMEM;
	if (udpsend_route_ifname(peer, &w->ifname) == -ENOMEM)
		return -ENOMEM;
	if (take_local(w, LEDGER_IDLE) == -ENOMEM)
		return -ENOMEM;
	if (state) {
		w->state_version = state->version;
		r = remote_from_state(w, LEDGER_IDLE, state, state_usec);
	} else if (asked)
		r = set_remote_why(w, "no cx5prof serve answered on the peer (the peer-serve check)");
	else
		r = ask_remote(w, LEDGER_IDLE);
	if (r >= 0 && ssh && !w->has_remote[LEDGER_IDLE])
		r = switch_to_ssh(w, ssh);
	return r;
}

static void sleep_until(uint64_t usec)
{
	for (uint64_t now = now_usec(); now < usec; now = now_usec()) {
		uint64_t d = usec - now;
		struct timespec ts = {.tv_sec = (time_t)(d / 1000000), .tv_nsec = (long)(d % 1000000) * 1000};

		nanosleep(&ts, NULL);
	}
}

int ledger_watch_before(struct ledger_watch *w, bool runner_asks)
{
	uint64_t start = w->has_local[LEDGER_IDLE] ? w->local[LEDGER_IDLE].taken_usec : now_usec();

	sleep_until(start + LEDGER_IDLE_USEC);
	if (take_local(w, LEDGER_BEFORE) == -ENOMEM)
		return -ENOMEM;
	return !runner_asks || w->ssh ? ask_remote(w, LEDGER_BEFORE) : 0;
}

int ledger_watch_after(struct ledger_watch *w, struct netcounters *peer_before,
		       struct netcounters *peer_after)
{
	if (take_local(w, LEDGER_AFTER) == -ENOMEM)
		return -ENOMEM;
	if (peer_before && peer_after) {
		for (enum ledger_moment m = LEDGER_BEFORE; m <= LEDGER_AFTER; m++)
			if (w->has_remote[m])
				netcounters_done(&w->remote[m]);
		w->remote[LEDGER_BEFORE] = *peer_before;
		w->remote[LEDGER_AFTER] = *peer_after;
		*peer_before = *peer_after = (struct netcounters){0};
		w->has_remote[LEDGER_BEFORE] = w->has_remote[LEDGER_AFTER] = true;
		free(w->remote_why);
		w->remote_why = NULL;
		return 0;
	}
	if (!w->has_remote[LEDGER_BEFORE])
		return set_remote_why(w, "the runner brought no peer counters");
	return ask_remote(w, LEDGER_AFTER);
}

static void sides(const struct ledger_watch *w, struct ledger_input *in)
{
	bool local = w->has_local[LEDGER_BEFORE] && w->has_local[LEDGER_AFTER];
	bool remote = w->has_remote[LEDGER_BEFORE] && w->has_remote[LEDGER_AFTER];

	in->side[LEDGER_SENDER] = (struct ledger_side){
	    .idle = local && w->has_local[LEDGER_IDLE] ? &w->local[LEDGER_IDLE] : NULL,
	    .before = local ? &w->local[LEDGER_BEFORE] : NULL,
	    .after = local ? &w->local[LEDGER_AFTER] : NULL,
	    .source = "this host",
	    .why_unknown = "this host's counters could not be read",
	};
	in->side[LEDGER_RECEIVER] = (struct ledger_side){
	    .idle = remote && w->has_remote[LEDGER_IDLE] ? &w->remote[LEDGER_IDLE] : NULL,
	    .before = remote ? &w->remote[LEDGER_BEFORE] : NULL,
	    .after = remote ? &w->remote[LEDGER_AFTER] : NULL,
	    .source = w->remote_source,
	    .why_unknown = w->remote_why ? w->remote_why : "the peer's counters were not read",
	};
}

int ledger_watch_compute(const struct ledger_watch *w, struct ledger_input *in, struct ledger **ret)
{
	*ret = NULL;
	if (in->sent == 0)
		return 0;
	sides(w, in);
	return ledger_compute(in, ret);
}

struct ledger_input ledger_input_of_run(const struct runner_params *p, const struct runner_result *res,
					uint32_t mtu)
{
	return (struct ledger_input){
	    .sent = res->sent,
	    .received = res->received,
	    .send_errors = res->send_errors,
	    .send_mbps = res->send_mbps,
	    .sender_cpu_percent = res->sender_cpu_percent,
	    .message_size = p->message_size,
	    .mtu = mtu,
	    .send_buffer = p->send_buffer,
	    .recv_buffer = p->recv_buffer,
	    .recv_buffer_actual = res->recv_buffer_actual,
	};
}

void ledger_watch_done(struct ledger_watch *w)
{
	for (int m = 0; m < _LEDGER_MOMENT_MAX; m++) {
		if (w->has_local[m])
			netcounters_done(&w->local[m]);
		if (w->has_remote[m])
			netcounters_done(&w->remote[m]);
	}
	free(w->peer);
	free(w->ifname);
	free(w->remote_source);
	free(w->remote_why);
	*w = (struct ledger_watch){0};
}
