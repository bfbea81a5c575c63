/* verb_campaign.c: `cx5prof campaign FILE [--report DIR] [--keep WHICH]
 * [--check]`.
 *
 * Owns: running a campaign's rounds in order (repetitions interleaved: g1
 * g2 g3 g1 g2 g3 ...), each from the state before the campaign: plan the
 * round's profile, apply it as a transaction, verify it (a run tagged with
 * the campaign), roll the transaction back; groups that cannot apply are
 * skipped with the reason; SIGINT/SIGTERM stop after the current round and
 * roll it back. The campaign document (schemas/campaign.schema.json): the
 * --json output, campaign.json and the history record are one object, and
 * the table people read is printed from it. Must never: fork cx5prof, leave
 * a round's transaction applied (unless --keep asks for one group, applied
 * again at the end as its own transaction), or change the host before the
 * round's undo log is on disk (txn_verb_apply). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>

#include "apply.h"
#include "txn.h"
#include "base/log.h"
#include "base/output.h"
#include "campaignfile.h"
#include "mirror.h"
#include "kinds/kinds.h"
#include "os/probe.h"
#include "peerssh.h"
#include "plan.h"
#include "runfacts.h"
#include "store/campaigns.h"
#include "store/history.h"
#include "store/lock.h"
#include "store/runs.h"
#include "verb_txn.h"
#include "verbs.h"
#include "verify.h"

enum { OPT_REPORT = 1000, OPT_KEEP, OPT_CHECK, OPT_PEER, OPT_SSH_COMMANDS };

enum keep { KEEP_NONE, KEEP_FIRST, KEEP_LAST, KEEP_BEST };
static const char *const keep_names[] = {"none", "first", "last", "best", NULL};

const struct cli_option campaign_options[] = {
    {"report", CLI_ARG_REQUIRED, OPT_REPORT, "DIR",
     "write report.html, report.svg, campaign.json and one export bundle per run into DIR (created; must be "
     "empty)"},
    {"keep", CLI_ARG_REQUIRED, OPT_KEEP, "WHICH",
     "none (default): the host ends as it began; first, last or best: that group stays applied"},
    {"peer", CLI_ARG_REQUIRED, OPT_PEER, "ADDR",
     "benchmark against ADDR instead of verify.peer (every group)"},
    {"check", CLI_ARG_NONE, OPT_CHECK, NULL, "check the campaign file and print its rounds; change nothing"},
    {"allow-ssh-commands", CLI_ARG_NONE, OPT_SSH_COMMANDS, NULL,
     "let peer.ssh_config run commands here (ProxyCommand, LocalCommand, Match exec...)"},
    {0},
};

struct campaign_args {
	const char *peer;
	const char *report;
	enum keep keep;
	bool check;
};

static int handle_option(int id, const char *arg, void *userdata)
{
	struct campaign_args *a = userdata;

	switch (id) {
	case OPT_REPORT:
		a->report = arg;
		return 0;
	case OPT_PEER:
		if (!profile_peer_valid(arg)) {
			log_error("campaign: --peer '%s' is not an IP address or a host name", arg);
			return EXIT_USAGE;
		}
		a->peer = arg;
		return 0;
	case OPT_CHECK:
		a->check = true;
		return 0;
	case OPT_SSH_COMMANDS:
		peerssh_allow_commands(true);
		return 0;
	case OPT_KEEP:
		for (int i = 0; keep_names[i]; i++)
			if (streq(arg, keep_names[i])) {
				a->keep = (enum keep)i;
				return 0;
			}
		log_error("campaign: --keep takes none, first, last or best, not '%s'", arg);
		return EXIT_USAGE;
	}
	return EXIT_USAGE;
}

/* One group with one sweep value: a row of the table. */
struct cell {
	size_t group, sweep;
	char *skipped; /* why it could not apply, or NULL */
	int skipped_code;
	double *recv, *loss; /* the measured rounds' figures */
	size_t n;
	struct json_object *rounds; /* array */
	struct json_object *drops;  /* counter -> summed delta over the rounds; NULL: no counters */
	struct json_object *profile;
	double max_cpu_percent; /* the worst round's largest single-CPU share; -1 unknown */
	int max_cpu;
	uint64_t interrupts;
	bool spread_known;
	bool failed_round;  /* a round could not measure */
	int64_t peer_mtu;   /* the peer's MTU in the last round it answered STATE; -1 none */
	int64_t peer_drops; /* its drop counters' rise summed over the rounds; -1 unknown */
};

