/* peercheck.c: the path and peer checks before a benchmark (see
 * peercheck.h).
 *
 * Owns: turning probe answers into findings with the numbers that name
 * the culprit ("MTU 1500 on the peer, 9000 here"). Must never: write
 * anything, or call a fact it could not read a mismatch. */
#define _GNU_SOURCE
#include "peercheck.h"

#include <inttypes.h>
#include <stdarg.h>

#include "base/output.h"
#include "base/version.h"
#include "bench/udpsend.h"
#include "os/netprobe.h"
#include "os/nicfacts.h"
#include "profile.h"

#define IPV4_UDP_OVERHEAD 28
#define ETH_MTU		  1500

static const char *const status_names[_PEERCHECK_MAX] = {[PEERCHECK_PASS] = "pass",
							 [PEERCHECK_WARN] = "warn",
							 [PEERCHECK_FAIL] = "fail",
							 [PEERCHECK_SKIP] = "skip"};

const char *peercheck_status_to_string(enum peercheck_status s)
{
	return (unsigned)s < _PEERCHECK_MAX ? status_names[s] : NULL;
}

static int add(struct peercheck *pc, const char *name, enum peercheck_status st, bool mtu, const char *fix,
	       const char *fmt, ...) _printf_(6, 7);
static int add(struct peercheck *pc, const char *name, enum peercheck_status st, bool mtu, const char *fix,
	       const char *fmt, ...)
{
	struct peercheck_finding *n = realloc(pc->f, (pc->n + 1) * sizeof(*n));
	va_list ap;

	if (!n)
		return -ENOMEM;
	pc->f = n;
	n = &pc->f[pc->n];
	*n = (struct peercheck_finding){.name = name, .status = st, .mtu = mtu};
	va_start(ap, fmt);
	n->detail = vstrprintf(fmt, ap);
	va_end(ap);
	n->fix = fix ? strdup(fix) : NULL;
	pc->n++;
	return n->detail && (!fix || n->fix) ? 0 : -ENOMEM;
}

static uint32_t local_mtu(const struct peercheck_input *in)
{
	return in->local && in->local->present ? in->local->link.mtu : 0;
}

/* Do datagrams of the run fit a frame of mtu bytes? */
static bool fits(const struct peercheck_input *in, uint32_t mtu)
{
	return in->message_size > 0 && in->message_size + IPV4_UDP_OVERHEAD <= mtu;
}

static int check_path(const struct peercheck_input *in, struct peercheck *pc)
{
	uint32_t mtu = local_mtu(in), route = 0;
	enum df_result res, small;
	enum peercheck_status st;
	int r;

	if (mtu <= ETH_MTU)
		return add(pc, "path-mtu", PEERCHECK_SKIP, false, NULL,
			   "MTU %u here: no jumbo frames to test", mtu);
	r = netprobe_df(in->peer, mtu, in->timeout_ms, &res, &route);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return add(pc, "path-mtu", PEERCHECK_SKIP, false, NULL, "cannot probe the path to %s (%s)",
			   in->peer, strerror(-r));
	switch (res) {
	case DF_PASSED:
		return add(pc, "path-mtu", PEERCHECK_PASS, false, NULL, "%u-byte frames with DF set reach %s",
			   mtu, in->peer);
	case DF_LOCAL_TOO_SMALL:
		st = fits(in, route) ? PEERCHECK_WARN : PEERCHECK_FAIL;
		return add(pc, "path-mtu", st, st == PEERCHECK_FAIL,
			   "set the MTU of the route to the peer (the port and any route mtu) to the port's",
			   "the route to %s has MTU %u, the port %s %u (%u vs %u)", in->peer, route,
			   in->local->name, mtu, route, mtu);
	case DF_DROPPED:
		if (netprobe_df(in->peer, ETH_MTU, in->timeout_ms, &small, &route) < 0 || small != DF_PASSED)
			small = DF_NO_ECHO;
		st = small == DF_PASSED && fits(in, ETH_MTU) ? PEERCHECK_WARN : PEERCHECK_FAIL;
		if (small == DF_PASSED)
			return add(
			    pc, "path-mtu", st, st == PEERCHECK_FAIL,
			    "raise the MTU on the peer's NIC and on every switch port in between",
			    "%u-byte frames with DF set do not reach %s, %u-byte ones do: the peer or a "
			    "switch has a smaller MTU (%u vs %u)",
			    mtu, in->peer, ETH_MTU, ETH_MTU, mtu);
		return add(
		    pc, "path-mtu", st, true,
		    "raise the MTU on the peer's NIC and on every switch port in between",
		    "%u-byte frames with DF set do not reach %s, small ones do: the peer or a switch has "
		    "a smaller MTU than %u",
		    mtu, in->peer, mtu);
	default:
		return add(pc, "path-mtu", PEERCHECK_SKIP, false, NULL,
			   "%s answers no ICMP echo: the path MTU is not tested", in->peer);
	}
}

