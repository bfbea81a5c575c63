/* test_mlx5.c: the mlx5 settings' OS side read from the sysroot fixtures
 * and in memory: private flags (the ethtool text, the netlink bitset), the
 * RSS table's `ethtool -x` text (parsed, rewritten byte for byte), the
 * UDP flow hash letters and text, the XPS rule of
 * mlx5e_set_default_xps_cpumasks and the queues' masks, the PCI Express
 * Max Read Request Size, the CPU governors. Writes go to a copy of a
 * fixture. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <stdio.h>
#include <stdlib.h>

#include "os/ethflowhash.h"
#include "os/ethprivflags.h"
#include "os/ethrss.h"
#include "os/governor.h"
#include "os/pcicfg.h"
#include "os/sysroot.h"
#include "kinds/kinds.h"
#include "os/txqueues.h"
#include "unit.h"

#define FIXTURES "tests/fixtures/sysroot/"

static void use(const char *fixture)
{
	assert_int_equal(sysroot_set(fixture), 0);
}

static char *slurp(const char *path)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_true(getdelim(&s, &n, '\0', f) > 0);
	fclose(f);
	return s;
}

/* A copy of fixture in a new temporary directory, made the sysroot. */
static char *copy_fixture(const char *fixture)
{
	char *dir = unit_tmpdir_new("mlx5");
	_cleanup_free_ char *cmd = NULL;

	assert_non_null(dir);
	cmd = strprintf("cp -a " FIXTURES "%s/. %s/", fixture, dir);
	assert_int_equal(system(cmd), 0);
	use(dir);
	return dir;
}

static char *slurp_in(const char *dir, const char *rel)
{
	_cleanup_free_ char *path = strprintf("%s/%s", dir, rel);
	return slurp(path);
}

/* ---- private flags ---- */

static void test_priv_flags_text(void **state)
{
	_cleanup_free_ char *text = slurp(FIXTURES "cx5-2port/ethtool/ens1f0/show-priv-flags"), *again = NULL;
	struct eth_priv_flags f;

	(void)state;
	assert_int_equal(eth_priv_flags_parse(text, &f), 0);
	assert_int_equal(f.n, 8);
	assert_string_equal(f.name[0], "rx_cqe_moder");
	assert_true(f.on[0]);
	assert_int_equal(eth_priv_flags_find(&f, "rx_cqe_compress"), 2);
	assert_false(f.on[2]);
	assert_int_equal(eth_priv_flags_find(&f, "rx_no_csum_complete"), 4);
	assert_int_equal(eth_priv_flags_find(&f, "dropless_rq"), -ENOENT);
	/* printed back as ethtool prints it: byte for byte */
	again = eth_priv_flags_format("ens1f0", &f);
	assert_string_equal(again, text);
	assert_int_equal(eth_priv_flags_parse("Private flags for x:\nrx_cqe_moder: maybe\n", &f), -EBADMSG);
	assert_int_equal(eth_priv_flags_parse("Features for x:\n", &f), -EBADMSG);
	assert_int_equal(eth_priv_flags_parse("Private flags for x:\n", &f), 0);
	assert_int_equal(f.n, 0);
}

