/* report_hosts.c: the fleet's report.html (see report_hosts.h). */
#define _GNU_SOURCE
#include "report_hosts.h"

#include <math.h>
#include <stdio.h>

#include "base/chart.h"
#include "base/html.h"
#include "base/jsonget.h"
#include "base/util.h"
#include "base/version.h"

/* A cell with the value as text, "-" when it is missing or null. */
static void cell(FILE *f, struct json_object *row, const char *key)
{
	struct json_object *v = jget(row, key);

	fputs("<td>", f);
	html_text(f, v && !json_object_is_type(v, json_type_null) ? json_object_get_string(v) : "-");
	fputs("</td>", f);
}

/* Each host's verify run as a bar on an axis from 0 (base/chart.h);
 * a host without a run says why instead. */
static int throughput_bars(FILE *f, struct json_object *hosts)
{
	size_t n = json_object_array_length(hosts);
	_cleanup_free_ struct chart_row *rows = calloc(n ? n : 1, sizeof(*rows));
	struct chart c = {
	    .axis = "receive throughput of each host's verify run (Mbps)",
	    .unit = "Mbps",
	    .decimals = 1,
	    .color = "#3b7dd8",
	    .rows = rows,
	    .n_rows = n,
	};

	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *row = json_object_array_get_idx(hosts, i);
		rows[i] = (struct chart_row){
		    .label = json_object_get_string(jget(row, "host")),
		    .value = jnum(row, "recv_mbps"),
		    .note = json_object_get_string(jget(row, "outcome")),
		};
	}
	fputs("<h3>Receive throughput of each host's verify run</h3>\n", f);
	html_svg_open(f, CHART_WIDTH, chart_height(&c), c.axis, false);
	chart_draw(f, &c, 0);
	html_svg_close(f);
	return 0;
}

static void host_table(FILE *f, struct json_object *hosts)
{
	fputs("<h3>Hosts</h3>\n<table>\n<tr><th>host</th><th>profile</th><th>transaction</th><th>changed</th>"
	      "<th>verify</th><th>receive Mbps</th><th>loss %</th><th>drift</th><th>exit code</th>"
	      "<th>reason</th><th>run</th></tr>\n",
	      f);
	for (size_t i = 0; i < json_object_array_length(hosts); i++) {
		struct json_object *row = json_object_array_get_idx(hosts, i),
				   *changed = jget(row, "changed");
		double m = jnum(row, "recv_mbps"), loss = jnum(row, "loss_percent");

		fputs("<tr>", f);
		cell(f, row, "host");
		cell(f, row, "profile");
		cell(f, row, "transaction");
		fprintf(f, "<td>%s</td>",
			!changed || json_object_is_type(changed, json_type_null) ? "-"
			: json_object_get_boolean(changed)			 ? "yes"
										 : "no");
		cell(f, row, "outcome");
		if (isnan(m))
			fputs("<td>-</td>", f);
		else
			fprintf(f, "<td>%.1f</td>", m);
		if (isnan(loss))
			fputs("<td>-</td>", f);
		else
			fprintf(f, "<td>%.2f</td>", loss);
		cell(f, row, "drift");
		cell(f, row, "exit_code");
		cell(f, row, "reason");
		cell(f, row, "run");
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

int report_hosts_html(struct json_object *doc, char **ret)
{
	struct json_object *hosts = jget(doc, "hosts"), *verdict = jget(doc, "verdict");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r;

	if (!f)
		return -ENOMEM;
	html_page_open(f, "cx5prof report: fleet", NULL);
	fprintf(f, "<h1>Fleet: %zu host%s</h1>\n", json_object_array_length(hosts),
		json_object_array_length(hosts) == 1 ? "" : "s");
	if (verdict) {
		fputs("<p><strong>", f);
		html_text(f, json_object_get_string(verdict));
		fputs("</strong></p>\n", f);
	}
	fprintf(f,
		"<p class=\"note\">One row per host: its verify run (pass, fail, drift, error; \"not run\" "
		"when the rollout gave it none) and what the rollout said of it; cx5prof %s</p>\n",
		CX5PROF_VERSION);
	r = throughput_bars(f, hosts);
	host_table(f, hosts);
	html_page_close(f);
	if (fclose(f) != 0 || r < 0) {
		free(buf);
		return -ENOMEM;
	}
	*ret = buf;
	return 0;
}
