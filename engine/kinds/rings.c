/* kinds/rings.c: the "rings" kind, link.rings.rx|tx: object "ens1f0", key
 * "rings.rx". Written with ethtool (SRINGPARAM), which briefly resets the
 * link; a veth has no rings (unsupported). */
#include "kinds.h"

#include <stddef.h>

#include "ethtool_u32.h"
#include "os/ethtool.h"
#include "os/probe.h"
#include "profile.h"

#define FIELD(name)                                                                                          \
	{                                                                                                    \
		"rings." #name, offsetof(struct eth_rings, name), offsetof(struct eth_rings, max_##name),    \
		    offsetof(struct profile, link.rings_##name)                                              \
	}

static const struct ethtool_u32_field ring_fields[] = {FIELD(rx), FIELD(tx)};

static int get_rings(const char *ifname, void *ret)
{
	return ethtool_get_rings(ifname, ret);
}

static int set_rings(const char *ifname, const void *value)
{
	return ethtool_set_rings(ifname, value);
}

static const struct ethtool_u32_group rings = {
    .kind = "rings",
    .fields = ring_fields,
    .n_fields = ARRAY_SIZE(ring_fields),
    .size = sizeof(struct eth_rings),
    .get = get_rings,
    .set = set_rings,
};

static int rings_read(const char *object, const char *key, char **ret)
{
	return ethtool_u32_read(&rings, object, key, ret);
}

static int rings_write(const char *object, const char *key, const char *value, char **kmsg)
{
	(void)kmsg;
	return ethtool_u32_write(&rings, object, key, value);
}

static int rings_diff(struct plan_ctx *ctx, const struct iface_state *s)
{
	return ethtool_u32_diff(&rings, ctx, s->name, &s->rings, s->rings_r);
}

static bool rings_manages(const struct profile *p)
{
	return ethtool_u32_manages(&rings, p);
}

const struct change_kind kind_rings = {
    .name = "rings",
    .rank = 30,
    .resets_link = true,
    .order_note = "briefly resets the link",
    .scope = KIND_SCOPE_PORT,
    .read = rings_read,
    .write = rings_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .diff = rings_diff,
    .manages = rings_manages,
};
