/* kinds/rsshash.c: the "rss_hash" kind, link.rss_hash: object "ens1f0",
 * key "rss_hash", the function the NIC hashes flows with to pick their
 * receive queue: "toeplitz", "xor" or "crc32" (`ethtool -X DEV hfunc xor`;
 * mlx5 offers toeplitz and xor). Read and written through ethrss.h (the
 * ioctl's GRSSH/SRSSH hfunc, or the sysroot's `ethtool -x` text, its "RSS
 * hash function" lines), which reads back; the table and the key are left
 * as they are (link.rss). Not in `show`: plan names the current function. */
#include "kinds.h"

#include <errno.h>

#include "base/exitcode.h"
#include "os/ethrss.h"
#include "os/ethsysroot.h"
#include "os/probe.h"
#include "os/sysroot.h"
#include "changes.h"
#include "profile.h"

static const char *const hfunc_names[] = {"toeplitz", "xor", "crc32", NULL};

struct rsshash_want {
	struct profile_enum hfunc;
};

static const struct profile_key rsshash_keys[] = {
    PROFILE_KEY_ENUM("rss_hash", offsetof(struct rsshash_want, hfunc), hfunc_names,
		     "the RSS hash function (ethtool -X DEV hfunc NAME): toeplitz, xor or crc32, as the "
		     "driver offers (mlx5: toeplitz, xor); unset: left as it is"),
    {0},
};

extern const struct change_kind kind_rss_hash;

static const struct profile_enum *want_of(const struct profile *p)
{
	return &((const struct rsshash_want *)kind_want(p, &kind_rss_hash))->hfunc;
}

/* The function in use: one ETH_RSS_HASH_* bit, 0 when the driver does
 * not say. */
struct rsshash_fact {
	uint8_t hfunc;
};

static int probe_rsshash(const char *ifname, void *ret, char **kmsg)
{
	_cleanup_(eth_rss_done) struct eth_rss r = {0};
	struct rsshash_fact *f = ret;
	int e = ethtool_get_rss(ifname, &r, kmsg);

	if (e < 0)
		return e;
	f->hfunc = r.hfunc;
	return 0;
}

static int rsshash_check(const void *value, char **ret_why)
{
	const struct rsshash_fact *f = value;

	if (f->hfunc && !eth_rss_hfunc_name(f->hfunc))
		return probe_fact_bad(ret_why, "hfunc 0x%x is not one known function", f->hfunc);
	return 0;
}

static const struct probe_fact rsshash_fact = {
    .name = "rss_hash",
    .layout = 1,
    .size = sizeof(struct rsshash_fact),
    .read = probe_rsshash,
    .check = rsshash_check,
};

static int rsshash_read(const char *object, const char *key, char **ret, char **kmsg)
{
	_cleanup_(eth_rss_done) struct eth_rss r = {0};
	int e = ethtool_get_rss(object, &r, kmsg);

	(void)key;
	if (e < 0)
		return e;
	if (!eth_rss_hfunc_name(r.hfunc))
		return -ENODATA;
	*ret = strdup(eth_rss_hfunc_name(r.hfunc));
	return *ret ? 0 : -ENOMEM;
}

static int rsshash_write(const char *object, const char *key, const char *value, char **kmsg)
{
	struct eth_rss_change c = {0};
	int r;

	(void)key;
	r = eth_rss_hfunc_from_name(value, &c.hfunc);
	return r < 0 ? r : ethtool_set_rss(object, &c, kmsg);
}

static int rsshash_diff(struct plan_ctx *ctx, const struct iface_state *s)
{
	const struct profile_enum *want = want_of(ctx->profile);
	const struct iface_fact *fact = kind_fact(s, &kind_rss_hash);
	const struct rsshash_fact *cur = fact->value;
	const char *now;

	if (!want->set)
		return 0;
	if (fact->r < 0)
		return kind_fact_problem(ctx, s, "link.rss_hash", "the driver has no RSS", fact,
					 ETHSYSROOT_RSS);
	now = eth_rss_hfunc_name(cur->hfunc);
	if (!now)
		return plan_add_problem(ctx->plan, EXIT_UNSUPPORTED, s->name,
					"remove link.rss_hash from the profile for this port",
					"link.rss_hash: the driver does not report its RSS hash function");
	if (streq(now, hfunc_names[want->value]))
		return 0;
	return plan_add_change(ctx->plan, "rss_hash", s->name, "rss_hash", now, hfunc_names[want->value]);
}

static bool rsshash_manages(const struct profile *p)
{
	return want_of(p)->set;
}

const struct change_kind kind_rss_hash = {
    .name = "rss_hash",
    .rank = 25,
    .scope = KIND_SCOPE_PORT,
    .profile_section = "link",
    .keys = rsshash_keys,
    .want_size = sizeof(struct rsshash_want),
    .probe = &rsshash_fact,
    .read = rsshash_read,
    .write = rsshash_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .write_reads_back = true,
    .diff = rsshash_diff,
    .manages = rsshash_manages,
};
