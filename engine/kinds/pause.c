/* kinds/pause.c: the "pause" kind, link.pause: object "ens1f0", key
 * "pause.rx" (autoneg, rx, tx: "on" | "off"), through ethtool netlink
 * PAUSE_GET/SET (ioctl GPAUSEPARAM/SPAUSEPARAM fallback). */
#include "ethparam.h"

#include "os/probe.h"
#include "profile.h"

#define P(member) offsetof(struct profile, member)

static const struct ethparam_kind pause_kind = {
    .kind = "pause",
    .profile_path = "link.pause",
    .group = &ethnl_pause,
    /* ethnl_pause's order */
    .profile_offset = {P(link.pause.autoneg), P(link.pause.rx), P(link.pause.tx)},
};

static int pause_read(const char *object, const char *key, char **ret)
{
	return ethparam_read(&pause_kind, object, key, ret);
}

static int pause_write(const char *object, const char *key, const char *value, char **kmsg)
{
	return ethparam_write(&pause_kind, object, key, value, kmsg);
}

static int pause_diff(struct plan_ctx *ctx, const struct iface_state *s)
{
	return ethparam_diff(&pause_kind, ctx, s->name, s->pause_r, &s->pause, s->pause_kmsg);
}

static bool pause_manages(const struct profile *p)
{
	return ethparam_manages(&pause_kind, p);
}

const struct change_kind kind_pause = {
    .name = "pause",
    .rank = 36,
    .scope = KIND_SCOPE_PORT,
    .read = pause_read,
    .write = pause_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .write_reads_back = true,
    .diff = pause_diff,
    .manages = pause_manages,
};
