/* ethfeatures.c: offload features through ethtool netlink and the ioctl
 * (see ethfeatures.h).
 *
 * Owns: the feature table and the bitset encoding. Netlink bitsets are
 * requested in the verbose form (names, not bit numbers: the numbering
 * changes between kernels). Must never: send a bit outside the one asked
 * for (a FEATURES_SET without NOMASK changes only the bits it lists; an
 * SFEATURES block changes only its valid bits). */
#define _GNU_SOURCE
#include "ethfeatures.h"

#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>

#include "ethnl.h"
#include "ethops.h"
#include "ethtool.h"

static const struct eth_feature_def feature_defs[_ETH_FEATURE_MAX] = {
    [ETH_FEATURE_GRO] = {"gro", "rx-gro"},
    [ETH_FEATURE_GRO_HW] = {"rx-gro-hw", "rx-gro-hw"},
    [ETH_FEATURE_GRO_LIST] = {"rx-gro-list", "rx-gro-list"},
    [ETH_FEATURE_UDP_GRO_FORWARDING] = {"rx-udp-gro-forwarding", "rx-udp-gro-forwarding"},
    [ETH_FEATURE_LRO] = {"lro", "rx-lro"},
    [ETH_FEATURE_GSO] = {"gso", "tx-generic-segmentation"},
    [ETH_FEATURE_UDP_SEGMENTATION] = {"tx-udp-segmentation", "tx-udp-segmentation"},
    [ETH_FEATURE_SG] = {"sg", "tx-scatter-gather"},
    [ETH_FEATURE_RX_CHECKSUM] = {"rx-checksum", "rx-checksum"},
    [ETH_FEATURE_RXHASH] = {"rxhash", "rx-hashing"},
    [ETH_FEATURE_NTUPLE] = {"ntuple", "rx-ntuple-filter"},
};

const struct eth_feature_def *eth_feature_def(enum eth_feature f)
{
	return (unsigned)f < _ETH_FEATURE_MAX ? &feature_defs[f] : NULL;
}

int eth_feature_from_string(const char *name, enum eth_feature *ret)
{
	for (unsigned i = 0; i < _ETH_FEATURE_MAX; i++)
		if (streq(feature_defs[i].name, name) || streq(feature_defs[i].kernel_name, name)) {
			*ret = (enum eth_feature)i;
			return 0;
		}
	return -EINVAL;
}

const char *eth_feature_names(void)
{
	static char buf[512];

	if (!buf[0])
		table_names_join(feature_defs, sizeof(feature_defs[0]), _ETH_FEATURE_MAX, buf, sizeof(buf));
	return buf;
}

static int feature_by_kernel_name(const char *name)
{
	for (unsigned i = 0; i < _ETH_FEATURE_MAX; i++)
		if (streq(feature_defs[i].kernel_name, name))
			return (int)i;
	return -ENOENT;
}

/* ---- netlink ---- */

int ethnl_features_encode(struct nl_msg *m, enum eth_feature f, bool on)
{
	struct nlattr *set, *bits, *bit;

	if ((unsigned)f >= _ETH_FEATURE_MAX)
		return -EINVAL;
	if (!(set = nla_nest_start(m, ETHTOOL_A_FEATURES_WANTED)) ||
	    !(bits = nla_nest_start(m, ETHTOOL_A_BITSET_BITS)) ||
	    !(bit = nla_nest_start(m, ETHTOOL_A_BITSET_BITS_BIT)) ||
	    nla_put_string(m, ETHTOOL_A_BITSET_BIT_NAME, feature_defs[f].kernel_name) < 0 ||
	    (on && nla_put_flag(m, ETHTOOL_A_BITSET_BIT_VALUE) < 0))
		return -EMSGSIZE;
	nla_nest_end(m, bit);
	nla_nest_end(m, bits);
	nla_nest_end(m, set);
	return 0;
}

/* The managed features set in a verbose bitset: in a list (NOMASK) every
 * bit named is set; otherwise those with the VALUE flag. */
static int bitset_decode(struct nlattr *bitset, bool *ret_set)
{
	struct nlattr *tb[ETHTOOL_A_BITSET_MAX + 1], *bit;
	bool list;
	int rem;

	if (nla_parse_nested(tb, ETHTOOL_A_BITSET_MAX, bitset, NULL) < 0)
		return -EBADMSG;
	if (!tb[ETHTOOL_A_BITSET_BITS])
		return tb[ETHTOOL_A_BITSET_VALUE] ? -EPROTO : 0; /* compact: we never ask for it */
	list = tb[ETHTOOL_A_BITSET_NOMASK] != NULL;
	nla_for_each_nested(bit, tb[ETHTOOL_A_BITSET_BITS], rem)
	{
		struct nlattr *tbb[ETHTOOL_A_BITSET_BIT_MAX + 1];
		int i;

		if (nla_type(bit) != ETHTOOL_A_BITSET_BITS_BIT)
			continue;
		if (nla_parse_nested(tbb, ETHTOOL_A_BITSET_BIT_MAX, bit, NULL) < 0 ||
		    !tbb[ETHTOOL_A_BITSET_BIT_NAME])
			return -EBADMSG;
		i = feature_by_kernel_name(nla_get_string(tbb[ETHTOOL_A_BITSET_BIT_NAME]));
		if (i >= 0)
			ret_set[i] = list || tbb[ETHTOOL_A_BITSET_BIT_VALUE];
	}
	return 0;
}

