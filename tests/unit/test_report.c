/* test_report.c: report.html and report.svg from a campaign document and
 * runs recorded in a real SQLite history.
 *
 * The heat map colours each CPU by its share of ALL the NIC's completion
 * interrupts (the completion vectors of the run's ports only, after -
 * before, over the group's runs) on one absolute scale: a run where one CPU took 100% and one where
 * eight CPUs took 12.5% each colour them differently, and the legend names
 * both colours' ranges. The charts start at 0 (loss on a fixed 0-100%
 * scale) with every round as a dot; each round shows its thresholds with
 * pass/FAIL and the drop counters that rose; a skipped group says why;
 * sizes read 4M; a setting a group leaves alone reads the same in every
 * group; loss changes are in percentage points; the page of single runs
 * never speaks of medians or ranges; every stored string is escaped, its
 * control characters shown as '?'; no URL but the runs' bundles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "base/html.h"
#include "bench/peerstate.h"
#include "campaign/irqheat.h"
#include "campaign/report.h"
#include "store/history.h"
#include "store/runs.h"
#include "unit.h"

static char *dir;

/* /proc/interrupts of a 12-CPU host (the kernel's own layout, from the
 * reference captures), before and after two runs. In the first, cpu3
 * takes every completion interrupt (100%); in the second, eight
 * completion vectors spread evenly over cpu0-7 (12.5% each). nvme0q1 and
 * mlx5_async0 are not completion vectors: they never count. */
static const char one_before[] =
    "           CPU0       CPU1       CPU2       CPU3       CPU4       CPU5       CPU6       CPU7       CPU8 "
    "      CPU9       CPU10      CPU11\n"
    "  98:          0          0          0          0          0          0          0          0          "
    "0          0          0          0  IR-PCI-MSIX-0000:01:00.0  0-edge      mlx5_async0@pci:0000:01:00.0\n"
    "  99:        324          0          0       4360          0          0          0          0          "
    "0          0          0          0  IR-PCI-MSIX-0000:01:00.0  1-edge      mlx5_comp0@pci:0000:01:00.0\n"
    " 120:          0          0          0          0          0          0          0          0          "
    "0          0          0          0  IR-PCI-MSIX-0000:5e:00.0  0-edge      nvme0q1\n";
static const char one_after[] =
    "           CPU0       CPU1       CPU2       CPU3       CPU4       CPU5       CPU6       CPU7       CPU8 "
    "      CPU9       CPU10      CPU11\n"
    "  98:          0          0          0          0          0          0          0        500          "
    "0          0          0          0  IR-PCI-MSIX-0000:01:00.0  0-edge      mlx5_async0@pci:0000:01:00.0\n"
    "  99:        324          0          0      12360          0          0          0          0          "
    "0          0          0          0  IR-PCI-MSIX-0000:01:00.0  1-edge      mlx5_comp0@pci:0000:01:00.0\n"
    " 120:       9000          0          0          0          0          0          0          0          "
    "0          0          0          0  IR-PCI-MSIX-0000:5e:00.0  0-edge      nvme0q1\n";

static const char spread_before[] =
    "           CPU0       CPU1       CPU2       CPU3       CPU4       CPU5       CPU6       CPU7       CPU8 "
    "      CPU9       CPU10      CPU11\n"
    "  99:        100          0          0          0          0          0          0          0          "
    "0          0          0          0  IR-PCI-MSIX-0000:01:00.0  1-edge      mlx5_comp0@pci:0000:01:00.0\n"
    " 100:          0        100          0          0          0          0          0          0          "
    "0          0          0          0  IR-PCI-MSIX-0000:01:00.0  2-edge      mlx5_comp1@pci:0000:01:00.0\n"
    " 101:          0          0        100          0          0          0          0          0          "
    "0          0          0          0  IR-PCI-MSIX-0000:01:00.0  3-edge      mlx5_comp2@pci:0000:01:00.0\n"
    " 102:          0          0          0        100          0          0          0          0          "
    "0          0          0          0  IR-PCI-MSIX-0000:01:00.0  4-edge      mlx5_comp3@pci:0000:01:00.0\n"
    " 103:          0          0          0          0        100          0          0          0          "
    "0          0          0          0  IR-PCI-MSIX-0000:01:00.0  5-edge      mlx5_comp4@pci:0000:01:00.0\n"
    " 104:          0          0          0          0          0        100          0          0          "
    "0          0          0          0  IR-PCI-MSIX-0000:01:00.0  6-edge      mlx5_comp5@pci:0000:01:00.0\n"
    " 105:          0          0          0          0          0          0        100          0          "
    "0          0          0          0  IR-PCI-MSIX-0000:01:00.0  7-edge      mlx5_comp6@pci:0000:01:00.0\n"
    " 106:          0          0          0          0          0          0          0        100          "
    "0          0          0          0  IR-PCI-MSIX-0000:01:00.0  8-edge      mlx5_comp7@pci:0000:01:00.0\n";