static void test_priv_flags_netlink(void **state)
{
	struct nlattr *tb[ETHTOOL_A_PRIVFLAGS_MAX + 1], *bs[ETHTOOL_A_BITSET_MAX + 1], *outer, *bits, *bit,
	    *b[8];
	struct nl_msg *m = nlmsg_alloc_simple(0, 0);
	struct eth_priv_flags f;
	static const char *const names[] = {"rx_cqe_moder", "tx_cqe_moder", "rx_cqe_compress"};

	(void)state;
	/* SET: one bit, by name, no NOMASK (the others stay) */
	assert_int_equal(ethnl_priv_flags_encode(m, "rx_cqe_compress", true), 0);
	assert_int_equal(nlmsg_parse(nlmsg_hdr(m), 0, tb, ETHTOOL_A_PRIVFLAGS_MAX, NULL), 0);
	assert_int_equal(nla_parse_nested(bs, ETHTOOL_A_BITSET_MAX, tb[ETHTOOL_A_PRIVFLAGS_FLAGS], NULL), 0);
	assert_null(bs[ETHTOOL_A_BITSET_NOMASK]);
	bit = nla_data(bs[ETHTOOL_A_BITSET_BITS]);
	assert_int_equal(nla_parse_nested(b, ETHTOOL_A_BITSET_BIT_MAX, bit, NULL), 0);
	assert_string_equal(nla_get_string(b[ETHTOOL_A_BITSET_BIT_NAME]), "rx_cqe_compress");
	assert_non_null(b[ETHTOOL_A_BITSET_BIT_VALUE]);
	nlmsg_free(m);

	/* GET reply: every flag listed with its index, VALUE on those on */
	m = nlmsg_alloc_simple(0, 0);
	outer = nla_nest_start(m, ETHTOOL_A_PRIVFLAGS_FLAGS);
	nla_put_u32(m, ETHTOOL_A_BITSET_SIZE, 3);
	bits = nla_nest_start(m, ETHTOOL_A_BITSET_BITS);
	for (uint32_t i = 0; i < 3; i++) {
		bit = nla_nest_start(m, ETHTOOL_A_BITSET_BITS_BIT);
		nla_put_u32(m, ETHTOOL_A_BITSET_BIT_INDEX, i);
		nla_put_string(m, ETHTOOL_A_BITSET_BIT_NAME, names[i]);
		if (i != 1)
			nla_put_flag(m, ETHTOOL_A_BITSET_BIT_VALUE);
		nla_nest_end(m, bit);
	}
	nla_nest_end(m, bits);
	nla_nest_end(m, outer);
	assert_int_equal(nlmsg_parse(nlmsg_hdr(m), 0, tb, ETHTOOL_A_PRIVFLAGS_MAX, NULL), 0);
	assert_int_equal(ethnl_priv_flags_decode(tb, &f), 0);
	assert_int_equal(f.n, 3);
	assert_string_equal(f.name[1], "tx_cqe_moder");
	assert_true(f.on[0]);
	assert_false(f.on[1]);
	assert_true(f.on[2]);
	nlmsg_free(m);
}

/* The sysroot answers for the port and takes the write back in the same
 * text; the undo gives the original bytes. */
static void test_priv_flags_sysroot(void **state)
{
	char *dir = unit_tmpdir_new("mlx5");
	_cleanup_free_ char *cmd = NULL, *before = NULL, *after = NULL, *path = NULL;
	struct eth_priv_flags f;

	(void)state;
	assert_non_null(dir);
	cmd = strprintf("cp -a " FIXTURES "cx5-2port/. %s/", dir);
	assert_int_equal(system(cmd), 0);
	path = strprintf("%s/ethtool/ens1f0/show-priv-flags", dir);
	before = slurp(path);
	use(dir);
	assert_int_equal(ethtool_get_priv_flags("ens1f0", &f, NULL), 0);
	assert_int_equal(f.n, 8);
	assert_int_equal(ethtool_set_priv_flag("ens1f0", "rx_cqe_compress", true, NULL), 1);
	assert_int_equal(ethtool_set_priv_flag("ens1f0", "rx_cqe_compress", true, NULL), 0);
	assert_int_equal(ethtool_set_priv_flag("ens1f0", "no_such_flag", true, NULL), -ENOENT);
	assert_int_equal(ethtool_get_priv_flags("ens1f0", &f, NULL), 0);
	assert_true(f.on[2]);
	assert_int_equal(ethtool_set_priv_flag("ens1f0", "rx_cqe_compress", false, NULL), 1);
	after = slurp(path);
	assert_string_equal(after, before);
	use("/");
	assert_int_equal(unit_tmpdir_free(dir), 0);
}