static int check_peer_mtu(const struct peercheck_input *in, const struct udpb_state *st, struct peercheck *pc)
{
	uint32_t mine = local_mtu(in);
	enum peercheck_status s;

	if (!(st->present & UDPB_STATE_MTU) || mine == 0)
		return add(pc, "peer-mtu", PEERCHECK_SKIP, false, NULL, "MTU unknown on %s",
			   mine ? "the peer" : "this host");
	if (st->mtu >= mine)
		return add(pc, "peer-mtu", PEERCHECK_PASS, false, NULL, "MTU %u on the peer's %s, %u here",
			   st->mtu, st->ifname, mine);
	s = fits(in, st->mtu) ? PEERCHECK_WARN : PEERCHECK_FAIL;
	if (in->message_size > 0)
		return add(
		    pc, "peer-mtu", s, s == PEERCHECK_FAIL,
		    "set the peer's MTU to this host's (apply the same profile there) or lower it here",
		    "MTU %u on the peer's %s, %u on %s (%u vs %u): %" PRIu64 "-byte datagrams %s", st->mtu,
		    st->ifname, mine, in->local->name, st->mtu, mine, in->message_size + IPV4_UDP_OVERHEAD,
		    s == PEERCHECK_FAIL ? "cannot arrive" : "still fit");
	return add(pc, "peer-mtu", PEERCHECK_FAIL, true,
		   "set the peer's MTU to this host's (apply the same profile there) or lower it here",
		   "MTU %u on the peer's %s, %u on %s (%u vs %u)", st->mtu, st->ifname, mine, in->local->name,
		   st->mtu, mine);
}

static int check_peer_rmem(const struct peercheck_input *in, const struct udpb_state *st,
			   struct peercheck *pc)
{
	if (!(st->present & UDPB_STATE_RMEM_MAX))
		return add(pc, "peer-rmem", PEERCHECK_SKIP, false, NULL,
			   "net.core.rmem_max unknown on the peer");
	if (in->recv_buffer > st->rmem_max)
		return add(pc, "peer-rmem", PEERCHECK_WARN, false,
			   "raise net.core.rmem_max on the peer (apply the same profile there)",
			   "the receive buffer asked, %" PRIu64
			   ", exceeds the peer's net.core.rmem_max %" PRIu64 ": the peer's kernel clamps it",
			   in->recv_buffer, st->rmem_max);
	return add(pc, "peer-rmem", PEERCHECK_PASS, false, NULL, "net.core.rmem_max %" PRIu64 " on the peer",
		   st->rmem_max);
}

/* Append "what: a here, b on the peer" to *diff or "what a" to *same. */
static int compare_fact(const char *what, const char *a, const char *b, bool version, char **diff,
			char **same)
{
	char **into = NULL, *n;

	if (!a || !*a || !*b)
		return 0; /* unknown on one side: nothing to compare */
	if (version ? version_same(a, b) : streq(a, b)) {
		into = same;
		n = strprintf("%s%s%s %s", *same ? *same : "", *same ? ", " : "", what, a);
	} else {
		into = diff;
		n = strprintf("%s%s%s %s here, %s on the peer", *diff ? *diff : "", *diff ? "; " : "", what,
			      a, b);
	}
	if (!n)
		return -ENOMEM;
	free(*into);
	*into = n;
	return 0;
}

static int check_peer_match(const struct peercheck_input *in, const struct udpb_state *st,
			    struct peercheck *pc)
{
	const struct iface_state *s = in->local;
	_cleanup_free_ char *version = NULL, *diff = NULL, *same = NULL, *pci = NULL;
	int r;