static const char spread_after[] =
    "           CPU0       CPU1       CPU2       CPU3       CPU4       CPU5       CPU6       CPU7       CPU8 "
    "      CPU9       CPU10      CPU11\n"
    "  99:        600          0          0          0          0          0          0          0          "
    "0          0          0          0  IR-PCI-MSIX-0000:01:00.0  1-edge      mlx5_comp0@pci:0000:01:00.0\n"
    " 100:          0        600          0          0          0          0          0          0          "
    "0          0          0          0  IR-PCI-MSIX-0000:01:00.0  2-edge      mlx5_comp1@pci:0000:01:00.0\n"
    " 101:          0          0        600          0          0          0          0          0          "
    "0          0          0          0  IR-PCI-MSIX-0000:01:00.0  3-edge      mlx5_comp2@pci:0000:01:00.0\n"
    " 102:          0          0          0        600          0          0          0          0          "
    "0          0          0          0  IR-PCI-MSIX-0000:01:00.0  4-edge      mlx5_comp3@pci:0000:01:00.0\n"
    " 103:          0          0          0          0        600          0          0          0          "
    "0          0          0          0  IR-PCI-MSIX-0000:01:00.0  5-edge      mlx5_comp4@pci:0000:01:00.0\n"
    " 104:          0          0          0          0          0        600          0          0          "
    "0          0          0          0  IR-PCI-MSIX-0000:01:00.0  6-edge      mlx5_comp5@pci:0000:01:00.0\n"
    " 105:          0          0          0          0          0          0        600          0          "
    "0          0          0          0  IR-PCI-MSIX-0000:01:00.0  7-edge      mlx5_comp6@pci:0000:01:00.0\n"
    " 106:          0          0          0          0          0          0          0        600          "
    "0          0          0          0  IR-PCI-MSIX-0000:01:00.0  8-edge      mlx5_comp7@pci:0000:01:00.0\n";

static const char host_facts[] =
    "{\"hostname\": \"lab1\", \"kernel\": \"6.12.12-amd64\", \"interfaces\": [{\"name\": \"ens1f0\","
    " \"model\": \"ConnectX-5\", \"pci\": \"0000:01:00.0\", \"pci_id\": \"15b3:1017\", \"numa_node\": 0,"
    " \"local_cpus\": \"0-5\", \"driver\": \"mlx5_core\", \"driver_version\": \"6.12.12-amd64\","
    " \"firmware\": \"16.35.2000 (MT_0000000080)\"}]}";

/* What serve's STATE told of the peer (peer_state.json, the keys of
 * schemas/peer-state.schema.json that the header uses). */
static const char peer_state[] =
    "{\"version\": 2, \"interface\": \"ens1f0\", \"driver\": \"mlx5_core\", \"driver_version\": "
    "\"5.8-1.0.1\", \"firmware\": \"16.35.2000 (MT_0000000080)\", \"pci_id\": \"15b3:1017\", \"mtu\": "
    "9000, \"rmem_max\": 4194304, \"drop_counters\": null, \"cpus\": null}";

static const char summary[] = "threshold throughput_mbps >= 5000: 4331.91 fail\n"
			      "threshold loss_percent <= 1: 0.40 pass\n";

/* The host facts record() gives a run. */
static const char *record_facts = host_facts;

