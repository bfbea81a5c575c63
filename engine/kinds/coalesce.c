/* kinds/coalesce.c: the "coalesce" kind, link.coalesce: object "ens1f0",
 * key "coalesce.rx_usecs" (adaptive_rx, adaptive_tx: "on" | "off";
 * rx_usecs, rx_frames, tx_usecs, tx_frames: numbers), through ethtool
 * netlink COALESCE_GET/SET (ioctl GCOALESCE/SCOALESCE fallback). */
#include "ethparam.h"

#include "os/probe.h"
#include "profile.h"

#define P(member) offsetof(struct profile, member)

static const struct ethparam_kind coalesce_kind = {
    .kind = "coalesce",
    .profile_path = "link.coalesce",
    .group = &ethnl_coalesce,
    /* ethnl_coalesce's order */
    .profile_offset = {P(link.coalesce.adaptive_rx), P(link.coalesce.adaptive_tx), P(link.coalesce.rx_usecs),
		       P(link.coalesce.rx_frames), P(link.coalesce.tx_usecs), P(link.coalesce.tx_frames)},
};

static int coalesce_read(const char *object, const char *key, char **ret)
{
	return ethparam_read(&coalesce_kind, object, key, ret);
}

static int coalesce_write(const char *object, const char *key, const char *value, char **kmsg)
{
	return ethparam_write(&coalesce_kind, object, key, value, kmsg);
}

static int coalesce_diff(struct plan_ctx *ctx, const struct iface_state *s)
{
	return ethparam_diff(&coalesce_kind, ctx, s->name, s->coalesce_r, &s->coalesce, s->coalesce_kmsg);
}

static bool coalesce_manages(const struct profile *p)
{
	return ethparam_manages(&coalesce_kind, p);
}

const struct change_kind kind_coalesce = {
    .name = "coalesce",
    .rank = 34,
    .scope = KIND_SCOPE_PORT,
    .read = coalesce_read,
    .write = coalesce_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .write_reads_back = true,
    .diff = coalesce_diff,
    .manages = coalesce_manages,
};
