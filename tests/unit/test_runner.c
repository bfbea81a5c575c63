/* test_runner.c: the runner table, first-available selection, the result
 * arithmetic and the process helpers (quoting, sizes, deadlines). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "runner.h"

static void test_table(void **state)
{
	(void)state;
	assert_ptr_equal(runner_find("netperf"), &runner_netperf);
	assert_ptr_equal(runner_find("iperf3"), &runner_iperf3);
	assert_ptr_equal(runner_find("builtin"), &runner_builtin);
	assert_null(runner_find("sockperf"));
	assert_null(runner_find(NULL));
	assert_int_equal(runner_netperf.default_port, 12865);
	assert_int_equal(runner_iperf3.default_port, 5201);
}

static void test_select_unknown(void **state)
{
	char *names[] = {(char *)"sockperf", NULL};
	struct runner_params p = {
	    .peer = "198.18.0.2", .duration_sec = 1, .message_size = 1400, .streams = 1};
	const struct runner *r = NULL;
	char *why = NULL;

	(void)state;
	assert_int_equal(runner_select(names, &p, &r, &why), -EINVAL);
	assert_null(r);
	assert_string_equal(why, "sockperf: unknown runner (known: netperf, iperf3, builtin)");
	free(why);
}

static void test_select_missing_binary(void **state)
{
	char *names[] = {(char *)"netperf", (char *)"iperf3", NULL};
	struct runner_params p = {
	    .peer = "198.18.0.2", .duration_sec = 1, .message_size = 1400, .streams = 1};
	const struct runner *r = NULL;
	char *why = NULL;
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

	(void)state;
	setenv("PATH", "/nonexistent", 1);
	assert_int_equal(runner_select(names, &p, &r, &why), -ENOENT);
	assert_string_equal(why, "netperf: netperf is not installed (not found in PATH)\n"
				 "iperf3: iperf3 is not installed (not found in PATH)");
	free(why);
	if (old)
		setenv("PATH", old, 1);
	free(old);
}

static void test_loss(void **state)
{
	struct runner_result r;
	struct runner_stream s[2] = {{.sent = 100, .received = 90}, {.sent = 10, .received = 12}};

	(void)state;
	runner_result_init(&r, "netperf");
	assert_string_equal(r.runner, "netperf");
	assert_true(r.sender_cpu_percent < 0);
	r.sent = 342022;
	r.received = 340379;
	r.streams = s;
	r.n_streams = 2;
	runner_result_compute_loss(&r);
	assert_int_equal(r.lost, 1643);
	assert_true(r.loss_percent > 0.48037 && r.loss_percent < 0.48039);
	assert_int_equal(s[0].lost, 10);
	assert_int_equal(s[1].lost, 0); /* more received than sent (duplicates): no negative loss */
	r.streams = NULL;
	r.n_streams = 0;
	r.sent = 0;
	r.received = 0;
	runner_result_compute_loss(&r);
	assert_true(r.loss_percent == 0);
	assert_int_equal(runner_fail(&r, ECONNREFUSED, "no server on %s", "x"), -ECONNREFUSED);
	assert_string_equal(r.error, "no server on x");
	assert_int_equal(runner_warn(&r, "w%d", 1), 0);
	assert_string_equal(r.warnings[0], "w1");
	runner_result_done(&r);
	assert_null(r.error);
}

static void test_argv_string(void **state)
{
	char *a[] = {(char *)"netperf", (char *)"-H", (char *)"198.18.0.2", (char *)"-T", (char *)"8,",
		     (char *)"--",	(char *)"-m", (char *)"8000",	    NULL};
	char *b[] = {(char *)"echo", (char *)"a b", (char *)"it's", (char *)"", (char *)"$HOME", NULL};
	char *s = NULL;

	(void)state;
	assert_int_equal(runner_argv_to_string(a, &s), 0);
	assert_string_equal(s, "netperf -H 198.18.0.2 -T 8, -- -m 8000");
	free(s);
	assert_int_equal(runner_argv_to_string(b, &s), 0);
	assert_string_equal(s, "echo 'a b' 'it'\\''s' '' '$HOME'");
	free(s);
}

static void test_format_size(void **state)
{
	char *s = NULL;

	(void)state;
	assert_int_equal(runner_format_size(4194304, &s), 0);
	assert_string_equal(s, "4M");
	free(s);
	assert_int_equal(runner_format_size(65536, &s), 0);
	assert_string_equal(s, "64K");
	free(s);
	assert_int_equal(runner_format_size(212992, &s), 0);
	assert_string_equal(s, "208K");
	free(s);
	assert_int_equal(runner_format_size(1000, &s), 0);
	assert_string_equal(s, "1000");
	free(s);
}

static void test_spawn_output_and_deadline(void **state)
{
	char *path = NULL;
	char *echo_argv[] = {(char *)"sh", (char *)"-c", (char *)"echo out; echo err >&2; exit 3", NULL};
	char *sleep_argv[] = {(char *)"sh", (char *)"-c", (char *)"echo started; exec sleep 30", NULL};
	struct runner_child c;
	uint64_t t0;

	(void)state;
	assert_int_equal(runner_find_binary("sh", &path), 0);
	assert_int_equal(runner_spawn(path, echo_argv, -1, &c), 0);
	assert_int_equal(runner_wait_all(&c, 1, now_usec() + 5000000), 0);
	assert_int_equal(c.exit_status, 3);
	assert_false(c.timed_out);
	assert_string_equal(c.output, "out\nerr\n");
	runner_child_done(&c);

	t0 = now_usec();
	assert_int_equal(runner_spawn(path, sleep_argv, -1, &c), 0);
	assert_int_equal(runner_wait_all(&c, 1, now_usec() + 300000), 0);
	assert_true(c.timed_out);
	assert_int_equal(c.exit_status, 128 + 15);
	assert_string_equal(c.output, "started\n");
	assert_true(now_usec() - t0 < 3000000);
	runner_child_done(&c);
	free(path);
	assert_int_equal(runner_find_binary("no-such-tool-cx5", &path), -ENOENT);
	assert_int_equal(runner_find_binary("../sh", &path), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table),
	    cmocka_unit_test(test_select_unknown),
	    cmocka_unit_test(test_select_missing_binary),
	    cmocka_unit_test(test_loss),
	    cmocka_unit_test(test_argv_string),
	    cmocka_unit_test(test_format_size),
	    cmocka_unit_test(test_spawn_output_and_deadline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