static int64_t record(struct history *h, double mbps, const char *before, const char *after, const char *cmd)
{
	struct run_artifact a[] = {{(char *)"interrupts_before", (char *)before},
				   {(char *)"interrupts_after", (char *)after},
				   {(char *)ARTIFACT_HOST_FACTS, (char *)record_facts},
				   {(char *)"verify_summary", (char *)summary},
				   {(char *)PEERSTATE_ARTIFACT, (char *)peer_state}};
	struct run_record r = {.runner = (char *)"netperf",
			       .command_line = (char *)cmd,
			       .ifname = (char *)"ens1f0",
			       .peer = (char *)"198.18.0.2",
			       .recv_mbps = mbps,
			       .artifacts = a,
			       .n_artifacts = ARRAY_SIZE(a)};
	int64_t id = 0;

	assert_int_equal(runs_record(h, &r, &id), 0);
	return id;
}

/* The fill of a CPU's cell: the rect that holds its title. */
static char *cell_fill(const char *html, const char *title)
{
	const char *t = strstr(html, title), *rect;

	assert_non_null(t);
	for (rect = t; rect > html && strncmp(rect, "<rect ", 6) != 0; rect--)
		;
	rect = strstr(rect, "fill=\"");
	assert_non_null(rect);
	return strndup(rect + 6, 7);
}

static const struct irqheat_port port = {"ens1f0", "0000:01:00.0"};

static void test_heat_absolute(void **state)
{
	struct irqheat one = {0}, spread = {0};
	char *html = NULL, *legend = NULL, *fill_one, *fill_spread;
	size_t len = 0, ll = 0;
	FILE *f;
	(void)state;

	assert_int_equal(irqheat_add(&one, one_before, one_after, &port, 1), 0);
	assert_int_equal(irqheat_add(&spread, spread_before, spread_after, &port, 1), 0);
	/* only the completion vectors count: 8000 on cpu3; 500 each on cpu0-7 */
	assert_int_equal(one.total, 8000);
	assert_int_equal(one.counts[3], 8000);
	assert_int_equal(one.counts[7], 0);
	assert_int_equal(spread.total, 4000);
	assert_int_equal(spread.counts[5], 500);
	assert_int_equal(one.ncpus, 12);

	assert_string_equal(irqheat_classes[irqheat_class_of(&one, 3)].label, "50% or more");
	assert_string_equal(irqheat_classes[irqheat_class_of(&spread, 3)].label, "10-25%");
	assert_string_equal(irqheat_classes[irqheat_class_of(&one, 0)].label, "none");

	f = open_memstream(&html, &len);
	irqheat_draw(f, &one, "one");
	irqheat_draw(f, &spread, "spread");
	fclose(f);
	/* each map draws its cpu3 in its own class's colour */
	fill_one = cell_fill(html, "<title>cpu3: 8000 interrupts (100.0%)");
	fill_spread = cell_fill(strstr(html, "aria-label=\"spread\""), "<title>cpu3: 500 interrupts (12.5%)");
	assert_string_not_equal(fill_one, fill_spread);
	/* rows of 32: a 12-CPU host has one row, cpu 0-11 */
	assert_non_null(strstr(html, ">cpu 0-11</text>"));

	f = open_memstream(&legend, &ll);
	irqheat_legend(f, "ens1f0, NUMA node 0: 0-5");
	fclose(f);
	/* the legend names both colours with their ranges */
	assert_true(strstr(legend, fill_one) < strstr(legend, ">50% or more</text>"));
	assert_true(strstr(legend, fill_spread) < strstr(legend, ">10-25%</text>"));
	assert_true(strstr(legend, ">10-25%</text>") < strstr(legend, fill_one));
	assert_non_null(strstr(legend, "NUMA-local to the NIC: ens1f0, NUMA node 0: 0-5"));
	assert_non_null(strstr(legend, ">CPU0</text>"));

	free(fill_one);
	free(fill_spread);
	free(html);
	free(legend);
	irqheat_done(&one);
	irqheat_done(&spread);
}

/* Which rows count: the completion vectors of the run's ports, by
 * irq_classify()'s names. OFED's ens1f0-0 and ens1f0-1 count; the
 * completion vector of another device (0000:5e:00.0), the other port's
 * OFED vector (ens1f1-0) and an async vector do not. Without the ports
 * (no host facts), every device's mlx5 completion vectors count. */
