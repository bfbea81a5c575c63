/* ethprivflags.c: private flags through ethtool netlink, the ioctl or a
 * sysroot's text (see ethprivflags.h).
 *
 * Owns: the verbose bitset of PRIVFLAGS (names, not bit numbers: a flag's
 * bit is the driver's order, which differs between kernels and OFED), and
 * the `ethtool --show-priv-flags` text. Must never: send a bit other than
 * the one asked for (a PRIVFLAGS_SET without NOMASK changes only the bits
 * it lists; SPFLAGS is the whole bitmap, read just before). */
#define _GNU_SOURCE
#include "ethprivflags.h"

#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>

#include "ethnl.h"
#include "ethops.h"
#include "ethsysroot.h"
#include "ethtool.h"

#define SYSROOT_FILE ETHSYSROOT_PRIV_FLAGS

int eth_priv_flags_find(const struct eth_priv_flags *f, const char *name)
{
	for (unsigned i = 0; i < f->n; i++)
		if (streq(f->name[i], name))
			return (int)i;
	return -ENOENT;
}

/* ---- the text ---- */

/* The flags of the text; with prefix, those of the lines up to the first
 * that is not a flag's, or names one again (a torn write's tail). */
static int parse_flags(const char *text, bool prefix, struct eth_priv_flags *ret)
{
	struct eth_priv_flags f = {0};
	const char *line = text, *nl;

	nl = strchr(line, '\n');
	if (!nl || strncmp(line, "Private flags for ", 18) != 0 || nl[-1] != ':')
		return -EBADMSG;
	/* The last line may lack its newline (a copied text: written back
	 * alike, sysroot_write). */
	for (line = nl + 1; *line; line = *nl ? nl + 1 : nl) {
		const char *colon, *end;
		size_t len;
		bool on;

		nl = strchrnul(line, '\n');
		colon = memrchr(line, ':', (size_t)(nl - line));
		for (end = colon; end && end > line && end[-1] == ' '; end--)
			;
		len = end ? (size_t)(end - line) : 0;
		on = colon && (size_t)(nl - colon) == 4 && strncmp(colon, ": on", 4) == 0;
		if (!colon || f.n == ETH_PRIV_FLAGS_MAX || len == 0 || len >= ETH_PRIV_FLAG_NAMES ||
		    (!on && !((size_t)(nl - colon) == 5 && strncmp(colon, ": off", 5) == 0))) {
			if (prefix)
				break;
			return -EBADMSG;
		}
		memcpy(f.name[f.n], line, len);
		f.name[f.n][len] = '\0';
		if (prefix && eth_priv_flags_find(&f, f.name[f.n]) >= 0)
			break;
		f.on[f.n++] = on;
	}
	*ret = f;
	return 0;
}

int eth_priv_flags_parse(const char *text, struct eth_priv_flags *ret)
{
	return parse_flags(text, false, ret);
}

char *eth_priv_flags_format(const char *ifname, const struct eth_priv_flags *f)
{
	_cleanup_free_ char *out = strprintf("Private flags for %s:\n", ifname);
	int width = 0;

	for (unsigned i = 0; i < f->n; i++)
		if ((int)strlen(f->name[i]) > width)
			width = (int)strlen(f->name[i]);
	for (unsigned i = 0; out && i < f->n; i++) {
		char *n = strprintf("%s%-*s: %s\n", out, width, f->name[i], f->on[i] ? "on" : "off");
		free(out);
		out = n;
	}
	return TAKE_PTR(out);
}

/* ---- netlink ---- */

int ethnl_priv_flags_encode(struct nl_msg *m, const char *name, bool on)
{
	struct nlattr *set, *bits, *bit;

	if (!(set = nla_nest_start(m, ETHTOOL_A_PRIVFLAGS_FLAGS)) ||
	    !(bits = nla_nest_start(m, ETHTOOL_A_BITSET_BITS)) ||
	    !(bit = nla_nest_start(m, ETHTOOL_A_BITSET_BITS_BIT)) ||
	    nla_put_string(m, ETHTOOL_A_BITSET_BIT_NAME, name) < 0 ||
	    (on && nla_put_flag(m, ETHTOOL_A_BITSET_BIT_VALUE) < 0))
		return -EMSGSIZE;
	nla_nest_end(m, bit);
	nla_nest_end(m, bits);
	nla_nest_end(m, set);
	return 0;
}

/* The reply lists every flag with its index and name (the mask is all of
 * them), the VALUE flag on those that are on; in a NOMASK list every bit
 * named is on. */
