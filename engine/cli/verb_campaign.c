/* verb_campaign.c: `cx5prof campaign FILE [--report DIR] [--keep WHICH]
 * [--check]`.
 *
 * Owns: the campaign's options over its file, --check's plan of every
 * group, and the table people read, printed from the campaign document
 * that engine/campaign/rounds.c builds. Must never: run a round itself
 * (the runner does), or print a figure the document does not hold. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>

#include "apply.h"
#include "base/jsonget.h"
#include "base/log.h"
#include "base/output.h"
#include "base/stats.h"
#include "campaign/campaignfile.h"
#include "campaign/reportdir.h"
#include "campaign/rounds.h"
#include "campaign/sequential.h"
#include "campaign/verdict.h"
#include "mirror/mirror.h"
#include "peer/peerssh.h"
#include "plan.h"
#include "store/history.h"
#include "store/lock.h"
#include "verbkit.h"
#include "verbs.h"
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
	enum campaign_keep keep;
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
			a->keep = CAMPAIGN_KEEP_BEST;
			a->keep_value = arg + 5;
			return 0;
		}
		for (int i = 0; campaign_keep_names[i]; i++)
			if (streq(arg, campaign_keep_names[i])) {
				a->keep = (enum campaign_keep)i;
				return 0;
			}
		log_error("campaign: --keep takes none, first, last or best, not '%s'", arg);
		return EXIT_USAGE;
	}
	return EXIT_USAGE;
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
			      jstr(g, "group"), jstr(g, "sweep_value") ? " " : "",
			      jstr(g, "sweep_value") ? jstr(g, "sweep_value") : "", m, d);
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
	const char *v = jstr(g, "limited_by"), *label = ledger_stage_label(v);
	struct json_object *rounds = json_object_object_get(g, "rounds");
	int k = json_object_get_int(json_object_object_get(g, "limited_by_rounds"));
	size_t n = 0;

	for (size_t i = 0; rounds && i < json_object_array_length(rounds); i++)
		n += campaign_round_limited_by(json_object_array_get_idx(rounds, i)) != NULL;
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
				    !streq_ptr(jstr(next, "result"), jstr(r, "result")) ||
				    !streq_ptr(jstr(next, "error"), jstr(r, "error")))
					break;
				last = json_object_get_int(json_object_object_get(next, "repetition"));
				k++;
			}
			char which[48];
			if (last == first)
				snprintf(which, sizeof(which), "round %d", first);
			else
				snprintf(which, sizeof(which), "rounds %d-%d", first, last);
			out_text("excluded    %s%s%s %s: %s: %s\n", jstr(g, "group"),
				 jstr(g, "sweep_value") ? " " : "", strempty(jstr(g, "sweep_value")), which,
				 jstr(r, "result"), strna(jstr(r, "error")));
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
			 100 * jnum(recv, "confidence"), 100 * jnum(loss, "confidence"));
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
	double alpha = jnum(st, "alpha");

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
			 strna(jstr(st, "spending")), 100 * jnum(st, "level"));
	if (me)
		out_text("margin ±%g%% throughput, ±%g pp loss; ", jnum(me, "throughput_percent"),
			 jnum(me, "loss_points"));
	if (jstr(st, "order"))
		out_text("order %s", jstr(st, "order"));
	if (json_object_object_get(st, "seed"))
		out_text(" (seed %" PRId64 ")", json_object_get_int64(json_object_object_get(st, "seed")));
	out_text("%sa false better, worse or no meaningful difference: at most %.0f%% for throughput and "
		 "%.0f%% for loss (%.0f%% both "
		 "together)\n",
		 jstr(st, "order") ? "; " : "", 100 * alpha, 100 * alpha, 200 * alpha);
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
		if (jstr(f, "skipped"))
			out_text("%-24s not applied: %s\n", jstr(f, "label"), jstr(f, "skipped"));
		else
			out_text("%-24s %-32s %s\n", jstr(f, "label"), alone, inside);
		if (jstr(f, "interaction"))
			out_text("%-24s interaction: %s\n", "", jstr(f, "interaction"));
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
	const char *stopped = strempty(jstr(doc, "stopped"));

	out_text("time        %.0f s (estimate %d s)", jnum(doc, "elapsed_s"),
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
				double v = jnum(th, "value");

				if (!streq_ptr(jstr(th, "status"), "fail"))
					continue;
				out_text("failed      %s%s%s round %d: %s %s %g %s: ", jstr(g, "group"),
					 jstr(g, "sweep_value") ? " " : "", strempty(jstr(g, "sweep_value")),
					 json_object_get_int(json_object_object_get(rd, "repetition")),
					 strna(jstr(th, "label")), strna(jstr(th, "op")), jnum(th, "limit"),
					 strna(jstr(th, "unit")));
				if (isnan(v))
					out_text("%s\n", strna(jstr(th, "note")));
				else
					out_text("%.2f %s\n", v, strna(jstr(th, "unit")));
			}
		}
	}
}

/* The table people read, from the document. */
static void render_table(struct json_object *doc, const char *report_dir)
{
	struct json_object *groups, *sweep, *not_restored;
	bool has_sweep = json_object_object_get_ex(doc, "sweep", &sweep) && sweep;
	const char *kept = jstr(doc, "kept_group");
	int reps = json_object_get_int(json_object_object_get(doc, "repetitions"));
	char most[32] = "";

	json_object_object_get_ex(doc, "groups", &groups);

	if (json_object_get_boolean(json_object_object_get(doc, "repeat_auto")))
		snprintf(most, sizeof(most), " of at most %d",
			 json_object_get_int(json_object_object_get(doc, "repeat")));
	out_text("campaign    %s (campaign %" PRId64 ", %s, %d repetition%s%s, %" PRId64 " run%s)\n",
		 jstr(doc, "name"), json_object_get_int64(json_object_object_get(doc, "campaign")),
		 jstr(doc, "status"), reps, reps == 1 ? "" : "s", most,
		 json_object_get_int64(json_object_object_get(doc, "runs")),
		 json_object_get_int64(json_object_object_get(doc, "runs")) == 1 ? "" : "s");
	out_text("%-16s %s%-5s %11s  %-19s %7s  %-14s %-8s  %s\n", "group", has_sweep ? "value    " : "",
		 "runs", "median Mbps", "min-max Mbps", "loss %", "irq spread", "drops", "limited by");
	for (size_t i = 0; i < json_object_array_length(groups); i++) {
		struct json_object *g = json_object_array_get_idx(groups, i), *d;
		double med = jnum(g, "median_recv_mbps");
		char range[48] = "-", drops[32] = "n/a", value[16] = "", mbps[24] = "-", loss[24] = "-",
		     line[320], limited[64];
		size_t n = 0;

		if (has_sweep)
			snprintf(value, sizeof(value), "%-8s ", jstr(g, "sweep_value"));
		if (jstr(g, "skipped")) {
			out_text("%-16s %s%-5s skipped (exit %d): %s\n", jstr(g, "group"), value, "-",
				 json_object_get_int(json_object_object_get(g, "skipped_exit_code")),
				 jstr(g, "skipped"));
			continue;
		}
		n = (size_t)json_object_get_int(json_object_object_get(g, "rounds_counted"));
		if (!isnan(med)) {
			snprintf(mbps, sizeof(mbps), "%.1f", med);
			snprintf(range, sizeof(range), "%.1f-%.1f", jnum(g, "min_recv_mbps"),
				 jnum(g, "max_recv_mbps"));
			snprintf(loss, sizeof(loss), "%.2f", jnum(g, "median_loss_percent"));
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
			 jstr(g, "group"), value, n, mbps, range, loss, jstr(g, "irq_spread"), drops,
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
	out_text("verdict     %s\n", strna(jstr(doc, "verdict")));
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

/* "margin      ±5% throughput, ±1 pp loss; looks after rounds 5-10;
 * order alternate": the design, before the first round. */
static void render_design(const struct campaign_run *x)
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
static void render_estimate(const struct campaign_run *x)
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

/* One group of --check: its round profile and, when it would be skipped,
 * why (and the exit code). */
struct group_check {
	struct profile *p;
	char *why;
	int code;
};

/* The body of --check's document: the rounds, the estimate, the
 * families and sweep, and each group with why it would be skipped. */
static void render_check_plan(const struct campaign_run *x, const struct group_check *gc)
{
	const struct campaign *c = x->c;

	out_uint(OUT_ANY, "repeat",
		 c->repeat_auto ? "repeat      auto, at most %" PRIu64 " per group" : "repeat      %" PRIu64,
		 c->repeat);
	out_bool(OUT_JSON, "repeat_auto", NULL, c->repeat_auto);
	out_text(" (%zu group%s%s: %s%zu rounds)\n", c->n_groups, c->n_groups == 1 ? "" : "s",
		 c->n_sweep ? " x sweep" : "", c->repeat_auto ? "at most " : "",
		 c->n_groups * campaign_sweeps(c) * c->repeat);
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
static int render_check(struct campaign_run *x)
{
	const struct campaign *c = x->c;
	struct group_check *gc = calloc(c->n_groups ? c->n_groups : 1, sizeof(*gc));
	size_t skipped = 0;
	int code = EXIT_OK;

	if (!gc || campaign_run_prepare(x) < 0) {
		free(gc);
		campaign_run_done(x);
		return log_error("out of memory"), EXIT_ERROR;
	}
	for (size_t g = 0; g < c->n_groups && code == EXIT_OK; g++) {
		struct profile_error err = {0};

		if (campaign_run_profile(x, g, 0, &gc[g].p, &err) < 0)
			code = EXIT_INVALID; /* campaign_load() loaded every one */
		else
			code = campaign_check_group(gc[g].p, &gc[g].why, &gc[g].code);
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
	campaign_run_done(x);
	if (code != EXIT_OK)
		return code;
	if (skipped)
		log_error("campaign --check: %zu group%s would be skipped on this host", skipped,
			  skipped == 1 ? "" : "s");
	if (out_finish() < 0)
		return EXIT_ERROR;
	return skipped ? EXIT_PRECONDITION : EXIT_OK;
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
	if (a->keep == CAMPAIGN_KEEP_BEST && (a->keep_value || c->n_sweep > 1)) {
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
	struct campaign_run x = {.db_path = cli->db_path, .say = txn_verb_say, .outcome = txn_verb_outcome};
	struct json_object *doc = NULL;
	int lock_fd = -1, r, code;
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
		if (campaign_run_profile(&x, g, 0, &gp, NULL) >= 0 &&
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
	x.h = TAKE_PTR(h);
	r = campaign_run_start(&x);
	if (r >= 0)
		r = campaign_run_prepare(&x);
	if (r < 0) {
		log_error_errno(r, "history %s: cannot record the campaign: %m: %s", history_path(x.h),
				history_remedy(r));
		h = x.h;
		campaign_run_done(&x);
		lock_release(lock_fd);
		return EXIT_ERROR;
	}
	if (!out_is_json()) {
		render_estimate(&x);
		if (out_flush() == -EPIPE)
			x.output_closed = true;
	}
	code = campaign_run_rounds(&x);
	code = campaign_run_finish(&x, code, a.keep, &doc);
	h = x.h; /* a transaction may have reopened the history */
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
	campaign_run_done(&x);
	if (out_finish() < 0 && code == EXIT_OK)
		code = EXIT_ERROR;
	if (h)
		mirror_opportunistic(h, NULL);
	return code;
}
