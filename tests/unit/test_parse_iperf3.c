/* test_parse_iperf3.c: iperf3 --json UDP results, from the real sample
 * (iperf3 3.12 over veth, tests/fixtures/verify/samples) and real error
 * documents captured from iperf3 3.12 (refused, busy), plus the older
 * end.sum-only layout, truncated JSON and zero elapsed time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <math.h>

#include "bench/parse_iperf3.h"

#define FIXTURES "tests/fixtures/verify/"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int c;

	assert_non_null(f);
	m = open_memstream(&buf, &len);
	assert_non_null(m);
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(f);
	fclose(m);
	return buf;
}

#define assert_near(a, b) assert_true(fabs((a) - (b)) < 1e-6)

static void test_sample(void **state)
{
	_cleanup_free_ char *t = slurp(FIXTURES "samples/iperf3-udp.json");
	struct iperf3_report r;
	char *err = (char *)"x";

	(void)state;
	assert_int_equal(parse_iperf3(t, &r, &err), 0);
	assert_null(err);
	assert_string_equal(r.version, "iperf 3.12");
	assert_true(r.has_sum_received);
	assert_int_equal(r.blksize, 8000);
	assert_int_equal(r.sent, 459830);
	assert_int_equal(r.received, 450676);		    /* 459823 - 9147: packets minus gaps */
	assert_int_equal(r.received * 8000, 3605408000ULL); /* = sum_received.bytes */
	assert_int_equal(r.lost_packets, 9147);
	assert_near(r.lost_percent, 1.9892134049540047);
	assert_near(r.send_mbps, 9809.5922214240837);
	assert_near(r.recv_mbps, 9614.02395367658);
	assert_near(r.elapsed_sec, 3.000124);
	assert_int_equal(r.sndbuf_actual, 212992);
	assert_int_equal(r.rcvbuf_actual, 212992);
	assert_near(r.host_cpu_percent, 99.8244097412165);
	assert_near(r.remote_cpu_percent, 95.937426982647153);
	assert_int_equal(r.n_streams, 1);
	assert_int_equal(r.streams[0].sent, 459830);
	assert_int_equal(r.streams[0].received, 450683);
	assert_near(r.streams[0].send_mbps, 9809.5922214240837);
	iperf3_report_done(&r);
}

/* The sample as an older iperf3 prints it: no sum_sent/sum_received. */
static void test_fallback_sum(void **state)
{
	_cleanup_free_ char *t = slurp(FIXTURES "samples/iperf3-udp.json");
	struct json_object *root = json_tokener_parse(t), *end;
	struct iperf3_report r;

	(void)state;
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "end", &end));
	json_object_object_del(end, "sum_sent");
	json_object_object_del(end, "sum_received");
	assert_int_equal(parse_iperf3(json_object_to_json_string(root), &r, NULL), 0);
	json_object_put(root);
	assert_false(r.has_sum_received);
	assert_int_equal(r.sent, 459830);
	assert_int_equal(r.received, 450683); /* 459830 - 9147 */
	assert_int_equal(r.lost_packets, 9147);
	assert_near(r.send_mbps, 9809.5922214240837);
	assert_near(r.recv_mbps, 9809.5922214240837 * 450683 / 459830);
	assert_near(r.elapsed_sec, 3.000124);
	iperf3_report_done(&r);
}

static void test_refused(void **state)
{
	_cleanup_free_ char *t = slurp(FIXTURES "iperf3-refused.json");
	_cleanup_free_ char *err = NULL;
	struct iperf3_report r = {.sent = 7};

	(void)state;
	assert_int_equal(parse_iperf3(t, &r, &err), -ECONNREFUSED);
	assert_string_equal(err, "unable to connect to server: Connection refused");
	assert_int_equal(r.sent, 7);
}

static void test_busy(void **state)
{
	_cleanup_free_ char *t = slurp(FIXTURES "iperf3-busy.json");
	_cleanup_free_ char *err = NULL;
	struct iperf3_report r;

	(void)state;
	assert_int_equal(parse_iperf3(t, &r, &err), -EBUSY);
	assert_string_equal(err, "the server is busy running a test. try again later");
}

static void test_plain_errors(void **state)
{
	struct iperf3_report r;
	char *err = NULL;

	(void)state;
	assert_int_equal(
	    parse_iperf3("iperf3: error - unable to connect to server: Connection refused\n", &r, &err),
	    -ECONNREFUSED);
	assert_string_equal(err, "unable to connect to server: Connection refused");
	free(err);
	assert_int_equal(
	    parse_iperf3("iperf3: error - unable to set CPU affinity: Invalid argument\n", &r, &err), -EIO);
	assert_string_equal(err, "unable to set CPU affinity: Invalid argument");
	free(err);
	assert_int_equal(parse_iperf3("{\"start\":{},\"error\":\"some new failure\"}", &r, &err), -EIO);
	assert_string_equal(err, "some new failure");
	free(err);
	assert_int_equal(parse_iperf3("", &r, &err), -EBADMSG);
	assert_null(err);
	assert_int_equal(parse_iperf3(NULL, &r, NULL), -EINVAL);
}

