/* kinds/pause.c: the "pause" kind, link.pause: object "ens1f0", key
 * "pause.rx" (autoneg, rx, tx: "on" | "off"), through ethtool netlink
 * PAUSE_GET/SET (ioctl GPAUSEPARAM/SPAUSEPARAM fallback). */
#include "ethparam.h"

#include "os/probe.h"
#include "profile.h"

struct pause_want {
	struct profile_bool autoneg, rx, tx;
};

#define W(member) offsetof(struct pause_want, member)

static const struct profile_key pause_params[] = {
    PROFILE_KEY_BOOL("autoneg", W(autoneg), "negotiate pause with the link partner"),
    PROFILE_KEY_BOOL("rx", W(rx), "honour received pause frames"),
    PROFILE_KEY_BOOL("tx", W(tx), "send pause frames"),
    {0},
};

static const struct profile_key pause_keys[] = {
    PROFILE_KEY_SECTION(
	"pause", pause_params,
	"pause frames (ethtool -A); a driver without pause settings is unsupported (exit 69)"),
    {0},
};

extern const struct change_kind kind_pause;

static const struct ethparam_kind pause_kind = {
    .kind = &kind_pause,
    .profile_path = "link.pause",
    .label = "pause",
    .group = &ethnl_pause,
    /* ethnl_pause's order */
    .want_offset = {W(autoneg), W(rx), W(tx)},
};

static int pause_probe(const char *ifname, void *ret, char **kmsg)
{
	return ethparam_probe(&pause_kind, ifname, ret, kmsg);
}

static const struct probe_fact pause_fact = {
    .name = "pause",
    .layout = 1,
    .size = sizeof(struct ethnl_values),
    .read = pause_probe,
    .check = kind_check_ethnl_values,
};

static int pause_read(const char *object, const char *key, char **ret, char **kmsg)
{
	return ethparam_read(&pause_kind, object, key, ret, kmsg);
}

static int pause_write(const char *object, const char *key, const char *value, char **kmsg)
{
	return ethparam_write(&pause_kind, object, key, value, kmsg);
}

static int pause_diff(struct plan_ctx *ctx, const struct iface_state *s)
{
	return ethparam_diff(&pause_kind, ctx, s);
}

static bool pause_manages(const struct profile *p)
{
	return ethparam_manages(&pause_kind, p);
}

static void pause_show(const struct iface_state *s)
{
	ethparam_show(&pause_kind, s);
}

/* What show writes of it (kinds.h: show_schema; `make docs` puts it into
 * schemas/state.schema.json). */
static const char pause_show_schema[] =
    "{"
    " \"pause\": {"
    "  \"type\": [\"object\", \"null\"],"
    "  \"description\": \"Pause frames (ethtool netlink PAUSE_GET, else ETHTOOL_GPAUSEPARAM), as `ethtool "
    "-a` shows them. null when the interface is not in this network namespace (present false).\","
    "  \"required\": [\"status\", \"error\", \"kernel_message\"],"
    "  \"additionalProperties\": false,"
    "  \"x-cx5prof-status\": \"the driver implements no pause settings (EOPNOTSUPP; veth has none)\","
    "  \"x-cx5prof-kmsg\": true,"
    "  \"properties\": {"
    "   \"autoneg\": {"
    "    \"type\": [\"boolean\", \"null\"],"
    "    \"description\": \"pause autonegotiation; null when the driver does not report it\""
    "   },"
    "   \"rx\": {"
    "    \"type\": [\"boolean\", \"null\"],"
    "    \"description\": \"rx pause; null when the driver does not report it\""
    "   },"
    "   \"tx\": {"
    "    \"type\": [\"boolean\", \"null\"],"
    "    \"description\": \"tx pause; null when the driver does not report it\""
    "   }"
    "  }"
    " }"
    "}";

const struct change_kind kind_pause = {
    .name = "pause",
    .rank = 36,
    .scope = KIND_SCOPE_PORT,
    .profile_section = "link",
    .keys = pause_keys,
    .want_size = sizeof(struct pause_want),
    .probe = &pause_fact,
    .read = pause_read,
    .write = pause_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .write_reads_back = true,
    .diff = pause_diff,
    .manages = pause_manages,
    .show_port = pause_show,
    .show_schema = pause_show_schema,
};
