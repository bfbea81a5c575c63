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
 * round's undo log is on disk (every round is a txn_run() of engine/txn.c). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>

#include "apply.h"
#include "txn.h"
#include "base/log.h"
#include "base/output.h"
#include "base/stats.h"
#include "campaign/campaignfile.h"
#include "mirror/mirror.h"
#include "kinds/kinds.h"
#include "os/probe.h"
#include "peer/peerssh.h"
#include "plan.h"
#include "campaign/runfacts.h"
#include "store/campaigns.h"
#include "store/history.h"
#include "store/lock.h"
#include "store/runs.h"
#include "campaign/reportdir.h"
#include "verbkit.h"
#include "verbs.h"
#include "campaign/sequential.h"
#include "campaign/verdict.h"
#include "verify.h"

enum {
	OPT_REPORT = 1000,
	OPT_KEEP,
	OPT_CHECK,
	OPT_PEER,
	OPT_ABLATE,
	OPT_DURATION,
	OPT_REPEAT,
	OPT_BUDGET,
	OPT_SSH_COMMANDS,
	OPT_MIN_EFFECT,
	OPT_MIN_EFFECT_LOSS,
	OPT_ORDER,
	OPT_SEED,
};

enum keep { KEEP_NONE, KEEP_FIRST, KEEP_LAST, KEEP_BEST };
static const char *const keep_names[] = {"none", "first", "last", "best", NULL};

const struct cli_option campaign_options[] = {
    {"report", CLI_ARG_REQUIRED, OPT_REPORT, "DIR",
     "write report.html, campaign.json and one export bundle per run into DIR (created; must be empty)"},
    {"keep", CLI_ARG_REQUIRED, OPT_KEEP, "WHICH",
     "none (default): the host ends as it began; first, last, best or best=VALUE (a sweep: among that "
     "value's groups): that group stays applied"},
    {"peer", CLI_ARG_REQUIRED, OPT_PEER, "ADDR",
     "benchmark against ADDR instead of verify.peer (every group)"},
    {"ablate", CLI_ARG_REQUIRED, OPT_ABLATE, "PROFILE",
     "the groups: the host as found, each change family of PROFILE alone, all of it, all but each family"},
    {"duration", CLI_ARG_REQUIRED, OPT_DURATION, "SECONDS",
     "every round's benchmark duration (verify.duration)"},
    {"repeat", CLI_ARG_REQUIRED, OPT_REPEAT, "N|auto",
     "rounds per group; auto: until every comparison is decided or max_rounds"},
    {"budget", CLI_ARG_REQUIRED, OPT_BUDGET, "DURATION",
     "start no round that would end after DURATION (90s, 15m, 2h) from the start"},
    {"min-effect", CLI_ARG_REQUIRED, OPT_MIN_EFFECT, "PCT",
     "throughput margin: an interval inside +-PCT% is no meaningful difference (min_effect.throughput)"},
    {"min-effect-loss", CLI_ARG_REQUIRED, OPT_MIN_EFFECT_LOSS, "PP",
     "loss margin in percentage points (min_effect.loss)"},
    {"order", CLI_ARG_REQUIRED, OPT_ORDER, "alternate|shuffle|fixed",
     "the order of the groups in each repetition (default alternate: reversed every other one)"},
    {"seed", CLI_ARG_REQUIRED, OPT_SEED, "N", "order shuffle: the seed (default: drawn and recorded)"},
    {"check", CLI_ARG_NONE, OPT_CHECK, NULL,
     "check the file and plan every group against this host; change nothing (exit 5: a group would be "
     "skipped)"},
    {"allow-ssh-commands", CLI_ARG_NONE, OPT_SSH_COMMANDS, NULL,
     "let peer.ssh_config run commands here (ProxyCommand, LocalCommand, Match exec...)"},
    {0},
};

