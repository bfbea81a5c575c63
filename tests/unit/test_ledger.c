/* test_ledger.c: ledger.h's arithmetic on snapshots built here: the idle
 * rate subtracted, the views of one stage (the larger kept), the
 * attribution from the receiver back (one drop seen by several counters
 * counts once), the lines adding up, the bottleneck lines (a stage, the
 * sender, the path, an unknown receiver) and the document read back. The
 * kernel's own counters are exercised by the lab tests (130-139). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "ledger/ledger.h"

struct snap {
	struct netcounters idle, before, after;
};

/* Set a counter in the three snapshots: idle value, before, after. */
static void set3(struct snap *s, const char *name, uint64_t idle, uint64_t before, uint64_t after)
{
	assert_int_equal(netcounters_set(&s->idle, name, idle), 0);
	assert_int_equal(netcounters_set(&s->before, name, before), 0);
	assert_int_equal(netcounters_set(&s->after, name, after), 0);
}

static void snap_init(struct snap *s)
{
	*s = (struct snap){0};
	s->idle.taken_usec = 1000000;
	s->before.taken_usec = 2000000; /* 1 s of idle */
	s->after.taken_usec = 12000000; /* a 10 s run */
}

/* Every source a real host reports, each counter at 0 (set before the
 * counters a test raises): a stage is measured only when its host
 * reported its counters' source. */
