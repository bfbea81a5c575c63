/* verb_tune.c: `cx5prof tune [PROFILE] [--peer ADDR] [--goal-mbps N]
 * [--max-loss PCT] [--budget DURATION] [--min-effect PCT] [--out FILE]
 * [--keep] [--report DIR] [--dry-run] [--only FAMILY,...] [--skip
 * FAMILY,...]`.
 *
 * Owns: the options, the history and lock around the session, writing
 * --report, and the table people read, printed from the
 * session document that engine/tune/tune.c builds. Must never: run a
 * round or decide a step itself. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>

#include "base/jsonget.h"
#include "base/log.h"
#include "base/output.h"
#include "campaign/campaignfile.h"
#include "campaign/reportdir.h"
#include "mirror/mirror.h"
#include "peer/peerssh.h"
#include "profile.h"
#include "store/history.h"
#include "store/lock.h"
#include "tune/tune.h"
#include "tune/tunereport.h"
#include "verbkit.h"
#include "verbs.h"

enum {
	OPT_PEER = 1000,
	OPT_GOAL,
	OPT_MAX_LOSS,
	OPT_BUDGET,
	OPT_MIN_EFFECT,
	OPT_MIN_EFFECT_LOSS,
	OPT_OUT,
	OPT_KEEP,
	OPT_REPORT,
	OPT_DRY_RUN,
	OPT_ONLY,
	OPT_SKIP,
	OPT_MAX_ROUNDS,
	OPT_SSH_COMMANDS,
};

const struct cli_option tune_options[] = {
    {"peer", CLI_ARG_REQUIRED, OPT_PEER, "ADDR", "benchmark against ADDR instead of verify.peer"},
    {"goal-mbps", CLI_ARG_REQUIRED, OPT_GOAL, "N", "stop once the median receive throughput reaches N Mbps"},
    {"max-loss", CLI_ARG_REQUIRED, OPT_MAX_LOSS, "PCT", "and the median loss is at most PCT percent"},
    {"budget", CLI_ARG_REQUIRED, OPT_BUDGET, "DURATION",
     "stop starting rounds after DURATION (90s, 15m, 2h) of wall-clock time"},
    {"min-effect", CLI_ARG_REQUIRED, OPT_MIN_EFFECT, "PCT",
     "throughput margin: a change within +-PCT% makes no meaningful difference (default 8)"},
    {"min-effect-loss", CLI_ARG_REQUIRED, OPT_MIN_EFFECT_LOSS, "PP",
     "loss margin in percentage points (default 1)"},
    {"max-rounds", CLI_ARG_REQUIRED, OPT_MAX_ROUNDS, "N",
     "rounds per group and candidate at most (default 10)"},
    {"out", CLI_ARG_REQUIRED, OPT_OUT, "FILE", "write the minimal profile to FILE (default: printed)"},
    {"keep", CLI_ARG_NONE, OPT_KEEP, NULL,
     "apply the minimal profile as one committed transaction at the end (default: as it began)"},
    {"report", CLI_ARG_REQUIRED, OPT_REPORT, "DIR",
     "write report.html and tune.json into DIR (new or empty)"},
    {"dry-run", CLI_ARG_NONE, OPT_DRY_RUN, NULL,
     "diagnose and list the candidates with their evidence; run no benchmark, change nothing"},
    {"only", CLI_ARG_REQUIRED, OPT_ONLY, "FAMILY,...", "try only these rule families"},
    {"skip", CLI_ARG_REQUIRED, OPT_SKIP, "FAMILY,...", "never try these rule families"},
    {"allow-ssh-commands", CLI_ARG_NONE, OPT_SSH_COMMANDS, NULL,
     "let peer.ssh_config run commands here (ProxyCommand, LocalCommand, Match exec...)"},
    {0},
};

struct tune_args {
	struct tune_options o;
	const char *report;
	bool dry_run;
};

static int number(const char *opt, const char *arg, double min, double max, double *ret)
{
	char *end = NULL;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || !end || end == arg || *end || !(v >= min && v <= max)) {
		log_error("tune: %s takes a number from %g to %g, not '%s'", opt, min, max, arg);
		return EXIT_USAGE;
	}
	*ret = v;
	return 0;
}

static int families(const char *opt, const char *arg, char ***ret)
{
	_cleanup_free_ char *bad = NULL;
	int r = tune_parse_families(arg, ret, &bad);

	if (r == -EINVAL) {
		log_error("tune: %s: no rule family '%s' (see `cx5prof tune --help` and docs/tune.md)", opt,
			  strna(bad));
		return EXIT_USAGE;
	}
	return r < 0 ? EXIT_ERROR : 0;
}

static int handle_option(int id, const char *arg, void *userdata)
{
	struct tune_args *a = userdata;
	double v;
	int r;

	switch (id) {
	case OPT_PEER:
		if (!profile_peer_valid(arg)) {
			log_error("tune: --peer '%s' is not an IP address or a host name", arg);
			return EXIT_USAGE;
		}
		a->o.peer = arg;
		return 0;
	case OPT_GOAL:
		return number("--goal-mbps", arg, 0.001, 1e7, &a->o.goal_mbps);
	case OPT_MAX_LOSS:
		return number("--max-loss", arg, 0, 100, &a->o.max_loss);
	case OPT_BUDGET:
		if (campaign_parse_duration(arg, &a->o.budget_s) < 0) {
			log_error("tune: --budget takes a duration such as 900, 90s, 15m or 2h, not '%s'",
				  arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_MIN_EFFECT:
	case OPT_MIN_EFFECT_LOSS:
		if (campaign_parse_margin(arg, id == OPT_MIN_EFFECT_LOSS,
					  id == OPT_MIN_EFFECT_LOSS ? &a->o.min_effect_loss
								    : &a->o.min_effect) < 0) {
			log_error(id == OPT_MIN_EFFECT_LOSS
				      ? "tune: --min-effect-loss takes percentage points below 100 (1, "
					"0.5pp), not '%s'"
				      : "tune: --min-effect takes a percent below 1000 (5, 3%%), not '%s'",
				  arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_MAX_ROUNDS:
		r = number("--max-rounds", arg, 5, CAMPAIGN_MAX_REPEAT, &v);
		if (r == 0 && v != floor(v)) {
			log_error("tune: --max-rounds takes a whole number, not '%s'", arg);
			return EXIT_USAGE;
		}
		a->o.max_rounds = (unsigned)v;
		return r;
	case OPT_OUT:
		a->o.out = arg;
		return 0;
	case OPT_KEEP:
		a->o.keep = true;
		return 0;
	case OPT_REPORT:
		a->report = arg;
		return 0;
	case OPT_DRY_RUN:
		a->dry_run = true;
		return 0;
	case OPT_ONLY:
		return families("--only", arg, &a->o.only);
	case OPT_SKIP:
		return families("--skip", arg, &a->o.skip);
	case OPT_SSH_COMMANDS:
		peerssh_allow_commands(true);
		return 0;
	}
	return EXIT_USAGE;
}

static void render_dry_run(struct json_object *doc)
{
	struct json_object *diag = json_object_object_get(doc, "diagnosis"),
			   *cand = json_object_object_get(doc, "candidates"),
			   *later = json_object_object_get(doc, "after_baseline");

	out_text("profile     %s\n", strna(jstr(doc, "profile")));
	for (size_t i = 0; i < json_object_array_length(diag); i++) {
		struct json_object *d = json_object_array_get_idx(diag, i);
		out_text("doctor      %s %s %s: %s\n", strna(jstr(d, "status")), strna(jstr(d, "object")),
			 strna(jstr(d, "check")), strna(jstr(d, "detail")));
	}
	for (size_t i = 0; i < json_object_array_length(cand); i++) {
		struct json_object *c = json_object_array_get_idx(cand, i),
				   *ch = json_object_object_get(c, "change");
		char keys[256] = "";
		size_t n = 0;

		json_object_object_foreach(ch, k, v)
		{
			n += (size_t)snprintf(keys + n, n < sizeof(keys) ? sizeof(keys) - n : 0, "%s%s: %s",
					      n ? ", " : "", k, json_object_get_string(v));
		}
		out_text("candidate   %-10s %s%s%s <- %s%s%s\n", strna(jstr(c, "family")), keys,
			 json_object_get_boolean(json_object_object_get(c, "needs_peer")) ? " (both ends)"
											  : "",
			 json_object_get_boolean(json_object_object_get(c, "link_down"))
			     ? " (takes the link down briefly)"
			     : "",
			 strna(jstr(c, "evidence")), jstr(c, "skipped") ? "; skipped: " : "",
			 jstr(c, "skipped") ? jstr(c, "skipped") : "");
	}
	if (json_object_array_length(cand) == 0)
		out_text("candidate   none from what can be read without traffic\n");
	if (json_object_array_length(later)) {
		out_text("after the baseline rounds, the loss ledger decides:");
		for (size_t i = 0; i < json_object_array_length(later); i++)
			out_text(" %s", json_object_get_string(json_object_array_get_idx(later, i)));
		out_text("\n");
	}
	out_text("estimate    at most %d s (3 baseline rounds, then two groups of at most %d rounds per "
		 "candidate)\n",
		 json_object_get_int(json_object_object_get(doc, "estimate_s")),
		 json_object_get_int(json_object_object_get(doc, "max_rounds")));
}

static void render_figures(const char *label, struct json_object *f)
{
	struct json_object *r = json_object_object_get(f, "median_recv_mbps"),
			   *l = json_object_object_get(f, "median_loss_percent");

	out_text("%-11s ", label);
	if (r)
		out_text("%.1f Mbps", json_object_get_double(r));
	else
		out_text("not measured");
	if (l)
		out_text("  loss %.2f%%", json_object_get_double(l));
	out_text("  limited by %s\n", jstr(f, "limited_by") ? jstr(f, "limited_by") : "unknown");
}

static void render_session(struct json_object *doc)
{
	struct json_object *steps = json_object_object_get(doc, "steps"),
			   *kept = json_object_object_get(doc, "kept");
	const char *stopped = jstr(doc, "stopped");

	out_text("\n%-4s %-13s %-10s %-9s %6s  %s\n", "step", "kind", "family", "outcome", "rounds",
		 "against the profile before it: receive throughput; loss (why)");
	for (size_t i = 0; i < json_object_array_length(steps); i++) {
		struct json_object *s = json_object_array_get_idx(steps, i);
		out_text("%-4d %-13s %-10s %-9s %6d  %s; %s  (%s)\n",
			 json_object_get_int(json_object_object_get(s, "step")), strna(jstr(s, "kind")),
			 strna(jstr(s, "family")), strna(jstr(s, "outcome")),
			 json_object_get_int(json_object_object_get(s, "rounds")),
			 strna(jstr(s, "recv_text")), strna(jstr(s, "loss_text")), strna(jstr(s, "why")));
	}
	render_figures("baseline", json_object_object_get(doc, "baseline"));
	render_figures("final", json_object_object_get(doc, "final"));
	for (size_t i = 0; i < json_object_array_length(kept); i++)
		out_text(
		    "kept        %s (step %d): %s\n",
		    strna(jstr(json_object_array_get_idx(kept, i), "family")),
		    json_object_get_int(json_object_object_get(json_object_array_get_idx(kept, i), "step")),
		    strna(jstr(json_object_array_get_idx(kept, i), "effect")));
	if (!json_object_array_length(kept))
		out_text("kept        nothing: no change was shown to help\n");
	if (jstr(doc, "application_note"))
		out_text("note        %s\n", jstr(doc, "application_note"));
	out_text("stopped     %s%s%s\n",
		 streq_ptr(stopped, "goal")	      ? "the goal is reached"
		 : streq_ptr(stopped, "nothing-left") ? "no candidate left to try"
		 : streq_ptr(stopped, "budget")	      ? "the budget is spent"
		 : streq_ptr(stopped, "interrupted")  ? "interrupted; both hosts restored"
						      : "failed",
		 jstr(doc, "stop_note") ? ": " : "", jstr(doc, "stop_note") ? jstr(doc, "stop_note") : "");
	out_text("session     %" PRId64 ", %d rounds in %.0f s\n",
		 json_object_get_int64(json_object_object_get(doc, "tune")),
		 json_object_get_int(json_object_object_get(doc, "rounds")),
		 json_object_get_double(json_object_object_get(doc, "elapsed_s")));
}

int verb_tune(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_history_ struct history *h = NULL;
	struct tune_args a = {.o = {.max_loss = -1,
				    .min_effect = -1,
				    .min_effect_loss = -1,
				    .max_rounds = TUNE_DEFAULT_MAX_ROUNDS,
				    .db_path = cli->db_path,
				    .say = txn_verb_say,
				    .outcome = txn_verb_outcome}};
	struct json_object *doc = NULL;
	int lock_fd = -1, r, code;

	r = cli_parse(cli, cli->verb, argc, argv, handle_option, &a, &args);
	if (r != 0) {
		strv_free(a.o.only);
		strv_free(a.o.skip);
		return r < 0 ? EXIT_OK : r;
	}
	a.o.profile = args ? args[0] : NULL;
	a.o.reverse = streq_ptr(getenv("CX5PROF_TEST_TUNE_ORDER"), "reverse");
	code = EXIT_OK;
	if (strv_length(args) > 1) {
		log_error("tune: one PROFILE at most");
		code = EXIT_USAGE;
	} else if (!a.o.profile && !a.o.peer) {
		log_error("tune: say where to benchmark: a PROFILE with verify.peer, or --peer ADDR");
		code = EXIT_USAGE;
	} else if (a.dry_run && (a.o.keep || a.report)) {
		log_error("tune: --dry-run runs nothing: no --keep or --report with it");
		code = EXIT_USAGE;
	} else if (a.report && (r = report_dir_check(a.report)) < 0) {
		log_error_errno(r, "tune: --report %s: %m%s", a.report,
				r == -ENOTEMPTY ? ": choose a new or empty directory" : "");
		code = r == -ENOTEMPTY ? EXIT_CANT_CREATE : EXIT_ERROR;
	}
	if (code == EXIT_OK && a.dry_run) {
		code = tune_dry_run(&a.o, &doc);
		if (doc && out_is_json())
			out_json(NULL, json_object_get(doc));
		else if (doc)
			render_dry_run(doc);
	} else if (code == EXIT_OK) {
		code = txn_verb_open_history(cli, 0, &h);
		if (code == EXIT_OK)
			code = txn_verb_lock(cli, 0, &lock_fd);
		if (code == EXIT_OK)
			code = txn_verb_refuse_unfinished(h);
		if (code == EXIT_OK) {
			a.o.h = TAKE_PTR(h);
			code = tune_run(&a.o, &doc);
			h = a.o.h;
		}
		lock_release(lock_fd);
		if (doc && a.report) {
			_cleanup_free_ char *html = NULL;
			r = tune_report_html(doc, &html);
			if (r >= 0)
				r = report_dir_write_page(a.report, html, doc, "tune.json");
			if (r < 0) {
				int failed = report_dir_failed("tune", a.report, r);
				code = code == EXIT_OK ? failed : code;
			}
		}
		if (doc && out_is_json())
			out_json(NULL, json_object_get(doc));
		else if (doc) {
			render_session(doc);
			if (!a.o.out && jstr(doc, "profile_yaml"))
				out_text("\n%s", jstr(doc, "profile_yaml"));
			else if (a.o.out)
				out_text("profile     %s\n", a.o.out);
		}
	}
	json_object_put(doc);
	strv_free(a.o.only);
	strv_free(a.o.skip);
	if (out_finish() < 0 && code == EXIT_OK)
		code = EXIT_ERROR;
	if (h)
		mirror_opportunistic(h, NULL);
	return code;
}