static const char ofed_before[] =
    "           CPU0       CPU1       CPU2       CPU3\n"
    "  98:          0          0          0          0  IR-PCI-MSIX-0000:01:00.0  0-edge      "
    "mlx5_async0@pci:0000:01:00.0\n"
    " 140:         10          0          0          0  IR-PCI-MSIX-0000:01:00.0  1-edge      ens1f0-0\n"
    " 141:          0         10          0          0  IR-PCI-MSIX-0000:01:00.0  2-edge      ens1f0-1\n"
    " 150:          0          0         10          0  IR-PCI-MSIX-0000:01:00.1  1-edge      ens1f1-0\n"
    " 160:          0          0          0         10  IR-PCI-MSIX-0000:5e:00.0  1-edge      "
    "mlx5_comp0@pci:0000:5e:00.0\n";
static const char ofed_after[] =
    "           CPU0       CPU1       CPU2       CPU3\n"
    "  98:          0          0          0        900  IR-PCI-MSIX-0000:01:00.0  0-edge      "
    "mlx5_async0@pci:0000:01:00.0\n"
    " 140:        310          0          0          0  IR-PCI-MSIX-0000:01:00.0  1-edge      ens1f0-0\n"
    " 141:          0        110          0          0  IR-PCI-MSIX-0000:01:00.0  2-edge      ens1f0-1\n"
    " 150:          0          0       5010          0  IR-PCI-MSIX-0000:01:00.1  1-edge      ens1f1-0\n"
    " 160:          0          0          0       7010  IR-PCI-MSIX-0000:5e:00.0  1-edge      "
    "mlx5_comp0@pci:0000:5e:00.0\n";

static void test_heat_ports(void **state)
{
	struct irqheat ofed = {0}, other = {0}, unknown = {0};
	const struct irqheat_port other_nic = {"ens2f0", "0000:5e:00.0"};
	(void)state;

	assert_int_equal(irqheat_add(&ofed, ofed_before, ofed_after, &port, 1), 0);
	assert_int_equal(ofed.total, 400);
	assert_int_equal(ofed.counts[0], 300);
	assert_int_equal(ofed.counts[1], 100);
	assert_int_equal(ofed.counts[2], 0);
	assert_int_equal(ofed.counts[3], 0);

	assert_int_equal(irqheat_add(&other, ofed_before, ofed_after, &other_nic, 1), 0);
	assert_int_equal(other.total, 7000);
	assert_int_equal(other.counts[3], 7000);

	assert_int_equal(irqheat_add(&unknown, ofed_before, ofed_after, NULL, 0), 0);
	assert_int_equal(unknown.total, 7000);
	irqheat_done(&ofed);
	irqheat_done(&other);
	irqheat_done(&unknown);
}

/* A host with 96 CPUs (the cx5-8node fixture's real table) folds into
 * rows of 32, each labelled, and never shrinks its cells. */
static void test_heat_rows(void **state)
{
	struct irqheat hm = {0};
	char *text = NULL, *svg = NULL;
	size_t len = 0;
	FILE *f = fopen("tests/fixtures/sysroot/cx5-8node/proc/interrupts", "r");
	(void)state;

	assert_non_null(f);
	assert_true(getdelim(&text, &len, '\0', f) > 0);
	fclose(f);
	assert_int_equal(irqheat_add(&hm, text, text, NULL, 0), 0);
	assert_int_equal(hm.ncpus, 96);
	len = 0;
	f = open_memstream(&svg, &len);
	irqheat_draw(f, &hm, "96 CPUs");
	fclose(f);
	assert_non_null(strstr(svg, "viewBox=\"0 0 712 85\""));
	assert_non_null(strstr(svg, ">cpu 0-31</text>"));
	assert_non_null(strstr(svg, ">cpu 32-63</text>"));
	assert_non_null(strstr(svg, ">cpu 64-95</text>"));
	assert_non_null(strstr(svg, "<rect x=\"690\" y=\"57\" width=\"18\" height=\"18\""));
	free(svg);
	free(text);
	irqheat_done(&hm);
}

