/* test_report.c: report.html from a campaign document and runs recorded in
 * a real SQLite history: the heat strip sums the NIC's completion
 * interrupts (mlx5_comp* rows only, after - before, per CPU, over the
 * group's runs), the bars carry the rounds' min-max, text is escaped, and
 * the page names no URL but its runs' bundles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "report.h"
#include "store/history.h"
#include "store/runs.h"
#include "unit.h"

static char *dir;

static const char before[] =
    "           CPU0       CPU1       CPU2       CPU3\n"
    " 98:          5          0          0          0  IR-PCI-MSIX  mlx5_comp0@pci:0000:3b:00.0\n"
    " 99:          0         10          0          0  IR-PCI-MSIX  mlx5_comp1@pci:0000:3b:00.0\n"
    "120:          0          0       1000          0  IR-PCI-MSIX  nvme0q1\n";
static const char after[] =
    "           CPU0       CPU1       CPU2       CPU3\n"
    " 98:        105          0          0        500  IR-PCI-MSIX  mlx5_comp0@pci:0000:3b:00.0\n"
    " 99:          0         40          0          0  IR-PCI-MSIX  mlx5_comp1@pci:0000:3b:00.0\n"
    "120:          0          0       9000          0  IR-PCI-MSIX  nvme0q1\n";

static int64_t record(struct history *h, double mbps, const char *cmd)
{
	struct run_artifact a[] = {{(char *)"interrupts_before", (char *)before},
				   {(char *)"interrupts_after", (char *)after}};
	struct run_record r = {.runner = (char *)"netperf",
			       .command_line = (char *)cmd,
			       .recv_mbps = mbps,
			       .artifacts = a,
			       .n_artifacts = 2};
	int64_t id = 0;

	assert_int_equal(runs_record(h, &r, &id), 0);
	return id;
}

static void test_page(void **state)
{
	struct history *h = NULL;
	struct json_object *doc;
	char path[128], json[1024], *html = NULL;
	int64_t r1, r2;
	(void)state;

	snprintf(path, sizeof(path), "%s/history.db", dir);
	assert_int_equal(history_open(path, 0, &h), 0);
	r1 = record(h, 900.0, "netperf -H 198.18.0.2 -t UDP_STREAM -l 1 -- -m 8000");
	r2 = record(h, 1100.0, "netperf -H 198.18.0.2 -t UDP_STREAM -l 1 -- -m 8000 -s 4M");
	snprintf(
	    json, sizeof(json),
	    "{\"campaign\": 7, \"name\": \"c<&>\", \"file\": \"c.yaml\", \"status\": \"done\", \"repeat\": 2,"
	    " \"runs\": 2, \"verdict\": \"g \\\"x\\\" helped\", \"groups\": [{\"group\": \"g<1>\","
	    " \"description\": \"MTU & IRQs\", \"skipped\": null, \"median_recv_mbps\": 1000.0,"
	    " \"min_recv_mbps\": 900.0, \"max_recv_mbps\": 1100.0, \"median_loss_percent\": 0.5,"
	    " \"change_percent\": null, \"irq_spread\": \"max cpu3 80%%\", \"profile\": {\"link\": {\"mtu\": "
	    "9000}},"
	    " \"rounds\": [{\"run\": %lld, \"recv_mbps\": 900.0, \"loss_percent\": 0.4},"
	    " {\"run\": %lld, \"recv_mbps\": 1100.0, \"loss_percent\": 0.6}]},"
	    " {\"group\": \"skip\", \"description\": null, \"skipped\": \"ens1f0: driver too old\","
	    " \"median_recv_mbps\": null, \"min_recv_mbps\": null, \"max_recv_mbps\": null,"
	    " \"median_loss_percent\": null, \"change_percent\": null, \"profile\": null, \"rounds\": []}]}",
	    (long long)r1, (long long)r2);
	doc = json_tokener_parse(json);
	assert_non_null(doc);
	assert_int_equal(report_html(h, doc, &html), 0);

	/* two runs: mlx5_comp0 100 on cpu0 and 500 on cpu3, mlx5_comp1 30 on
	 * cpu1; nvme0q1 is not the NIC's */
	assert_non_null(strstr(html, "<title>cpu0: 200 interrupts</title>"));
	assert_non_null(strstr(html, "<title>cpu1: 60 interrupts</title>"));
	assert_non_null(strstr(html, "<title>cpu2: 0 interrupts</title>"));
	assert_non_null(strstr(html, "<title>cpu3: 1000 interrupts</title>"));
	assert_non_null(strstr(html, "1260 interrupts</span>"));
	/* the busiest CPU is the darkest cell, an idle one white */
	assert_non_null(strstr(html, "fill=\"rgb(30,95,195)\" stroke=\"#bbb\"><title>cpu3:"));
	assert_non_null(strstr(html, "fill=\"rgb(255,255,255)\" stroke=\"#bbb\"><title>cpu2:"));
	/* bars: the median with the rounds' min-max; a skipped group says so */
	assert_non_null(strstr(html, "1000.00 Mbps (900.00-1100.00)</text>"));
	assert_non_null(strstr(html, "0.50 % (0.40-0.60)</text>"));
	assert_non_null(strstr(html, "class=\"s\">skipped</text>"));
	assert_non_null(strstr(html, "skipped: ens1f0: driver too old"));
	/* escaped text; the parameters; the commands with links to the bundles */
	assert_non_null(strstr(html, "<h1>Campaign 7: c&lt;&amp;&gt;</h1>"));
	assert_non_null(strstr(html, "g &quot;x&quot; helped"));
	assert_non_null(strstr(html, ">g&lt;1&gt;</text>"));
	assert_non_null(strstr(html, "<td>MTU &amp; IRQs</td><td>9000</td>"));
	assert_non_null(strstr(html, "-m 8000 -s 4M</code>"));
	snprintf(json, sizeof(json), "<a href=\"runs/run-%lld/README.md\">", (long long)r2);
	assert_non_null(strstr(html, json));
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "https://"));
	free(html);
	json_object_put(doc);
	history_close(h);
}

static int setup(void **state)
{
	(void)state;
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
	    cmocka_unit_test(test_page),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
