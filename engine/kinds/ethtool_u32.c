/* kinds/ethtool_u32.c: read, write and diff of the u32 ethtool settings
 * (see ethtool_u32.h). */
#include "ethtool_u32.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "base/exitcode.h"
#include "kinds.h"
#include "plan.h"
#include "profile.h"

static const struct ethtool_u32_field *field_find(const struct ethtool_u32_group *g, const char *key)
{
	for (size_t i = 0; i < g->n_fields; i++)
		if (streq(g->fields[i].key, key))
			return &g->fields[i];
	return NULL;
}

static uint32_t *field_at(const void *base, size_t offset)
{
	return (uint32_t *)((char *)base + offset);
}

static const struct profile_uint *want_of(const struct ethtool_u32_field *f, const struct profile *p)
{
	return (const struct profile_uint *)((const char *)p + f->want);
}

/* The field of key and the port's struct as the driver has it now. */
static int group_get(const struct ethtool_u32_group *g, const char *ifname, const char *key,
		     const struct ethtool_u32_field **ret_field, void **ret_buf)
{
	const struct ethtool_u32_field *f = field_find(g, key);
	_cleanup_free_ void *buf = NULL;
	int r;

	if (!f)
		return -EINVAL;
	buf = calloc(1, g->size);
	if (!buf)
		return -ENOMEM;
	r = g->get(ifname, buf);
	if (r < 0)
		return r;
	*ret_field = f;
	*ret_buf = TAKE_PTR(buf);
	return 0;
}

int ethtool_u32_read(const struct ethtool_u32_group *g, const char *ifname, const char *key, char **ret)
{
	const struct ethtool_u32_field *f;
	_cleanup_free_ void *buf = NULL;
	int r = group_get(g, ifname, key, &f, &buf);

	return r < 0 ? r : kind_format_u64(*field_at(buf, f->value), ret);
}

int ethtool_u32_write(const struct ethtool_u32_group *g, const char *ifname, const char *key,
		      const char *value)
{
	const struct ethtool_u32_field *f;
	_cleanup_free_ void *buf = NULL;
	int r = group_get(g, ifname, key, &f, &buf);

	if (r < 0)
		return r;
	r = safe_atou32(value, field_at(buf, f->value));
	return r < 0 ? r : g->set(ifname, buf);
}

bool ethtool_u32_manages(const struct ethtool_u32_group *g, const struct profile *p)
{
	for (size_t i = 0; i < g->n_fields; i++)
		if (want_of(&g->fields[i], p)->set)
			return true;
	return false;
}

int ethtool_u32_diff(const struct ethtool_u32_group *g, struct plan_ctx *ctx, const char *ifname,
		     const void *probed, int probed_r)
{
	struct plan *p = ctx->plan;
	int r;

	if (!ethtool_u32_manages(g, ctx->profile))
		return 0;
	if (probed_r == -EOPNOTSUPP)
		return plan_add_problem(p, EXIT_UNSUPPORTED, ifname,
					"remove the key from the profile for this port",
					"%s: not supported by the driver", g->kind);
	if (probed_r < 0)
		return plan_add_problem(p, EXIT_ERROR, ifname, "check the interface", "%s cannot be read: %s",
					g->kind, strerror(-probed_r));
	for (size_t i = 0; i < g->n_fields; i++) {
		const struct ethtool_u32_field *f = &g->fields[i];
		const struct profile_uint *want = want_of(f, ctx->profile);
		uint32_t cur = *field_at(probed, f->value), max = *field_at(probed, f->max);
		_cleanup_free_ char *old = NULL, *new = NULL;

		if (!want->set)
			continue;
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
			r = plan_add_change(p, g->kind, ifname, f->key, old, new);
		if (r < 0)
			return r;
	}
	return 0;
}
