/* fleet.c: a rollout's hosts from their bundles (see fleet.h). */
#define _GNU_SOURCE
#include "fleet.h"

#include <libgen.h>
#include <math.h>
#include <sys/stat.h>

#include "base/util.h"

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static bool is_type(struct json_object *v, enum json_type t)
{
	return !v || json_object_is_type(v, json_type_null) || json_object_is_type(v, t);
}

static bool is_number(struct json_object *v)
{
	return is_type(v, json_type_double) || is_type(v, json_type_int);
}

/* The file's object; NULL and *ret_r -ENOENT when it is not there. */
static struct json_object *load(const char *dir, const char *name, int *ret_r, char **ret_why)
{
	_cleanup_free_ char *path = strprintf("%s/%s", dir, name);
	struct json_object *o;

	*ret_r = 0;
	if (!path) {
		*ret_r = -ENOMEM;
		return NULL;
	}
	if (access(path, F_OK) < 0) {
		*ret_r = -errno;
		if (errno != ENOENT)
			*ret_why = strprintf("%s: %s", path, strerror(errno));
		return NULL;
	}
	o = json_object_from_file(path);
	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		*ret_r = -EINVAL;
		*ret_why = strprintf("%s: not a JSON object", path);
		return NULL;
	}
	return o;
}

/* The first of the values that is set (not missing, not null), or NULL. */
static struct json_object *first(struct json_object *a, struct json_object *b)
{
	if (a && !json_object_is_type(a, json_type_null))
		return a;
	return b && !json_object_is_type(b, json_type_null) ? b : NULL;
}

static void put(struct json_object *row, const char *key, struct json_object *v)
{
	json_object_object_add(row, key, v ? json_object_get(v) : NULL);
}

/* A field of the wrong type: which file and which field. */
static int bad(char **ret_why, const char *dir, const char *file, const char *field)
{
	*ret_why = strprintf("%s/%s: %s: not of the documented type", dir, file, field);
	return -EINVAL;
}

/* A figure of a measurement: a finite number from 0 to max (a throughput
 * above 10^9 Mbps, a petabit, is no measurement), or unset. */
static int check_figure(struct json_object *v, double max, const char *what, char **ret_why, const char *dir,
			const char *file, const char *field)
{
	double d;

	if (!v || json_object_is_type(v, json_type_null))
		return 0;
	d = json_object_get_double(v);
	if (isfinite(d) && d >= 0 && d <= max)
		return 0;
	*ret_why =
	    strprintf("%s/%s: %s: %g is not %s (a number from 0 to %g)", dir, file, field, d, what, max);
	return -EINVAL;
}

#define MAX_MBPS 1e9

/* A verify run's outcome, in the words of fleet_verdict (unset: none). */
static bool outcome_known(struct json_object *v)
{
	static const char *const known[] = {"pass", "recorded", "fail", "drift", "error", "interrupted"};

	if (!v || json_object_is_type(v, json_type_null))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (streq(json_object_get_string(v), known[i]))
			return true;
	return false;
}

