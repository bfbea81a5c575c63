/* kinds/ethparam.c: the parameter-group kinds' shared code (see
 * ethparam.h). */
#define _GNU_SOURCE
#include "ethparam.h"

#include <errno.h>
#include <inttypes.h>

#include "base/exitcode.h"
#include "base/output.h"
#include "os/probe.h"
#include "os/sysroot.h"
#include "changes.h"
#include "profile.h"

/* "coalesce.rx_usecs" -> the index of rx_usecs in the group. */
static int param_from_key(const struct ethparam_kind *pk, const char *key)
{
	size_t n = strlen(pk->kind->name);
	int i;

	if (strncmp(key, pk->kind->name, n) != 0 || key[n] != '.')
		return -EINVAL;
	i = ethnl_group_find(pk->group, key + n + 1);
	return i < 0 ? -EINVAL : i;
}

static int format_value(const struct ethnl_param *p, uint32_t v, char **ret)
{
	if (p->is_bool) {
		*ret = strdup(v ? "on" : "off");
		return *ret ? 0 : -ENOMEM;
	}
	return kind_format_u64(v, ret);
}

static int parse_value(const struct ethnl_param *p, const char *s, uint32_t *ret)
{
	if (!p->is_bool)
		return safe_atou32(s, ret);
	if (!streq(s, "on") && !streq(s, "off"))
		return -EINVAL;
	*ret = streq(s, "on");
	return 0;
}

int ethparam_read(const struct ethparam_kind *pk, const char *object, const char *key, char **ret,
		  char **ret_kmsg)
{
	struct ethnl_values cur;
	int i = param_from_key(pk, key), r;

	if (i < 0)
		return i;
	r = ethnl_group_get(pk->group, object, &cur, ret_kmsg);
	if (r < 0)
		return r;
	if (!cur.present[i])
		return -EOPNOTSUPP;
	return format_value(&pk->group->params[i], cur.v[i], ret);
}

int ethparam_write(const struct ethparam_kind *pk, const char *object, const char *key, const char *value,
		   char **ret_kmsg)
{
	int i = param_from_key(pk, key), r;
	uint32_t v;

	if (i < 0)
		return i;
	r = parse_value(&pk->group->params[i], value, &v);
	return r < 0 ? r : ethnl_group_set(pk->group, object, (size_t)i, v, ret_kmsg);
}

/* The profile's wanted value of parameter i; false when it is not set. */
static bool wanted(const struct ethparam_kind *pk, const struct profile *p, size_t i, uint32_t *ret)
{
	const void *f = (const char *)kind_want(p, pk->kind) + pk->want_offset[i];

	if (pk->group->params[i].is_bool) {
		const struct profile_bool *b = f;
		*ret = b->value;
		return b->set;
	}
	*ret = (uint32_t)((const struct profile_uint *)f)->value;
	return ((const struct profile_uint *)f)->set;
}

bool ethparam_manages(const struct ethparam_kind *pk, const struct profile *p)
{
	uint32_t v;

	for (size_t i = 0; i < pk->group->n_params; i++)
		if (wanted(pk, p, i, &v))
			return true;
	return false;
}

int ethparam_diff(const struct ethparam_kind *pk, struct plan_ctx *ctx, const struct iface_state *s)
{
	const struct iface_fact *fact = kind_fact(s, pk->kind);
	const struct ethnl_values *cur = fact->value;
	const char *ifname = s->name, *kmsg = fact->kmsg;
	int read_r = fact->r, r;

	if (!ethparam_manages(pk, ctx->profile))
		return 0;
	if (read_r < 0)
		return plan_add_problem(
		    ctx->plan, read_r == -EOPNOTSUPP ? EXIT_UNSUPPORTED : EXIT_ERROR, ifname,
		    read_r == -EOPNOTSUPP ? "remove the section from the profile for this port"
					  : "check the interface",
		    "%s: %s: %s%s%s%s", pk->profile_path,
		    read_r == -EOPNOTSUPP ? "not supported by the driver" : "cannot be read",
		    sysroot_strerror(read_r), kmsg ? " (kernel: " : "", kmsg ? kmsg : "", kmsg ? ")" : "");
	for (size_t i = 0; i < pk->group->n_params; i++) {
		const struct ethnl_param *p = &pk->group->params[i];
		_cleanup_free_ char *key = NULL, *old = NULL, *new = NULL;
		uint32_t want;

		if (!wanted(pk, ctx->profile, i, &want))
			continue;
		if (!cur->present[i]) {
			r = plan_add_problem(ctx->plan, EXIT_UNSUPPORTED, ifname,
					     "remove the key from the profile for this port",
					     "%s.%s: the driver does not support it", pk->profile_path,
					     p->name);
			if (r < 0)
				return r;
			continue;
		}
		if (cur->v[i] == want)
			continue;
		key = strprintf("%s.%s", pk->kind->name, p->name);
		if (!key || format_value(p, cur->v[i], &old) < 0 || format_value(p, want, &new) < 0)
			return -ENOMEM;
		r = plan_add_change(ctx->plan, pk->kind->name, ifname, key, old, new);
		if (r < 0)
			return r;
	}
	return 0;
}

int ethparam_probe(const struct ethparam_kind *pk, const char *ifname, void *ret, char **ret_kmsg)
{
	return ethnl_group_get(pk->group, ifname, ret, ret_kmsg);
}

void ethparam_show(const struct ethparam_kind *pk, const struct iface_state *s)
{
	const struct iface_fact *fact = kind_fact(s, pk->kind);
	const struct ethnl_group *g = pk->group;
	const struct ethnl_values *v = fact->value;
	int r = fact->r;

	if (!s->present) {
		out_json(g->name, NULL);
		return;
	}
	out_open_object(g->name);
	out_text("  %-8s", pk->label);
	if (r < 0)
		out_text("  ");
	kind_show_status(r);
	out_string(OUT_JSON, "kernel_message", NULL, fact->kmsg);
	if (r < 0 && fact->kmsg)
		out_text(" (kernel: %s)", fact->kmsg);
	for (size_t i = 0; r >= 0 && i < g->n_params; i++) {
		const struct ethnl_param *p = &g->params[i];

		if (!v->present[i])
			out_string(OUT_JSON, p->name, NULL, NULL);
		else if (p->is_bool)
			out_bool(OUT_JSON, p->name, NULL, v->v[i]);
		else
			out_uint(OUT_JSON, p->name, NULL, v->v[i]);
		if (!v->present[i])
			out_text("  %s n/a", p->name);
		else if (p->is_bool)
			out_text("  %s %s", p->name, v->v[i] ? "on" : "off");
		else
			out_text("  %s %" PRIu32, p->name, v->v[i]);
	}
	out_text("\n");
	out_close_object();
}
