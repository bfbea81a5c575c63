/* test_parse_netperf.c: netperf UDP_STREAM output, from the real samples
 * (tests/fixtures/verify/samples, captured from netperf 2.7.1 over veth)
 * and from the edge cases operators hit: -P 0, -o CSV, other -f units,
 * CPU columns, truncated output, zero elapsed time, netperf's errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>

#include "bench/parse_netperf.h"

#define SAMPLES "tests/fixtures/verify/samples/"

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

static void test_sample_m1400(void **state)
{
	_cleanup_free_ char *t = slurp(SAMPLES "netperf-udp-stream-m1400.txt");
	struct netperf_report r;

	(void)state;
	assert_int_equal(parse_netperf(t, &r), 0);
	assert_int_equal(r.send_socket, 4194304);
	assert_int_equal(r.recv_socket, 4194304);
	assert_int_equal(r.message_size, 1400);
	assert_near(r.elapsed_sec, 5.00);
	assert_int_equal(r.sent, 459947);
	assert_int_equal(r.send_errors, 0);
	assert_int_equal(r.received, 459947);
	assert_near(r.send_mbps, 1030.21);
	assert_near(r.recv_mbps, 1030.21);
	assert_string_equal(r.unit, "10^6bits/sec");
}

static void test_sample_m8000_loss(void **state)
{
	_cleanup_free_ char *t = slurp(SAMPLES "netperf-udp-stream-m8000-loss.txt");
	struct netperf_report r;

	(void)state;
	assert_int_equal(parse_netperf(t, &r), 0);
	assert_int_equal(r.send_socket, 8388608);
	assert_int_equal(r.message_size, 8000);
	assert_int_equal(r.sent, 342022);
	assert_int_equal(r.received, 340379);
	assert_int_equal(r.sent - r.received, 1643); /* lost */
	assert_near(r.send_mbps, 4377.65);
	assert_near(r.recv_mbps, 4356.62);
}

static void test_sample_P0(void **state)
{
	_cleanup_free_ char *t = slurp(SAMPLES "netperf-udp-stream-P0.txt");
	struct netperf_report r;

	(void)state;
	assert_int_equal(parse_netperf(t, &r), 0);
	assert_int_equal(r.send_socket, 8388608);
	assert_int_equal(r.message_size, 8000);
	assert_near(r.elapsed_sec, 3.00);
	assert_int_equal(r.sent, 241861);
	assert_int_equal(r.received, 241861);
	assert_near(r.send_mbps, 5159.36);
	assert_near(r.recv_mbps, 5159.36);
	assert_string_equal(r.unit, ""); /* not printed: netperf's default assumed */
}

static void test_sample_omni_csv(void **state)
{
	_cleanup_free_ char *t = slurp(SAMPLES "netperf-udp-stream-omni-o.txt");
	struct netperf_report r;

	(void)state;
	assert_int_equal(parse_netperf(t, &r), 0);
	assert_int_equal(r.sent, 348778);
	assert_int_equal(r.received, 344649);
	assert_near(r.elapsed_sec, 3.00);
	assert_near(r.send_mbps, 7440.10);
	assert_near(r.recv_mbps, 7352.02);
	assert_string_equal(r.unit, "10^6bits/s");
	assert_int_equal(r.send_socket, 0); /* not in the -o list */
}

static void test_sample_no_netserver(void **state)
{
	_cleanup_free_ char *t = slurp(SAMPLES "netperf-no-netserver.txt");
	struct netperf_report r = {.sent = 42};

	(void)state;
	assert_int_equal(parse_netperf(t, &r), -ECONNREFUSED);
	assert_int_equal(r.sent, 42); /* untouched on failure */
}

static void test_unresolvable(void **state)
{
	struct netperf_report r;

	(void)state;
	assert_int_equal(
	    parse_netperf("complete_addrinfo: could not resolve host 'nohost' port '12865' af 0\n"
			  "\tgetaddrinfo returned -2 Name or service not known\n",
			  &r),
	    -EHOSTUNREACH);
}

static const char header_fmt[] =
    "MIGRATED UDP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 198.18.0.2 () port 0 AF_INET\n"
    "Socket  Message  Elapsed      Messages                \n"
    "Size    Size     Time         Okay Errors   Throughput\n"
    "bytes   bytes    secs            #      #   %s\n\n";

static int parse_with_unit(const char *unit, const char *tput1, const char *tput2, struct netperf_report *r)
{
	_cleanup_free_ char *head = strprintf(header_fmt, unit);
	_cleanup_free_ char *t = strprintf("%s8388608    8000   5.00       342022      7    %s\n"
					   "8388608           5.00       340379           %s\n\n",
					   head, tput1, tput2);
	return parse_netperf(t, r);
}

