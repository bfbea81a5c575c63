/* test_link.c: link.h (rtnetlink) and ethtool.h (SIOCETHTOOL) against real
 * veth devices, in a network namespace private to this test process
 * (unshare(CLONE_NEWNET)): nothing outside it is touched. Needs root; skips
 * otherwise (unit_skip: a failure under CX5PROF_REQUIRE_PRIVILEGED=1, CI). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <netlink/errno.h>
#include <sched.h>
#include <sys/wait.h>

#include <linux/ethtool_netlink.h>
#include <netlink/attr.h>

#include "kinds/kinds.h"
#include "os/ethfeatures.h"
#include "os/ethnl.h"
#include "os/ethtool.h"
#include "os/link.h"
#include "unit.h"

static bool have_netns;
static char no_netns[128];

static int setup_netns(void **state)
{
	(void)state;
	if (unshare(CLONE_NEWNET) < 0) {
		snprintf(no_netns, sizeof(no_netns), "needs root: cannot unshare a network namespace: %s",
			 strerror(errno));
		return 0;
	}
	/* veth pairs with fixed queue counts: channel maximums do not depend
	 * on this machine's CPUs. */
	if (system("ip link add ens1f0 numtxqueues 3 numrxqueues 2 type veth peer name peer0 "
		   "numtxqueues 3 numrxqueues 2 && ip link set peer0 up && ip link set ens1f0 up") != 0)
		return -1;
	have_netns = true;
	return 0;
}

#define NEED_NETNS()                                                                                         \
	do {                                                                                                 \
		if (!have_netns)                                                                             \
			unit_skip(no_netns);                                                                 \
	} while (0)

static void test_nle_errno(void **state)
{
	(void)state;
	assert_int_equal(link_errno_from_nle(0), 0);
	assert_int_equal(link_errno_from_nle(-NLE_NODEV), -ENODEV);
	assert_int_equal(link_errno_from_nle(NLE_NODEV), -ENODEV);
	assert_int_equal(link_errno_from_nle(-NLE_PERM), -EPERM);
	assert_int_equal(link_errno_from_nle(-NLE_OPNOTSUPP), -EOPNOTSUPP);
	assert_int_equal(link_errno_from_nle(-NLE_RANGE), -ERANGE);
	assert_int_equal(link_errno_from_nle(-NLE_OBJ_NOTFOUND), -ENOENT);
	assert_int_equal(link_errno_from_nle(-NLE_MAX - 1), -EIO);
	for (int i = 1; i <= NLE_MAX; i++)
		assert_true(link_errno_from_nle(-i) < 0); /* every code maps to an errno */
}

static void test_operstate_names(void **state)
{
	enum link_operstate s;

	(void)state;
	assert_string_equal(link_operstate_to_string(LINK_OPER_UP), "up");
	assert_string_equal(link_operstate_to_string(LINK_OPER_LOWERLAYERDOWN), "lowerlayerdown");
	assert_null(link_operstate_to_string(_LINK_OPER_MAX));
	assert_int_equal(link_operstate_from_string("dormant", &s), 0);
	assert_int_equal(s, LINK_OPER_DORMANT);
	assert_int_equal(link_operstate_from_string("UP", &s), -EINVAL);
}

static void test_list_and_get(void **state)
{
	_cleanup_free_ struct link_info *v = NULL;
	struct link_info l;
	size_t n;

	(void)state;
	NEED_NETNS();
	assert_int_equal(link_list(&v, &n), 0);
	assert_int_equal(n, 3); /* lo, peer0, ens1f0 */
	assert_string_equal(v[0].name, "lo");
	assert_true(v[0].loopback);
	assert_false(v[0].has_mtu_range); /* loopback reports 0/0 */
	for (size_t i = 1; i < n; i++)
		assert_true(v[i].ifindex > v[i - 1].ifindex);

	assert_int_equal(link_get("ens1f0", &l), 0);
	assert_string_equal(l.name, "ens1f0");
	assert_string_equal(l.kind, "veth");
	assert_int_equal(l.mtu, 1500);
	assert_true(l.has_mtu_range);
	assert_int_equal(l.min_mtu, 68);
	assert_int_equal(l.max_mtu, 65535);
	assert_true(l.admin_up);
	assert_false(l.loopback);

	assert_int_equal(link_get("ens9f9", &l), -ENODEV);
	assert_int_equal(link_get("../x", &l), -EINVAL);
	assert_int_equal(link_get("0123456789abcdef", &l), -EINVAL);
}

