/* test_netcounters.c: the loss ledger's kernel counters (engine/os/):
 * snmp.h on /proc/net/snmp and /proc/net/snmp6, softnet.h on
 * /proc/net/softnet_stat, qdisc.h on real RTM_GETQDISC dumps, as Linux
 * 6.18 prints them (tests/fixtures/ledger, captured; the 4.x and 5.10
 * softnet layouts cut from them), their errors, the live reads, which
 * ignore a sysroot (the kernel's counters of this namespace, never a
 * fixture's), and, in a network namespace private to this test process
 * (unshare(CLONE_NEWNET)), the live qdisc, the device counters (link.h)
 * and a whole netcounters.h snapshot. The namespace part needs root; it
 * skips otherwise, and fails instead under CX5PROF_REQUIRE_PRIVILEGED=1
 * (CI). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <sched.h>

#include "os/link.h"
#include "os/netcounters.h"
#include "os/qdisc.h"
#include "os/snmp.h"
#include "os/softnet.h"
#include "os/sysroot.h"
#include "unit.h"

#define FIXTURES "tests/fixtures/ledger"

/* A fixture file, whole (binary files too); *ret_len its length. */
static char *slurp(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "re");
	char *buf = calloc(1, 65536 + 1);
	size_t n;

	assert_non_null(f);
	assert_non_null(buf);
	n = fread(buf, 1, 65536, f);
	assert_true(n > 0 && n < 65536);
	fclose(f);
	if (ret_len)
		*ret_len = n;
	return buf;
}

static bool have_netns;

/* The tests that need it skip through unit_skip (a failure in CI). */
static int setup_netns(void **state)
{
	(void)state;
	if (unshare(CLONE_NEWNET) < 0) {
		fprintf(stderr, "# cannot unshare a network namespace: %s\n", strerror(errno));
		return 0;
	}
	if (system("ip link set lo up && ip link add ens1f0 type veth peer name peer0 && "
		   "ip addr add 198.18.0.1/30 dev ens1f0 && ip link set ens1f0 up && ip link set peer0 up") !=
	    0)
		return -1;
	have_netns = true;
	return 0;
}

#define NEED_NETNS()                                                                                         \
	do {                                                                                                 \
		if (!have_netns)                                                                             \
			unit_skip("cannot unshare a network namespace (needs root)");                        \
	} while (0)

/* ---- snmp ---- */

static uint64_t get(const struct snmp_table *t, const char *name)
{
	uint64_t v = 0;

	if (!snmp_get(t, name, &v))
		fail_msg("%s absent", name);
	return v;
}

static void test_snmp_captured(void **state)
{
	_cleanup_free_ char *text = slurp(FIXTURES "/snmp-linux-6.18.txt", NULL);
	_cleanup_snmp_table_ struct snmp_table *t = NULL;
	uint64_t v;

	(void)state;
	assert_int_equal(snmp_parse(text, &t, NULL), 0);
	/* by header name, nstat's names */
	assert_int_equal(get(t, "IpInReceives"), 15784599);
	assert_int_equal(get(t, "IpReasmFails"), 0);
	assert_int_equal(get(t, "IpOutTransmits"), 15783183);
	assert_int_equal(get(t, "UdpInDatagrams"), 10250015);
	assert_int_equal(get(t, "UdpInErrors"), 4656903);
	assert_int_equal(get(t, "UdpRcvbufErrors"), 4656903);
	assert_int_equal(get(t, "UdpMemErrors"), 0);
	/* "UdpLite:" is its own protocol, not Udp's */
	assert_int_equal(get(t, "UdpLiteInDatagrams"), 0);
	assert_int_equal(get(t, "TcpRtoMax"), 120000);
	assert_int_equal(get(t, "IcmpMsgInType3"), 1);
	/* Tcp MaxConn is -1: signed, not a counter, left out */
	assert_false(snmp_get(t, "TcpMaxConn", &v));
	assert_false(snmp_get(t, "UdpNoSuchField", &v));
	assert_false(snmp_get(t, "Udp", &v));
}

static void test_snmp6_captured(void **state)
{
	_cleanup_free_ char *text = slurp(FIXTURES "/snmp6-linux-6.18.txt", NULL);
	_cleanup_snmp_table_ struct snmp_table *t = NULL;

	(void)state;
	assert_int_equal(snmp6_parse(text, &t, NULL), 0);
	assert_int_equal(t->n, 90);
	assert_int_equal(get(t, "Ip6InReceives"), 9);
	assert_int_equal(get(t, "Ip6ReasmFails"), 0);
	assert_int_equal(get(t, "Udp6RcvbufErrors"), 0);
	assert_int_equal(get(t, "Icmp6InType1"), 1);
	assert_int_equal(get(t, "UdpLite6MemErrors"), 0);
}

