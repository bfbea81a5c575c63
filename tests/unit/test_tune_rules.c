/* test_tune_rules.c: the rule table of `tune` (tune/rules.h) on facts
 * built here: which rules fire on which evidence, their weights (the
 * ledger's bottleneck 100, a counter's share of the drops, MTU 90 or 50,
 * doctor 40 or 20), the receive buffer ladder and its cap, and the
 * fragments merged, removed and read back. The lab tests (220-223) run
 * the rules on real counters. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "doctor.h"
#include "tune/rules.h"

/* A measured group: limited_by and the drops map. */
static struct json_object *measured(const char *limited_by, const char *counter, int64_t n, const char *other,
				    int64_t m)
{
	struct json_object *g = json_object_new_object(), *d = json_object_new_object();

	json_object_object_add(g, "limited_by", limited_by ? json_object_new_string(limited_by) : NULL);
	if (counter)
		json_object_object_add(d, counter, json_object_new_int64(n));
	if (other)
		json_object_object_add(d, other, json_object_new_int64(m));
	json_object_object_add(g, "drops", d);
	return g;
}

static int fire(const char *family, const struct tune_facts *f, double *w, struct tune_fragment *fr,
		char **why)
{
	const struct tune_rule *r = tune_rule_find(family);

	assert_non_null(r);
	*fr = (struct tune_fragment){0};
	*why = NULL;
	return r->fire(f, why, w, fr);
}

static void test_rcvbuf(void **state)
{
	struct tune_fragment best = {0}, fr;
	struct tune_facts f = {.best = &best};
	char *why;
	double w;

	(void)state;
	/* no measurement: no evidence */
	assert_int_equal(fire("rcvbuf", &f, &w, &fr, &why), 0);
	/* RcvbufErrors 300 of 1200 drops: a quarter of the drops */
	f.measured = measured("sender", "UdpRcvbufErrors", 300, "UdpInErrors", 900);
	assert_int_equal(fire("rcvbuf", &f, &w, &fr, &why), 1);
	assert_float_equal(w, 25.0, 1e-9);
	assert_string_equal(why, "UdpRcvbufErrors rose by 300 in the rounds");
	free(why);
	/* the ladder's first size above the system default, and its floor */
	assert_int_equal(fr.n, 2);
	assert_string_equal(tune_fragment_get(&fr, "verify.socket_buffer", "receive"), "256K");
	assert_string_equal(tune_fragment_get(&fr, "sysctl", "net.core.rmem_max"), "\">= 256K\"");
	json_object_put(f.measured);
	/* the bottleneck: weight 100; the next size after 256K is 1M */
	f.measured = measured("receiver-socket-buffer", "UdpRcvbufErrors", 10, NULL, 0);
	assert_int_equal(tune_fragment_merge(&best, &fr), 0);
	assert_int_equal(fire("rcvbuf", &f, &w, &fr, &why), 1);
	assert_float_equal(w, 100.0, 1e-9);
	assert_string_equal(tune_fragment_get(&fr, "verify.socket_buffer", "receive"), "1M");
	free(why);
	json_object_put(f.measured);
	/* a size already raised: a few drops left are not enough for the next one */
	f.measured = measured("sender", "UdpRcvbufErrors", 10, NULL, 0);
	assert_int_equal(fire("rcvbuf", &f, &w, &fr, &why), 0);
	/* at the cap (64M) it never fires */
	snprintf(best.keys[0].value, sizeof(best.keys[0].value), "64M");
	assert_int_equal(fire("rcvbuf", &f, &w, &fr, &why), 0);
	json_object_put(f.measured);
	/* both families rose: the reason names both */
	f.best = &(struct tune_fragment){0};
	f.measured = measured(NULL, "UdpRcvbufErrors", 100, "Udp6RcvbufErrors", 200);
	assert_int_equal(fire("rcvbuf", &f, &w, &fr, &why), 1);
	assert_string_equal(why, "UdpRcvbufErrors + Udp6RcvbufErrors rose by 300 in the rounds");
	free(why);
	json_object_put(f.measured);
}

static void test_mtu(void **state)
{
	struct tune_fragment best = {0}, fr;
	struct tune_facts f = {.best = &best, .mtu = 1500, .max_mtu = 9600};
	char *why;
	double w;

	(void)state;
	assert_int_equal(fire("mtu", &f, &w, &fr, &why), 1);
	assert_float_equal(w, 50.0, 1e-9);
	assert_string_equal(why, "MTU 1500 on ports that take 9000");
	free(why);
	assert_string_equal(tune_fragment_get(&fr, "link", "mtu"), "9000");
	/* the ledger names reassembly: 90 */
	f.measured = measured("reassembly", "IpReasmFails", 5, NULL, 0);
	assert_int_equal(fire("mtu", &f, &w, &fr, &why), 1);
	assert_float_equal(w, 90.0, 1e-9);
	assert_string_equal(why, "MTU 1500 on ports that take 9000; the loss ledger names IP reassembly");
	free(why);
	json_object_put(f.measured);
	f.measured = NULL;
	/* a port that cannot take 9000, or one already there: no candidate */
	f.max_mtu = 4000;
	assert_int_equal(fire("mtu", &f, &w, &fr, &why), 0);
	f.max_mtu = 9600;
	f.mtu = 9000;
	assert_int_equal(fire("mtu", &f, &w, &fr, &why), 0);
}

