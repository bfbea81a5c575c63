/* fleet.c: a rollout's hosts from their bundles (see fleet.h). */
#define _GNU_SOURCE
#include "fleet.h"

#include <libgen.h>
#include <math.h>

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

static int check_host(struct json_object *h, const char *dir, char **ret_why)
{
	static const struct {
		const char *key;
		enum json_type type;
	} fields[] = {
	    {"host", json_type_string},	    {"profile", json_type_string}, {"transaction", json_type_int},
	    {"changed", json_type_boolean}, {"verify", json_type_string},  {"exit_code", json_type_int},
	    {"reason", json_type_string},   {"drift", json_type_array},
	};

	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		if (!is_type(member(h, fields[i].key), fields[i].type))
			return bad(ret_why, dir, "host.json", fields[i].key);
	if (!is_number(member(h, "recv_mbps")))
		return bad(ret_why, dir, "host.json", "recv_mbps");
	return 0;
}

static int check_run(struct json_object *r, const char *dir, char **ret_why)
{
	struct json_object *res = member(r, "results");

	if (!member(r, "id") || !json_object_is_type(member(r, "id"), json_type_int))
		return bad(ret_why, dir, "run.json", "id");
	if (!res || !json_object_is_type(res, json_type_object))
		return bad(ret_why, dir, "run.json", "results");
	if (!member(res, "outcome") || !json_object_is_type(member(res, "outcome"), json_type_string))
		return bad(ret_why, dir, "run.json", "results.outcome");
	if (!is_number(member(res, "recv_mbps")) || !is_number(member(res, "loss_pct")))
		return bad(ret_why, dir, "run.json", "results.recv_mbps");
	if (!is_type(member(r, "profile"), json_type_string) ||
	    !is_type(member(r, "transaction"), json_type_int))
		return bad(ret_why, dir, "run.json", "profile");
	return 0;
}

int fleet_host_row(const char *dir, struct json_object **ret, char **ret_why)
{
	struct json_object *host, *run, *row, *res, *drift, *outcome;
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
	r = host ? check_host(host, dir, ret_why) : 0;
	if (r == 0 && run)
		r = check_run(run, dir, ret_why);
	if (r < 0) {
		json_object_put(host);
		json_object_put(run);
		return r;
	}
	res = member(run, "results");
	row = json_object_new_object();
	if (member(host, "host") && !json_object_is_type(member(host, "host"), json_type_null))
		put(row, "host", member(host, "host"));
	else
		json_object_object_add(row, "host", json_object_new_string(basename(copy)));
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
	json_object_put(host);
	json_object_put(run);
	*ret = row;
	return 0;
}

char *fleet_verdict(struct json_object *rows)
{
	static const char *const order[] = {"pass", "fail", "drift", "error", "not run"};
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

int fleet_report_doc(char **dirs, struct json_object **ret, char **ret_why)
{
	struct json_object *doc, *rows = json_object_new_array();
	_cleanup_free_ char *verdict = NULL;
	int r;

	if (!rows)
		return -ENOMEM;
	for (char **d = dirs; *d; d++) {
		struct json_object *row;

		r = fleet_host_row(*d, &row, ret_why);
		if (r < 0) {
			json_object_put(rows);
			return r;
		}
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