static void expect_snmp_error(int (*parse)(const char *, struct snmp_table **, unsigned *), const char *text,
			      unsigned line)
{
	struct snmp_table *t = (struct snmp_table *)0x1;
	unsigned got = 99;

	assert_int_equal(parse(text, &t, &got), -EINVAL);
	assert_ptr_equal(t, (struct snmp_table *)0x1); /* untouched */
	assert_int_equal(got, line);
}

static void test_snmp_errors(void **state)
{
	_cleanup_snmp_table_ struct snmp_table *t = NULL;
	unsigned line = 99;

	(void)state;
	/* fewer values than names */
	expect_snmp_error(snmp_parse, "Udp: InDatagrams NoPorts\nUdp: 1\n", 2);
	/* the values of another protocol */
	expect_snmp_error(snmp_parse, "Udp: InDatagrams\nIp: 1\n", 2);
	/* a header without its values, after blank lines */
	expect_snmp_error(snmp_parse, "Udp: InDatagrams\nUdp: 1\n\nIp: Forwarding\n\n", 4);
	/* not a number */
	expect_snmp_error(snmp_parse, "Udp: InDatagrams\nUdp: 1x\n", 2);
	expect_snmp_error(snmp_parse, "Udp: InDatagrams\nUdp: 18446744073709551616\n", 2);
	/* no protocol word, a bad name */
	expect_snmp_error(snmp_parse, "InDatagrams 1\n", 1);
	expect_snmp_error(snmp_parse, "Udp: In-Datagrams\nUdp: 1\n", 1);
	expect_snmp_error(snmp6_parse, "Udp6InDatagrams 1 2\n", 1);
	expect_snmp_error(snmp6_parse, "Udp6InDatagrams\t1\nUdp6NoPorts\n", 2);
	expect_snmp_error(snmp6_parse, "Udp6In/Datagrams\t1\n", 1);

	/* the largest counter, an empty file, no trailing newline */
	assert_int_equal(snmp_parse("Udp: InDatagrams\nUdp: 18446744073709551615", &t, &line), 0);
	assert_int_equal(line, 0);
	assert_int_equal(get(t, "UdpInDatagrams"), UINT64_MAX);
	snmp_table_free(TAKE_PTR(t));
	assert_int_equal(snmp_parse("", &t, NULL), 0);
	assert_int_equal(t->n, 0);
	snmp_table_free(TAKE_PTR(t));
	assert_int_equal(snmp6_parse("\n\n", &t, NULL), 0);
	assert_int_equal(t->n, 0);
}

/* Under a sysroot, the counters still come from the live namespace, and
 * only the counter files may be read that way. */
static void test_live_under_sysroot(void **state)
{
	_cleanup_snmp_table_ struct snmp_table *t = NULL;
	_cleanup_free_ char *text = NULL;
	uint64_t v;

	(void)state;
	assert_int_equal(sysroot_set("tests/fixtures/sysroot/cx5-2port"), 0);
	assert_int_equal(snmp_read(&t), 0);
	assert_true(snmp_get(t, "UdpInDatagrams", &v));
	assert_true(snmp_get(t, "IpReasmFails", &v));
	assert_int_equal(sysroot_read_live_counters("/proc/net/softnet_stat", &text, NULL), 0);
	assert_true(strlen(text) > 0);
	assert_int_equal(sysroot_read_live_counters("/proc/net/ip_tables_names", &text, NULL), -EPERM);
	assert_int_equal(sysroot_read_live_counters("/proc/net/../self/environ", &text, NULL), -EPERM);
	assert_int_equal(sysroot_set(NULL), 0);
}

/* ---- softnet ---- */

