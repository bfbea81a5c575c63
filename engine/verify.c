/* verify.c: state drift, benchmark, thresholds, evidence (see verify.h).
 *
 * Owns: the order of a verification (probe and diff; counters and
 * interrupt snapshots; the run; snapshots again; thresholds; the record),
 * the threshold table, and the progress line. The diff is plan_build()'s
 * (never re-implemented here); /proc/interrupts parsing is interrupts.c's;
 * the runners are runner.c's table. Must never: change the host. */
#define _GNU_SOURCE
#include "verify.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <time.h>

#include "base/exitcode.h"
#include "base/output.h"
#include "bench/peerstate.h"
#include "ledger/ledgerwatch.h"
#include "peer/peerssh.h"
#include "os/ethtool.h"
#include "os/irqaffinity.h"
#include "os/nicfacts.h"
#include "kinds/irqbalance.h"
#include "kinds/kinds.h"
#include "kinds/sysctl.h"
#include "os/probe.h"
#include "os/sysroot.h"
#include "plan.h"
#include "profile.h"
#include "store/history.h"
#include "store/runs.h"

#define PEER_PROBE_TIMEOUT_MS 1000
#define DEFAULT_MESSAGE_SIZE  1400 /* fits a 1500-byte MTU */

#define PEER_MUST_MATCH	      "peer_must_match"
#define PEER_MUST_MATCH_LABEL "peer NIC, driver and firmware"
#define PEER_MUST_MATCH_UNIT  "(same)"

static char *const default_runners[] = {(char *)"netperf", (char *)"iperf3", (char *)"builtin", NULL};

const char *verify_status_to_string(enum verify_status s)
{
	static const char *const names[] = {
	    [VERIFY_PASS] = "pass", [VERIFY_FAIL] = "fail", [VERIFY_NA] = "n/a"};
	return (unsigned)s < ARRAY_SIZE(names) ? names[s] : NULL;
}

/* ---- thresholds: one row per profile key ---- */

static double value_recv_mbps(const struct verify_report *r)
{
	return r->result.recv_mbps;
}
static double value_loss(const struct verify_report *r)
{
	return r->result.loss_percent;
}
static double value_planned(const struct verify_report *r)
{
	return r->has_spread ? r->spread.planned_percent : -1;
}
static double value_max_cpu(const struct verify_report *r)
{
	return r->has_spread ? r->spread.max_cpu_percent : -1;
}
static double value_softirq(const struct verify_report *r)
{
	return r->has_spread ? r->spread.softirq_max_percent : -1;
}

static const char *na_irq(const struct verify_report *r)
{
	(void)r;
	return "no interrupts of the ports' completion IRQs during the run (a virtual device, or a static "
	       "sysroot)";
}
static const char *na_planned(const struct verify_report *r)
{
	if (r->has_spread && r->spread.interrupts > 0)
		return "no planned CPUs are known for the ports' IRQs";
	return na_irq(r);
}
static const char *na_softirq(const struct verify_report *r)
{
	(void)r;
	return "no CPU time passed in /proc/stat during the run (a static sysroot?)";
}

static const struct threshold_def {
	const char *name;
	const char *label;
	bool floor; /* value >= limit passes; else value <= limit passes */
	/* A figure of the run itself: a run that produced no data fails it
	 * (no datagram is no throughput), where other figures are n/a. */
	bool from_run;
	const char *unit;
	size_t offset; /* of the struct profile_double in struct profile */
	double (*value)(const struct verify_report *r);
	const char *(*why_na)(const struct verify_report *r);
} thresholds[] = {
    {"throughput_mbps", "receive throughput", true, true, "Mbps",
     offsetof(struct profile, verify.throughput_mbps), value_recv_mbps, NULL},
    {"loss_percent", "loss", false, true, "%", offsetof(struct profile, verify.loss_percent), value_loss,
     NULL},
    {"irq_planned_percent", "interrupts on planned CPUs", true, false, "%",
     offsetof(struct profile, verify.irq_planned_percent), value_planned, na_planned},
    {"irq_max_cpu_percent", "interrupts on the busiest CPU", false, false, "%",
     offsetof(struct profile, verify.irq_max_cpu_percent), value_max_cpu, na_irq},
    {"softirq_max_percent", "softirq time on the busiest CPU", false, false, "%",
     offsetof(struct profile, verify.softirq_max_percent), value_softirq, na_softirq},
};

bool verify_threshold_describe(const char *name, const char **ret_label, const char **ret_unit)
{
	for (size_t i = 0; i < ARRAY_SIZE(thresholds); i++)
		if (streq(name, thresholds[i].name)) {
			*ret_label = thresholds[i].label;
			*ret_unit = thresholds[i].unit;
			return true;
		}
	if (!streq(name, PEER_MUST_MATCH))
		return false;
	*ret_label = PEER_MUST_MATCH_LABEL;
	*ret_unit = PEER_MUST_MATCH_UNIT;
	return true;
}

/* verify.peer_must_match: the peer's NIC, driver and firmware are the
 * local port's (peercheck.h compared them). */
static int evaluate_peer_match(const struct profile *p, struct verify_report *r)
{
	const struct peercheck_finding *f = peercheck_match(&r->peer_checks);
	struct verify_threshold *t;

	if (!p->verify.peer_must_match.set || !p->verify.peer_must_match.value)
		return 0;
	t = &r->thresholds[r->n_thresholds++];
	*t = (struct verify_threshold){
	    .name = PEER_MUST_MATCH,
	    .label = PEER_MUST_MATCH_LABEL,
	    .op = "==",
	    .unit = PEER_MUST_MATCH_UNIT,
	    .limit = 1,
	    .value = -1,
	    .status = !f			    ? VERIFY_NA
		      : f->status == PEERCHECK_PASS ? VERIFY_PASS
						    : VERIFY_FAIL,
	};
	t->note = strdup(f ? f->detail : "not compared: no cx5prof serve answered on the peer");
	return t->note ? 0 : -ENOMEM;
}