int ethnl_priv_flags_decode(struct nlattr **tb, struct eth_priv_flags *ret)
{
	struct nlattr *bs[ETHTOOL_A_BITSET_MAX + 1], *bit;
	struct eth_priv_flags f = {0};
	bool list;
	int rem;

	if (!tb[ETHTOOL_A_PRIVFLAGS_FLAGS] ||
	    nla_parse_nested(bs, ETHTOOL_A_BITSET_MAX, tb[ETHTOOL_A_PRIVFLAGS_FLAGS], NULL) < 0)
		return -EBADMSG;
	if (!bs[ETHTOOL_A_BITSET_BITS])
		return bs[ETHTOOL_A_BITSET_VALUE] ? -EPROTO : -EBADMSG; /* compact: never asked for */
	list = bs[ETHTOOL_A_BITSET_NOMASK] != NULL;
	nla_for_each_nested(bit, bs[ETHTOOL_A_BITSET_BITS], rem)
	{
		struct nlattr *b[ETHTOOL_A_BITSET_BIT_MAX + 1];
		const char *name;
		uint32_t idx;

		if (nla_type(bit) != ETHTOOL_A_BITSET_BITS_BIT)
			continue;
		if (nla_parse_nested(b, ETHTOOL_A_BITSET_BIT_MAX, bit, NULL) < 0 ||
		    !b[ETHTOOL_A_BITSET_BIT_NAME] || !b[ETHTOOL_A_BITSET_BIT_INDEX])
			return -EBADMSG;
		idx = nla_get_u32(b[ETHTOOL_A_BITSET_BIT_INDEX]);
		name = nla_get_string(b[ETHTOOL_A_BITSET_BIT_NAME]);
		if (idx >= ETH_PRIV_FLAGS_MAX || strlen(name) >= ETH_PRIV_FLAG_NAMES)
			return -EPROTO;
		snprintf(f.name[idx], ETH_PRIV_FLAG_NAMES, "%s", name);
		f.on[idx] = list || b[ETHTOOL_A_BITSET_BIT_VALUE];
		if (idx + 1 > f.n)
			f.n = idx + 1;
	}
	for (unsigned i = 0; i < f.n; i++)
		if (!f.name[i][0])
			return -EPROTO; /* a gap: the bits are not all listed */
	*ret = f;
	return 0;
}

static int decode_cb(struct nlattr **tb, void *arg)
{
	return ethnl_priv_flags_decode(tb, arg);
}

struct flag_set {
	const char *name;
	bool on;
};

static int encode_cb(struct nl_msg *m, const void *arg)
{
	const struct flag_set *s = arg;
	return ethnl_priv_flags_encode(m, s->name, s->on);
}

/* ---- ioctl ---- */

static int ioctl_get(const char *ifname, struct eth_priv_flags *ret)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t buf[1];
	} sset = {.hdr = {.cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ULL << ETH_SS_PRIV_FLAGS}};
	_cleanup_free_ struct ethtool_gstrings *s = NULL;
	struct ethtool_value v = {.cmd = ETHTOOL_GPFLAGS};
	struct eth_priv_flags f = {0};
	uint32_t n;
	int r;

	r = ethtool_request(ifname, &sset);
	if (r < 0)
		return r;
	n = sset.hdr.sset_mask & (1ULL << ETH_SS_PRIV_FLAGS) ? sset.hdr.data[0] : 0;
	if (n == 0)
		return -EOPNOTSUPP;
	if (n > ETH_PRIV_FLAGS_MAX)
		return -EPROTO;
	s = calloc(1, sizeof(*s) + (size_t)n * ETH_GSTRING_LEN);
	if (!s)
		return -ENOMEM;
	*s = (struct ethtool_gstrings){.cmd = ETHTOOL_GSTRINGS, .string_set = ETH_SS_PRIV_FLAGS, .len = n};
	r = ethtool_request(ifname, s);
	if (r < 0)
		return r;
	if (s->len != n)
		return -EPROTO;
	r = ethtool_request(ifname, &v);
	if (r < 0)
		return r;
	for (uint32_t i = 0; i < n; i++) {
		memcpy(f.name[i], s->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		f.name[i][ETH_PRIV_FLAG_NAMES - 1] = '\0';
		f.on[i] = v.data & (1u << i);
	}
	f.n = n;
	*ret = f;
	return 0;
}

static int ioctl_set(const char *ifname, const char *name, bool on)
{
	struct eth_priv_flags f;
	struct ethtool_value v = {.cmd = ETHTOOL_SPFLAGS};
	int i, r;

	r = ioctl_get(ifname, &f);
	if (r < 0)
		return r;
	i = eth_priv_flags_find(&f, name);
	if (i < 0)
		return i;
	f.on[i] = on;
	for (unsigned k = 0; k < f.n; k++)
		v.data |= f.on[k] ? 1u << k : 0;
	return ethtool_request(ifname, &v);
}