	if (!s)
		return add(pc, "peer-match", PEERCHECK_SKIP, false, NULL, "no local port to compare");
	if (nicfacts_driver_version(s, &version) == -ENOMEM)
		return -ENOMEM;
	if (s->has_nic && s->nic.has_pci_id && !(pci = strprintf("%04x:%04x", s->nic.vendor, s->nic.device)))
		return -ENOMEM;
	r = compare_fact("NIC", pci, st->pci_id, false, &diff, &same);
	if (r >= 0)
		r = compare_fact("driver", nicfacts_driver(s), st->driver, false, &diff, &same);
	if (r >= 0)
		r = compare_fact("driver version", version, st->driver_version, true, &diff, &same);
	if (r >= 0)
		r = compare_fact("firmware", nicfacts_firmware(s), st->firmware, true, &diff, &same);
	if (r < 0)
		return r;
	if (diff)
		return add(pc, "peer-match", in->must_match ? PEERCHECK_FAIL : PEERCHECK_WARN, false,
			   "run both ends with the same NIC, driver and firmware, or compare results only "
			   "between like hosts",
			   "results are not comparable: %s", diff);
	if (!same)
		return add(pc, "peer-match", PEERCHECK_SKIP, false, NULL,
			   "driver and firmware unknown on one side: not compared");
	return add(pc, "peer-match", PEERCHECK_PASS, false, NULL, "same as the peer: %s", same);
}

uint16_t peercheck_serve_port(const struct profile *p)
{
	bool builtin_first = p && p->verify.runners.set && streq(p->verify.runners.value[0], "builtin");

	return builtin_first && p->verify.port.set ? (uint16_t)p->verify.port.value : 0;
}

int peercheck_run(const struct peercheck_input *in, struct peercheck *ret)
{
	struct peercheck pc = {0};
	_cleanup_free_ char *err = NULL;
	uint16_t port = in->serve_port ? in->serve_port : UDPB_DEFAULT_PORT;
	int r = 0;

	if (in->df_probe)
		r = check_path(in, &pc);
	if (r >= 0) {
		pc.state = calloc(1, sizeof(*pc.state));
		r = pc.state ? 0 : -ENOMEM;
	}
	if (r >= 0 && udpsend_query_state(in->peer, port, in->timeout_ms, pc.state, &err) < 0) {
		free(pc.state);
		pc.state = NULL;
		r = add(&pc, "peer-serve", PEERCHECK_SKIP, false, NULL,
			"%s: the peer's MTU, rmem_max, driver and firmware not checked",
			err ? err : "no answer");
	} else if (r >= 0) {
		pc.state_usec = now_usec();
		r = add(&pc, "peer-serve", PEERCHECK_PASS, false, NULL,
			"cx5prof serve on %s:%u answers for %s", in->peer, port,
			*pc.state->ifname ? pc.state->ifname : "an address no interface owns");
		if (r >= 0)
			r = check_peer_mtu(in, pc.state, &pc);
		if (r >= 0)
			r = check_peer_rmem(in, pc.state, &pc);
		if (r >= 0)
			r = check_peer_match(in, pc.state, &pc);
	}
	if (r < 0) {
		peercheck_done(&pc);
		return r;
	}
	*ret = pc;
	return 0;
}

void peercheck_done(struct peercheck *pc)
{
	for (size_t i = 0; i < pc->n; i++) {
		free(pc->f[i].detail);
		free(pc->f[i].fix);
	}
	free(pc->f);
	free(pc->state);
	*pc = (struct peercheck){0};
}

const struct peercheck_finding *peercheck_mtu_failure(const struct peercheck *pc)
{
	for (size_t i = 0; i < pc->n; i++)
		if (pc->f[i].status == PEERCHECK_FAIL && pc->f[i].mtu)
			return &pc->f[i];
	return NULL;
}

const struct peercheck_finding *peercheck_match(const struct peercheck *pc)
{
	for (size_t i = 0; i < pc->n; i++)
		if (streq(pc->f[i].name, "peer-match") && pc->f[i].status != PEERCHECK_SKIP)
			return &pc->f[i];
	return NULL;
}

void peercheck_render(const struct peercheck *pc)
{
	out_open_array("peer_checks");
	for (size_t i = 0; i < pc->n; i++) {
		const struct peercheck_finding *f = &pc->f[i];

		out_open_object(NULL);
		out_string(OUT_JSON, "check", NULL, f->name);
		out_string(OUT_JSON, "status", NULL, peercheck_status_to_string(f->status));
		out_string(OUT_JSON, "detail", NULL, f->detail);
		out_string(OUT_JSON, "fix", NULL, f->fix);
		out_close_object();
		out_text("check       %s %s: %s\n", f->name, peercheck_status_to_string(f->status),
			 f->detail);
		if (f->fix)
			out_text("  fix: %s\n", f->fix);
	}
	out_close_array();
}