static void test_set_mtu(void **state)
{
	struct link_info l;
	char *msg = (char *)"untouched";

	(void)state;
	NEED_NETNS();
	assert_int_equal(link_set_mtu("ens1f0", 9000, &msg), 1);
	assert_null(msg); /* reset on entry, no message on success */
	assert_int_equal(link_get("ens1f0", &l), 0);
	assert_int_equal(l.mtu, 9000);
	assert_int_equal(link_set_mtu("ens1f0", 9000, NULL), 0); /* already so */

	/* beyond the device maximum: the kernel's errno and extack text */
	assert_int_equal(link_set_mtu("ens1f0", 65536, &msg), -EINVAL);
	assert_non_null(msg);
	assert_string_equal(msg, "mtu greater than device maximum");
	free(msg);
	assert_int_equal(link_set_mtu("ens1f0", 67, &msg), -EINVAL);
	assert_string_equal(msg, "mtu less than device minimum");
	free(msg);
	assert_int_equal(link_get("ens1f0", &l), 0);
	assert_int_equal(l.mtu, 9000); /* unchanged by the refusals */

	assert_int_equal(link_set_mtu("ens9f9", 1500, &msg), -ENODEV);
	free(msg);
	assert_int_equal(link_set_mtu("a/b", 1500, NULL), -EINVAL);
	assert_int_equal(link_set_mtu("ens1f0", 1500, NULL), 1);
}

static void test_ethtool_veth(void **state)
{
	struct eth_drvinfo d;
	struct ethnl_values c, g;
	struct eth_link e;
	char *msg = NULL;

	(void)state;
	NEED_NETNS();
	assert_int_equal(ethtool_get_drvinfo("ens1f0", &d), 0);
	assert_string_equal(d.driver, "veth");
	assert_string_equal(d.version, "1.0");
	assert_string_equal(d.fw_version, "");
	assert_string_equal(d.bus_info, "");

	assert_int_equal(ethtool_get_link("ens1f0", &e), 0);
	assert_true(e.speed_known);
	assert_int_equal(e.speed, 10000);
	assert_int_equal(e.duplex, ETH_DUPLEX_FULL);
	assert_string_equal(eth_duplex_to_string(e.duplex), "full");

	/* veth rings: not supported, reported as such */
	assert_int_equal(ethnl_group_get(&ethnl_rings, "ens1f0", &g, &msg), -EOPNOTSUPP);
	free(TAKE_PTR(msg));
	assert_int_equal(ethnl_group_set(&ethnl_rings, "ens1f0", 0, 512, &msg), -EOPNOTSUPP);
	free(TAKE_PTR(msg));
	/* The rings requests keep the kernel's own words when it refuses, on
	 * a read and on a write. veth has no rings, so the refusal the kernel
	 * gives on any machine is the device's: a driver's ("requested ring
	 * size exceeds maximum") needs a NIC, or a kernel module the lab does
	 * not load. */
	assert_int_equal(ethnl_group_get(&ethnl_rings, "ens9f9", &g, &msg), -ENODEV);
	assert_string_equal(msg, "no device matches name");
	free(TAKE_PTR(msg));
	assert_int_equal(ethnl_group_set(&ethnl_rings, "ens9f9", 0, 512, &msg), -ENODEV);
	assert_string_equal(msg, "no device matches name");
	free(TAKE_PTR(msg));

	/* channels rx tx other combined, each with its maximum; veth has no
	 * other or combined channels (not reported, maximum 0) */
	assert_int_equal(ethnl_group_get(&ethnl_channels, "ens1f0", &c, NULL), 0);
	assert_true(c.present[0] && c.v[0] == 2 && c.max[0] == 2);
	assert_true(c.present[1] && c.v[1] == 3 && c.max[1] == 3);
	assert_true(!c.present[2] && c.max[2] == 0);
	assert_true(!c.present[3] && c.max[3] == 0);

	assert_int_equal(ethnl_group_set(&ethnl_channels, "ens1f0", 0, 1, &msg), 1);
	assert_int_equal(ethnl_group_set(&ethnl_channels, "ens1f0", 0, 1, &msg), 0); /* already so */
	assert_int_equal(ethnl_group_get(&ethnl_channels, "ens1f0", &c, NULL), 0);
	assert_int_equal(c.v[0], 1);
	assert_int_equal(c.v[1], 3); /* one count written, the other kept */
	/* the kernel's refusals, in its words */
	assert_int_equal(ethnl_group_set(&ethnl_channels, "ens1f0", 0, 3, &msg), -EINVAL);
	assert_string_equal(msg, "requested channel count exceeds maximum");
	free(TAKE_PTR(msg));
	assert_int_equal(ethnl_group_set(&ethnl_channels, "ens1f0", 0, 0, &msg), -EINVAL);
	assert_string_equal(msg,
			    "requested channel counts would result in no RX or TX channel being configured");
	free(TAKE_PTR(msg));
	assert_int_equal(ethnl_group_set(&ethnl_channels, "ens1f0", 3, 1, &msg), -EOPNOTSUPP); /* combined */
	free(TAKE_PTR(msg));
	assert_int_equal(ethnl_group_get(&ethnl_channels, "ens1f0", &c, NULL), 0);
	assert_int_equal(c.v[0], 1);
	assert_int_equal(ethnl_group_set(&ethnl_channels, "ens1f0", 0, 2, &msg), 1);

	/* the ioctl fallback: the same values and maxima, and a refusal
	 * without a message */
	setenv("CX5PROF_FAILPOINT", "ethnl-absent:1", 1);
	assert_int_equal(ethnl_group_get(&ethnl_channels, "ens1f0", &g, NULL), 0);
	assert_true(g.present[0] && g.v[0] == 2 && g.max[0] == 2 && g.v[1] == 3 && g.max[1] == 3);
	assert_true(!g.present[3] && g.max[3] == 0);
	assert_int_equal(ethnl_group_set(&ethnl_channels, "ens1f0", 1, 2, &msg), 1);
	assert_int_equal(ethnl_group_set(&ethnl_channels, "ens1f0", 1, 4, &msg), -EINVAL);
	assert_null(msg);
	assert_int_equal(ethnl_group_set(&ethnl_channels, "ens1f0", 1, 3, &msg), 1);
	unsetenv("CX5PROF_FAILPOINT");

	assert_int_equal(ethtool_get_drvinfo("ens9f9", &d), -ENODEV);
	assert_int_equal(ethnl_group_get(&ethnl_channels, "../x", &c, NULL), -EINVAL);
}

