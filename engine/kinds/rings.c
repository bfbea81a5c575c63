/* kinds/rings.c: the "rings" kind, link.rings.rx|tx: object "ens1f0", key
 * "rings.rx", through ethtool netlink RINGS_GET/SET (ioctl
 * GRINGPARAM/SRINGPARAM fallback; ethtool_u32.h, with the device maximum
 * and the kernel's extack text). A change briefly resets the link; a veth
 * has no rings (unsupported). */
#include "kinds.h"

#include <stddef.h>

#include "ethtool_u32.h"
#include "os/probe.h"
#include "profile.h"

struct rings_want {
	struct profile_uint rx, tx;
};

#define W(name) offsetof(struct rings_want, name)

static const struct profile_key ring_sizes[] = {
    PROFILE_KEY_UINT("rx", W(rx), 1, 65536, "rx ring entries"),
    PROFILE_KEY_UINT("tx", W(tx), 1, 65536, "tx ring entries"),
    {0},
};

static const struct profile_key rings_keys[] = {
    PROFILE_KEY_SECTION("rings", ring_sizes,
			"ethtool ring sizes (ethtool -G); plan checks each against the device maximum; a "
			"change briefly resets the link"),
    {0},
};

#define FIELD(name)                                                                                          \
	{                                                                                                    \
		"rings." #name, #name, W(name)                                                               \
	}

static const struct ethtool_u32_field ring_fields[] = {FIELD(rx), FIELD(tx)};

extern const struct change_kind kind_rings;

static const struct ethtool_u32_group rings = {
    .kind = &kind_rings,
    .label = "rings   ",
    .group = &ethnl_rings,
    .fields = ring_fields,
    .n_fields = ARRAY_SIZE(ring_fields),
};

static int probe_rings(const char *ifname, void *ret, char **kmsg)
{
	return ethtool_u32_probe(&rings, ifname, ret, kmsg);
}

static const struct probe_fact rings_fact = {
    .name = "rings",
    .layout = 1,
    .size = sizeof(struct ethnl_values),
    .read = probe_rings,
    .check = kind_check_ethnl_values,
};

static int rings_read(const char *object, const char *key, char **ret, char **kmsg)
{
	return ethtool_u32_read(&rings, object, key, ret, kmsg);
}

static int rings_write(const char *object, const char *key, const char *value, char **kmsg)
{
	return ethtool_u32_write(&rings, object, key, value, kmsg);
}

static int rings_diff(struct plan_ctx *ctx, const struct iface_state *s)
{
	return ethtool_u32_diff(&rings, ctx, s);
}

static bool rings_manages(const struct profile *p)
{
	return ethtool_u32_manages(&rings, p);
}

static void rings_show(const struct iface_state *s)
{
	ethtool_u32_show(&rings, s);
}

/* What show writes of it (kinds.h: show_schema; `make docs` puts it into
 * schemas/state.schema.json). */
static const char rings_show_schema[] =
    "{"
    " \"rings\": {"
    "  \"type\": [\"object\", \"null\"],"
    "  \"description\": \"Rings (ETHTOOL_GRINGPARAM) with their maximums, as `ethtool -g` prints them. null "
    "when the interface is not in this network namespace (present false).\","
    "  \"required\": [\"status\", \"error\"],"
    "  \"additionalProperties\": false,"
    "  \"x-cx5prof-status\": \"the driver does not implement this ethtool request (EOPNOTSUPP; veth has no "
    "rings)\","
    "  \"properties\": {"
    "   \"rx\": {"
    "    \"type\": [\"integer\", \"null\"],"
    "    \"minimum\": 0,"
    "    \"description\": \"current rx ring size (descriptors)\""
    "   },"
    "   \"max_rx\": {"
    "    \"type\": [\"integer\", \"null\"],"
    "    \"minimum\": 0,"
    "    \"description\": \"maximum rx ring size\""
    "   },"
    "   \"tx\": {"
    "    \"type\": [\"integer\", \"null\"],"
    "    \"minimum\": 0,"
    "    \"description\": \"current tx ring size (descriptors)\""
    "   },"
    "   \"max_tx\": {"
    "    \"type\": [\"integer\", \"null\"],"
    "    \"minimum\": 0,"
    "    \"description\": \"maximum tx ring size\""
    "   }"
    "  }"
    " }"
    "}";

const struct change_kind kind_rings = {
    .name = "rings",
    .rank = 30,
    .resets_link = true,
    .order_note = "briefly resets the link",
    .scope = KIND_SCOPE_PORT,
    .profile_section = "link",
    .keys = rings_keys,
    .want_size = sizeof(struct rings_want),
    .probe = &rings_fact,
    .read = rings_read,
    .write = rings_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .diff = rings_diff,
    .manages = rings_manages,
    .show_port = rings_show,
    .show_schema = rings_show_schema,
};
