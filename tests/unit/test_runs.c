/* test_runs.c: runs, artifacts and the mirror outbox on real SQLite files.
 *
 * Also the documented way integration tests get runs to look at (verify
 * and bench record real ones; these are the seed's three rounds, with
 * fixed figures so outputs can be compared exactly):
 *   test_runs --make-db PATH
 * creates PATH with one apply transaction and three runs ("defaults", "MTU
 * only", "MTU + IRQ + driver"), each with its artifacts and a pending
 * outbox row, through runs_record() and history_txn_create() only.
 *   test_runs --make-edge-db PATH
 * creates PATH with the runs whose printing went wrong (issue 16): a
 * 2-stream netperf run that passed, netperf and iperf3 runs that sent
 * nothing (netperf said 100% loss, iperf3 0%), a run on a drifted host and
 * an ad-hoc bench run with no interface, MTU or buffers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <sys/stat.h>

#include "store/history.h"
#include "store/outbox.h"
#include "store/runs.h"
#include "unit.h"

#define T0 1764680400000000LL /* 2025-12-02 13:00:00 UTC */

static char *dir;
static char path[128];

static struct run_artifact seed_artifacts[3][6] = {
    {
	{"runner_output",
	 "MIGRATED UDP STREAM TEST from 0.0.0.0 () port 0 AF_INET to 198.18.0.2 () port 0 AF_INET\n"
	 "212992    8000   10.00     1434567      0     9180.2\n212992           10.00      "
	 "512345             3278.6\n"},
	{"ethtool_i",
	 "driver: mlx5_core\nversion: 5.15.0-91-generic\nfirmware-version: 16.27.2008 (MT_0000000080)\n"},
	{"counters_before", "rx_discards_phy: 0\nrx_out_of_buffer: 0\n"},
	{"counters_after", "rx_discards_phy: 921234\nrx_out_of_buffer: 1044\n"},
	{"interrupts_before",
	 "           CPU0       CPU1\n 98:          5          0  mlx5_comp0@pci:0000:3b:00.0\n"},
	{"interrupts_after",
	 "           CPU0       CPU1\n 98:     981234          0  mlx5_comp0@pci:0000:3b:00.0\n"},
    },
    {
	{"runner_output", "212992    8000   10.00     1434600      0     9180.4\n212992           10.00      "
			  "1209876             7742.8\n"},
	{"ethtool_i",
	 "driver: mlx5_core\nversion: 5.15.0-91-generic\nfirmware-version: 16.27.2008 (MT_0000000080)\n"},
	{"counters_before", "rx_discards_phy: 921234\n"},
	{"counters_after", "rx_discards_phy: 1145958\n"},
	{"interrupts_before", "98: 981234 0\n"},
	{"interrupts_after", "98: 1990000 0\n"},
    },
    {
	{"runner_output",
	 "4194304   8000   10.00     3720000      0    23808.0\n4194304           10.00      "
	 "3719100            23802.2\n"},
	{"ethtool_i",
	 "driver: mlx5_core\nversion: 5.8-1.0.1\nfirmware-version: 16.35.2000 (MT_0000000080)\n"},
	{"counters_before", "rx_discards_phy: 0\n"},
	{"counters_after", "rx_discards_phy: 0\n"},
	{"interrupts_before", "98: 0 0\n"},
	{"interrupts_after", "98: 0 371910\n"},
    },
};

