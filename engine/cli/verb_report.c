/* verb_report.c: `cx5prof report RUN... --dir DIR` and its `--hosts` form
 * (`report --hosts HOSTDIR... --dir DIR`, a fleet's report from the
 * directories its rollout wrote).
 *
 * Owns: the command line's checks, the document of ad-hoc runs (one group
 * a run, each with its thresholds and drop counters read back from the
 * run's evidence), the fleet's table for people, and the one message of a
 * failure. The directory is written by campaign/reportdir.c. Must never:
 * open a history database for --hosts, or touch the host. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <sys/stat.h>

#include "base/log.h"
#include "base/output.h"
#include "campaign/fleet.h"
#include "campaign/reportdir.h"
#include "campaign/runfacts.h"
#include "store/history.h"
#include "store/runs.h"
#include "verbkit.h"
#include "verbs.h"

enum { OPT_DIR = 1000, OPT_HOSTS };

const struct cli_option report_options[] = {
    {"dir", CLI_ARG_REQUIRED, OPT_DIR, "DIR",
     "write report.html, report.svg, report.json and the runs' bundles into DIR (created; must be empty)"},
    {"hosts", CLI_ARG_NONE, OPT_HOSTS, NULL,
     "the arguments are hosts' directories (run.json of `export`, host.json of the fleet playbook): one row "
     "per host"},
    {0},
};

struct report_args {
	const char *dir;
	bool hosts;
};

/* ---- `cx5prof report RUN... --dir DIR` ---- */

/* One run as a group of one round. */
static struct json_object *run_group(const struct run_record *run, double prev)
{
	struct json_object *g = json_object_new_object(), *rounds = json_object_new_array(),
			   *rd = json_object_new_object();
	const struct run_artifact *pa = run_record_artifact(run, "profile");
	_cleanup_free_ char *label = strprintf("run %" PRId64, run->id);
	bool measured = isfinite(run->loss_pct);

	json_object_object_add(g, "group", json_object_new_string(label ? label : "run"));
	json_object_object_add(g, "description", run->profile ? json_object_new_string(run->profile) : NULL);
	json_object_object_add(g, "skipped", NULL);
	json_object_object_add(g, "median_recv_mbps", json_object_new_double(run->recv_mbps));
	json_object_object_add(g, "min_recv_mbps", json_object_new_double(run->recv_mbps));
	json_object_object_add(g, "max_recv_mbps", json_object_new_double(run->recv_mbps));
	json_object_object_add(g, "median_loss_percent",
			       measured ? json_object_new_double(run->loss_pct) : NULL);
	json_object_object_add(g, "drops", runfacts_run_drops(run));
	json_object_object_add(
	    g, "change_percent",
	    isnan(prev) || prev <= 0 ? NULL : json_object_new_double(100 * (run->recv_mbps - prev) / prev));
	json_object_object_add(g, "profile", pa && pa->content ? json_tokener_parse(pa->content) : NULL);
	json_object_object_add(rd, "run", json_object_new_int64(run->id));
	json_object_object_add(rd, "result", json_object_new_string(run_record_outcome(run)));
	json_object_object_add(rd, "recv_mbps", json_object_new_double(run->recv_mbps));
	json_object_object_add(rd, "loss_percent", measured ? json_object_new_double(run->loss_pct) : NULL);
	json_object_object_add(rd, "thresholds", runfacts_run_thresholds(run));
	json_object_object_add(rd, "drops", runfacts_run_drops(run));
	json_object_object_add(rd, "limited_by",
			       run->limited_by ? json_object_new_string(run->limited_by) : NULL);
	json_object_array_add(rounds, rd);
	json_object_object_add(g, "rounds", rounds);
	json_object_object_add(g, "limited_by",
			       run->limited_by ? json_object_new_string(run->limited_by) : NULL);
	json_object_object_add(g, "limited_by_rounds", run->limited_by ? json_object_new_int(1) : NULL);
	return g;
}

/* The document of ad-hoc runs: one group per run, in the given order. */
static int runs_doc(struct history *h, char **ids, struct json_object **ret)
{
	struct json_object *o = json_object_new_object(), *groups = json_object_new_array();
	double prev = NAN;

	json_object_object_add(o, "campaign", NULL);
	json_object_object_add(o, "name", json_object_new_string("runs"));
	json_object_object_add(o, "groups", groups);
	for (size_t i = 0; ids[i]; i++) {
		_cleanup_(run_record_done) struct run_record run = {0};
		int64_t id;
		int r;

		if (safe_atoi64(ids[i], &id) < 0 || id <= 0) {
			log_error("report: '%s' is not a run number", ids[i]);
			json_object_put(o);
			return EXIT_USAGE;
		}
		r = runs_get(h, id, &run);
		if (r < 0) {
			if (r == -ENOENT)
				log_error("report: no run %" PRId64 " in %s", id, history_path(h));
			else
				log_error_errno(r, "history %s: %m: %s", history_path(h), history_remedy(r));
			json_object_put(o);
			return r == -ENOENT ? EXIT_NOT_FOUND : EXIT_ERROR;
		}
		json_object_array_add(groups, run_group(&run, prev));
		prev = run.recv_mbps;
	}
	*ret = o;
	return EXIT_OK;
}

/* ---- `cx5prof report --hosts DIR... --dir DIR` ---- */

/* A row's value for people: "-" when unset, yes/no, numbers with the
 * given decimals, a failed outcome as history prints it (FAIL). */
