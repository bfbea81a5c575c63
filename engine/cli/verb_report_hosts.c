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
	r = write_file_at(dfd, "report.html", html);
	if (r == 0)
		r = write_file_at(dfd, "hosts.json", json);
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

static void print_rows(struct json_object *rows)
{
	out_text("%-16s %-16s %4s %-7s %-7s %9s %7s %5s %4s  %s\n", "HOST", "PROFILE", "TXN", "CHANGED",
		 "VERIFY", "RECV_MBPS", "LOSS_%", "DRIFT", "EXIT", "REASON");
	for (size_t i = 0; i < json_object_array_length(rows); i++) {
		struct json_object *row = json_object_array_get_idx(rows, i);
		char b[10][32];

		out_text("%-16s %-16s %4s %-7s %-7s %9s %7s %5s %4s  %s\n", text_of(row, "host", 0, b[0], 32),
			 text_of(row, "profile", 0, b[1], 32), text_of(row, "transaction", 0, b[2], 32),
			 text_of(row, "changed", 0, b[3], 32), text_of(row, "outcome", 0, b[4], 32),
			 text_of(row, "recv_mbps", 1, b[5], 32), text_of(row, "loss_percent", 2, b[6], 32),
			 text_of(row, "drift", 0, b[7], 32), text_of(row, "exit_code", 0, b[8], 32),
			 text_of(row, "reason", 0, b[9], 32));
	}
}

int report_hosts(char **dirs, const char *out)
{
	struct json_object *doc, *rows;
	_cleanup_free_ char *verdict = NULL, *page = NULL;
	int r;

	if (!dirs[0] || !out) {
		log_error("report: --hosts expects the hosts' directories and --dir DIR");
		return EXIT_USAGE;
	}
	rows = json_object_new_array();
	if (!rows)
		return log_error("out of memory"), EXIT_ERROR;
	for (char **d = dirs; *d; d++) {
		_cleanup_free_ char *why = NULL;
		struct json_object *row;

		r = fleet_host_row(*d, &row, &why);
		if (r < 0) {
			json_object_put(rows);
			log_error("report: %s", why ? why : strerror(-r));
			return r == -ENOENT ? EXIT_NOT_FOUND : r == -EINVAL ? EXIT_INVALID : EXIT_ERROR;
		}
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
	out_string(OUT_ANY, "verdict", "verdict     %s\n", verdict);
	if (!out_is_json())
		print_rows(rows);
	out_json("hosts", json_object_get(rows));
	out_close_object();
	json_object_put(doc);
	return out_finish() < 0 ? EXIT_ERROR : EXIT_OK;
}
