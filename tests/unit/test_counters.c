/* test_counters.c: the watched drop counters: picked from a driver's full
 * list, the dump kept as evidence, rises found and explained, resets and
 * absent counters handled. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "os/counters.h"

static void test_table(void **state)
{
	size_t n;
	const struct counter_def *d = counter_defs(&n);

	(void)state;
	assert_int_equal(n, 7);
	assert_string_equal(d[0].name, "rx_discards_phy");
	assert_string_equal(counter_def_find("rx_out_of_buffer")->meaning,
			    "a receive queue had no software buffers: the host did not keep up (CPU/IRQ)");
	assert_null(counter_def_find("rx_packets"));
	for (size_t i = 0; i < n; i++) {
		assert_non_null(d[i].meaning);
		assert_non_null(d[i].remedy);
	}
}

static void test_diff(void **state)
{
	struct eth_stat before[] = {
	    {"rx_packets", 1000},
	    {"rx_out_of_buffer", 5},
	    {"rx_discards_phy", 7},
	    {"rx_crc_errors_phy", 9},
	};
	struct eth_stat after[] = {
	    {"rx_packets", 9000},
	    {"rx_out_of_buffer", 125},
	    {"rx_discards_phy", 7},
	    {"rx_crc_errors_phy", 2},
	};
	struct counter_snapshot a, b;
	struct counter_delta *d = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(counters_from_stats(before, 4, &b), 0);
	assert_int_equal(counters_from_stats(after, 4, &a), 0);
	assert_string_equal(
	    b.dump, "rx_packets: 1000\nrx_out_of_buffer: 5\nrx_discards_phy: 7\nrx_crc_errors_phy: 9\n");
	assert_int_equal(counters_diff(&b, &a, &d, &n), 0);
	assert_int_equal(n, 3); /* in table order; rx_packets is not watched */
	assert_string_equal(d[0].def->name, "rx_discards_phy");
	assert_false(d[0].rising);
	assert_string_equal(d[1].def->name, "rx_out_of_buffer");
	assert_true(d[1].rising);
	assert_int_equal(d[1].delta, 120);
	assert_string_equal(d[2].def->name, "rx_crc_errors_phy");
	assert_false(d[2].rising); /* went backwards: a reset, not a rise */
	assert_int_equal(d[2].delta, 0);
	free(d);
	counter_snapshot_done(&a);
	counter_snapshot_done(&b);
}

static void test_unavailable(void **state)
{
	struct counter_snapshot ok, bad = {.r = -EOPNOTSUPP};
	struct counter_delta *d = NULL;
	size_t n = 42;

	(void)state;
	assert_int_equal(counters_from_stats(NULL, 0, &ok), 0);
	assert_int_equal(counters_diff(&ok, &bad, &d, &n), 0);
	assert_int_equal(n, 0);
	free(d);
	counter_snapshot_done(&ok);
	assert_int_equal(counters_snapshot("no-such-if0", &bad), -ENODEV);
	assert_int_equal(bad.r, -ENODEV);
	assert_null(bad.dump);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table),
	    cmocka_unit_test(test_diff),
	    cmocka_unit_test(test_unavailable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
