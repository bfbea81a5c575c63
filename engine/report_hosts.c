/* report_hosts.c: the fleet's report.html (see report_hosts.h). */
#define _GNU_SOURCE
#include "report_hosts.h"

#include <math.h>
#include <stdio.h>

#include "base/util.h"
#include "base/version.h"
#include "report.h"

#define BAR_W	520
#define LABEL_W 160
#define ROW_H	24

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;
	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static double num(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);
	return v && !json_object_is_type(v, json_type_null) ? json_object_get_double(v) : NAN;
}

/* A cell with the value as text, "-" when it is missing or null. */
static void cell(FILE *f, struct json_object *row, const char *key)
{
	struct json_object *v = get(row, key);

	fputs("<td>", f);
	report_esc(f, v && !json_object_is_type(v, json_type_null) ? json_object_get_string(v) : "-");
	fputs("</td>", f);
}

static void throughput_bars(FILE *f, struct json_object *hosts)
{
	size_t n = json_object_array_length(hosts);
	double top = 0;

	for (size_t i = 0; i < n; i++) {
		double m = num(json_object_array_get_idx(hosts, i), "recv_mbps");
		top = isnan(m) ? top : fmax(top, m);
	}
	if (top <= 0)
		top = 1;
	fprintf(f,
		"<h3>Receive throughput of each host's verify run</h3>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\">\n",
		LABEL_W + BAR_W + 200, (int)(n * ROW_H) + 8);
	for (size_t i = 0; i < n; i++) {
		struct json_object *row = json_object_array_get_idx(hosts, i);
		double m = num(row, "recv_mbps");
		int y = (int)i * ROW_H + 4;

		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"l\">", LABEL_W - 8, y + 15);
		report_esc(f, json_object_get_string(get(row, "host")));
		fputs("</text>\n", f);
		if (isnan(m)) {
			fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"s\">", LABEL_W, y + 15);
			report_esc(f, json_object_get_string(get(row, "outcome")));
			fputs("</text>\n", f);
			continue;
		}
		fprintf(f,
			"<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#3b7dd8\"/>\n"
			"<text x=\"%.1f\" y=\"%d\" class=\"v\">%.1f Mbps, ",
			LABEL_W, y + 2, BAR_W * m / top, ROW_H - 8, LABEL_W + BAR_W * m / top + 6, y + 15, m);
		report_esc(f, json_object_get_string(get(row, "outcome")));
		fputs("</text>\n", f);
	}
	fputs("</svg>\n", f);
}

static void host_table(FILE *f, struct json_object *hosts)
{
	fputs("<h3>Hosts</h3>\n<table>\n<tr><th>host</th><th>profile</th><th>transaction</th><th>changed</th>"
	      "<th>verify</th><th>receive Mbps</th><th>loss %</th><th>drift</th><th>exit code</th>"
	      "<th>reason</th><th>run</th></tr>\n",
	      f);
	for (size_t i = 0; i < json_object_array_length(hosts); i++) {
		struct json_object *row = json_object_array_get_idx(hosts, i), *changed = get(row, "changed");
		double m = num(row, "recv_mbps"), loss = num(row, "loss_percent");

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
	struct json_object *hosts = get(doc, "hosts"), *verdict = get(doc, "verdict");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return -ENOMEM;
	report_page_head(f, "fleet");
	fprintf(f, "Fleet: %zu host%s</h1>\n", json_object_array_length(hosts),
		json_object_array_length(hosts) == 1 ? "" : "s");
	if (verdict) {
		fputs("<p><strong>", f);
		report_esc(f, json_object_get_string(verdict));
		fputs("</strong></p>\n", f);
	}
	fprintf(
	    f,
	    "<p class=\"s\">One row per host: its verify run (pass, fail, drift, error; \"not run\" when the "
	    "rollout gave it none) and what the rollout said of it; cx5prof %s</p>\n",
	    CX5PROF_VERSION);
	throughput_bars(f, hosts);
	host_table(f, hosts);
	fputs("</body>\n</html>\n", f);
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	*ret = buf;
	return 0;
}