static void test_units(void **state)
{
	struct netperf_report r;

	(void)state;
	assert_int_equal(parse_with_unit("10^9bits/sec", "4.37765", "4.35662", &r), 0);
	assert_near(r.send_mbps, 4377.65);
	assert_near(r.recv_mbps, 4356.62);
	assert_int_equal(r.send_errors, 7);
	assert_int_equal(parse_with_unit("10^3bits/sec", "4377650", "4356620", &r), 0);
	assert_near(r.send_mbps, 4377.65);
	assert_int_equal(parse_with_unit("10^0bits/sec", "4377650000", "4356620000", &r), 0);
	assert_near(r.recv_mbps, 4356.62);
	/* netperf's K/M/G bytes are 1024-based: 1024 KBytes/s = 8.388608 Mbit/s */
	assert_int_equal(parse_with_unit("KBytes/sec", "1024", "512", &r), 0);
	assert_near(r.send_mbps, 8.388608);
	assert_near(r.recv_mbps, 4.194304);
	assert_int_equal(parse_with_unit("MBytes/sec", "1", "0.5", &r), 0);
	assert_near(r.send_mbps, 8.388608);
	assert_int_equal(parse_with_unit("GBytes/sec", "1", "1", &r), 0);
	assert_near(r.send_mbps, 8589.934592);
	assert_int_equal(parse_with_unit("Bytes/sec", "1000000", "125000", &r), 0);
	assert_near(r.send_mbps, 8.0);
	assert_near(r.recv_mbps, 1.0);
	assert_string_equal(r.unit, "Bytes/sec");
	assert_int_equal(parse_with_unit("Trans/sec", "1", "1", &r), -EPROTONOSUPPORT);
}

static void test_unit_factor(void **state)
{
	double f;

	(void)state;
	assert_int_equal(netperf_unit_factor("10^6bits/s", &f), 0);
	assert_near(f, 1.0);
	assert_int_equal(netperf_unit_factor("10^6bits", &f), 0);
	assert_int_equal(netperf_unit_factor("10^6bits/min", &f), -EPROTONOSUPPORT);
	assert_int_equal(netperf_unit_factor("Mbits/sec", &f), -EPROTONOSUPPORT);
}

static void test_cpu_columns(void **state)
{
	/* -c -C adds CPU utilisation and service demand columns. */
	const char *t =
	    "MIGRATED UDP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 198.18.0.2 () port 0 AF_INET\n"
	    "Socket  Message  Elapsed      Messages                   CPU      Service\n"
	    "Size    Size     Time         Okay Errors   Throughput   Util     Demand\n"
	    "bytes   bytes    secs            #      #   10^6bits/sec % SS     us/KB\n\n"
	    "212992    1400   10.00     8106410      0     9078.91    25.55    1.844 \n"
	    "212992           10.00     8090611            9061.22    25.51    1.845 \n\n";
	struct netperf_report r;

	(void)state;
	assert_int_equal(parse_netperf(t, &r), 0);
	assert_int_equal(r.sent, 8106410);
	assert_int_equal(r.received, 8090611);
	assert_near(r.send_mbps, 9078.91);
	assert_near(r.recv_mbps, 9061.22);
}

static void test_truncated(void **state)
{
	_cleanup_free_ char *t = slurp(SAMPLES "netperf-udp-stream-m8000-loss.txt");
	struct netperf_report r;
	char *cut;

	(void)state;
	/* Cut after the sender line: no receiver line. */
	cut = strstr(t, "8388608           5.00");
	assert_non_null(cut);
	*cut = '\0';
	assert_int_equal(parse_netperf(t, &r), -ENODATA);
	/* Cut inside the sender line. */
	cut = strstr(t, "      0    4377.65");
	assert_non_null(cut);
	*cut = '\0';
	assert_int_equal(parse_netperf(t, &r), -ENODATA);
	/* Cut inside the receiver line. */
	assert_int_equal(
	    parse_netperf("8388608    8000   5.00       342022      0    4377.65\n8388608           5.00",
			  &r),
	    -ENODATA);
	/* Header only, and nothing at all. */
	assert_int_equal(
	    parse_netperf("MIGRATED UDP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0\nSocket  Message  Elapsed",
			  &r),
	    -EBADMSG);
	assert_int_equal(parse_netperf("", &r), -EBADMSG);
	assert_int_equal(parse_netperf(NULL, &r), -EINVAL);
}

static void test_zero_elapsed(void **state)
{
	struct netperf_report r;

	(void)state;
	assert_int_equal(parse_netperf("8388608    8000   0.00       0      0    0.00\n"
				       "8388608           0.00       0           0.00\n",
				       &r),
			 -EDOM);
	assert_int_equal(parse_netperf("8388608    8000   0.00       10      0    inf\n"
				       "8388608           0.00       10           -nan\n",
				       &r),
			 -EDOM);
}

