/* kinds/coalesce.c: the "coalesce" kind, link.coalesce: object "ens1f0",
 * key "coalesce.rx_usecs" (adaptive_rx, adaptive_tx: "on" | "off";
 * rx_usecs, rx_frames, tx_usecs, tx_frames: numbers), through ethtool
 * netlink COALESCE_GET/SET (ioctl GCOALESCE/SCOALESCE fallback). */
#include "ethparam.h"

#include "os/probe.h"
#include "profile.h"

struct coalesce_want {
	struct profile_bool adaptive_rx, adaptive_tx;
	struct profile_uint rx_usecs, rx_frames, tx_usecs, tx_frames;
};

#define W(member) offsetof(struct coalesce_want, member)

static const struct profile_key coalesce_params[] = {
    PROFILE_KEY_BOOL("adaptive_rx", W(adaptive_rx), "adaptive rx coalescing"),
    PROFILE_KEY_BOOL("adaptive_tx", W(adaptive_tx), "adaptive tx coalescing"),
    PROFILE_KEY_UINT("rx_usecs", W(rx_usecs), 0, 65535, "rx-usecs: microseconds before an rx interrupt"),
    PROFILE_KEY_UINT("rx_frames", W(rx_frames), 0, 65535, "rx-frames: frames before an rx interrupt"),
    PROFILE_KEY_UINT("tx_usecs", W(tx_usecs), 0, 65535,
		     "tx-usecs: microseconds before a tx completion interrupt"),
    PROFILE_KEY_UINT("tx_frames", W(tx_frames), 0, 65535,
		     "tx-frames: frames before a tx completion interrupt"),
    {0},
};

static const struct profile_key coalesce_keys[] = {
    PROFILE_KEY_SECTION("coalesce", coalesce_params,
			"interrupt coalescing (ethtool -C); a driver without coalescing settings, or without "
			"one of these, is unsupported (exit 69)"),
    {0},
};

extern const struct change_kind kind_coalesce;

static const struct ethparam_kind coalesce_kind = {
    .kind = &kind_coalesce,
    .profile_path = "link.coalesce",
    .label = "coalesce",
    .group = &ethnl_coalesce,
    /* ethnl_coalesce's order */
    .want_offset = {W(adaptive_rx), W(adaptive_tx), W(rx_usecs), W(rx_frames), W(tx_usecs), W(tx_frames)},
};

static int coalesce_probe(const char *ifname, void *ret, char **kmsg)
{
	return ethparam_probe(&coalesce_kind, ifname, ret, kmsg);
}

static const struct probe_fact coalesce_fact = {
    .name = "coalesce",
    .layout = 1,
    .size = sizeof(struct ethnl_values),
    .read = coalesce_probe,
    .check = kind_check_ethnl_values,
};

static int coalesce_read(const char *object, const char *key, char **ret, char **kmsg)
{
	return ethparam_read(&coalesce_kind, object, key, ret, kmsg);
}

static int coalesce_write(const char *object, const char *key, const char *value, char **kmsg)
{
	return ethparam_write(&coalesce_kind, object, key, value, kmsg);
}

static int coalesce_diff(struct plan_ctx *ctx, const struct iface_state *s)
{
	return ethparam_diff(&coalesce_kind, ctx, s);
}

static bool coalesce_manages(const struct profile *p)
{
	return ethparam_manages(&coalesce_kind, p);
}

static void coalesce_show(const struct iface_state *s)
{
	ethparam_show(&coalesce_kind, s);
}

/* What show writes of it (kinds.h: show_schema; `make docs` puts it into
 * schemas/state.schema.json). */
static const char coalesce_show_schema[] =
    "{"
    " \"coalesce\": {"
    "  \"type\": [\"object\", \"null\"],"
    "  \"description\": \"Interrupt coalescing (ethtool netlink COALESCE_GET, else ETHTOOL_GCOALESCE), the "
    "parameters link.coalesce manages, as `ethtool -c` shows them. null when the interface is not in this "
    "network namespace (present false).\","
    "  \"required\": [\"status\", \"error\", \"kernel_message\"],"
    "  \"additionalProperties\": false,"
    "  \"x-cx5prof-status\": \"the driver implements no coalescing settings (EOPNOTSUPP; veth has none)\","
    "  \"x-cx5prof-kmsg\": true,"
    "  \"properties\": {"
    "   \"adaptive_rx\": {"
    "    \"type\": [\"boolean\", \"null\"],"
    "    \"description\": \"adaptive rx coalescing; null when the driver does not report it\""
    "   },"
    "   \"adaptive_tx\": {"
    "    \"type\": [\"boolean\", \"null\"],"
    "    \"description\": \"adaptive tx coalescing; null when the driver does not report it\""
    "   },"
    "   \"rx_usecs\": {"
    "    \"type\": [\"integer\", \"null\"],"
    "    \"description\": \"rx-usecs; null when the driver does not report it\","
    "    \"minimum\": 0"
    "   },"
    "   \"rx_frames\": {"
    "    \"type\": [\"integer\", \"null\"],"
    "    \"description\": \"rx-frames; null when the driver does not report it\","
    "    \"minimum\": 0"
    "   },"
    "   \"tx_usecs\": {"
    "    \"type\": [\"integer\", \"null\"],"
    "    \"description\": \"tx-usecs; null when the driver does not report it\","
    "    \"minimum\": 0"
    "   },"
    "   \"tx_frames\": {"
    "    \"type\": [\"integer\", \"null\"],"
    "    \"description\": \"tx-frames; null when the driver does not report it\","
    "    \"minimum\": 0"
    "   }"
    "  }"
    " }"
    "}";

const struct change_kind kind_coalesce = {
    .name = "coalesce",
    .rank = 34,
    .scope = KIND_SCOPE_PORT,
    .profile_section = "link",
    .keys = coalesce_keys,
    .want_size = sizeof(struct coalesce_want),
    .probe = &coalesce_fact,
    .read = coalesce_read,
    .write = coalesce_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .write_reads_back = true,
    .diff = coalesce_diff,
    .manages = coalesce_manages,
    .show_port = coalesce_show,
    .show_schema = coalesce_show_schema,
};