/* IPv4 reassembly: half the ledger's weight (after the MTU's 90 when the
 * ledger names it), its counter's share of the drops otherwise. */
static void test_reasm(void **state)
{
	struct tune_fragment best = {0}, fr;
	struct tune_facts f = {.best = &best, .mtu = 9000};
	char *why;
	double w;

	(void)state;
	assert_int_equal(fire("reasm", &f, &w, &fr, &why), 0);
	f.measured = measured("reassembly", "IpReasmFails", 5, NULL, 0);
	assert_int_equal(fire("reasm", &f, &w, &fr, &why), 1);
	assert_float_equal(w, 50.0, 1e-9);
	assert_string_equal(why, "the loss ledger names the reassembly the bottleneck (IpReasmFails +5)");
	free(why);
	assert_string_equal(tune_fragment_get(&fr, "sysctl", "net.ipv4.ipfrag_high_thresh"), "\">= 16M\"");
	json_object_put(f.measured);
	/* 200 of 800 drops on IPv4 reassembly, the ledger naming another
	 * stage: a quarter, halved */
	f.measured = measured("receiver-backlog", "IpReasmFails", 200, "softnet.dropped", 600);
	assert_int_equal(fire("reasm", &f, &w, &fr, &why), 1);
	assert_float_equal(w, 12.5, 1e-9);
	assert_string_equal(why, "IpReasmFails rose by 200 in the rounds");
	free(why);
	json_object_put(f.measured);
	/* IPv6 reassembly alone: its memory is not net.ipv4's, no candidate */
	f.measured = measured(NULL, "Ip6ReasmFails", 200, NULL, 0);
	assert_int_equal(fire("reasm", &f, &w, &fr, &why), 0);
	json_object_put(f.measured);
	/* drops elsewhere only: no candidate */
	f.measured = measured("receiver-backlog", "softnet.dropped", 600, NULL, 0);
	assert_int_equal(fire("reasm", &f, &w, &fr, &why), 0);
	json_object_put(f.measured);
}

static void test_doctor_rules(void **state)
{
	struct doctor_check checks[] = {
	    {.object = "ens1f0",
	     .name = "irq-placement",
	     .status = DOCTOR_FAIL,
	     .detail = "16 of 16 misplaced"},
	    {.object = "ens1f0", .name = "xps", .status = DOCTOR_WARN, .detail = "stale XPS"},
	    {.object = "host", .name = "cpufreq", .status = DOCTOR_PASS, .detail = "performance"},
	};
	struct doctor_report rep = {.checks = checks, .n_checks = 3};
	struct tune_fragment best = {0}, fr;
	struct tune_facts f = {.best = &best, .doctor = &rep};
	char *why;
	double w;

	(void)state;
	assert_int_equal(fire("irq", &f, &w, &fr, &why), 1);
	assert_float_equal(w, 40.0, 1e-9);
	assert_string_equal(why, "doctor: ens1f0: 16 of 16 misplaced");
	assert_string_equal(tune_fragment_get(&fr, "irq", "policy"), "numa-local");
	assert_int_equal(fr.n, 1); /* a policy, never a CPU list */
	free(why);
	assert_int_equal(fire("xps", &f, &w, &fr, &why), 1);
	assert_float_equal(w, 20.0, 1e-9);
	free(why);
	/* a passed check is no evidence */
	assert_int_equal(fire("cpufreq", &f, &w, &fr, &why), 0);
}

static void test_fragments(void **state)
{
	struct tune_fragment a = {0}, b = {0};
	struct json_object *j;
	char *t;

	(void)state;
	a.n = 2;
	strcpy(a.keys[0].section, "link");
	strcpy(a.keys[0].key, "mtu");
	strcpy(a.keys[0].value, "9000");
	strcpy(a.keys[1].section, "sysctl");
	strcpy(a.keys[1].key, "net.core.rmem_max");
	strcpy(a.keys[1].value, "\">= 256K\"");
	b.n = 1;
	b.keys[0] = a.keys[1];
	strcpy(b.keys[0].value, "\">= 1M\"");
	/* merge: the key of b replaces a's */
	assert_int_equal(tune_fragment_merge(&a, &b), 0);
	assert_int_equal(a.n, 2);
	assert_string_equal(tune_fragment_get(&a, "sysctl", "net.core.rmem_max"), "\">= 1M\"");
	t = tune_fragment_text(&a);
	assert_string_equal(t, "link.mtu: 9000, sysctl.net.core.rmem_max: \">= 1M\"");
	free(t);
	/* JSON: the values without YAML's quotes */
	j = tune_fragment_json(&a);
	assert_string_equal(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN),
			    "{\"link.mtu\":\"9000\",\"sysctl.net.core.rmem_max\":\">= 1M\"}");
	json_object_put(j);
	/* remove */
	tune_fragment_remove(&a, &b);
	assert_int_equal(a.n, 1);
	assert_null(tune_fragment_get(&a, "sysctl", "net.core.rmem_max"));
	/* every family is found by name, and no other */
	for (size_t i = 0; i < tune_n_rules; i++)
		assert_ptr_equal(tune_rule_find(tune_rules[i].family), &tune_rules[i]);
	assert_null(tune_rule_find("turbo"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rcvbuf),    cmocka_unit_test(test_mtu),
	    cmocka_unit_test(test_reasm),     cmocka_unit_test(test_doctor_rules),
	    cmocka_unit_test(test_fragments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