static void test_softnet_linux_6_18(void **state)
{
	_cleanup_free_ char *text = slurp(FIXTURES "/softnet_stat-linux-6.18.txt", NULL);
	_cleanup_free_ struct softnet *t = NULL;

	(void)state;
	assert_int_equal(softnet_parse(text, &t, NULL), 0);
	assert_int_equal(t->columns, 15);
	assert_true(t->cpu_known);
	assert_int_equal(t->n, 2);
	assert_int_equal(t->cpu[0].cpu, 0);
	assert_int_equal(t->cpu[0].processed, 0x01c583cc);
	assert_int_equal(t->cpu[0].dropped, 0);
	assert_int_equal(t->cpu[0].time_squeeze, 2);
	assert_int_equal(t->cpu[1].cpu, 1);
	assert_int_equal(t->cpu[1].processed, 0x01880c23);
	assert_int_equal(t->cpu[1].time_squeeze, 1);
}

static void test_softnet_older_layouts(void **state)
{
	_cleanup_free_ char *t11 = slurp(FIXTURES "/softnet_stat-11col.txt", NULL);
	_cleanup_free_ char *t13 = slurp(FIXTURES "/softnet_stat-13col-offline.txt", NULL);
	_cleanup_free_ struct softnet *a = NULL, *b = NULL, *c = NULL;

	(void)state;
	assert_int_equal(softnet_parse(t11, &a, NULL), 0);
	assert_int_equal(a->columns, 11);
	assert_false(a->cpu_known); /* by position: the best a 4.x kernel says */
	assert_int_equal(a->cpu[1].cpu, 1);
	assert_int_equal(a->cpu[1].time_squeeze, 1);

	/* CPU 1 offline: the second line is CPU 2's, as column 13 says */
	assert_int_equal(softnet_parse(t13, &b, NULL), 0);
	assert_int_equal(b->columns, 13);
	assert_true(b->cpu_known);
	assert_int_equal(b->cpu[0].cpu, 0);
	assert_int_equal(b->cpu[0].dropped, 3);
	assert_int_equal(b->cpu[0].time_squeeze, 0x1c);
	assert_int_equal(b->cpu[1].cpu, 2);

	/* 10 columns (before flow_limit_count): flow_limit 0 */
	assert_int_equal(softnet_parse("00000001 00000002 00000003 0 0 0 0 0 0 0000000a\n", &c, NULL), 0);
	assert_int_equal(c->columns, 10);
	assert_int_equal(c->cpu[0].received_rps, 10);
	assert_int_equal(c->cpu[0].flow_limit, 0);
}

static void test_softnet_wrap(void **state)
{
	(void)state;
	assert_int_equal(softnet_rise(5, 9), 4);
	assert_int_equal(softnet_rise(0xfffffffe, 3), 5);
}

static void expect_softnet_error(const char *text, unsigned line)
{
	struct softnet *t = (struct softnet *)0x1;
	unsigned got = 99;

	assert_int_equal(softnet_parse(text, &t, &got), -EINVAL);
	assert_ptr_equal(t, (struct softnet *)0x1);
	assert_int_equal(got, line);
}

static void test_softnet_errors(void **state)
{
	struct softnet *t = NULL;

	(void)state;
	expect_softnet_error("00000001 00000002 00000003\n", 1);		   /* too few columns */
	expect_softnet_error("1 2 3 4 5 6 7 8 9 a b\n1 2 3 4 5 6 7 8 9 a\n", 2);   /* column count changes */
	expect_softnet_error("1 2 3 4 5 6 7 8 9 a b\n1 2 3 4 5 6 7 8 9 a x\n", 2); /* not hex */
	expect_softnet_error("1 2 3 4 5 6 7 8 9 a 100000000\n", 1);		   /* beyond 32 bits */
	expect_softnet_error("1 2 3 4 5 6 7 8 9 a b c 0\n1 2 3 4 5 6 7 8 9 a b c 0\n", 2); /* CPU twice */
	expect_softnet_error("1 2 3 4 5 6 7 8 9 a b c 2000\n", 1); /* CPU beyond the limit */
	expect_softnet_error("1\t2 3 4 5 6 7 8 9 a b\n", 1);
	assert_int_equal(softnet_parse("", &t, NULL), -ENODATA);
	assert_int_equal(softnet_parse("\n\n", &t, NULL), -ENODATA);
	assert_null(t);
}

/* ---- qdisc, link, the snapshot ---- */

/* The root qdisc of `tc -s -j qdisc` (the array element with "root": true). */
static struct json_object *tc_root(const char *name)
{
	_cleanup_free_ char *path = strprintf(FIXTURES "/qdisc-%s.json", name);
	struct json_object *all = json_object_from_file(path), *root = NULL;