static struct run_record seed_runs[3] = {
    {
	.started_usec = T0,
	.ended_usec = T0 + 10000000,
	.runner = "netperf",
	.command_line = "netperf -H 198.18.0.2 -t UDP_STREAM -l 10 -- -m 8000 -s 212992 -S 212992",
	.profile = "baseline",
	.test = "UDP_STREAM",
	.ifname = "ens1f0",
	.peer = "198.18.0.2",
	.mtu = 1500,
	.message_size = 8000,
	.send_buffer = 212992,
	.recv_buffer = 212992,
	.streams = 1,
	.duration_s = 10,
	.irq_policy = "irqbalance",
	.irq_map = "mlx5_comp0-7 -> 0",
	.driver = "mlx5_core",
	.driver_version = "5.15.0-91-generic",
	.firmware_version = "16.27.2008 (MT_0000000080)",
	.sent = 1434567,
	.received = 512345,
	.lost = 922222,
	.send_mbps = 9180.2,
	.recv_mbps = 3278.6,
	.loss_pct = 64.29,
	.passed = false,
	.verdict = "recv 3278.6 Mbps < floor 23000 Mbps",
    },
    {
	.started_usec = T0 + 600000000,
	.ended_usec = T0 + 610000000,
	.runner = "netperf",
	.command_line = "netperf -H 198.18.0.2 -t UDP_STREAM -l 10 -- -m 8000 -s 212992 -S 212992",
	.profile = "mtu-jumbo",
	.test = "UDP_STREAM",
	.ifname = "ens1f0",
	.peer = "198.18.0.2",
	.mtu = 9000,
	.message_size = 8000,
	.send_buffer = 212992,
	.recv_buffer = 212992,
	.streams = 1,
	.duration_s = 10,
	.irq_policy = "irqbalance",
	.irq_map = "mlx5_comp0-7 -> 0",
	.driver = "mlx5_core",
	.driver_version = "5.15.0-91-generic",
	.firmware_version = "16.27.2008 (MT_0000000080)",
	.sent = 1434600,
	.received = 1209876,
	.lost = 224724,
	.send_mbps = 9180.4,
	.recv_mbps = 7742.8,
	.loss_pct = 15.66,
	.passed = false,
	.verdict = "recv 7742.8 Mbps < floor 23000 Mbps",
    },
    {
	.started_usec = T0 + 1200000000,
	.ended_usec = T0 + 1210000000,
	.runner = "netperf",
	.command_line = "netperf -H 198.18.0.2 -t UDP_STREAM -l 10 -- -m 8000 -s 4M -S 4M",
	.profile = "udp-jumbo",
	.profile_hash = "fnv1a64:0123456789abcdef",
	.test = "UDP_STREAM",
	.ifname = "ens1f0",
	.peer = "198.18.0.2",
	.mtu = 9000,
	.message_size = 8000,
	.send_buffer = 4194304,
	.recv_buffer = 4194304,
	.streams = 1,
	.duration_s = 10,
	.irq_policy = "numa-local",
	.irq_map = "mlx5_comp0-7 -> 8-15",
	.driver = "mlx5_core",
	.driver_version = "5.8-1.0.1",
	.firmware_version = "16.35.2000 (MT_0000000080)",
	.sent = 3720000,
	.received = 3719100,
	.lost = 900,
	.send_mbps = 23808.0,
	.recv_mbps = 23802.2,
	.loss_pct = 0.02,
	.passed = true,
	.verdict = "recv 23802.2 Mbps >= floor 23000 Mbps",
    },
};

static const struct change_record seed_changes[] = {
    {.seq = 1,
     .object = "ens1f0",
     .kind = "mtu",
     .key = "mtu",
     .old_value = "9000",
     .new_value = "9000",
     .state = CHANGE_APPLIED},
    {.seq = 2,
     .object = "irq ens1f0 q0",
     .kind = "irq",
     .key = "/proc/irq/98/smp_affinity_list",
     .old_value = "0",
     .new_value = "8",
     .state = CHANGE_APPLIED},
};

#define EDGE_RUN(...)                                                                                        \
	{                                                                                                    \
		.test = "UDP_STREAM", .peer = "198.18.0.2", .message_size = 8000, .duration_s = 2,           \
		__VA_ARGS__                                                                                  \
	}
static struct run_artifact edge_tuning[2][1] = {
    {{"host_tuning", "net.core.rmem_max: 4194304\nnet.core.wmem_max: 4194304\nnet.core.rmem_default: 212992\n"
		     "net.core.wmem_default: 212992\nnet.core.netdev_max_backlog: 1000\n"
		     "net.ipv4.udp_mem: 188010 250681 376020\nirqbalance: stopped\n"
		     "bench_cpus: 8-9\n"}},
    {{"host_tuning", "net.core.rmem_max: 212992\nnet.core.wmem_max: 212992\nnet.core.rmem_default: 212992\n"
		     "net.core.wmem_default: 212992\nnet.core.netdev_max_backlog: 1000\nirqbalance: running\n"
		     "bench_cpus: none\n"}},
};

