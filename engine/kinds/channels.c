/* kinds/channels.c: the "channels" kind, link.channels.combined|rx|tx:
 * object "ens1f0", key "channels.combined", through ethtool netlink
 * CHANNELS_GET/SET (ioctl GCHANNELS/SCHANNELS fallback; ethtool_u32.h,
 * with the device maximum and the kernel's extack text). A change briefly
 * resets the link and makes the driver create the completion IRQs anew:
 * every kind is told (kinds_irqs_recreated). */
#include "kinds.h"

#include <stddef.h>

#include "ethtool_u32.h"
#include "os/probe.h"
#include "profile.h"

struct channels_want {
	struct profile_uint combined, rx, tx;
};

#define W(name) offsetof(struct channels_want, name)

static const struct profile_key channel_counts[] = {
    PROFILE_KEY_UINT("combined", W(combined), 0, 1024, "combined channels"),
    PROFILE_KEY_UINT("rx", W(rx), 0, 1024, "rx channels"),
    PROFILE_KEY_UINT("tx", W(tx), 0, 1024, "tx channels"),
    {0},
};

static const struct profile_key channels_keys[] = {
    PROFILE_KEY_SECTION(
	"channels", channel_counts,
	"ethtool channels (ethtool -L); plan checks each against the device maximum; a change "
	"briefly resets the link and re-creates the IRQs"),
    {0},
};

#define FIELD(name)                                                                                          \
	{                                                                                                    \
		"channels." #name, #name, W(name)                                                            \
	}

static const struct ethtool_u32_field channel_fields[] = {FIELD(combined), FIELD(rx), FIELD(tx)};

extern const struct change_kind kind_channels;

static const struct ethtool_u32_group channels = {
    .kind = &kind_channels,
    .label = "channels",
    .group = &ethnl_channels,
    .fields = channel_fields,
    .n_fields = ARRAY_SIZE(channel_fields),
};

static int probe_channels(const char *ifname, void *ret, char **kmsg)
{
	return ethtool_u32_probe(&channels, ifname, ret, kmsg);
}

static const struct probe_fact channels_fact = {
    .name = "channels",
    .layout = 1,
    .size = sizeof(struct ethnl_values),
    .read = probe_channels,
    .check = kind_check_ethnl_values,
};

static int channels_read(const char *object, const char *key, char **ret, char **kmsg)
{
	return ethtool_u32_read(&channels, object, key, ret, kmsg);
}

static int channels_write(const char *object, const char *key, const char *value, char **kmsg)
{
	int r = ethtool_u32_write(&channels, object, key, value, kmsg);

	if (r > 0)
		kinds_irqs_recreated(); /* the driver re-created the IRQs */
	return r;
}

static int channels_diff(struct plan_ctx *ctx, const struct iface_state *s)
{
	return ethtool_u32_diff(&channels, ctx, s);
}

static bool channels_manages(const struct profile *p)
{
	return ethtool_u32_manages(&channels, p);
}

static void channels_show(const struct iface_state *s)
{
	ethtool_u32_show(&channels, s);
}

/* What show writes of it (kinds.h: show_schema; `make docs` puts it into
 * schemas/state.schema.json). */
static const char channels_show_schema[] =
    "{"
    " \"channels\": {"
    "  \"type\": [\"object\", \"null\"],"
    "  \"description\": \"Channels (ETHTOOL_GCHANNELS) with their maximums, as `ethtool -l` prints them. "
    "null when the interface is not in this network namespace (present false).\","
    "  \"required\": [\"status\", \"error\"],"
    "  \"additionalProperties\": false,"
    "  \"x-cx5prof-status\": \"the driver does not implement this ethtool request (EOPNOTSUPP; veth has no "
    "rings)\","
    "  \"properties\": {"
    "   \"rx\": {"
    "    \"type\": [\"integer\", \"null\"],"
    "    \"minimum\": 0,"
    "    \"description\": \"current number of rx channels; null when the device has no rx channels (its "
    "maximum is 0)\""
    "   },"
    "   \"max_rx\": {"
    "    \"type\": [\"integer\", \"null\"],"
    "    \"minimum\": 0,"
    "    \"description\": \"maximum number of rx channels the device supports; null when 0\""
    "   },"
    "   \"tx\": {"
    "    \"type\": [\"integer\", \"null\"],"
    "    \"minimum\": 0,"
    "    \"description\": \"current number of tx channels; null when the device has no tx channels (its "
    "maximum is 0)\""
    "   },"
    "   \"max_tx\": {"
    "    \"type\": [\"integer\", \"null\"],"
    "    \"minimum\": 0,"
    "    \"description\": \"maximum number of tx channels the device supports; null when 0\""
    "   },"
    "   \"other\": {"
    "    \"type\": [\"integer\", \"null\"],"
    "    \"minimum\": 0,"
    "    \"description\": \"current number of other channels; null when the device has no other channels "
    "(its maximum is 0)\""
    "   },"
    "   \"max_other\": {"
    "    \"type\": [\"integer\", \"null\"],"
    "    \"minimum\": 0,"
    "    \"description\": \"maximum number of other channels the device supports; null when 0\""
    "   },"
    "   \"combined\": {"
    "    \"type\": [\"integer\", \"null\"],"
    "    \"minimum\": 0,"
    "    \"description\": \"current number of combined channels; null when the device has no combined "
    "channels (its maximum is 0)\""
    "   },"
    "   \"max_combined\": {"
    "    \"type\": [\"integer\", \"null\"],"
    "    \"minimum\": 0,"
    "    \"description\": \"maximum number of combined channels the device supports; null when 0\""
    "   }"
    "  }"
    " }"
    "}";

const struct change_kind kind_channels = {
    .name = "channels",
    .rank = 20,
    .resets_link = true,
    .order_note = "before IRQ affinity: changing channels re-creates the IRQs; briefly resets the link",
    .scope = KIND_SCOPE_PORT,
    .profile_section = "link",
    .keys = channels_keys,
    .want_size = sizeof(struct channels_want),
    .probe = &channels_fact,
    .read = channels_read,
    .write = channels_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .diff = channels_diff,
    .manages = channels_manages,
    .show_port = channels_show,
    .show_schema = channels_show_schema,
};