static struct json_object *campaign_doc(int64_t r1, int64_t r2, int64_t r3)
{
	char json[8192];

	snprintf(
	    json, sizeof(json),
	    "{\"campaign\": 7, \"name\": \"c<&>\\u0001\", \"file\": \"c.yaml\", \"status\": \"done\", "
	    "\"repeat\": 2,"
	    " \"runs\": 3, \"started_usec\": 1700000000000000, \"ended_usec\": 1700000095000000,"
	    " \"verdict\": \"g \\\"x\\\" helped\\u001b]0;PWNED\\u0007\","
	    " \"statistics\": {\"method\": \"hodges-lehmann\", \"interval\": \"mann-whitney\", "
	    "\"correction\": \"holm\","
	    " \"alpha\": 0.05, \"looks\": 1, \"comparisons\": 1},"
	    " \"comparisons\": [{\"group\": \"spread\", \"against\": \"one-cpu\", \"kind\": \"baseline\","
	    " \"recv\": {\"unit\": \"percent\", \"change\": 100, \"low\": 50, \"high\": 150, \"confidence\": "
	    "0.95,"
	    " \"p_value\": 0.01, \"exact\": true, \"verdict\": \"better\", \"min_rounds\": null},"
	    " \"loss\": {\"unit\": \"points\", \"change\": 0.5, \"low\": null, \"high\": null, "
	    "\"confidence\": 0.95,"
	    " \"p_value\": 1, \"exact\": true, \"verdict\": \"no clear difference\", \"min_rounds\": 4}}],"
	    " \"ablation\": {\"profile\": \"udp-jumbo.yaml\", \"families\": [{\"family\": \"mtu\", "
	    "\"label\": \"MTU 9000\","
	    " \"skipped\": null, \"alone_comparison\": 0, \"marginal_comparison\": null, \"mattered\": true,"
	    " \"interaction\": \"alone better, inside the full profile not measured\"},"
	    " {\"family\": \"irq\", \"label\": \"IRQ map\", \"skipped\": \"no IRQs <here>\", "
	    "\"alone_comparison\": null,"
	    " \"marginal_comparison\": null, \"mattered\": false, \"interaction\": null}]},"
	    " \"groups\": ["
	    "{\"group\": \"one-cpu\", \"description\": \"MTU & IRQs\\u001b[2J\", \"skipped\": null,"
	    " \"median_recv_mbps\": 1000.0, \"min_recv_mbps\": 900.0, \"max_recv_mbps\": 1100.0,"
	    " \"median_loss_percent\": 0.5, \"change_percent\": null, \"irq_spread\": \"max cpu3 100%%\","
	    " \"drops\": {\"rx_out_of_buffer\": 12, \"rx_discards_phy\": 0},"
	    " \"profile\": {\"link\": {\"mtu\": 9000}, \"irq\": {\"irqbalance\": \"leave\"},"
	    " \"sysctl\": {\"net.core.rmem_max\": \">= 4194304\"}, \"verify\": {\"socket_buffer\": "
	    "{\"send\": 4194304}}},"
	    " \"rounds\": [{\"repetition\": 1, \"run\": %lld, \"result\": \"fail\", \"recv_mbps\": 900.0,"
	    " \"loss_percent\": 0.4, \"thresholds\": [{\"name\": \"throughput_mbps\", \"label\": \"receive "
	    "throughput\","
	    " \"op\": \">=\", \"limit\": 5000, \"unit\": \"Mbps\", \"value\": 900.0, \"status\": \"fail\", "
	    "\"note\": null}],"
	    " \"drops\": {\"rx_out_of_buffer\": 12, \"rx_discards_phy\": 0}},"
	    " {\"repetition\": 2, \"run\": %lld, \"result\": \"pass\", \"recv_mbps\": 1100.0, "
	    "\"loss_percent\": 0.6}]},"
	    "{\"group\": \"spread\", \"description\": null, \"skipped\": null,"
	    " \"median_recv_mbps\": 2000.0, \"min_recv_mbps\": 2000.0, \"max_recv_mbps\": 2000.0,"
	    " \"median_loss_percent\": 1.0, \"change_percent\": 100.0, \"irq_spread\": \"max cpu0 13%%\","
	    " \"profile\": {\"verify\": {\"socket_buffer\": {\"send\": 4194304}}},"
	    " \"rounds\": [{\"repetition\": 1, \"run\": %lld, \"result\": \"pass\", \"recv_mbps\": 2000.0, "
	    "\"loss_percent\": 1.0},"
	    " {\"repetition\": 2, \"run\": null, \"result\": \"error\", \"recv_mbps\": null, "
	    "\"loss_percent\": null,"
	    " \"error\": \"no netserver on 198.18.0.2:12865\"}]},"
	    "{\"group\": \"skip\", \"description\": null, \"skipped\": \"ens1f0: driver too old\", "
	    "\"skipped_exit_code\": 5,"
	    " \"median_recv_mbps\": null, \"min_recv_mbps\": null, \"max_recv_mbps\": null,"
	    " \"median_loss_percent\": null, \"change_percent\": null, \"profile\": null, \"rounds\": []}]}",
	    (long long)r1, (long long)r2, (long long)r3);
	return json_tokener_parse(json);
}

