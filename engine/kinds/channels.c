/* kinds/channels.c: the "channels" kind, link.channels.combined|rx|tx:
 * object "ens1f0", key "channels.combined". Written with ethtool
 * (SCHANNELS), which briefly resets the link and makes the driver create
 * the completion IRQs anew: the IRQ kind's view of them is dropped. */
#include "kinds.h"

#include <stddef.h>

#include "ethtool_u32.h"
#include "irq_kind.h"
#include "os/ethtool.h"
#include "os/probe.h"
#include "profile.h"

#define FIELD(name)                                                                                          \
	{                                                                                                    \
		"channels." #name, offsetof(struct eth_channels, name),                                      \
		    offsetof(struct eth_channels, max_##name),                                               \
		    offsetof(struct profile, link.channels_##name)                                           \
	}

static const struct ethtool_u32_field channel_fields[] = {FIELD(combined), FIELD(rx), FIELD(tx)};

static int get_channels(const char *ifname, void *ret)
{
	return ethtool_get_channels(ifname, ret);
}

static int set_channels(const char *ifname, const void *value)
{
	return ethtool_set_channels(ifname, value);
}

static const struct ethtool_u32_group channels = {
    .kind = "channels",
    .fields = channel_fields,
    .n_fields = ARRAY_SIZE(channel_fields),
    .size = sizeof(struct eth_channels),
    .get = get_channels,
    .set = set_channels,
};

static int channels_read(const char *object, const char *key, char **ret)
{
	return ethtool_u32_read(&channels, object, key, ret);
}

static int channels_write(const char *object, const char *key, const char *value, char **kmsg)
{
	int r;

	(void)kmsg;
	r = ethtool_u32_write(&channels, object, key, value);
	if (r > 0)
		irq_kind_forget_owners(); /* the driver re-created the IRQs */
	return r;
}

static int channels_diff(struct plan_ctx *ctx, const struct iface_state *s)
{
	return ethtool_u32_diff(&channels, ctx, s->name, &s->channels, s->channels_r);
}

static bool channels_manages(const struct profile *p)
{
	return ethtool_u32_manages(&channels, p);
}

const struct change_kind kind_channels = {
    .name = "channels",
    .rank = 20,
    .resets_link = true,
    .order_note = "before IRQ affinity: changing channels re-creates the IRQs; briefly resets the link",
    .scope = KIND_SCOPE_PORT,
    .read = channels_read,
    .write = channels_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .diff = channels_diff,
    .manages = channels_manages,
};
