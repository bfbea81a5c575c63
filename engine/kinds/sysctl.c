/* kinds/sysctl.c: the "sysctl" kind, the profile's sysctl section: object
 * "sysctl", key "net.core.rmem_max", values decimal ("188010 250681
 * 376020" for the three of net.ipv4.udp_mem). A floor (">= 4M") is
 * planned only when the host's value is lower. Read and written through
 * procsys.h (under the sysroot); host-wide, so it manages no port. */
#include "kinds.h"
#include "sysctl.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/exitcode.h"
#include "base/output.h"
#include "base/yamltree.h"
#include "keys/keyread.h"
#include "os/probe.h"
#include "os/procsys.h"
#include "os/sysroot.h"
#include "changes.h"
#include "profile.h"

struct sysctl_want {
	struct profile_sysctls sysctls;
};

/* ---- the profile's sysctl map (KT_OWN) ---- */

static const char *const sysctl_op_names[] = {
    [PROFILE_SYSCTL_EXACT] = "exact", [PROFILE_SYSCTL_FLOOR] = "floor", NULL};

const char *profile_sysctl_op_to_string(int v)
{
	return v >= 0 && (size_t)v < ARRAY_SIZE(sysctl_op_names) - 1 ? sysctl_op_names[v] : NULL;
}

/* One value of a sysctl: an integer or, for a one-value sysctl, a size
 * ("4M"; inside a floor's string, num points past ">="), in the table's
 * range. */
static int sysctl_number(struct profile_loader *l, const struct sysctl_def *def, const struct ynode *v,
			 const struct ynode *num, const char *vpath, uint64_t *ret)
{
	char buf[64];
	int64_t x = 0;
	int r = def->n_values == 1 ? key_scalar_size(num, &x) : key_scalar_integer(num, &x);

	if (r == -EINVAL && def->n_values == 1)
		return key_fail(l, v,
				"%s: expected a number, a size like 4M or a floor like \">= 4M\", got %s",
				vpath, ynode_describe(v, buf, sizeof(buf)));
	if (r == -EINVAL)
		return key_fail(l, v, "%s: expected a number (%s), got %s", vpath, def->unit,
				ynode_describe(v, buf, sizeof(buf)));
	if (r < 0 || x < 0 || (uint64_t)x < def->min || (uint64_t)x > def->max)
		return key_fail(l, v, "%s: %s is out of range %" PRIu64 "..%" PRIu64, vpath, num->value,
				def->min, def->max);
	*ret = (uint64_t)x;
	return 0;
}

/* The value of one sysctl: NUMBER | "NUMBER" | ">= NUMBER" for a
 * one-value sysctl; a list of its numbers (not decreasing when the table
 * says so) for net.ipv4.udp_mem. */
static int sysctl_entry(struct profile_loader *l, const struct sysctl_def *def, const struct ynode *v,
			const char *vpath, enum profile_sysctl_op *ret_op, struct sysctl_value *ret)
{
	struct sysctl_value val = {.n = def->n_values};
	struct ynode num = *v;
	char buf[64];
	int r;

	*ret_op = PROFILE_SYSCTL_EXACT;
	if (def->n_values > 1) {
		if (v->kind != YNODE_SEQUENCE || v->n_items != def->n_values)
			return key_fail(l, v, "%s: expected a list of %u numbers (%s), got %s", vpath,
					def->n_values, def->unit, ynode_describe(v, buf, sizeof(buf)));
		for (unsigned i = 0; i < def->n_values; i++) {
			r = sysctl_number(l, def, v->items[i], v->items[i], vpath, &val.v[i]);
			if (r < 0)
				return r;
			if (def->ordered && i > 0 && val.v[i] < val.v[i - 1])
				return key_fail(l, v->items[i],
						"%s: %" PRIu64 " is below the value before it (%" PRIu64
						"): the values must not decrease",
						vpath, val.v[i], val.v[i - 1]);
		}
		*ret = val;
		return 0;
	}
	/* A floor: ">= 4M", spaces after ">=" optional. */
	if (v->kind == YNODE_SCALAR && strncmp(v->value, ">=", 2) == 0) {
		*ret_op = PROFILE_SYSCTL_FLOOR;
		num.value = v->value + 2;
		while (*num.value == ' ')
			num.value++;
		num.len = strlen(num.value);
		num.plain = false; /* the number is inside a string */
	}
	r = sysctl_number(l, def, v, &num, vpath, &val.v[0]);
	if (r < 0)
		return r;
	*ret = val;
	return 0;
}

