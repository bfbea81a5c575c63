/* kinds/ethtool_u32.c: read, write, probe, diff and show of the u32
 * ethtool parameters with a device maximum (see ethtool_u32.h). */
#include "ethtool_u32.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "base/exitcode.h"
#include "base/output.h"
#include "kinds.h"
#include "os/probe.h"
#include "os/sysroot.h"
#include "changes.h"
#include "profile.h"

static const struct ethtool_u32_field *field_find(const struct ethtool_u32_group *g, const char *key)
{
	for (size_t i = 0; i < g->n_fields; i++)
		if (streq(g->fields[i].key, key))
			return &g->fields[i];
	return NULL;
}

static const struct profile_uint *want_of(const struct ethtool_u32_group *g,
					  const struct ethtool_u32_field *f, const struct profile *p)
{
	return (const struct profile_uint *)((const char *)kind_want(p, g->kind) + f->want);
}

/* The group's index of key's parameter. */
static int param_of(const struct ethtool_u32_group *g, const char *key)
{
	const struct ethtool_u32_field *f = field_find(g, key);
	int i = f ? ethnl_group_find(g->group, f->param) : -ENOENT;

	return i < 0 ? -EINVAL : i;
}

/* A parameter the device does not report (a channel type it has none of)
 * reads as 0 with a maximum of 0. */
static uint32_t value_of(const struct ethnl_values *v, size_t i)
{
	return v->present[i] ? v->v[i] : 0;
}

int ethtool_u32_read(const struct ethtool_u32_group *g, const char *ifname, const char *key, char **ret,
		     char **ret_kmsg)
{
	struct ethnl_values cur;
	int i = param_of(g, key), r;

	if (i < 0)
		return i;
	r = ethnl_group_get(g->group, ifname, &cur, ret_kmsg);
	return r < 0 ? r : kind_format_u64(value_of(&cur, (size_t)i), ret);
}

int ethtool_u32_write(const struct ethtool_u32_group *g, const char *ifname, const char *key,
		      const char *value, char **ret_kmsg)
{
	int i = param_of(g, key), r;
	uint32_t v;

	if (i < 0)
		return i;
	r = safe_atou32(value, &v);
	return r < 0 ? r : ethnl_group_set(g->group, ifname, (size_t)i, v, ret_kmsg);
}

int ethtool_u32_probe(const struct ethtool_u32_group *g, const char *ifname, void *ret, char **ret_kmsg)
{
	return ethnl_group_get(g->group, ifname, ret, ret_kmsg);
}

bool ethtool_u32_manages(const struct ethtool_u32_group *g, const struct profile *p)
{
	for (size_t i = 0; i < g->n_fields; i++)
		if (want_of(g, &g->fields[i], p)->set)
			return true;
	return false;
}

int ethtool_u32_diff(const struct ethtool_u32_group *g, struct plan_ctx *ctx, const struct iface_state *s)
{
	const struct iface_fact *fact = kind_fact(s, g->kind);
	const struct ethnl_values *probed = fact->value;
	const char *ifname = s->name;
	int probed_r = fact->r;
	struct plan *p = ctx->plan;
	int r;

	if (!ethtool_u32_manages(g, ctx->profile))
		return 0;
	if (probed_r == -EOPNOTSUPP)
		return plan_add_problem(p, EXIT_UNSUPPORTED, ifname,
					"remove the key from the profile for this port",
					"%s: not supported by the driver", g->kind->name);
	if (probed_r < 0)
		return plan_add_problem(p, EXIT_ERROR, ifname, "check the interface",
					"%s cannot be read: %s%s%s%s", g->kind->name,
					sysroot_strerror(probed_r), fact->kmsg ? " (kernel: " : "",
					fact->kmsg ? fact->kmsg : "", fact->kmsg ? ")" : "");
	for (size_t k = 0; k < g->n_fields; k++) {
		const struct ethtool_u32_field *f = &g->fields[k];
		const struct profile_uint *want = want_of(g, f, ctx->profile);
		int i = ethnl_group_find(g->group, f->param);
		uint32_t cur, max;
		_cleanup_free_ char *old = NULL, *new = NULL;

		if (!want->set)
			continue;
		if (i < 0)
			return -EINVAL;
		cur = value_of(probed, (size_t)i);
		max = probed->max[i];
		if (max == 0 && want->value > 0)
			r = plan_add_problem(p, EXIT_UNSUPPORTED, ifname,
					     "remove the key from the profile for this port",
					     "%s: the device has no such setting", f->key);
		else if (want->value > max)
			r = plan_add_problem(p, EXIT_PRECONDITION, ifname, "lower the value in the profile",
					     "%s %" PRIu64 " exceeds the device maximum %u", f->key,
					     want->value, max);
		else if (want->value == cur)
			r = 0;
		else if (kind_format_u64(cur, &old) < 0 || kind_format_u64(want->value, &new) < 0)
			r = -ENOMEM;
		else
			r = plan_add_change(p, g->kind->name, ifname, f->key, old, new);
		if (r < 0)
			return r;
	}
	return 0;
}

/* A count is "n/a" (JSON null) when the device has none of that type (max
 * 0): veth has no combined channels. */
static void show_field(const char *name, uint32_t cur, uint32_t max)
{
	char key[24];

	snprintf(key, sizeof(key), "max_%s", name);
	if (max == 0) {
		out_string(OUT_JSON, name, NULL, NULL);
		out_string(OUT_JSON, key, NULL, NULL);
		out_text("  %s n/a", name);
		return;
	}
	out_uint(OUT_JSON, name, NULL, cur);
	out_uint(OUT_JSON, key, NULL, max);
	out_text("  %s %" PRIu32 "/%" PRIu32, name, cur, max);
}

void ethtool_u32_show(const struct ethtool_u32_group *g, const struct iface_state *s)
{
	const struct iface_fact *fact = kind_fact(s, g->kind);
	const struct ethnl_values *v = fact->value;

	if (!s->present) {
		out_json(g->kind->name, NULL);
		return;
	}
	out_open_object(g->kind->name);
	out_text("  %s", g->label);
	if (fact->r < 0)
		out_text("  ");
	kind_show_status(fact->r);
	for (size_t i = 0; fact->r >= 0 && i < g->group->n_params; i++)
		show_field(g->group->params[i].name, value_of(v, i), v->max[i]);
	out_text("\n");
	out_close_object();
}
