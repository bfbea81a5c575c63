/* test_runner.c: the runner table, first-available selection, the result
 * arithmetic and the process helpers (quoting, sizes, deadlines). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <netdb.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "base/child.h"
#include "bench/runner.h"
#include "os/netprobe.h"
#include "os/sysroot.h"
#include "unit.h"

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

/* The runner after the one that found no server; none after the last. */
static void test_select_after(void **state)
{
	char *names[] = {(char *)"iperf3", (char *)"builtin", NULL};
	struct runner_params p = {
	    .peer = "198.18.0.2", .duration_sec = 1, .message_size = 1400, .streams = 1};
	const struct runner *r = NULL;
	char *why = NULL;

	(void)state;
	assert_int_equal(runner_select_after(names, &runner_iperf3, &p, &r, &why), 0);
	assert_ptr_equal(r, &runner_builtin);
	assert_null(why);
	r = NULL;
	assert_int_equal(runner_select_after(names, &runner_builtin, &p, &r, &why), -ENOENT);
	assert_null(r);
	assert_null(why);
	/* a runner not in the list has no next one */
	assert_int_equal(runner_select_after(names, &runner_netperf, &p, &r, &why), -ENOENT);
	assert_null(why);
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
	assert_true(r.loss_percent == 100); /* nothing sent is no 0% loss */
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
	struct child c;

	(void)state;
	assert_int_equal(runner_find_binary("sh", &path), 0);
	assert_int_equal(child_spawn(path, echo_argv, NULL, &c), 0);
	assert_int_equal(child_wait_all(&c, 1, now_usec() + 5000000), 0);
	assert_int_equal(c.exit_status, 3);
	assert_false(c.timed_out);
	assert_string_equal(c.output, "out\nerr\n");
	child_done(&c);

	assert_int_equal(child_spawn(path, sleep_argv, NULL, &c), 0);
	assert_int_equal(child_wait_all(&c, 1, now_usec() + 300000), 0);
	assert_true(c.timed_out);
	assert_int_equal(c.exit_status, 128 + 15); /* killed at the deadline, not after its 30 s */
	assert_string_equal(c.output, "started\n");
	child_done(&c);
	free(path);
	assert_int_equal(runner_find_binary("no-such-tool-cx5", &path), -ENOENT);
	assert_int_equal(runner_find_binary("../sh", &path), -EINVAL);
}

/* A run that sent nothing is an error naming the failed sends; failed
 * sends among sent ones are a warning. */
static void test_check_sent(void **state)
{
	struct runner_params p = {
	    .peer = "198.18.0.2", .duration_sec = 1, .message_size = 1400, .streams = 1};
	struct runner_result r;

	(void)state;
	runner_result_init(&r, "netperf");
	r.send_errors = 1234;
	assert_int_equal(runner_check_sent(&p, &r), -EIO);
	assert_string_equal(r.error,
			    "netperf sent no datagram to 198.18.0.2 (1234 failed sends, netperf's "
			    "Errors column): nothing was measured; check the route to the peer "
			    "and the send buffer (ENOBUFS: raise net.core.wmem_max), then run again");
	runner_result_done(&r);

	runner_result_init(&r, "iperf3");
	assert_int_equal(runner_check_sent(&p, &r), -EIO);
	assert_string_equal(r.error, "iperf3 sent no datagram to 198.18.0.2 (0 failed sends): nothing was "
				     "measured; check the route to the peer and the send buffer (ENOBUFS: "
				     "raise net.core.wmem_max), then run again");
	runner_result_done(&r);

	runner_result_init(&r, "netperf");
	r.sent = 10;
	assert_int_equal(runner_check_sent(&p, &r), 0);
	assert_null(r.warnings);
	r.send_errors = 7;
	assert_int_equal(runner_check_sent(&p, &r), 0);
	assert_null(r.error);
	assert_string_equal(
	    r.warnings[0], "7 sends failed during the run, netperf's Errors column: the local socket refused "
			   "them (ENOBUFS: the send buffer overflowed); raise net.core.wmem_max and the send "
			   "buffer");
	runner_result_done(&r);
}

/* Clamping: the socket size the tool reports decides (Linux doubles a
 * request), whatever the sysroot's sysctl says; without one the sysctl. */