int ethnl_features_decode(struct nlattr **tb, struct eth_features *ret)
{
	bool hw[_ETH_FEATURE_MAX] = {0}, wanted[_ETH_FEATURE_MAX] = {0}, active[_ETH_FEATURE_MAX] = {0},
	     nochange[_ETH_FEATURE_MAX] = {0};
	int r;

	if (!tb[ETHTOOL_A_FEATURES_HW] || !tb[ETHTOOL_A_FEATURES_WANTED] || !tb[ETHTOOL_A_FEATURES_ACTIVE])
		return -EBADMSG;
	if ((r = bitset_decode(tb[ETHTOOL_A_FEATURES_HW], hw)) < 0 ||
	    (r = bitset_decode(tb[ETHTOOL_A_FEATURES_WANTED], wanted)) < 0 ||
	    (r = bitset_decode(tb[ETHTOOL_A_FEATURES_ACTIVE], active)) < 0 ||
	    (tb[ETHTOOL_A_FEATURES_NOCHANGE] &&
	     (r = bitset_decode(tb[ETHTOOL_A_FEATURES_NOCHANGE], nochange)) < 0))
		return r;
	for (unsigned i = 0; i < _ETH_FEATURE_MAX; i++)
		ret->f[i] = (struct eth_feature_state){
		    .changeable = hw[i] && !nochange[i], .active = active[i], .wanted = wanted[i]};
	return 0;
}

static int features_decode_cb(struct nlattr **tb, void *arg)
{
	return ethnl_features_decode(tb, arg);
}

struct feature_set {
	enum eth_feature f;
	bool on;
};

static int features_encode_cb(struct nl_msg *m, const void *arg)
{
	const struct feature_set *s = arg;
	return ethnl_features_encode(m, s->f, s->on);
}

/* ---- ioctl ---- */

/* The kernel's feature names (ETH_SS_FEATURES), *ret_n of them, each
 * ETH_GSTRING_LEN bytes; caller frees. */
static int ioctl_feature_names(const char *ifname, struct ethtool_gstrings **ret, uint32_t *ret_n)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t buf[1];
	} sset = {.hdr = {.cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ULL << ETH_SS_FEATURES}};
	_cleanup_free_ struct ethtool_gstrings *s = NULL;
	uint32_t n;
	int r;

	r = ethtool_request(ifname, &sset);
	if (r < 0)
		return r;
	if (!(sset.hdr.sset_mask & (1ULL << ETH_SS_FEATURES)))
		return -EOPNOTSUPP;
	n = sset.hdr.data[0];
	if (n == 0 || n > 1024)
		return -EPROTO;
	s = calloc(1, sizeof(*s) + (size_t)n * ETH_GSTRING_LEN);
	if (!s)
		return -ENOMEM;
	*s = (struct ethtool_gstrings){.cmd = ETHTOOL_GSTRINGS, .string_set = ETH_SS_FEATURES, .len = n};
	r = ethtool_request(ifname, s);
	if (r < 0)
		return r;
	if (s->len != n) /* the set is fixed per kernel: a changed length is not ours to read */
		return -EPROTO;
	*ret_n = n;
	*ret = TAKE_PTR(s);
	return 0;
}

/* Bit number of each managed feature in the ioctl's blocks (-1 when this
 * kernel does not know it) and the number of 32-bit blocks. */
static int ioctl_feature_bits(const char *ifname, int *bits, uint32_t *ret_nblocks)
{
	_cleanup_free_ struct ethtool_gstrings *s = NULL;
	uint32_t n = 0;
	int r;

	r = ioctl_feature_names(ifname, &s, &n);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < _ETH_FEATURE_MAX; i++) {
		bits[i] = -1;
		for (uint32_t b = 0; b < n; b++)
			if (strncmp((const char *)s->data + (size_t)b * ETH_GSTRING_LEN,
				    feature_defs[i].kernel_name, ETH_GSTRING_LEN) == 0)
				bits[i] = (int)b;
	}
	*ret_nblocks = (n + 31) / 32;
	return 0;
}