/* sysctl: NAME: VALUE, NAME from procsys.h's table. */
static int sysctls_parse(struct profile_loader *l, const struct profile_key *k _unused_,
			 const struct ynode *map, void *field, const char *path)
{
	struct profile_sysctls *p = field;
	char buf[64], vpath[KEY_PATH_BUF];
	int r;

	if (map->kind != YNODE_MAPPING)
		return key_expect(l, map, path, "a mapping");
	for (size_t i = 0; i + 1 < map->n_items; i += 2) {
		const struct ynode *name = map->items[i], *v = map->items[i + 1];
		enum profile_sysctl_op op;
		struct sysctl_value val;
		enum sysctl_key id;
		size_t j;

		r = key_check_name(l, map, i);
		if (r < 0)
			return r;
		if (sysctl_key_from_string(name->value, &id) < 0) {
			const char *hint =
			    key_closest(name->value, sysctl_def(0), sizeof(struct sysctl_def), _SYSCTL_MAX);
			if (hint)
				return key_fail(l, name, "unknown sysctl %s (did you mean \"%s\"?)",
						ynode_quote(name, buf, sizeof(buf)), hint);
			return key_fail(l, name, "unknown sysctl %s (cx5prof manages %s)",
					ynode_quote(name, buf, sizeof(buf)), sysctl_names());
		}
		snprintf(vpath, sizeof(vpath), "%s.%s", path, sysctl_key_to_string(id));
		for (j = 0; j < p->n; j++)
			if (p->v[j].key == id)
				break;
		if (key_is_null(v) && j < p->n) {
			memmove(&p->v[j], &p->v[j + 1], (p->n - j - 1) * sizeof(p->v[0]));
			p->n--;
			continue;
		}
		r = sysctl_entry(l, sysctl_def(id), v, vpath, &op, &val);
		if (r < 0)
			return r;
		if (j == p->n) {
			struct profile_sysctl *a = reallocarray(p->v, p->n + 1, sizeof(*a));
			if (!a)
				return key_fail_oom(l, l->file);
			p->v = a;
			p->n++;
		}
		p->v[j] = (struct profile_sysctl){id, sysctl_key_to_string(id), op, val, key_mark(l, v)};
	}
	return 0;
}

static bool sysctls_is_set(const void *f)
{
	return ((const struct profile_sysctls *)f)->n > 0;
}

static void sysctls_unset(void *f)
{
	struct profile_sysctls *s = f;

	free(s->v);
	*s = (struct profile_sysctls){0};
}

static struct json_object *sysctls_json(const void *f)
{
	const struct profile_sysctls *p = f;
	struct json_object *o;

	if (p->n == 0)
		return NULL;
	o = json_object_new_object();
	for (size_t i = 0; o && i < p->n; i++) {
		const struct profile_sysctl *s = &p->v[i];
		if (s->op == PROFILE_SYSCTL_FLOOR) {
			char buf[32];
			snprintf(buf, sizeof(buf), ">= %" PRIu64, s->value.v[0]);
			json_object_object_add(o, s->name, json_object_new_string(buf));
		} else if (s->value.n == 1) {
			json_object_object_add(o, s->name, json_object_new_uint64(s->value.v[0]));
		} else {
			struct json_object *a = json_object_new_array();
			for (unsigned j = 0; a && j < s->value.n; j++)
				json_object_array_add(a, json_object_new_uint64(s->value.v[j]));
			json_object_object_add(o, s->name, a);
		}
	}
	return o;
}

static const struct key_codec sysctls_codec = {
    .doc_type = "sysctls",
    .not_one_value = true,
    .parse = sysctls_parse,
    .is_set = sysctls_is_set,
    .unset = sysctls_unset,
    .json = sysctls_json,
};

static const struct profile_key sysctl_keys[] = {
    {.name = "sysctl",
     .type = KT_OWN,
     .codec = &sysctls_codec,
     .offset = offsetof(struct sysctl_want, sysctls),
     .help =
	 "NAME: VALUE of the sysctls cx5prof manages: a number or a size like 4M (K, M, G: 1024-based) "
	 "sets exactly; a floor \">= 4M\" raises a lower value and leaves a larger one; net.ipv4.udp_mem is "
	 "a list of three numbers (exact only)"},
    {0},
};

extern const struct change_kind kind_sysctl;

static int sysctl_kind_read(const char *object, const char *key, char **ret, char **kmsg _unused_)
{
	struct sysctl_value v;
	enum sysctl_key k;
	int r;

	(void)object;
	r = sysctl_key_from_string(key, &k);
	if (r >= 0)
		r = sysctl_read_value(k, &v);
	return r < 0 ? r : sysctl_value_format(&v, ret);
}

static int sysctl_kind_write(const char *object, const char *key, const char *value, char **kmsg)
{
	struct sysctl_value v;
	enum sysctl_key k;
	int r;

	(void)object;
	(void)kmsg;
	r = sysctl_key_from_string(key, &k);
	if (r >= 0)
		r = sysctl_value_parse(k, value, &v);
	return r < 0 ? r : sysctl_write_value(k, &v);
}

/* A floor (one value) is met by a larger current value; exact values, all
 * of them, must be equal. */
