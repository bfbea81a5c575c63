/* report.c: report.html of a campaign document (see report.h).
 *
 * Owns: the page's layout, its SVG charts and its escaping. Everything is
 * inline (the page opens on a host without network); the SVG is written as
 * XML (every element closed, attributes quoted) so XML tools can read it.
 * Must never: write files, or emit a URL other than relative links to the
 * runs' bundles. */
#define _GNU_SOURCE
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "base/version.h"
#include "ledger.h"
#include "os/interrupts.h"
#include "store/runs.h"

#define BAR_W		   520 /* width of the longest bar */
#define LABEL_W		   200
#define ROW_H		   26
#define HEAT_CELL	   14
#define HEAT_MAX	   256 /* CPUs drawn in a strip */
#define NIC_IRQ_ID	   "mlx5_comp"
#define LEDGER_REPORT_ROWS 32 /* the ledger's stages and unaccounted */

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*s, f);
		}
}

void report_esc(FILE *f, const char *s)
{
	esc(f, s);
}

void report_page_head(FILE *f, const char *title)
{
	fputs(
	    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>cx5prof report: ",
	    f);
	esc(f, title);
	fputs("</title>\n<style>\n"
	      "body{font-family:sans-serif;margin:2em;color:#222;max-width:72em}\n"
	      "table{border-collapse:collapse;margin:.5em 0 1.5em}\n"
	      "td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left;font-size:90%}\n"
	      "th{background:#f0f0f0}\ncode{font-size:90%}\n"
	      ".l{font-size:13px}\n.v{font-size:12px}\n.t{font-size:9px;fill:#666}\n"
	      ".s{font-size:12px;color:#666;fill:#666}\n.strip{margin:.3em 0}\n"
	      ".strip .l{display:inline-block;width:14em}\n"
	      "</style>\n</head>\n<body>\n<h1>",
	      f);
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;
	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *str(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);
	return v ? json_object_get_string(v) : NULL;
}

static double num(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);
	return v ? json_object_get_double(v) : NAN;
}

/* The min and max of a figure over a group's rounds. */
static void round_range(struct json_object *g, const char *key, double *lo, double *hi)
{
	struct json_object *rounds = get(g, "rounds");

	*lo = *hi = NAN;
	for (size_t i = 0; rounds && i < json_object_array_length(rounds); i++) {
		double v = num(json_object_array_get_idx(rounds, i), key);
		if (isnan(v))
			continue;
		*lo = isnan(*lo) || v < *lo ? v : *lo;
		*hi = isnan(*hi) || v > *hi ? v : *hi;
	}
}

static void group_label(FILE *f, struct json_object *g)
{
	esc(f, str(g, "group"));
	if (str(g, "sweep_value")) {
		fputs(" = ", f);
		esc(f, str(g, "sweep_value"));
	}
}

/* Horizontal bars of a per-group figure (median) with the rounds'
 * min-max as a whisker. */
