/* rounds.c: a campaign's rounds, the engine behind `cx5prof campaign`
 * and `cx5prof tune`.
 *
 * Owns: running a campaign's rounds in order (repetitions interleaved: g1
 * g2 g3 g1 g2 g3 ...), each from the state before the campaign: plan the
 * round's profile, apply it as a transaction, verify it (a run tagged with
 * the campaign), roll the transaction back; groups that cannot apply are
 * skipped with the reason; SIGINT/SIGTERM stop after the current round and
 * roll it back. The campaign document (schemas/campaign.schema.json): the
 * --json output, campaign.json and the history record are one object; the
 * verbs print their tables from it. Must never: fork cx5prof, leave a
 * round's transaction applied (unless --keep asks for one group, applied
 * again at the end as its own transaction), or change the host before the
 * round's undo log is on disk (every round is a txn_run() of engine/txn.c). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>

#include "rounds.h"
#include "apply.h"
#include "base/exitcode.h"
#include "base/log.h"
#include "base/output.h"
#include "base/stats.h"
#include "kinds/kinds.h"
#include "os/probe.h"
#include "peer/peerssh.h"
#include "plan.h"
#include "runfacts.h"
#include "store/history.h"
#include "store/runs.h"
#include "verify.h"

const char *const campaign_keep_names[] = {"none", "first", "last", "best", NULL};

/* What a round costs beyond its benchmark (plan, apply, probe, undo), for
 * the estimate: a real port takes a second or two to come back after an
 * MTU change. */
#define ROUND_OVERHEAD_S 2

static const char *const stop_names[_RUN_STOP_MAX] = {"complete", "decided",	 "max_rounds",
						      "budget",	  "interrupted", "failed"};

static void report_problems(const struct plan *p)
{
	for (size_t i = 0; i < p->n_problems; i++)
		log_error("%s: %s: %s", p->problems[i].object, p->problems[i].message, p->problems[i].remedy);
	for (char **w = p->warnings; w && *w; w++)
		log_warn("%s", *w);
}

size_t campaign_sweeps(const struct campaign *c)
{
	return c->n_sweep ? c->n_sweep : 1;
}

static void cell_add_drops(struct campaign_cell *cl, const struct verify_report *rep)
{
	for (size_t p = 0; p < rep->n_counters; p++) {
		const struct verify_port_counters *pc = &rep->counters[p];
		for (size_t i = 0; i < pc->n; i++) {
			struct json_object *v;
			uint64_t sum = pc->d[i].delta;
			if (!cl->drops)
				cl->drops = json_object_new_object();
			if (json_object_object_get_ex(cl->drops, pc->d[i].def->name, &v))
				sum += (uint64_t)json_object_get_int64(v);
			json_object_object_add(cl->drops, pc->d[i].def->name,
					       json_object_new_int64((int64_t)sum));
		}
	}
}

/* The peer's state of a round (peer_state.json from the builtin runner
 * against `serve`): its MTU and its drop counters' summed rise, -1 each
 * when it did not say. */
static void peer_figures(struct json_object *ps, int64_t *ret_mtu, int64_t *ret_drops)
{
	struct json_object *v, *counters;

	*ret_mtu = *ret_drops = -1;
	if (!ps)
		return;
	if (json_object_object_get_ex(ps, "mtu", &v) && v)
		*ret_mtu = json_object_get_int64(v);
	if (!json_object_object_get_ex(ps, "drop_counters", &counters) || !counters)
		return;
	*ret_drops = 0;
	for (size_t i = 0; i < json_object_array_length(counters); i++)
		*ret_drops += json_object_get_int64(
		    json_object_object_get(json_object_array_get_idx(counters, i), "delta"));
}

/* A round that failed as the one before it did (the peer's path MTU,
 * a missing server): the group's other rounds would fail the same way. */
static void cell_note_failure(struct campaign_run *x, struct campaign_cell *cl, const char *failure)
{
	if (failure && cl->last_failure && streq(failure, cl->last_failure)) {
		cl->skipped = strprintf(
		    "the same failure in two rounds in a row, its other rounds not run: %s", failure);
		cl->skipped_code = EXIT_ERROR;
		log_warn("campaign: group %s: %s", x->c->groups[cl->group].name, strna(cl->skipped));
		return;
	}
	free(cl->last_failure);
	cl->last_failure = failure ? strdup(failure) : NULL;
}

/* "round   3/12  mtu-jumbo         2872.8 Mbps  loss 49.55%": each round
 * as it ends (after its undo), for people; a pipe that closed stops the
 * campaign. */
static void round_progress(struct campaign_run *x, const struct campaign_cell *cl,
			   const struct verify_report *rep, bool warmup, const char *why_not)
{
	_cleanup_free_ char *what = NULL;
	const char *name = x->c->groups[cl->group].name;
	const char *value = campaign_sweep_value(x->c, cl->sweep);

	if (out_is_json() || x->quiet)
		return;
	if (rep->interrupted)
		what = strprintf("interrupted: %s", rep->interrupted);
	else if (why_not)
		what = strdup(why_not);
	else
		what = strprintf("%.1f Mbps  loss %.2f%%%s", rep->result.recv_mbps, rep->result.loss_percent,
				 warmup ? "  (warm-up, not counted)" : "");
	out_text("round       %zu/%zu %s%s%s: %s\n", x->rounds_run, x->rounds_planned, name, value ? " " : "",
		 value ? value : "", strna(what));
	if (out_flush() == -EPIPE)
		x->output_closed = true;
}

/* What one round measured, into its cell: counted when it measured in
 * full, was not a warm-up, and the peer stayed as the group wants for the
 * whole round (peer_reverted: its transaction was rolled back under it). */