/* ---- both, and the sysroot ---- */

static int sysroot_get(const char *text, struct eth_priv_flags *ret)
{
	int r = eth_priv_flags_parse(text, ret);
	if (r < 0)
		return r;
	return ret->n ? 0 : -EOPNOTSUPP;
}

/* ---- the two paths (ethops.h picks) ---- */

int ethprivflags_nl_get(const char *ifname, void *arg, char **ret_kmsg)
{
	const struct ethnl_request q = {
	    .cmd = ETHTOOL_MSG_PRIVFLAGS_GET,
	    .ifname = ifname,
	    .maxattr = ETHTOOL_A_PRIVFLAGS_MAX,
	    .decode = decode_cb,
	    .decode_arg = arg,
	};

	return ethnl_call(&q, ret_kmsg);
}

int ethprivflags_ioctl_get(const char *ifname, void *arg)
{
	return ioctl_get(ifname, arg);
}

int ethprivflags_nl_set(const char *ifname, void *arg, char **ret_kmsg)
{
	const struct ethnl_request q = {
	    .cmd = ETHTOOL_MSG_PRIVFLAGS_SET,
	    .ifname = ifname,
	    .flags = ETHTOOL_FLAG_OMIT_REPLY,
	    .encode = encode_cb,
	    .encode_arg = arg,
	};

	return ethnl_call(&q, ret_kmsg);
}

int ethprivflags_ioctl_set(const char *ifname, void *arg)
{
	const struct flag_set *fs = arg;
	return ioctl_set(ifname, fs->name, fs->on);
}

int ethtool_get_priv_flags(const char *ifname, struct eth_priv_flags *ret, char **ret_kmsg)
{
	_cleanup_free_ char *text = NULL;
	struct eth_priv_flags f = {0};
	int r;

	if (ret_kmsg)
		*ret_kmsg = NULL;
	r = ethsysroot_read(ifname, SYSROOT_FILE, &text);
	if (r < 0)
		return r;
	if (text)
		r = sysroot_get(text, &f);
	else {
		r = ethtool_op_run(ETHOP_PRIVFLAGS_GET, ifname, &f, ret_kmsg);
		if (r >= 0 && f.n == 0)
			r = -EOPNOTSUPP;
	}
	if (r < 0)
		return r;
	*ret = f;
	return 0;
}

/* The sysroot's text with the flag set: 1 written, 0 already so (the
 * whole file), read back whole. A torn write's tail is dropped, so the
 * file is written again whole. */
static int sysroot_set(const char *ifname, const char *name, bool on)
{
	_cleanup_free_ char *text = NULL, *next = NULL;
	struct eth_priv_flags f;
	int i, r;

	r = ethsysroot_read(ifname, SYSROOT_FILE, &text);
	if (r < 0)
		return r;
	if (!text)
		return -ENOENT;
	r = parse_flags(text, true, &f);
	if (r < 0)
		return r;
	if (f.n == 0)
		return -EOPNOTSUPP;
	i = eth_priv_flags_find(&f, name);
	if (i < 0)
		return i;
	f.on[i] = on;
	next = eth_priv_flags_format(ifname, &f);
	if (!next)
		return -ENOMEM;
	if (streq(next, text))
		return 0;
	r = ethsysroot_write(ifname, SYSROOT_FILE, next);
	return r < 0 ? r : 1;
}

int ethtool_set_priv_flag(const char *ifname, const char *name, bool on, char **ret_kmsg)
{
	_cleanup_free_ char *path = NULL;
	struct flag_set fs = {name, on};
	struct eth_priv_flags cur;
	int i, r;

	if (ret_kmsg)
		*ret_kmsg = NULL;
	r = ethsysroot_file(ifname, SYSROOT_FILE, &path);
	if (r > 0)
		return sysroot_set(ifname, name, on);
	if (r < 0)
		return r;
	r = ethtool_get_priv_flags(ifname, &cur, ret_kmsg);
	if (r < 0)
		return r;
	i = eth_priv_flags_find(&cur, name);
	if (i < 0)
		return i;
	if (cur.on[i] == on)
		return 0;
	r = ethtool_op_run(ETHOP_PRIVFLAGS_SET, ifname, &fs, ret_kmsg);
	if (r < 0)
		return r;
	r = ethtool_get_priv_flags(ifname, &cur, ret_kmsg);
	if (r < 0)
		return r;
	i = eth_priv_flags_find(&cur, name);
	return i >= 0 && cur.on[i] == on ? 1 : -EIO;
}