static void test_ethtool_stats(void **state)
{
	_cleanup_free_ struct eth_stat *s = NULL;
	size_t n;
	uint64_t v;

	(void)state;
	NEED_NETNS();
	assert_int_equal(ethtool_get_stats("ens1f0", &s, &n), 0);
	assert_true(n > 0);
	assert_string_equal(s[0].name, "peer_ifindex");
	assert_int_equal(eth_stats_find(s, n, "rx_queue_0_drops", &v), 0);
	assert_int_equal(v, 0);
	/* mlx5's drop counters do not exist on veth */
	for (const char *const *c = eth_drop_counters; *c; c++)
		assert_int_equal(eth_stats_find(s, n, *c, &v), -ENOENT);
	assert_string_equal(eth_drop_counters[0], "rx_discards_phy");
}

/* The count grows and shrinks with the channels (veth: per-queue stats)
 * while the stats are read: every read is whole and consistent, never more
 * entries than the kernel had (ethtool ignores the length passed in). */
static void test_ethtool_stats_channels_change(void **state)
{
	pid_t pid;
	int status, ok = 0;

	(void)state;
	NEED_NETNS();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		for (int i = 0; i < 400; i++) {
			(void)ethnl_group_set(&ethnl_channels, "ens1f0", 0, i % 2 ? 1 : 2, NULL);
			(void)ethnl_group_set(&ethnl_channels, "ens1f0", 1, i % 2 ? 1 : 3, NULL);
		}
		_exit(0);
	}
	for (int i = 0; i < 400; i++) {
		_cleanup_free_ struct eth_stat *s = NULL;
		size_t n = 0;
		uint64_t v;
		int r = ethtool_get_stats("ens1f0", &s, &n);

		if (r == -EAGAIN)
			continue;
		assert_int_equal(r, 0);
		/* veth: peer_ifindex + 7 per rx queue + 2 per tx queue */
		assert_true(n == 1 + 1 * 7 + 1 * 2 || n == 1 + 2 * 7 + 3 * 2 || n == 1 + 2 * 7 + 1 * 2 ||
			    n == 1 + 1 * 7 + 3 * 2);
		assert_string_equal(s[0].name, "peer_ifindex");
		assert_int_equal(eth_stats_find(s, n, "rx_queue_0_drops", &v), 0);
		for (size_t k = 0; k < n; k++)
			assert_true(s[k].name[0] != '\0');
		ok++;
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(ok > 0);

	/* grown for good: the larger count, in full */
	assert_true(ethnl_group_set(&ethnl_channels, "ens1f0", 0, 2, NULL) >= 0);
	assert_true(ethnl_group_set(&ethnl_channels, "ens1f0", 1, 3, NULL) >= 0);
	{
		_cleanup_free_ struct eth_stat *s = NULL;
		size_t n = 0;
		uint64_t v;

		assert_int_equal(ethtool_get_stats("ens1f0", &s, &n), 0);
		assert_int_equal(n, 1 + 2 * 7 + 3 * 2);
		assert_int_equal(eth_stats_find(s, n, "rx_queue_1_drops", &v), 0);
		assert_int_equal(eth_stats_find(s, n, "tx_queue_2_xdp_xmit", &v), 0);
	}
}