/* A write torn by a kill before the cut (off -> on is a byte shorter:
 * the old text's last newline stays): the next write rewrites the whole
 * file instead of failing on it, and the undo gives the original bytes. */
static void test_priv_flags_torn(void **state)
{
	char *dir = copy_fixture("cx5-2port");
	const char *rel = "ethtool/ens1f0/show-priv-flags";
	_cleanup_free_ char *before = slurp_in(dir, rel), *on = NULL, *torn = NULL, *after = NULL;
	struct eth_priv_flags f;

	(void)state;
	assert_int_equal(ethtool_set_priv_flag("ens1f0", "rx_cqe_compress", true, NULL), 1);
	on = slurp_in(dir, rel);
	torn = strprintf("%s\n", on);
	assert_int_equal(unit_write(dir, rel, torn), 0);
	assert_int_equal(ethtool_get_priv_flags("ens1f0", &f, NULL),
			 -EBADMSG); /* never taken for the value */
	assert_int_equal(ethtool_set_priv_flag("ens1f0", "rx_cqe_compress", true, NULL), 1);
	after = slurp_in(dir, rel);
	assert_string_equal(after, on);
	assert_int_equal(ethtool_set_priv_flag("ens1f0", "rx_cqe_compress", true, NULL), 0);
	assert_int_equal(unit_write(dir, rel, torn), 0);
	assert_int_equal(ethtool_set_priv_flag("ens1f0", "rx_cqe_compress", false, NULL), 1);
	free(after);
	after = slurp_in(dir, rel);
	assert_string_equal(after, before);
	use("/");
	assert_int_equal(unit_tmpdir_free(dir), 0);
}

/* ---- RSS ---- */

/* SRSSH sends back the input transformation GRSSH gave (byte 17, rsvd8[0]
 * before Linux 6.8): a zero there turns a symmetric hash off. */
static void test_rss_request(void **state)
{
	const uint32_t indir[4] = {0, 1, 0, 1};
	const struct eth_rss_change c = {.set_indir = true, .indir = indir, .indir_size = 4};
	_cleanup_free_ struct ethtool_rxfh *q = eth_rss_set_request(&c, 0x02 /* RXH_XFRM_SYM_OR_XOR */);

	(void)state;
	assert_non_null(q);
	assert_int_equal(q->cmd, ETHTOOL_SRSSH);
	assert_int_equal(((const uint8_t *)q)[offsetof(struct ethtool_rxfh, hfunc)], 0); /* no change */
	assert_int_equal(((const uint8_t *)q)[offsetof(struct ethtool_rxfh, hfunc) + 1], 0x02);
	assert_int_equal(q->indir_size, 4);
	assert_int_equal(q->rss_config[1], 1);
	free(q);
	q = eth_rss_set_request(&(struct eth_rss_change){.set_indir = false}, 0);
	assert_int_equal(q->indir_size, ETH_RXFH_INDIR_NO_CHANGE);
	assert_int_equal(q->rsvd8[0], 0); /* a kernel before 6.8 gave 0, and takes nothing else */
}

/* Entries a table's rings do not have are refused when read, and a
 * stored table naming queue 4294967295 reads as it is written. */