static void cell_add_round(struct campaign_run *x, struct campaign_cell *cl, unsigned rep_no, int64_t txn,
			   const struct verify_report *rep, bool warmup, bool peer_reverted)
{
	struct json_object *o = json_object_new_object();
	bool measured = rep->bench_ran && rep->bench_r >= 0 && !peer_reverted;
	bool counted = measured && !warmup && !rep->interrupted;
	const char *why = peer_reverted
			      ? "the peer's transaction was rolled back during the round: not counted"
			  : rep->interrupted  ? rep->interrupted
			  : rep->result.error ? rep->result.error
					      : rep->bench_skipped;
	int64_t peer_mtu, peer_drops;

	json_object_object_add(o, "repetition", json_object_new_int(rep_no));
	json_object_object_add(o, "run", rep->run_id ? json_object_new_int64(rep->run_id) : NULL);
	json_object_object_add(o, "transaction", txn ? json_object_new_int64(txn) : NULL);
	json_object_object_add(o, "result", json_object_new_string(verify_result_word(rep)));
	json_object_object_add(o, "recv_mbps",
			       measured ? json_object_new_double(rep->result.recv_mbps) : NULL);
	json_object_object_add(o, "loss_percent",
			       measured ? json_object_new_double(rep->result.loss_percent) : NULL);
	json_object_object_add(o, "error", why ? json_object_new_string(why) : NULL);
	json_object_object_add(
	    o, "limited_by",
	    rep->ledger && rep->ledger->limited_by ? json_object_new_string(rep->ledger->limited_by) : NULL);
	json_object_object_add(o, "peer_reverted", json_object_new_boolean(peer_reverted));
	json_object_object_add(o, "warmup", json_object_new_boolean(warmup));
	json_object_object_add(o, "counted", json_object_new_boolean(counted));
	peer_figures(rep->result.peer_state, &peer_mtu, &peer_drops);
	json_object_object_add(o, "peer_mtu", peer_mtu >= 0 ? json_object_new_int64(peer_mtu) : NULL);
	json_object_object_add(o, "peer_drops", peer_drops >= 0 ? json_object_new_int64(peer_drops) : NULL);
	json_object_object_add(o, "thresholds", runfacts_thresholds(rep));
	json_object_object_add(o, "drops", runfacts_drops(rep));
	json_object_array_add(cl->rounds, o);
	if (rep->run_id)
		x->runs++;
	round_progress(x, cl, rep, warmup, why);
	if (warmup)
		return;
	if (peer_mtu >= 0)
		cl->peer_mtu = peer_mtu;
	if (peer_drops >= 0)
		cl->peer_drops = (cl->peer_drops < 0 ? 0 : cl->peer_drops) + peer_drops;
	if (!counted) {
		cl->failed_round = true;
		cl->excluded++;
		if (!rep->interrupted)
			cell_note_failure(x, cl, rep->result.error ? rep->result.error : rep->bench_skipped);
		return;
	}
	cell_note_failure(x, cl, NULL);
	cl->recv[cl->n] = rep->result.recv_mbps;
	cl->loss[cl->n++] = rep->result.loss_percent;
	if (verify_exit_code(rep) == EXIT_BENCH_FAIL)
		cl->threshold_failures++;
	if (rep->has_spread) {
		cl->spread_known = true;
		cl->interrupts += rep->spread.interrupts;
		if (rep->spread.max_cpu_percent > cl->max_cpu_percent) {
			cl->max_cpu_percent = rep->spread.max_cpu_percent;
			cl->max_cpu = rep->spread.max_cpu;
		}
	}
	cell_add_drops(cl, rep);
}

/* The profile of a round: the campaign's, with --peer. */
int campaign_run_profile(const struct campaign_run *x, size_t g, size_t s, struct profile **ret,
			 struct profile_error *err)
{
	_cleanup_profile_ struct profile *p = NULL;
	int r;

	r = campaign_group_profile(x->c, g, s, &p, err);
	if (r >= 0 && x->peer)
		r = profile_set_peer(p, x->peer);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(p);
	return 0;
}

static char *problems_text(const struct plan *p)
{
	char *s = strdup("");

	for (size_t i = 0; s && i < p->n_problems; i++) {
		char *t =
		    strprintf("%s%s%s: %s", s, i ? "; " : "", p->problems[i].object, p->problems[i].message);
		free(s);
		s = t;
	}
	return s;
}

