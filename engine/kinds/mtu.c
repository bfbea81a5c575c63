/* kinds/mtu.c: the "mtu" kind, link.mtu: object "ens1f0", key "mtu".
 * Read and written through netlink (link.h); the device's MTU range (the
 * probe's link facts) is a precondition. */
#include "kinds.h"

#include <errno.h>
#include <inttypes.h>

#include "base/exitcode.h"
#include "base/output.h"
#include "os/link.h"
#include "os/probe.h"
#include "changes.h"
#include "profile.h"

struct mtu_want {
	struct profile_uint mtu;
};

static const struct profile_key mtu_keys[] = {
    PROFILE_KEY_UINT("mtu", offsetof(struct mtu_want, mtu), 68, 65535,
		     "MTU of each matched port, in bytes; plan checks it against the device's range"),
    {0},
};

static const struct mtu_want *want_of(const struct profile *p);

static int mtu_read(const char *object, const char *key, char **ret, char **kmsg _unused_)
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
	const struct profile_uint *w = &want_of(ctx->profile)->mtu;
	uint64_t want = w->value;
	_cleanup_free_ char *old = NULL, *new = NULL;

	if (!w->set)
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
	return want_of(p)->mtu.set;
}

/* The MTU and its range, inside the link's object and line. */
static void mtu_show_link(const struct iface_state *s)
{
	const struct link_info *l = &s->link;

	out_uint(OUT_ANY, "mtu", "  mtu %" PRIu64, l->mtu);
	if (l->has_mtu_range) {
		out_uint(OUT_JSON, "min_mtu", NULL, l->min_mtu);
		out_uint(OUT_JSON, "max_mtu", NULL, l->max_mtu);
		out_text(" (%" PRIu32 "-%" PRIu32 ")", l->min_mtu, l->max_mtu);
	} else {
		out_string(OUT_JSON, "min_mtu", NULL, NULL);
		out_string(OUT_JSON, "max_mtu", NULL, NULL);
	}
}

/* What show writes of it (kinds.h: show_schema; `make docs` puts it into
 * schemas/state.schema.json). */
static const char mtu_show_schema[] =
    "{"
    " \"mtu\": {\"type\": \"integer\", \"minimum\": 0, \"description\": \"MTU in bytes\"},"
    " \"min_mtu\": {"
    "  \"type\": [\"integer\", \"null\"],"
    "  \"minimum\": 0,"
    "  \"description\": \"smallest MTU the device accepts (IFLA_MIN_MTU); null when not reported\""
    " },"
    " \"max_mtu\": {"
    "  \"type\": [\"integer\", \"null\"],"
    "  \"minimum\": 0,"
    "  \"description\": \"largest MTU the device accepts (IFLA_MAX_MTU); null when not reported\""
    " }"
    "}";

const struct change_kind kind_mtu = {
    .name = "mtu",
    .rank = 40,
    .scope = KIND_SCOPE_PORT,
    .profile_section = "link",
    .keys = mtu_keys,
    .want_size = sizeof(struct mtu_want),
    .read = mtu_read,
    .write = mtu_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .diff = mtu_diff,
    .manages = mtu_manages,
    .show_link = mtu_show_link,
    .show_schema = mtu_show_schema,
};

static const struct mtu_want *want_of(const struct profile *p)
{
	return kind_want(p, &kind_mtu);
}