static int evaluate_thresholds(const struct profile *p, struct verify_report *r)
{
	r->thresholds = calloc(ARRAY_SIZE(thresholds) + 1, sizeof(*r->thresholds));
	if (!r->thresholds)
		return -ENOMEM;
	for (size_t i = 0; i < ARRAY_SIZE(thresholds); i++) {
		const struct threshold_def *d = &thresholds[i];
		const struct profile_double *lim =
		    (const struct profile_double *)((const char *)p + d->offset);
		struct verify_threshold *t;
		const char *why = NULL;

		if (!lim->set)
			continue;
		t = &r->thresholds[r->n_thresholds++];
		*t = (struct verify_threshold){
		    .name = d->name,
		    .label = d->label,
		    .op = d->floor ? ">=" : "<=",
		    .unit = d->unit,
		    .limit = lim->value,
		    .value = -1,
		    .status = VERIFY_NA,
		};
		if (r->bench_r < 0 || !r->bench_ran) {
			why = r->bench_skipped ? "the benchmark did not run" : "the benchmark failed";
		} else {
			t->value = d->value(r);
			if (d->from_run && (r->result.sent == 0 || t->value < 0 || !isfinite(t->value))) {
				/* Runners refuse such a run (runner_check_sent);
				 * should one slip through, it must not pass. */
				t->value = -1;
				t->status = VERIFY_FAIL;
				t->note = strdup("the run produced no data (no datagram sent)");
				if (!t->note)
					return -ENOMEM;
				continue;
			}
			if (t->value < 0 || !isfinite(t->value))
				why = d->why_na ? d->why_na(r) : "not measured";
		}
		if (why) {
			t->value = -1;
			t->note = strdup(why);
			if (!t->note)
				return -ENOMEM;
			continue;
		}
		t->status =
		    (d->floor ? t->value >= t->limit : t->value <= t->limit) ? VERIFY_PASS : VERIFY_FAIL;
	}
	return evaluate_peer_match(p, r);
}

/* ---- state ---- */

static int copy_state(struct verify_report *r, const struct plan *pl)
{
	r->drifts = calloc(pl->n_changes ? pl->n_changes : 1, sizeof(*r->drifts));
	r->problems = calloc(pl->n_problems ? pl->n_problems : 1, sizeof(*r->problems));
	if (!r->drifts || !r->problems)
		return -ENOMEM;
	for (size_t i = 0; i < pl->n_changes; i++) {
		const struct plan_change *c = &pl->changes[i];
		struct verify_drift *d = &r->drifts[r->n_drifts++];

		d->object = strdup(c->object);
		d->key = strdup(c->key);
		d->current = change_value_human(c->kind->name, c->old_value, c->new_value);
		d->expected = change_value_human(c->kind->name, c->new_value, c->old_value);
		if (!d->object || !d->key || !d->current || !d->expected)
			return -ENOMEM;
	}
	for (size_t i = 0; i < pl->n_problems; i++) {
		const struct plan_problem *c = &pl->problems[i];
		struct verify_problem *d = &r->problems[r->n_problems++];

		d->object = strdup(strna(c->object));
		d->message = strdup(strna(c->message));
		d->remedy = strdup(strna(c->remedy));
		if (!d->object || !d->message || !d->remedy)
			return -ENOMEM;
	}
	for (char **w = pl->warnings; w && *w; w++)
		if (strv_extend(&r->warnings, *w) < 0)
			return -ENOMEM;
	for (char **n = pl->interfaces; n && *n; n++)
		if (strv_extend(&r->interfaces, *n) < 0)
			return -ENOMEM;
	return 0;
}

/* The expected CPUs of IRQ `irq` when the plan wants to move it. */
static const struct verify_drift *irq_drift(const struct verify_report *r, unsigned irq)
{
	char key[64];

	snprintf(key, sizeof(key), "smp_affinity_list %u", irq);
	for (size_t i = 0; i < r->n_drifts; i++)
		if (streq(r->drifts[i].key, key))
			return &r->drifts[i];
	return NULL;
}

/* ---- progress on a TTY ---- */

struct progress {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	uint64_t t0;
	unsigned total;
	const char *runner;
};

static void *progress_main(void *arg)
{
	struct progress *p = arg;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		struct timespec ts;
		unsigned elapsed = (unsigned)((now_usec() - p->t0) / 1000000);

		fprintf(stderr, "\rcx5prof: %s running: %u/%u s ", p->runner,
			elapsed < p->total ? elapsed : p->total, p->total);
		fflush(stderr);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 250 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&p->cond, &p->lock, &ts);
	}
	pthread_mutex_unlock(&p->lock);
	fprintf(stderr, "\r\033[K");
	fflush(stderr);
	return NULL;
}

static bool progress_start(struct progress *p, const char *runner, unsigned total)
{
	*p = (struct progress){.t0 = now_usec(), .total = total, .runner = runner};
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	return pthread_create(&p->thread, NULL, progress_main, p) == 0;
}

static void progress_stop(struct progress *p)
{
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
}

/* ---- benchmark ---- */

/* The CPUs to pin streams to: the first port's NUMA-local CPUs that this
 * process may run on (a sysroot describes another machine's CPUs). */
static int pin_cpus(const struct host_state *host, const struct verify_report *r, struct cpuset *ret)
{
	const struct iface_state *s = r->interfaces ? host_state_iface(host, r->interfaces[0]) : NULL;
	_cleanup_cpuset_ struct cpuset local = CPUSET_INIT;

	/* no pins (not an error) when the facts are missing or unreadable */
	if (!s || !s->has_nic || !s->nic.local_cpulist ||
	    cpuset_parse_list(s->nic.local_cpulist, &local) < 0 || cpuset_keep_runnable(&local) < 0)
		return 0;
	return cpuset_or(ret, &local);
}

struct watched {
	struct irqspread_irq *irqs;
	size_t n;
};

static void watched_done(struct watched *w)
{
	for (size_t i = 0; i < w->n; i++)
		cpuset_done(&w->irqs[i].planned);
	free(w->irqs);
	*w = (struct watched){0};
}

/* The completion IRQs of the ports, each with the CPUs it should run on:
 * the plan's target when the plan would move it, else where it is pinned. */
static int watch_irqs(const struct verify_report *r, struct watched *w)
{
	for (char **n = r->interfaces; n && *n; n++) {
		_cleanup_irq_list_ struct irq_list *l = NULL;

		if (irq_discover(*n, r->intr_before.intr, IRQ_DISCOVER_AFFINITY, &l) < 0)
			continue; /* a port without IRQs (veth): nothing to watch */
		for (size_t i = 0; i < l->n; i++) {
			const struct irq_vector *v = &l->v[i];
			const struct verify_drift *d;
			struct irqspread_irq *ni;
			int rr = 0;

			if (v->kind != IRQ_KIND_COMPLETION)
				continue;
			ni = realloc(w->irqs, (w->n + 1) * sizeof(*ni));
			if (!ni)
				return -ENOMEM;
			w->irqs = ni;
			ni = &w->irqs[w->n++];
			*ni = (struct irqspread_irq){.irq = v->irq, .planned = CPUSET_INIT};
			d = irq_drift(r, v->irq);
			if (d)
				rr = cpuset_parse_list(d->expected, &ni->planned);
			else if (v->has_affinity)
				rr = cpuset_copy(&v->affinity, &ni->planned);
			if (rr == -ENOMEM)
				return rr;
		}
	}
	return 0;
}