static int ioctl_get_features(const char *ifname, struct eth_features *ret)
{
	_cleanup_free_ struct ethtool_gfeatures *g = NULL;
	int bits[_ETH_FEATURE_MAX];
	uint32_t nblocks;
	int r;

	r = ioctl_feature_bits(ifname, bits, &nblocks);
	if (r < 0)
		return r;
	g = calloc(1, sizeof(*g) + nblocks * sizeof(g->features[0]));
	if (!g)
		return -ENOMEM;
	g->cmd = ETHTOOL_GFEATURES;
	g->size = nblocks;
	r = ethtool_request(ifname, g);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < _ETH_FEATURE_MAX; i++) {
		const struct ethtool_get_features_block *blk;
		uint32_t bit;

		ret->f[i] = (struct eth_feature_state){0};
		if (bits[i] < 0)
			continue;
		blk = &g->features[bits[i] / 32];
		bit = 1u << (bits[i] % 32);
		ret->f[i].changeable = (blk->available & bit) && !(blk->never_changed & bit);
		ret->f[i].active = blk->active & bit;
		ret->f[i].wanted = blk->requested & bit;
	}
	return 0;
}

static int ioctl_set_feature(const char *ifname, enum eth_feature f, bool on)
{
	_cleanup_free_ struct ethtool_sfeatures *s = NULL;
	int bits[_ETH_FEATURE_MAX];
	uint32_t nblocks, bit;
	int r;

	r = ioctl_feature_bits(ifname, bits, &nblocks);
	if (r < 0)
		return r;
	if (bits[f] < 0)
		return -EOPNOTSUPP;
	s = calloc(1, sizeof(*s) + nblocks * sizeof(s->features[0]));
	if (!s)
		return -ENOMEM;
	s->cmd = ETHTOOL_SFEATURES;
	s->size = nblocks;
	bit = 1u << (bits[f] % 32);
	s->features[bits[f] / 32].valid = bit;
	s->features[bits[f] / 32].requested = on ? bit : 0;
	return ethtool_request(ifname, s);
}

/* ---- both ---- */

int ethfeatures_nl_get(const char *ifname, void *arg, char **ret_kmsg)
{
	const struct ethnl_request q = {
	    .cmd = ETHTOOL_MSG_FEATURES_GET,
	    .ifname = ifname,
	    .maxattr = ETHTOOL_A_FEATURES_MAX,
	    .decode = features_decode_cb,
	    .decode_arg = arg,
	};

	return ethnl_call(&q, ret_kmsg);
}

int ethfeatures_ioctl_get(const char *ifname, void *arg)
{
	return ioctl_get_features(ifname, arg);
}

int ethtool_get_features(const char *ifname, struct eth_features *ret, char **ret_kmsg)
{
	struct eth_features v = {0};
	int r;

	r = ethtool_op_run(ETHOP_FEATURES_GET, ifname, &v, ret_kmsg);
	if (r < 0)
		return r;
	*ret = v;
	return 0;
}

int ethfeatures_nl_set(const char *ifname, void *arg, char **ret_kmsg)
{
	const struct ethnl_request q = {
	    .cmd = ETHTOOL_MSG_FEATURES_SET,
	    .ifname = ifname,
	    .flags = ETHTOOL_FLAG_OMIT_REPLY,
	    .encode = features_encode_cb,
	    .encode_arg = arg,
	};

	return ethnl_call(&q, ret_kmsg);
}

int ethfeatures_ioctl_set(const char *ifname, void *arg)
{
	const struct feature_set *fs = arg;
	return ioctl_set_feature(ifname, fs->f, fs->on);
}

/* Request feature f on or off (the device's wanted bit). */
static int request_feature(const char *ifname, enum eth_feature f, bool on, char **ret_kmsg)
{
	struct feature_set fs = {f, on};

	return ethtool_op_run(ETHOP_FEATURES_SET, ifname, &fs, ret_kmsg);
}

int ethtool_set_feature(const char *ifname, enum eth_feature f, bool on, char **ret_kmsg)
{
	struct eth_features cur;
	bool was_wanted;
	int r;

	if ((unsigned)f >= _ETH_FEATURE_MAX)
		return -EINVAL;
	r = ethtool_get_features(ifname, &cur, ret_kmsg);
	if (r < 0)
		return r;
	/* A fixed feature's request means nothing; a changeable one left
	 * requested otherwise would come back when what it depends on does. */
	if (cur.f[f].active == on && (!cur.f[f].changeable || cur.f[f].wanted == on))
		return 0;
	if (!cur.f[f].changeable)
		return -EOPNOTSUPP;
	was_wanted = cur.f[f].wanted;
	r = request_feature(ifname, f, on, ret_kmsg);
	if (r < 0)
		return r;
	r = ethtool_get_features(ifname, &cur, ret_kmsg);
	if (r < 0)
		return r;
	if (cur.f[f].active == on)
		return 1;
	if (was_wanted != on)
		(void)request_feature(ifname, f, was_wanted, NULL);
	return -EIO;
}