static void bars(FILE *f, struct json_object *groups, const char *title, const char *median_key,
		 const char *round_key, const char *unit, const char *color)
{
	size_t n = json_object_array_length(groups);
	double top = 0;
	int h = (int)(n * ROW_H) + 30;

	for (size_t i = 0; i < n; i++) {
		double lo, hi, m = num(json_object_array_get_idx(groups, i), median_key);
		round_range(json_object_array_get_idx(groups, i), round_key, &lo, &hi);
		top = fmax(top, fmax(isnan(m) ? 0 : m, isnan(hi) ? 0 : hi));
	}
	if (top <= 0)
		top = 1;
	fprintf(f, "<h3>");
	esc(f, title);
	fprintf(f,
		"</h3>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\">\n",
		LABEL_W + BAR_W + 280, h);
	for (size_t i = 0; i < n; i++) {
		struct json_object *g = json_object_array_get_idx(groups, i);
		double m = num(g, median_key), lo, hi;
		int y = (int)i * ROW_H + 4;

		round_range(g, round_key, &lo, &hi);
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"l\">", LABEL_W - 8, y + 16);
		group_label(f, g);
		fputs("</text>\n", f);
		if (str(g, "skipped")) {
			fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"s\">skipped</text>\n", LABEL_W, y + 16);
			continue;
		}
		if (isnan(m)) {
			fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"s\">not measured</text>\n", LABEL_W,
				y + 16);
			continue;
		}
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"18\" fill=\"%s\"/>\n", LABEL_W, y,
			fmax(1, BAR_W * m / top), color);
		if (!isnan(lo) && !isnan(hi))
			fprintf(f,
				"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#222\" "
				"stroke-width=\"2\"/>\n"
				"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#222\"/>\n"
				"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#222\"/>\n",
				LABEL_W + BAR_W * lo / top, y + 9, LABEL_W + BAR_W * hi / top, y + 9,
				LABEL_W + BAR_W * lo / top, y + 3, LABEL_W + BAR_W * lo / top, y + 15,
				LABEL_W + BAR_W * hi / top, y + 3, LABEL_W + BAR_W * hi / top, y + 15);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"v\">%.2f %s",
			LABEL_W + BAR_W * fmax(m, isnan(hi) ? m : hi) / top + 6, y + 14, m, unit);
		if (!isnan(lo) && !isnan(hi) && hi > lo)
			fprintf(f, " (%.2f-%.2f)", lo, hi);
		fputs("</text>\n", f);
	}
	fprintf(f, "<line x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n</svg>\n", LABEL_W,
		LABEL_W, h - 26);
}

/* Per-CPU completion interrupts of a group: the sum over its runs of the
 * NIC's mlx5_comp* rows, after - before. counts[] has HEAT_MAX entries;
 * returns the number of CPUs seen, 0 without snapshots. */
static unsigned group_interrupts(struct history *h, struct json_object *g, uint64_t *counts)
{
	struct json_object *rounds = get(g, "rounds");
	unsigned ncpus = 0;

	for (size_t i = 0; rounds && i < json_object_array_length(rounds); i++) {
		struct json_object *run = get(json_object_array_get_idx(rounds, i), "run");
		_cleanup_(run_record_done) struct run_record rec = {0};
		_cleanup_interrupts_ struct interrupts *before = NULL, *after = NULL;
		const struct run_artifact *b, *a;

		if (!run || runs_get(h, json_object_get_int64(run), &rec) < 0)
			continue;
		b = run_record_artifact(&rec, "interrupts_before");
		a = run_record_artifact(&rec, "interrupts_after");
		if (!b || !a || !b->content || !a->content ||
		    interrupts_parse(b->content, &before, NULL) < 0 ||
		    interrupts_parse(a->content, &after, NULL) < 0)
			continue;
		for (size_t k = 0; k < after->nrows; k++) {
			const struct interrupts_row *ra = &after->rows[k], *rb;
			if (!ra->name || !strstr(ra->name, NIC_IRQ_ID))
				continue;
			rb = interrupts_find(before, ra->irq);
			for (unsigned c = 0; c < after->ncpus && after->cpus[c] < HEAT_MAX; c++) {
				uint64_t now = ra->counts[c],
					 then = rb ? interrupts_count_on(before, rb, after->cpus[c]) : 0;
				counts[after->cpus[c]] += now > then ? now - then : 0;
			}
		}
		for (unsigned c = 0; c < after->ncpus; c++)
			if (after->cpus[c] < HEAT_MAX && after->cpus[c] + 1 > ncpus)
				ncpus = after->cpus[c] + 1;
	}
	return ncpus;
}