/* Plan a round's profile against the host now. EXIT_OK with *ret_plan. */
int campaign_plan_round(const struct profile *prof, struct plan **ret_plan)
{
	_cleanup_host_state_ struct host_state *host = NULL;
	int r;

	r = kinds_probe_host(NULL, 0, &host);
	if (r < 0) {
		log_error_errno(r, "cannot read the network interfaces: %m");
		return EXIT_ERROR;
	}
	r = plan_build(prof, host, ret_plan);
	if (r < 0) {
		log_error_errno(r, "cannot plan %s: %m", prof->files[0]);
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

/* The peer's watchdog in a round covers the round: peer.confirm (or its
 * default) plus the benchmark and this slack for what comes around it
 * (the probes, the peer's state, the rollback's ssh). */
#define ROUND_PEER_SLACK_S 30

static unsigned round_peer_confirm(const struct profile *prof)
{
	return peerssh_confirm_seconds(prof) + (unsigned)prof->verify.duration.value + ROUND_PEER_SLACK_S;
}

static void note_not_restored(struct campaign_run *x, const char *fmt, ...) _printf_(2, 3);

static void note_not_restored(struct campaign_run *x, const char *fmt, ...)
{
	char *line = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	if (!line || strv_push(&x->not_restored, line) < 0)
		free(line);
}

/* What an undo left, into the campaign's final line. */
static void note_left(struct campaign_run *x, int64_t txn, char **left, int64_t peer_txn)
{
	for (char **l = left; l && *l; l++)
		note_not_restored(x, "this host, transaction %" PRId64 ": %s", txn, *l);
	if (peer_txn == HISTORY_PEER_TXN_UNKNOWN)
		note_not_restored(x, "the peer: its state is unknown, its apply was cut short (`cx5prof "
				     "rollback` here finds out and undoes it)");
	else if (peer_txn > 0)
		note_not_restored(
		    x, "the peer: its transaction %" PRId64 " (`cx5prof rollback` here tries again)",
		    peer_txn);
}

/* Roll a round back: the peer's transaction first, then this host's.
 * *ret_peer_reverted: the peer had nothing left to roll back (its
 * watchdog, or someone, undid it during the round). */
static int undo_round(struct campaign_run *x, const struct profile *prof, int64_t txn, int64_t peer_txn,
		      bool *ret_peer_reverted)
{
	struct txn_undo_outcome u = {0};
	_cleanup_free_ char *reason = strprintf("campaign %" PRId64 ": the round is over", x->id);
	int r;

	if (!txn && !peer_txn)
		return EXIT_OK;
	r = txn_undo(x->h, txn, prof, peer_txn, reason ? reason : "campaign round over", x->say, &u);
	for (char **l = u.apply.left; l && *l; l++)
		log_error("NOT restored: %s", *l);
	note_left(x, txn, u.apply.left, u.peer_left);
	if (ret_peer_reverted)
		*ret_peer_reverted = u.peer_was_undone;
	if (u.here < 0)
		log_error("campaign: transaction %" PRId64 " is NOT fully rolled back: %s: fix the above, "
			  "then run `cx5prof rollback %" PRId64 "`",
			  txn, strerror(-u.here), txn);
	if (u.here < 0 && u.here != -ENOTRECOVERABLE)
		note_not_restored(x, "this host, transaction %" PRId64 ": %s", txn, strerror(-u.here));
	txn_undo_outcome_done(&u);
	return r < 0 ? EXIT_ROLLBACK_FAILED : EXIT_OK;
}

/* The group of cell cl cannot run: skipped with why (taken), and exit
 * code as its reason. */
static int skip_cell(struct campaign_run *x, struct campaign_cell *cl, char *why, int code)
{
	cl->skipped = why;
	cl->skipped_code = code;
	log_warn("campaign: group %s skipped: %s", x->c->groups[cl->group].name, strna(why));
	return cl->skipped ? EXIT_OK : EXIT_ERROR;
}

/* Apply a round's plan as a transaction, here then on the peer (under its
 * own watchdog, long enough for the round), left open until the round's
 * undo, so that after a kill -9 the next apply refuses to run over it and
 * `cx5prof rollback` resolves both ends (the peer's transaction is
 * recorded with the round's). A group that fails to apply, here or on the
 * peer, is undone on both ends and skipped with the reason; a signal
 * stops the campaign (EXIT_ROLLED_BACK). EXIT_OK with *ret_txn and
 * *ret_peer_txn (0: nothing changed there). */
static int apply_round(struct campaign_run *x, struct campaign_cell *cl, const struct profile *prof,
		       const struct plan *p, int64_t *ret_txn, int64_t *ret_peer_txn)
{
	struct txn_outcome o = {0};
	struct txn_request q = {
	    .profile = prof,
	    .plan = p,
	    .db_path = x->db_path,
	    .commit = TXN_COMMIT_NEVER,
	    .peer = peerssh_wanted(prof),
	    .peer_confirm = round_peer_confirm(prof),
	    .say = x->say,
	};
	int code = EXIT_OK;

	if (q.peer && x->peer_down)
		return skip_cell(
		    x, cl, strprintf("%s; not tried again: nothing was changed on this host", x->peer_down),
		    EXIT_ROLLED_BACK);
	if (txn_run(&x->h, &q, &o) < 0)
		return EXIT_ERROR;
	*ret_txn = o.txn;
	*ret_peer_txn = o.peer_txn;
	if (o.peer_failure == -EHOSTUNREACH || o.peer_failure == -ETIMEDOUT) {
		/* ssh itself failed: every later round would wait for it too. */
		x->peer_down = strprintf("%s (group %s)", strna(o.peer_error), x->c->groups[cl->group].name);
	}
	note_left(x, o.txn, o.apply.left, o.peer_left);
	switch (o.end) {
	case TXN_END_DONE:
	case TXN_END_NOTHING:
		break;
	case TXN_END_NOT_RECORDED:
	case TXN_END_UNFINISHED:
		code = EXIT_ERROR;
		break;
	case TXN_END_PEER_FAILED:
	case TXN_END_UNDONE:
		if (o.interrupted)
			code = EXIT_ROLLED_BACK;
		else if (o.peer_left)
			code = EXIT_ROLLBACK_FAILED;
		else if (o.peer_error)
			code = skip_cell(x, cl,
					 strprintf("%s; %s", o.peer_error,
						   o.end == TXN_END_PEER_FAILED
						       ? "nothing was changed on this host"
						       : "every change was undone on this host"),
					 EXIT_ROLLED_BACK);
		else
			code = skip_cell(
			    x, cl,
			    o.apply.failed_seq
				? strprintf("apply failed at step %d: %s; every change was undone",
					    o.apply.failed_seq, strna(o.apply.failure))
				: strprintf("apply %s; every change was undone", strna(o.apply.failure)),
			    EXIT_ROLLED_BACK);
		break;
	case TXN_END_NOT_RESTORED:
		for (char **l = o.apply.left; l && *l; l++)
			log_error("NOT restored: %s", *l);
		if (strv_length(o.apply.left) == 0 && o.peer_left == HISTORY_PEER_TXN_UNKNOWN)
			log_error("transaction %" PRId64
				  " is rolled back here, but the peer's state is unknown "
				  "(its apply was cut short): run `cx5prof rollback`",
				  o.txn);
		else
			log_error("transaction %" PRId64
				  " could not be undone: fix the above, then run `cx5prof rollback %" PRId64
				  "`",
				  o.txn, o.txn);
		code = EXIT_ROLLBACK_FAILED;
		break;
	}
	if (code != EXIT_OK || cl->skipped)
		*ret_txn = *ret_peer_txn = 0;
	txn_outcome_done(&o);
	return code;
}

/* One round: plan, apply (here, then on the peer), verify, roll back.
 * EXIT_OK also when the group was skipped or the benchmark failed
 * (results, in the cell). A warm-up round is recorded, never counted. */
static int run_round(struct campaign_run *x, struct campaign_cell *cl, unsigned rep_no, bool warmup)
{
	_cleanup_profile_ struct profile *prof = NULL;
	_cleanup_plan_ struct plan *p = NULL;
	_cleanup_verify_report_ struct verify_report *rep = NULL;
	struct profile_error err = {0};
	int64_t txn = 0, peer_txn = 0;
	bool peer_reverted = false;
	int r, code;

	r = campaign_run_profile(x, cl->group, cl->sweep, &prof, &err);
	if (r < 0) {
		_cleanup_free_ char *msg = profile_error_format(&err);
		log_error("%s", msg ? msg : err.message);
		return profile_load_exit_code(r);
	}
	code = campaign_plan_round(prof, &p);
	if (code != EXIT_OK)
		return code;
	if (p->n_problems > 0) {
		cl->skipped = problems_text(p);
		cl->skipped_code = plan_problems_exit_code(p);
		log_warn("campaign: group %s skipped (exit %d): %s", x->c->groups[cl->group].name,
			 cl->skipped_code, strna(cl->skipped));
		return cl->skipped ? EXIT_OK : EXIT_ERROR;
	}
	code = apply_round(x, cl, prof, p, &txn, &peer_txn);
	if (code != EXIT_OK || cl->skipped)
		return code;
	if (!apply_interrupted()) {
		struct verify_options o = {
		    .profile = prof,
		    .source = x->c->groups[cl->group].path,
		    .transaction_id = txn,
		    .campaign_id = x->id,
		    .bench = true,
		    .history = x->h,
		    .interrupted = apply_interrupted,
		};
		r = verify_run(&o, &rep);
		if (r < 0) {
			log_error_errno(r, "verify %s: %m", o.source);
			(void)undo_round(x, prof, txn, peer_txn, NULL);
			return EXIT_ERROR;
		}
		if (rep->result.error)
			log_warn("campaign: %s, repetition %u: benchmark: %s", x->c->groups[cl->group].name,
				 rep_no, rep->result.error);
		if (rep->record_error)
			log_warn("campaign: the run was not recorded: %s", rep->record_error);
		if (rep->interrupted)
			log_warn("campaign: %s, repetition %u: not counted: %s", x->c->groups[cl->group].name,
				 rep_no, rep->interrupted);
	}
	code = undo_round(x, prof, txn, peer_txn, &peer_reverted);
	if (rep) {
		if (peer_reverted)
			log_warn("campaign: %s, repetition %u: the peer's transaction %" PRId64
				 " was rolled back during the round (its --confirm watchdog?): the round "
				 "does not count",
				 x->c->groups[cl->group].name, rep_no, peer_txn);
		cell_add_round(x, cl, rep_no, txn, rep, warmup, peer_reverted);
	}
	return code;
}

static int cells_init(struct campaign_run *x)
{
	x->n_cells = x->c->n_groups * campaign_sweeps(x->c);
	x->cells = calloc(x->n_cells, sizeof(*x->cells));
	if (!x->cells)
		return -ENOMEM;
	for (size_t g = 0; g < x->c->n_groups; g++)
		for (size_t s = 0; s < campaign_sweeps(x->c); s++) {
			struct campaign_cell *cl = &x->cells[g * campaign_sweeps(x->c) + s];
			_cleanup_profile_ struct profile *p = NULL;
			struct json_object *pj = NULL;

			cl->group = g;
			cl->sweep = s;
			cl->max_cpu_percent = -1;
			cl->max_cpu = -1;
			cl->peer_mtu = cl->peer_drops = -1;
			cl->duration = VERIFY_DEFAULT_DURATION_S;
			cl->recv = calloc(x->c->repeat, sizeof(double));
			cl->loss = calloc(x->c->repeat, sizeof(double));
			cl->rounds = json_object_new_array();
			if (!cl->recv || !cl->loss || !cl->rounds)
				return -ENOMEM;
			if (campaign_run_profile(x, g, s, &p, NULL) < 0)
				continue;
			if (p->verify.duration.set)
				cl->duration = (unsigned)p->verify.duration.value;
			if (profile_to_json(p, &pj) >= 0)
				cl->profile = pj;
		}
	return 0;
}

static void stats_done(struct campaign_run *x)
{
	verdict_done(&x->v);
	free(x->vgroups);
	free(x->vfamilies);
	x->vgroups = NULL;
	x->vfamilies = NULL;
}

void campaign_run_done(struct campaign_run *x)
{
	stats_done(x);
	for (size_t i = 0; i < x->n_cells; i++) {
		struct campaign_cell *cl = &x->cells[i];
		free(cl->skipped);
		free(cl->last_failure);
		free(cl->recv);
		free(cl->loss);
		json_object_put(cl->rounds);
		json_object_put(cl->drops);
		json_object_put(cl->profile);
	}
	free(x->cells);
	free(x->peer_down);
	strv_free(x->not_restored);
}

/* The level the verdict is read at: a fixed repeat at VERDICT_ALPHA;
 * repeat: auto at its last look so far (sequential.h), n the most
 * counted rounds of a group. */
static double verdict_level(const struct campaign_run *x)
{
	unsigned n = 0;

	if (!x->c->repeat_auto || !x->design.looks)
		return VERDICT_ALPHA;
	for (size_t i = 0; i < x->n_cells; i++)
		n = x->cells[i].n > n ? (unsigned)x->cells[i].n : n;
	return seq_level_at(&x->design, n);
}

/* The comparisons of the counted rounds so far, at the level alpha. */
static int stats_compute(struct campaign_run *x, double alpha)
{
	const struct campaign *c = x->c;

	stats_done(x);
	x->vgroups = calloc(x->n_cells, sizeof(*x->vgroups));
	x->vfamilies = calloc(c->ablation.n_families ? c->ablation.n_families : 1, sizeof(*x->vfamilies));
	if (!x->vgroups || !x->vfamilies)
		return -ENOMEM;
	for (size_t i = 0; i < x->n_cells; i++) {
		const struct campaign_cell *cl = &x->cells[i];
		const struct campaign_group *g = &c->groups[cl->group];
		x->vgroups[i] = (struct verdict_group){
		    .name = g->name,
		    .description = g->description,
		    .sweep = cl->sweep,
		    .sweep_value = campaign_sweep_value(c, cl->sweep),
		    .recv = cl->recv,
		    .loss = cl->loss,
		    .n = cl->n,
		    .skipped = cl->skipped,
		    .skipped_code = cl->skipped_code,
		    .thresholds_failed = verdict_thresholds_failed(cl->threshold_failures, cl->n),
		    .role = g->role,
		    .families = g->families,
		};
	}
	for (size_t f = 0; f < c->ablation.n_families; f++) {
		x->vfamilies[f] = (struct verdict_family){ablation_family_name(&c->ablation, f),
							  c->ablation.families[f].label, NULL};
		/* A family that cannot apply here: its group alone was skipped. */
		for (size_t g = 0; g < c->n_groups; g++)
			if (c->groups[g].families == 1u << f && c->groups[g].role == ROLE_ALONE)
				x->vfamilies[f].skipped = x->cells[g * campaign_sweeps(c)].skipped;
	}
	x->vin = (struct verdict_input){
	    .groups = x->vgroups,
	    .n_groups = x->n_cells,
	    .n_sweeps = campaign_sweeps(c),
	    .families = x->vfamilies,
	    .n_families = c->ablation.n_families,
	    .alpha = alpha,
	    .margin_recv = c->min_effect_recv,
	    .margin_loss = c->min_effect_loss,
	};
	x->level = alpha;
	return verdict_compute(&x->vin, &x->v);
}

/* What stopped the campaign: "SIGINT", or "a closed output (EPIPE)". */
const char *campaign_run_interruption(const struct campaign_run *x)
{
	static char sig[32];

	if (!apply_interrupted() && x->output_closed)
		return "a closed output (EPIPE)";
	snprintf(sig, sizeof(sig), "SIG%s", strna(sigabbrev_np(apply_interrupted())));
	return sig;
}

static bool stop_requested(const struct campaign_run *x)
{
	return apply_interrupted() || x->output_closed;
}

/* Seconds since the first round. */
static double elapsed_s(const struct campaign_run *x)
{
	return (double)(history_now_usec() - x->started_usec) / 1e6;
}

/* Would the next round of cl end after --budget? Its length is the
 * rounds' average so far, or the estimate before the first. */
static bool over_budget(const struct campaign_run *x, const struct campaign_cell *cl)
{
	double next =
	    x->rounds_run ? x->round_seconds / (double)x->rounds_run : cl->duration + ROUND_OVERHEAD_S;

	return x->c->budget_s && elapsed_s(x) + next > x->c->budget_s;
}

static int timed_round(struct campaign_run *x, struct campaign_cell *cl, unsigned rep_no, bool warmup)
{
	int64_t t0 = history_now_usec();
	int code;

	x->rounds_run++;
	code = run_round(x, cl, rep_no, warmup);
	x->round_seconds += (double)(history_now_usec() - t0) / 1e6;
	return code;
}

/* warmup: N rounds first, the groups in turn, recorded and not counted. */
static int run_warmup(struct campaign_run *x)
{
	size_t i = 0;

	for (unsigned w = 1; w <= x->c->warmup; w++, i++) {
		struct campaign_cell *cl;
		size_t tries = 0;
		int code;

		while (x->cells[i % x->n_cells].skipped && tries++ < x->n_cells)
			i++;
		cl = &x->cells[i % x->n_cells];
		if (cl->skipped)
			return EXIT_OK;
		if (stop_requested(x))
			return EXIT_ROLLED_BACK;
		if (over_budget(x, cl)) {
			x->stopped = RUN_STOP_BUDGET;
			return EXIT_OK;
		}
		code = timed_round(x, cl, w, true);
		if (code != EXIT_OK || stop_requested(x))
			return code != EXIT_OK ? code : EXIT_ROLLED_BACK;
	}
	return EXIT_OK;
}

/* The rounds, interleaved: every group (and sweep value) once per
 * repetition, in the campaign's order (alternate: reversed every other
 * repetition). repeat: auto looks after each repetition the design has a
 * look for (sequential.h) and stops once every throughput comparison is
 * decided. Stops at a caught signal, a closed output, the budget, or a
 * failure the host must not carry on from. */
int campaign_run_rounds(struct campaign_run *x)
{
	const struct campaign *c = x->c;
	_cleanup_free_ size_t *order = calloc(x->n_cells ? x->n_cells : 1, sizeof(*order));
	int code, r;

	if (!order)
		return log_error("out of memory"), EXIT_ERROR;
	apply_signals_install();
	x->started_usec = history_now_usec();
	code = run_warmup(x);
	if (code != EXIT_OK || x->stopped == RUN_STOP_BUDGET)
		return code;
	for (unsigned rep = 1; rep <= c->repeat; rep++) {
		seq_order(c->order, c->seed, rep, x->n_cells, order);
		for (size_t k = 0; k < x->n_cells; k++) {
			struct campaign_cell *cl = &x->cells[order[k]];
			if (cl->skipped)
				continue;
			if (stop_requested(x))
				return EXIT_ROLLED_BACK;
			if (over_budget(x, cl)) {
				x->stopped = RUN_STOP_BUDGET;
				return EXIT_OK;
			}
			x->repetitions = rep;
			code = timed_round(x, cl, rep, false);
			if (code != EXIT_OK)
				return code;
			if (stop_requested(x))
				return EXIT_ROLLED_BACK;
		}
		if (!c->repeat_auto || rep > SEQ_MAX_ROUNDS || x->design.level[rep] <= 0)
			continue;
		r = stats_compute(x, x->design.level[rep]);
		if (r < 0)
			return log_error_errno(r, "campaign: statistics: %m"), EXIT_ERROR;
		if (x->v.decided) {
			x->stopped = RUN_STOP_DECIDED;
			return EXIT_OK;
		}
	}
	x->stopped = c->repeat_auto ? RUN_STOP_MAX_ROUNDS : RUN_STOP_COMPLETE;
	return EXIT_OK;
}

/* The rounds to run and a rough duration, before the first: for repeat:
 * auto the most it may take. */
static void estimate(struct campaign_run *x)
{
	const struct campaign *c = x->c;
	size_t rounds = c->warmup, active = 0;
	double seconds = 0, per_rep = 0;

	for (size_t i = 0; i < x->n_cells; i++) {
		per_rep += x->cells[i].duration + ROUND_OVERHEAD_S;
		active++;
	}
	rounds += active * c->repeat;
	seconds = per_rep * c->repeat + (active ? c->warmup * per_rep / (double)active : 0);
	if (c->budget_s && seconds > c->budget_s)
		seconds = c->budget_s;
	x->rounds_planned = rounds;
	x->estimate_s = (unsigned)ceil(seconds);
	x->looks = 1;
	x->design = (struct seq_design){0};
	if (c->repeat_auto && stats_compute(x, VERDICT_ALPHA) >= 0) {
		unsigned need;
		size_t m;

		if (verdict_rounds_needed(&x->vin, &m, &need) >= 0 &&
		    seq_design(c->repeat, m ? m : 1, VERDICT_ALPHA, &x->design) >= 0)
			x->looks = x->design.looks;
	}
}

/* ---- the document ---- */

static struct json_object *num_or_null(double v)
{
	return isnan(v) || v < 0 ? NULL : json_object_new_double(v);
}

/* A round's limited_by when it counts (warm-up and excluded rounds do
 * not), else NULL. */
const char *campaign_round_limited_by(struct json_object *round)
{
	struct json_object *counted;

	if (json_object_object_get_ex(round, "counted", &counted) && !json_object_get_boolean(counted))
		return NULL;
	return json_object_get_string(json_object_object_get(round, "limited_by"));
}

/* What limited a group: the verdict of the most of its counted rounds'
 * ledgers (the first of equals), with how many rounds said so; NULL when
 * no counted round has one. */
static void limited_by_json(struct json_object *rounds, struct json_object *g)
{
	const char *best = NULL;
	int best_n = 0;

	for (size_t i = 0; rounds && i < json_object_array_length(rounds); i++) {
		const char *v = campaign_round_limited_by(json_object_array_get_idx(rounds, i));
		int n = 0;

		for (size_t k = 0; v && k < json_object_array_length(rounds); k++)
			n += streq_ptr(campaign_round_limited_by(json_object_array_get_idx(rounds, k)), v);
		if (n > best_n) {
			best = v;
			best_n = n;
		}
	}
	json_object_object_add(g, "limited_by", best ? json_object_new_string(best) : NULL);
	json_object_object_add(g, "limited_by_rounds", best ? json_object_new_int(best_n) : NULL);
}

/* An ablation group's families ["mtu", "sysctl"]; null for a file's group. */
static struct json_object *families_json(const struct campaign_run *x, const struct campaign_group *g)
{
	struct json_object *a;

	if (g->role == ROLE_GROUP)
		return NULL;
	a = json_object_new_array();
	for (size_t f = 0; f < x->c->ablation.n_families; f++)
		if (g->families & (1u << f))
			json_object_array_add(
			    a, json_object_new_string(ablation_family_name(&x->c->ablation, f)));
	return a;
}

static struct json_object *cell_json(const struct campaign_run *x, struct campaign_cell *cl,
				     double prev_median)
{
	const struct campaign_group *g = &x->c->groups[cl->group];
	struct json_object *o = json_object_new_object();
	double med = stats_median(cl->recv, cl->n);
	double lo = NAN, hi = NAN;
	char spread[64];

	for (size_t i = 0; i < cl->n; i++) {
		lo = isnan(lo) || cl->recv[i] < lo ? cl->recv[i] : lo;
		hi = isnan(hi) || cl->recv[i] > hi ? cl->recv[i] : hi;
	}
	if (!cl->spread_known)
		snprintf(spread, sizeof(spread), "n/a");
	else if (cl->interrupts == 0 || cl->max_cpu < 0)
		snprintf(spread, sizeof(spread), "no interrupts");
	else
		snprintf(spread, sizeof(spread), "max cpu%d %.0f%%", cl->max_cpu, cl->max_cpu_percent);
	json_object_object_add(o, "group", json_object_new_string(g->name));
	json_object_object_add(o, "file", json_object_new_string(g->path));
	json_object_object_add(o, "description",
			       g->description ? json_object_new_string(g->description) : NULL);
	json_object_object_add(o, "sweep_value",
			       x->c->n_sweep ? json_object_new_string(campaign_sweep_value(x->c, cl->sweep))
					     : NULL);
	json_object_object_add(o, "skipped", cl->skipped ? json_object_new_string(cl->skipped) : NULL);
	json_object_object_add(o, "skipped_exit_code",
			       cl->skipped ? json_object_new_int(cl->skipped_code) : NULL);
	json_object_object_add(o, "median_recv_mbps", num_or_null(med));
	json_object_object_add(o, "min_recv_mbps", num_or_null(lo));
	json_object_object_add(o, "max_recv_mbps", num_or_null(hi));
	json_object_object_add(o, "median_loss_percent", num_or_null(stats_median(cl->loss, cl->n)));
	json_object_object_add(o, "irq_spread", json_object_new_string(spread));
	json_object_object_add(o, "irq_max_cpu_percent", num_or_null(cl->max_cpu_percent));
	json_object_object_add(o, "drops", json_object_get(cl->drops));
	json_object_object_add(o, "peer_mtu", cl->peer_mtu >= 0 ? json_object_new_int64(cl->peer_mtu) : NULL);
	json_object_object_add(o, "peer_drops",
			       cl->peer_drops >= 0 ? json_object_new_int64(cl->peer_drops) : NULL);
	json_object_object_add(o, "change_percent",
			       isnan(med) || isnan(prev_median) || prev_median <= 0
				   ? NULL
				   : json_object_new_double(100.0 * (med - prev_median) / prev_median));
	json_object_object_add(o, "rounds_counted", json_object_new_int((int)cl->n));
	json_object_object_add(o, "rounds_excluded", json_object_new_int((int)cl->excluded));
	json_object_object_add(
	    o, "thresholds",
	    cl->n == 0 ? NULL
		       : json_object_new_string(
			     verdict_thresholds_failed(cl->threshold_failures, cl->n) ? "failed" : "passed"));
	json_object_object_add(o, "role", json_object_new_string(verdict_role_to_string(g->role)));
	json_object_object_add(o, "families", families_json(x, g));
	json_object_object_add(o, "profile", json_object_get(cl->profile));
	json_object_object_add(o, "rounds", json_object_get(cl->rounds));
	limited_by_json(cl->rounds, o);
	return o;
}

/* Index of the cell --keep names, or -1: best is the verdict's group
 * (the highest median among the winners of each sweep value). */
static int keep_cell(const struct campaign_run *x, enum campaign_keep k)
{
	int found = -1;
	double best = -1;

	for (size_t i = 0; i < x->n_cells; i++) {
		const struct campaign_cell *cl = &x->cells[i];
		double m = stats_median(cl->recv, cl->n);
		bool winner = false;

		if (cl->skipped || cl->n == 0)
			continue;
		if (k == CAMPAIGN_KEEP_BEST && x->c->keep_sweep &&
		    !streq(x->c->keep_sweep, strempty(campaign_sweep_value(x->c, cl->sweep))))
			continue;
		for (size_t s = 0; s < campaign_sweeps(x->c); s++)
			winner |= x->v.best && x->v.best[s] == (int)i;
		if (k == CAMPAIGN_KEEP_FIRST && found < 0)
			found = (int)i;
		if (k == CAMPAIGN_KEEP_LAST)
			found = (int)i;
		if (k == CAMPAIGN_KEEP_BEST && winner && m > best) {
			best = m;
			found = (int)i;
		}
	}
	return found;
}

static struct json_object *statistics_json(const struct campaign_run *x)
{
	struct json_object *o = json_object_new_object(), *rounds = json_object_new_array(),
			   *margin = json_object_new_object();

	for (unsigned n = 1; x->c->repeat_auto && n <= x->design.max_rounds; n++)
		if (x->design.level[n] > 0)
			json_object_array_add(rounds, json_object_new_int((int)n));
	json_object_object_add(margin, "throughput_percent", json_object_new_double(x->c->min_effect_recv));
	json_object_object_add(margin, "loss_points", json_object_new_double(x->c->min_effect_loss));
	json_object_object_add(o, "method", json_object_new_string("hodges-lehmann"));
	json_object_object_add(o, "interval", json_object_new_string("mann-whitney"));
	json_object_object_add(o, "correction", json_object_new_string("holm"));
	json_object_object_add(o, "alpha", json_object_new_double(VERDICT_ALPHA));
	json_object_object_add(o, "alpha_both", json_object_new_double(2 * VERDICT_ALPHA));
	json_object_object_add(o, "spending",
			       x->c->repeat_auto ? json_object_new_string(SEQ_SPENDING_NAME) : NULL);
	json_object_object_add(o, "looks", json_object_new_int((int)x->looks));
	json_object_object_add(o, "look_rounds", rounds);
	json_object_object_add(o, "level", json_object_new_double(x->level > 0 ? x->level : VERDICT_ALPHA));
	json_object_object_add(o, "min_effect", margin);
	json_object_object_add(o, "order", json_object_new_string(seq_order_to_string(x->c->order)));
	json_object_object_add(o, "seed", x->c->seed_set ? json_object_new_int64((int64_t)x->c->seed) : NULL);
	json_object_object_add(o, "comparisons", json_object_new_int((int)x->v.n_cmp));
	return o;
}

static struct json_object *ablation_json(const struct campaign_run *x)
{
	struct json_object *o;

	if (!x->c->ablate)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "profile", json_object_new_string(x->c->ablate));
	json_object_object_add(o, "families", verdict_families_json(&x->vin, &x->v));
	return o;
}

static struct json_object *campaign_doc(const struct campaign_run *x, enum campaign_status status, int code,
					int64_t kept_txn, const char *kept_group)
{
	struct json_object *o = json_object_new_object(), *groups = json_object_new_array(), *sw = NULL, *nr;
	_cleanup_free_ char *verdict = NULL;

	for (size_t i = 0; i < x->n_cells; i++) {
		double prev = NAN;
		/* the previous measured group with the same sweep value */
		for (size_t g = x->cells[i].group; g-- > 0;) {
			const struct campaign_cell *pc =
			    &x->cells[g * campaign_sweeps(x->c) + x->cells[i].sweep];
			if (pc->n) {
				prev = stats_median(pc->recv, pc->n);
				break;
			}
		}
		json_object_array_add(groups, cell_json(x, &x->cells[i], prev));
	}
	verdict = verdict_line(&x->vin, &x->v);
	if (x->c->n_sweep) {
		struct json_object *vals = json_object_new_array();
		sw = json_object_new_object();
		for (size_t s = 0; s < x->c->n_sweep; s++)
			json_object_array_add(vals, json_object_new_string(campaign_sweep_value(x->c, s)));
		json_object_object_add(sw, "key", json_object_new_string(x->c->sweep_key));
		json_object_object_add(sw, "values", vals);
	}
	json_object_object_add(o, "campaign", json_object_new_int64(x->id));
	json_object_object_add(o, "name", json_object_new_string(x->c->name));
	json_object_object_add(o, "file", json_object_new_string(x->c->file));
	json_object_object_add(o, "status", json_object_new_string(campaign_status_to_string(status)));
	json_object_object_add(o, "exit_code", json_object_new_int(code));
	json_object_object_add(o, "repeat", json_object_new_int((int)x->c->repeat));
	json_object_object_add(o, "repeat_auto", json_object_new_boolean(x->c->repeat_auto));
	json_object_object_add(o, "repetitions", json_object_new_int((int)x->repetitions));
	json_object_object_add(o, "warmup", json_object_new_int((int)x->c->warmup));
	json_object_object_add(o, "budget_s",
			       x->c->budget_s ? json_object_new_int((int)x->c->budget_s) : NULL);
	json_object_object_add(o, "stopped", json_object_new_string(stop_names[x->stopped]));
	json_object_object_add(o, "estimated_s", json_object_new_int((int)x->estimate_s));
	json_object_object_add(o, "elapsed_s", json_object_new_double(x->started_usec ? elapsed_s(x) : 0));
	json_object_object_add(o, "started_usec",
			       x->started_usec ? json_object_new_int64(x->started_usec) : NULL);
	json_object_object_add(o, "ended_usec", json_object_new_int64(history_now_usec()));
	json_object_object_add(o, "sweep", sw);
	json_object_object_add(o, "runs", json_object_new_int64((int64_t)x->runs));
	json_object_object_add(o, "groups", groups);
	json_object_object_add(o, "statistics", statistics_json(x));
	json_object_object_add(o, "comparisons", verdict_comparisons_json(&x->vin, &x->v));
	json_object_object_add(o, "best", verdict_best_json(&x->vin, &x->v));
	json_object_object_add(o, "ablation", ablation_json(x));
	json_object_object_add(o, "verdict", verdict ? json_object_new_string(verdict) : NULL);
	json_object_object_add(o, "kept_group", kept_group ? json_object_new_string(kept_group) : NULL);
	json_object_object_add(o, "kept_transaction", kept_txn ? json_object_new_int64(kept_txn) : NULL);
	nr = json_object_new_array();
	for (char **l = x->not_restored; l && *l; l++)
		json_object_array_add(nr, json_object_new_string(*l));
	json_object_object_add(o, "restored", json_object_new_boolean(!x->not_restored));
	json_object_object_add(o, "not_restored", nr);
	return o;
}

/* A fixed repeat below the rounds Holm's correction needs for its
 * comparisons can never reach a verdict: say so before the first round
 * (the rounds would only end in "more rounds needed"). */
static void warn_undecidable(struct campaign_run *x)
{
	const struct campaign *c = x->c;
	unsigned need;
	size_t n;

	if (c->repeat_auto || stats_compute(x, VERDICT_ALPHA) < 0 ||
	    verdict_rounds_needed(&x->vin, &n, &need) < 0 || n == 0)
		return;
	if (need == 0)
		log_warn("repeat %u can never decide: %zu throughput comparisons under Holm's "
			 "correction need more than %d rounds per group: use fewer groups",
			 c->repeat, n, STATS_EXACT_MAX_N);
	else if (c->repeat < need)
		log_warn("repeat %u can never decide: %zu throughput comparison%s under Holm's "
			 "correction need%s at least %u rounds per group: use repeat: auto (with max_rounds) "
			 "or repeat: %u",
			 c->repeat, n, n == 1 ? "" : "s", n == 1 ? "s" : "", need, need);
}

/* Plan a group's profile against this host now: *ret_why NULL when it
 * would apply, else why not (and *ret_code). */
int campaign_check_group(const struct profile *p, char **ret_why, int *ret_code)
{
	_cleanup_plan_ struct plan *pl = NULL;
	int code;

	*ret_why = NULL;
	*ret_code = EXIT_OK;
	code = campaign_plan_round(p, &pl);
	if (code != EXIT_OK)
		return code;
	if (pl->n_problems > 0) {
		*ret_why = problems_text(pl);
		*ret_code = plan_problems_exit_code(pl);
		if (!*ret_why)
			return EXIT_ERROR;
	}
	return EXIT_OK;
}

/* --keep: apply the chosen group again, as its own transaction, exactly
 * as `apply` of its file would: the boot-time unit planned the same way
 * (so a kept group persists exactly when an applied one would), the peer
 * tuned after this host and committed before it, and any failure up to
 * the commit undone on both ends. */
static int keep_group(struct campaign_run *x, enum campaign_keep k, int64_t *ret_txn, const char **ret_group)
{
	_cleanup_profile_ struct profile *prof = NULL;
	char msg[512] = "";
	int i = keep_cell(x, k), code;

	if (k == CAMPAIGN_KEEP_NONE)
		return EXIT_OK;
	if (i < 0 && k == CAMPAIGN_KEEP_BEST) {
		log_warn(
		    "campaign: --keep best: no group was clearly better than the baseline (see the verdict): "
		    "nothing kept, every group rolled back");
		return EXIT_OK;
	}
	if (i < 0) {
		log_warn("campaign: --keep %s: no group was measured: every group rolled back",
			 campaign_keep_names[k]);
		return EXIT_OK;
	}
	if (campaign_run_profile(x, x->cells[i].group, x->cells[i].sweep, &prof, NULL) < 0)
		return EXIT_ERROR;
	if (x->c->n_sweep)
		snprintf(msg, sizeof(msg),
			 "not persistent: the kept group has %s = %s, which its file %s does not say; the "
			 "changes last until the next reboot",
			 x->c->sweep_key, campaign_sweep_value(x->c, x->cells[i].sweep),
			 x->c->groups[x->cells[i].group].path);
	code = campaign_apply_committed(x, prof, x->c->groups[x->cells[i].group].path,
					x->c->n_sweep ? msg : NULL, ret_txn);
	if (code != EXIT_OK)
		log_error("campaign: --keep %s: group %s not kept", campaign_keep_names[k],
			  x->c->groups[x->cells[i].group].name);
	else
		*ret_group = x->c->groups[x->cells[i].group].name;
	return code;
}

int campaign_apply_committed(struct campaign_run *x, const struct profile *prof, const char *path,
			     const char *not_persistent, int64_t *ret_txn)
{
	_cleanup_plan_ struct plan *p = NULL;
	struct txn_outcome o = {0};
	char msg[512] = "";
	int code, r;

	code = campaign_plan_round(prof, &p);
	if (code != EXIT_OK)
		return code;
	r = not_persistent ? strv_pushf(&p->warnings, "%s", not_persistent) : plan_boot_unit(p, path);
	if (r < 0) {
		log_error_errno(r, "cannot plan %s: %m", path);
		return EXIT_ERROR;
	}
	report_problems(p);
	if (p->n_problems > 0)
		return plan_problems_exit_code(p);
	struct txn_request q = {
	    .profile = prof,
	    .plan = p,
	    .db_path = x->db_path,
	    .commit = TXN_COMMIT_NOW,
	    .peer = peerssh_wanted(prof),
	    .say = x->say,
	};
	if (txn_run(&x->h, &q, &o) < 0)
		return EXIT_ERROR;
	code = x->outcome(&o, 0, msg, sizeof(msg));
	note_left(x, o.txn, o.apply.left, o.peer_left);
	if (code == EXIT_OK)
		*ret_txn = o.txn;
	txn_outcome_done(&o);
	return code;
}

static int campaign_exit_code(const struct campaign_run *x)
{
	size_t skipped = 0;
	int code = EXIT_OK;

	for (size_t i = 0; i < x->n_cells; i++) {
		skipped += x->cells[i].skipped != NULL;
		if (x->cells[i].failed_round)
			code = EXIT_ERROR;
	}
	if (skipped == x->n_cells)
		return x->cells[0].skipped_code;
	return code;
}

int campaign_run_prepare(struct campaign_run *x)
{
	int r = cells_init(x);

	if (r < 0)
		return r;
	estimate(x);
	warn_undecidable(x);
	return 0;
}

int campaign_run_start(struct campaign_run *x)
{
	int r = campaigns_interrupt_stale(x->h, history_now_usec());

	if (r > 0)
		log_info(
		    "campaign: %d campaign%s left running by a cx5prof that died recorded as interrupted", r,
		    r == 1 ? "" : "s");
	if (r < 0)
		return r;
	return campaigns_start(x->h, x->c->name, x->c->file, &x->id);
}

int campaign_run_finish(struct campaign_run *x, int code, enum campaign_keep keep,
			struct json_object **ret_doc)
{
	enum campaign_status status;
	const char *kept_group = NULL;
	int64_t kept_txn = 0;
	struct json_object *doc;
	int r, keep_code;

	r = stats_compute(x, verdict_level(x));
	if (r < 0) {
		log_error_errno(r, "campaign: statistics: %m");
		if (code == EXIT_OK)
			code = EXIT_ERROR;
	}
	if ((code == EXIT_ROLLED_BACK || apply_interrupted() || x->output_closed) && x->not_restored) {
		log_error("campaign %" PRId64 " interrupted by %s: the host is NOT as before the campaign "
			  "(see the host line)",
			  x->id, campaign_run_interruption(x));
		code = EXIT_ROLLBACK_FAILED;
		status = CAMPAIGN_INTERRUPTED;
		x->stopped = RUN_STOP_INTERRUPTED;
	} else if (code == EXIT_ROLLED_BACK) {
		log_error("campaign %" PRId64
			  " interrupted by %s: the round in progress was rolled back; the "
			  "host is as before the campaign",
			  x->id, campaign_run_interruption(x));
		status = CAMPAIGN_INTERRUPTED;
		x->stopped = RUN_STOP_INTERRUPTED;
	} else if (code != EXIT_OK) {
		status = CAMPAIGN_FAILED;
		x->stopped = RUN_STOP_FAILED;
	} else {
		status = CAMPAIGN_DONE;
		keep_code = keep_group(x, keep, &kept_txn, &kept_group);
		code = keep_code != EXIT_OK ? keep_code : campaign_exit_code(x);
	}
	if (x->not_restored && code != EXIT_ROLLBACK_FAILED)
		code = EXIT_ROLLBACK_FAILED;
	doc = campaign_doc(x, status, code, kept_txn, kept_group);
	r = !x->h ? -EBADF
	    : doc ? campaigns_finish(x->h, x->id, status,
				     json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
									     JSON_C_TO_STRING_NOSLASHESCAPE))
		  : -ENOMEM;
	if (r < 0) {
		/* Its rounds are recorded, its outcome is not: never exit 0. */
		log_error("history %s: the campaign's summary was not recorded: %s (its rounds are; "
			  "the history still says it is running)",
			  x->db_path, strerror(-r));
		if (code == EXIT_OK)
			code = EXIT_ERROR;
	}
	*ret_doc = doc;
	return code;
}