static void all_sources(struct snap *s)
{
	static const char *const names[] = {"UdpSndbufErrors", "UdpRcvbufErrors", "softnet.dropped",
					    "qdisc.drops",     "link.rx_dropped", "link.tx_dropped"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		set3(s, names[i], 0, 0, 0);
}

static void snap_done(struct snap *s)
{
	netcounters_done(&s->idle);
	netcounters_done(&s->before);
	netcounters_done(&s->after);
}

static struct ledger_input input(struct snap *snd, struct snap *rcv, uint64_t sent, uint64_t received)
{
	return (struct ledger_input){
	    .sent = sent,
	    .received = received,
	    .send_mbps = 9000,
	    .sender_cpu_percent = 99,
	    .message_size = 8000,
	    .mtu = 1500,
	    .recv_buffer = 16384,
	    .recv_buffer_actual = 32768,
	    .side = {[LEDGER_SENDER] = {&snd->idle, &snd->before, &snd->after, "this host", NULL},
		     [LEDGER_RECEIVER] = {rcv ? &rcv->idle : NULL, rcv ? &rcv->before : NULL,
					  rcv ? &rcv->after : NULL, "cx5prof serve on 198.18.0.2:12866",
					  "no cx5prof serve answered on the peer"}},
	};
}

static const struct ledger_line *line(const struct ledger *l, const char *stage)
{
	for (size_t i = 0; i < l->n_lines; i++)
		if (streq(l->lines[i].stage, stage))
			return &l->lines[i];
	fail_msg("no line %s", stage);
	return NULL;
}

static void assert_adds_up(const struct ledger *l)
{
	uint64_t sum = l->received + l->unaccounted;

	for (size_t i = 0; i < l->n_lines; i++)
		sum += l->lines[i].count;
	assert_int_equal(sum, l->sent);
}

/* The small receive buffer: RcvbufErrors explain the loss; InErrors,
 * which counts the same drops, adds nothing; the idle rate of another
 * socket on the peer is taken off. */
static void test_socket_buffer(void **state)
{
	_cleanup_ledger_ struct ledger *l = NULL;
	struct snap snd, rcv;
	struct ledger_input in;

	(void)state;
	snap_init(&snd);
	snap_init(&rcv);
	set3(&snd, "UdpSndbufErrors", 0, 0, 0);
	set3(&rcv, "UdpRcvbufErrors", 100, 110, 1182340 + 110 + 100); /* 10/s while idle */
	set3(&rcv, "UdpInErrors", 100, 110, 1182340 + 110 + 100);
	set3(&rcv, "softnet.dropped", 5, 5, 5);
	in = input(&snd, &rcv, 1219938, 1219938 - 1182340);
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_int_equal(l->lost, 1182340);
	assert_int_equal(line(l, "receiver-socket-buffer")->raw, 1182340);
	assert_int_equal(line(l, "receiver-socket-buffer")->count, 1182340);
	assert_int_equal(line(l, "receiver-socket-buffer")->counters[0].idle, 100);
	assert_int_equal(line(l, "receiver-socket-other")->count, 0);
	assert_int_equal(line(l, "receiver-socket-other")->n_counters, 0);
	assert_int_equal(l->unaccounted, 0);
	assert_adds_up(l);
	assert_true(l->idle_subtracted);
	assert_string_equal(l->limited_by, "receiver-socket-buffer");
	assert_string_equal(
	    l->bottleneck,
	    "receiver socket buffer: UdpRcvbufErrors +1,182,340 = 100% of the lost datagrams; raise "
	    "net.core.rmem_max and verify.socket_buffer.receive (now 16384; the socket got 32768)");
	snap_done(&snd);
	snap_done(&rcv);
}

/* A veth's full backlog shows as softnet drops, the receiver's rx_dropped,
 * the sender's tx_dropped and SndbufErrors: the backlog explains it once;
 * two stages share the rest, by share, and what is left is unaccounted. */
static void test_echoes_and_shares(void **state)
{
	_cleanup_ledger_ struct ledger *l = NULL;
	struct snap snd, rcv;
	struct ledger_input in;

	(void)state;
	snap_init(&snd);
	snap_init(&rcv);
	set3(&snd, "UdpSndbufErrors", 0, 0, 700);
	set3(&snd, "link.tx_dropped", 0, 0, 700);
	set3(&rcv, "link.rx_dropped", 0, 0, 700);
	set3(&rcv, "softnet.dropped", 0, 0, 700);
	set3(&rcv, "softnet.dropped.cpu1", 0, 0, 600);
	assert_int_equal(netcounters_set(&rcv.after, "softnet.dropped.cpu0", 100), 0); /* absent before: 0 */
	set3(&rcv, "UdpRcvbufErrors", 0, 0, 250);
	set3(&rcv, "UdpInErrors", 0, 0, 250);
	in = input(&snd, &rcv, 10000, 9000);
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_int_equal(line(l, "receiver-socket-buffer")->count, 250);
	assert_int_equal(line(l, "receiver-backlog")->count, 700);
	assert_string_equal(line(l, "receiver-backlog")->detail, "CPU 1 +600, CPU 0 +100");
	assert_int_equal(line(l, "receiver-nic")->raw, 700);
	assert_int_equal(line(l, "receiver-nic")->count, 50);
	assert_int_equal(line(l, "sender-device")->count, 0);
	assert_int_equal(line(l, "sender-socket")->count, 0);
	assert_int_equal(l->unaccounted, 0);
	assert_adds_up(l);
	assert_string_equal(l->limited_by, "receiver-backlog");
	assert_int_equal(l->n_shares, 3);
	assert_string_equal(l->shares[1].stage, "receiver-socket-buffer");
	assert_true(l->shares[0].percent > 69.9 && l->shares[0].percent < 70.1);
	assert_string_equal(
	    l->bottleneck,
	    "receiver backlog: softnet.dropped +700 (CPU 1 +600, CPU 0 +100) = 70% of the lost "
	    "datagrams; the receiving CPUs fell behind: spread the completion IRQs (irq.policy) or "
	    "raise net.core.netdev_max_backlog");
	snap_done(&snd);
	snap_done(&rcv);
}

/* Whose counters each line reads: the backlog's are host-wide (every
 * namespace shares softnet_stat), said in the JSON and the text; the
 * sharing with other traffic is said whether an idle rate was subtracted
 * or not. */
static void test_scopes(void **state)
{
	_cleanup_ledger_ struct ledger *l = NULL, *no_idle = NULL;
	_cleanup_free_ char *text = NULL, *text_no_idle = NULL;
	struct json_object *doc, *lines;
	struct snap snd, rcv;
	struct ledger_input in;

	(void)state;
	snap_init(&snd);
	snap_init(&rcv);
	set3(&rcv, "softnet.dropped", 0, 0, 700);
	set3(&rcv, "softnet.dropped.cpu1", 0, 0, 700);
	set3(&rcv, "UdpRcvbufErrors", 0, 0, 250);
	in = input(&snd, &rcv, 10000, 9050);
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_string_equal(line(l, "receiver-backlog")->scope, "host");
	assert_string_equal(line(l, "receiver-socket-buffer")->scope, "namespace");
	assert_string_equal(line(l, "receiver-nic")->scope, "device");
	assert_string_equal(line(l, "sender-qdisc")->scope, "device");
	doc = ledger_to_json(l);
	assert_true(json_object_object_get_ex(doc, "lines", &lines));
	for (size_t i = 0; i < json_object_array_length(lines); i++) {
		struct json_object *o = json_object_array_get_idx(lines, i), *stage, *scope;

		assert_true(json_object_object_get_ex(o, "stage", &stage));
		assert_true(json_object_object_get_ex(o, "scope", &scope));
		assert_string_equal(json_object_get_string(scope),
				    streq(json_object_get_string(stage), "receiver-backlog") ? "host"
				    : strstr(json_object_get_string(stage), "nic") ||
					    strstr(json_object_get_string(stage), "device") ||
					    strstr(json_object_get_string(stage), "qdisc") ||
					    streq(json_object_get_string(stage), "wire")
					? "device"
					: "namespace");
	}
	text = ledger_text(doc);
	assert_non_null(strstr(text,
			       "  receiver backlog                    700  softnet.dropped +700 host-wide "
			       "(CPU 1 +700)\n"));
	assert_non_null(strstr(text, "  receiver socket buffer              250  UdpRcvbufErrors +250\n"));
	assert_non_null(strstr(
	    text,
	    "  every counter is shared with other traffic: the rate measured while idle is subtracted\n"));
	json_object_put(doc);

	in.side[LEDGER_SENDER].idle = in.side[LEDGER_RECEIVER].idle = NULL;
	assert_int_equal(ledger_compute(&in, &no_idle), 0);
	doc = ledger_to_json(no_idle);
	text_no_idle = ledger_text(doc);
	assert_non_null(strstr(text_no_idle,
			       "  every counter is shared with other traffic: no idle rate was measured, "
			       "nothing is subtracted\n"));
	json_object_put(doc);
	snap_done(&snd);
	snap_done(&rcv);
}

/* A host with more CPUs that dropped than a snapshot keeps (the 64 with
 * the most drops since boot): CPU 5 leaves the kept ones during the run
 * and CPU 70 enters them; neither count is known on both sides, so
 * neither shows a rise (CPU 5 would wrap to about 4.29e9, CPU 70 would
 * show its whole history), and the detail says the list may be short. */
static void test_cpus_left_out(void **state)
{
	_cleanup_ledger_ struct ledger *l = NULL;
	struct snap snd, rcv;
	struct ledger_input in;
	char name[64];

	(void)state;
	snap_init(&snd);
	snap_init(&rcv);
	set3(&rcv, "softnet.dropped", 100000, 100000, 100300);
	for (unsigned cpu = 0; cpu < NETCOUNTERS_MAX_CPUS; cpu++) {
		snprintf(name, sizeof(name), "softnet.dropped.cpu%u", cpu);
		assert_int_equal(netcounters_set(&rcv.idle, name, 1000 + cpu), 0);
		assert_int_equal(netcounters_set(&rcv.before, name, 1000 + cpu), 0);
		if (cpu != 5)
			assert_int_equal(netcounters_set(&rcv.after, name, 1000 + cpu + (cpu == 1 ? 300 : 0)),
					 0);
	}
	assert_int_equal(netcounters_set(&rcv.after, "softnet.dropped.cpu70", 5000), 0);
	in = input(&snd, &rcv, 10000, 9700);
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_int_equal(line(l, "receiver-backlog")->count, 300);
	assert_string_equal(
	    line(l, "receiver-backlog")->detail,
	    "CPU 1 +300; maybe not every CPU: only the 64 with the most drops since boot are read");
	assert_adds_up(l);
	snap_done(&snd);
	snap_done(&rcv);
}

/* The driver's and the core's views of one NIC's drops: the larger. */
static void test_views(void **state)
{
	_cleanup_ledger_ struct ledger *l = NULL;
	struct snap snd, rcv;
	struct ledger_input in;

	(void)state;
	snap_init(&snd);
	snap_init(&rcv);
	all_sources(&snd);
	all_sources(&rcv);
	set3(&snd, "UdpSndbufErrors", 0, 0, 0);
	set3(&rcv, "nic.rx_out_of_buffer", 0, 0, 300);
	set3(&rcv, "nic.rx_discards_phy", 0, 0, 100);
	set3(&rcv, "link.rx_dropped", 0, 0, 300); /* mlx5: rx_out_of_buffer again */
	set3(&rcv, "link.rx_missed_errors", 0, 0, 100);
	in = input(&snd, &rcv, 10000, 9000);
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_int_equal(line(l, "receiver-nic")->raw, 400);
	assert_int_equal(l->unaccounted, 600);
	assert_adds_up(l);
	assert_string_equal(l->limited_by, "path");
	assert_string_equal(l->bottleneck,
			    "path: 60% unaccounted that no counter on either host explains; check the "
			    "switches and the path between the hosts (MTU, congestion, filters)");
	snap_done(&snd);
	snap_done(&rcv);
}

static void test_verdicts(void **state)
{
	_cleanup_ledger_ struct ledger *l = NULL;
	struct snap snd, rcv;
	struct ledger_input in;

	(void)state;
	snap_init(&snd);
	snap_init(&rcv);
	all_sources(&snd);
	all_sources(&rcv);
	set3(&snd, "UdpSndbufErrors", 0, 0, 0);
	set3(&rcv, "UdpRcvbufErrors", 0, 0, 0);
	/* no loss: the sender is the limit */
	in = input(&snd, &rcv, 10000, 10000);
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_string_equal(l->limited_by, "sender");
	assert_string_equal(l->bottleneck,
			    "sender: the sender reached only 9000 Mbps with no loss: the sending host "
			    "or the runner limits the rate; the sender used 99% of a CPU");
	ledger_free(TAKE_PTR(l));
	/* a loss too small to matter: still the sender */
	in = input(&snd, &rcv, 100000, 99995);
	in.sender_cpu_percent = -1;
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_string_equal(l->limited_by, "sender");
	assert_string_equal(l->bottleneck,
			    "sender: the sender reached only 9000 Mbps with no loss that matters "
			    "(<0.1% lost): the sending host or the runner limits the rate");
	assert_int_equal(l->unaccounted, 5);
	ledger_free(TAKE_PTR(l));
	/* the path, with nothing rising anywhere */
	in = input(&snd, &rcv, 10000, 3800);
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_string_equal(l->bottleneck,
			    "path: 100% unaccounted with no counter rising on either host; check the "
			    "switches and the path between the hosts (MTU, congestion, filters)");
	ledger_free(TAKE_PTR(l));
	/* the receiver unknown: never the path */
	in = input(&snd, NULL, 10000, 3800);
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_false(l->known[LEDGER_RECEIVER]);
	assert_false(line(l, "receiver-socket-buffer")->known);
	assert_string_equal(l->limited_by, "unknown");
	assert_string_equal(l->bottleneck,
			    "unknown: the receiver's counters were not read (no cx5prof serve "
			    "answered on the peer), so 100% of the lost datagrams cannot be placed: run "
			    "`cx5prof serve` on the peer");
	assert_adds_up(l);
	ledger_free(TAKE_PTR(l));
	/* the receiver unknown: the sender's device counts may be the
	 * receiver's drops seen from here (a veth), so still unknown; its
	 * qdisc is its own */
	set3(&snd, "link.tx_dropped", 0, 0, 6000);
	in = input(&snd, NULL, 10000, 3800);
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_int_equal(line(l, "sender-device")->count, 6000);
	assert_string_equal(l->limited_by, "unknown");
	ledger_free(TAKE_PTR(l));
	set3(&snd, "link.tx_dropped", 0, 0, 0);
	set3(&snd, "qdisc.drops", 0, 0, 6100);
	in = input(&snd, NULL, 10000, 3800);
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_string_equal(l->limited_by, "sender-qdisc");
	ledger_free(TAKE_PTR(l));
	/* nothing sent: no verdict */
	in = input(&snd, &rcv, 0, 0);
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_null(l->limited_by);
	assert_null(l->bottleneck);
	snap_done(&snd);
	snap_done(&rcv);
}

/* Failed sends are not in `sent`: SndbufErrors beyond them only; qdisc
 * drops (which UDP also reports as SndbufErrors) explain themselves. */
static void test_sender(void **state)
{
	_cleanup_ledger_ struct ledger *l = NULL;
	struct snap snd, rcv;
	struct ledger_input in;

	(void)state;
	snap_init(&snd);
	snap_init(&rcv);
	set3(&snd, "UdpSndbufErrors", 0, 0, 5000);
	set3(&snd, "qdisc.drops", 0xfffffff0, 0xfffffff0, 3000 - 16); /* 32 bits: wrapped */
	in = input(&snd, &rcv, 100000, 97000);
	in.send_errors = 2000;
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_int_equal(line(l, "sender-qdisc")->count, 3000);
	assert_int_equal(line(l, "sender-socket")->raw, 3000);
	assert_int_equal(line(l, "sender-socket")->count, 0);
	assert_string_equal(l->limited_by, "sender-qdisc");
	assert_adds_up(l);
	snap_done(&snd);
	snap_done(&rcv);
}

/* The reassembly line counts fragments too: capped at the loss; the
 * remedy names the size that fits the MTU, or, when the datagrams fit,
 * the MTU and the reassembly memory. */
static void test_reassembly(void **state)
{
	_cleanup_ledger_ struct ledger *l = NULL;
	_cleanup_free_ char *text = NULL;
	struct json_object *doc;
	struct snap snd, rcv;
	struct ledger_input in;
	uint64_t v;

	(void)state;
	snap_init(&snd);
	snap_init(&rcv);
	set3(&rcv, "IpReasmFails", 0, 0, 30000);
	set3(&rcv, "IpReasmReqds", 0, 0, 60000);
	in = input(&snd, &rcv, 10000, 4000);
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_int_equal(line(l, "reassembly")->count, 6000);
	assert_string_equal(l->bottleneck,
			    "IP reassembly: IpReasmFails +30,000, IpReasmReqds +60,000 = 100% of the "
			    "lost datagrams; 8000-byte datagrams are cut into fragments at MTU 1500: "
			    "send datagrams that fit (verify.message_size <= 1472) or raise the MTU on "
			    "both hosts (link.mtu)");

	/* the document, and what is read back from it */
	doc = ledger_to_json(l);
	assert_non_null(doc);
	assert_string_equal(ledger_doc_limited_by(doc), "reassembly");
	assert_true(ledger_doc_count(doc, "reassembly", &v) && v == 6000);
	assert_true(ledger_doc_count(doc, "unaccounted", &v) && v == 0);
	assert_false(ledger_doc_count(doc, "no-such-stage", &v));
	text = ledger_text(doc);
	assert_non_null(
	    strstr(text, "  IP reassembly                     6,000  IpReasmFails +30,000, IpReasmReqds "
			 "+60,000 (+24,000 beyond what was left to explain)\n"));
	assert_non_null(strstr(text, "limited by: IP reassembly: "));
	json_object_put(doc);

	/* datagrams that fit the MTU: fragments lost, or reassembly out of
	 * memory, which a sysctl gives more of */
	ledger_free(TAKE_PTR(l));
	in.mtu = 9000;
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_string_equal(l->bottleneck,
			    "IP reassembly: IpReasmFails +30,000, IpReasmReqds +60,000 = 100% of the "
			    "lost datagrams; fragments were lost or reassembly ran out of memory: send "
			    "datagrams that fit the MTU (verify.message_size), raise the MTU on both hosts "
			    "(link.mtu) or give reassembly more memory on the receiver (sysctl "
			    "net.ipv4.ipfrag_high_thresh for IPv4)");
	snap_done(&snd);
	snap_done(&rcv);
}

static void test_stage_names(void **state)
{
	size_t n;
	const char *const *v = ledger_stages(&n);

	(void)state;
	assert_int_equal(n, 13);
	assert_string_equal(v[0], "sender-socket");
	assert_string_equal(v[n - 1], "no-socket");
	assert_string_equal(ledger_stage_label("receiver-nic"), "receiver NIC");
	assert_string_equal(ledger_stage_label("path"), "path");
	assert_null(ledger_stage_label("nope"));
}

/* A peer that measured nothing (a STATE with no counters, none in the
 * "after" reply, or only names this version does not know): its host is
 * unknown, never 0 with the path blamed. */
static void test_unmeasured(void **state)
{
	_cleanup_ledger_ struct ledger *l = NULL;
	struct snap snd, rcv;
	struct ledger_input in;

	(void)state;
	snap_init(&snd);
	snap_init(&rcv);
	set3(&snd, "UdpSndbufErrors", 0, 0, 0);
	/* no counter at all */
	in = input(&snd, &rcv, 10000, 3800);
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_false(l->known[LEDGER_RECEIVER]);
	assert_false(line(l, "receiver-socket-buffer")->known);
	assert_string_equal(l->why_unknown[LEDGER_RECEIVER],
			    "cx5prof serve on 198.18.0.2:12866 measured no counter");
	assert_string_equal(l->limited_by, "unknown");
	assert_adds_up(l);
	ledger_free(TAKE_PTR(l));
	/* counters before, none after */
	assert_int_equal(netcounters_set(&rcv.idle, "UdpRcvbufErrors", 0), 0);
	assert_int_equal(netcounters_set(&rcv.before, "UdpRcvbufErrors", 0), 0);
	in = input(&snd, &rcv, 10000, 3800);
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_false(l->known[LEDGER_RECEIVER]);
	assert_string_equal(l->limited_by, "unknown");
	snap_done(&snd);
	snap_done(&rcv);
}

/* A counter that went backwards was reset (a driver reload, a CPU gone):
 * its stage is unknown, never a 32-bit wrap; a narrow counter near the top
 * of its 32 bits that comes round does wrap. */
/* A peer that reported its snmp counters but no link, softnet or qdisc
 * ones: the stages of the sources it did not report are not measured
 * ("not reported"), never 0; a counter missing from a source it did
 * report is 0 (a kernel without it); a device without a qdisc (noqueue:
 * its qdisc counters 0) is measured. */
static void test_not_reported(void **state)
{
	_cleanup_ledger_ struct ledger *l = NULL;
	struct snap snd, rcv;
	struct ledger_input in;

	(void)state;
	snap_init(&snd);
	snap_init(&rcv);
	all_sources(&snd);
	set3(&rcv, "UdpRcvbufErrors", 0, 0, 0);
	set3(&rcv, "IpReasmFails", 0, 0, 0);
	in = input(&snd, &rcv, 10000, 3800);
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_true(l->known[LEDGER_RECEIVER]);
	assert_false(line(l, "receiver-nic")->known);
	assert_string_equal(line(l, "receiver-nic")->why_unknown, "not reported");
	assert_false(line(l, "wire")->known);
	assert_false(line(l, "receiver-backlog")->known);
	assert_string_equal(line(l, "receiver-backlog")->why_unknown, "not reported");
	assert_true(line(l, "receiver-socket-buffer")->known);
	assert_true(line(l, "receiver-socket-memory")->known); /* UdpMemErrors missing: 0 */
	assert_true(line(l, "reassembly")->known);
	assert_true(line(l, "sender-qdisc")->known);
	assert_int_equal(line(l, "sender-qdisc")->count, 0);
	assert_string_equal(l->limited_by, "unknown");
	assert_string_equal(l->bottleneck,
			    "unknown: 100% of the lost datagrams are unaccounted and these stages are "
			    "unknown: wire (not reported), receiver NIC (not reported), receiver backlog "
			    "(not reported): the loss cannot be placed");
	assert_adds_up(l);
	snap_done(&snd);
	snap_done(&rcv);
}

static void test_reset(void **state)
{
	_cleanup_ledger_ struct ledger *l = NULL;
	struct snap snd, rcv;
	struct ledger_input in;

	(void)state;
	snap_init(&snd);
	snap_init(&rcv);
	all_sources(&snd);
	all_sources(&rcv);
	set3(&snd, "UdpSndbufErrors", 0, 0, 0);
	set3(&rcv, "UdpRcvbufErrors", 0, 0, 0);
	set3(&rcv, "softnet.dropped", 50, 50, 0);
	set3(&rcv, "softnet.dropped.cpu0", 50, 50, 0);
	in = input(&snd, &rcv, 10000, 3800);
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_true(l->known[LEDGER_RECEIVER]);
	assert_false(line(l, "receiver-backlog")->known);
	assert_string_equal(line(l, "receiver-backlog")->why_unknown, "counter reset");
	assert_null(line(l, "receiver-backlog")->detail);
	assert_string_equal(l->limited_by, "unknown");
	assert_string_equal(l->bottleneck,
			    "unknown: 100% of the lost datagrams are unaccounted and the receiver "
			    "backlog is unknown (counter reset): the loss cannot be placed");
	assert_adds_up(l);
	ledger_free(TAKE_PTR(l));
	/* a 32-bit per-CPU count that comes round: a wrap */
	set3(&rcv, "softnet.dropped", 0, 0, 0);
	set3(&rcv, "softnet.dropped.cpu0", 4294967290u, 4294967290u, 4);
	in = input(&snd, &rcv, 10000, 9990);
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_true(line(l, "receiver-backlog")->known);
	assert_string_equal(line(l, "receiver-backlog")->detail, "CPU 0 +10");
	assert_int_equal(netcounter_rise("softnet.dropped.cpu0", 50, 0), 0);
	assert_int_equal(netcounter_rise("softnet.dropped.cpu0", 4294967290u, 4), 10);
	assert_int_equal(netcounter_rise("qdisc.drops", 50, 0), 0);
	snap_done(&snd);
	snap_done(&rcv);
}

/* Two NIC counters rising by 2^63 and 2^63+7 do not add up to 7: the
 * stage is unknown (counter overflow), the verdict does not blame the
 * path, and no line prints a number the document cannot hold. */
static void test_overflow(void **state)
{
	_cleanup_ledger_ struct ledger *l = NULL;
	struct json_object *doc = NULL;
	_cleanup_free_ char *text = NULL;
	struct snap snd, rcv;
	struct ledger_input in;

	(void)state;
	snap_init(&snd);
	snap_init(&rcv);
	set3(&snd, "UdpSndbufErrors", 0, 0, 0);
	set3(&rcv, "UdpRcvbufErrors", 0, 0, 0);
	set3(&rcv, "nic.rx_discards_phy", 0, 0, 1ull << 63);
	set3(&rcv, "nic.rx_out_of_buffer", 0, 0, (1ull << 63) + 7);
	in = input(&snd, &rcv, 10000, 3800);
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_false(line(l, "receiver-nic")->known);
	assert_string_equal(line(l, "receiver-nic")->why_unknown, "counter overflow");
	assert_int_equal(line(l, "receiver-nic")->count, 0);
	assert_string_equal(l->limited_by, "unknown");
	assert_adds_up(l);
	doc = ledger_to_json(l);
	text = ledger_text(doc);
	assert_non_null(strstr(text, "receiver NIC"));
	assert_non_null(strstr(text, "  receiver NIC                    unknown  counter overflow\n"));
	assert_null(strstr(text, "9,223,372,036,854,775,807"));
	assert_null(strstr(text, "18,446,744"));
	json_object_put(doc);
	ledger_free(TAKE_PTR(l));
	/* an evidence counter beyond what the document holds: the same (its
	 * figure would differ between the JSON and the limited by line) */
	set3(&rcv, "nic.rx_out_of_buffer", 0, 0, 0);
	set3(&rcv, "nic.rx_discards_phy", 0, 0, 6000);
	set3(&rcv, "nic.rx_buffer_passed_thres_phy", 0, 0, (1ull << 63) + 5);
	in = input(&snd, &rcv, 10000, 3800);
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_false(line(l, "receiver-nic")->known);
	assert_string_equal(line(l, "receiver-nic")->why_unknown, "counter overflow");
	ledger_free(TAKE_PTR(l));
	set3(&rcv, "nic.rx_buffer_passed_thres_phy", 0, 0, 0);
	/* one counter beyond what the document holds: the same */
	set3(&rcv, "nic.rx_out_of_buffer", 0, 0, 0);
	set3(&rcv, "nic.rx_discards_phy", 0, 0, UINT64_MAX - 1000);
	in = input(&snd, &rcv, 10000, 3800);
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_false(line(l, "receiver-nic")->known);
	assert_string_equal(l->limited_by, "unknown");
	snap_done(&snd);
	snap_done(&rcv);
}

/* Shares add up to 100% as printed: 89.95%, 5.06% and 4.99% printed
 * 90%, 5.1% and 5.0% (100.1%). */
static void test_shares_add_up(void **state)
{
	_cleanup_ledger_ struct ledger *l = NULL;
	struct json_object *doc = NULL;
	_cleanup_free_ char *text = NULL;
	struct snap snd, rcv;
	struct ledger_input in;
	double sum = 0;

	(void)state;
	snap_init(&snd);
	snap_init(&rcv);
	set3(&snd, "UdpSndbufErrors", 0, 0, 0);
	set3(&rcv, "UdpRcvbufErrors", 0, 0, 8995);
	set3(&rcv, "UdpNoPorts", 0, 0, 506);
	in = input(&snd, &rcv, 20000, 10000); /* 499 unaccounted */
	assert_int_equal(ledger_compute(&in, &l), 0);
	assert_int_equal(l->n_shares, 3);
	for (size_t i = 0; i < l->n_shares; i++)
		sum += l->shares[i].percent;
	assert_true(sum > 99.99 && sum < 100.01);
	doc = ledger_to_json(l);
	text = ledger_text(doc);
	assert_non_null(strstr(text, "the lost datagrams by share: receiver socket buffer 89.9%, receiver "
				     "without socket 5.1%, unaccounted 5%\n"));
	json_object_put(doc);
	snap_done(&snd);
	snap_done(&rcv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_socket_buffer), cmocka_unit_test(test_echoes_and_shares),
	    cmocka_unit_test(test_cpus_left_out), cmocka_unit_test(test_scopes),
	    cmocka_unit_test(test_views),	  cmocka_unit_test(test_verdicts),
	    cmocka_unit_test(test_sender),	  cmocka_unit_test(test_reassembly),
	    cmocka_unit_test(test_stage_names),	  cmocka_unit_test(test_unmeasured),
	    cmocka_unit_test(test_not_reported),  cmocka_unit_test(test_reset),
	    cmocka_unit_test(test_overflow),	  cmocka_unit_test(test_shares_add_up),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