static void heat_strips(FILE *f, struct history *h, struct json_object *groups)
{
	size_t n = json_object_array_length(groups);

	fputs(
	    "<h3>NIC completion interrupts per CPU during the runs</h3>\n"
	    "<p class=\"s\">Each cell is one CPU; the darker, the larger its share of the group's " NIC_IRQ_ID
	    "* interrupts (/proc/interrupts after - before, summed over the group's runs).</p>\n",
	    f);
	for (size_t i = 0; i < n; i++) {
		struct json_object *g = json_object_array_get_idx(groups, i);
		uint64_t counts[HEAT_MAX] = {0}, total = 0, max = 0;
		unsigned ncpus = group_interrupts(h, g, counts);

		for (unsigned c = 0; c < ncpus; c++) {
			total += counts[c];
			max = counts[c] > max ? counts[c] : max;
		}
		fputs("<div class=\"strip\"><span class=\"l\">", f);
		group_label(f, g);
		fputs("</span>", f);
		if (ncpus == 0) {
			fputs(" <span class=\"s\">no /proc/interrupts snapshots</span></div>\n", f);
			continue;
		}
		fprintf(
		    f,
		    "\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%d\" role=\"img\">\n",
		    ncpus * HEAT_CELL + 2, HEAT_CELL + 16);
		for (unsigned c = 0; c < ncpus; c++) {
			double share = max ? (double)counts[c] / (double)max : 0;
			fprintf(f,
				"<rect x=\"%u\" y=\"1\" width=\"%d\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" "
				"stroke=\"#bbb\"><title>cpu%u: %" PRIu64 " interrupts</title></rect>\n",
				1 + c * HEAT_CELL, HEAT_CELL, HEAT_CELL, (int)(255 - 225 * share),
				(int)(255 - 160 * share), (int)(255 - 60 * share), c, counts[c]);
			if (c % 8 == 0)
				fprintf(f, "<text x=\"%u\" y=\"%d\" class=\"t\">%u</text>\n",
					1 + c * HEAT_CELL, HEAT_CELL + 13, c);
		}
		fputs("</svg>", f);
		if (total == 0)
			fputs(" <span class=\"s\">no completion interrupts during the runs</span>", f);
		else
			fprintf(f, " <span class=\"s\">%" PRIu64 " interrupts</span>", total);
		fputs("</div>\n", f);
	}
}

/* A parameter of a group's profile, "-" when unset. */
static void param(FILE *f, struct json_object *profile, const char *section, const char *sub, const char *key)
{
	struct json_object *o = get(profile, section);

	if (sub)
		o = get(o, sub);
	o = get(o, key);
	fputs("<td>", f);
	if (!o)
		fputs("-", f);
	else if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++) {
			if (i)
				fputs(", ", f);
			esc(f, json_object_get_string(json_object_array_get_idx(o, i)));
		}
	} else
		esc(f, json_object_get_string(o));
	fputs("</td>", f);
}