static void test_rss_bad_entries(void **state)
{
	static const char *const bad[] = {
	    "RX flow hash indirection table for x with 2 RX ring(s):\n    0:      0 4294967295\n"
	    "RSS hash key:\nOperation not supported\n",
	    "RX flow hash indirection table for x with 2 RX ring(s):\n    0:      0     2\n"
	    "RSS hash key:\nOperation not supported\n",
	    "RX flow hash indirection table for x with 0 RX ring(s):\n    0:      0     0\n"
	    "RSS hash key:\nOperation not supported\n",
	    "RX flow hash indirection table for x with 2 RX ring(s):\n    0:      0 99999999999999999999\n"
	    "RSS hash key:\nOperation not supported\n",
	};
	const struct change_kind *k = change_kind_find("rss");
	_cleanup_(eth_rss_done) struct eth_rss r = {0};
	_cleanup_free_ char *h = NULL;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(eth_rss_parse(bad[i], &r), -ERANGE);
	assert_int_equal(eth_rss_parse("RX flow hash indirection table for x with 2 RX ring(s):\n"
				       "    0:      0    -1\nRSS hash key:\nOperation not supported\n",
				       &r),
			 -EBADMSG);
	assert_int_equal(eth_rss_parse("RX flow hash indirection table for x with 2 RX ring(s):\n"
				       "    0:      0     1\nRSS hash key:\nOperation not supported\n",
				       &r),
			 0);
	assert_non_null(k);
	h = k->human("0 4294967295", NULL);
	assert_string_equal(h, "0 4294967295");
	free(h);
	h = k->human("0 1 1 1", NULL);
	assert_string_equal(h, "entries per queue 1 3");
}

/* The header's ring count is digits within range: "-1" is not
 * 4294967295 rings, "4294967359" is not 63 (the text parsed whole with
 * %u wrapped both). */
static void test_rss_header_rings(void **state)
{
	static const char *const bad[] = {"-1", "4294967359", "4294967295", "65537", "+2", " 2", "2x", ""};
	_cleanup_(eth_rss_done) struct eth_rss r = {0};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		_cleanup_free_ char *text =
		    strprintf("RX flow hash indirection table for x with %s RX ring(s):\n"
			      "    0:      0     0\nRSS hash key:\nOperation not supported\n",
			      bad[i]);

		assert_non_null(text);
		assert_int_equal(eth_rss_parse(text, &r), -EOVERFLOW);
	}
	assert_int_equal(eth_rss_parse("RX flow hash indirection table for x with 65536 RX ring(s):\n"
				       "    0:      0 65535\nRSS hash key:\nOperation not supported\n",
				       &r),
			 0);
	assert_int_equal(r.rings, 65536);
	assert_int_equal(r.indir_size, 2);
}

static void test_rss_text(void **state)
{
	_cleanup_free_ char *text = slurp(FIXTURES "cx5-2port/ethtool/ens1f0/show-rxfh"), *same = NULL,
			    *changed = NULL;
	_cleanup_(eth_rss_done) struct eth_rss r = {0}, back = {0};

	(void)state;
	assert_int_equal(eth_rss_parse(text, &r), 0);
	assert_int_equal(r.rings, 16);
	assert_int_equal(r.indir_size, 256);
	assert_int_equal(r.key_size, 40);
	assert_int_equal(r.indir[17], 1);
	assert_true(eth_rss_is_default(&r));
	same = eth_rss_rewrite(text, &r);
	assert_string_equal(same, text);
	for (uint32_t i = 0; i < r.indir_size; i++)
		r.indir[i] = i % 8;
	assert_false(eth_rss_is_default(&r));
	changed = eth_rss_rewrite(text, &r);
	assert_non_null(strstr(changed, "    8:      0     1     2     3     4     5     6     7\n"));
	assert_non_null(strstr(changed, "RSS hash function:\n    toeplitz: on\n"));
	assert_int_equal(eth_rss_parse(changed, &back), 0);
	assert_int_equal(back.indir[9], 1);
	assert_memory_equal(back.key, r.key, 40);
	assert_int_equal(eth_rss_parse("RX flow hash indirection table for x with 2 RX ring(s):\n"
				       "    0:      0     1\nRSS hash key:\nzz\n",
				       &back),
			 -EBADMSG);
	/* 4.18's 128-entry table of cx5-8node */
	free(text);
	text = slurp(FIXTURES "cx5-8node/ethtool/enp216s0f0np0/show-rxfh");
	eth_rss_done(&r);
	assert_int_equal(eth_rss_parse(text, &r), 0);
	assert_int_equal(r.indir_size, 128);
	assert_int_equal(r.rings, 63);
}

