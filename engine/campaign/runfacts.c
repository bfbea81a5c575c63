/* runfacts.c: a run's thresholds, drops and host, as JSON (see runfacts.h).
 *
 * Owns: reading back verify.c's summary lines ("threshold NAME OP LIMIT:
 * VALUE STATUS" or "...: STATUS (NOTE)") and counter dumps ("== IFNAME =="
 * then "name: value" lines, as `ethtool -S`). Must never: change what
 * verify records. */
#define _GNU_SOURCE
#include "runfacts.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>

static struct json_object *threshold_json(const char *name, const char *label, const char *op, double limit,
					  const char *unit, double value, const char *status,
					  const char *note)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "label", json_object_new_string(label));
	json_object_object_add(o, "op", json_object_new_string(op));
	json_object_object_add(o, "limit", json_object_new_double(limit));
	json_object_object_add(o, "unit", json_object_new_string(unit));
	json_object_object_add(o, "value", value >= 0 ? json_object_new_double(value) : NULL);
	json_object_object_add(o, "status", json_object_new_string(status));
	json_object_object_add(o, "note", note ? json_object_new_string(note) : NULL);
	return o;
}

struct json_object *runfacts_thresholds(const struct verify_report *r)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < r->n_thresholds; i++) {
		const struct verify_threshold *t = &r->thresholds[i];
		json_object_array_add(a, threshold_json(t->name, t->label, t->op, t->limit, t->unit,
							isfinite(t->value) ? t->value : -1,
							verify_status_to_string(t->status), t->note));
	}
	return a;
}

static void drops_add(struct json_object *o, const struct counter_delta *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct json_object *v;
		uint64_t sum = d[i].delta;

		if (json_object_object_get_ex(o, d[i].def->name, &v))
			sum += (uint64_t)json_object_get_int64(v);
		json_object_object_add(o, d[i].def->name, json_object_new_int64((int64_t)sum));
	}
}

struct json_object *runfacts_drops(const struct verify_report *r)
{
	struct json_object *o = NULL;

	for (size_t p = 0; p < r->n_counters; p++) {
		if (r->counters[p].n == 0)
			continue;
		if (!o)
			o = json_object_new_object();
		drops_add(o, r->counters[p].d, r->counters[p].n);
	}
	return o;
}

/* "threshold throughput_mbps >= 5000: 4331.91 fail" or "threshold
 * loss_percent <= 1: n/a (the benchmark failed)". */
static struct json_object *summary_threshold(const char *line)
{
	char name[64], op[4], status[8];
	const char *label, *unit, *rest;
	double limit, value = -1;
	int used = 0;
	_cleanup_free_ char *note = NULL;

	if (sscanf(line, "threshold %63s %3s %lf: %n", name, op, &limit, &used) != 3 || used == 0 ||
	    !verify_threshold_describe(name, &label, &unit))
		return NULL;
	rest = line + used;
	if (isdigit((unsigned char)*rest)) {
		if (sscanf(rest, "%lf %7s", &value, status) != 2)
			return NULL;
	} else {
		size_t n = strcspn(rest, " ");
		const char *open = strstr(rest, " (");

		if (n == 0 || n >= sizeof(status))
			return NULL;
		memcpy(status, rest, n);
		status[n] = '\0';
		if (open && rest[strlen(rest) - 1] == ')')
			note = strndup(open + 2, strlen(open + 2) - 1);
	}
	return threshold_json(name, label, op, limit, unit, value, status, note);
}

struct json_object *runfacts_run_thresholds(const struct run_record *run)
{
	const struct run_artifact *a = run_record_artifact(run, "verify_summary");
	struct json_object *arr;
	const char *p;

	if (!a || !a->content)
		return NULL;
	arr = json_object_new_array();
	for (p = a->content; arr && *p; p += strcspn(p, "\n"), p += *p == '\n') {
		_cleanup_free_ char *line = strndup(p, strcspn(p, "\n"));
		struct json_object *t = line ? summary_threshold(line) : NULL;
		if (t)
			json_object_array_add(arr, t);
	}
	return arr;
}

/* The counters of port ifname in a dump artifact, as stats. */
static int dump_stats(const char *dump, const char *ifname, struct eth_stat **ret, size_t *ret_n)
{
	_cleanup_free_ char *head = strprintf("== %s ==", ifname);
	struct eth_stat *v = NULL;
	size_t n = 0;
	bool in = false;

	if (!head)
		return -ENOMEM;
	for (const char *p = dump; *p; p += strcspn(p, "\n"), p += *p == '\n') {
		size_t len = strcspn(p, "\n"), name_len = strcspn(p, ":");
		_cleanup_free_ char *value = NULL;
		uint64_t x;
		struct eth_stat *t;

		if (strncmp(p, "== ", 3) == 0) {
			in = len == strlen(head) && strncmp(p, head, len) == 0;
			continue;
		}
		if (!in || name_len >= len || name_len >= sizeof(v->name) || p[name_len + 1] != ' ')
			continue;
		value = strndup(p + name_len + 2, len - name_len - 2);
		if (!value || safe_atou64(value, &x) < 0)
			continue;
		t = reallocarray(v, n + 1, sizeof(*v));
		if (!t) {
			free(v);
			return -ENOMEM;
		}
		v = t;
		v[n] = (struct eth_stat){.value = x};
		memcpy(v[n].name, p, name_len);
		n++;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

/* The port names of a dump, "== NAME ==" lines. */
static char **dump_ports(const char *dump)
{
	char **v = calloc(1, sizeof(char *));

	for (const char *p = dump; v && *p; p += strcspn(p, "\n"), p += *p == '\n')
		if (strncmp(p, "== ", 3) == 0 && strcspn(p, "\n") > 6 &&
		    strv_push(&v, strndup(p + 3, strcspn(p, "\n") - 6)) < 0) {
			strv_free(v); /* strv_push freed the name, or had none */
			return NULL;
		}
	return v;
}

struct json_object *runfacts_run_drops(const struct run_record *run)
{
	const struct run_artifact *b = run_record_artifact(run, "counters_before"),
				  *a = run_record_artifact(run, "counters_after");
	_cleanup_strv_free_ char **ports = NULL;
	struct json_object *o = NULL;

	if (!b || !a || !b->content || !a->content || !(ports = dump_ports(b->content)))
		return NULL;
	for (char **port = ports; *port; port++) {
		_cleanup_free_ struct eth_stat *sb = NULL, *sa = NULL;
		_cleanup_free_ struct counter_delta *d = NULL;
		struct counter_snapshot cb = {0}, ca = {0};
		size_t nb = 0, na = 0, n = 0;

		if (dump_stats(b->content, *port, &sb, &nb) < 0 ||
		    dump_stats(a->content, *port, &sa, &na) < 0)
			break;
		if (counters_from_stats(sb, nb, &cb) >= 0 && counters_from_stats(sa, na, &ca) >= 0 &&
		    counters_diff(&cb, &ca, &d, &n) >= 0 && n > 0) {
			if (!o)
				o = json_object_new_object();
			drops_add(o, d, n);
		}
		counter_snapshot_done(&cb);
		counter_snapshot_done(&ca);
	}
	return o;
}