/* What the page of campaign_doc() shows, in page order. */
static const char *const page_has[] = {
    /* the header places the report */
    "<h1>Campaign 7: c&lt;&amp;&gt;?</h1>",
    "<th>host</th><td class=\"long\">lab1</td>",
    "ens1f0: ConnectX-5 0000:01:00.0, NUMA node 0; driver mlx5_core 6.12.12-amd64, "
    "firmware 16.35.2000 (MT_0000000080)",
    "<th>kernel</th><td class=\"long\">6.12.12-amd64</td>",
    /* the peer and its NIC, from serve's STATE */
    "<th>peer</th><td class=\"long\">198.18.0.2; ens1f0: ConnectX-5, driver mlx5_core 5.8-1.0.1, firmware "
    "16.35.2000 (MT_0000000080), mtu 9000, rmem_max 4194304</td>",
    "<th>time</th><td class=\"long\">2023-11-14 22:13:20 +0000 to 2023-11-14 22:14:55 +0000 (95 s)</td>",
    /* stored text escaped, control characters shown as '?' */
    "g &quot;x&quot; helped?]0;PWNED?",
    "<td class=\"grp\">one-cpu<br><span class=\"note\">MTU &amp; IRQs?[2J</span></td>",
    /* the statistics behind the verdict, in the campaign table's words */
    "<tr><td class=\"grp\">spread vs one-cpu</td><td>+100% [50..150] better</td><td>+0.50 pp [needs 4 "
    "rounds] no clear "
    "difference</td><td class=\"num\">95.0%, 95.0%</td></tr>",
    "<tr><td class=\"grp\">MTU 9000</td><td>+100% [50..150] better</td><td>not measured</td></tr>",
    "<td colspan=\"2\" class=\"long\">interaction: alone better, inside the full profile not measured</td>",
    "<tr><td class=\"grp\">IRQ map</td><td colspan=\"2\" class=\"long\">not applied: no IRQs "
    "&lt;here&gt;</td></tr>",
    "Holm's correction over 1 comparison keeps a false better, worse or no meaningful difference at most 5% "
    "for throughput and 5% for loss (10% both together).",
    /* charts: an axis from 0, loss on 0-100%, every round a dot, a round
     * that measured nothing marked not counted */
    "class=\"axis\">0</text>",
    "class=\"axis\">100</text>",
    "<title>round: 900.00 Mbps</title>",
    "<title>round: 1100.00 Mbps</title>",
    ">1 round, 1 not counted</text>",
    ">rx_out_of_buffer +12</td>",
    /* every round: thresholds pass/FAIL, drops by name, reasons */
    "<span class=\"fail\">receive throughput &gt;= 5000 Mbps: 900.00 Mbps FAIL</span>",
    "<td class=\"fail\">FAIL</td>",
    "<td class=\"long\">no netserver on 198.18.0.2:12865</td>",
    "<td colspan=\"5\" class=\"long fail\">skipped (exit 5): ens1f0: driver too old</td>",
    /* the heat maps: cpu3 took 100% in one-cpu, 12.5% in spread */
    "<title>cpu3: 16000 interrupts (100.0%)",
    "<title>cpu3: 500 interrupts (12.5%)",
    "NUMA-local to the NIC: ens1f0, NUMA node 0: 0-5",
    /* parameters: sizes as 4M, a setting left alone in the same words */
    "<th class=\"key\">sysctl.net.core.rmem_max</th><td class=\"long\">&gt;= 4M</td><td class=\"long\">as "
    "found</td>",
    "<th class=\"key\">irq.irqbalance</th><td class=\"long\">leave</td><td class=\"long\">leave</td><td "
    "class=\"long\">leave</td>",
    "<th class=\"key\">verify.socket_buffer.send</th><td class=\"long\">4M</td><td class=\"long\">4M</td><td "
    "class=\"long\">default</td>",
};