static void test_truncated(void **state)
{
	_cleanup_free_ char *t = slurp(FIXTURES "samples/iperf3-udp.json");
	struct iperf3_report r;

	(void)state;
	t[strlen(t) / 2] = '\0';
	assert_int_equal(parse_iperf3(t, &r, NULL), -EBADMSG);
	assert_int_equal(parse_iperf3("{\"start\":{},\"intervals\":[]}", &r, NULL), -ENODATA);
	assert_int_equal(parse_iperf3("{\"end\":{\"sum\":{\"packets\":\"many\"}}}", &r, NULL), -ENODATA);
	assert_int_equal(parse_iperf3("[1,2]", &r, NULL), -EBADMSG);
}

static void test_zero_elapsed(void **state)
{
	struct iperf3_report r;

	(void)state;
	assert_int_equal(
	    parse_iperf3("{\"end\":{\"sum\":{\"packets\":0,\"lost_packets\":0,\"bits_per_second\":0,"
			 "\"seconds\":0}}}",
			 &r, NULL),
	    -EDOM);
}

static void test_warning_before_json(void **state)
{
	struct iperf3_report r;

	(void)state;
	assert_int_equal(
	    parse_iperf3(
		"warning: UDP block size 8000 exceeds TCP MSS 1448, may result in fragmentation / drops\n"
		"{\"end\":{\"sum\":{\"packets\":100,\"lost_packets\":10,\"bits_per_second\":8e6,"
		"\"seconds\":1}}}",
		&r, NULL),
	    0);
	assert_int_equal(r.sent, 100);
	assert_int_equal(r.received, 90);
	assert_near(r.send_mbps, 8.0);
	assert_near(r.recv_mbps, 7.2);
	iperf3_report_done(&r);
}

/* A negative rate is no measurement: refused, naming where it was. */
static void test_negative_rate(void **state)
{
	struct iperf3_report r;
	char *err = NULL;

	(void)state;
	assert_int_equal(parse_iperf3("{\"end\":{\"sum_sent\":{\"packets\":100,\"bits_per_second\":8e6},"
				      "\"sum_received\":{\"packets\":100,\"lost_packets\":0,"
				      "\"bits_per_second\":-8e6,\"seconds\":1}}}",
				      &r, &err),
			 -EDOM);
	assert_string_equal(err, "negative bits_per_second in end.sum_received");
	free(err);
	err = NULL;
	assert_int_equal(parse_iperf3("{\"end\":{\"sum\":{\"packets\":100,\"lost_packets\":10,"
				      "\"bits_per_second\":-1,\"seconds\":1}}}",
				      &r, &err),
			 -EDOM);
	assert_string_equal(err, "negative bits_per_second in end.sum");
	free(err);
}

/* Fuzzing found it: a damaged lost_percent ("1e3082...") parsed as
 * infinity; the percentage is then computed from the counts. */
static void test_lost_percent_out_of_range(void **state)
{
	struct iperf3_report r;
	char *err = NULL;

	(void)state;
	assert_int_equal(parse_iperf3("{\"end\":{\"sum_sent\":{\"packets\":200,\"bits_per_second\":8e6},"
				      "\"sum_received\":{\"packets\":200,\"lost_packets\":50,"
				      "\"bits_per_second\":6e6,\"seconds\":1,\"lost_percent\":1e3082}}}",
				      &r, &err),
			 0);
	assert_near(r.lost_percent, 25.0);
	assert_int_equal(parse_iperf3("{\"end\":{\"sum\":{\"packets\":100,\"lost_packets\":10,"
				      "\"bits_per_second\":1e6,\"seconds\":1,\"lost_percent\":-3}}}",
				      &r, &err),
			 0);
	assert_near(r.lost_percent, 10.0);
	/* an infinite stream rate ("1e999") is no figure: the stream is left out */
	assert_int_equal(
	    parse_iperf3(
		"{\"end\":{\"streams\":[{\"udp\":{\"packets\":100,\"bits_per_second\":1e999}}],"
		"\"sum\":{\"packets\":100,\"lost_packets\":10,\"bits_per_second\":1e6,\"seconds\":1}}}",
		&r, &err),
	    0);
	assert_int_equal(r.n_streams, 0);
	iperf3_report_done(&r);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sample),	  cmocka_unit_test(test_fallback_sum),
	    cmocka_unit_test(test_refused),	  cmocka_unit_test(test_busy),
	    cmocka_unit_test(test_plain_errors),  cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_zero_elapsed),  cmocka_unit_test(test_warning_before_json),
	    cmocka_unit_test(test_negative_rate), cmocka_unit_test(test_lost_percent_out_of_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
