/* verb_report.c: `cx5prof report RUN... --dir DIR` (and its `--hosts`
 * form, verb_report_hosts.c), and the report directory `campaign --report
 * DIR` writes too.
 *
 * Owns: the report directory: checked before anything runs (a new path,
 * or an empty directory), then written whole into a temporary directory
 * beside it (report.html, report.svg, the document as campaign.json or
 * report.json, one runs/run-N/ bundle per run) and renamed into place, so
 * that a failure leaves DIR as it was and nothing half-written; and the
 * document of ad-hoc runs (one group a run, each with its thresholds and
 * drop counters read back from the run's evidence). Must never: write
 * outside DIR and its temporary sibling, or leave the sibling behind. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <sys/stat.h>

#include "base/log.h"
#include "base/output.h"
#include "campaign/bundle.h"
#include "campaign/report.h"
#include "campaign/runfacts.h"
#include "store/history.h"
#include "store/runs.h"
#include "verb_txn.h"
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

/* ---- the directory ---- */

int report_dir_check(const char *dir)
{
	_cleanup_free_ char *copy = strdup(dir);
	struct stat st;
	int r;

	if (!copy)
		return -ENOMEM;
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return -ENOTDIR;
		r = dir_is_empty(dir);
		return r < 0 ? r : r ? 0 : -ENOTEMPTY;
	}
	if (errno != ENOENT)
		return -errno;
	/* the temporary directory and the rename need the parent */
	return access(dirname(copy), W_OK | X_OK) < 0 ? -errno : 0;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (type == FTW_DP ? rmdir(path) : unlink(path)) < 0 ? -1 : 0;
}

/* A temporary directory beside dir, with the mode mkdir would give. */
static char *temp_sibling(const char *dir)
{
	_cleanup_free_ char *a = strdup(dir), *b = strdup(dir);
	char *path;
	mode_t um;

	if (!a || !b)
		return NULL;
	path = strprintf("%s/.%s.tmp-XXXXXX", dirname(a), basename(b));
	if (!path || !mkdtemp(path)) {
		free(path);
		return NULL;
	}
	um = umask(0);
	umask(um);
	(void)chmod(path, 0755 & ~um);
	return path;
}

/* The document, runs/run-N/ (each run once) and the pages, into tmp. */
static int fill(const char *tmp, struct history *h, struct json_object *doc, const char *json_name)
{
	_cleanup_close_ int dfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_free_ char *html = NULL, *svg = NULL, *json = NULL;
	struct json_object *groups = json_object_object_get(doc, "groups");
	int r;

	if (dfd < 0)
		return -errno;
	json = strprintf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
									 JSON_C_TO_STRING_SPACED |
									 JSON_C_TO_STRING_NOSLASHESCAPE));
	if (!json)
		return -ENOMEM;
	r = write_file_at(dfd, json_name, json);
	if (r < 0)
		return r;
	if (mkdirat(dfd, "runs", 0755) < 0)
		return -errno;
	for (size_t i = 0; i < json_object_array_length(groups); i++) {
		struct json_object *rounds =
		    json_object_object_get(json_object_array_get_idx(groups, i), "rounds");
		for (size_t k = 0; k < json_object_array_length(rounds); k++) {
			struct json_object *run =
			    json_object_object_get(json_object_array_get_idx(rounds, k), "run");
			_cleanup_(run_record_done) struct run_record rec = {0};
			_cleanup_free_ char *sub = NULL;

			if (!run)
				continue;
			sub = strprintf("%s/runs/run-%" PRId64, tmp, json_object_get_int64(run));
			if (!sub)
				return -ENOMEM;
			if (access(sub, F_OK) == 0) /* `report 1 1`: one bundle */
				continue;
			r = runs_get(h, json_object_get_int64(run), &rec);
			if (r >= 0)
				r = bundle_export(h, &rec, sub);
			if (r < 0)
				return r;
		}
	}
	r = report_html(h, doc, &html);
	if (r >= 0)
		r = report_svg(doc, &svg);
	if (r >= 0)
		r = failpoint("report-write", 1) ? -ENOSPC : write_file_at(dfd, "report.html", html);
	if (r >= 0)
		r = write_file_at(dfd, "report.svg", svg);
	if (r >= 0 && fsync(dfd) < 0)
		r = -errno;
	return r;
}

int report_dir_write(const char *dir, struct history *h, struct json_object *doc, const char *json_name)
{
	_cleanup_free_ char *tmp = temp_sibling(dir);
	int r;

	if (!tmp)
		return errno ? -errno : -ENOMEM;
	r = fill(tmp, h, doc, json_name);
	if (r >= 0 && rename(tmp, dir) < 0)
		r = errno == EEXIST ? -ENOTEMPTY : -errno;
	if (r < 0)
		(void)nftw(tmp, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	return r;
}

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

int report_dir_failed(const char *verb, const char *dir, int r)
{
	log_error_errno(r, "%s: cannot write the report into %s: %m%s", verb, dir,
			r == -ENOTEMPTY ? ": choose a new or empty directory" : "");
	return r == -ENOTEMPTY ? EXIT_CANT_CREATE : EXIT_ERROR;
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
		return report_hosts(args, a.dir);
	dir = a.dir;
	if (!args[0] || !dir) {
		log_error("report: expected run ids and --dir DIR");
		return EXIT_USAGE;
	}
	r = history_open(cli->db_path, HISTORY_READ_ONLY, &h);
	if (r < 0)
		return txn_verb_history_failed(cli->db_path, r);
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
