/* tunereport.c: a tune session as a page: the step chart (the baseline,
 * then each measured step's median receive throughput and loss, the kept
 * steps marked), the table of steps and the minimal profile.
 *
 * Owns: that page. Must never: draw a figure the document does not hold,
 * or let one byte of a stored string into the page unescaped (base/html.h). */
#define _GNU_SOURCE
#include "tunereport.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/chart.h"
#include "base/html.h"
#include "base/jsonget.h"
#include "base/util.h"
#include "base/version.h"

/* One chart of the steps: the baseline's figure, then each step's
 * (a step without rounds says why instead of a bar). */
static int step_chart(FILE *f, struct json_object *doc, bool loss)
{
	struct json_object *steps = jget(doc, "steps");
	size_t n = json_object_array_length(steps) + 1;
	_cleanup_free_ struct chart_row *rows = calloc(n, sizeof(*rows));
	char **labels = calloc(n, sizeof(char *));
	const char *key = loss ? "median_loss_percent" : "median_recv_mbps";
	struct chart c = {
	    .axis = loss ? "median loss of each step's candidate (%)"
			 : "median receive throughput of each step's candidate (Mbps)",
	    .legend = "kept steps are marked \"kept\"; the first row is the starting point",
	    .unit = loss ? "%" : "Mbps",
	    .decimals = loss ? 2 : 1,
	    .color = loss ? "#d8763b" : "#3b7dd8",
	    .rows = rows,
	    .n_rows = n,
	};

	if (!rows || !labels) {
		free(labels);
		return -ENOMEM;
	}
	rows[0] = (struct chart_row){.label = "baseline", .value = jnum(jget(doc, "baseline"), key)};
	if (isnan(rows[0].value))
		rows[0].note = "not measured";
	for (size_t i = 1; i < n; i++) {
		struct json_object *s = json_object_array_get_idx(steps, i - 1);
		const char *outcome = jstr(s, "outcome");

		labels[i] = strprintf("step %d %s%s%s", json_object_get_int(jget(s, "step")),
				      strna(jstr(s, "family")),
				      streq_ptr(jstr(s, "kind"), "leave-one-out") ? " without" : "",
				      streq_ptr(outcome, "kept") ? " (kept)" : "");
		rows[i] = (struct chart_row){.label = labels[i], .value = jnum(s, key)};
		if (isnan(rows[i].value))
			rows[i].note = outcome ? outcome : "no rounds";
	}
	fprintf(f, "<h3>%s</h3>\n", loss ? "Loss per step" : "Receive throughput per step");
	html_svg_open(f, CHART_WIDTH, chart_height(&c), c.axis, false);
	chart_draw(f, &c, 0);
	html_svg_close(f);
	for (size_t i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
	return 0;
}

/* Five columns, so that the table fits an 800 px window: the step, what
 * it tried and why, its rounds, what they measured, and the outcome. */
static void step_table(FILE *f, struct json_object *doc)
{
	struct json_object *steps = jget(doc, "steps");

	fputs(
	    "<h3>Steps</h3>\n<table>\n<tr><th>step</th><th>tried</th><th>rounds</th><th>measured against the "
	    "profile before it</th><th>outcome</th></tr>\n",
	    f);
	for (size_t i = 0; i < json_object_array_length(steps); i++) {
		struct json_object *s = json_object_array_get_idx(steps, i);

		fprintf(f, "<tr><td>%d</td><td>", json_object_get_int(jget(s, "step")));
		html_textf(f, "%s%s: ", strna(jstr(s, "family")),
			   streq_ptr(jstr(s, "kind"), "leave-one-out") ? " left out" : "");
		json_object_object_foreach(jget(s, "change"), k, v)
		{
			html_textf(f, "%s: %s ", k, json_object_get_string(v));
		}
		if (jstr(s, "evidence")) {
			fputs("<br><span class=\"note\">", f);
			html_text(f, jstr(s, "evidence"));
			fputs("</span>", f);
		}
		fprintf(f, "</td><td>%d</td><td>", json_object_get_int(jget(s, "rounds")));
		html_textf(f, "throughput %s", strna(jstr(s, "recv_text")));
		fputs("<br>", f);
		html_textf(f, "loss %s", strna(jstr(s, "loss_text")));
		fputs("</td><td>", f);
		html_textf(f, "%s: %s", strna(jstr(s, "outcome")), strna(jstr(s, "why")));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

int tune_report_html(struct json_object *doc, char **ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r;

	if (!f)
		return -ENOMEM;
	html_page_open(f, "cx5prof report: tune", NULL);
	fprintf(f, "<h1>tune session %" PRId64 "</h1>\n<p><strong>",
		json_object_get_int64(jget(doc, "tune")));
	html_textf(f, "%zu change%s kept of %zu steps; stopped: %s%s%s",
		   json_object_array_length(jget(doc, "kept")),
		   json_object_array_length(jget(doc, "kept")) == 1 ? "" : "s",
		   json_object_array_length(jget(doc, "steps")), strna(jstr(doc, "stopped")),
		   jstr(doc, "stop_note") ? ": " : "", jstr(doc, "stop_note") ? jstr(doc, "stop_note") : "");
	fputs("</strong></p>\n<p class=\"note\">", f);
	html_textf(f, "starting profile %s; each step measured against the profile before it; cx5prof %s",
		   strna(jstr(doc, "profile")), CX5PROF_VERSION);
	fputs("</p>\n", f);
	r = step_chart(f, doc, false);
	if (r >= 0)
		r = step_chart(f, doc, true);
	step_table(f, doc);
	fputs("<h3>The minimal profile</h3>\n<pre>", f);
	html_text(f, jstr(doc, "profile_yaml"));
	fputs("</pre>\n", f);
	html_page_close(f);
	if (fclose(f) != 0 || r < 0) {
		free(buf);
		return -ENOMEM;
	}
	*ret = buf;
	return 0;
}