	assert_non_null(all);
	for (size_t i = 0; i < json_object_array_length(all); i++) {
		struct json_object *q = json_object_array_get_idx(all, i), *r;
		if (json_object_object_get_ex(q, "root", &r) && json_object_get_boolean(r))
			root = json_object_get(q);
	}
	json_object_put(all);
	assert_non_null(root);
	return root;
}

static int64_t jint(struct json_object *o, const char *key)
{
	struct json_object *v;

	assert_true(json_object_object_get_ex(o, key, &v));
	return json_object_get_int64(v);
}

static void check_case(const char *name, unsigned count)
{
	_cleanup_free_ char *nl = NULL, *ifx = NULL, *path = strprintf(FIXTURES "/qdisc-%s.nl", name);
	_cleanup_free_ char *ipath = strprintf(FIXTURES "/qdisc-%s.ifindex", name);
	struct json_object *tc = tc_root(name), *kind;
	struct qdisc_stats st;
	size_t len, ilen;

	nl = slurp(path, &len);
	ifx = slurp(ipath, &ilen);
	assert_int_equal(qdisc_parse_dump(nl, len, atoi(ifx), &st), 0);
	assert_true(st.has_root);
	assert_int_equal(st.count, count);
	assert_true(json_object_object_get_ex(tc, "kind", &kind));
	assert_string_equal(st.kind, json_object_get_string(kind));
	/* tc ran right after the dump: the queue may have moved on by a few
	 * packets, not the drops of a stopped sender */
	assert_int_equal(st.drops, jint(tc, "drops"));
	assert_int_equal(st.requeues, jint(tc, "requeues"));
	assert_true(st.packets <= (uint64_t)jint(tc, "packets"));
	assert_true(st.packets + 4 >= (uint64_t)jint(tc, "packets"));
	json_object_put(tc);

	/* another device of the same dump: lo (ifindex 1) has its root only */
	assert_int_equal(qdisc_parse_dump(nl, len, 1, &st), 0);
	assert_int_equal(st.count, 1);
	assert_string_equal(st.kind, "noqueue");
	/* a device the dump does not hold */
	assert_int_equal(qdisc_parse_dump(nl, len, 999, &st), 0);
	assert_false(st.has_root);
	assert_int_equal(st.count, 0);
}

static void test_qdisc_captured(void **state)
{
	(void)state;
	check_case("noqueue", 1);
	check_case("tbf", 1);
	check_case("mq", 5); /* mq and one tbf per transmit queue: mq's counts are their sum */
}

static void test_qdisc_malformed(void **state)
{
	_cleanup_free_ char *path = strprintf(FIXTURES "/qdisc-mq.nl");
	_cleanup_free_ char *nl = NULL;
	struct qdisc_stats st = {.drops = 7};
	struct nlmsghdr *h;
	size_t len;

	(void)state;
	nl = slurp(path, &len);
	/* cut inside the first message */
	assert_int_equal(qdisc_parse_dump(nl, 100, 3, &st), -EBADMSG);
	assert_int_equal(st.drops, 7); /* untouched */
	/* a length beyond the buffer */
	h = (struct nlmsghdr *)nl;
	h->nlmsg_len = (uint32_t)len + 4;
	assert_int_equal(qdisc_parse_dump(nl, len, 3, &st), -EBADMSG);
	/* an attribute running out of its message: libnl's validation stops
	 * there (what follows is left over), so lo's root has no kind */
	h->nlmsg_len = 148;
	nl[16 + 20] = (char)0xff; /* first attribute's length: far beyond */
	nl[16 + 20 + 1] = 0x7f;
	assert_int_equal(qdisc_parse_dump(nl, len, 1, &st), 0);
	assert_true(st.has_root);
	assert_string_equal(st.kind, "");
	/* a message too short for its tcmsg */
	h->nlmsg_len = 20;
	assert_int_equal(qdisc_parse_dump(nl, len, 1, &st), -EBADMSG);
	assert_int_equal(qdisc_parse_dump(nl, 0, 1, &st), 0); /* nothing: no qdisc */
	assert_false(st.has_root);
}

