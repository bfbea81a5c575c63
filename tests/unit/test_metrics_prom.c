/* test_metrics_prom.c: the Prometheus text rendering of the newest runs:
 * one sample per interface/profile (the newest wins), sorted labels, base
 * units, label escaping, and the HELP/TYPE lines without any run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "store/metrics_prom.h"

static const char *const families[] = {
    "cx5prof_run_timestamp_seconds",
    "cx5prof_run_id",
    "cx5prof_run_receive_bits_per_second",
    "cx5prof_run_send_bits_per_second",
    "cx5prof_run_loss_ratio",
    "cx5prof_run_lost_datagrams",
    "cx5prof_run_passed",
};

static void test_empty(void **state)
{
	_cleanup_free_ char *text = NULL;
	char *p;

	(void)state;
	assert_int_equal(metrics_prom_render(NULL, 0, &text), 0);
	p = text;
	for (size_t i = 0; i < ARRAY_SIZE(families); i++) {
		_cleanup_free_ char *type = strprintf("# TYPE %s gauge\n", families[i]);

		p = strstr(p, type);
		assert_non_null(p);
	}
	assert_null(strchr(text, '{'));
}

static void test_newest_per_series(void **state)
{
	/* newest first, as runs_list() returns them */
	struct run_record runs[] = {
	    {.id = 9,
	     .ifname = "ens1f1",
	     .profile = "udp-jumbo",
	     .started_usec = 1764681000000000,
	     .ended_usec = 1764681002500000,
	     .recv_mbps = 23802.2,
	     .send_mbps = 23808,
	     .loss_pct = 0.02,
	     .lost = 900,
	     .passed = true},
	    {.id = 8,
	     .ifname = "ens1f0",
	     .profile = "udp-jumbo",
	     .started_usec = 1764680900000000,
	     .recv_mbps = 100.5,
	     .send_mbps = 200,
	     .loss_pct = 49.75,
	     .lost = 10},
	    {.id = 7,
	     .ifname = "ens1f1",
	     .profile = "udp-jumbo",
	     .started_usec = 1764680800000000,
	     .recv_mbps = 1,
	     .passed = true},
	    {.id = 6, .ifname = "ens1f0", .profile = NULL, .started_usec = 1764680700000000, .recv_mbps = 5},
	};
	_cleanup_free_ char *text = NULL;

	(void)state;
	assert_int_equal(metrics_prom_render(runs, ARRAY_SIZE(runs), &text), 0);
	assert_non_null(
	    strstr(text, "# HELP cx5prof_run_id History id of the newest run (cx5prof history show ID).\n"
			 "# TYPE cx5prof_run_id gauge\n"
			 "cx5prof_run_id{interface=\"ens1f0\",profile=\"\"} 6\n"
			 "cx5prof_run_id{interface=\"ens1f0\",profile=\"udp-jumbo\"} 8\n"
			 "cx5prof_run_id{interface=\"ens1f1\",profile=\"udp-jumbo\"} 9\n#"));
	assert_non_null(strstr(text,
			       "cx5prof_run_timestamp_seconds{interface=\"ens1f1\",profile=\"udp-jumbo\"} "
			       "1764681002.5\n"));
	assert_non_null(strstr(text,
			       "cx5prof_run_timestamp_seconds{interface=\"ens1f0\",profile=\"udp-jumbo\"} "
			       "1764680900\n"));
	assert_non_null(
	    strstr(text, "cx5prof_run_receive_bits_per_second{interface=\"ens1f1\",profile=\"udp-jumbo\"} "
			 "23802200000\n"));
	assert_non_null(strstr(text,
			       "cx5prof_run_send_bits_per_second{interface=\"ens1f0\",profile=\"udp-jumbo\"} "
			       "200000000\n"));
	assert_non_null(
	    strstr(text, "cx5prof_run_loss_ratio{interface=\"ens1f0\",profile=\"udp-jumbo\"} 0.4975\n"));
	assert_non_null(
	    strstr(text, "cx5prof_run_lost_datagrams{interface=\"ens1f1\",profile=\"udp-jumbo\"} 900\n"));
	assert_non_null(strstr(text, "cx5prof_run_passed{interface=\"ens1f1\",profile=\"udp-jumbo\"} 1\n"));
	assert_non_null(strstr(text, "cx5prof_run_passed{interface=\"ens1f0\",profile=\"udp-jumbo\"} 0\n"));
	assert_null(strstr(text, "} 7\n")); /* the older ens1f1 run is not reported */
}

static void test_label_escaping(void **state)
{
	struct run_record run = {
	    .id = 1, .ifname = "ens1f0", .profile = "a\\b\"c\nd", .started_usec = 1000000};
	_cleanup_free_ char *text = NULL;

	(void)state;
	assert_int_equal(metrics_prom_render(&run, 1, &text), 0);
	assert_non_null(strstr(text, "cx5prof_run_id{interface=\"ens1f0\",profile=\"a\\\\b\\\"c\\nd\"} 1\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_newest_per_series),
	    cmocka_unit_test(test_label_escaping),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