static struct run_record edge_runs[] = {
    EDGE_RUN(.runner = "netperf", .profile = "two-streams", .ifname = "ens1f0", .mtu = 9000, .streams = 2,
	     .command_line = "netperf -H 198.18.0.2 -t UDP_STREAM -l 2 -T 8 -- -m 8000\n"
			     "netperf -H 198.18.0.2 -t UDP_STREAM -l 2 -T 9 -- -m 8000",
	     .started_usec = T0, .ended_usec = T0 + 2100000, .sent = 100, .received = 100, .send_mbps = 3.2,
	     .recv_mbps = 3.2, .passed = true, .verdict = "pass",
	     .irq_map = "ens1f0: mlx5_comp0-7 -> 8-15; ens1f1: mlx5_comp0-1 -> 24-25, mlx5_comp2-3 -> 0-15, "
			"mlx5_comp4 -> 3",
	     .artifacts = edge_tuning[0], .n_artifacts = 1),
    EDGE_RUN(.runner = "netperf", .profile = "no-peer", .streams = 1, .ifname = "ens1f0", .mtu = 9000,
	     .command_line = "netperf -H 198.18.0.2 -t UDP_STREAM -l 2 -- -m 8000",
	     .started_usec = T0 + 60000000, .ended_usec = T0 + 62000000, .loss_pct = 100,
	     .verdict = "error: netperf sent nothing"),
    EDGE_RUN(.runner = "iperf3", .profile = "no-peer", .streams = 1, .ifname = "ens1f0", .mtu = 9000,
	     .command_line = "iperf3 -c 198.18.0.2 -u -b 0 -l 8000 -t 2 --json",
	     .started_usec = T0 + 120000000, .ended_usec = T0 + 120100000, .loss_pct = 0,
	     .verdict = "error: iperf3: unable to connect"),
    EDGE_RUN(.runner = "iperf3", .profile = "drifted", .streams = 1, .ifname = "ens1f0", .mtu = 1500,
	     .command_line = "iperf3 -c 198.18.0.2 -u -b 0 -l 8000 -t 2 --json",
	     .started_usec = T0 + 180000000, .ended_usec = T0 + 182000000, .sent = 1000, .received = 990,
	     .lost = 10, .loss_pct = 1, .send_mbps = 32, .recv_mbps = 31.7, .verdict = "drift",
	     .irq_map = "mlx5_comp0-7 -> 0", .artifacts = edge_tuning[1], .n_artifacts = 1),
    EDGE_RUN(.runner = "builtin", .streams = 1,
	     .command_line = "cx5prof bench --peer 198.18.0.2 --duration 2", .started_usec = T0 + 240000000,
	     .ended_usec = T0 + 242000000, .sent = 500, .received = 500, .send_mbps = 16, .recv_mbps = 16,
	     .passed = true),
};

static int make_edge_db(const char *p)
{
	struct history *h = NULL;
	int r = history_open(p, 0, &h);

	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(edge_runs); i++)
		r = runs_record(h, &edge_runs[i], NULL);
	history_close(h);
	return r;
}

/* The seed's three rounds; the third verifies an apply transaction. */
static int make_db(const char *p)
{
	struct history *h = NULL;
	struct txn_record t = {
	    .kind = TXN_APPLY,
	    .profile_name = "udp-jumbo",
	    .profile_hash = "fnv1a64:0123456789abcdef",
	    .profile_json =
		"{\"version\":1,\"name\":\"udp-jumbo\",\"interfaces\":{\"ens1f0\":{\"mtu\":9000}}}\n",
	    .user = "root",
	    .host = "lab-a",
	    .started_usec = T0 + 1100000000,
	    .status = TXN_COMMITTED};
	int64_t txn = 0, id = 0;
	int r;

	r = history_open(p, 0, &h);
	if (r < 0)
		return r;
	for (size_t i = 0; i < 3 && r >= 0; i++) {
		if (i == 2) {
			r = history_txn_create(h, &t, seed_changes, ARRAY_SIZE(seed_changes), &txn);
			if (r < 0)
				break;
			seed_runs[i].transaction_id = txn;
		}
		seed_runs[i].artifacts = seed_artifacts[i];
		seed_runs[i].n_artifacts = ARRAY_SIZE(seed_artifacts[i]);
		r = runs_record(h, &seed_runs[i], &id);
	}
	history_close(h);
	return r;
}