struct run_ctx {
	const struct cli *cli;
	struct campaign *c;
	const char *peer; /* --peer, or NULL */
	struct history *h;
	int64_t id;
	int64_t started_usec;
	struct cell *cells;
	size_t n_cells;
	size_t runs;
	int signal;
	char *peer_down;     /* the peer's ssh failed in a round: why; its later rounds are not tried */
	char **not_restored; /* what a failed undo left, on either host: one line each */
};

static size_t sweeps(const struct campaign *c)
{
	return c->n_sweep ? c->n_sweep : 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(const double *v, size_t n)
{
	_cleanup_free_ double *s = NULL;

	if (n == 0 || !(s = malloc(n * sizeof(*s))))
		return NAN;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void cell_add_drops(struct cell *cl, const struct verify_report *rep)
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

/* What one round measured, into its cell. */
/* peer_reverted: the peer was not as the group wants for the whole round
 * (its transaction was rolled back under it): the round does not count. */
static void cell_add_round(struct run_ctx *x, struct cell *cl, unsigned rep_no, int64_t txn,
			   const struct verify_report *rep, bool peer_reverted)
{
	struct json_object *o = json_object_new_object();
	bool measured = rep->bench_ran && rep->bench_r >= 0 && !peer_reverted;
	int64_t peer_mtu, peer_drops;

	json_object_object_add(o, "repetition", json_object_new_int(rep_no));
	json_object_object_add(o, "run", rep->run_id ? json_object_new_int64(rep->run_id) : NULL);
	json_object_object_add(o, "transaction", txn ? json_object_new_int64(txn) : NULL);
	json_object_object_add(o, "result", json_object_new_string(verify_result_word(rep)));
	json_object_object_add(o, "recv_mbps",
			       measured ? json_object_new_double(rep->result.recv_mbps) : NULL);
	json_object_object_add(o, "loss_percent",
			       measured ? json_object_new_double(rep->result.loss_percent) : NULL);
	json_object_object_add(o, "error",
			       peer_reverted
				   ? json_object_new_string("the peer's transaction was rolled back during "
							    "the round: not counted")
			       : rep->result.error  ? json_object_new_string(rep->result.error)
			       : rep->bench_skipped ? json_object_new_string(rep->bench_skipped)
						    : NULL);
	json_object_object_add(o, "peer_reverted", json_object_new_boolean(peer_reverted));
	peer_figures(rep->result.peer_state, &peer_mtu, &peer_drops);
	json_object_object_add(o, "peer_mtu", peer_mtu >= 0 ? json_object_new_int64(peer_mtu) : NULL);
	json_object_object_add(o, "peer_drops", peer_drops >= 0 ? json_object_new_int64(peer_drops) : NULL);
	json_object_object_add(o, "thresholds", runfacts_thresholds(rep));
	json_object_object_add(o, "drops", runfacts_drops(rep));
	json_object_array_add(cl->rounds, o);
	if (peer_mtu >= 0)
		cl->peer_mtu = peer_mtu;
	if (peer_drops >= 0)
		cl->peer_drops = (cl->peer_drops < 0 ? 0 : cl->peer_drops) + peer_drops;
	if (rep->run_id)
		x->runs++;
	if (!measured) {
		cl->failed_round = true;
		return;
	}
	cl->recv[cl->n] = rep->result.recv_mbps;
	cl->loss[cl->n++] = rep->result.loss_percent;
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
static int round_profile(const struct run_ctx *x, size_t g, size_t s, struct profile **ret,
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
static int plan_round(const struct profile *prof, struct plan **ret_plan)
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

static void note_not_restored(struct run_ctx *x, const char *fmt, ...) _printf_(2, 3);

static void note_not_restored(struct run_ctx *x, const char *fmt, ...)
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
static void note_left(struct run_ctx *x, int64_t txn, char **left, int64_t peer_txn)
{
	for (char **l = left; l && *l; l++)
		note_not_restored(x, "this host, transaction %" PRId64 ": %s", txn, *l);
	if (peer_txn > 0)
		note_not_restored(
		    x, "the peer: its transaction %" PRId64 " (`cx5prof rollback` here tries again)",
		    peer_txn);
}

/* Roll a round back: the peer's transaction first, then this host's.
 * *ret_peer_reverted: the peer had nothing left to roll back (its
 * watchdog, or someone, undid it during the round). */
static int undo_round(struct run_ctx *x, const struct profile *prof, int64_t txn, int64_t peer_txn,
		      bool *ret_peer_reverted)
{
	struct txn_undo_outcome u = {0};
	_cleanup_free_ char *reason = strprintf("campaign %" PRId64 ": the round is over", x->id);
	int r;

	if (!txn && !peer_txn)
		return EXIT_OK;
	r = txn_undo(x->h, txn, prof, peer_txn, reason ? reason : "campaign round over", txn_verb_say, &u);
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
static int skip_cell(struct run_ctx *x, struct cell *cl, char *why, int code)
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
static int apply_round(struct run_ctx *x, struct cell *cl, const struct profile *prof, const struct plan *p,
		       int64_t *ret_txn, int64_t *ret_peer_txn)
{
	struct txn_outcome o = {0};
	struct txn_request q = {
	    .profile = prof,
	    .plan = p,
	    .db_path = x->cli->db_path,
	    .commit = TXN_COMMIT_NEVER,
	    .peer = peerssh_wanted(prof),
	    .peer_confirm = round_peer_confirm(prof),
	    .say = txn_verb_say,
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
		log_error("transaction %" PRId64
			  " could not be undone: fix the above, then run `cx5prof rollback %" PRId64 "`",
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
 * (results, in the cell). */
static int run_round(struct run_ctx *x, struct cell *cl, unsigned rep_no)
{
	_cleanup_profile_ struct profile *prof = NULL;
	_cleanup_plan_ struct plan *p = NULL;
	_cleanup_verify_report_ struct verify_report *rep = NULL;
	struct profile_error err = {0};
	int64_t txn = 0, peer_txn = 0;
	bool peer_reverted = false;
	int r, code;

	r = round_profile(x, cl->group, cl->sweep, &prof, &err);
	if (r < 0) {
		_cleanup_free_ char *msg = profile_error_format(&err);
		log_error("%s", msg ? msg : err.message);
		return profile_load_exit_code(r);
	}
	code = plan_round(prof, &p);
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
	}
	code = undo_round(x, prof, txn, peer_txn, &peer_reverted);
	if (rep) {
		if (peer_reverted)
			log_warn("campaign: %s, repetition %u: the peer's transaction %" PRId64
				 " was rolled back during the round (its --confirm watchdog?): the round "
				 "does not count",
				 x->c->groups[cl->group].name, rep_no, peer_txn);
		cell_add_round(x, cl, rep_no, txn, rep, peer_reverted);
	}
	return code;
}

static int cells_init(struct run_ctx *x)
{
	x->n_cells = x->c->n_groups * sweeps(x->c);
	x->cells = calloc(x->n_cells, sizeof(*x->cells));
	if (!x->cells)
		return -ENOMEM;
	for (size_t g = 0; g < x->c->n_groups; g++)
		for (size_t s = 0; s < sweeps(x->c); s++) {
			struct cell *cl = &x->cells[g * sweeps(x->c) + s];
			_cleanup_profile_ struct profile *p = NULL;
			struct json_object *pj = NULL;

			cl->group = g;
			cl->sweep = s;
			cl->max_cpu_percent = -1;
			cl->max_cpu = -1;
			cl->peer_mtu = cl->peer_drops = -1;
			cl->recv = calloc(x->c->repeat, sizeof(double));
			cl->loss = calloc(x->c->repeat, sizeof(double));
			cl->rounds = json_object_new_array();
			if (!cl->recv || !cl->loss || !cl->rounds)
				return -ENOMEM;
			if (round_profile(x, g, s, &p, NULL) >= 0 && profile_to_json(p, &pj) >= 0)
				cl->profile = pj;
		}
	return 0;
}

static void cells_free(struct run_ctx *x)
{
	for (size_t i = 0; i < x->n_cells; i++) {
		struct cell *cl = &x->cells[i];
		free(cl->skipped);
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

/* The rounds, interleaved: every group (and sweep value) once per
 * repetition. Stops at a caught signal or a failure the host must not
 * carry on from. */
static int run_rounds(struct run_ctx *x)
{
	int code = EXIT_OK;

	apply_signals_install();
	for (unsigned rep = 1; rep <= x->c->repeat; rep++)
		for (size_t i = 0; i < x->n_cells; i++) {
			struct cell *cl = &x->cells[i];
			if (cl->skipped)
				continue;
			if (apply_interrupted())
				return EXIT_ROLLED_BACK;
			code = run_round(x, cl, rep);
			if (code != EXIT_OK)
				return code;
			if (apply_interrupted())
				return EXIT_ROLLED_BACK;
		}
	return code;
}

/* ---- the document ---- */

static struct json_object *num_or_null(double v)
{
	return isnan(v) || v < 0 ? NULL : json_object_new_double(v);
}

static struct json_object *cell_json(const struct run_ctx *x, struct cell *cl, double prev_median)
{
	const struct campaign_group *g = &x->c->groups[cl->group];
	struct json_object *o = json_object_new_object();
	double med = median(cl->recv, cl->n);
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
	json_object_object_add(o, "median_loss_percent", num_or_null(median(cl->loss, cl->n)));
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
	json_object_object_add(o, "profile", json_object_get(cl->profile));
	json_object_object_add(o, "rounds", json_object_get(cl->rounds));
	return o;
}

static double jdouble(struct json_object *o, const char *key)
{
	struct json_object *v;
	return json_object_object_get_ex(o, key, &v) && v ? json_object_get_double(v) : NAN;
}

static const char *jstring(struct json_object *o, const char *key)
{
	struct json_object *v;
	return json_object_object_get_ex(o, key, &v) && v ? json_object_get_string(v) : NULL;
}

/* "mtu-jumbo (MTU 9000 only) helped most: +136% median receive throughput
 * over baseline", per sweep value. */
static char *verdict_text(const struct run_ctx *x, struct json_object *groups)
{
	char *out = NULL;

	for (size_t s = 0; s < sweeps(x->c); s++) {
		struct json_object *best = NULL;
		const char *before = NULL, *prev = NULL;
		double best_change = 0;
		size_t measured = 0;
		char *line, *t;

		for (size_t g = 0; g < x->c->n_groups; g++) {
			struct json_object *o = json_object_array_get_idx(groups, g * sweeps(x->c) + s);
			double ch = jdouble(o, "change_percent");
			if (!isnan(ch) && ch > best_change) {
				best_change = ch;
				best = o;
				before = prev;
			}
			if (!isnan(jdouble(o, "median_recv_mbps"))) {
				prev = jstring(o, "group");
				measured++;
			}
		}
		if (measured == 0)
			line = strprintf("no group was measured");
		else if (measured == 1)
			line = strprintf("only %s was measured: nothing to compare", prev);
		else if (best)
			line = strprintf("%s%s%s%s helped most: %+.0f%% median receive throughput over %s",
					 jstring(best, "group"), jstring(best, "description") ? " (" : "",
					 jstring(best, "description") ? jstring(best, "description") : "",
					 jstring(best, "description") ? ")" : "", best_change, strna(before));
		else
			line = strprintf("no group improved on the one before it");
		if (x->c->n_sweep && line) {
			t = strprintf("%s = %s: %s", x->c->sweep_key, campaign_sweep_value(x->c, s), line);
			free(line);
			line = t;
		}
		t = strprintf("%s%s%s", out ? out : "", out ? "; " : "", line ? line : "");
		free(out);
		free(line);
		out = t;
	}
	return out;
}

/* Index of the cell --keep names, or -1. */
static int keep_cell(const struct run_ctx *x, enum keep k)
{
	int found = -1;
	double best = -1;

	for (size_t i = 0; i < x->n_cells; i++) {
		const struct cell *cl = &x->cells[i];
		double m = median(cl->recv, cl->n);
		if (cl->skipped || cl->n == 0)
			continue;
		if (k == KEEP_FIRST && found < 0)
			found = (int)i;
		if (k == KEEP_LAST)
			found = (int)i;
		if (k == KEEP_BEST && m > best) {
			best = m;
			found = (int)i;
		}
	}
	return found;
}

static struct json_object *campaign_doc(const struct run_ctx *x, enum campaign_status status, int code,
					int64_t kept_txn, const char *kept_group)
{
	struct json_object *o = json_object_new_object(), *groups = json_object_new_array(), *sw = NULL, *nr;
	_cleanup_free_ char *verdict = NULL;

	for (size_t i = 0; i < x->n_cells; i++) {
		double prev = NAN;
		/* the previous measured group with the same sweep value */
		for (size_t g = x->cells[i].group; g-- > 0;) {
			const struct cell *pc = &x->cells[g * sweeps(x->c) + x->cells[i].sweep];
			if (pc->n) {
				prev = median(pc->recv, pc->n);
				break;
			}
		}
		json_object_array_add(groups, cell_json(x, &x->cells[i], prev));
	}
	verdict = verdict_text(x, groups);
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
	json_object_object_add(o, "sweep", sw);
	json_object_object_add(o, "runs", json_object_new_int64((int64_t)x->runs));
	json_object_object_add(o, "started_usec", json_object_new_int64(x->started_usec));
	json_object_object_add(o, "ended_usec", json_object_new_int64(history_now_usec()));
	json_object_object_add(o, "groups", groups);
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

/* "peer        baseline mtu 1500 drops none, jumbo mtu 9000 drops +12":
 * the peer's state per group, when `serve` gave it. */
static void render_peer_line(struct json_object *groups)
{
	_cleanup_free_ char *line = NULL;

	for (size_t i = 0; i < json_object_array_length(groups); i++) {
		struct json_object *g = json_object_array_get_idx(groups, i), *mtu, *drops;
		char m[32] = "n/a", d[32] = "n/a";
		char *t;

		if (!json_object_object_get_ex(g, "peer_mtu", &mtu) ||
		    !json_object_object_get_ex(g, "peer_drops", &drops) || (!mtu && !drops))
			continue;
		if (mtu)
			snprintf(m, sizeof(m), "%" PRId64, json_object_get_int64(mtu));
		if (drops)
			snprintf(d, sizeof(d), json_object_get_int64(drops) ? "+%" PRId64 : "none",
				 json_object_get_int64(drops));
		t = strprintf("%s%s%s%s%s mtu %s drops %s", line ? line : "", line ? ", " : "",
			      jstring(g, "group"), jstring(g, "sweep_value") ? " " : "",
			      jstring(g, "sweep_value") ? jstring(g, "sweep_value") : "", m, d);
		free(line);
		line = t;
	}
	if (line)
		out_text("peer        %s\n", line);
}

/* "failed      lab-slow round 1: receive throughput >= 9000 Mbps: 4331.91
 * Mbps": every threshold a round failed, with its value (or why it has
 * none). */
static void render_failed_thresholds(struct json_object *groups)
{
	for (size_t i = 0; i < json_object_array_length(groups); i++) {
		struct json_object *g = json_object_array_get_idx(groups, i),
				   *rounds = json_object_object_get(g, "rounds");

		for (size_t k = 0; k < json_object_array_length(rounds); k++) {
			struct json_object *rd = json_object_array_get_idx(rounds, k),
					   *ths = json_object_object_get(rd, "thresholds");

			for (size_t t = 0; t < json_object_array_length(ths); t++) {
				struct json_object *th = json_object_array_get_idx(ths, t);
				double v = jdouble(th, "value");

				if (!streq_ptr(jstring(th, "status"), "fail"))
					continue;
				out_text("failed      %s%s%s round %d: %s %s %g %s: ", jstring(g, "group"),
					 jstring(g, "sweep_value") ? " " : "",
					 strempty(jstring(g, "sweep_value")),
					 json_object_get_int(json_object_object_get(rd, "repetition")),
					 strna(jstring(th, "label")), strna(jstring(th, "op")),
					 jdouble(th, "limit"), strna(jstring(th, "unit")));
				if (isnan(v))
					out_text("%s\n", strna(jstring(th, "note")));
				else
					out_text("%.2f %s\n", v, strna(jstring(th, "unit")));
			}
		}
	}
}

/* The table people read, from the document. */
static void render_table(struct json_object *doc, const char *report_dir)
{
	struct json_object *groups, *sweep, *not_restored;
	bool has_sweep = json_object_object_get_ex(doc, "sweep", &sweep) && sweep;
	const char *kept = jstring(doc, "kept_group");

	json_object_object_get_ex(doc, "groups", &groups);
	out_text("campaign    %s (campaign %" PRId64 ", %s, %d repetition%s, %" PRId64 " run%s)\n",
		 jstring(doc, "name"), json_object_get_int64(json_object_object_get(doc, "campaign")),
		 jstring(doc, "status"), json_object_get_int(json_object_object_get(doc, "repeat")),
		 json_object_get_int(json_object_object_get(doc, "repeat")) == 1 ? "" : "s",
		 json_object_get_int64(json_object_object_get(doc, "runs")),
		 json_object_get_int64(json_object_object_get(doc, "runs")) == 1 ? "" : "s");
	out_text("%-16s %s%-5s %11s  %-19s %7s  %-14s %-8s %s\n", "group", has_sweep ? "value    " : "",
		 "runs", "median Mbps", "min-max Mbps", "loss %", "irq spread", "drops", "vs previous");
	for (size_t i = 0; i < json_object_array_length(groups); i++) {
		struct json_object *g = json_object_array_get_idx(groups, i), *d;
		double med = jdouble(g, "median_recv_mbps"), ch = jdouble(g, "change_percent");
		char range[48] = "-", drops[32] = "n/a", change[16] = "", value[16] = "", mbps[24] = "-",
		     loss[24] = "-", line[256];
		size_t n = 0;

		if (has_sweep)
			snprintf(value, sizeof(value), "%-8s ", jstring(g, "sweep_value"));
		if (jstring(g, "skipped")) {
			out_text("%-16s %s%-5s skipped (exit %d): %s\n", jstring(g, "group"), value, "-",
				 json_object_get_int(json_object_object_get(g, "skipped_exit_code")),
				 jstring(g, "skipped"));
			continue;
		}
		for (size_t k = 0; k < json_object_array_length(json_object_object_get(g, "rounds")); k++)
			n += json_object_object_get(
				 json_object_array_get_idx(json_object_object_get(g, "rounds"), k),
				 "recv_mbps") != NULL;
		if (!isnan(med)) {
			snprintf(mbps, sizeof(mbps), "%.1f", med);
			snprintf(range, sizeof(range), "%.1f-%.1f", jdouble(g, "min_recv_mbps"),
				 jdouble(g, "max_recv_mbps"));
			snprintf(loss, sizeof(loss), "%.2f", jdouble(g, "median_loss_percent"));
		}
		if (json_object_object_get_ex(g, "drops", &d) && d) {
			uint64_t sum = 0;
			json_object_object_foreach(d, name, v)
			{
				(void)name;
				sum += (uint64_t)json_object_get_int64(v);
			}
			snprintf(drops, sizeof(drops), sum ? "+%" PRIu64 : "none", sum);
		}
		if (!isnan(ch))
			snprintf(change, sizeof(change), "%+.0f%%", ch);
		snprintf(line, sizeof(line), "%-16s %s%-5zu %11s  %-19s %7s  %-14s %-8s %s",
			 jstring(g, "group"), value, n, mbps, range, loss, jstring(g, "irq_spread"), drops,
			 change);
		for (size_t e = strlen(line); e > 0 && line[e - 1] == ' ';)
			line[--e] = '\0';
		out_text("%s\n", line);
	}
	render_failed_thresholds(groups);
	render_peer_line(groups);
	out_text("verdict     %s\n", strna(jstring(doc, "verdict")));
	not_restored = json_object_object_get(doc, "not_restored");
	if (kept && json_object_array_length(not_restored) == 0)
		out_text("kept        %s applied (transaction %" PRId64 "); every other group rolled back\n",
			 kept, json_object_get_int64(json_object_object_get(doc, "kept_transaction")));
	else if (kept)
		out_text("kept        %s applied (transaction %" PRId64 ")\n", kept,
			 json_object_get_int64(json_object_object_get(doc, "kept_transaction")));
	if (json_object_array_length(not_restored) > 0) {
		out_text("host        NOT as before the campaign:");
		for (size_t i = 0; i < json_object_array_length(not_restored); i++)
			out_text("%s %s", i ? ";" : "",
				 json_object_get_string(json_object_array_get_idx(not_restored, i)));
		out_text("\n");
	} else if (!kept)
		out_text("host        every group rolled back: as before the campaign\n");
	if (report_dir)
		out_text("report      %s/report.html\n", report_dir);
}

/* --check: the rounds the campaign would run, nothing changed. */
static int render_check(const struct run_ctx *x)
{
	const struct campaign *c = x->c;

	out_open_object(NULL);
	out_string(OUT_ANY, "name", "campaign    %s", c->name);
	out_string(OUT_ANY, "file", " (%s): ok\n", c->file);
	out_uint(OUT_ANY, "repeat", "repeat      %" PRIu64, c->repeat);
	out_text(" (%zu group%s%s: %zu rounds)\n", c->n_groups, c->n_groups == 1 ? "" : "s",
		 c->n_sweep ? " x sweep" : "", c->n_groups * sweeps(c) * c->repeat);
	out_string(OUT_ANY, "sweep", c->sweep_key ? "sweep       %s:" : NULL, c->sweep_key);
	out_open_array("sweep_values");
	for (size_t s = 0; s < c->n_sweep; s++)
		out_string(OUT_ANY, NULL, " %s", campaign_sweep_value(c, s));
	out_close_array();
	if (c->n_sweep)
		out_text("\n");
	out_open_array("groups");
	for (size_t g = 0; g < c->n_groups; g++) {
		_cleanup_profile_ struct profile *p = NULL;
		struct profile_error err = {0};
		if (round_profile(x, g, 0, &p, &err) < 0)
			return EXIT_INVALID; /* campaign_load() loaded every one */
		out_open_object(NULL);
		out_string(OUT_ANY, "group", "group       %s", c->groups[g].name);
		out_string(OUT_ANY, "file", " (%s)", c->groups[g].path);
		out_string(OUT_ANY, "runner", ": %s",
			   p->verify.runners.set ? p->verify.runners.value[0] : NULL);
		out_uint(OUT_ANY, "duration", " %" PRIu64 " s", p->verify.duration.value);
		out_string(OUT_ANY, "peer", " to %s", p->verify.peer.set ? p->verify.peer.value : NULL);
		out_string(OUT_ANY, "tune_peer", peerssh_wanted(p) ? ", tuning %s there too" : NULL,
			   peerssh_wanted(p) ? p->peer.ssh.value : NULL);
		out_text("\n");
		out_close_object();
	}
	out_close_array();
	out_close_object();
	return out_finish() < 0 ? EXIT_ERROR : EXIT_OK;
}

/* --keep: apply the chosen group again, as its own transaction, exactly
 * as `apply` of its file would: the boot-time unit planned the same way
 * (so a kept group persists exactly when an applied one would), the peer
 * tuned after this host and committed before it, and any failure up to
 * the commit undone on both ends. */
static int keep_group(struct run_ctx *x, enum keep k, int64_t *ret_txn, const char **ret_group)
{
	_cleanup_profile_ struct profile *prof = NULL;
	_cleanup_plan_ struct plan *p = NULL;
	struct txn_outcome o = {0};
	char msg[512] = "";
	int i = keep_cell(x, k), code, r;

	if (k == KEEP_NONE)
		return EXIT_OK;
	if (i < 0) {
		log_warn("campaign: --keep %s: no group was measured: every group rolled back",
			 keep_names[k]);
		return EXIT_OK;
	}
	if (round_profile(x, x->cells[i].group, x->cells[i].sweep, &prof, NULL) < 0)
		return EXIT_ERROR;
	code = plan_round(prof, &p);
	if (code != EXIT_OK)
		return code;
	if (x->c->n_sweep == 0)
		r = plan_boot_unit(p, x->c->groups[x->cells[i].group].path);
	else
		r = strv_pushf(
		    &p->warnings,
		    "not persistent: the kept group has %s = %s, which its file %s does not say; the "
		    "changes last until the next reboot",
		    x->c->sweep_key, campaign_sweep_value(x->c, x->cells[i].sweep),
		    x->c->groups[x->cells[i].group].path);
	if (r < 0) {
		log_error_errno(r, "cannot plan %s: %m", x->c->groups[x->cells[i].group].path);
		return EXIT_ERROR;
	}
	txn_verb_report_problems(p);
	if (p->n_problems > 0)
		return plan_problems_exit_code(p);
	struct txn_request q = {
	    .profile = prof,
	    .plan = p,
	    .db_path = x->cli->db_path,
	    .commit = TXN_COMMIT_NOW,
	    .peer = peerssh_wanted(prof),
	    .say = txn_verb_say,
	};
	if (txn_run(&x->h, &q, &o) < 0)
		return EXIT_ERROR;
	code = txn_verb_outcome(&o, 0, msg, sizeof(msg));
	if (code != EXIT_OK)
		log_error("campaign: --keep %s: group %s not kept", keep_names[k],
			  x->c->groups[x->cells[i].group].name);
	note_left(x, o.txn, o.apply.left, o.peer_left);
	if (code == EXIT_OK) {
		*ret_txn = o.txn;
		*ret_group = x->c->groups[x->cells[i].group].name;
	}
	txn_outcome_done(&o);
	return code;
}

static int campaign_exit_code(const struct run_ctx *x)
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

int verb_campaign(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_campaign_ struct campaign *c = NULL;
	_cleanup_history_ struct history *h = NULL;
	struct campaign_args a = {0};
	struct profile_error err = {0};
	struct run_ctx x = {.cli = cli};
	struct json_object *doc;
	enum campaign_status status;
	const char *kept_group = NULL;
	int64_t kept_txn = 0;
	int lock_fd = -1, r, code, keep_code = EXIT_OK;
	bool written = false;

	r = cli_parse(cli, cli_verb("campaign"), argc, argv, handle_option, &a, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	if (strv_length(args) != 1) {
		log_error("campaign: expected one campaign FILE");
		return EXIT_USAGE;
	}
	r = campaign_load(args[0], &c, &err);
	if (r < 0) {
		_cleanup_free_ char *msg = profile_error_format(&err);
		log_error("%s", msg ? msg : err.message);
		return profile_load_exit_code(r);
	}
	x.c = c;
	x.peer = a.peer;
	if (a.check)
		return render_check(&x);
	if (a.report) {
		r = report_dir_check(a.report);
		if (r < 0) {
			log_error_errno(r, "campaign: --report %s: %m%s", a.report,
					r == -ENOTEMPTY ? ": choose a new or empty directory" : "");
			return r == -ENOTEMPTY ? EXIT_CANT_CREATE : EXIT_ERROR;
		}
	}
	for (size_t g = 0; g < c->n_groups; g++) {
		_cleanup_profile_ struct profile *gp = NULL;
		if (round_profile(&x, g, 0, &gp, NULL) >= 0 &&
		    (code = txn_verb_check_peer_config(gp)) != EXIT_OK)
			return code;
	}
	code = txn_verb_open_history(cli, 0, &h);
	if (code == EXIT_OK)
		code = txn_verb_lock(cli, 0, &lock_fd);
	if (code == EXIT_OK)
		code = txn_verb_refuse_unfinished(h);
	if (code != EXIT_OK) {
		lock_release(lock_fd);
		return code;
	}
	x.h = h;
	r = campaigns_interrupt_stale(h, history_now_usec());
	if (r > 0)
		log_info(
		    "campaign: %d campaign%s left running by a cx5prof that died recorded as interrupted", r,
		    r == 1 ? "" : "s");
	x.started_usec = history_now_usec();
	if (r >= 0)
		r = campaigns_start(h, c->name, c->file, &x.id);
	if (r >= 0)
		r = cells_init(&x);
	if (r < 0) {
		log_error_errno(r, "history %s: cannot record the campaign: %m: %s", history_path(h),
				history_remedy(r));
		cells_free(&x);
		lock_release(lock_fd);
		return EXIT_ERROR;
	}

	code = run_rounds(&x);
	if ((code == EXIT_ROLLED_BACK || apply_interrupted()) && x.not_restored) {
		log_error("campaign %" PRId64 " interrupted by SIG%s: the host is NOT as before the campaign "
			  "(see the host line)",
			  x.id, sigabbrev_np(apply_interrupted()) ? sigabbrev_np(apply_interrupted()) : "?");
		code = EXIT_ROLLBACK_FAILED;
		status = CAMPAIGN_INTERRUPTED;
	} else if (code == EXIT_ROLLED_BACK) {
		log_error("campaign %" PRId64
			  " interrupted by SIG%s: the round in progress was rolled back; the "
			  "host is as before the campaign",
			  x.id, sigabbrev_np(apply_interrupted()) ? sigabbrev_np(apply_interrupted()) : "?");
		status = CAMPAIGN_INTERRUPTED;
	} else if (code != EXIT_OK)
		status = CAMPAIGN_FAILED;
	else {
		status = CAMPAIGN_DONE;
		keep_code = keep_group(&x, a.keep, &kept_txn, &kept_group);
		code = keep_code != EXIT_OK ? keep_code : campaign_exit_code(&x);
	}
	h = x.h; /* a transaction may have reopened the history */
	if (x.not_restored && code != EXIT_ROLLBACK_FAILED)
		code = EXIT_ROLLBACK_FAILED;
	doc = campaign_doc(&x, status, code, kept_txn, kept_group);
	r = !h	  ? -EBADF
	    : doc ? campaigns_finish(h, x.id, status,
				     json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
									     JSON_C_TO_STRING_NOSLASHESCAPE))
		  : -ENOMEM;
	if (r < 0)
		log_warn("history %s: the campaign's summary was not recorded: %s", cli->db_path,
			 strerror(-r));
	lock_release(lock_fd);
	if (doc && a.report && h) {
		r = report_dir_write(a.report, h, doc, "campaign.json");
		if (r < 0) {
			int failed = report_dir_failed("campaign", a.report, r);
			code = code == EXIT_OK ? failed : code;
		} else
			written = true;
	}
	if (doc && out_is_json())
		out_json(NULL, json_object_get(doc));
	else if (doc)
		render_table(doc, written ? a.report : NULL);
	json_object_put(doc);
	cells_free(&x);
	if (out_finish() < 0 && code == EXIT_OK)
		code = EXIT_ERROR;
	if (h)
		mirror_opportunistic(h, NULL);
	return code;
}
