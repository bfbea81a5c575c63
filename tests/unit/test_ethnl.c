/* test_ethnl.c: the encode and decode steps of ethtool netlink (ethnl.h,
 * ethfeatures.h): the attributes a SET carries, the values read from a GET
 * reply and from the ioctl structures. Messages are built and parsed in
 * memory with libnl; nothing is sent. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "os/ethfeatures.h"
#include "os/ethnl.h"
#include "os/ethops.h"

/* An empty message to put attributes in; parse_attrs reads them back. */
static struct nl_msg *new_msg(void)
{
	struct nl_msg *m = nlmsg_alloc_simple(0, 0);
	assert_non_null(m);
	return m;
}

static void parse_attrs(struct nl_msg *m, struct nlattr **tb, int max)
{
	assert_int_equal(nlmsg_parse(nlmsg_hdr(m), 0, tb, max, NULL), 0);
}

static void test_coalesce_encode(void **state)
{
	struct nlattr *tb[ETHTOOL_A_COALESCE_MAX + 1];
	int rx_usecs = ethnl_group_find(&ethnl_coalesce, "rx_usecs");
	int adaptive = ethnl_group_find(&ethnl_coalesce, "adaptive_rx");
	struct nl_msg *m = new_msg();

	(void)state;
	assert_int_equal(rx_usecs, 2);
	assert_int_equal(adaptive, 0);
	assert_int_equal(ethnl_group_find(&ethnl_coalesce, "rx-usecs"), -ENOENT);
	assert_int_equal(ethnl_group_encode(&ethnl_coalesce, m, (size_t)rx_usecs, 8), 0);
	assert_int_equal(ethnl_group_encode(&ethnl_coalesce, m, (size_t)adaptive, 1), 0);
	assert_int_equal(ethnl_group_encode(&ethnl_coalesce, m, (size_t)adaptive, 2), -EINVAL);
	assert_int_equal(ethnl_group_encode(&ethnl_coalesce, m, ethnl_coalesce.n_params, 1), -EINVAL);
	parse_attrs(m, tb, ETHTOOL_A_COALESCE_MAX);
	/* the kernel's types: rx_usecs a u32, use_adaptive_rx a u8 */
	assert_non_null(tb[ETHTOOL_A_COALESCE_RX_USECS]);
	assert_int_equal(nla_len(tb[ETHTOOL_A_COALESCE_RX_USECS]), 4);
	assert_int_equal(nla_get_u32(tb[ETHTOOL_A_COALESCE_RX_USECS]), 8);
	assert_non_null(tb[ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX]);
	assert_int_equal(nla_len(tb[ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX]), 1);
	assert_int_equal(nla_get_u8(tb[ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX]), 1);
	/* nothing else is sent */
	for (int a = 0; a <= ETHTOOL_A_COALESCE_MAX; a++)
		if (a != ETHTOOL_A_COALESCE_RX_USECS && a != ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX)
			assert_null(tb[a]);
	nlmsg_free(m);
}

static void test_coalesce_decode(void **state)
{
	struct nlattr *tb[ETHTOOL_A_COALESCE_MAX + 1];
	struct ethnl_values v;
	struct nl_msg *m = new_msg();

	(void)state;
	/* a reply as mlx5 sends it, with a parameter the driver leaves out
	 * (tx_frames) and one cx5prof does not manage (stats-block-usecs) */
	assert_int_equal(nla_put_u32(m, ETHTOOL_A_COALESCE_RX_USECS, 8), 0);
	assert_int_equal(nla_put_u32(m, ETHTOOL_A_COALESCE_RX_MAX_FRAMES, 128), 0);
	assert_int_equal(nla_put_u32(m, ETHTOOL_A_COALESCE_TX_USECS, 16), 0);
	assert_int_equal(nla_put_u32(m, ETHTOOL_A_COALESCE_STATS_BLOCK_USECS, 1000), 0);
	assert_int_equal(nla_put_u8(m, ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, 1), 0);
	assert_int_equal(nla_put_u8(m, ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX, 0), 0);
	parse_attrs(m, tb, ETHTOOL_A_COALESCE_MAX);
	assert_int_equal(ethnl_group_decode(&ethnl_coalesce, tb, &v), 0);
	assert_true(v.present[0] && v.v[0] == 1);   /* adaptive_rx */
	assert_true(v.present[1] && v.v[1] == 0);   /* adaptive_tx */
	assert_true(v.present[2] && v.v[2] == 8);   /* rx_usecs */
	assert_true(v.present[3] && v.v[3] == 128); /* rx_frames */
	assert_true(v.present[4] && v.v[4] == 16);  /* tx_usecs */
	assert_false(v.present[5]);		    /* tx_frames: not reported */
	nlmsg_free(m);

	/* a u32 parameter sent as one byte is a malformed reply */
	m = new_msg();
	assert_int_equal(nla_put_u8(m, ETHTOOL_A_COALESCE_RX_USECS, 8), 0);
	parse_attrs(m, tb, ETHTOOL_A_COALESCE_MAX);
	assert_int_equal(ethnl_group_decode(&ethnl_coalesce, tb, &v), -EBADMSG);
	nlmsg_free(m);
}