/* ethtool netlink on the veth, and the ioctl fallback (failpoint
 * ethnl-absent:1) reading and writing the same features. */
static void test_features_veth(void **state)
{
	struct eth_features nl, io;
	struct ethnl_values v;
	char *kmsg = NULL;

	(void)state;
	NEED_NETNS();
	for (int path = 0; path < 2; path++) {
		if (path == 1)
			setenv("CX5PROF_FAILPOINT", "ethnl-absent:1", 1);
		/* from either default (kernels differ): off, then on */
		assert_true(ethtool_set_feature("ens1f0", ETH_FEATURE_GRO, false, &kmsg) >= 0);
		assert_int_equal(ethtool_set_feature("ens1f0", ETH_FEATURE_GRO, true, &kmsg), 1);
		assert_int_equal(ethtool_set_feature("ens1f0", ETH_FEATURE_GRO, true, &kmsg),
				 0); /* already so */
		assert_true(ethtool_set_feature("ens1f0", ETH_FEATURE_UDP_GRO_FORWARDING, false, &kmsg) >= 0);
		assert_int_equal(ethtool_set_feature("ens1f0", ETH_FEATURE_UDP_GRO_FORWARDING, true, &kmsg),
				 1);
		assert_int_equal(ethtool_set_feature("ens1f0", ETH_FEATURE_UDP_GRO_FORWARDING, false, &kmsg),
				 1);
		/* lro is fixed off on veth: never sent */
		assert_int_equal(ethtool_set_feature("ens1f0", ETH_FEATURE_LRO, true, &kmsg), -EOPNOTSUPP);
		assert_int_equal(ethtool_set_feature("ens1f0", ETH_FEATURE_LRO, false, &kmsg), 0);
		assert_null(kmsg);
		/* gso needs sg: kept off by the kernel, and its request withdrawn */
		assert_int_equal(system("ethtool -K ens1f0 sg off gso off >/dev/null"), 0);
		assert_int_equal(ethtool_set_feature("ens1f0", ETH_FEATURE_GSO, true, &kmsg), -EIO);
		assert_int_equal(ethtool_get_features("ens1f0", &nl, NULL), 0);
		assert_false(nl.f[ETH_FEATURE_GSO].active || nl.f[ETH_FEATURE_GSO].wanted);
		/* a request left behind is withdrawn, though gso is off already
		 * (ethtool's exit says "could not change": the state below is
		 * what counts) */
		assert_int_not_equal(system("ethtool -K ens1f0 gso on >/dev/null 2>&1"), -1);
		assert_int_equal(ethtool_get_features("ens1f0", &nl, NULL), 0);
		assert_true(!nl.f[ETH_FEATURE_GSO].active && nl.f[ETH_FEATURE_GSO].wanted);
		assert_int_equal(ethtool_set_feature("ens1f0", ETH_FEATURE_GSO, false, &kmsg), 1);
		assert_int_equal(ethtool_get_features("ens1f0", &nl, NULL), 0);
		assert_false(nl.f[ETH_FEATURE_GSO].wanted);
		assert_int_equal(system("ethtool -K ens1f0 sg on gso on >/dev/null"), 0);
		assert_null(kmsg);
		assert_int_equal(ethtool_get_features("nosuchdev0", &nl, NULL), -ENODEV);
		/* veth has neither coalescing nor pause settings */
		assert_int_equal(ethnl_group_get(&ethnl_coalesce, "ens1f0", &v, &kmsg), -EOPNOTSUPP);
		assert_int_equal(ethnl_group_set(&ethnl_pause, "ens1f0", 1, 1, &kmsg), -EOPNOTSUPP);
		free(kmsg);
		kmsg = NULL;
	}
	unsetenv("CX5PROF_FAILPOINT");
	/* both paths read the same state */
	assert_int_equal(ethtool_get_features("ens1f0", &nl, NULL), 0);
	setenv("CX5PROF_FAILPOINT", "ethnl-absent:1", 1);
	assert_int_equal(ethtool_get_features("ens1f0", &io, NULL), 0);
	unsetenv("CX5PROF_FAILPOINT");
	assert_memory_equal(&nl, &io, sizeof(nl));
	assert_true(nl.f[ETH_FEATURE_GRO].active && nl.f[ETH_FEATURE_GRO].changeable);
	assert_false(nl.f[ETH_FEATURE_UDP_GRO_FORWARDING].active);
	assert_false(nl.f[ETH_FEATURE_LRO].changeable);
}