static int setup(void **state)
{
	(void)state;
	dir = unit_tmpdir_new("runs");
	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/history.db", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return unit_tmpdir_free(TAKE_PTR(dir));
}

static int64_t count(struct history *h, const char *sql)
{
	sqlite3_stmt *s;
	int64_t n;

	assert_int_equal(sqlite3_prepare_v2(history_db(h), sql, -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

static void test_record_and_get(void **state)
{
	struct history *h = NULL;
	struct run_record r = {0};
	struct outbox_row o = {0};
	int64_t id;
	(void)state;

	assert_int_equal(make_db(path), 0);
	assert_int_equal(history_open(path, 0, &h), 0);
	assert_int_equal(count(h, "SELECT COUNT(*) FROM runs"), 3);
	/* 6 artifacts + command + irq_map per run */
	assert_int_equal(count(h, "SELECT COUNT(*) FROM artifacts"), 24);
	assert_int_equal(count(h, "SELECT COUNT(*) FROM outbox WHERE status = 'pending'"), 4);

	id = count(h, "SELECT MAX(id) FROM runs");
	assert_int_equal(runs_get(h, id, &r), 0);
	assert_string_equal(r.runner, "netperf");
	assert_string_equal(r.command_line,
			    "netperf -H 198.18.0.2 -t UDP_STREAM -l 10 -- -m 8000 -s 4M -S 4M");
	assert_string_equal(r.irq_map, "mlx5_comp0-7 -> 8-15");
	assert_string_equal(r.profile_hash, "fnv1a64:0123456789abcdef");
	assert_int_equal(r.mtu, 9000);
	assert_int_equal(r.send_buffer, 4194304);
	assert_int_equal(r.received, 3719100);
	assert_true(r.passed);
	assert_true(r.transaction_id > 0);
	assert_int_equal(r.started_usec, T0 + 1200000000);
	assert_int_equal(r.n_artifacts, 8);
	assert_string_equal(run_record_artifact(&r, "counters_after")->content, "rx_discards_phy: 0\n");
	assert_null(run_record_artifact(&r, "nope"));

	/* its outbox row: the run without its bulky artifacts */
	assert_int_equal(outbox_find_source(h, "run", id, &o), 1);
	assert_string_equal(o.status, "pending");
	assert_non_null(strstr(o.payload, "\"command\":\"netperf -H 198.18.0.2"));
	assert_null(strstr(o.payload, "rx_discards_phy"));
	assert_null(strstr(o.payload, "artifacts"));
	outbox_row_done(&o);
	assert_int_equal(outbox_find_source(h, "run", 999, &o), 0);

	run_record_done(&r);
	assert_int_equal(runs_get(h, 999, &r), -ENOENT);
	history_close(h);
}

static void test_list(void **state)
{
	struct history *h = NULL;
	struct run_record *v = NULL;
	size_t n = 0;
	(void)state;

	assert_int_equal(make_db(path), 0);
	assert_int_equal(history_open(path, 0, &h), 0);
	assert_int_equal(runs_list(h, 0, &v, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].profile, "udp-jumbo"); /* newest first */
	assert_string_equal(v[2].profile, "baseline");
	assert_int_equal(v[0].n_artifacts, 0);
	run_records_free(v, n);
	assert_int_equal(runs_list(h, 2, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[1].profile, "mtu-jumbo");
	run_records_free(v, n);
	history_close(h);
}

static void test_invalid(void **state)
{
	struct run_artifact bad[] = {{"../etc/passwd", "x"}};
	struct run_artifact dup[] = {{"a", "x"}, {"a", "y"}};
	struct run_record r = {.runner = "iperf3"};
	struct history *h = NULL;
	(void)state;

	assert_int_equal(history_open(path, 0, &h), 0);
	assert_int_equal(runs_record(h, &(struct run_record){0}, NULL), -EINVAL);
	r.artifacts = bad;
	r.n_artifacts = 1;
	assert_int_equal(runs_record(h, &r, NULL), -EINVAL);
	r.artifacts = dup;
	r.n_artifacts = 2;
	assert_int_equal(runs_record(h, &r, NULL), -EINVAL);
	assert_int_equal(count(h, "SELECT COUNT(*) FROM runs"), 0);
	assert_int_equal(count(h, "SELECT COUNT(*) FROM outbox"), 0);
	assert_false(run_artifact_name_valid(".hidden"));
	assert_false(run_artifact_name_valid("A"));
	assert_false(run_artifact_name_valid(""));
	assert_true(run_artifact_name_valid("interrupts_after"));
	assert_true(run_artifact_name_valid("analysis.json"));
	history_close(h);
}

/* One SQLite transaction: when the outbox insert fails, the run and its
 * artifacts are not there either. */
static void test_atomic(void **state)
{
	struct run_artifact a[] = {{"runner_output", "x"}};
	struct run_record r = {.runner = "iperf3", .artifacts = a, .n_artifacts = 1};
	struct history *h = NULL;
	int64_t id = 0;
	(void)state;

	assert_int_equal(history_open(path, 0, &h), 0);
	assert_int_equal(
	    sqlite3_exec(
		history_db(h),
		"CREATE TRIGGER no_outbox BEFORE INSERT ON outbox BEGIN SELECT RAISE(ABORT, 'x'); END", NULL,
		NULL, NULL),
	    SQLITE_OK);
	assert_true(runs_record(h, &r, &id) < 0);
	assert_int_equal(id, 0);
	assert_int_equal(count(h, "SELECT COUNT(*) FROM runs"), 0);
	assert_int_equal(count(h, "SELECT COUNT(*) FROM artifacts"), 0);
	assert_int_equal(sqlite3_exec(history_db(h), "DROP TRIGGER no_outbox", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(runs_record(h, &r, &id), 0);
	assert_true(id > 0);
	assert_int_equal(
	    count(h, "SELECT COUNT(*) FROM outbox WHERE source_kind = 'run' AND status = 'pending'"), 1);
	/* set an artifact afterwards (analyze) */
	assert_int_equal(runs_set_artifact(h, id, "analysis.json", "{}"), 0);
	assert_int_equal(runs_set_artifact(h, id, "analysis.json", "{\"a\":1}"), 0);
	assert_int_equal(count(h, "SELECT COUNT(*) FROM artifacts WHERE name = 'analysis.json'"), 1);
	assert_int_equal(runs_set_artifact(h, 999, "analysis.json", "{}"), -ENOENT);
	assert_int_equal(runs_set_artifact(h, id, "../x", "{}"), -EINVAL);
	history_close(h);
}

static void test_outbox_delivery(void **state)
{
	struct history *h = NULL, *h2 = NULL;
	struct outbox_row a = {0}, b = {0}, c = {0}, d = {0};
	int64_t now = history_now_usec(), next = -1;
	size_t pending, sent;
	(void)state;

	assert_int_equal(make_db(path), 0);
	assert_int_equal(history_open(path, 0, &h), 0);
	assert_int_equal(history_open(path, 0, &h2), 0);

	/* oldest first; a second sender does not take the claimed row */
	assert_int_equal(outbox_claim_next(h, now, false, &a), 1);
	assert_int_equal(a.id, 1);
	assert_int_equal(outbox_claim_next(h2, now, false, &b), 0);
	/* --now skips a row another sender holds */
	assert_int_equal(outbox_claim_next(h2, now, true, &c), 1);
	assert_int_equal(c.id, 2);

	/* acknowledged: sent once, never again */
	assert_int_equal(outbox_mark_sent(h, &a, "chatcmpl-1", "OK", "{\"total_tokens\":3}", now), 0);
	assert_int_equal(outbox_mark_sent(h, &a, "chatcmpl-1", "OK", NULL, now), -ESTALE);

	/* failed: stays pending with its error and its next attempt */
	assert_int_equal(outbox_mark_failed(h2, c.id, "server error (HTTP 500)", now + 2000000), 0);
	assert_int_equal(outbox_count(h, &pending, &sent, NULL), 0);
	assert_int_equal(pending, 3);
	assert_int_equal(sent, 1);
	assert_int_equal(outbox_next_attempt(h, &next), 0);
	assert_int_equal(next, now + 2000000);

	/* head of line: rows 3 and 4 are due, but wait behind row 2 */
	assert_int_equal(outbox_claim_next(h, now + 1999999, false, &d), 0);
	assert_int_equal(outbox_claim_next(h, now + 2000000, false, &d), 1);
	assert_int_equal(d.id, 2);
	assert_int_equal(d.attempts, 1);
	assert_string_equal(d.last_error, "server error (HTTP 500)");
	outbox_row_done(&a);
	outbox_row_done(&c);
	outbox_row_done(&d);
	history_close(h2);
	history_close(h);
}

/* A row set aside as failed_permanent no longer holds back the queue;
 * requeued, it goes first again. */
static void test_outbox_failed_permanent(void **state)
{
	struct history *h = NULL;
	struct outbox_row a = {0}, b = {0}, c = {0};
	int64_t now = history_now_usec();
	size_t pending, sent, failed, n = 0;
	(void)state;

	assert_int_equal(make_db(path), 0);
	assert_int_equal(history_open(path, 0, &h), 0);
	assert_int_equal(outbox_claim_next(h, now, false, &a), 1);
	assert_int_equal(a.id, 1);
	assert_int_equal(outbox_mark_failed_permanent(h, a.id, "unexpected HTTP 400"), 0);
	assert_int_equal(count(h, "SELECT status = 'failed_permanent' AND attempts = 1 AND last_error = "
				  "'unexpected HTTP 400' FROM outbox WHERE id = 1"),
			 1);
	assert_int_equal(outbox_count(h, &pending, &sent, &failed), 0);
	assert_int_equal(pending, 3);
	assert_int_equal(sent, 0);
	assert_int_equal(failed, 1);
	/* not claimed again, with or without force: the next row goes */
	assert_int_equal(outbox_claim_next(h, now, false, &b), 1);
	assert_int_equal(b.id, 2);
	/* only a pending row can be set aside */
	assert_int_equal(outbox_mark_failed_permanent(h, 1, "again"), 0);
	assert_int_equal(count(h, "SELECT attempts FROM outbox WHERE id = 1"), 1);
	/* requeued: pending, due now, its history kept */
	assert_int_equal(outbox_requeue_failed(h, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(count(h, "SELECT status = 'pending' AND next_attempt_usec = 0 AND attempts = 1 "
				  "FROM outbox WHERE id = 1"),
			 1);
	assert_int_equal(outbox_claim_next(h, now, false, &c), 1);
	assert_int_equal(c.id, 1);
	assert_int_equal(outbox_requeue_failed(h, &n), 0);
	assert_int_equal(n, 0);
	outbox_row_done(&a);
	outbox_row_done(&b);
	outbox_row_done(&c);
	history_close(h);
}

/* A transaction's payload refreshed while in flight: the sent text stays
 * on the sent row, the new text is queued again. */
static void test_outbox_refresh_in_flight(void **state)
{
	struct history *h = NULL;
	struct outbox_row o = {0}, n = {0};
	struct txn_record t = {
	    .kind = TXN_APPLY, .profile_name = "p", .user = "root", .host = "lab", .status = TXN_OPEN};
	int64_t txn, now = history_now_usec();
	(void)state;

	assert_int_equal(history_open(path, 0, &h), 0);
	assert_int_equal(history_txn_create(h, &t, seed_changes, 1, &txn), 0);
	assert_int_equal(outbox_claim_next(h, now, false, &o), 1);
	assert_string_equal(o.source_kind, "txn");
	assert_non_null(strstr(o.payload, "\"status\":\"open\""));
	assert_int_equal(history_txn_set_status(h, txn, TXN_COMMITTED, NULL), 0);
	assert_int_equal(outbox_mark_sent(h, &o, "r1", "OK", NULL, now), 0);
	assert_int_equal(
	    count(h, "SELECT COUNT(*) FROM outbox WHERE status = 'sent' AND payload LIKE '%\"open\"%'"), 1);
	assert_int_equal(outbox_claim_next(h, now, false, &n), 1);
	assert_non_null(strstr(n.payload, "\"status\":\"committed\""));
	outbox_row_done(&o);
	outbox_row_done(&n);
	history_close(h);
}

static void test_backoff(void **state)
{
	(void)state;
	assert_int_equal(outbox_backoff_usec(1, -1), 2000000);
	assert_int_equal(outbox_backoff_usec(2, -1), 4000000);
	assert_int_equal(outbox_backoff_usec(5, -1), 32000000);
	assert_int_equal(outbox_backoff_usec(40, -1), 3600000000LL);
	assert_int_equal(outbox_backoff_usec(1, 30), 30000000);
	assert_int_equal(outbox_backoff_usec(3, 1), 8000000);
	assert_int_equal(outbox_backoff_usec(1, 999999), 86400000000LL);
}

/* One rule: no datagram sent = an error run whose loss is unknown (stored
 * NULL), whatever the runner put in loss_pct (netperf 100, iperf3 0). */
static void test_nothing_sent(void **state)
{
	struct history *h = NULL;
	struct run_record r = {0};
	(void)state;

	assert_int_equal(make_edge_db(path), 0);
	assert_int_equal(history_open(path, 0, &h), 0);
	assert_int_equal(count(h, "SELECT COUNT(*) FROM runs WHERE loss_pct IS NULL"), 2);
	assert_int_equal(count(h, "SELECT COUNT(*) FROM runs WHERE sent = 0 AND loss_pct IS NOT NULL"), 0);
	for (int64_t id = 2; id <= 3; id++) {
		assert_int_equal(runs_get(h, id, &r), 0);
		assert_true(isnan(r.loss_pct));
		assert_string_equal(run_record_outcome(&r), "error");
		run_record_done(&r);
	}
	assert_int_equal(runs_get(h, 4, &r), 0);
	assert_string_equal(run_record_outcome(&r), "drift");
	assert_true(r.loss_pct == 1);
	run_record_done(&r);
	assert_int_equal(runs_get(h, 5, &r), 0);
	assert_string_equal(run_record_outcome_label(&r), "pass");
	run_record_done(&r);
	history_close(h);
}

static void test_json(void **state)
{
	struct json_object *o = run_record_to_json(&seed_runs[0], false), *p, *v;
	(void)state;

	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "parameters", &p));
	assert_true(json_object_object_get_ex(p, "mtu", &v));
	assert_int_equal(json_object_get_int(v), 1500);
	assert_false(json_object_object_get_ex(o, "artifacts", &v));
	json_object_put(o);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_record_and_get, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_list, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_invalid, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_atomic, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outbox_delivery, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outbox_refresh_in_flight, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_outbox_failed_permanent, setup, teardown),
	    cmocka_unit_test(test_backoff),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test_setup_teardown(test_nothing_sent, setup, teardown),
	};

	if (argc == 3 && streq(argv[1], "--make-db")) {
		int r = make_db(argv[2]);
		if (r < 0)
			fprintf(stderr, "test_runs: cannot create %s: %s\n", argv[2], strerror(-r));
		return r < 0 ? 1 : 0;
	}
	if (argc == 3 && streq(argv[1], "--make-edge-db")) {
		int r = make_edge_db(argv[2]);
		if (r < 0)
			fprintf(stderr, "test_runs: cannot create %s: %s\n", argv[2], strerror(-r));
		return r < 0 ? 1 : 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