static void test_csv_forms(void **state)
{
	struct netperf_report r;
	char t[512];

	(void)state;
	/* Output selector names instead of titles, another unit. */
	snprintf(t, sizeof(t),
		 "THROUGHPUT,THROUGHPUT_UNITS,LOCAL_SEND_CALLS,REMOTE_RECV_CALLS,ELAPSED_TIME\n"
		 "5.5,10^9bits/s,100,90,2.00\n");
	assert_int_equal(parse_netperf(t, &r), 0);
	assert_near(r.recv_mbps, 5500.0);
	assert_near(r.send_mbps, 0.0); /* not in the list */
	assert_int_equal(r.sent, 100);
	assert_int_equal(r.received, 90);
	/* Values row missing or cut short. */
	snprintf(t, sizeof(t),
		 "Throughput,Throughput Units,Local Send Calls,Remote Recv Calls,Elapsed Time (sec)\n");
	assert_int_equal(parse_netperf(t, &r), -ENODATA);
	snprintf(t, sizeof(t),
		 "Throughput,Throughput Units,Local Send Calls,Remote Recv Calls,Elapsed Time (sec)\n"
		 "7352.02,10^6bits/s,348778");
	assert_int_equal(parse_netperf(t, &r), -ENODATA);
	/* A list without the counts a loss figure needs. */
	snprintf(t, sizeof(t), "Throughput,Throughput Units\n7352.02,10^6bits/s\n");
	assert_int_equal(parse_netperf(t, &r), -EBADMSG);
	/* Zero elapsed time in CSV. */
	snprintf(t, sizeof(t),
		 "Throughput,Local Send Calls,Remote Recv Calls,Elapsed Time (sec)\n0,0,0,0.00\n");
	assert_int_equal(parse_netperf(t, &r), -EDOM);
}

/* A negative figure is no measurement: refused, naming the figure
 * (review finding: "-5.0" throughput made a threshold n/a, a verify pass). */
static void test_negative_figures(void **state)
{
	struct netperf_report r;
	const char *field = NULL;
	char t[512];

	(void)state;
	assert_int_equal(parse_with_unit("10^6bits/sec", "-4377.65", "4356.62", &r), -EDOM);
	assert_int_equal(parse_netperf_field("8388608    8000   5.00       342022      0    -4377.65\n"
					     "8388608           5.00       340379           4356.62\n",
					     &r, &field),
			 -EDOM);
	assert_string_equal(field, "sender throughput");
	field = NULL;
	assert_int_equal(parse_netperf_field("8388608    8000   5.00       342022      0    4377.65\n"
					     "8388608           5.00       340379           -1.00\n",
					     &r, &field),
			 -EDOM);
	assert_string_equal(field, "receiver throughput");
	field = NULL;
	assert_int_equal(parse_netperf_field("8388608    8000   5.00       -5      0    4377.65\n"
					     "8388608           5.00       340379           4356.62\n",
					     &r, &field),
			 -EDOM);
	assert_string_equal(field, "sender Okay messages");
	field = NULL;
	assert_int_equal(parse_netperf_field("8388608    8000   5.00       342022      0    4377.65\n"
					     "8388608           5.00       -340379           4356.62\n",
					     &r, &field),
			 -EDOM);
	assert_string_equal(field, "receiver Okay messages");
	/* CSV: the column title as netperf printed it. */
	field = NULL;
	snprintf(t, sizeof(t),
		 "Throughput,Throughput Units,Local Send Calls,Remote Recv Calls,Elapsed Time (sec)\n"
		 "-7352.02,10^6bits/s,348778,344649,10.00\n");
	assert_int_equal(parse_netperf_field(t, &r, &field), -EDOM);
	assert_string_equal(field, "Throughput");
	field = NULL;
	snprintf(t, sizeof(t),
		 "THROUGHPUT,LOCAL_SEND_CALLS,REMOTE_RECV_CALLS,ELAPSED_TIME,LOCAL_SEND_THROUGHPUT\n"
		 "7352.02,348778,344649,10.00,-1\n");
	assert_int_equal(parse_netperf_field(t, &r, &field), -EDOM);
	assert_string_equal(field, "Local Send Throughput");
	snprintf(t, sizeof(t),
		 "Throughput,Local Send Calls,Remote Recv Calls,Elapsed Time (sec)\n7352.02,-3,0,10.00\n");
	assert_int_equal(parse_netperf_field(t, &r, NULL), -EDOM);
}

/* "Okay 0" parses as what netperf printed (the runner refuses the run). */
static void test_nothing_sent_parses(void **state)
{
	struct netperf_report r;

	(void)state;
	assert_int_equal(parse_netperf("8388608    8000   5.00       0      1234    0.00\n"
				       "8388608           5.00       0           0.00\n",
				       &r),
			 0);
	assert_int_equal(r.sent, 0);
	assert_int_equal(r.send_errors, 1234);
	assert_int_equal(r.received, 0);
	assert_near(r.recv_mbps, 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sample_m1400),
	    cmocka_unit_test(test_sample_m8000_loss),
	    cmocka_unit_test(test_sample_P0),
	    cmocka_unit_test(test_sample_omni_csv),
	    cmocka_unit_test(test_sample_no_netserver),
	    cmocka_unit_test(test_unresolvable),
	    cmocka_unit_test(test_units),
	    cmocka_unit_test(test_unit_factor),
	    cmocka_unit_test(test_cpu_columns),
	    cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_zero_elapsed),
	    cmocka_unit_test(test_csv_forms),
	    cmocka_unit_test(test_negative_figures),
	    cmocka_unit_test(test_nothing_sent_parses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