static void test_coalesce_ioctl(void **state)
{
	struct ethtool_coalesce c = {
	    .cmd = ETHTOOL_GCOALESCE,
	    .rx_coalesce_usecs = 8,
	    .rx_max_coalesced_frames = 64,
	    .tx_coalesce_usecs = 16,
	    .tx_max_coalesced_frames = 32,
	    .use_adaptive_rx_coalesce = 1,
	    .use_adaptive_tx_coalesce = 0,
	    .rx_coalesce_usecs_irq = 99,
	};
	const uint32_t want[] = {1, 0, 8, 64, 16, 32};
	struct ethnl_values v;

	(void)state;
	ethnl_group_from_ioctl(&ethnl_coalesce, &c, &v);
	assert_int_equal(ethnl_coalesce.n_params, ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		assert_true(v.present[i]);
		assert_int_equal(v.v[i], want[i]);
	}
}

static void test_pause(void **state)
{
	struct nlattr *tb[ETHTOOL_A_PAUSE_MAX + 1];
	struct ethtool_pauseparam pp = {
	    .cmd = ETHTOOL_GPAUSEPARAM, .autoneg = 1, .rx_pause = 0, .tx_pause = 5};
	struct ethnl_values v;
	struct nl_msg *m = new_msg();

	(void)state;
	assert_int_equal(ethnl_pause.n_params, 3);
	assert_int_equal(ethnl_group_find(&ethnl_pause, "tx"), 2);
	assert_int_equal(ethnl_group_encode(&ethnl_pause, m, 1, 0), 0); /* rx off */
	parse_attrs(m, tb, ETHTOOL_A_PAUSE_MAX);
	assert_non_null(tb[ETHTOOL_A_PAUSE_RX]);
	assert_int_equal(nla_len(tb[ETHTOOL_A_PAUSE_RX]), 1);
	assert_int_equal(nla_get_u8(tb[ETHTOOL_A_PAUSE_RX]), 0);
	assert_null(tb[ETHTOOL_A_PAUSE_TX]);
	assert_null(tb[ETHTOOL_A_PAUSE_AUTONEG]);
	assert_int_equal(ethnl_group_decode(&ethnl_pause, tb, &v), 0);
	assert_false(v.present[0]);
	assert_true(v.present[1] && v.v[1] == 0);
	assert_false(v.present[2]);
	nlmsg_free(m);

	/* the ioctl's fields are __u32 flags: any non-zero value is on */
	ethnl_group_from_ioctl(&ethnl_pause, &pp, &v);
	assert_true(v.v[0] == 1 && v.v[1] == 0 && v.v[2] == 1);
}

static void test_feature_table(void **state)
{
	enum eth_feature f;

	(void)state;
	assert_int_equal(eth_feature_from_string("gro", &f), 0);
	assert_int_equal(f, ETH_FEATURE_GRO);
	assert_int_equal(eth_feature_from_string("rx-gro", &f), 0); /* the kernel's name */
	assert_int_equal(f, ETH_FEATURE_GRO);
	assert_int_equal(eth_feature_from_string("rx-udp-gro-forwarding", &f), 0);
	assert_int_equal(f, ETH_FEATURE_UDP_GRO_FORWARDING);
	assert_int_equal(eth_feature_from_string("generic-receive-offload", &f), -EINVAL);
	assert_string_equal(eth_feature_def(ETH_FEATURE_GSO)->kernel_name, "tx-generic-segmentation");
	assert_null(eth_feature_def(_ETH_FEATURE_MAX));
	assert_string_equal(eth_feature_names(),
			    "gro, rx-gro-hw, rx-gro-list, rx-udp-gro-forwarding, lro, gso, "
			    "tx-udp-segmentation, sg, rx-checksum, rxhash, ntuple");
}