static int snapshot_counters(struct verify_report *r, const struct host_state *host, bool after)
{
	if (!after) {
		r->counters = calloc(strv_length(r->interfaces) + 1, sizeof(*r->counters));
		if (!r->counters)
			return -ENOMEM;
	}
	for (size_t i = 0; r->interfaces && r->interfaces[i]; i++) {
		const struct iface_state *s = host_state_iface(host, r->interfaces[i]);
		struct verify_port_counters *c = &r->counters[i];

		if (!after) {
			c->ifname = strdup(r->interfaces[i]);
			if (!c->ifname)
				return -ENOMEM;
			r->n_counters = i + 1;
		}
		if (!s || !s->present) {
			(after ? &c->after : &c->before)->r = -ENODEV;
			continue;
		}
		if (counters_snapshot(r->interfaces[i], after ? &c->after : &c->before) == -ENOMEM)
			return -ENOMEM;
		if (after && counters_diff(&c->before, &c->after, &c->d, &c->n) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int skipped_append(struct verify_report *r, const char *lines)
{
	char *n;

	if (!lines || !*lines)
		return 0;
	n = strprintf("%s%s%s", r->runners_skipped ? r->runners_skipped : "", r->runners_skipped ? "\n" : "",
		      lines);
	if (!n)
		return -ENOMEM;
	free(r->runners_skipped);
	r->runners_skipped = n;
	return 0;
}

/* *rn ran and no server answered: the next runner of the list that can
 * run, the failure noted as why *rn was not used. 1 with *rn replaced and
 * r->result reset; 0 when no runner is left (the failure stands). */
static int fall_through(char *const *names, const struct runner **rn, struct verify_report *r)
{
	_cleanup_free_ char *why = NULL, *line = NULL;
	const struct runner *next = NULL;
	int k = runner_select_after(names, *rn, &r->params, &next, &why);

	if (k == -ENOMEM)
		return k;
	if (k < 0)
		return skipped_append(r, why);
	line = strprintf("%s: %s", (*rn)->name, strna(r->result.error));
	if (!line || skipped_append(r, line) < 0 || skipped_append(r, why) < 0)
		return -ENOMEM;
	runner_result_done(&r->result);
	runner_result_init(&r->result, "");
	*rn = next;
	return 1;
}

static int check_peer(const struct profile *p, const struct host_state *host, struct verify_report *r)
{
	struct peercheck_input in = {
	    .peer = r->peer,
	    .serve_port = peercheck_serve_port(p),
	    .timeout_ms = PEER_PROBE_TIMEOUT_MS,
	    .local = r->interfaces ? host_state_iface(host, r->interfaces[0]) : NULL,
	    .message_size = r->params.message_size,
	    .recv_buffer = r->params.recv_buffer,
	    .must_match = p->verify.peer_must_match.set && p->verify.peer_must_match.value,
	    .df_probe = true,
	};

	return peercheck_run(&in, &r->peer_checks);
}

void verify_bench_params(const struct profile *p, struct runner_params *ret, char *const **ret_runners)
{
	*ret = (struct runner_params){
	    .peer = p->verify.peer.set ? p->verify.peer.value : NULL,
	    .port = p->verify.port.set ? (uint16_t)p->verify.port.value : 0,
	    .duration_sec =
		p->verify.duration.set ? (uint32_t)p->verify.duration.value : VERIFY_DEFAULT_DURATION_S,
	    .message_size = p->verify.message_size.set ? p->verify.message_size.value : DEFAULT_MESSAGE_SIZE,
	    .send_buffer = p->verify.socket_send.set ? p->verify.socket_send.value : 0,
	    .recv_buffer = p->verify.socket_receive.set ? p->verify.socket_receive.value : 0,
	    .streams = p->verify.streams.set ? (uint32_t)p->verify.streams.value : 1,
	    .gso = p->verify.gso.set && p->verify.gso.value,
	};
	*ret_runners = p->verify.runners.set ? p->verify.runners.value : default_runners;
}

/* A run cut by a signal (the runner's children get it too when it went to
 * the process group) or one that ran materially shorter than asked
 * measured something else than the profile's benchmark. */
static int classify_interrupted(const struct verify_options *o, struct verify_report *r)
{
	int sig = o->interrupted ? o->interrupted() : 0;
	double elapsed = r->bench_r >= 0 ? r->result.elapsed_sec : 0;
	_cleanup_free_ char *ran =
	    elapsed > 0 ? strprintf(" (ran %.1f s of %u s)", elapsed, r->params.duration_sec) : strdup("");

	if (!ran)
		return -ENOMEM;
	if (sig)
		r->interrupted = strprintf("SIG%s during the run%s", strna(sigabbrev_np(sig)), ran);
	else if (elapsed > 0 && elapsed < VERIFY_SHORT_RUN * r->params.duration_sec)
		r->interrupted = strprintf("the run was cut short: it ran %.1f s of %u s", elapsed,
					   r->params.duration_sec);
	else
		return 0;
	return r->interrupted ? 0 : -ENOMEM;
}

static int run_bench(const struct verify_options *o, const struct host_state *host, struct verify_report *r)
{
	const struct profile *p = o->profile;
	char *const *names;
	const struct runner *rn = NULL;
	const struct peercheck_finding *mtu;
	_cleanup_(watched_done) struct watched w = {0};
	_cleanup_(ledger_watch_done) struct ledger_watch lw = {0};
	const struct iface_state *port;
	struct progress prog;
	bool progressing = false;
	int rr;

	if (!o->bench)
		return (r->bench_skipped = strdup("--no-bench")) ? 0 : -ENOMEM;
	if (!p->verify.peer.set)
		return (r->bench_skipped = strdup("the profile has no verify.peer")) ? 0 : -ENOMEM;
	/* A host that differs from its profile measures something else: its
	 * figures would be recorded against the profile. */
	if ((r->n_drifts > 0 || r->n_problems > 0) && !o->bench_anyway)
		return (r->bench_skipped = strdup("the host differs from the profile: apply it first, or "
						  "pass --bench-anyway to measure it as it is"))
			   ? 0
			   : -ENOMEM;

	r->peer = strdup(p->verify.peer.value);
	if (!r->peer)
		return -ENOMEM;
	verify_bench_params(p, &r->params, &names);
	r->params.peer = r->peer;
	r->params.cpus = &r->pin_cpus;
	r->params.stop = o->interrupted;
	rr = pin_cpus(host, r, &r->pin_cpus);
	if (rr < 0)
		return rr;
	rr = check_peer(p, host, r);
	if (rr < 0)
		return rr;
	if ((mtu = peercheck_mtu_failure(&r->peer_checks))) {
		/* Nothing this size can arrive: say so instead of measuring a
		 * 100% loss or a send failure that points elsewhere. */
		runner_result_init(&r->result, "");
		r->bench_r = runner_fail(&r->result, -EMSGSIZE, "not run: %s; %s", mtu->detail, mtu->fix);
		return 0;
	}

	rr = runner_select(names, &r->params, &rn, &r->runners_skipped);
	if (rr == -ENOMEM)
		return rr;
	if (rr < 0) {
		_cleanup_free_ char *avail = NULL, *list = NULL;

		runner_result_init(&r->result, "");
		if (runner_available_names(&r->params, &avail) < 0)
			return -ENOMEM;
		for (char *const *n = names; *n; n++) {
			char *l = strprintf("%s%s%s", list ? list : "", list ? ", " : "", *n);
			if (!l)
				return -ENOMEM;
			free(list);
			list = l;
		}
		r->bench_r =
		    runner_fail(&r->result, rr, "no runner of [%s] can run: %s; available runners: %s", list,
				r->runners_skipped ? r->runners_skipped : "unknown", *avail ? avail : "none");
		/* One line per skipped runner in the message: join them. */
		for (char *c = r->result.error; c && *c; c++)
			if (*c == '\n')
				*c = ';';
		return 0;
	}

	rr = ledger_watch_start(&lw, r->peer, peercheck_serve_port(p), true, r->peer_checks.state,
				r->peer_checks.state_usec, peerssh_wanted(p) ? p : NULL);
	if (rr >= 0)
		rr = ledger_watch_before(&lw, streq(rn->name, "builtin"));
	if (rr < 0)
		return rr;
	r->params.state_version = lw.state_version;
	rr = irqspread_snapshot_take(&r->intr_before);
	if (rr >= 0)
		rr = watch_irqs(r, &w);
	if (rr >= 0)
		rr = snapshot_counters(r, host, false);
	if (rr < 0)
		return rr;

	if (o->progress)
		progressing = progress_start(&prog, rn->name, r->params.duration_sec);
	for (;;) {
		r->started_usec = history_now_usec();
		r->bench_r = rn->run(&r->params, &r->result);
		r->ended_usec = history_now_usec();
		rr = r->bench_r == -ECONNREFUSED ? fall_through(names, &rn, r) : 0;
		if (rr <= 0)
			break;
	}
	if (progressing)
		progress_stop(&prog);
	if (rr < 0)
		return rr;
	r->bench_ran = true;
	rr = classify_interrupted(o, r);
	if (rr < 0)
		return rr;

	pause_point("bench-done");
	rr = r->result.has_peer_counters
		 ? ledger_watch_after(&lw, &r->result.peer_before, &r->result.peer_after)
		 : ledger_watch_after(&lw, NULL, NULL);
	port = r->interfaces ? host_state_iface(host, r->interfaces[0]) : NULL;
	if (rr >= 0 && r->bench_r >= 0) {
		struct ledger_input in =
		    ledger_input_of_run(&r->params, &r->result, port && port->present ? port->link.mtu : 0);
		rr = ledger_watch_compute(&lw, &in, &r->ledger);
	}
	if (rr >= 0 && r->ledger && !(r->ledger_doc = ledger_to_json(r->ledger)))
		rr = -ENOMEM;
	if (rr >= 0)
		rr = irqspread_snapshot_take(&r->intr_after);
	if (rr >= 0)
		rr = snapshot_counters(r, host, true);
	if (rr >= 0 && r->bench_r >= 0) {
		rr = irqspread_compute(&r->intr_before, &r->intr_after, w.irqs, w.n, &r->spread);
		r->has_spread = rr >= 0;
	}
	return rr < 0 ? rr : 0;
}

/* ---- history record ---- */

struct artifacts {
	struct run_artifact *a;
	size_t n;
};

static int artifact_add(struct artifacts *as, const char *name, const char *content)
{
	struct run_artifact *n;

	if (!content)
		return 0;
	n = realloc(as->a, (as->n + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	as->a = n;
	n[as->n] = (struct run_artifact){.name = strdup(name), .content = strdup(content)};
	as->n++;
	return n[as->n - 1].name && n[as->n - 1].content ? 0 : -ENOMEM;
}

static void artifacts_done(struct artifacts *as)
{
	for (size_t i = 0; i < as->n; i++) {
		free(as->a[i].name);
		free(as->a[i].content);
	}
	free(as->a);
}

static char *counters_text(const struct verify_report *r, bool after)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < r->n_counters; i++) {
		const struct counter_snapshot *s = after ? &r->counters[i].after : &r->counters[i].before;
		fprintf(f, "== %s ==\n", r->counters[i].ifname);
		if (s->r < 0)
			fprintf(f, "unavailable: %s\n", strerror(-s->r));
		else
			fputs(s->dump ? s->dump : "", f);
	}
	return fclose(f) == 0 ? buf : (free(buf), NULL);
}

static char *summary_text(const struct verify_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < r->n_drifts; i++)
		fprintf(f, "drift %s %s: current %s, expected %s\n", r->drifts[i].object, r->drifts[i].key,
			r->drifts[i].current, r->drifts[i].expected);
	for (size_t i = 0; i < r->n_thresholds; i++) {
		const struct verify_threshold *t = &r->thresholds[i];
		if (t->status == VERIFY_NA || t->value < 0)
			fprintf(f, "threshold %s %s %g: %s (%s)\n", t->name, t->op, t->limit,
				verify_status_to_string(t->status), t->note);
		else
			fprintf(f, "threshold %s %s %g: %.2f %s\n", t->name, t->op, t->limit, t->value,
				verify_status_to_string(t->status));
	}
	for (char **w = r->result.warnings; w && *w; w++)
		fprintf(f, "warning %s\n", *w);
	if (r->result.error)
		fprintf(f, "error %s\n", r->result.error);
	return fclose(f) == 0 ? buf : (free(buf), NULL);
}

static char *irq_map_text(const struct verify_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	/* "mlx5_comp0-7 -> 8-15"; with several ports "ens1f0: ...; ens1f1: ..." */
	for (char **n = r->interfaces; n && *n; n++) {
		_cleanup_irq_list_ struct irq_list *l = NULL;
		_cleanup_free_ char *map = NULL;

		if (irq_discover(*n, r->intr_before.intr, IRQ_DISCOVER_AFFINITY, &l) < 0 ||
		    irq_list_format_map(l, &map) < 0 || !*map)
			continue;
		fflush(f);
		if (r->interfaces[1])
			fprintf(f, "%s%s: ", len ? "; " : "", *n);
		fprintf(f, "%s", map);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	if (!*buf) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The host tuning a round ran under, beyond the run's columns, one "key:
 * value" a line (`compare` rows): every sysctl of procsys.h the host has,
 * irqbalance, and the CPUs the benchmark streams were pinned to. */
static char *tuning_text(const struct host_state *host, const struct verify_report *r)
{
	_cleanup_free_ char *pins = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (int k = 0; k < _SYSCTL_MAX; k++) {
		_cleanup_free_ char *v = NULL;
		const struct sysctl_state *st = sysctl_probed(host, (enum sysctl_key)k);

		if (st->r == 0 && sysctl_value_format(&st->value, &v) >= 0)
			fprintf(f, "%s: %s\n", sysctl_key_to_string(k), v);
	}
	fprintf(f, "irqbalance: %s\n", irqbalance_probed(host)->running ? "running" : "stopped");
	if (cpuset_format_list(&r->pin_cpus, &pins) >= 0)
		fprintf(f, "bench_cpus: %s\n", *pins ? pins : "none");
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static struct json_object *string_or_null(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

static struct json_object *port_json(const struct iface_state *s)
{
	struct json_object *o = json_object_new_object();
	_cleanup_free_ char *version = NULL, *pci_id = NULL;

	if (nicfacts_driver_version(s, &version) == -ENOMEM)
		return json_object_put(o), NULL;
	if (s->has_nic && s->nic.has_pci_id)
		pci_id = strprintf("%04x:%04x", s->nic.vendor, s->nic.device);
	json_object_object_add(o, "name", json_object_new_string(s->name));
	json_object_object_add(o, "model", string_or_null(s->has_nic ? s->nic.model : NULL));
	json_object_object_add(o, "pci", string_or_null(s->has_nic ? s->nic.pci_bdf : NULL));
	json_object_object_add(o, "pci_id", string_or_null(pci_id));
	json_object_object_add(o, "numa_node",
			       s->has_nic && s->nic.numa_node >= 0 ? json_object_new_int(s->nic.numa_node)
								   : NULL);
	json_object_object_add(o, "local_cpus", string_or_null(s->has_nic ? s->nic.local_cpulist : NULL));
	json_object_object_add(o, "driver", string_or_null(nicfacts_driver(s)));
	json_object_object_add(o, "driver_version", string_or_null(version));
	json_object_object_add(o, "firmware", string_or_null(nicfacts_firmware(s)));
	return o;
}

/* The artifact host_facts.json (schemas/host-facts.schema.json): the host
 * name, the kernel release and each port's NIC, so that a report placed
 * later names them. */
static char *host_facts_json(const struct host_state *host, char *const *ifaces)
{
	struct json_object *o = json_object_new_object(), *ports = json_object_new_array();
	_cleanup_free_ char *kernel = NULL;
	char name[256] = "";
	char *text;

	if (!o || !ports) {
		json_object_put(o);
		json_object_put(ports);
		return NULL;
	}
	(void)gethostname(name, sizeof(name) - 1);
	(void)sysroot_read_line("/proc/sys/kernel/osrelease", &kernel);
	json_object_object_add(o, "hostname", string_or_null(name));
	json_object_object_add(o, "kernel", string_or_null(kernel));
	for (char *const *n = ifaces; n && *n; n++) {
		const struct iface_state *s = host_state_iface(host, *n);
		if (s)
			json_object_array_add(ports, port_json(s));
	}
	json_object_object_add(o, "interfaces", ports);
	text = strdup(
	    json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return text;
}

static int record_run(const struct verify_options *o, const struct host_state *host, struct verify_report *r)
{
	const struct iface_state *s = r->interfaces ? host_state_iface(host, r->interfaces[0]) : NULL;
	_cleanup_(artifacts_done) struct artifacts as = {0};
	_cleanup_free_ char *cb = counters_text(r, false), *ca = counters_text(r, true),
			    *sum = summary_text(r), *map = irq_map_text(r), *drv = NULL, *verdict = NULL,
			    *profile_json = NULL, *drv_version = NULL, *hash = NULL,
			    *tuning = tuning_text(host, r), *facts = host_facts_json(host, r->interfaces),
			    *ledger_txt = ledger_text(r->ledger_doc);
	struct json_object *pj = NULL;
	struct run_record rec;
	int rr = 0;

	if (!cb || !ca || !sum || !tuning || !facts)
		return -ENOMEM;
	if (s && nicfacts_driver_version(s, &drv_version) == -ENOMEM)
		return -ENOMEM;
	if (s && s->present && s->drvinfo_r == 0)
		drv = strprintf("driver: %s\nversion: %s\nfirmware-version: %s\nbus-info: %s\n",
				s->drvinfo.driver, s->drvinfo.version, s->drvinfo.fw_version,
				s->drvinfo.bus_info);
	if (profile_hash(o->profile, &hash) == -ENOMEM)
		return -ENOMEM;
	if (profile_to_json(o->profile, &pj) >= 0) {
		profile_json = strdup(json_object_to_json_string_ext(pj, JSON_C_TO_STRING_PRETTY));
		json_object_put(pj);
	}
	if (r->interrupted)
		verdict = strprintf("interrupted: %s", r->interrupted);
	else if (r->bench_r < 0)
		verdict = strprintf("error: %s", strna(r->result.error));
	else if (streq(verify_result_word(r), "recorded"))
		verdict = strdup("recorded: no thresholds set");
	else
		verdict = strprintf("%s", verify_result_word(r));
	if (!verdict)
		return -ENOMEM;

	rr |= artifact_add(&as, "command", r->result.command);
	rr |= artifact_add(&as, "runner_output", r->result.raw_output);
	rr |= artifact_add(&as, "ethtool_i", drv);
	rr |= artifact_add(&as, "counters_before", cb);
	rr |= artifact_add(&as, "counters_after", ca);
	rr |= artifact_add(&as, "interrupts_before", r->intr_before.interrupts_text);
	rr |= artifact_add(&as, "interrupts_after", r->intr_after.interrupts_text);
	rr |= artifact_add(&as, "proc_stat_before", r->intr_before.stat_text);
	rr |= artifact_add(&as, "proc_stat_after", r->intr_after.stat_text);
	rr |= artifact_add(&as, "profile", profile_json);
	rr |= artifact_add(&as, "verify_summary", sum);
	rr |= artifact_add(&as, ARTIFACT_TUNING, tuning);
	rr |= artifact_add(&as, ARTIFACT_HOST_FACTS, facts);
	rr |= artifact_add(&as, "loss_ledger", ledger_txt);
	if (r->result.peer_state)
		rr |= artifact_add(
		    &as, PEERSTATE_ARTIFACT,
		    json_object_to_json_string_ext(r->result.peer_state, JSON_C_TO_STRING_PRETTY));
	if (rr < 0)
		return -ENOMEM;

	rec = (struct run_record){
	    .transaction_id = o->transaction_id,
	    .campaign_id = o->campaign_id,
	    .started_usec = r->started_usec,
	    .ended_usec = r->ended_usec,
	    .test = (char *)"UDP_STREAM",
	    .runner = r->result.runner,
	    .command_line = r->result.command,
	    .profile = r->profile_name,
	    .profile_hash = hash,
	    .ifname = r->interfaces ? r->interfaces[0] : NULL,
	    .peer = r->peer,
	    .mtu = s && s->present ? s->link.mtu : 0,
	    .message_size = r->params.message_size,
	    .send_buffer = r->params.send_buffer,
	    .recv_buffer = r->params.recv_buffer,
	    .streams = r->params.streams,
	    .duration_s = r->bench_r >= 0 ? r->result.elapsed_sec : r->params.duration_sec,
	    .irq_policy = (char *)kinds_key_enum_name(o->profile, "irq.policy"),
	    .irq_map = map,
	    .driver = s ? (char *)nicfacts_driver(s) : NULL,
	    .driver_version = drv_version,
	    .firmware_version = s ? (char *)nicfacts_firmware(s) : NULL,
	    .sent = r->result.sent,
	    .received = r->result.received,
	    .lost = r->result.lost,
	    .send_mbps = r->result.send_mbps,
	    .recv_mbps = r->result.recv_mbps,
	    .loss_pct = r->result.loss_percent,
	    .passed = verify_exit_code(r) == EXIT_OK,
	    .verdict = verdict,
	    .limited_by = r->ledger ? (char *)r->ledger->limited_by : NULL,
	    .ledger = r->ledger_doc
			  ? (char *)json_object_to_json_string_ext(r->ledger_doc, JSON_C_TO_STRING_PLAIN)
			  : NULL,
	    .artifacts = as.a,
	    .n_artifacts = as.n,
	};
	return runs_record(o->history, &rec, &r->run_id);
}

/* ---- the whole ---- */

int verify_run(const struct verify_options *o, struct verify_report **ret)
{
	_cleanup_verify_report_ struct verify_report *r = calloc(1, sizeof(*r));
	_cleanup_host_state_ struct host_state *host = NULL;
	_cleanup_plan_ struct plan *pl = NULL;
	int rr;

	if (!r)
		return -ENOMEM;
	r->pin_cpus = (struct cpuset)CPUSET_INIT;
	r->intr_before = r->intr_after =
	    (struct irqspread_snapshot){.interrupts_r = -ENOENT, .stat_r = -ENOENT};
	runner_result_init(&r->result, "");
	r->profile_name = strdup(o->profile->name.set ? o->profile->name.value : "(unnamed)");
	r->source = strdup(o->source ? o->source : "");
	r->transaction_id = o->transaction_id;
	if (!r->profile_name || !r->source)
		return -ENOMEM;

	rr = kinds_probe_host(NULL, 0, &host);
	if (rr < 0)
		return rr;
	rr = plan_build(o->profile, host, &pl);
	if (rr < 0)
		return rr;
	rr = copy_state(r, pl);
	if (rr < 0)
		return rr;

	rr = run_bench(o, host, r);
	if (rr < 0)
		return rr;
	rr = evaluate_thresholds(o->profile, r);
	if (rr < 0)
		return rr;

	if (r->bench_ran && o->history) {
		rr = record_run(o, host, r);
		if (rr == -ENOMEM)
			return rr;
		if (rr < 0) {
			r->record_error = strprintf("%s: %s", strerror(-rr), history_remedy(rr));
			if (!r->record_error)
				return -ENOMEM;
		}
	}
	*ret = TAKE_PTR(r);
	return 0;
}

void verify_report_free(struct verify_report *r)
{
	if (!r)
		return;
	free(r->profile_name);
	free(r->source);
	strv_free(r->interfaces);
	for (size_t i = 0; i < r->n_drifts; i++) {
		free(r->drifts[i].object);
		free(r->drifts[i].key);
		free(r->drifts[i].current);
		free(r->drifts[i].expected);
	}
	free(r->drifts);
	for (size_t i = 0; i < r->n_problems; i++) {
		free(r->problems[i].object);
		free(r->problems[i].message);
		free(r->problems[i].remedy);
	}
	free(r->problems);
	strv_free(r->warnings);
	free(r->bench_skipped);
	free(r->interrupted);
	free(r->peer);
	cpuset_done(&r->pin_cpus);
	peercheck_done(&r->peer_checks);
	ledger_free(r->ledger);
	json_object_put(r->ledger_doc);
	free(r->runners_skipped);
	runner_result_done(&r->result);
	for (size_t i = 0; i < r->n_thresholds; i++)
		free(r->thresholds[i].note);
	free(r->thresholds);
	irqspread_result_done(&r->spread);
	irqspread_snapshot_done(&r->intr_before);
	irqspread_snapshot_done(&r->intr_after);
	for (size_t i = 0; i < r->n_counters; i++) {
		free(r->counters[i].ifname);
		counter_snapshot_done(&r->counters[i].before);
		counter_snapshot_done(&r->counters[i].after);
		free(r->counters[i].d);
	}
	free(r->counters);
	free(r->record_error);
	free(r);
}

static bool any_threshold_failed(const struct verify_report *r)
{
	for (size_t i = 0; i < r->n_thresholds; i++)
		if (r->thresholds[i].status == VERIFY_FAIL)
			return true;
	return false;
}

int verify_exit_code(const struct verify_report *r)
{
	if (r->n_drifts > 0 || r->n_problems > 0)
		return EXIT_DRIFT;
	if (r->bench_r < 0 || r->interrupted)
		return EXIT_ERROR;
	if (any_threshold_failed(r))
		return EXIT_BENCH_FAIL;
	return EXIT_OK;
}

const char *verify_result_word(const struct verify_report *r)
{
	if (r->interrupted && verify_exit_code(r) == EXIT_ERROR)
		return "interrupted";
	switch (verify_exit_code(r)) {
	case EXIT_DRIFT:
		return "drift";
	case EXIT_ERROR:
		return "error";
	case EXIT_BENCH_FAIL:
		return "fail";
	default:
		/* A measurement no threshold judged: recorded, not passed. */
		return r->bench_ran && r->n_thresholds == 0 ? "recorded" : "pass";
	}
}

/* ---- rendering ---- */

static void out_percent_or_null(const char *key, double v)
{
	if (v < 0 || !isfinite(v))
		out_string(OUT_JSON, key, NULL, NULL);
	else
		out_double(OUT_JSON, key, NULL, v);
}

static void render_state(const struct verify_report *r)
{
	out_open_array("interfaces");
	for (char **n = r->interfaces; n && *n; n++)
		out_string(OUT_JSON, NULL, NULL, *n);
	out_close_array();

	out_open_object("state");
	out_bool(OUT_JSON, "in_state", NULL, r->n_drifts == 0 && r->n_problems == 0);
	if (r->n_drifts == 0 && r->n_problems == 0)
		out_text("state       in the profile's state (%zu interface%s)\n", strv_length(r->interfaces),
			 strv_length(r->interfaces) == 1 ? "" : "s");
	else
		out_text("state       %zu drift%s\n", r->n_drifts + r->n_problems,
			 r->n_drifts + r->n_problems == 1 ? "" : "s");
	out_open_array("drifts");
	for (size_t i = 0; i < r->n_drifts; i++) {
		const struct verify_drift *d = &r->drifts[i];
		out_open_object(NULL);
		out_string(OUT_JSON, "object", NULL, d->object);
		out_string(OUT_JSON, "key", NULL, d->key);
		out_string(OUT_JSON, "current", NULL, d->current);
		out_string(OUT_JSON, "expected", NULL, d->expected);
		out_close_object();
		out_text("  %s %s: current %s, expected %s\n", d->object, d->key, d->current, d->expected);
	}
	out_close_array();
	out_open_array("problems");
	for (size_t i = 0; i < r->n_problems; i++) {
		const struct verify_problem *pr = &r->problems[i];
		out_open_object(NULL);
		out_string(OUT_JSON, "object", NULL, pr->object);
		out_string(OUT_JSON, "message", NULL, pr->message);
		out_string(OUT_JSON, "remedy", NULL, pr->remedy);
		out_close_object();
		out_text("  %s: %s (%s)\n", pr->object, pr->message, pr->remedy);
	}
	out_close_array();
	out_open_array("warnings");
	for (char **w = r->warnings; w && *w; w++) {
		out_string(OUT_JSON, NULL, NULL, *w);
		out_text("  warning: %s\n", *w);
	}
	out_close_array();
	out_close_object();
}

static void render_streams(const struct runner_result *res)
{
	out_open_array("per_stream");
	for (size_t i = 0; i < res->n_streams; i++) {
		const struct runner_stream *s = &res->streams[i];
		out_open_object(NULL);
		if (s->cpu >= 0)
			out_int(OUT_JSON, "cpu", NULL, s->cpu);
		else
			out_string(OUT_JSON, "cpu", NULL, NULL);
		out_uint(OUT_JSON, "sent", NULL, s->sent);
		out_uint(OUT_JSON, "received", NULL, s->received);
		out_uint(OUT_JSON, "lost", NULL, s->lost);
		out_double(OUT_JSON, "send_mbps", NULL, s->send_mbps);
		out_double(OUT_JSON, "recv_mbps", NULL, s->recv_mbps);
		out_close_object();
		if (res->n_streams > 1 && s->cpu >= 0)
			out_text("  stream %zu  cpu %d: sent %" PRIu64 ", received %" PRIu64 ", %.2f Mbps\n",
				 i + 1, s->cpu, s->sent, s->received, s->recv_mbps);
		else if (res->n_streams > 1)
			out_text("  stream %zu: sent %" PRIu64 ", received %" PRIu64 ", %.2f Mbps\n", i + 1,
				 s->sent, s->received, s->recv_mbps);
	}
	out_close_array();
}

static void render_bench(const struct verify_report *r)
{
	const struct runner_result *res = &r->result;
	_cleanup_free_ char *pins = NULL;

	out_open_object("benchmark");
	out_bool(OUT_JSON, "ran", NULL, r->bench_ran);
	out_string(OUT_JSON, "skipped", NULL, r->bench_skipped);
	if (r->bench_skipped) {
		out_text("benchmark   skipped: %s\n", r->bench_skipped);
		out_close_object();
		return;
	}
	out_string(OUT_JSON, "runner", NULL, *res->runner ? res->runner : NULL);
	out_open_array("runners_skipped");
	for (char *line = r->runners_skipped, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		_cleanup_free_ char *one = NULL;
		nl = strchr(line, '\n');
		one = nl ? strndup(line, (size_t)(nl - line)) : strdup(line);
		out_string(OUT_JSON, NULL, NULL, one);
	}
	out_close_array();
	out_string(OUT_JSON, "peer", NULL, r->peer);
	out_uint(OUT_JSON, "duration_s", NULL, r->params.duration_sec);
	out_uint(OUT_JSON, "message_size", NULL, r->params.message_size);
	out_uint(OUT_JSON, "send_buffer", NULL, r->params.send_buffer);
	out_uint(OUT_JSON, "recv_buffer", NULL, r->params.recv_buffer);
	out_uint(OUT_JSON, "streams", NULL, r->params.streams);
	(void)cpuset_format_list(&r->pin_cpus, &pins);
	out_string(OUT_JSON, "pin_cpus", NULL, pins ? pins : "");
	out_string(OUT_JSON, "command", NULL, res->command);
	out_string(OUT_JSON, "error", NULL, res->error);
	if (*res->runner)
		out_text("benchmark   %s to %s, %u s, %" PRIu64 "-byte messages, %u stream%s\n", res->runner,
			 r->peer, r->params.duration_sec, r->params.message_size, r->params.streams,
			 r->params.streams == 1 ? "" : "s");
	else
		out_text("benchmark   to %s\n", r->peer);
	if (r->runners_skipped && *res->runner)
		for (char *line = r->runners_skipped, *nl; line && *line; line = nl ? nl + 1 : NULL) {
			nl = strchr(line, '\n');
			out_text("  not used: %.*s\n", nl ? (int)(nl - line) : (int)strlen(line), line);
		}
	if (res->command)
		out_text("  command   %s\n", res->command);
	if (r->bench_r >= 0) {
		out_double(OUT_JSON, "elapsed_s", NULL, res->elapsed_sec);
		out_uint(OUT_JSON, "sent", NULL, res->sent);
		out_uint(OUT_JSON, "send_errors", NULL, res->send_errors);
		out_uint(OUT_JSON, "received", NULL, res->received);
		out_uint(OUT_JSON, "lost", NULL, res->lost);
		out_double(OUT_JSON, "loss_percent", NULL, res->loss_percent);
		out_double(OUT_JSON, "send_mbps", NULL, res->send_mbps);
		out_double(OUT_JSON, "recv_mbps", NULL, res->recv_mbps);
		out_percent_or_null("sender_cpu_percent", res->sender_cpu_percent);
		out_uint(OUT_JSON, "send_buffer_actual", NULL, res->send_buffer_actual);
		out_uint(OUT_JSON, "recv_buffer_actual", NULL, res->recv_buffer_actual);
		out_text("  result    sent %" PRIu64 ", received %" PRIu64 ", lost %" PRIu64 " (%.2f%%)\n",
			 res->sent, res->received, res->lost, res->loss_percent);
		out_text("  rate      send %.2f Mbps, receive %.2f Mbps", res->send_mbps, res->recv_mbps);
		if (res->sender_cpu_percent >= 0)
			out_text(", sender CPU %.1f%%", res->sender_cpu_percent);
		out_text("\n");
		render_streams(res);
	}
	out_open_array("warnings");
	for (char **w = res->warnings; w && *w; w++) {
		out_string(OUT_JSON, NULL, NULL, *w);
		out_text("  warning: %s\n", *w);
	}
	out_close_array();
	out_close_object(); /* res->error goes to stderr, from the verb */
}

static void render_thresholds(const struct verify_report *r)
{
	/* Nothing measured (--no-bench, no peer, a host in drift): one line
	 * for people, not every threshold n/a; JSON keeps them all. */
	bool measured = r->bench_ran || !r->bench_skipped;

	out_open_array("thresholds");
	if (r->n_thresholds && !measured)
		out_text("thresholds  not evaluated: nothing was measured\n");
	else if (r->n_thresholds)
		out_text("thresholds\n");
	for (size_t i = 0; i < r->n_thresholds; i++) {
		const struct verify_threshold *t = &r->thresholds[i];
		out_open_object(NULL);
		out_string(OUT_JSON, "name", NULL, t->name);
		out_string(OUT_JSON, "label", NULL, t->label);
		out_string(OUT_JSON, "op", NULL, t->op);
		out_double(OUT_JSON, "limit", NULL, t->limit);
		out_string(OUT_JSON, "unit", NULL, t->unit);
		out_percent_or_null("value", t->value);
		out_string(OUT_JSON, "status", NULL, verify_status_to_string(t->status));
		out_string(OUT_JSON, "note", NULL, t->note);
		out_close_object();
		if (!measured)
			continue;
		if (t->status == VERIFY_NA || t->value < 0)
			out_text("  %s %s %g %s: %s (%s)\n", t->label, t->op, t->limit, t->unit,
				 verify_status_to_string(t->status), t->note);
		else
			out_text("  %s %s %g %s: %.2f %s  %s\n", t->label, t->op, t->limit, t->unit, t->value,
				 t->unit, verify_status_to_string(t->status));
	}
	out_close_array();
}

static void render_spread(const struct verify_report *r)
{
	const struct irqspread_result *s = &r->spread;

	if (!r->has_spread) {
		out_json("irq_spread", NULL);
		return;
	}
	out_open_object("irq_spread");
	out_uint(OUT_JSON, "interrupts", NULL, s->interrupts);
	out_percent_or_null("planned_percent", s->planned_percent);
	if (s->max_cpu >= 0)
		out_int(OUT_JSON, "max_cpu", NULL, s->max_cpu);
	else
		out_string(OUT_JSON, "max_cpu", NULL, NULL);
	out_percent_or_null("max_cpu_percent", s->max_cpu_percent);
	if (s->softirq_max_cpu >= 0)
		out_int(OUT_JSON, "softirq_max_cpu", NULL, s->softirq_max_cpu);
	else
		out_string(OUT_JSON, "softirq_max_cpu", NULL, NULL);
	out_percent_or_null("softirq_max_percent", s->softirq_max_percent);
	out_open_array("cpus");
	for (size_t i = 0; i < s->ncpus; i++) {
		out_open_object(NULL);
		out_uint(OUT_JSON, "cpu", NULL, s->cpus[i].cpu);
		out_uint(OUT_JSON, "interrupts", NULL, s->cpus[i].interrupts);
		out_double(OUT_JSON, "irq_percent", NULL, s->cpus[i].irq_percent);
		out_percent_or_null("softirq_percent", s->cpus[i].softirq_percent);
		out_bool(OUT_JSON, "planned", NULL, s->cpus[i].planned);
		out_close_object();
	}
	out_close_array();
	out_close_object();
	if (s->interrupts == 0)
		out_text("irq spread  no interrupts of the ports' completion IRQs during the run");
	else
		out_text("irq spread  %" PRIu64 " interrupts", s->interrupts);
	if (s->planned_percent >= 0)
		out_text(", %.1f%% on planned CPUs", s->planned_percent);
	if (s->max_cpu >= 0)
		out_text(", busiest CPU %d with %.1f%%", s->max_cpu, s->max_cpu_percent);
	if (s->softirq_max_cpu >= 0)
		out_text("; softirq busiest CPU %d at %.1f%%", s->softirq_max_cpu, s->softirq_max_percent);
	out_text("\n");
}

static void render_counters(const struct verify_report *r)
{
	out_open_array("counters");
	for (size_t i = 0; i < r->n_counters; i++) {
		const struct verify_port_counters *c = &r->counters[i];
		int err = c->before.r < 0 ? c->before.r : c->after.r;
		size_t rising = 0;

		out_open_object(NULL);
		out_string(OUT_JSON, "interface", NULL, c->ifname);
		out_bool(OUT_JSON, "available", NULL, err >= 0);
		out_string(OUT_JSON, "error", NULL, err < 0 ? strerror(-err) : NULL);
		out_open_array("counters");
		for (size_t k = 0; k < c->n; k++) {
			const struct counter_delta *d = &c->d[k];
			out_open_object(NULL);
			out_string(OUT_JSON, "name", NULL, d->def->name);
			out_uint(OUT_JSON, "before", NULL, d->before);
			out_uint(OUT_JSON, "after", NULL, d->after);
			out_uint(OUT_JSON, "delta", NULL, d->delta);
			out_bool(OUT_JSON, "rising", NULL, d->rising);
			out_string(OUT_JSON, "meaning", NULL, d->def->meaning);
			out_string(OUT_JSON, "remedy", NULL, d->def->remedy);
			out_close_object();
			if (d->rising) {
				out_text("counters    %s %s +%" PRIu64 ": %s; %s\n", c->ifname, d->def->name,
					 d->delta, d->def->meaning, d->def->remedy);
				rising++;
			}
		}
		out_close_array();
		out_close_object();
		if (err < 0)
			out_text("counters    %s: unavailable (%s)\n", c->ifname, strerror(-err));
		else if (c->n == 0)
			out_text("counters    %s: the driver reports none of the watched drop counters\n",
				 c->ifname);
		else if (rising == 0)
			out_text("counters    %s: no drop counter rose\n", c->ifname);
	}
	out_close_array();
}

void verify_render(const struct verify_report *r)
{
	out_open_object(NULL);
	out_string(OUT_ANY, "profile", "verify      %s", r->profile_name);
	out_string(OUT_ANY, "source", " (%s", r->source);
	if (r->transaction_id > 0) {
		out_int(OUT_ANY, "transaction", ", transaction %" PRId64, r->transaction_id);
	} else {
		out_string(OUT_JSON, "transaction", NULL, NULL);
	}
	out_text(")\n");
	render_state(r);
	peercheck_render(&r->peer_checks);
	render_bench(r);
	render_thresholds(r);
	render_spread(r);
	render_counters(r);
	peerstate_render(r->result.peer_state);
	ledger_render(r->ledger_doc);
	if (r->run_id > 0)
		out_int(OUT_JSON, "run_id", NULL, r->run_id);
	else
		out_string(OUT_JSON, "run_id", NULL, NULL);
	out_string(OUT_JSON, "record_error", NULL, r->record_error);
	out_bool(OUT_JSON, "measured", NULL, r->bench_ran);
	out_string(OUT_JSON, "limited_by", NULL, r->ledger ? r->ledger->limited_by : NULL);
	/* In state with nothing measured is no "pass" of anything measured,
	 * and a measurement without thresholds is no "pass" either. */
	if (!r->bench_ran && r->bench_skipped && verify_exit_code(r) == EXIT_OK) {
		out_string(OUT_JSON, "result", NULL, verify_result_word(r));
		out_text("result      in the profile's state; nothing was measured (%s)", r->bench_skipped);
	} else if (streq(verify_result_word(r), "recorded")) {
		out_string(OUT_JSON, "result", NULL, verify_result_word(r));
		out_text("result      recorded (no thresholds set), limited by %s",
			 r->ledger && r->ledger->limited_by ? r->ledger->limited_by : "unknown");
	} else
		out_string(OUT_ANY, "result", "result      %s", verify_result_word(r));
	out_int(OUT_JSON, "exit_code", NULL, verify_exit_code(r));
	if (r->run_id > 0)
		out_text(" (run %" PRId64 " recorded)", r->run_id);
	out_text("\n");
	out_close_object();
}