static const char *text_of(struct json_object *row, const char *key, int decimals, char *buf, size_t size)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(row, key, &v) || !v)
		return "-";
	if (json_object_is_type(v, json_type_boolean))
		return json_object_get_boolean(v) ? "yes" : "no";
	if (json_object_is_type(v, json_type_double) || (decimals && json_object_is_type(v, json_type_int))) {
		snprintf(buf, size, "%.*f", decimals, json_object_get_double(v));
		return buf;
	}
	if (streq(key, "outcome") && streq(json_object_get_string(v), "fail"))
		return "FAIL";
	return json_object_get_string(v);
}

/* The table, one line per host: every cell escaped (str_escape_line), so
 * a newline in a reason adds no line and a bidirectional control
 * reorders nothing. */
static int print_rows(struct json_object *rows)
{
	static const char *const keys[] = {"host",	"profile",	"transaction", "changed",   "outcome",
					   "recv_mbps", "loss_percent", "drift",       "exit_code", "reason"};
	static const int decimals[] = {0, 0, 0, 0, 0, 1, 2, 0, 0, 0};

	out_text("%-16s %-16s %4s %-7s %-7s %9s %7s %5s %4s  %s\n", "HOST", "PROFILE", "TXN", "CHANGED",
		 "VERIFY", "RECV_MBPS", "LOSS_%", "DRIFT", "EXIT", "REASON");
	for (size_t i = 0; i < json_object_array_length(rows); i++) {
		struct json_object *row = json_object_array_get_idx(rows, i);
		char *c[ARRAY_SIZE(keys)] = {0};
		char b[32];
		bool ok = true;

		for (size_t k = 0; k < ARRAY_SIZE(keys); k++)
			ok = ok && (c[k] = str_escape_line(text_of(row, keys[k], decimals[k], b, sizeof(b))));
		if (ok)
			out_text("%-16s %-16s %4s %-7s %-7s %9s %7s %5s %4s  %s\n", c[0], c[1], c[2], c[3],
				 c[4], c[5], c[6], c[7], c[8], c[9]);
		for (size_t k = 0; k < ARRAY_SIZE(keys); k++)
			free(c[k]);
		if (!ok)
			return -ENOMEM;
	}
	return 0;
}

/* `report --hosts DIR... --dir OUT`: one report of a fleet, a row per
 * host, from the directories its rollout wrote (fleet.h), as a table here
 * and report.html plus hosts.json in OUT; no history is opened. */
static int report_of_hosts(char **dirs, const char *out)
{
	_cleanup_free_ char *why = NULL, *page = NULL, *shown = NULL;
	struct json_object *doc = NULL, *rows;
	const char *verdict;
	int r;

	if (!dirs[0] || !out) {
		log_error("report: --hosts expects the hosts' directories and --dir DIR");
		return EXIT_USAGE;
	}
	r = fleet_report_doc(dirs, &doc, &why);
	if (r < 0) {
		log_error("report: %s", why ? why : strerror(-r));
		return r == -ENOENT ? EXIT_NOT_FOUND : r == -EINVAL ? EXIT_INVALID : EXIT_ERROR;
	}
	r = report_dir_write_hosts(out, doc);
	if (r < 0) {
		json_object_put(doc);
		log_error_errno(r, "report: cannot write into %s: %m%s", out,
				r == -ENOTEMPTY ? ": choose a new or empty directory" : "");
		return r == -ENOTEMPTY ? EXIT_CANT_CREATE : EXIT_ERROR;
	}
	rows = json_object_object_get(doc, "hosts");
	page = strprintf("%s/report.html", out);
	out_open_object(NULL);
	out_string(OUT_ANY, "report", "report      %s\n", page);
	verdict = json_object_get_string(json_object_object_get(doc, "verdict"));
	shown = str_escape_line(verdict);
	out_string(OUT_JSON, "verdict", NULL, verdict);
	out_text("verdict     %s\n", strna(shown));
	r = out_is_json() ? 0 : print_rows(rows);
	out_json("hosts", json_object_get(rows));
	out_close_object();
	json_object_put(doc);
	if (!shown || r < 0)
		return log_error("out of memory"), EXIT_ERROR;
	return out_finish() < 0 ? EXIT_ERROR : EXIT_OK;
}

static int handle_option(int id, const char *arg, void *userdata)
{
	struct report_args *a = userdata;

	if (id == OPT_HOSTS)
		a->hosts = true;
	else if (id == OPT_DIR)
		a->dir = arg;
	else
		return EXIT_USAGE;
	return 0;
}

int verb_report(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_history_ struct history *h = NULL;
	struct json_object *doc = NULL;
	struct report_args a = {0};
	const char *dir;
	int r, code;

	r = cli_parse(cli, cli->verb, argc, argv, handle_option, &a, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	if (a.hosts)
		return report_of_hosts(args, a.dir);
	dir = a.dir;
	if (!args[0] || !dir) {
		log_error("report: expected run ids and --dir DIR");
		return EXIT_USAGE;
	}
	r = txn_verb_open_history(cli, HISTORY_READ_ONLY, &h);
	if (r != EXIT_OK)
		return r;
	code = runs_doc(h, args, &doc);
	if (code != EXIT_OK)
		return code;
	r = report_dir_check(dir);
	if (r >= 0)
		r = report_dir_write(dir, h, doc, "report.json");
	json_object_put(doc);
	if (r < 0)
		return report_dir_failed("report", dir, r);
	out_open_object(NULL);
	out_string(OUT_ANY, "report", "report      %s/report.html\n", dir);
	out_uint(OUT_JSON, "runs", NULL, strv_length(args));
	out_close_object();
	return out_finish() < 0 ? EXIT_ERROR : EXIT_OK;
}
