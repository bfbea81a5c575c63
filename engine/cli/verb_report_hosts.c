/* verb_report_hosts.c: `cx5prof report --hosts HOSTDIR... --dir DIR`: one
 * report of a fleet, a row per host, from the directories its rollout
 * wrote (fleet.h), as a table here and report.html plus hosts.json in
 * DIR.
 *
 * Owns: the command line's checks, the table for people and the document
 * (schemas/hosts-report.schema.json). Must never: open a history database
 * or touch the host; it writes DIR only. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>

#include "base/log.h"
#include "base/output.h"
#include "campaign/fleet.h"
#include "campaign/report_hosts.h"
#include "verbs.h"

static int write_report(const char *dir, struct json_object *doc)
{
	_cleanup_free_ char *html = NULL, *json = NULL;
	_cleanup_close_ int dfd = -1;
	int r;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	r = dir_is_empty(dir);
	if (r <= 0)
		return r < 0 ? r : -ENOTEMPTY;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	r = report_hosts_html(doc, &html);
	if (r < 0)
		return r;
	json = strprintf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
									 JSON_C_TO_STRING_NOSLASHESCAPE));
	if (!json)
		return -ENOMEM;
	r = write_file(dfd, "report.html", html);
	if (r == 0)
		r = write_file(dfd, "hosts.json", json);
	return r;
}

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

/* What cx5prof-summary.yml writes beside the hosts' directories, so that
 * `report --hosts DIR/...` (every entry) takes the summary's directory as it is: its rows
 * (summary.json: the hosts never reached have no directory) and its table
 * (summary.txt: the same rows, skipped). Only regular files of those
 * names; anything else is a host's directory. */
enum summary_file { SUMMARY_NONE, SUMMARY_ROWS, SUMMARY_TABLE };

static enum summary_file summary_file_of(const char *path)
{
	const char *base = strrchr(path, '/');
	struct stat st;

	base = base ? base + 1 : path;
	if ((!streq(base, "summary.json") && !streq(base, "summary.txt")) || stat(path, &st) < 0 ||
	    !S_ISREG(st.st_mode))
		return SUMMARY_NONE;
	return streq(base, "summary.json") ? SUMMARY_ROWS : SUMMARY_TABLE;
}

int report_hosts(char **dirs, const char *out)
{
	struct json_object *doc, *rows;
	_cleanup_free_ char *verdict = NULL, *page = NULL, *shown = NULL;
	int r;

	if (!dirs[0] || !out) {
		log_error("report: --hosts expects the hosts' directories and --dir DIR");
		return EXIT_USAGE;
	}
	rows = json_object_new_array();
	if (!rows)
		return log_error("out of memory"), EXIT_ERROR;
	/* The hosts' directories first, then the summary's rows of the hosts
	 * that have none (those never reached), whatever the order given. */
	for (int pass = 0; pass < 2; pass++)
		for (char **d = dirs; *d; d++) {
			_cleanup_free_ char *why = NULL;
			struct json_object *row = NULL;
			enum summary_file f = summary_file_of(*d);

			if (f == SUMMARY_TABLE || (pass == 0) != (f == SUMMARY_NONE))
				continue;
			r = f == SUMMARY_ROWS ? fleet_summary_rows(*d, rows, &why)
					      : fleet_host_row(*d, &row, &why);
			if (r < 0) {
				json_object_put(rows);
				log_error("report: %s", why ? why : strerror(-r));
				return r == -ENOENT   ? EXIT_NOT_FOUND
				       : r == -EINVAL ? EXIT_INVALID
						      : EXIT_ERROR;
			}
			if (row)
				json_object_array_add(rows, row);
		}
	verdict = fleet_verdict(rows);
	doc = json_object_new_object();
	if (!doc || !verdict) {
		json_object_put(rows);
		json_object_put(doc);
		return log_error("out of memory"), EXIT_ERROR;
	}
	json_object_object_add(doc, "verdict", json_object_new_string(verdict));
	json_object_object_add(doc, "hosts", rows);
	r = write_report(out, doc);
	if (r < 0) {
		json_object_put(doc);
		log_error_errno(r, "report: cannot write into %s: %m%s", out,
				r == -ENOTEMPTY ? ": choose a new or empty directory" : "");
		return r == -ENOTEMPTY ? EXIT_CANT_CREATE : EXIT_ERROR;
	}
	page = strprintf("%s/report.html", out);
	out_open_object(NULL);
	out_string(OUT_ANY, "report", "report      %s\n", page);
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