static bool sysctl_differs(const struct profile_sysctl *w, const struct sysctl_value *cur)
{
	if (w->op == PROFILE_SYSCTL_FLOOR)
		return cur->v[0] < w->value.v[0];
	return !sysctl_value_equal(cur, &w->value);
}

/* ---- the probe: every managed sysctl, host-wide ---- */

static int sysctl_probe(void *ret)
{
	struct sysctl_state *s = ret;

	for (unsigned k = 0; k < _SYSCTL_MAX; k++)
		s[k].r = sysctl_read_value((enum sysctl_key)k, &s[k].value);
	return 0;
}

static const struct probe_host_fact sysctl_fact = {
    .name = "sysctl",
    .size = _SYSCTL_MAX * sizeof(struct sysctl_state),
    .read = sysctl_probe,
};

const struct sysctl_state *sysctl_probed(const struct host_state *h, enum sysctl_key k)
{
	/* sysctl_probe never fails as a whole (each sysctl has its own r):
	 * a fact that is not 0 was not read. */
	static const struct sysctl_state unprobed = {.r = -ENODATA};
	const struct host_fact *f = kind_host_fact(h, &kind_sysctl);

	return f->r < 0 ? &unprobed : &((const struct sysctl_state *)f->value)[k];
}

static int sysctl_diff(struct plan_ctx *ctx, const struct iface_state *port)
{
	const struct profile_sysctls *want =
	    &((const struct sysctl_want *)kind_want(ctx->profile, &kind_sysctl))->sysctls;
	struct plan *p = ctx->plan;
	int r;

	(void)port;
	for (size_t i = 0; i < want->n; i++) {
		const struct profile_sysctl *w = &want->v[i];
		const struct sysctl_state *cur = sysctl_probed(ctx->host, w->key);
		_cleanup_free_ char *old = NULL, *new = NULL;

		if (cur->r < 0) {
			r = plan_add_problem(
			    p, cur->r == -ENOENT ? EXIT_UNSUPPORTED : EXIT_ERROR, w->name,
			    "remove it from the profile, or run in the initial network namespace",
			    "cannot be read: %s", sysroot_strerror(cur->r));
			if (r < 0)
				return r;
			continue;
		}
		if (!sysctl_differs(w, &cur->value))
			continue;
		if (sysctl_value_format(&cur->value, &old) < 0 || sysctl_value_format(&w->value, &new) < 0)
			return -ENOMEM;
		r = plan_add_change(p, "sysctl", "sysctl", w->name, old, new);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Every managed sysctl, as the host has it ("- (absent)" when it has not). */
static void sysctl_show(const struct host_state *h)
{
	out_open_object("sysctl");
	out_text("sysctl\n");
	for (unsigned k = 0; k < _SYSCTL_MAX; k++) {
		const char *name = sysctl_key_to_string((enum sysctl_key)k);
		const struct sysctl_state *st = sysctl_probed(h, (enum sysctl_key)k);
		const struct sysctl_value *v = &st->value;

		if (st->r < 0)
			out_string(OUT_JSON, name, NULL, NULL);
		else if (sysctl_def((enum sysctl_key)k)->n_values == 1)
			out_uint(OUT_JSON, name, NULL, v->v[0]);
		else {
			out_open_array(name);
			for (unsigned i = 0; i < v->n; i++)
				out_uint(OUT_JSON, NULL, NULL, v->v[i]);
			out_close_array();
		}
		out_text("  %-28s ", name);
		if (st->r >= 0) {
			for (unsigned i = 0; i < v->n; i++)
				out_text("%s%" PRIu64, i ? " " : "", v->v[i]);
			out_text("\n");
		} else
			out_text("- (%s)\n", st->r == -ENOENT ? "absent" : sysroot_strerror(st->r));
	}
	out_close_object();
}

/* What show writes of it (kinds.h: show_schema; `make docs` puts it into
 * schemas/state.schema.json). */
static const char sysctl_show_schema[] =
    "{"
    " \"sysctl\": {"
    "  \"type\": \"object\","
    "  \"description\": \"The managed sysctls (/proc/sys/<name with / for .> under the sysroot); null when "
    "the file is absent (e.g. netdev_max_backlog outside the initial network namespace) or unreadable.\","
    "  \"additionalProperties\": false,"
    "  \"x-cx5prof-table\": \"sysctls\""
    " }"
    "}";

const struct change_kind kind_sysctl = {
    .name = "sysctl",
    .rank = 10,
    .scope = KIND_SCOPE_HOST,
    .keys = sysctl_keys,
    .want_size = sizeof(struct sysctl_want),
    .host_probe = &sysctl_fact,
    .read = sysctl_kind_read,
    .write = sysctl_kind_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .diff = sysctl_diff,
    .show_host = sysctl_show,
    .show_schema = sysctl_show_schema,
};