static void test_features_encode(void **state)
{
	struct nlattr *tb[ETHTOOL_A_FEATURES_MAX + 1], *bs[ETHTOOL_A_BITSET_MAX + 1],
	    *bit[ETHTOOL_A_BITSET_BIT_MAX + 1];
	struct nlattr *pos;
	int rem, n = 0;
	struct nl_msg *m;

	(void)state;
	for (int on = 0; on <= 1; on++) {
		m = new_msg();
		assert_int_equal(ethnl_features_encode(m, ETH_FEATURE_GRO, on), 0);
		parse_attrs(m, tb, ETHTOOL_A_FEATURES_MAX);
		assert_non_null(tb[ETHTOOL_A_FEATURES_WANTED]);
		assert_int_equal(
		    nla_parse_nested(bs, ETHTOOL_A_BITSET_MAX, tb[ETHTOOL_A_FEATURES_WANTED], NULL), 0);
		/* no NOMASK: the kernel changes only the bits listed */
		assert_null(bs[ETHTOOL_A_BITSET_NOMASK]);
		assert_non_null(bs[ETHTOOL_A_BITSET_BITS]);
		n = 0;
		nla_for_each_nested(pos, bs[ETHTOOL_A_BITSET_BITS], rem)
		{
			assert_int_equal(nla_type(pos), ETHTOOL_A_BITSET_BITS_BIT);
			assert_int_equal(nla_parse_nested(bit, ETHTOOL_A_BITSET_BIT_MAX, pos, NULL), 0);
			assert_string_equal(nla_get_string(bit[ETHTOOL_A_BITSET_BIT_NAME]), "rx-gro");
			assert_true((bit[ETHTOOL_A_BITSET_BIT_VALUE] != NULL) == on);
			n++;
		}
		assert_int_equal(n, 1);
		nlmsg_free(m);
	}
	m = new_msg();
	assert_int_equal(ethnl_features_encode(m, _ETH_FEATURE_MAX, true), -EINVAL);
	nlmsg_free(m);
}

/* A verbose bitset: each name, with the VALUE flag when set (list: all
 * named bits are set, no flags). */
static void put_bitset(struct nl_msg *m, int attr, bool list, const char *const *names, const bool *values)
{
	struct nlattr *set = nla_nest_start(m, attr), *bits;

	if (list)
		assert_int_equal(nla_put_flag(m, ETHTOOL_A_BITSET_NOMASK), 0);
	assert_int_equal(nla_put_u32(m, ETHTOOL_A_BITSET_SIZE, 64), 0);
	bits = nla_nest_start(m, ETHTOOL_A_BITSET_BITS);
	for (size_t i = 0; names[i]; i++) {
		struct nlattr *bit = nla_nest_start(m, ETHTOOL_A_BITSET_BITS_BIT);
		assert_int_equal(nla_put_u32(m, ETHTOOL_A_BITSET_BIT_INDEX, (uint32_t)i), 0);
		assert_int_equal(nla_put_string(m, ETHTOOL_A_BITSET_BIT_NAME, names[i]), 0);
		if (!list && values[i])
			assert_int_equal(nla_put_flag(m, ETHTOOL_A_BITSET_BIT_VALUE), 0);
		nla_nest_end(m, bit);
	}
	nla_nest_end(m, bits);
	nla_nest_end(m, set);
}