/* report.svg: the title and both charts. */
static const char *const svg_has[] = {
    ">cx5prof campaign 7: c&lt;&amp;&gt;?</text>",
    "receive throughput (Mbps)",
    "loss (% of the datagrams sent), on a fixed 0-100% scale",
};

static void test_page(void **state)
{
	struct history *h = NULL;
	struct json_object *doc;
	char path[128], want[256], *html = NULL, *svg = NULL;
	int64_t r1, r2, r3;
	(void)state;

	snprintf(path, sizeof(path), "%s/history.db", dir);
	assert_int_equal(history_open(path, 0, &h), 0);
	r1 = record(h, 900.0, one_before, one_after, "netperf -H 198.18.0.2 -t UDP_STREAM -l 1 -- -m 8000");
	r2 = record(h, 1100.0, one_before, one_after,
		    "netperf -H 198.18.0.2 -t UDP_STREAM -l 1 -- -m 8000 -s 4M");
	r3 = record(h, 2000.0, spread_before, spread_after, "netperf -H 198.18.0.2 -t UDP_STREAM -l 1");
	doc = campaign_doc(r1, r2, r3);
	assert_non_null(doc);
	assert_int_equal(report_html(h, doc, &html), 0);

	for (size_t i = 0; i < ARRAY_SIZE(page_has); i++)
		assert_non_null(strstr(html, page_has[i]));
	/* a campaign's results carry no bare ratio of medians (its
	 * comparisons have the intervals) */
	assert_null(strstr(html, "vs previous"));
	/* no control character of the document reaches the page */
	assert_null(strpbrk(html, "\x01\x07\x1b"));
	/* the commands, with links to the bundles; no other URL, no script */
	assert_non_null(strstr(html, "-m 8000 -s 4M</code>"));
	snprintf(want, sizeof(want), "<a href=\"runs/run-%lld/README.md\">", (long long)r2);
	assert_non_null(strstr(html, want));
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "https://"));

	/* report.svg: both charts in one picture of its own */
	assert_int_equal(report_svg(doc, &svg), 0);
	assert_true(strncmp(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44) == 0);
	for (size_t i = 0; i < ARRAY_SIZE(svg_has); i++)
		assert_non_null(strstr(svg, svg_has[i]));
	free(svg);
	free(html);
	json_object_put(doc);
	history_close(h);
}

/* Rounds whose local_cpus does not parse: each round's note replaces
 * the last one's, which is freed (the sanitizer run finds a leak). */
static void test_heat_bad_local(void **state)
{
	static const char bad_facts[] =
	    "{\"hostname\": \"lab1\", \"interfaces\": [{\"name\": \"ens1f0\", \"pci\": \"0000:01:00.0\","
	    " \"numa_node\": 0, \"local_cpus\": \"zz\"}]}";
	struct history *h = NULL;
	struct json_object *doc;
	char path[128], *html = NULL;
	int64_t r1, r2, r3;
	(void)state;

	snprintf(path, sizeof(path), "%s/bad-local.db", dir);
	assert_int_equal(history_open(path, 0, &h), 0);
	record_facts = bad_facts;
	r1 = record(h, 900.0, one_before, one_after, "netperf -H 198.18.0.2 -t UDP_STREAM -l 1");
	r2 = record(h, 1100.0, one_before, one_after, "netperf -H 198.18.0.2 -t UDP_STREAM -l 1");
	r3 = record(h, 2000.0, spread_before, spread_after, "netperf -H 198.18.0.2 -t UDP_STREAM -l 1");
	record_facts = host_facts;
	doc = campaign_doc(r1, r2, r3);
	assert_non_null(doc);
	assert_int_equal(report_html(h, doc, &html), 0);
	assert_non_null(strstr(html, "</html>"));
	free(html);
	json_object_put(doc);
	history_close(h);
}