/* The hash function: the one "on" of the "RSS hash function" lines (a
 * text without them, as before ethtool 4.11, says none); two on, or a
 * word other than on/off, is no ethtool text; a rewrite turns the wanted
 * one on and the others off; SRSSH carries it (0: no change). */
static void test_rss_hfunc(void **state)
{
	static const char head[] = "RX flow hash indirection table for x with 2 RX ring(s):\n"
				   "    0:      0     1\nRSS hash key:\n7c:9c\n";
	_cleanup_free_ char *text = strprintf("%sRSS hash function:\n    toeplitz: on\n    xor: off\n"
					      "    crc32: off\n",
					      head),
			    *two = strprintf("%sRSS hash function:\n    toeplitz: on\n    xor: on\n", head),
			    *odd = strprintf("%sRSS hash function:\n    toeplitz: maybe\n", head),
			    *changed = NULL;
	_cleanup_(eth_rss_done) struct eth_rss r = {0}, back = {0};
	_cleanup_free_ struct ethtool_rxfh *q = NULL;
	uint8_t bit = 0;

	(void)state;
	assert_int_equal(eth_rss_parse(text, &r), 0);
	assert_int_equal(r.hfunc, 1 /* toeplitz */);
	assert_string_equal(eth_rss_hfunc_name(r.hfunc), "toeplitz");
	assert_int_equal(eth_rss_parse(head, &back), 0);
	assert_int_equal(back.hfunc, 0);
	assert_null(eth_rss_hfunc_name(back.hfunc));
	eth_rss_done(&back);
	assert_int_equal(eth_rss_parse(two, &back), -EBADMSG);
	assert_int_equal(eth_rss_parse(odd, &back), -EBADMSG);
	assert_int_equal(eth_rss_hfunc_from_name("xor", &bit), 0);
	assert_int_equal(bit, 2 /* xor */);
	assert_int_equal(eth_rss_hfunc_from_name("jenkins", &bit), -EINVAL);
	r.hfunc = 2 /* xor */;
	changed = eth_rss_rewrite(text, &r);
	assert_non_null(changed);
	assert_non_null(
	    strstr(changed, "RSS hash function:\n    toeplitz: off\n    xor: on\n    crc32: off\n"));
	assert_int_equal(eth_rss_parse(changed, &back), 0);
	assert_int_equal(back.hfunc, 2 /* xor */);
	q = eth_rss_set_request(&(struct eth_rss_change){.hfunc = 2 /* xor */}, 0);
	assert_non_null(q);
	assert_int_equal(q->hfunc, 2 /* xor */);
	assert_int_equal(q->indir_size, ETH_RXFH_INDIR_NO_CHANGE);
	assert_int_equal(q->key_size, 0);
}

/* ---- flow hash ---- */

static void test_flow_hash(void **state)
{
	_cleanup_free_ char *text = slurp(FIXTURES "cx5-8node/ethtool/enp216s0f0np0/rx-flow-hash-udp4");
	_cleanup_free_ char *letters = NULL, *again = NULL, *full = NULL;
	uint64_t v;

	(void)state;
	assert_int_equal(eth_flow_hash_parse("sdfn", &v), 0);
	assert_int_equal(v, RXH_IP_SRC | RXH_IP_DST | RXH_L4_B_0_1 | RXH_L4_B_2_3);
	assert_true(eth_flow_hash_has_ports(v));
	letters = eth_flow_hash_format(RXH_L4_B_2_3 | RXH_IP_SRC);
	assert_string_equal(letters, "sn");
	assert_int_equal(eth_flow_hash_parse("ssd", &v), -EINVAL);
	assert_int_equal(eth_flow_hash_parse("sdx", &v), -EINVAL);
	assert_int_equal(eth_flow_hash_parse("", &v), -EINVAL);
	/* cx5-8node: set by hand to sd */
	assert_int_equal(eth_flow_hash_text_parse(text, &v), 0);
	assert_int_equal(v, RXH_IP_SRC | RXH_IP_DST);
	assert_false(eth_flow_hash_has_ports(v));
	again = eth_flow_hash_text_rewrite(text, v);
	assert_string_equal(again, text);
	full = eth_flow_hash_text_rewrite(text, v | RXH_L4_B_0_1 | RXH_L4_B_2_3);
	assert_string_equal(
	    full, "UDP over IPV4 flows use these fields for computing Hash flow key:\n"
		  "IP SA\nIP DA\nL4 bytes 0 & 1 [TCP/UDP src port]\nL4 bytes 2 & 3 [TCP/UDP dst port]\n\n");
	free(again);
	again = eth_flow_hash_text_rewrite(text, 0);
	assert_string_equal(again,
			    "UDP over IPV4 flows use these fields for computing Hash flow key:\nNone\n");
	assert_int_equal(eth_flow_hash_text_parse(again, &v), 0);
	assert_int_equal(v, 0);
}