static void test_warn_clamped(void **state)
{
	char *dir = unit_tmpdir_new("clamp");
	struct runner_params p = {.peer = "198.18.0.2", .send_buffer = 4194304, .recv_buffer = 4194304};
	struct runner_result r;

	(void)state;
	assert_non_null(dir);
	assert_int_equal(unit_write(dir, "/proc/sys/net/core/wmem_max", "212992\n"), 0);
	assert_int_equal(sysroot_set(dir), 0);

	/* netperf got 2 * 4M: no warning, although the sysroot says 212992 */
	runner_result_init(&r, "netperf");
	assert_int_equal(runner_warn_clamped(&p, 8388608, 8388608, &r), 0);
	assert_null(r.warnings);
	runner_result_done(&r);

	/* netperf got less: its figure and the limit it implies */
	runner_result_init(&r, "netperf");
	assert_int_equal(runner_warn_clamped(&p, 425984, 8388608, &r), 0);
	assert_string_equal(
	    r.warnings[0],
	    "netperf reports a send socket buffer of 425984 bytes for -s 4194304 (the kernel "
	    "doubles a request: 8388608 was due): it was clamped to net.core.wmem_max 212992 on "
	    "this host; raise net.core.wmem_max to at least 4194304");
	assert_null(r.warnings[1]);
	runner_result_done(&r);

	/* no figure from the tool: the sysctl (rmem_max absent: no verdict) */
	runner_result_init(&r, "iperf3");
	assert_int_equal(runner_warn_clamped(&p, 0, 0, &r), 0);
	assert_string_equal(r.warnings[0],
			    "requested send socket buffer 4194304 (-s) exceeds net.core.wmem_max "
			    "212992 on this host: the kernel clamps it silently; raise "
			    "net.core.wmem_max to at least 4194304");
	assert_null(r.warnings[1]);
	runner_result_done(&r);
	assert_int_equal(sysroot_set(NULL), 0);
	assert_int_equal(unit_tmpdir_free(dir), 0);
}

/* The child exits but a grandchild keeps its pipe open and writes every
 * 50 ms for 60 s: the drain after the exit is bounded (1 s), not endless:
 * the wait is over while the grandchild has not reached its end (the file
 * it would then write is absent). */
static void test_drain_bounded(void **state)
{
	char *path = NULL, *dir = unit_tmpdir_new("drain");
	_cleanup_free_ char *script = NULL, *end = NULL;
	char *argv[] = {(char *)"sh", (char *)"-c", NULL, NULL};
	struct child c;

	(void)state;
	assert_non_null(dir);
	end = strprintf("%s/grandchild-ended", dir);
	script = strprintf(
	    "echo result; (for i in $(seq 1200); do echo x; sleep 0.05; done; touch %s) & exit 0", end);
	argv[2] = script;
	assert_int_equal(runner_find_binary("sh", &path), 0);
	assert_int_equal(child_spawn(path, argv, NULL, &c), 0);
	assert_int_equal(child_wait_all(&c, 1, now_usec() + 120000000), 0);
	assert_int_equal(access(end, F_OK), -1);
	assert_int_equal(c.exit_status, 0);
	assert_false(c.timed_out);
	assert_int_equal(c.out_fd, -1); /* closed: the grandchild gets SIGPIPE */
	assert_true(strncmp(c.output, "result\n", 7) == 0);
	child_done(&c);
	free(path);
	assert_int_equal(unit_tmpdir_free(dir), 0);
}

/* netprobe_tcp tries every address of a name: an IPv4-only listener is
 * found through a name whose first address (::1) refuses. The name comes
 * from a private /etc/hosts in a private mount namespace (root only). */
static void test_probe_every_address(void **state)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t l = sizeof(a);
	char hosts[] = "/tmp/cx5t-hosts.XXXXXX";
	int lfd, hfd, status;
	uint16_t port;
	pid_t pid;

	(void)state;
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(lfd >= 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(lfd, 4), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&a, &l), 0);
	port = ntohs(a.sin_port);
	assert_int_equal(netprobe_tcp("127.0.0.1", port, 1000), 0);
	assert_int_equal(netprobe_tcp("", port, 1000), -EINVAL);
	if (geteuid() != 0) {
		close(lfd);
		unit_skip("needs root: a private /etc/hosts in a mount namespace");
	}
	hfd = mkstemp(hosts);
	assert_true(hfd >= 0);
	assert_true(write(hfd, "::1 cx5t-probe\n127.0.0.1 cx5t-probe\n", 36) == 36);
	close(hfd);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
		if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount(hosts, "/etc/hosts", NULL, MS_BIND, NULL) < 0)
			_exit(77);
		/* The case of the finding: ::1 first, then 127.0.0.1. */
		if (getaddrinfo("cx5t-probe", NULL, &hints, &ai) != 0 || !ai || !ai->ai_next ||
		    ai->ai_family != AF_INET6)
			_exit(78);
		freeaddrinfo(ai);
		_exit(netprobe_tcp("cx5t-probe", port, 1000) == 0 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	unlink(hosts);
	close(lfd);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table),
	    cmocka_unit_test(test_select_unknown),
	    cmocka_unit_test(test_select_missing_binary),
	    cmocka_unit_test(test_select_after),
	    cmocka_unit_test(test_loss),
	    cmocka_unit_test(test_argv_string),
	    cmocka_unit_test(test_format_size),
	    cmocka_unit_test(test_spawn_output_and_deadline),
	    cmocka_unit_test(test_check_sent),
	    cmocka_unit_test(test_warn_clamped),
	    cmocka_unit_test(test_drain_bounded),
	    cmocka_unit_test(test_probe_every_address),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