/* A name the kernel does not know, in a FEATURES_SET: the kernel refuses
 * it with an extended ack, which ethnl_call hands over verbatim. */
static int bad_bit_encode(struct nl_msg *m, const void *arg)
{
	struct nlattr *set = nla_nest_start(m, ETHTOOL_A_FEATURES_WANTED), *bits, *bit;

	(void)arg;
	bits = nla_nest_start(m, ETHTOOL_A_BITSET_BITS);
	bit = nla_nest_start(m, ETHTOOL_A_BITSET_BITS_BIT);
	if (!set || !bits || !bit || nla_put_string(m, ETHTOOL_A_BITSET_BIT_NAME, "rx-no-such-feature") < 0)
		return -EMSGSIZE;
	nla_nest_end(m, bit);
	nla_nest_end(m, bits);
	nla_nest_end(m, set);
	return 0;
}

static void test_ethnl_extack(void **state)
{
	const struct ethnl_request q = {
	    .cmd = ETHTOOL_MSG_FEATURES_SET,
	    .ifname = "ens1f0",
	    .flags = ETHTOOL_FLAG_OMIT_REPLY,
	    .encode = bad_bit_encode,
	};
	char *kmsg = NULL;

	(void)state;
	NEED_NETNS();
	assert_int_equal(ethnl_call(&q, &kmsg), -EOPNOTSUPP);
	assert_non_null(kmsg);
	assert_string_equal(kmsg, "bit name not found");
	free(kmsg);
}

/* A change kind's read and verify hand the kernel's words over too
 * (kinds.h): apply's check after a write says why a read failed. */
static void test_kind_read_extack(void **state)
{
	const char *names[] = {"rings", "channels", "coalesce", "features"};
	const char *keys[] = {"rings.rx", "channels.rx", "coalesce.rx_usecs", "features.gro"};

	(void)state;
	NEED_NETNS();
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		const struct change_kind *k = change_kind_find(names[i]);
		char *v = NULL, *kmsg = NULL;

		assert_non_null(k);
		assert_int_equal(k->read("ens9f9", keys[i], &v, &kmsg), -ENODEV);
		assert_null(v);
		assert_string_equal(kmsg, "no device matches name");
		free(TAKE_PTR(kmsg));
		assert_int_equal(k->verify(k, "ens9f9", keys[i], "1", &kmsg), -ENODEV);
		assert_string_equal(kmsg, "no device matches name");
		free(TAKE_PTR(kmsg));
		/* a caller that does not want the message */
		assert_int_equal(k->read("ens9f9", keys[i], &v, NULL), -ENODEV);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nle_errno),
	    cmocka_unit_test(test_operstate_names),
	    cmocka_unit_test(test_list_and_get),
	    cmocka_unit_test(test_set_mtu),
	    cmocka_unit_test(test_ethtool_veth),
	    cmocka_unit_test(test_ethtool_stats),
	    cmocka_unit_test(test_ethtool_stats_channels_change),
	    cmocka_unit_test(test_features_veth),
	    cmocka_unit_test(test_ethnl_extack),
	    cmocka_unit_test(test_kind_read_extack),
	};
	return cmocka_run_group_tests(tests, setup_netns, NULL);
}