static const char single_doc[] =
    "{\"campaign\": null, \"name\": \"runs\", \"groups\": [{\"group\": \"run 1\", \"description\": null,"
    " \"skipped\": null, \"median_recv_mbps\": 1307.21, \"min_recv_mbps\": 1307.21, \"max_recv_mbps\": "
    "1307.21,"
    " \"median_loss_percent\": 2.0, \"change_percent\": null, \"profile\": null,"
    " \"rounds\": [{\"run\": 1, \"recv_mbps\": 1307.21, \"loss_percent\": 2.0}]}]}";

static void test_single_runs(void **state)
{
	struct history *h = NULL;
	struct json_object *doc;
	char path[128], *html = NULL;
	(void)state;

	snprintf(path, sizeof(path), "%s/history.db", dir);
	assert_int_equal(history_open(path, 0, &h), 0);
	doc = json_tokener_parse(single_doc);
	assert_int_equal(report_html(h, doc, &html), 0);
	assert_non_null(strstr(html, "<h2>Receive throughput of each run</h2>"));
	assert_non_null(strstr(html, "<th class=\"num\">receive Mbps</th>"));
	assert_null(strstr(html, "median"));
	assert_null(strstr(html, "1307.21-1307.21"));
	assert_null(strstr(html, "rounds"));
	free(html);
	json_object_put(doc);
	history_close(h);
}

/* One line for a terminal: no control or bidirectional character left. */
static void test_escape_line(void **state)
{
	_cleanup_free_ char *a = str_escape_line("a\nb\tc\\d\033[2J\x7f");
	_cleanup_free_ char *b = str_escape_line("h6\xe2\x80\xae"
						 "evil \xe2\x81\xa6x\xe2\x80\x94y \xc2\x9bz \xd8\x9c");
	_cleanup_free_ char *c = str_escape_line("");

	(void)state;
	assert_string_equal(a, "a\\nb\\tc\\\\d\\x1b[2J\\x7f");
	/* U+202E and U+2066 escaped, an em dash (U+2014) kept, C1 and U+061C escaped */
	assert_string_equal(b, "h6\\u202eevil \\u2066x\xe2\x80\x94y \\u009bz \\u061c");
	assert_string_equal(c, "");
}

static void test_escape(void **state)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	(void)state;

	/* C0, DEL, C1 (U+0085), a stray continuation byte, an overlong '/',
	 * a surrogate: '?' each; valid UTF-8 kept */
	html_text(f, "a\x01<b\x7f\xc2\x85\x80\xc0\xaf\xed\xa0\x80&'\xc3\xa9\xe2\x80\xa6\n\t");
	fclose(f);
	assert_string_equal(out, "a?&lt;b????????&amp;&#39;\xc3\xa9\xe2\x80\xa6\n\t");
	free(out);
	assert_int_equal(utf8_width("\xc3\xa9t\xc3\xa9"), 3);
	out = utf8_prefix("\xc3\xa9t\xc3\xa9", 2);
	assert_string_equal(out, "\xc3\xa9t");
	free(out);
}

static int setup(void **state)
{
	(void)state;
	setenv("TZ", "UTC", 1);
	dir = unit_tmpdir_new("report");
	return dir ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return unit_tmpdir_free(TAKE_PTR(dir));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_heat_absolute), cmocka_unit_test(test_heat_ports),
	    cmocka_unit_test(test_heat_rows),	  cmocka_unit_test(test_page),
	    cmocka_unit_test(test_single_runs),	  cmocka_unit_test(test_escape),
	    cmocka_unit_test(test_escape_line),	  cmocka_unit_test(test_heat_bad_local),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