/* A torn write (fewer field lines over more) is rewritten whole. */
static void test_flow_hash_torn(void **state)
{
	char *dir = copy_fixture("cx5-8node");
	const char *rel = "ethtool/enp216s0f0np0/rx-flow-hash-udp4";
	_cleanup_free_ char *before = slurp_in(dir, rel), *torn = NULL, *after = NULL;
	uint64_t v;

	(void)state;
	torn = strprintf("%s 0 & 1 [TCP/UDP src port]\nL4 bytes 2 & 3 [TCP/UDP dst port]\n\n", before);
	assert_int_equal(unit_write(dir, rel, torn), 0);
	assert_int_equal(ethtool_get_flow_hash("enp216s0f0np0", ETH_FLOW_UDP4, &v, NULL), -EBADMSG);
	assert_int_equal(ethtool_set_flow_hash("enp216s0f0np0", ETH_FLOW_UDP4, RXH_IP_SRC | RXH_IP_DST, NULL),
			 1);
	after = slurp_in(dir, rel);
	assert_string_equal(after, before);
	assert_int_equal(ethtool_set_flow_hash("enp216s0f0np0", ETH_FLOW_UDP4, RXH_IP_SRC | RXH_IP_DST, NULL),
			 0);
	assert_int_equal(unit_write(dir, rel, "garbage\n"), 0);
	assert_int_equal(ethtool_set_flow_hash("enp216s0f0np0", ETH_FLOW_UDP4, RXH_IP_SRC, NULL), -EBADMSG);
	use("/");
	assert_int_equal(unit_tmpdir_free(dir), 0);
}

/* ---- XPS ---- */

static void test_xps_follow(void **state)
{
	struct cpuset m[6] = {CPUSET_INIT, CPUSET_INIT, CPUSET_INIT, CPUSET_INIT, CPUSET_INIT, CPUSET_INIT};
	const int cpu[4] = {8, 9, -1, 11};
	_cleanup_free_ char *l = NULL;

	(void)state;
	/* 4 channels, 4 vectors: queue q on vector q's CPU; unknown: empty */
	assert_int_equal(xps_follow_irqs(4, 4, cpu, 4, m), 0);
	assert_true(cpuset_has(&m[0], 8) && cpuset_count(&m[0]) == 1);
	assert_int_equal(cpuset_count(&m[2]), 0);
	/* 2 channels over 4 vectors: channel c uses vectors c and c + 2 */
	assert_int_equal(xps_follow_irqs(2, 2, cpu, 4, m), 0);
	assert_int_equal(cpuset_format_list(&m[1], &l), 0);
	assert_string_equal(l, "9,11");
	/* 6 queues of 3 channels (two traffic classes): tx-3 is channel 0's */
	assert_int_equal(xps_follow_irqs(6, 3, cpu, 4, m), 0);
	assert_true(cpuset_equal(&m[3], &m[0]));
	assert_int_equal(xps_follow_irqs(1, 0, cpu, 4, m), -EINVAL);
	for (int i = 0; i < 6; i++)
		cpuset_done(&m[i]);
}