static int check_host(struct json_object *h, const char *dir, const char *file, char **ret_why)
{
	static const struct {
		const char *key;
		enum json_type type;
	} fields[] = {
	    {"host", json_type_string},	    {"profile", json_type_string}, {"transaction", json_type_int},
	    {"changed", json_type_boolean}, {"verify", json_type_string},  {"exit_code", json_type_int},
	    {"reason", json_type_string},   {"drift", json_type_array},
	};

	if (!json_object_is_type(h, json_type_object)) {
		*ret_why = strprintf("%s/%s: not a JSON object", dir, file);
		return -EINVAL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		if (!is_type(member(h, fields[i].key), fields[i].type))
			return bad(ret_why, dir, file, fields[i].key);
	if (!outcome_known(member(h, "verify")))
		return bad(ret_why, dir, file, "verify");
	if (!is_number(member(h, "recv_mbps")))
		return bad(ret_why, dir, file, "recv_mbps");
	return check_figure(member(h, "recv_mbps"), MAX_MBPS, "a throughput", ret_why, dir, file,
			    "recv_mbps");
}

static int check_run(struct json_object *r, const char *dir, char **ret_why)
{
	struct json_object *res = member(r, "results");

	if (!member(r, "id") || !json_object_is_type(member(r, "id"), json_type_int))
		return bad(ret_why, dir, "run.json", "id");
	if (!res || !json_object_is_type(res, json_type_object))
		return bad(ret_why, dir, "run.json", "results");
	if (!member(res, "outcome") || !json_object_is_type(member(res, "outcome"), json_type_string) ||
	    !outcome_known(member(res, "outcome")))
		return bad(ret_why, dir, "run.json", "results.outcome");
	if (!is_number(member(res, "recv_mbps")) || !is_number(member(res, "loss_pct")))
		return bad(ret_why, dir, "run.json", "results.recv_mbps");
	if (check_figure(member(res, "recv_mbps"), MAX_MBPS, "a throughput", ret_why, dir, "run.json",
			 "results.recv_mbps") < 0 ||
	    check_figure(member(res, "loss_pct"), 100, "a loss", ret_why, dir, "run.json",
			 "results.loss_pct") < 0)
		return -EINVAL;
	if (!is_type(member(r, "profile"), json_type_string) ||
	    !is_type(member(r, "transaction"), json_type_int))
		return bad(ret_why, dir, "run.json", "profile");
	return 0;
}

/* The row of a host from its files (either may be NULL); name: the
 * host's when host.json has none. */
static int row_of(struct json_object *host, struct json_object *run, const char *dir, const char *name,
		  struct json_object **ret)
{
	struct json_object *row, *res, *drift, *outcome;

	res = member(run, "results");
	row = json_object_new_object();
	if (!row)
		return -ENOMEM;
	if (member(host, "host") && !json_object_is_type(member(host, "host"), json_type_null))
		put(row, "host", member(host, "host"));
	else
		json_object_object_add(row, "host", json_object_new_string(name));
	json_object_object_add(row, "dir", json_object_new_string(dir));
	put(row, "profile", first(member(host, "profile"), member(run, "profile")));
	put(row, "transaction", first(member(host, "transaction"), member(run, "transaction")));
	put(row, "changed", member(host, "changed"));
	/* The run's own outcome first: the words a campaign's rounds use. */
	outcome = first(member(res, "outcome"), member(host, "verify"));
	if (outcome)
		put(row, "outcome", outcome);
	else
		json_object_object_add(row, "outcome", json_object_new_string("not run"));
	put(row, "recv_mbps", first(member(res, "recv_mbps"), member(host, "recv_mbps")));
	put(row, "loss_percent", member(res, "loss_pct"));
	drift = member(host, "drift");
	json_object_object_add(row, "drift",
			       drift && json_object_is_type(drift, json_type_array)
				   ? json_object_new_int((int)json_object_array_length(drift))
				   : NULL);
	put(row, "exit_code", member(host, "exit_code"));
	put(row, "reason", member(host, "reason"));
	put(row, "run", member(run, "id"));
	*ret = row;
	return 0;
}

int fleet_host_row(const char *dir, struct json_object **ret, char **ret_why)
{
	struct json_object *host, *run;
	_cleanup_free_ char *copy = strdup(dir);
	int rh, rr, r;

	*ret_why = NULL;
	if (!copy)
		return -ENOMEM;
	host = load(dir, "host.json", &rh, ret_why);
	if (rh < 0 && rh != -ENOENT)
		return rh;
	run = load(dir, "run.json", &rr, ret_why);
	if (rr < 0 && rr != -ENOENT) {
		json_object_put(host);
		return rr;
	}
	if (!host && !run) {
		*ret_why =
		    strprintf("%s: neither run.json (`cx5prof export RUN --dir`) nor host.json (the fleet "
			      "playbook's row) is there",
			      dir);
		return -ENOENT;
	}
	r = host ? check_host(host, dir, "host.json", ret_why) : 0;
	if (r == 0 && run)
		r = check_run(run, dir, ret_why);
	if (r == 0)
		r = row_of(host, run, dir, basename(copy), ret);
	json_object_put(host);
	json_object_put(run);
	return r;
}

int fleet_summary_rows(const char *path, struct json_object *rows, char **ret_why)
{
	_cleanup_free_ char *copy = strdup(path);
	struct json_object *doc, *added = NULL;
	const char *dir = copy ? dirname(copy) : NULL;
	int r = 0;

	*ret_why = NULL;
	if (!dir)
		return -ENOMEM;
	doc = json_object_from_file(path);
	if (!doc || !json_object_is_type(doc, json_type_array)) {
		json_object_put(doc);
		*ret_why = strprintf("%s: not a JSON array (the fleet summary's rows)", path);
		return -EINVAL;
	}
	for (size_t i = 0; r == 0 && i < json_object_array_length(doc); i++) {
		struct json_object *h = json_object_array_get_idx(doc, i), *row;
		const char *name = json_object_get_string(member(h, "host"));
		bool have = false;

		r = check_host(h, dir, "summary.json", ret_why);
		if (r == 0 && (!name || !member(h, "host") ||
			       !json_object_is_type(member(h, "host"), json_type_string)))
			r = bad(ret_why, dir, "summary.json", "host");
		for (size_t k = 0; r == 0 && k < json_object_array_length(rows); k++)
			have |= streq(
			    name, json_object_get_string(member(json_object_array_get_idx(rows, k), "host")));
		if (r < 0 || have)
			continue;
		r = row_of(h, NULL, path, name, &row);
		if (r == 0 && (added || (added = json_object_new_array())))
			json_object_array_add(added, row);
		else if (r == 0) {
			json_object_put(row);
			r = -ENOMEM;
		}
	}
	for (size_t k = 0; r == 0 && added && k < json_object_array_length(added); k++)
		json_object_array_add(rows, json_object_get(json_object_array_get_idx(added, k)));
	json_object_put(added);
	json_object_put(doc);
	return r;
}

char *fleet_verdict(struct json_object *rows)
{
	static const char *const order[] = {"pass",  "recorded",    "fail",   "drift",
					    "error", "interrupted", "not run"};
	char *out = NULL;
	size_t n = json_object_array_length(rows);

	for (size_t o = 0; o < ARRAY_SIZE(order); o++) {
		_cleanup_free_ char *hosts = NULL;
		size_t count = 0;
		char *t;

		for (size_t i = 0; i < n; i++) {
			struct json_object *row = json_object_array_get_idx(rows, i),
					   *code = member(row, "exit_code");
			const char *outcome = json_object_get_string(member(row, "outcome"));

			if (!outcome || !streq(outcome, order[o]))
				continue;
			count++;
			if (o == 0)
				continue; /* the hosts that pass are not listed */
			t = strprintf("%s%s%s", hosts ? hosts : "", hosts ? ", " : "",
				      json_object_get_string(member(row, "host")));
			free(hosts);
			hosts = t;
			if (o == ARRAY_SIZE(order) - 1 && code && json_object_is_type(code, json_type_int) &&
			    hosts) {
				t = strprintf("%s (exit %d)", hosts, json_object_get_int(code));
				free(hosts);
				hosts = t;
			}
			if (!hosts) {
				free(out);
				return NULL;
			}
		}
		if (!count)
			continue;
		t = strprintf("%s%s%zu %s%s%s", out ? out : "", out ? "; " : "", count, order[o],
			      hosts ? ": " : "", hosts ? hosts : "");
		free(out);
		out = t;
		if (!out)
			return NULL;
	}
	return out ? out : strdup("no host");
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

int fleet_report_doc(char **dirs, struct json_object **ret, char **ret_why)
{
	struct json_object *doc, *rows = json_object_new_array();
	_cleanup_free_ char *verdict = NULL;
	int r;

	if (!rows)
		return -ENOMEM;
	/* The hosts' directories first, then the summary's rows of the hosts
	 * that have none (those never reached), whatever the order given. */
	for (int pass = 0; pass < 2; pass++)
		for (char **d = dirs; *d; d++) {
			struct json_object *row = NULL;
			enum summary_file f = summary_file_of(*d);

			if (f == SUMMARY_TABLE || (pass == 0) != (f == SUMMARY_NONE))
				continue;
			r = f == SUMMARY_ROWS ? fleet_summary_rows(*d, rows, ret_why)
					      : fleet_host_row(*d, &row, ret_why);
			if (r < 0) {
				json_object_put(rows);
				return r;
			}
			if (row)
				json_object_array_add(rows, row);
		}
	verdict = fleet_verdict(rows);
	doc = json_object_new_object();
	if (!doc || !verdict) {
		json_object_put(rows);
		json_object_put(doc);
		return -ENOMEM;
	}
	json_object_object_add(doc, "verdict", json_object_new_string(verdict));
	json_object_object_add(doc, "hosts", rows);
	*ret = doc;
	return 0;
}