static void test_features_decode(void **state)
{
	static const char *const hw[] = {"rx-gro",	"rx-udp-gro-forwarding",  "tx-generic-segmentation",
					 "rx-gro-list", "tx-vlan-stag-hw-insert", NULL};
	static const char *const active[] = {"rx-gro", "rx-lro", "tx-generic-segmentation", NULL};
	/* rx-udp-gro-forwarding requested but not active: "off [requested on]" */
	static const char *const wanted[] = {"rx-gro", "rx-udp-gro-forwarding", "tx-generic-segmentation",
					     NULL};
	static const char *const nochange[] = {"rx-gro-list", NULL};
	static const char *const verbose[] = {"rx-gro", "rx-lro", "rx-udp-gro-forwarding", NULL};
	static const bool verbose_values[] = {false, true, true};
	struct nlattr *tb[ETHTOOL_A_FEATURES_MAX + 1];
	struct eth_features f;
	struct nl_msg *m = new_msg();

	(void)state;
	put_bitset(m, ETHTOOL_A_FEATURES_HW, true, hw, NULL);
	put_bitset(m, ETHTOOL_A_FEATURES_WANTED, true, wanted, NULL);
	put_bitset(m, ETHTOOL_A_FEATURES_ACTIVE, true, active, NULL);
	put_bitset(m, ETHTOOL_A_FEATURES_NOCHANGE, true, nochange, NULL);
	parse_attrs(m, tb, ETHTOOL_A_FEATURES_MAX);
	assert_int_equal(ethnl_features_decode(tb, &f), 0);
	assert_true(f.f[ETH_FEATURE_GRO].changeable && f.f[ETH_FEATURE_GRO].active &&
		    f.f[ETH_FEATURE_GRO].wanted);
	assert_true(f.f[ETH_FEATURE_UDP_GRO_FORWARDING].changeable &&
		    !f.f[ETH_FEATURE_UDP_GRO_FORWARDING].active &&
		    f.f[ETH_FEATURE_UDP_GRO_FORWARDING].wanted);
	assert_false(f.f[ETH_FEATURE_LRO].wanted);
	/* active but not in hw: fixed on */
	assert_true(!f.f[ETH_FEATURE_LRO].changeable && f.f[ETH_FEATURE_LRO].active);
	/* in hw but never-change: fixed */
	assert_false(f.f[ETH_FEATURE_GRO_LIST].changeable);
	/* not named anywhere: fixed off */
	assert_true(!f.f[ETH_FEATURE_NTUPLE].changeable && !f.f[ETH_FEATURE_NTUPLE].active);
	nlmsg_free(m);

	/* the same in the non-list form: VALUE flags say which bits are set */
	m = new_msg();
	put_bitset(m, ETHTOOL_A_FEATURES_HW, false, verbose, (const bool[]){true, true, true});
	put_bitset(m, ETHTOOL_A_FEATURES_WANTED, false, verbose, verbose_values);
	put_bitset(m, ETHTOOL_A_FEATURES_ACTIVE, false, verbose, verbose_values);
	parse_attrs(m, tb, ETHTOOL_A_FEATURES_MAX);
	assert_int_equal(ethnl_features_decode(tb, &f), 0);
	assert_true(f.f[ETH_FEATURE_GRO].changeable && !f.f[ETH_FEATURE_GRO].active &&
		    !f.f[ETH_FEATURE_GRO].wanted);
	assert_true(f.f[ETH_FEATURE_LRO].wanted);
	assert_true(f.f[ETH_FEATURE_LRO].changeable && f.f[ETH_FEATURE_LRO].active);
	assert_true(f.f[ETH_FEATURE_UDP_GRO_FORWARDING].active);
	nlmsg_free(m);

	/* a reply without the active set is malformed */
	m = new_msg();
	put_bitset(m, ETHTOOL_A_FEATURES_HW, true, hw, NULL);
	put_bitset(m, ETHTOOL_A_FEATURES_WANTED, true, wanted, NULL);
	parse_attrs(m, tb, ETHTOOL_A_FEATURES_MAX);
	assert_int_equal(ethnl_features_decode(tb, &f), -EBADMSG);
	nlmsg_free(m);
}

/* One row per operation, naming both paths; the RSS and flow hash rows
 * have no netlink path (the kernel has no message for them), every other
 * row has both; names are unique. */
static void test_ethtool_ops_table(void **state)
{
	(void)state;
	for (int i = 0; i < _ETHOP_MAX; i++) {
		const struct ethtool_op *op = &ethtool_ops[i];
		bool ioctl_only = i == ETHOP_RSS_GET || i == ETHOP_RSS_SET || i == ETHOP_FLOWHASH_GET ||
				  i == ETHOP_FLOWHASH_SET;

		assert_non_null(op->name);
		assert_non_null(op->func);
		assert_int_equal(op->nlfunc == NULL, ioctl_only);
		for (int k = 0; k < i; k++)
			assert_string_not_equal(ethtool_ops[k].name, op->name);
	}
	assert_int_equal(ethtool_op_run(_ETHOP_MAX, "lo", NULL, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_coalesce_encode), cmocka_unit_test(test_coalesce_decode),
	    cmocka_unit_test(test_coalesce_ioctl),  cmocka_unit_test(test_pause),
	    cmocka_unit_test(test_feature_table),   cmocka_unit_test(test_features_encode),
	    cmocka_unit_test(test_features_decode), cmocka_unit_test(test_ethtool_ops_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
