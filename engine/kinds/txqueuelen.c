/* kinds/txqueuelen.c: the "txqueuelen" kind, link.txqueuelen: object
 * "ens1f0", key "txqueuelen", the length of the port's transmit queue in
 * packets (`ip link set DEV txqueuelen N`). Read and written through
 * rtnetlink IFLA_TXQLEN (link.h), which reads it back; the probe's link
 * facts carry the current value. */
#include "kinds.h"

#include <errno.h>
#include <inttypes.h>

#include "base/output.h"
#include "os/link.h"
#include "os/probe.h"
#include "changes.h"
#include "profile.h"

struct txqueuelen_want {
	struct profile_uint len;
};

static const struct profile_key txqueuelen_keys[] = {
    PROFILE_KEY_UINT(
	"txqueuelen", offsetof(struct txqueuelen_want, len), 0, UINT32_MAX,
	"length of each matched port's transmit queue, in packets (ip link set DEV txqueuelen N)"),
    {0},
};

extern const struct change_kind kind_txqueuelen;

static const struct profile_uint *want_of(const struct profile *p)
{
	return &((const struct txqueuelen_want *)kind_want(p, &kind_txqueuelen))->len;
}

static int txqueuelen_read(const char *object, const char *key, char **ret, char **kmsg _unused_)
{
	struct link_info l;
	int r;

	(void)key;
	r = link_get(object, &l);
	return r < 0 ? r : kind_format_u64(l.txqlen, ret);
}

static int txqueuelen_write(const char *object, const char *key, const char *value, char **kmsg)
{
	uint32_t len;
	int r;

	(void)key;
	r = safe_atou32(value, &len);
	return r < 0 ? r : link_set_txqlen(object, len, kmsg);
}

static int txqueuelen_diff(struct plan_ctx *ctx, const struct iface_state *s)
{
	const struct profile_uint *want = want_of(ctx->profile);
	_cleanup_free_ char *old = NULL, *new = NULL;

	if (!want->set || want->value == s->link.txqlen)
		return 0;
	if (kind_format_u64(s->link.txqlen, &old) < 0 || kind_format_u64(want->value, &new) < 0)
		return -ENOMEM;
	return plan_add_change(ctx->plan, "txqueuelen", s->name, "txqueuelen", old, new);
}

static bool txqueuelen_manages(const struct profile *p)
{
	return want_of(p)->set;
}

static void txqueuelen_show_link(const struct iface_state *s)
{
	out_uint(OUT_ANY, "txqueuelen", "  txqueuelen %" PRIu64, s->link.txqlen);
}

/* What show writes of it (kinds.h: show_schema; `make docs` puts it into
 * schemas/state.schema.json). */
static const char txqueuelen_show_schema[] =
    "{"
    " \"txqueuelen\": {"
    "  \"type\": \"integer\","
    "  \"minimum\": 0,"
    "  \"description\": \"transmit queue length in packets (IFLA_TXQLEN, ip link's qlen)\""
    " }"
    "}";

const struct change_kind kind_txqueuelen = {
    .name = "txqueuelen",
    .rank = 42,
    .scope = KIND_SCOPE_PORT,
    .profile_section = "link",
    .keys = txqueuelen_keys,
    .want_size = sizeof(struct txqueuelen_want),
    .read = txqueuelen_read,
    .write = txqueuelen_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .write_reads_back = true,
    .diff = txqueuelen_diff,
    .manages = txqueuelen_manages,
    .show_link = txqueuelen_show_link,
    .show_schema = txqueuelen_show_schema,
};