struct campaign_args {
	const char *peer;
	const char *report;
	const char *ablate;
	enum keep keep;
	const char *keep_value; /* --keep best=VALUE: the sweep value it is chosen among */
	bool check;
	unsigned duration;		    /* 0: the file's */
	int repeat;			    /* 0: the file's; -1: auto */
	unsigned budget_s;		    /* 0: the file's */
	double min_effect, min_effect_loss; /* -1: the file's */
	int order;			    /* -1: the file's */
	uint64_t seed;
	bool seed_set;
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
	case OPT_ABLATE:
		a->ablate = arg;
		return 0;
	case OPT_DURATION: {
		uint32_t v;
		if (safe_atou32(arg, &v) < 0 || v < 1 || v > 3600) {
			log_error("campaign: --duration takes seconds between 1 and 3600, not '%s'", arg);
			return EXIT_USAGE;
		}
		a->duration = v;
		return 0;
	}
	case OPT_REPEAT: {
		uint32_t v;
		if (streq(arg, "auto")) {
			a->repeat = -1;
			return 0;
		}
		if (safe_atou32(arg, &v) < 0 || v < 1 || v > CAMPAIGN_MAX_REPEAT) {
			log_error("campaign: --repeat takes auto or a number between 1 and %d, not '%s'",
				  CAMPAIGN_MAX_REPEAT, arg);
			return EXIT_USAGE;
		}
		a->repeat = (int)v;
		return 0;
	}
	case OPT_BUDGET:
		if (campaign_parse_duration(arg, &a->budget_s) < 0) {
			log_error(
			    "campaign: --budget takes a duration such as 900, 90s, 15m or 2h (at most 7 "
			    "days), not '%s'",
			    arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_SSH_COMMANDS:
		peerssh_allow_commands(true);
		return 0;
	case OPT_MIN_EFFECT:
	case OPT_MIN_EFFECT_LOSS:
		if (campaign_parse_margin(arg, id == OPT_MIN_EFFECT_LOSS,
					  id == OPT_MIN_EFFECT_LOSS ? &a->min_effect_loss : &a->min_effect) <
		    0) {
			log_error(
			    id == OPT_MIN_EFFECT_LOSS
				? "campaign: --min-effect-loss takes percentage points below 100 (1, 0.5pp), "
				  "not '%s'"
				: "campaign: --min-effect takes a percent below 1000 (5, 3%%), not '%s'",
			    arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_ORDER:
		a->order = seq_order_from_string(arg);
		if (a->order < 0) {
			log_error("campaign: --order takes alternate, shuffle or fixed, not '%s'", arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_SEED:
		if (safe_atou64(arg, &a->seed) < 0) {
			log_error("campaign: --seed takes a whole number, not '%s'", arg);
			return EXIT_USAGE;
		}
		a->seed_set = true;
		return 0;
	case OPT_KEEP:
		if (strncmp(arg, "best=", 5) == 0 && arg[5]) {
			a->keep = KEEP_BEST;
			a->keep_value = arg + 5;
			return 0;
		}
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

/* What a round costs beyond its benchmark (plan, apply, probe, undo), for
 * the estimate: a real port takes a second or two to come back after an
 * MTU change. */
#define ROUND_OVERHEAD_S 2

/* One group with one sweep value: a row of the table. */
struct cell {
	size_t group, sweep;
	char *skipped; /* why it could not apply (or why its other rounds were not run), or NULL */
	int skipped_code;
	double *recv, *loss;	     /* the counted rounds' figures */
	size_t n;		     /* counted rounds */
	unsigned threshold_failures; /* counted rounds that failed a threshold */
	unsigned excluded;	     /* rounds run and not counted (interrupted, failed) */
	char *last_failure;	     /* the previous round's failure, when it failed */
	unsigned duration;	     /* its benchmark's seconds */
	struct json_object *rounds;  /* array */
	struct json_object *drops;   /* counter -> summed delta over the rounds; NULL: no counters */
	struct json_object *profile;
	double max_cpu_percent; /* the worst round's largest single-CPU share; -1 unknown */
	int max_cpu;
	uint64_t interrupts;
	bool spread_known;
	bool failed_round;  /* a round could not measure */
	int64_t peer_mtu;   /* the peer's MTU in the last round it answered STATE; -1 none */
	int64_t peer_drops; /* its drop counters' rise summed over the rounds; -1 unknown */
};

/* Why the rounds ended (the document's "stopped"). */
enum stop_reason {
	STOP_COMPLETE,	  /* every repetition of a fixed repeat */
	STOP_DECIDED,	  /* repeat: auto: every comparison decided */
	STOP_MAX_ROUNDS,  /* repeat: auto: max_rounds reached */
	STOP_BUDGET,	  /* the next round would have ended after the budget */
	STOP_INTERRUPTED, /* a signal, or the output was closed */
	STOP_FAILED,	  /* an error the host must not carry on from */
	_STOP_MAX,
};
static const char *const stop_names[_STOP_MAX] = {"complete", "decided",     "max_rounds",
						  "budget",   "interrupted", "failed"};

struct run_ctx {
	const struct cli *cli;
	struct campaign *c;
	const char *peer; /* --peer, or NULL */
	struct history *h;
	int64_t id;
	struct cell *cells;
	size_t n_cells;
	size_t runs;
	int signal;
	char *peer_down;     /* the peer's ssh failed in a round: why; its later rounds are not tried */
	char **not_restored; /* what a failed undo left, on either host: one line each */
	bool output_closed;  /* stdout went away (EPIPE): stop as at a signal */
	int64_t started_usec;
	double round_seconds; /* wall time of the rounds run so far */
	size_t rounds_run;    /* warm-up included */
	size_t rounds_planned;
	unsigned repetitions;	  /* repetitions (partly) run */
	unsigned looks;		  /* how many times repeat: auto may look (1: fixed) */
	struct seq_design design; /* repeat: auto: its looks and their levels */
	double level;		  /* the level of the last look (the verdict's) */
	unsigned estimate_s;
	enum stop_reason stopped;
	/* The statistics of the counted rounds (stats_compute). */
	struct verdict_group *vgroups;
	struct verdict_family *vfamilies;
	struct verdict_input vin;
	struct verdict v;
};

static size_t sweeps(const struct campaign *c)
{
	return c->n_sweep ? c->n_sweep : 1;
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

/* A round that failed as the one before it did (the peer's path MTU,
 * a missing server): the group's other rounds would fail the same way. */
static void cell_note_failure(struct run_ctx *x, struct cell *cl, const char *failure)
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
static void round_progress(struct run_ctx *x, const struct cell *cl, const struct verify_report *rep,
			   bool warmup, const char *why_not)
{
	_cleanup_free_ char *what = NULL;
	const char *name = x->c->groups[cl->group].name;
	const char *value = campaign_sweep_value(x->c, cl->sweep);

	if (out_is_json())
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
static void cell_add_round(struct run_ctx *x, struct cell *cl, unsigned rep_no, int64_t txn,
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
static int run_round(struct run_ctx *x, struct cell *cl, unsigned rep_no, bool warmup)
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
			cl->duration = VERIFY_DEFAULT_DURATION_S;
			cl->recv = calloc(x->c->repeat, sizeof(double));
			cl->loss = calloc(x->c->repeat, sizeof(double));
			cl->rounds = json_object_new_array();
			if (!cl->recv || !cl->loss || !cl->rounds)
				return -ENOMEM;
			if (round_profile(x, g, s, &p, NULL) < 0)
				continue;
			if (p->verify.duration.set)
				cl->duration = (unsigned)p->verify.duration.value;
			if (profile_to_json(p, &pj) >= 0)
				cl->profile = pj;
		}
	return 0;
}

static void stats_done(struct run_ctx *x)
{
	verdict_done(&x->v);
	free(x->vgroups);
	free(x->vfamilies);
	x->vgroups = NULL;
	x->vfamilies = NULL;
}

static void cells_free(struct run_ctx *x)
{
	stats_done(x);
	for (size_t i = 0; i < x->n_cells; i++) {
		struct cell *cl = &x->cells[i];
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
static double verdict_level(const struct run_ctx *x)
{
	unsigned n = 0;

	if (!x->c->repeat_auto || !x->design.looks)
		return VERDICT_ALPHA;
	for (size_t i = 0; i < x->n_cells; i++)
		n = x->cells[i].n > n ? (unsigned)x->cells[i].n : n;
	return seq_level_at(&x->design, n);
}

/* The comparisons of the counted rounds so far, at the level alpha. */
static int stats_compute(struct run_ctx *x, double alpha)
{
	const struct campaign *c = x->c;

	stats_done(x);
	x->vgroups = calloc(x->n_cells, sizeof(*x->vgroups));
	x->vfamilies = calloc(c->ablation.n_families ? c->ablation.n_families : 1, sizeof(*x->vfamilies));
	if (!x->vgroups || !x->vfamilies)
		return -ENOMEM;
	for (size_t i = 0; i < x->n_cells; i++) {
		const struct cell *cl = &x->cells[i];
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
				x->vfamilies[f].skipped = x->cells[g * sweeps(c)].skipped;
	}
	x->vin = (struct verdict_input){
	    .groups = x->vgroups,
	    .n_groups = x->n_cells,
	    .n_sweeps = sweeps(c),
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
static const char *interruption(const struct run_ctx *x)
{
	static char sig[32];

	if (!apply_interrupted() && x->output_closed)
		return "a closed output (EPIPE)";
	snprintf(sig, sizeof(sig), "SIG%s", strna(sigabbrev_np(apply_interrupted())));
	return sig;
}

static bool stop_requested(const struct run_ctx *x)
{
	return apply_interrupted() || x->output_closed;
}

/* Seconds since the first round. */
static double elapsed_s(const struct run_ctx *x)
{
	return (double)(history_now_usec() - x->started_usec) / 1e6;
}

/* Would the next round of cl end after --budget? Its length is the
 * rounds' average so far, or the estimate before the first. */
static bool over_budget(const struct run_ctx *x, const struct cell *cl)
{
	double next =
	    x->rounds_run ? x->round_seconds / (double)x->rounds_run : cl->duration + ROUND_OVERHEAD_S;

	return x->c->budget_s && elapsed_s(x) + next > x->c->budget_s;
}

static int timed_round(struct run_ctx *x, struct cell *cl, unsigned rep_no, bool warmup)
{
	int64_t t0 = history_now_usec();
	int code;

	x->rounds_run++;
	code = run_round(x, cl, rep_no, warmup);
	x->round_seconds += (double)(history_now_usec() - t0) / 1e6;
	return code;
}

/* warmup: N rounds first, the groups in turn, recorded and not counted. */
static int run_warmup(struct run_ctx *x)
{
	size_t i = 0;

	for (unsigned w = 1; w <= x->c->warmup; w++, i++) {
		struct cell *cl;
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
			x->stopped = STOP_BUDGET;
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
static int run_rounds(struct run_ctx *x)
{
	const struct campaign *c = x->c;
	_cleanup_free_ size_t *order = calloc(x->n_cells ? x->n_cells : 1, sizeof(*order));
	int code, r;

	if (!order)
		return log_error("out of memory"), EXIT_ERROR;
	apply_signals_install();
	x->started_usec = history_now_usec();
	code = run_warmup(x);
	if (code != EXIT_OK || x->stopped == STOP_BUDGET)
		return code;
	for (unsigned rep = 1; rep <= c->repeat; rep++) {
		seq_order(c->order, c->seed, rep, x->n_cells, order);
		for (size_t k = 0; k < x->n_cells; k++) {
			struct cell *cl = &x->cells[order[k]];
			if (cl->skipped)
				continue;
			if (stop_requested(x))
				return EXIT_ROLLED_BACK;
			if (over_budget(x, cl)) {
				x->stopped = STOP_BUDGET;
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
			x->stopped = STOP_DECIDED;
			return EXIT_OK;
		}
	}
	x->stopped = c->repeat_auto ? STOP_MAX_ROUNDS : STOP_COMPLETE;
	return EXIT_OK;
}

/* The rounds to run and a rough duration, before the first: for repeat:
 * auto the most it may take. */
static void estimate(struct run_ctx *x)
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
static const char *round_limited_by(struct json_object *round)
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
		const char *v = round_limited_by(json_object_array_get_idx(rounds, i));
		int n = 0;

		for (size_t k = 0; v && k < json_object_array_length(rounds); k++)
			n += streq_ptr(round_limited_by(json_object_array_get_idx(rounds, k)), v);
		if (n > best_n) {
			best = v;
			best_n = n;
		}
	}
	json_object_object_add(g, "limited_by", best ? json_object_new_string(best) : NULL);
	json_object_object_add(g, "limited_by_rounds", best ? json_object_new_int(best_n) : NULL);
}

/* An ablation group's families ["mtu", "sysctl"]; null for a file's group. */
static struct json_object *families_json(const struct run_ctx *x, const struct campaign_group *g)
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

static struct json_object *cell_json(const struct run_ctx *x, struct cell *cl, double prev_median)
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

/* Index of the cell --keep names, or -1: best is the verdict's group
 * (the highest median among the winners of each sweep value). */
static int keep_cell(const struct run_ctx *x, enum keep k)
{
	int found = -1;
	double best = -1;

	for (size_t i = 0; i < x->n_cells; i++) {
		const struct cell *cl = &x->cells[i];
		double m = stats_median(cl->recv, cl->n);
		bool winner = false;

		if (cl->skipped || cl->n == 0)
			continue;
		if (k == KEEP_BEST && x->c->keep_sweep &&
		    !streq(x->c->keep_sweep, strempty(campaign_sweep_value(x->c, cl->sweep))))
			continue;
		for (size_t s = 0; s < sweeps(x->c); s++)
			winner |= x->v.best && x->v.best[s] == (int)i;
		if (k == KEEP_FIRST && found < 0)
			found = (int)i;
		if (k == KEEP_LAST)
			found = (int)i;
		if (k == KEEP_BEST && winner && m > best) {
			best = m;
			found = (int)i;
		}
	}
	return found;
}

static struct json_object *statistics_json(const struct run_ctx *x)
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

static struct json_object *ablation_json(const struct run_ctx *x)
{
	struct json_object *o;

	if (!x->c->ablate)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "profile", json_object_new_string(x->c->ablate));
	json_object_object_add(o, "families", verdict_families_json(&x->vin, &x->v));
	return o;
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

/* The "limited by" cell: the group's verdict as people read it, with how
 * many of its counted rounds said so when not all did ("receiver socket
 * buffer (2 of 3)"); "-" without a ledger. */
static void limited_by_cell(struct json_object *g, char *buf, size_t size)
{
	const char *v = jstring(g, "limited_by"), *label = ledger_stage_label(v);
	struct json_object *rounds = json_object_object_get(g, "rounds");
	int k = json_object_get_int(json_object_object_get(g, "limited_by_rounds"));
	size_t n = 0;

	for (size_t i = 0; rounds && i < json_object_array_length(rounds); i++)
		n += round_limited_by(json_object_array_get_idx(rounds, i)) != NULL;
	if (!v)
		snprintf(buf, size, "-");
	else if ((size_t)k < n)
		snprintf(buf, size, "%s (%d of %zu)", label ? label : v, k, n);
	else
		snprintf(buf, size, "%s", label ? label : v);
}

/* "excluded    lab-full round 2: interrupted: SIGINT during the run": the
 * rounds that ran and do not count, with the reason; rounds in a row of
 * one group that failed the same way on one line ("rounds 1-2"). */
static void render_excluded(struct json_object *groups)
{
	for (size_t i = 0; i < json_object_array_length(groups); i++) {
		struct json_object *g = json_object_array_get_idx(groups, i);
		struct json_object *rounds = json_object_object_get(g, "rounds");
		size_t n = json_object_array_length(rounds);

		for (size_t k = 0; k < n; k++) {
			struct json_object *r = json_object_array_get_idx(rounds, k);
			int first = json_object_get_int(json_object_object_get(r, "repetition")),
			    last = first;
			if (json_object_get_boolean(json_object_object_get(r, "counted")) ||
			    json_object_get_boolean(json_object_object_get(r, "warmup")))
				continue;
			while (k + 1 < n) {
				struct json_object *next = json_object_array_get_idx(rounds, k + 1);
				if (json_object_get_boolean(json_object_object_get(next, "counted")) ||
				    json_object_get_boolean(json_object_object_get(next, "warmup")) ||
				    !streq_ptr(jstring(next, "result"), jstring(r, "result")) ||
				    !streq_ptr(jstring(next, "error"), jstring(r, "error")))
					break;
				last = json_object_get_int(json_object_object_get(next, "repetition"));
				k++;
			}
			char which[48];
			if (last == first)
				snprintf(which, sizeof(which), "round %d", first);
			else
				snprintf(which, sizeof(which), "rounds %d-%d", first, last);
			out_text("excluded    %s%s%s %s: %s: %s\n", jstring(g, "group"),
				 jstring(g, "sweep_value") ? " " : "", strempty(jstring(g, "sweep_value")),
				 which, jstring(r, "result"), strna(jstring(r, "error")));
		}
	}
}

/* "+67% [41..112] better" from a comparison's measure, into buf. */
static void measure_cell(struct json_object *m, char *buf, size_t size)
{
	_cleanup_free_ char *t = verdict_doc_measure_text(m);

	snprintf(buf, size, "%s", strna(t));
}

/* Each comparison with its intervals and words. */
static void render_comparisons(struct json_object *doc)
{
	struct json_object *cmps = json_object_object_get(doc, "comparisons");
	size_t n = json_object_array_length(cmps);

	if (n == 0)
		return;
	out_text("%-32s %-44s %-44s %s\n", "comparison", "receive throughput", "loss",
		 "interval levels (throughput, loss)");
	for (size_t i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(cmps, i),
				   *recv = json_object_object_get(c, "recv"),
				   *loss = json_object_object_get(c, "loss");
		_cleanup_free_ char *name = verdict_doc_comparison_name(c);
		char rc[96], lc[96];

		measure_cell(recv, rc, sizeof(rc));
		measure_cell(loss, lc, sizeof(lc));
		out_text("%-32s %-44s %-44s %.1f%%, %.1f%%\n", strna(name), rc, lc,
			 100 * jdouble(recv, "confidence"), 100 * jdouble(loss, "confidence"));
	}
}

/* "statistics  looks after rounds 5-10 (hwang-shih-decani(-2)), verdict
 * at level 1.7%; margin ±5% throughput, ±1 pp loss; order alternate;
 * false better/worse at most 5% for throughput and 5% for loss (10%
 * both together)". */
static void render_statistics(struct json_object *doc)
{
	struct json_object *st = json_object_object_get(doc, "statistics"), *rounds, *me;
	_cleanup_free_ char *looks = NULL;
	double alpha = jdouble(st, "alpha");

	if (!st)
		return;
	rounds = json_object_object_get(st, "look_rounds");
	me = json_object_object_get(st, "min_effect");
	for (size_t i = 0; rounds && i < json_object_array_length(rounds); i++) {
		char *t = strprintf("%s%s%d", looks ? looks : "", looks ? "," : "",
				    json_object_get_int(json_object_array_get_idx(rounds, i)));
		free(looks);
		looks = t;
	}
	out_text("statistics  ");
	if (looks)
		out_text("looks after rounds %s (%s spending), verdict at level %.2f%%; ", looks,
			 strna(jstring(st, "spending")), 100 * jdouble(st, "level"));
	if (me)
		out_text("margin ±%g%% throughput, ±%g pp loss; ", jdouble(me, "throughput_percent"),
			 jdouble(me, "loss_points"));
	if (jstring(st, "order"))
		out_text("order %s", jstring(st, "order"));
	if (json_object_object_get(st, "seed"))
		out_text(" (seed %" PRId64 ")", json_object_get_int64(json_object_object_get(st, "seed")));
	out_text("%sa false better, worse or no meaningful difference: at most %.0f%% for throughput and "
		 "%.0f%% for loss (%.0f%% both "
		 "together)\n",
		 jstring(st, "order") ? "; " : "", 100 * alpha, 100 * alpha, 200 * alpha);
}

/* The attribution of an ablation: each family alone and inside the full
 * profile, and where the two disagree. */
static void render_families(struct json_object *doc)
{
	struct json_object *ab = json_object_object_get(doc, "ablation"), *fams, *cmps;

	if (!ab)
		return;
	fams = json_object_object_get(ab, "families");
	cmps = json_object_object_get(doc, "comparisons");
	out_text("%-24s %-32s %s\n", "family", "alone", "inside the full profile");
	for (size_t i = 0; i < json_object_array_length(fams); i++) {
		struct json_object *f = json_object_array_get_idx(fams, i), *a, *m;
		char alone[64] = "not measured", inside[64] = "not measured";

		if (json_object_object_get_ex(f, "alone_comparison", &a) && a)
			measure_cell(
			    json_object_object_get(
				json_object_array_get_idx(cmps, (size_t)json_object_get_int(a)), "recv"),
			    alone, sizeof(alone));
		if (json_object_object_get_ex(f, "marginal_comparison", &m) && m)
			measure_cell(
			    json_object_object_get(
				json_object_array_get_idx(cmps, (size_t)json_object_get_int(m)), "recv"),
			    inside, sizeof(inside));
		if (jstring(f, "skipped"))
			out_text("%-24s not applied: %s\n", jstring(f, "label"), jstring(f, "skipped"));
		else
			out_text("%-24s %-32s %s\n", jstring(f, "label"), alone, inside);
		if (jstring(f, "interaction"))
			out_text("%-24s interaction: %s\n", "", jstring(f, "interaction"));
	}
}

/* "time        41 s (estimate 60 s); stopped: every comparison decided". */
static void render_time(struct json_object *doc)
{
	static const struct {
		const char *stopped, *text;
	} why[] = {
	    {"decided", "every comparison decided"},
	    {"max_rounds", "max_rounds reached"},
	    {"budget", "the budget would have been exceeded"},
	    {"interrupted", "interrupted"},
	    {"failed", "an error"},
	};
	const char *stopped = strempty(jstring(doc, "stopped"));

	out_text("time        %.0f s (estimate %d s)", jdouble(doc, "elapsed_s"),
		 json_object_get_int(json_object_object_get(doc, "estimated_s")));
	for (size_t i = 0; i < ARRAY_SIZE(why); i++)
		if (streq(stopped, why[i].stopped))
			out_text("; stopped after %d repetition%s: %s",
				 json_object_get_int(json_object_object_get(doc, "repetitions")),
				 json_object_get_int(json_object_object_get(doc, "repetitions")) == 1 ? ""
												      : "s",
				 why[i].text);
	out_text("\n");
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
	int reps = json_object_get_int(json_object_object_get(doc, "repetitions"));
	char most[32] = "";

	json_object_object_get_ex(doc, "groups", &groups);

	if (json_object_get_boolean(json_object_object_get(doc, "repeat_auto")))
		snprintf(most, sizeof(most), " of at most %d",
			 json_object_get_int(json_object_object_get(doc, "repeat")));
	out_text("campaign    %s (campaign %" PRId64 ", %s, %d repetition%s%s, %" PRId64 " run%s)\n",
		 jstring(doc, "name"), json_object_get_int64(json_object_object_get(doc, "campaign")),
		 jstring(doc, "status"), reps, reps == 1 ? "" : "s", most,
		 json_object_get_int64(json_object_object_get(doc, "runs")),
		 json_object_get_int64(json_object_object_get(doc, "runs")) == 1 ? "" : "s");
	out_text("%-16s %s%-5s %11s  %-19s %7s  %-14s %-8s  %s\n", "group", has_sweep ? "value    " : "",
		 "runs", "median Mbps", "min-max Mbps", "loss %", "irq spread", "drops", "limited by");
	for (size_t i = 0; i < json_object_array_length(groups); i++) {
		struct json_object *g = json_object_array_get_idx(groups, i), *d;
		double med = jdouble(g, "median_recv_mbps");
		char range[48] = "-", drops[32] = "n/a", value[16] = "", mbps[24] = "-", loss[24] = "-",
		     line[320], limited[64];
		size_t n = 0;

		if (has_sweep)
			snprintf(value, sizeof(value), "%-8s ", jstring(g, "sweep_value"));
		if (jstring(g, "skipped")) {
			out_text("%-16s %s%-5s skipped (exit %d): %s\n", jstring(g, "group"), value, "-",
				 json_object_get_int(json_object_object_get(g, "skipped_exit_code")),
				 jstring(g, "skipped"));
			continue;
		}
		n = (size_t)json_object_get_int(json_object_object_get(g, "rounds_counted"));
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
		limited_by_cell(g, limited, sizeof(limited));
		snprintf(line, sizeof(line), "%-16s %s%-5zu %11s  %-19s %7s  %-14s %-8s  %s",
			 jstring(g, "group"), value, n, mbps, range, loss, jstring(g, "irq_spread"), drops,
			 limited);
		for (size_t e = strlen(line); e > 0 && line[e - 1] == ' ';)
			line[--e] = '\0';
		out_text("%s\n", line);
	}
	render_excluded(groups);
	render_failed_thresholds(groups);
	render_peer_line(groups);
	render_comparisons(doc);
	render_families(doc);
	render_statistics(doc);
	out_text("verdict     %s\n", strna(jstring(doc, "verdict")));
	render_time(doc);
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

/* "about 40 s", "about 12 min": a rough figure reads better rounded. */
static void duration_text(unsigned seconds, char *buf, size_t size)
{
	if (seconds < 120)
		snprintf(buf, size, "%u s", seconds);
	else if (seconds < 2 * 3600)
		snprintf(buf, size, "%u min", (seconds + 59) / 60);
	else
		snprintf(buf, size, "%.1f h", seconds / 3600.0);
}

/* A fixed repeat below the rounds Holm's correction needs for its
 * comparisons can never reach a verdict: say so before the first round
 * (the rounds would only end in "more rounds needed"). */
static void warn_undecidable(struct run_ctx *x)
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

/* "margin      ±5% throughput, ±1 pp loss; looks after rounds 5-10;
 * order alternate": the design, before the first round. */
static void render_design(const struct run_ctx *x)
{
	const struct campaign *c = x->c;
	unsigned first = x->design.first_look, last = 0;

	for (unsigned n = 1; n <= x->design.max_rounds; n++)
		if (x->design.level[n] > 0)
			last = n;
	out_double(OUT_ANY, "min_effect_percent", "margin      ±%g%% throughput", c->min_effect_recv);
	out_double(OUT_ANY, "min_effect_loss_points", ", ±%g pp loss", c->min_effect_loss);
	if (c->repeat_auto && first)
		out_text("; looks after rounds %u-%u (%s spending)", first, last, SEQ_SPENDING_NAME);
	else if (c->repeat_auto)
		out_text("; no look can decide within %u rounds per group", c->repeat);
	out_string(OUT_ANY, "order", "; order %s", seq_order_to_string(c->order));
	if (c->seed_set)
		out_uint(OUT_ANY, "seed", " (seed %" PRIu64 ")", c->seed);
	out_text("\n");
}

/* "estimate    12 rounds: about 40 s": before the first round. */
static void render_estimate(const struct run_ctx *x)
{
	char t[32], b[32];

	duration_text(x->estimate_s, t, sizeof(t));
	duration_text(x->c->budget_s, b, sizeof(b));
	out_uint(OUT_JSON, "estimated_s", NULL, x->estimate_s);
	if (x->c->repeat_auto)
		out_text(
		    "estimate    at most %zu rounds (repeat auto: at most %u per group, fewer once every "
		    "comparison is decided): at most %s",
		    x->rounds_planned, x->c->repeat, t);
	else
		out_text("estimate    %zu rounds: about %s", x->rounds_planned, t);
	out_text(x->c->budget_s ? " (budget %s)\n" : "\n", b);
}

/* Plan a group's profile against this host now: *ret_why NULL when it
 * would apply, else why not (and *ret_code). */
static int check_group(const struct profile *p, char **ret_why, int *ret_code)
{
	_cleanup_plan_ struct plan *pl = NULL;
	int code;

	*ret_why = NULL;
	*ret_code = EXIT_OK;
	code = plan_round(p, &pl);
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

/* One group of --check: its round profile and, when it would be skipped,
 * why (and the exit code). */
struct group_check {
	struct profile *p;
	char *why;
	int code;
};

/* The body of --check's document: the rounds, the estimate, the
 * families and sweep, and each group with why it would be skipped. */
static void render_check_plan(const struct run_ctx *x, const struct group_check *gc)
{
	const struct campaign *c = x->c;

	out_uint(OUT_ANY, "repeat",
		 c->repeat_auto ? "repeat      auto, at most %" PRIu64 " per group" : "repeat      %" PRIu64,
		 c->repeat);
	out_bool(OUT_JSON, "repeat_auto", NULL, c->repeat_auto);
	out_text(" (%zu group%s%s: %s%zu rounds)\n", c->n_groups, c->n_groups == 1 ? "" : "s",
		 c->n_sweep ? " x sweep" : "", c->repeat_auto ? "at most " : "",
		 c->n_groups * sweeps(c) * c->repeat);
	out_uint(OUT_ANY, "warmup", c->warmup ? "warmup      %" PRIu64 " rounds, not counted\n" : NULL,
		 c->warmup);
	render_design(x);
	render_estimate(x);
	out_string(OUT_ANY, "ablate", c->ablate ? "ablate      %s:" : NULL, c->ablate);
	out_open_array("families");
	for (size_t f = 0; f < c->ablation.n_families; f++) {
		out_open_object(NULL);
		out_string(OUT_ANY, "family", f ? ", %s" : " %s", ablation_family_name(&c->ablation, f));
		out_string(OUT_ANY, "label", " (%s)", c->ablation.families[f].label);
		out_close_object();
	}
	out_close_array();
	if (c->ablate)
		out_text("\n");
	out_string(OUT_ANY, "sweep", c->sweep_key ? "sweep       %s:" : NULL, c->sweep_key);
	out_open_array("sweep_values");
	for (size_t s = 0; s < c->n_sweep; s++)
		out_string(OUT_ANY, NULL, " %s", campaign_sweep_value(c, s));
	out_close_array();
	if (c->n_sweep)
		out_text("\n");
	out_open_array("groups");
	for (size_t g = 0; g < c->n_groups; g++) {
		const struct profile *p = gc[g].p;

		out_open_object(NULL);
		out_string(OUT_ANY, "group", "group       %s", c->groups[g].name);
		out_string(OUT_ANY, "file", " (%s)", c->groups[g].path);
		out_string(OUT_ANY, "runner", ": %s",
			   p->verify.runners.set ? p->verify.runners.value[0] : NULL);
		out_uint(OUT_ANY, "duration", " %" PRIu64 " s", p->verify.duration.value);
		out_string(OUT_ANY, "peer", " to %s", p->verify.peer.set ? p->verify.peer.value : NULL);
		out_string(OUT_ANY, "tune_peer", peerssh_wanted(p) ? ", tuning %s there too" : NULL,
			   peerssh_wanted(p) ? p->peer.ssh.value : NULL);
		out_string(OUT_JSON, "skipped", NULL, gc[g].why);
		if (gc[g].why) {
			out_int(OUT_ANY, "skipped_exit_code",
				": would be skipped (exit %" PRId64 "): ", gc[g].code);
			out_text("%s", gc[g].why);
		} else
			out_string(OUT_JSON, "skipped_exit_code", NULL, NULL);
		out_text("\n");
		out_close_object();
	}
	out_close_array();
}

/* --check: the rounds the campaign would run and each group planned
 * against this host (or --sysroot); nothing changed. The first line says
 * ok only when no group would be skipped. Exit 5 when one would be. */
static int render_check(struct run_ctx *x)
{
	const struct campaign *c = x->c;
	struct group_check *gc = calloc(c->n_groups ? c->n_groups : 1, sizeof(*gc));
	size_t skipped = 0;
	int code = EXIT_OK;

	if (!gc || cells_init(x) < 0) {
		free(gc);
		return log_error("out of memory"), EXIT_ERROR;
	}
	estimate(x);
	warn_undecidable(x);
	for (size_t g = 0; g < c->n_groups && code == EXIT_OK; g++) {
		struct profile_error err = {0};

		if (round_profile(x, g, 0, &gc[g].p, &err) < 0)
			code = EXIT_INVALID; /* campaign_load() loaded every one */
		else
			code = check_group(gc[g].p, &gc[g].why, &gc[g].code);
		skipped += gc[g].why != NULL;
	}
	if (code == EXIT_OK) {
		out_open_object(NULL);
		out_string(OUT_ANY, "name", "campaign    %s", c->name);
		out_string(OUT_ANY, "file", " (%s)", c->file);
		if (skipped)
			out_text(": %zu of %zu groups would be skipped\n", skipped, c->n_groups);
		else
			out_text(": ok\n");
		render_check_plan(x, gc);
		out_close_object();
	}
	for (size_t g = 0; g < c->n_groups; g++) {
		profile_free(gc[g].p);
		free(gc[g].why);
	}
	free(gc);
	cells_free(x);
	if (code != EXIT_OK)
		return code;
	if (skipped)
		log_error("campaign --check: %zu group%s would be skipped on this host", skipped,
			  skipped == 1 ? "" : "s");
	if (out_finish() < 0)
		return EXIT_ERROR;
	return skipped ? EXIT_PRECONDITION : EXIT_OK;
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
	if (i < 0 && k == KEEP_BEST) {
		log_warn(
		    "campaign: --keep best: no group was clearly better than the baseline (see the verdict): "
		    "nothing kept, every group rolled back");
		return EXIT_OK;
	}
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

/* The campaign of the command line: FILE, --ablate PROFILE or both
 * (the file's settings, the profile's groups), then --duration,
 * --repeat and --budget over the file's. */
static int campaign_from_args(char **args, const struct campaign_args *a, struct campaign **ret)
{
	_cleanup_campaign_ struct campaign *c = NULL;
	struct profile_error err = {0};
	int r;

	if (strv_length(args) > 1 || (!args[0] && !a->ablate)) {
		log_error("campaign: expected one campaign FILE (or --ablate PROFILE)");
		return EXIT_USAGE;
	}
	if (args[0])
		r = campaign_load(args[0], &c, &err);
	else
		r = campaign_new_ablation(a->ablate, &c, &err);
	if (r >= 0 && args[0] && a->ablate)
		r = campaign_set_ablate(c, a->ablate, &err);
	if (r < 0) {
		_cleanup_free_ char *msg = profile_error_format(&err);
		log_error("%s", msg ? msg : err.message);
		return profile_load_exit_code(r);
	}
	if (a->duration && c->sweep_key && streq(c->sweep_key, "verify.duration")) {
		log_error("campaign: --duration: %s sweeps verify.duration", c->file);
		return EXIT_USAGE;
	}
	if (a->duration)
		c->duration = a->duration;
	if (a->repeat > 0) {
		c->repeat = (unsigned)a->repeat;
		c->repeat_auto = false;
	} else if (a->repeat < 0 && !c->repeat_auto) {
		c->repeat = CAMPAIGN_MAX_ROUNDS;
		c->repeat_auto = true;
	}
	if (a->budget_s)
		c->budget_s = a->budget_s;
	if (a->keep == KEEP_BEST && (a->keep_value || c->n_sweep > 1)) {
		_cleanup_free_ char *values = NULL;
		bool known = false;

		for (size_t s = 0; s < c->n_sweep; s++) {
			char *t = strprintf("%s%s%s", values ? values : "", values ? ", " : "",
					    campaign_sweep_value(c, s));
			free(values);
			values = t;
			known |= a->keep_value && streq(a->keep_value, campaign_sweep_value(c, s));
		}
		if (!a->keep_value) {
			log_error("campaign: --keep best: %s sweeps %s over %s: the medians of different "
				  "benchmark settings do not compare; say which value: --keep best=VALUE",
				  c->file, c->sweep_key, strna(values));
			return EXIT_USAGE;
		}
		if (!known) {
			log_error("campaign: --keep best=%s: %s is not a value of %s's sweep of %s (%s)",
				  a->keep_value, a->keep_value, c->file,
				  c->n_sweep ? c->sweep_key : "anything", values ? values : "no sweep");
			return EXIT_USAGE;
		}
		c->keep_sweep = a->keep_value;
	}
	if (a->min_effect >= 0)
		c->min_effect_recv = a->min_effect;
	if (a->min_effect_loss >= 0)
		c->min_effect_loss = a->min_effect_loss;
	if (a->order >= 0)
		c->order = a->order;
	if (a->seed_set && c->order != SEQ_ORDER_SHUFFLE) {
		log_error("campaign: --seed: only with order shuffle (--order shuffle)");
		return EXIT_USAGE;
	}
	if (a->seed_set) {
		c->seed = a->seed;
		c->seed_set = true;
	}
	if (c->order == SEQ_ORDER_SHUFFLE && !c->seed_set) {
		c->seed = (uint64_t)history_now_usec() ^ ((uint64_t)getpid() << 32);
		c->seed_set = true;
	}
	*ret = TAKE_PTR(c);
	return EXIT_OK;
}

int verb_campaign(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_campaign_ struct campaign *c = NULL;
	_cleanup_history_ struct history *h = NULL;
	struct campaign_args a = {.min_effect = -1, .min_effect_loss = -1, .order = -1};
	struct run_ctx x = {.cli = cli};
	struct json_object *doc;
	enum campaign_status status;
	const char *kept_group = NULL;
	int64_t kept_txn = 0;
	int lock_fd = -1, r, code, keep_code = EXIT_OK;
	bool written = false;

	r = cli_parse(cli, cli->verb, argc, argv, handle_option, &a, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	code = campaign_from_args(args, &a, &c);
	if (code != EXIT_OK)
		return code;
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

	estimate(&x);
	warn_undecidable(&x);
	if (!out_is_json()) {
		render_estimate(&x);
		if (out_flush() == -EPIPE)
			x.output_closed = true;
	}
	code = run_rounds(&x);
	r = stats_compute(&x, verdict_level(&x));
	if (r < 0) {
		log_error_errno(r, "campaign: statistics: %m");
		if (code == EXIT_OK)
			code = EXIT_ERROR;
	}
	if ((code == EXIT_ROLLED_BACK || apply_interrupted() || x.output_closed) && x.not_restored) {
		log_error("campaign %" PRId64 " interrupted by %s: the host is NOT as before the campaign "
			  "(see the host line)",
			  x.id, interruption(&x));
		code = EXIT_ROLLBACK_FAILED;
		status = CAMPAIGN_INTERRUPTED;
		x.stopped = STOP_INTERRUPTED;
	} else if (code == EXIT_ROLLED_BACK) {
		log_error("campaign %" PRId64
			  " interrupted by %s: the round in progress was rolled back; the "
			  "host is as before the campaign",
			  x.id, interruption(&x));
		status = CAMPAIGN_INTERRUPTED;
		x.stopped = STOP_INTERRUPTED;
	} else if (code != EXIT_OK) {
		status = CAMPAIGN_FAILED;
		x.stopped = STOP_FAILED;
	} else {
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
	if (r < 0) {
		/* Its rounds are recorded, its outcome is not: never exit 0. */
		log_error("history %s: the campaign's summary was not recorded: %s (its rounds are; "
			  "the history still says it is running)",
			  cli->db_path, strerror(-r));
		if (code == EXIT_OK)
			code = EXIT_ERROR;
	}
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
	else if (doc && !x.output_closed)
		render_table(doc, written ? a.report : NULL);
	json_object_put(doc);
	cells_free(&x);
	if (out_finish() < 0 && code == EXIT_OK)
		code = EXIT_ERROR;
	if (h)
		mirror_opportunistic(h, NULL);
	return code;
}
