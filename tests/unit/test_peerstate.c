/* test_peerstate.c: the document of the peer's state (peerstate.h): facts
 * before the run, each drop counter's rise and each CPU's interrupt and
 * softirq share over it, unknown facts as null, and the report's lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "bench/peerstate.h"

static void fill(struct udpb_state *s, uint64_t drops, uint64_t irq0, uint64_t irq1, uint64_t soft1,
		 uint64_t total)
{
	memset(s, 0, sizeof(*s));
	s->present = UDPB_STATE_MTU | UDPB_STATE_RMEM_MAX;
	s->mtu = 9000;
	s->rmem_max = 4194304;
	strcpy(s->ifname, "ens1f0");
	strcpy(s->driver, "mlx5_core");
	strcpy(s->driver_version, "5.8-1.0.1");
	s->ncounters = 1;
	strcpy(s->counter[0].name, "rx_out_of_buffer");
	s->counter[0].value = drops;
	s->ncpus = 3;
	s->cpu[0] = (struct udpb_state_cpu){.cpu = 0, .softirq = 10, .total = total, .irqs = irq0};
	s->cpu[1] = (struct udpb_state_cpu){.cpu = 1, .softirq = soft1, .total = total, .irqs = irq1};
	s->cpu[2] = (struct udpb_state_cpu){.cpu = 2, .softirq = 5, .total = total, .irqs = 0};
}

static const char *str(struct json_object *o, const char *key)
{
	struct json_object *v;

	assert_true(json_object_object_get_ex(o, key, &v));
	return v ? json_object_get_string(v) : NULL;
}

static void test_before_and_after(void **state)
{
	static struct udpb_state b, a;
	struct json_object *doc, *arr, *c;

	(void)state;
	fill(&b, 100, 50, 1000, 20, 1000);
	fill(&a, 1300, 50, 4000, 420, 2000);
	doc = peerstate_to_json(&b, &a);
	assert_non_null(doc);
	assert_string_equal(str(doc, "interface"), "ens1f0");
	assert_string_equal(str(doc, "driver_version"), "5.8-1.0.1");
	assert_null(str(doc, "firmware")); /* unknown: null, never "" */
	assert_string_equal(str(doc, "mtu"), "9000");
	assert_null(str(doc, "speed_mbps"));
	assert_null(str(doc, "rings"));

	assert_true(json_object_object_get_ex(doc, "drop_counters", &arr));
	assert_int_equal(json_object_array_length(arr), 1);
	c = json_object_array_get_idx(arr, 0);
	assert_string_equal(str(c, "name"), "rx_out_of_buffer");
	assert_string_equal(str(c, "delta"), "1200");

	/* CPU 0 took no interrupt and no softirq time: left out. CPU 1 took
	 * every interrupt (3000) and 400 of 1000 jiffies in softirq. */
	assert_true(json_object_object_get_ex(doc, "cpus", &arr));
	assert_int_equal(json_object_array_length(arr), 1);
	c = json_object_array_get_idx(arr, 0);
	assert_string_equal(str(c, "cpu"), "1");
	assert_string_equal(str(c, "interrupts"), "3000");
	assert_float_equal(json_object_get_double(json_object_object_get(c, "irq_percent")), 100.0, 1e-9);
	assert_float_equal(json_object_get_double(json_object_object_get(c, "softirq_percent")), 40.0, 1e-9);

	char *line = peerstate_summary(doc);
	assert_string_equal(line,
			    "ens1f0: driver mlx5_core 5.8-1.0.1, firmware n/a, mtu 9000, rmem_max 4194304");
	free(line);
	json_object_put(doc);
}

/* The NIC's model from its pci_id: the name when cx5prof knows the device,
 * else the id itself. */
static void test_summary_model(void **state)
{
	static struct udpb_state b;
	struct json_object *doc;
	char *line;

	(void)state;
	fill(&b, 1, 2, 3, 4, 5);
	strcpy(b.pci_id, "15b3:1017");
	doc = peerstate_to_json(&b, NULL);
	line = peerstate_summary(doc);
	assert_string_equal(line, "ens1f0: ConnectX-5, driver mlx5_core 5.8-1.0.1, firmware n/a, mtu 9000, "
				  "rmem_max 4194304");
	free(line);
	json_object_put(doc);

	strcpy(b.pci_id, "15b3:abcd");
	doc = peerstate_to_json(&b, NULL);
	line = peerstate_summary(doc);
	assert_string_equal(line,
			    "ens1f0: PCI 15b3:abcd, driver mlx5_core 5.8-1.0.1, firmware n/a, mtu 9000, "
			    "rmem_max 4194304");
	free(line);
	json_object_put(doc);
}

static void test_before_only(void **state)
{
	static struct udpb_state b;
	struct json_object *doc, *v;

	(void)state;
	fill(&b, 1, 2, 3, 4, 5);
	doc = peerstate_to_json(&b, NULL);
	assert_true(json_object_object_get_ex(doc, "drop_counters", &v));
	assert_null(v); /* no answer after the run: no changes to report */
	assert_true(json_object_object_get_ex(doc, "cpus", &v));
	assert_null(v);
	json_object_put(doc);
	assert_null(peerstate_summary(NULL));
}

/* A counter that went backwards (a driver reset) rises by 0, not 2^64. */
static void test_counter_reset(void **state)
{
	static struct udpb_state b, a;
	struct json_object *doc, *arr;

	(void)state;
	fill(&b, 500, 0, 0, 0, 100);
	fill(&a, 7, 0, 0, 0, 200);
	doc = peerstate_to_json(&b, &a);
	assert_true(json_object_object_get_ex(doc, "drop_counters", &arr));
	assert_string_equal(str(json_object_array_get_idx(arr, 0), "delta"), "0");
	json_object_put(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_before_and_after),
	    cmocka_unit_test(test_summary_model),
	    cmocka_unit_test(test_before_only),
	    cmocka_unit_test(test_counter_reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