static void test_xps_fixture(void **state)
{
	_cleanup_(xps_state_done) struct xps_state x = {0};
	_cleanup_free_ char *l = NULL;

	(void)state;
	use(FIXTURES "cx5-2port");
	assert_int_equal(xps_read("ens1f0", &x), 0);
	assert_int_equal(x.n_tx, 16);
	assert_int_equal(x.n_rx, 16);
	/* where the driver put them when the device opened: the node's CPUs */
	assert_int_equal(cpuset_format_list(&x.tx[3], &l), 0);
	assert_string_equal(l, "11");
	free(l);
	assert_int_equal(cpuset_format_list(&x.tx[8], &l), 0);
	assert_string_equal(l, "24");
	assert_int_equal(xps_read("nosuch0", &x), -ENOENT);
	use("/");
}

/* Without cpu/possible (a sysroot from /proc and /sys that lacks it) the
 * mask keeps the width of the queue's own text, and the undo gives the
 * original bytes back. */
static void test_xps_write_width(void **state)
{
	char *dir = unit_tmpdir_new("mlx5");
	_cleanup_cpuset_ struct cpuset c = CPUSET_INIT;
	_cleanup_free_ char *cmd = NULL, *q3 = NULL, *q4 = NULL, *before = NULL, *text = NULL;
	FILE *f;

	(void)state;
	assert_non_null(dir);
	cmd =
	    strprintf("cp -a " FIXTURES "cx5-2port/. %s/ && rm %s/sys/devices/system/cpu/possible", dir, dir);
	assert_int_equal(system(cmd), 0);
	q3 = strprintf("%s/sys/class/net/ens1f0/queues/tx-3/xps_cpus", dir);
	q4 = strprintf("%s/sys/class/net/ens1f0/queues/tx-4/xps_cpus", dir);
	before = slurp(q3);
	use(dir);
	assert_int_equal(cpuset_add(&c, 12), 0);
	assert_int_equal(xps_write_queue("ens1f0", 3, &c), 1);
	text = slurp(q3);
	assert_string_equal(text, "00001000\n");
	free(text);
	cpuset_clear(&c);
	assert_int_equal(cpuset_add(&c, 11), 0);
	assert_int_equal(xps_write_queue("ens1f0", 3, &c), 1);
	text = slurp(q3);
	assert_string_equal(text, before);
	free(text);
	/* a kernel whose masks are 40 CPUs wide: the top group two digits */
	assert_non_null(f = fopen(q4, "w"));
	fputs("00,00001000\n", f);
	fclose(f);
	cpuset_clear(&c);
	assert_int_equal(cpuset_add(&c, 33), 0);
	assert_int_equal(xps_write_queue("ens1f0", 4, &c), 1);
	text = slurp(q4);
	assert_string_equal(text, "02,00000000\n");
	use("/");
	assert_int_equal(unit_tmpdir_free(dir), 0);
}

/* ---- PCI config space ---- */