static void parameter_table(FILE *f, struct json_object *groups)
{
	static const struct {
		const char *title, *section, *sub, *key;
	} cols[] = {
	    {"MTU", "link", NULL, "mtu"},
	    {"IRQ policy", "irq", NULL, "policy"},
	    {"irqbalance", "irq", NULL, "irqbalance"},
	    {"rmem_max", "sysctl", NULL, "net.core.rmem_max"},
	    {"wmem_max", "sysctl", NULL, "net.core.wmem_max"},
	    {"runner", "verify", NULL, "runner"},
	    {"duration s", "verify", NULL, "duration"},
	    {"message", "verify", NULL, "message_size"},
	    {"send buffer", "verify", "socket_buffer", "send"},
	    {"receive buffer", "verify", "socket_buffer", "receive"},
	    {"streams", "verify", NULL, "streams"},
	};

	fputs("<h3>Parameters</h3>\n<table>\n<tr><th>group</th><th>description</th>", f);
	for (size_t c = 0; c < ARRAY_SIZE(cols); c++)
		fprintf(f, "<th>%s</th>", cols[c].title);
	fputs("</tr>\n", f);
	for (size_t i = 0; i < json_object_array_length(groups); i++) {
		struct json_object *g = json_object_array_get_idx(groups, i), *p = get(g, "profile");
		fputs("<tr><td>", f);
		group_label(f, g);
		fputs("</td><td>", f);
		esc(f, str(g, "description") ? str(g, "description") : "");
		fputs("</td>", f);
		for (size_t c = 0; c < ARRAY_SIZE(cols); c++)
			param(f, p, cols[c].section, cols[c].sub, cols[c].key);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* The benchmark peer's MTU and drops (from `serve`), "-" when it gave
 * none. */
static void peer_cell(FILE *f, struct json_object *g)
{
	double mtu = num(g, "peer_mtu"), drops = num(g, "peer_drops");

	fputs("<td>", f);
	if (!isnan(mtu))
		fprintf(f, "mtu %.0f", mtu);
	if (!isnan(drops))
		fprintf(f, drops > 0 ? "%sdrops +%.0f" : "%sdrops none", isnan(mtu) ? "" : ", ", drops);
	if (isnan(mtu) && isnan(drops))
		fputs("-", f);
	fputs("</td>", f);
}

static void results_table(FILE *f, struct json_object *groups)
{
	fputs(
	    "<h3>Results</h3>\n<table>\n<tr><th>group</th><th>median receive Mbps</th><th>min-max Mbps</th>"
	    "<th>median loss %</th><th>irq spread</th><th>vs previous</th><th>peer</th><th>note</th></tr>\n",
	    f);
	for (size_t i = 0; i < json_object_array_length(groups); i++) {
		struct json_object *g = json_object_array_get_idx(groups, i);
		double m = num(g, "median_recv_mbps"), ch = num(g, "change_percent");
		fputs("<tr><td>", f);
		group_label(f, g);
		if (isnan(m))
			fputs("</td><td>-</td><td>-</td><td>-</td>", f);
		else
			fprintf(f, "</td><td>%.2f</td><td>%.2f-%.2f</td><td>%.2f</td>", m,
				num(g, "min_recv_mbps"), num(g, "max_recv_mbps"),
				num(g, "median_loss_percent"));
		fputs("<td>", f);
		esc(f, str(g, "irq_spread") ? str(g, "irq_spread") : "-");
		fputs("</td>", f);
		if (isnan(ch))
			fputs("<td>-</td>", f);
		else
			fprintf(f, "<td>%+.0f%%</td>", ch);
		peer_cell(f, g);
		fputs("<td>", f);
		if (str(g, "skipped")) {
			fputs("skipped: ", f);
			esc(f, str(g, "skipped"));
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void commands(FILE *f, struct history *h, struct json_object *groups)
{
	fputs("<h3>Runs and the exact commands</h3>\n<table>\n<tr><th>group</th><th>run</th><th>receive "
	      "Mbps</th>"
	      "<th>loss %</th><th>command</th></tr>\n",
	      f);
	for (size_t i = 0; i < json_object_array_length(groups); i++) {
		struct json_object *g = json_object_array_get_idx(groups, i), *rounds = get(g, "rounds");
		for (size_t k = 0; rounds && k < json_object_array_length(rounds); k++) {
			struct json_object *rd = json_object_array_get_idx(rounds, k), *run = get(rd, "run");
			_cleanup_(run_record_done) struct run_record rec = {0};

			if (!run || runs_get(h, json_object_get_int64(run), &rec) < 0)
				continue;
			fputs("<tr><td>", f);
			group_label(f, g);
			fprintf(f, "</td><td><a href=\"runs/run-%" PRId64 "/README.md\">%" PRId64 "</a></td>",
				rec.id, rec.id);
			fprintf(f, "<td>%.2f</td><td>%.2f</td><td><code>", rec.recv_mbps, rec.loss_pct);
			esc(f, rec.command_line ? rec.command_line : "-");
			fputs("</code></td></tr>\n", f);
		}
	}
	fputs("</table>\n", f);
}

/* One group's loss ledgers (its rounds', summed): rows of the stages that
 * dropped and unaccounted; 0 when no round has a ledger. */
static int group_ledger(FILE *f, struct history *h, struct json_object *g)
{
	struct json_object *rounds = get(g, "rounds");
	size_t n_stages, ledgers = 0;
	const char *const *stages = ledger_stages(&n_stages);
	uint64_t sum[LEDGER_REPORT_ROWS] = {0}, lost = 0;
	const char *limited = str(g, "limited_by");

	if (n_stages + 1 > LEDGER_REPORT_ROWS)
		n_stages = LEDGER_REPORT_ROWS - 1;
	for (size_t k = 0; rounds && k < json_object_array_length(rounds); k++) {
		struct json_object *run = get(json_object_array_get_idx(rounds, k), "run"), *doc;
		_cleanup_(run_record_done) struct run_record rec = {0};

		if (!run || runs_get(h, json_object_get_int64(run), &rec) < 0 || !rec.ledger)
			continue;
		doc = json_tokener_parse(rec.ledger);
		for (size_t i = 0; doc && i <= n_stages; i++) {
			uint64_t v = 0;

			if (ledger_doc_count(doc, i < n_stages ? stages[i] : "unaccounted", &v))
				sum[i] += v;
		}
		ledgers += doc != NULL;
		json_object_put(doc);
	}
	if (ledgers == 0)
		return 0;
	for (size_t i = 0; i <= n_stages; i++)
		lost += sum[i];
	fputs("<table>\n<tr><th>", f);
	group_label(f, g);
	fprintf(f, "</th><th>lost datagrams (%zu round%s)</th><th>share</th></tr>\n", ledgers,
		ledgers == 1 ? "" : "s");
	for (size_t i = 0; i <= n_stages; i++) {
		const char *stage = i < n_stages ? stages[i] : "unaccounted";

		if (sum[i] == 0)
			continue;
		fputs("<tr><td>", f);
		esc(f, ledger_stage_label(stage));
		fprintf(f, "</td><td>%" PRIu64 "</td><td>%.1f%%</td></tr>\n", sum[i],
			100.0 * (double)sum[i] / (double)lost);
	}
	if (lost == 0)
		fputs("<tr><td>no loss</td><td>0</td><td>-</td></tr>\n", f);
	fputs("<tr><td>limited by</td><td colspan=\"2\">", f);
	esc(f, limited ? (ledger_stage_label(limited) ? ledger_stage_label(limited) : limited) : "-");
	fputs("</td></tr>\n</table>\n", f);
	return 1;
}

/* "Where the lost datagrams went": a small table per group from its
 * rounds' loss ledgers (docs/verification.md); nothing when no run has
 * one. */
static void ledger_tables(FILE *f, struct history *h, struct json_object *groups)
{
	bool title = false;

	for (size_t i = 0; groups && i < json_object_array_length(groups); i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *g = open_memstream(&buf, &len);

		if (!g)
			return;
		if (group_ledger(g, h, json_object_array_get_idx(groups, i)) > 0 && fflush(g) == 0) {
			if (!title)
				fputs("<h3>Where the lost datagrams went</h3>\n", f);
			title = true;
			fwrite(buf, 1, len, f);
		}
		fclose(g);
		free(buf);
	}
}

int report_html(struct history *h, struct json_object *doc, char **ret)
{
	struct json_object *groups = get(doc, "groups");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return -ENOMEM;
	report_page_head(f, str(doc, "name"));
	if (get(doc, "campaign")) {
		fprintf(f, "Campaign %" PRId64 ": ", json_object_get_int64(get(doc, "campaign")));
		esc(f, str(doc, "name"));
	} else
		fputs("Runs", f);
	fputs("</h1>\n", f);
	if (str(doc, "verdict")) {
		fputs("<p><strong>", f);
		esc(f, str(doc, "verdict"));
		fputs("</strong></p>\n", f);
	}
	if (str(doc, "file")) {
		fputs("<p class=\"s\">", f);
		esc(f, str(doc, "file"));
		fprintf(f, ", status %s, %d repetition(s), %" PRId64 " runs; cx5prof %s</p>\n",
			strna(str(doc, "status")), json_object_get_int(get(doc, "repeat")),
			json_object_get_int64(get(doc, "runs")), CX5PROF_VERSION);
	}
	bars(f, groups, "Receive throughput (median of the rounds, whisker: min-max)", "median_recv_mbps",
	     "recv_mbps", "Mbps", "#3b7dd8");
	bars(f, groups, "Loss (median of the rounds, whisker: min-max)", "median_loss_percent",
	     "loss_percent", "%", "#d8613b");
	results_table(f, groups);
	ledger_tables(f, h, groups);
	heat_strips(f, h, groups);
	parameter_table(f, groups);
	commands(f, h, groups);
	fputs("</body>\n</html>\n", f);
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	*ret = buf;
	return 0;
}