static void test_live_netns(void **state)
{
	struct qdisc_stats q;
	struct link_stats ls;
	_cleanup_(netcounters_done) struct netcounters s = {0};
	uint64_t v;

	(void)state;
	NEED_NETNS();
	assert_int_equal(qdisc_stats_get("ens1f0", &q), 0);
	assert_true(q.has_root);
	assert_string_equal(q.kind, "noqueue"); /* a veth as created */
	assert_int_equal(system("tc qdisc add dev ens1f0 root pfifo limit 100"), 0);
	assert_int_equal(system("ping -c 2 -i 0.2 -W 1 198.18.0.2 >/dev/null 2>&1; true"), 0);
	assert_int_equal(qdisc_stats_get("ens1f0", &q), 0);
	assert_string_equal(q.kind, "pfifo");
	assert_true(q.packets >= 2);
	assert_int_equal(q.drops, 0);
	assert_int_equal(qdisc_stats_get("ens9f9", &q), -ENODEV);

	assert_int_equal(link_get_stats("ens1f0", &ls), 0);
	assert_true(ls.tx_packets >= 2);
	assert_int_equal(link_get_stats("ens9f9", &ls), -ENODEV);
	assert_int_equal(link_get_stats("a/b", &ls), -EINVAL);

	assert_int_equal(netcounters_take("ens1f0", &s), 0);
	assert_string_equal(s.ifname, "ens1f0");
	assert_null(s.unavailable);
	assert_true(netcounters_get(&s, "UdpRcvbufErrors", &v));
	assert_true(netcounters_get(&s, "IpReasmFails", &v));
	assert_true(netcounters_get(&s, "softnet.dropped", &v));
	assert_true(netcounters_get(&s, "qdisc.drops", &v));
	assert_true(netcounters_get(&s, "link.tx_packets", &v) && v >= 2);
	assert_false(netcounters_get(&s, "nic.rx_out_of_buffer", &v)); /* veth has no mlx5 counters */
	netcounters_done(&s);
	/* a device that is not there: its sources named, the host-wide kept */
	assert_int_equal(netcounters_take("ens9f9", &s), 0);
	assert_non_null(s.unavailable);
	assert_string_equal(s.unavailable[0], "qdisc: No such device");
	assert_true(netcounters_get(&s, "UdpInDatagrams", &v));
	assert_false(netcounters_get(&s, "qdisc.drops", &v));
}

static void test_netcounter_names(void **state)
{
	struct netcounters s = {0};
	uint64_t v;

	(void)state;
	assert_true(netcounter_name_known("UdpRcvbufErrors"));
	assert_true(netcounter_name_known("softnet.dropped.cpu12"));
	assert_true(netcounter_name_known("nic.rx_out_of_buffer"));
	assert_true(netcounter_name_known("link.rx_dropped"));
	assert_false(netcounter_name_known("softnet.dropped.cpu"));
	assert_false(netcounter_name_known("softnet.dropped.cpu1x"));
	assert_false(netcounter_name_known("nic.rx_packets"));
	assert_false(netcounter_name_known("TcpInSegs"));
	/* the 32-bit counters wrap, the others never go back */
	assert_int_equal(netcounter_rise("qdisc.drops", 0xffffffff, 2), 3);
	assert_int_equal(netcounter_rise("softnet.dropped.cpu0", 0xfffffffe, 1), 3);
	assert_int_equal(netcounter_rise("UdpRcvbufErrors", 10, 4), 0);
	assert_int_equal(netcounter_rise("UdpRcvbufErrors", 4, 10), 6);

	assert_int_equal(netcounters_set(&s, "a.b_c9", 1), 0);
	assert_int_equal(netcounters_set(&s, "a.b_c9", 2), 0);
	assert_int_equal(s.n, 1);
	assert_true(netcounters_get(&s, "a.b_c9", &v) && v == 2);
	assert_int_equal(netcounters_set(&s, "", 1), -EINVAL);
	assert_int_equal(netcounters_set(&s, "a b", 1), -EINVAL);
	assert_int_equal(netcounters_set(&s, "0123456789012345678901234567890123456789012345678", 1),
			 -EINVAL);
	netcounters_done(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_snmp_captured),      cmocka_unit_test(test_snmp6_captured),
	    cmocka_unit_test(test_snmp_errors),	       cmocka_unit_test(test_live_under_sysroot),
	    cmocka_unit_test(test_softnet_linux_6_18), cmocka_unit_test(test_softnet_older_layouts),
	    cmocka_unit_test(test_softnet_wrap),       cmocka_unit_test(test_softnet_errors),
	    cmocka_unit_test(test_qdisc_captured),     cmocka_unit_test(test_qdisc_malformed),
	    cmocka_unit_test(test_live_netns),	       cmocka_unit_test(test_netcounter_names),
	};
	return cmocka_run_group_tests(tests, setup_netns, NULL);
}