static void test_pcicfg(void **state)
{
	uint8_t c[256] = {0};
	unsigned v;

	(void)state;
	use(FIXTURES "cx5-2port");
	assert_int_equal(pcicfg_read_max_read_request("0000:af:00.0", &v), 0);
	assert_int_equal(v, 512);
	use(FIXTURES "cx5-8node");
	assert_int_equal(pcicfg_read_max_read_request("0000:d8:00.0", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(pcicfg_read_max_read_request("0000:02:00.0", &v), 0); /* igb: cap at 0xa0 */
	assert_int_equal(v, 512);
	assert_int_equal(pcicfg_read_max_read_request("../x", &v), -EINVAL);
	use("/");
	/* in memory: no capability list, a loop, too short */
	assert_int_equal(pcicfg_max_read_request(c, sizeof(c), &v), -ENXIO);
	c[0x06] = 0x10;
	c[0x34] = 0x40;
	c[0x40] = 0x01;
	c[0x41] = 0x40; /* points at itself */
	assert_int_equal(pcicfg_find_capability(c, sizeof(c), 0x10), -EBADMSG);
	c[0x41] = 0x50;
	c[0x50] = 0x10;
	c[0x58] = 0x3f;
	c[0x59] = 0x39; /* MRRS 3: 1024 */
	assert_int_equal(pcicfg_max_read_request(c, sizeof(c), &v), 0);
	assert_int_equal(v, 1024);
	assert_int_equal(pcicfg_max_read_request(c, 64, &v), -ENODATA);
}

/* ---- CPU governors ---- */

static void test_governor(void **state)
{
	_cleanup_strv_free_ char **avail = NULL;
	_cleanup_free_ char *g = NULL;

	(void)state;
	use(FIXTURES "cx5-8node");
	assert_int_equal(governor_read(30, &g), 0);
	assert_string_equal(g, "schedutil");
	assert_int_equal(governor_available(30, &avail), 0);
	assert_true(strv_contains(avail, "performance"));
	assert_int_equal(strv_length(avail), 6);
	assert_int_equal(governor_read(47, &g), -ENOENT); /* offline: no policy */
	assert_int_equal(governor_driver_present(), 1);
	use(FIXTURES "cx5-nonuma");
	assert_int_equal(governor_read(0, &g), -ENOENT); /* no cpufreq driver */
	assert_int_equal(governor_driver_present(), 0);
	use("/");
	assert_true(governor_name_valid("performance"));
	assert_false(governor_name_valid("Performance"));
	assert_false(governor_name_valid("../x"));
	assert_false(governor_name_valid(""));
	/* a tunable as an undo log holds it: NAME=DECIMAL */
	assert_true(governor_tunable_valid("rate_limit_us=500"));
	assert_true(governor_tunable_valid("scaling_setspeed=1200000"));
	assert_false(governor_tunable_valid("rate_limit_us="));
	assert_false(governor_tunable_valid("=500"));
	assert_false(governor_tunable_valid("rate_limit_us"));
	assert_false(governor_tunable_valid("rate_limit_us=-1"));
	assert_false(governor_tunable_valid("rate_limit_us=<unsupported>"));
	assert_false(governor_tunable_valid("../x=1"));
	assert_false(governor_tunable_valid("rate_limit_us=123456789012345678901"));
}

/* "powersave\ne\n" (a write cut short) is not powersave: written again. */
static void test_governor_torn(void **state)
{
	char *dir = copy_fixture("cx5-8node");
	const char *rel = "sys/devices/system/cpu/cpu30/cpufreq/scaling_governor";
	_cleanup_free_ char *after = NULL;

	(void)state;
	assert_int_equal(unit_write(dir, rel, "powersave\ne\n"), 0);
	assert_int_equal(governor_write(30, "powersave"), 1);
	after = slurp_in(dir, rel);
	assert_string_equal(after, "powersave\n");
	assert_int_equal(governor_write(30, "powersave"), 0);
	assert_int_equal(governor_write(30, "performance"), 1);
	use("/");
	assert_int_equal(unit_tmpdir_free(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_priv_flags_text),    cmocka_unit_test(test_priv_flags_netlink),
	    cmocka_unit_test(test_priv_flags_sysroot), cmocka_unit_test(test_rss_text),
	    cmocka_unit_test(test_rss_hfunc),	       cmocka_unit_test(test_flow_hash),
	    cmocka_unit_test(test_xps_follow),	       cmocka_unit_test(test_xps_fixture),
	    cmocka_unit_test(test_xps_write_width),    cmocka_unit_test(test_pcicfg),
	    cmocka_unit_test(test_governor),

	    cmocka_unit_test(test_priv_flags_torn),    cmocka_unit_test(test_rss_request),
	    cmocka_unit_test(test_rss_bad_entries),    cmocka_unit_test(test_rss_header_rings),
	    cmocka_unit_test(test_flow_hash_torn),     cmocka_unit_test(test_governor_torn),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
