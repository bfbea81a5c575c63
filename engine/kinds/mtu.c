/* kinds/mtu.c: the "mtu" kind, link.mtu: object "ens1f0", key "mtu".
 * Read and written through netlink (link.h); the device's MTU range is a
 * precondition. */
#include "kinds.h"

#include <errno.h>
#include <inttypes.h>

#include "base/exitcode.h"
#include "os/link.h"
#include "os/probe.h"
#include "plan.h"
#include "profile.h"

static int mtu_read(const char *object, const char *key, char **ret)
{
	struct link_info l;
	int r;

	(void)key;
	r = link_get(object, &l);
	return r < 0 ? r : kind_format_u64(l.mtu, ret);
}

static int mtu_write(const char *object, const char *key, const char *value, char **kmsg)
{
	uint32_t mtu;
	int r;

	(void)key;
	r = safe_atou32(value, &mtu);
	return r < 0 ? r : link_set_mtu(object, mtu, kmsg);
}

static int mtu_diff(struct plan_ctx *ctx, const struct iface_state *s)
{
	uint64_t want = ctx->profile->link.mtu.value;
	_cleanup_free_ char *old = NULL, *new = NULL;

	if (!ctx->profile->link.mtu.set)
		return 0;
	if (s->link.has_mtu_range && (want < s->link.min_mtu || want > s->link.max_mtu))
		return plan_add_problem(ctx->plan, EXIT_PRECONDITION, s->name,
					"choose an MTU within the device's range",
					"MTU %" PRIu64 " is outside the device's range %u..%u", want,
					s->link.min_mtu, s->link.max_mtu);
	if (want == s->link.mtu)
		return 0;
	if (kind_format_u64(s->link.mtu, &old) < 0 || kind_format_u64(want, &new) < 0)
		return -ENOMEM;
	return plan_add_change(ctx->plan, "mtu", s->name, "mtu", old, new);
}

static bool mtu_manages(const struct profile *p)
{
	return p->link.mtu.set;
}

const struct change_kind kind_mtu = {
    .name = "mtu",
    .rank = 40,
    .scope = KIND_SCOPE_PORT,
    .read = mtu_read,
    .write = mtu_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .diff = mtu_diff,
    .manages = mtu_manages,
};
