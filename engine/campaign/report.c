/* report.c: report.html and report.svg of a campaign document (see
 * report.h).
 *
 * Owns: the page's sections, in the order of the table at the end, and
 * the words they use: a setting a group leaves alone reads the same in
 * every column ("as found", "leave", "default"), sizes in bytes read 4M,
 * a change of loss is in percentage points, a report of single runs never
 * speaks of medians or ranges. Must never: write files, or emit a URL other
 * than relative links to the runs' bundles. */
#define _GNU_SOURCE
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <time.h>

#include "base/jsonget.h"
#include "base/chart.h"
#include "base/html.h"
#include "base/version.h"
#include "bench/peerstate.h"
#include "bench/runner.h"
#include "irqheat.h"
#include "ledger/ledger.h"
#include "os/procsys.h"
#include "store/runs.h"
#include "verdict.h"

struct report {
	FILE *f;
	struct history *h;
	struct json_object *doc, *groups;
	bool single;		 /* `report RUN`: a group is one run */
	struct run_record *runs; /* every run the document names, loaded once */
	size_t n_runs;
};

/* ---- the document ---- */

static size_t n_groups(const struct report *rp)
{
	return rp->groups ? json_object_array_length(rp->groups) : 0;
}

static struct json_object *group(const struct report *rp, size_t i)
{
	return json_object_array_get_idx(rp->groups, i);
}

static struct json_object *rounds_of(struct json_object *g)
{
	struct json_object *r = jget(g, "rounds");
	return r && json_object_is_type(r, json_type_array) ? r : NULL;
}

/* A round is in the medians: the document says so (counted), or, in a
 * document without the key, it measured. */
static bool round_counted(struct json_object *rd)
{
	struct json_object *c;

	if (json_object_object_get_ex(rd, "counted", &c))
		return json_object_get_boolean(c);
	return jget(rd, "recv_mbps") != NULL;
}

static bool round_warmup(struct json_object *rd)
{
	return json_object_get_boolean(jget(rd, "warmup"));
}

/* "lab-full", "lab-full = 8000" with a sweep value. */
static char *group_label(struct json_object *g)
{
	if (jstr(g, "sweep_value"))
		return strprintf("%s = %s", strna(jstr(g, "group")), jstr(g, "sweep_value"));
	return strdup(strna(jstr(g, "group")));
}

static void label_cell(FILE *f, struct json_object *g)
{
	_cleanup_free_ char *l = group_label(g);

	html_elem(f, "td", "grp", l ? l : "?");
}

/* The measured group before g with the same sweep value (what
 * change_percent compares with), or NULL. */
static struct json_object *previous_measured(const struct report *rp, size_t i)
{
	const char *sv = jstr(group(rp, i), "sweep_value");

	while (i-- > 0) {
		struct json_object *p = group(rp, i);
		if (streq_ptr(jstr(p, "sweep_value"), sv) && !isnan(jnum(p, "median_recv_mbps")))
			return p;
	}
	return NULL;
}

static void cell_text(FILE *f, const char *cls, const char *s)
{
	html_elem(f, "td", cls, s ? s : "-");
}

/* ---- the runs ---- */

static int load_runs(struct report *rp)
{
	for (size_t i = 0; i < n_groups(rp); i++) {
		struct json_object *rounds = rounds_of(group(rp, i));
		for (size_t k = 0; rounds && k < json_object_array_length(rounds); k++) {
			struct json_object *run = jget(json_object_array_get_idx(rounds, k), "run");
			struct run_record *v;
			int r;

			if (!run)
				continue;
			v = reallocarray(rp->runs, rp->n_runs + 1, sizeof(*v));
			if (!v)
				return -ENOMEM;
			rp->runs = v;
			v[rp->n_runs] = (struct run_record){0};
			r = runs_get(rp->h, json_object_get_int64(run), &v[rp->n_runs]);
			if (r == -ENOENT)
				continue; /* a document older than a pruned history: no evidence */
			if (r < 0)
				return r;
			rp->n_runs++;
		}
	}
	return 0;
}

static const struct run_record *run_of(const struct report *rp, struct json_object *rd)
{
	struct json_object *run = jget(rd, "run");

	for (size_t i = 0; run && i < rp->n_runs; i++)
		if (rp->runs[i].id == json_object_get_int64(run))
			return &rp->runs[i];
	return NULL;
}

/* An artifact of the first run that has it, parsed as JSON. */
static struct json_object *first_json_artifact(const struct report *rp, const char *name,
					       const struct run_record **ret_run)
{
	for (size_t i = 0; i < rp->n_runs; i++) {
		const struct run_artifact *a = run_record_artifact(&rp->runs[i], name);
		struct json_object *o = a && a->content ? json_tokener_parse(a->content) : NULL;

		if (o) {
			if (ret_run)
				*ret_run = &rp->runs[i];
			return o;
		}
	}
	return NULL;
}

/* ---- header ---- */

static void time_text(int64_t usec, char *buf, size_t size)
{
	time_t t = (time_t)(usec / 1000000);
	struct tm tm;

	if (usec <= 0 || !localtime_r(&t, &tm) || strftime(buf, size, "%Y-%m-%d %H:%M:%S %z", &tm) == 0)
		snprintf(buf, size, "unknown");
}

static void duration_text(double s, char *buf, size_t size)
{
	if (s < 120)
		snprintf(buf, size, "%.0f s", s);
	else if (s < 7200)
		snprintf(buf, size, "%.0f min %.0f s", floor(s / 60), fmod(s, 60));
	else
		snprintf(buf, size, "%.0f h %.0f min", floor(s / 3600), floor(fmod(s, 3600) / 60));
}

/* A row of the header's table. */
static void fact(FILE *f, const char *name, const char *value)
{
	fputs("<tr><th>", f);
	html_text(f, name);
	fputs("</th><td class=\"long\">", f);
	html_text(f, value ? value : "unknown");
	fputs("</td></tr>\n", f);
}

/* "ens1f0: ConnectX-5 0000:3b:00.0, NUMA node 1; driver mlx5_core
 * 6.12.12-amd64, firmware 16.29.1030" from the host facts, else from the
 * run's columns. */
static char *interface_text(struct json_object *port, const struct run_record *run)
{
	const char *fw;
	char node[32] = "";

	if (!port) {
		fw = run->firmware_version;
		return strprintf("%s: driver %s %s, firmware %s", strna(run->ifname), strna(run->driver),
				 strempty(run->driver_version), fw && *fw ? fw : "unknown");
	}
	fw = jstr(port, "firmware");
	if (jget(port, "numa_node") && jnum(port, "numa_node") >= 0)
		snprintf(node, sizeof(node), ", NUMA node %d", json_object_get_int(jget(port, "numa_node")));
	return strprintf("%s: %s%s%s%s; driver %s %s, firmware %s", strna(jstr(port, "name")),
			 jstr(port, "model") ? jstr(port, "model") : "NIC model unknown",
			 jstr(port, "pci") ? " " : "", strempty(jstr(port, "pci")), node,
			 strna(jstr(port, "driver")), strempty(jstr(port, "driver_version")),
			 fw && *fw ? fw : "unknown");
}

/* One line per port: the host facts' ports, else the run's own. */
static void facts_interfaces(const struct report *rp, struct json_object *host, const struct run_record *run)
{
	struct json_object *ports = jget(host, "interfaces");
	size_t n = ports ? json_object_array_length(ports) : 0;

	fputs("<tr><th>interfaces</th><td class=\"long\">", rp->f);
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *one = interface_text(json_object_array_get_idx(ports, i), NULL);
		html_text(rp->f, one);
		fputs(i + 1 < n ? "<br>" : "", rp->f);
	}
	if (n == 0 && rp->n_runs) {
		_cleanup_free_ char *one = interface_text(NULL, run ? run : &rp->runs[0]);
		html_text(rp->f, one);
	} else if (n == 0)
		fputs("unknown", rp->f);
	fputs("</td></tr>\n", rp->f);
}

/* The peer: its address, and its NIC when serve gave its state. */
static void facts_peer(const struct report *rp)
{
	const struct run_record *run = NULL;
	struct json_object *ps = first_json_artifact(rp, PEERSTATE_ARTIFACT, &run);
	_cleanup_free_ char *nic = peerstate_summary(ps), *text = NULL;

	json_object_put(ps);
	if (!run && rp->n_runs)
		run = &rp->runs[0];
	if (!run)
		return fact(rp->f, "peer", NULL);
	text = strprintf("%s%s%s", strna(run->peer),
			 nic ? "; " : " (its NIC: unknown, no cx5prof serve state)", nic ? nic : "");
	fact(rp->f, "peer", text);
}

/* Start and end: the campaign's own, else its runs' first start and last
 * end. */
static void facts_time(const struct report *rp)
{
	int64_t start = (int64_t)jnum(rp->doc, "started_usec"), end = (int64_t)jnum(rp->doc, "ended_usec");
	char a[64], b[64], d[64];
	_cleanup_free_ char *text = NULL;

	if (isnan(jnum(rp->doc, "started_usec")))
		start = end = 0;
	for (size_t i = 0; !start && i < rp->n_runs; i++)
		if (rp->runs[i].started_usec && (!start || rp->runs[i].started_usec < start))
			start = rp->runs[i].started_usec;
	for (size_t i = 0; isnan(jnum(rp->doc, "ended_usec")) && i < rp->n_runs; i++)
		if (rp->runs[i].ended_usec > end)
			end = rp->runs[i].ended_usec;
	time_text(start, a, sizeof(a));
	time_text(end, b, sizeof(b));
	duration_text(start && end > start ? (double)(end - start) / 1e6 : 0, d, sizeof(d));
	text = strprintf("%s to %s (%s)", a, b, d);
	fact(rp->f, "time", text);
}

static int section_header(struct report *rp)
{
	FILE *f = rp->f;
	const struct run_record *run = NULL;
	struct json_object *host = first_json_artifact(rp, ARTIFACT_HOST_FACTS, &run);
	_cleanup_free_ char *title = NULL, *what = NULL;

	if (jget(rp->doc, "campaign"))
		title =
		    strprintf("Campaign %" PRId64 ": %s", json_object_get_int64(jget(rp->doc, "campaign")),
			      strna(jstr(rp->doc, "name")));
	else
		title = strprintf("Runs");
	fputs("<h1>", f);
	html_text(f, title);
	fputs("</h1>\n<table class=\"facts\">\n", f);
	if (jstr(rp->doc, "file")) {
		what = strprintf("%s: %s, %d repetition%s, %" PRId64 " run%s", jstr(rp->doc, "file"),
				 strna(jstr(rp->doc, "status")), json_object_get_int(jget(rp->doc, "repeat")),
				 json_object_get_int(jget(rp->doc, "repeat")) == 1 ? "" : "s",
				 json_object_get_int64(jget(rp->doc, "runs")),
				 json_object_get_int64(jget(rp->doc, "runs")) == 1 ? "" : "s");
		fact(f, "campaign", what);
	} else {
		what = strprintf("%zu run%s recorded by cx5prof verify, bench or campaign", n_groups(rp),
				 n_groups(rp) == 1 ? "" : "s");
		fact(f, "runs", what);
	}
	fact(f, "host", jstr(host, "hostname"));
	facts_interfaces(rp, host, run);
	fact(f, "kernel", jstr(host, "kernel"));
	facts_peer(rp);
	facts_time(rp);
	fact(f, "cx5prof", CX5PROF_VERSION);
	fputs("</table>\n", f);
	json_object_put(host);
	return 0;
}

/* ---- the verdict ---- */

/* The comparisons, each with its intervals and words: the campaign
 * table's, in a table. */
static void comparisons_table(FILE *f, struct json_object *cmps)
{
	fputs("<table>\n<tr><th>comparison</th><th>receive throughput</th><th>loss</th>"
	      "<th class=\"num\">interval levels (throughput, loss)</th></tr>\n",
	      f);
	for (size_t i = 0; i < json_object_array_length(cmps); i++) {
		struct json_object *c = json_object_array_get_idx(cmps, i), *recv = jget(c, "recv");
		_cleanup_free_ char *name = verdict_doc_comparison_name(c),
				    *rt = verdict_doc_measure_text(recv),
				    *lt = verdict_doc_measure_text(jget(c, "loss"));
		char conf[32];

		snprintf(conf, sizeof(conf), "%.1f%%, %.1f%%", 100 * jnum(recv, "confidence"),
			 100 * jnum(jget(c, "loss"), "confidence"));
		fputs("<tr>", f);
		cell_text(f, "grp", name);
		cell_text(f, NULL, rt);
		cell_text(f, NULL, lt);
		cell_text(f, "num", conf);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* The receive-throughput measure of comparison idx of cmps, as words. */
static char *family_measure(struct json_object *cmps, struct json_object *idx)
{
	return idx ? verdict_doc_measure_text(
			 jget(json_object_array_get_idx(cmps, (size_t)json_object_get_int(idx)), "recv"))
		   : strdup("not measured");
}

/* An ablation's attribution: each family alone and inside the full
 * profile, and where the two disagree. */
static void attribution_table(FILE *f, struct json_object *ablation, struct json_object *cmps)
{
	struct json_object *fams = jget(ablation, "families");

	fputs("<h3>Attribution</h3>\n<table>\n<tr><th>family</th><th>alone</th>"
	      "<th>inside the full profile</th></tr>\n",
	      f);
	for (size_t i = 0; fams && i < json_object_array_length(fams); i++) {
		struct json_object *fam = json_object_array_get_idx(fams, i);
		_cleanup_free_ char *alone = family_measure(cmps, jget(fam, "alone_comparison")),
				    *inside = family_measure(cmps, jget(fam, "marginal_comparison")),
				    *skipped = jstr(fam, "skipped")
						   ? strprintf("not applied: %s", jstr(fam, "skipped"))
						   : NULL;

		fputs("<tr>", f);
		cell_text(f, "grp", jstr(fam, "label"));
		if (skipped) {
			fputs("<td colspan=\"2\" class=\"long\">", f);
			html_text(f, skipped);
			fputs("</td>", f);
		} else {
			cell_text(f, NULL, alone);
			cell_text(f, NULL, inside);
		}
		fputs("</tr>\n", f);
		if (jstr(fam, "interaction")) {
			fputs("<tr><td></td><td colspan=\"2\" class=\"long\">interaction: ", f);
			html_text(f, jstr(fam, "interaction"));
			fputs("</td></tr>\n", f);
		}
	}
	fputs("</table>\n", f);
}

/* The verdict and the statistics behind it, in the words of the campaign
 * table. */
static int section_verdict(struct report *rp)
{
	struct json_object *cmps = jget(rp->doc, "comparisons"), *st = jget(rp->doc, "statistics");

	if (!jstr(rp->doc, "verdict"))
		return 0;
	fputs("<h2>Verdict</h2>\n<p class=\"verdict\"><strong>", rp->f);
	html_text(rp->f, jstr(rp->doc, "verdict"));
	fputs("</strong></p>\n", rp->f);
	if (cmps && json_object_array_length(cmps) > 0)
		comparisons_table(rp->f, cmps);
	if (jget(rp->doc, "ablation"))
		attribution_table(rp->f, jget(rp->doc, "ablation"), cmps);
	if (st) {
		struct json_object *me = jget(st, "min_effect"), *rounds = jget(st, "look_rounds");
		size_t looks = rounds ? json_object_array_length(rounds) : 0;

		fprintf(
		    rp->f,
		    "<p class=\"note\">Each change is the Hodges-Lehmann estimate over the counted rounds "
		    "(receive throughput as a ratio in %%, loss in percentage points) with its Mann-Whitney "
		    "interval at the level shown; better or worse only when the interval excludes 0");
		if (me)
			fprintf(
			    rp->f,
			    ", no meaningful difference when it lies inside the margin (±%g%% throughput, "
			    "±%g pp loss)",
			    jnum(me, "throughput_percent"), jnum(me, "loss_points"));
		fprintf(rp->f, ". Holm's correction over %d comparison%s",
			json_object_get_int(jget(st, "comparisons")),
			json_object_get_int(jget(st, "comparisons")) == 1 ? "" : "s");
		if (looks)
			fprintf(
			    rp->f,
			    " and %s alpha spending over the looks after rounds %d to %d (this verdict at "
			    "level %.2f%%)",
			    strna(jstr(st, "spending")),
			    json_object_get_int(json_object_array_get_idx(rounds, 0)),
			    json_object_get_int(json_object_array_get_idx(rounds, looks - 1)),
			    100 * jnum(st, "level"));
		fprintf(
		    rp->f,
		    " keep%s a false better, worse or no meaningful difference at most %.0f%% for throughput "
		    "and %.0f%% for loss (%.0f%% both together)",
		    looks ? "" : "s", 100 * jnum(st, "alpha"), 100 * jnum(st, "alpha"),
		    200 * jnum(st, "alpha"));
		if (jstr(st, "order"))
			fprintf(rp->f, "; the groups ran in %s order", jstr(st, "order"));
		if (jget(st, "seed"))
			fprintf(rp->f, " (seed %" PRId64 ")", json_object_get_int64(jget(st, "seed")));
		fputs(".</p>\n", rp->f);
	}
	return 0;
}

/* ---- the charts ---- */

struct chart_data {
	struct chart c;
	struct chart_row *rows;
	char **labels;
	double *vals; /* every round's value, rows point into it */
};

static void chart_data_done(struct chart_data *d)
{
	for (size_t i = 0; d->labels && i < d->c.n_rows; i++)
		free(d->labels[i]);
	free(d->labels);
	free(d->rows);
	free(d->vals);
}

/* The chart of one figure (recv_mbps, or loss_percent) of every group. */
static int chart_build(struct json_object *doc, bool loss, struct chart_data *d)
{
	struct json_object *groups = jget(doc, "groups");
	size_t n = groups ? json_object_array_length(groups) : 0, total = 0, used = 0;
	bool single = !jget(doc, "campaign");
	const char *median_key = loss ? "median_loss_percent" : "median_recv_mbps",
		   *round_key = loss ? "loss_percent" : "recv_mbps";

	for (size_t i = 0; i < n; i++) {
		struct json_object *rounds = rounds_of(json_object_array_get_idx(groups, i));
		total += rounds ? json_object_array_length(rounds) : 0;
	}
	d->rows = calloc(n ? n : 1, sizeof(*d->rows));
	d->labels = calloc(n ? n : 1, sizeof(*d->labels));
	d->vals = calloc(2 * total + 1, sizeof(*d->vals));
	if (!d->rows || !d->labels || !d->vals)
		return -ENOMEM;
	d->c = (struct chart){
	    .axis = loss ? "loss (% of the datagrams sent), on a fixed 0-100% scale"
			 : "receive throughput (Mbps)",
	    .legend = single
			  ? NULL
			  : "bar: median of the counted rounds; dot: one round; cross: a round not counted",
	    .unit = loss ? "%" : "Mbps",
	    .decimals = 2,
	    .max = loss ? 100 : 0,
	    .color = loss ? "#d8613b" : "#3b7dd8",
	    .dots = !single,
	    .rows = d->rows,
	    .n_rows = n,
	};
	for (size_t i = 0; i < n; i++) {
		struct json_object *g = json_object_array_get_idx(groups, i), *rounds = rounds_of(g);
		struct chart_row *row = &d->rows[i];
		size_t nr = rounds ? json_object_array_length(rounds) : 0;

		d->labels[i] = group_label(g);
		if (!d->labels[i])
			return -ENOMEM;
		row->label = d->labels[i];
		row->value = jnum(g, median_key);
		row->note = jstr(g, "skipped") ? "skipped (see the rounds)" : "not measured";
		row->rounds = &d->vals[used];
		for (size_t k = 0; k < nr; k++) {
			struct json_object *rd = json_object_array_get_idx(rounds, k);
			if (round_counted(rd) && !isnan(jnum(rd, round_key)))
				d->vals[used + row->n_rounds++] = jnum(rd, round_key);
		}
		used += row->n_rounds;
		row->excluded = &d->vals[used];
		for (size_t k = 0; k < nr; k++) {
			struct json_object *rd = json_object_array_get_idx(rounds, k);
			if (round_counted(rd) || round_warmup(rd))
				continue;
			row->n_excluded_all++;
			if (!isnan(jnum(rd, round_key)))
				d->vals[used + row->n_excluded++] = jnum(rd, round_key);
		}
		used += row->n_excluded;
	}
	return 0;
}

static int section_charts(struct report *rp)
{
	for (int loss = 0; loss < 2; loss++) {
		_cleanup_(chart_data_done) struct chart_data d = {0};
		int r = chart_build(rp->doc, loss, &d);

		if (r < 0)
			return r;
		fprintf(rp->f, "<h2>%s</h2>\n",
			loss ? (rp->single ? "Loss of each run" : "Loss")
			     : (rp->single ? "Receive throughput of each run" : "Receive throughput"));
		html_svg_open(rp->f, CHART_WIDTH, chart_height(&d.c), d.c.axis, false);
		chart_draw(rp->f, &d.c, 0);
		html_svg_close(rp->f);
	}
	return 0;
}

/* ---- results per group ---- */

/* "rx_out_of_buffer +12, rx_discards_phy +3"; "none" when none rose; NULL
 * without counters. */
static char *drops_text(struct json_object *drops)
{
	char *s = NULL;

	if (!drops || !json_object_is_type(drops, json_type_object))
		return NULL;
	json_object_object_foreach(drops, name, v)
	{
		char *t;
		if (json_object_get_int64(v) <= 0)
			continue;
		t = strprintf("%s%s%s +%" PRId64, s ? s : "", s ? ", " : "", name, json_object_get_int64(v));
		free(s);
		s = t;
		if (!s)
			return NULL;
	}
	return s ? s : strdup("none");
}

/* The benchmark peer's MTU and drops (from `serve`): "mtu 9000, drops +12",
 * "-" when it gave none. */
static void peer_cell(FILE *f, struct json_object *g)
{
	double mtu = jnum(g, "peer_mtu"), drops = jnum(g, "peer_drops");

	fputs("<td>", f);
	if (!isnan(mtu))
		fprintf(f, "mtu %.0f", mtu);
	if (!isnan(drops))
		fprintf(f, drops > 0 ? "%sdrops +%.0f" : "%sdrops none", isnan(mtu) ? "" : ", ", drops);
	if (isnan(mtu) && isnan(drops))
		fputs("-", f);
	fputs("</td>", f);
}

/* Some group has the peer's state: the results get a peer column. */
static bool has_peer_state(const struct report *rp)
{
	for (size_t i = 0; i < n_groups(rp); i++)
		if (jget(group(rp, i), "peer_mtu") || jget(group(rp, i), "peer_drops"))
			return true;
	return false;
}

/* "skipped (exit 5): ens1f0: ...": a skipped group's one cell, across
 * the columns of its figures. */
static void skipped_cell(FILE *f, struct json_object *g, int columns)
{
	_cleanup_free_ char *why = strprintf(
	    "skipped (exit %d): %s", json_object_get_int(jget(g, "skipped_exit_code")), jstr(g, "skipped"));

	fprintf(f, "<td colspan=\"%d\" class=\"long fail\">", columns);
	html_text(f, why ? why : "skipped");
	fputs("</td>", f);
}

static void results_row(struct report *rp, size_t i, int columns, bool peer)
{
	FILE *f = rp->f;
	struct json_object *g = group(rp, i), *prev = previous_measured(rp, i);
	double m = jnum(g, "median_recv_mbps"), ch = jnum(g, "change_percent"),
	       loss = jnum(g, "median_loss_percent");
	_cleanup_free_ char *drops = drops_text(jget(g, "drops")), *label = group_label(g);

	fputs("<tr><td class=\"grp\">", f);
	html_text(f, label);
	if (jstr(g, "description")) {
		fputs("<br><span class=\"note\">", f);
		html_text(f, jstr(g, "description"));
		fputs("</span>", f);
	}
	fputs("</td>", f);
	if (jstr(g, "skipped")) {
		skipped_cell(f, g, columns - 1);
		fputs("</tr>\n", f);
		return;
	}
	if (!rp->single) {
		size_t counted = 0;
		struct json_object *rounds = rounds_of(g);
		for (size_t k = 0; rounds && k < json_object_array_length(rounds); k++)
			counted += round_counted(json_object_array_get_idx(rounds, k));
		fprintf(f, "<td class=\"num\">%zu</td>", counted);
	}
	if (isnan(m))
		fputs("<td class=\"num\">-</td>", f);
	else if (rp->single)
		fprintf(f, "<td class=\"num\">%.2f</td>", m);
	else /* the range under the median, breaking after its dash if it must */
		fprintf(f, "<td class=\"num\">%.2f<br><span class=\"note range\">%.2f-<wbr>%.2f</span></td>",
			m, jnum(g, "min_recv_mbps"), jnum(g, "max_recv_mbps"));
	if (isnan(loss))
		fputs("<td class=\"num\">-</td>", f);
	else
		fprintf(f, "<td class=\"num\">%.2f</td>", loss);
	/* A campaign's comparisons carry their intervals (the verdict's
	 * table): a bare ratio of medians beside them would read as one. */
	if (rp->single) {
		fputs("<td class=\"num\">", f);
		if (isnan(ch))
			fputs("-", f);
		else /* no "-0.0%" */
			fprintf(f, "%+.1f%%", fabs(ch) < 0.05 ? 0 : ch);
		if (prev && !isnan(loss) && !isnan(jnum(prev, "median_loss_percent")))
			fprintf(f, "<br>loss %+.2f pp", loss - jnum(prev, "median_loss_percent"));
		fputs("</td>", f);
	}
	cell_text(f, NULL, jstr(g, "irq_spread"));
	cell_text(f, "long", drops ? drops : "n/a");
	if (peer)
		peer_cell(f, g);
	fputs("</tr>\n", f);
}

static int section_results(struct report *rp)
{
	bool peer = has_peer_state(rp);
	int columns = 6 + peer;

	fprintf(rp->f,
		"<h2>Results</h2>\n<table>\n<tr><th>group</th>%s<th class=\"num\">%s</th>"
		"<th class=\"num\">%s</th>%s"
		"<th>irq spread</th><th>drop counters that rose</th>%s</tr>\n",
		rp->single ? "" : "<th class=\"num\">rounds</th>",
		rp->single ? "receive Mbps" : "median receive Mbps (min-max)",
		rp->single ? "loss %" : "median loss %",
		rp->single ? "<th class=\"num\">vs previous</th>" : "", peer ? "<th>peer (serve)</th>" : "");
	for (size_t i = 0; i < n_groups(rp); i++)
		results_row(rp, i, columns, peer);
	fputs("</table>\n", rp->f);
	if (rp->single)
		fputs("<p class=\"note\">vs previous: against the previous run, receive throughput in %, "
		      "loss in "
		      "percentage points (pp).</p>\n",
		      rp->f);
	return 0;
}

/* ---- every round ---- */

/* One threshold of a round: "receive throughput >= 5000 Mbps: 4331.91
 * Mbps FAIL". */
static void threshold_line(FILE *f, struct json_object *t)
{
	const char *status = strna(jstr(t, "status"));
	bool fail = streq(status, "fail");

	fputs(fail ? "<span class=\"fail\">" : "<span>", f);
	html_textf(f, "%s %s %g %s: ", jstr(t, "label") ? jstr(t, "label") : strna(jstr(t, "name")),
		   strna(jstr(t, "op")), jnum(t, "limit"), strna(jstr(t, "unit")));
	if (isnan(jnum(t, "value")))
		html_textf(f, "%s (%s)", status, jstr(t, "note") ? jstr(t, "note") : "no value");
	else
		html_textf(f, "%.2f %s %s", jnum(t, "value"), strna(jstr(t, "unit")), fail ? "FAIL" : status);
	fputs("</span><br>", f);
}

/* The word of a round's result, as `history` prints a run's outcome. */
static const char *result_word(struct json_object *rd)
{
	const char *r = jstr(rd, "result");

	if (round_warmup(rd))
		return "warm-up";
	if (!r)
		return jget(rd, "recv_mbps") ? "measured" : "error";
	return streq(r, "fail") ? "FAIL" : r;
}

static void round_row(struct report *rp, struct json_object *g, struct json_object *rd, size_t k)
{
	FILE *f = rp->f;
	const struct run_record *run = run_of(rp, rd);
	struct json_object *ths = jget(rd, "thresholds");
	const char *word = result_word(rd);
	_cleanup_free_ char *drops = drops_text(jget(rd, "drops"));
	bool bad = !streq(word, "pass") && !streq(word, "measured") && !streq(word, "recorded");

	fputs("<tr>", f);
	label_cell(f, g);
	fprintf(f, "<td class=\"num\">%d</td>",
		jget(rd, "repetition") ? json_object_get_int(jget(rd, "repetition")) : (int)k + 1);
	if (run)
		fprintf(f,
			"<td class=\"num\"><a href=\"runs/run-%" PRId64 "/README.md\">%" PRId64 "</a></td>",
			run->id, run->id);
	else if (jget(rd, "run"))
		fprintf(f, "<td class=\"num\">%" PRId64 "</td>", json_object_get_int64(jget(rd, "run")));
	else
		fputs("<td class=\"num\">-</td>", f);
	html_elem(f, "td", bad ? "fail" : "pass", word);
	if (isnan(jnum(rd, "recv_mbps")))
		fputs("<td class=\"num\">-</td><td class=\"num\">-</td>", f);
	else
		fprintf(f, "<td class=\"num\">%.2f</td><td class=\"num\">%.2f</td>", jnum(rd, "recv_mbps"),
			jnum(rd, "loss_percent"));
	fputs("<td class=\"long\">", f);
	for (size_t t = 0; ths && t < json_object_array_length(ths); t++)
		threshold_line(f, json_object_array_get_idx(ths, t));
	if (!ths || json_object_array_length(ths) == 0)
		fputs("none set", f);
	fputs("</td>", f);
	cell_text(f, "long", drops ? drops : "n/a");
	cell_text(f, "long", jstr(rd, "error") ? jstr(rd, "error") : "");
	fputs("</tr>\n", f);
}

static int section_rounds(struct report *rp)
{
	FILE *f = rp->f;

	fprintf(
	    f,
	    "<h2>%s</h2>\n<table>\n<tr><th>group</th><th class=\"num\">round</th><th class=\"num\">run</th>"
	    "<th>result</th><th class=\"num\">receive Mbps</th><th class=\"num\">loss %%</th>"
	    "<th>thresholds</th><th>drop counters that rose</th><th>reason</th></tr>\n",
	    rp->single ? "Each run" : "Every round");
	for (size_t i = 0; i < n_groups(rp); i++) {
		struct json_object *g = group(rp, i), *rounds = rounds_of(g);

		for (size_t k = 0; rounds && k < json_object_array_length(rounds); k++)
			round_row(rp, g, json_object_array_get_idx(rounds, k), k);
		if (!jstr(g, "skipped"))
			continue;
		fputs("<tr>", f);
		label_cell(f, g);
		fputs("<td class=\"num\">-</td><td class=\"num\">-</td>", f);
		skipped_cell(f, g, 6);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	return 0;
}

/* ---- where the lost datagrams went (the loss ledger) ---- */

#define LEDGER_REPORT_ROWS 32 /* the ledger's stages and unaccounted */

/* One group's loss ledgers (its counted rounds', summed): rows of the
 * stages that dropped and unaccounted; 0 when no round has a ledger. */
static int group_ledger(struct report *rp, FILE *f, struct json_object *g)
{
	struct json_object *rounds = rounds_of(g);
	size_t n_stages, ledgers = 0;
	const char *const *stages = ledger_stages(&n_stages);
	const char *limited = jstr(g, "limited_by");
	uint64_t sum[LEDGER_REPORT_ROWS] = {0}, lost = 0;
	_cleanup_free_ char *label = group_label(g);
	char share[32], count[32];

	if (n_stages + 1 > LEDGER_REPORT_ROWS)
		n_stages = LEDGER_REPORT_ROWS - 1;
	for (size_t k = 0; rounds && k < json_object_array_length(rounds); k++) {
		struct json_object *rd = json_object_array_get_idx(rounds, k), *doc;
		const struct run_record *run = run_of(rp, rd);

		if (!run || !run->ledger || (!rp->single && !round_counted(rd)))
			continue;
		doc = json_tokener_parse(run->ledger);
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
	fputs("<table>\n<tr>", f);
	html_elem(f, "th", "key", label);
	fprintf(f, "<th class=\"num\">lost datagrams (%zu round%s)</th><th class=\"num\">share</th></tr>\n",
		ledgers, ledgers == 1 ? "" : "s");
	for (size_t i = 0; i <= n_stages; i++) {
		const char *stage = i < n_stages ? stages[i] : "unaccounted";

		if (sum[i] == 0)
			continue;
		snprintf(count, sizeof(count), "%" PRIu64, sum[i]);
		snprintf(share, sizeof(share), "%.1f%%", 100.0 * (double)sum[i] / (double)lost);
		fputs("<tr>", f);
		cell_text(f, "long", ledger_stage_label(stage) ? ledger_stage_label(stage) : stage);
		cell_text(f, "num", count);
		cell_text(f, "num", share);
		fputs("</tr>\n", f);
	}
	if (lost == 0)
		fputs("<tr><td>no loss</td><td class=\"num\">0</td><td class=\"num\">-</td></tr>\n", f);
	fputs("<tr><td>limited by</td><td colspan=\"2\" class=\"long\">", f);
	html_text(f, limited ? (ledger_stage_label(limited) ? ledger_stage_label(limited) : limited) : "-");
	fputs("</td></tr>\n</table>\n", f);
	return 1;
}

/* "Where the lost datagrams went": a small table per group from its
 * rounds' loss ledgers (docs/verification.md); nothing when no run has
 * one. */
static int section_ledger(struct report *rp)
{
	bool title = false;

	for (size_t i = 0; i < n_groups(rp); i++) {
		_cleanup_free_ char *buf = NULL;
		size_t len = 0;
		FILE *g = open_memstream(&buf, &len);
		int r;

		if (!g)
			return -ENOMEM;
		r = group_ledger(rp, g, group(rp, i));
		if (fclose(g) != 0)
			return -ENOMEM;
		if (r > 0) {
			if (!title)
				fputs("<h2>Where the lost datagrams went</h2>\n", rp->f);
			title = true;
			fwrite(buf, 1, len, rp->f);
		}
	}
	return 0;
}

/* ---- the interrupt heat map ---- */

/* The NIC's NUMA-local CPUs from a run's host facts: "ens1f0, NUMA node
 * 1: 8-15,24-31" into *ret_note, the list into *ret_list. */
static void numa_local(const struct run_record *run, char **ret_note, char **ret_list)
{
	const struct run_artifact *a = run_record_artifact(run, ARTIFACT_HOST_FACTS);
	struct json_object *host = a && a->content ? json_tokener_parse(a->content) : NULL,
			   *ports = jget(host, "interfaces");

	for (size_t i = 0; ports && i < json_object_array_length(ports); i++) {
		struct json_object *p = json_object_array_get_idx(ports, i);
		if (!streq_ptr(jstr(p, "name"), run->ifname) || !jstr(p, "local_cpus") ||
		    !*jstr(p, "local_cpus"))
			continue;
		*ret_list = strdup(jstr(p, "local_cpus"));
		free(*ret_note); /* an earlier round's, whose list did not parse */
		*ret_note = strprintf("%s, NUMA node %d: %s", jstr(p, "name"),
				      json_object_get_int(jget(p, "numa_node")), jstr(p, "local_cpus"));
		break;
	}
	json_object_put(host);
}

/* The ports of a run from its host facts (names and PCI addresses point
 * into host); 0 when it has none recorded. */
static size_t run_ports(struct json_object *host, struct irqheat_port *ports, size_t max)
{
	struct json_object *list = jget(host, "interfaces");
	size_t n = 0;

	for (size_t i = 0; list && i < json_object_array_length(list) && n < max; i++) {
		struct json_object *p = json_object_array_get_idx(list, i);

		if (jstr(p, "name"))
			ports[n++] = (struct irqheat_port){jstr(p, "name"), jstr(p, "pci")};
	}
	return n;
}

static int group_heat(struct report *rp, struct json_object *g, struct irqheat *hm, char **ret_note)
{
	struct json_object *rounds = rounds_of(g);

	for (size_t k = 0; rounds && k < json_object_array_length(rounds); k++) {
		struct json_object *rd = json_object_array_get_idx(rounds, k);
		const struct run_record *run = run_of(rp, rd);
		const struct run_artifact *b, *a, *facts;
		_cleanup_free_ char *list = NULL;
		struct json_object *host;
		struct irqheat_port ports[16];
		size_t n_ports;
		int r;

		if (!run || (!rp->single && !round_counted(rd)))
			continue;
		b = run_record_artifact(run, "interrupts_before");
		a = run_record_artifact(run, "interrupts_after");
		facts = run_record_artifact(run, ARTIFACT_HOST_FACTS);
		host = facts && facts->content ? json_tokener_parse(facts->content) : NULL;
		n_ports = run_ports(host, ports, ARRAY_SIZE(ports));
		r = irqheat_add(hm, b ? b->content : NULL, a ? a->content : NULL, ports, n_ports);
		json_object_put(host);
		if (r == -ENOMEM)
			return r;
		if (!hm->has_local) {
			numa_local(run, ret_note, &list);
			if (list && irqheat_set_local(hm, list) == -ENOMEM)
				return -ENOMEM;
		}
	}
	return 0;
}

static int section_heat(struct report *rp)
{
	FILE *f = rp->f;
	_cleanup_free_ char *body = NULL, *note = NULL;
	size_t len = 0;
	FILE *b = open_memstream(&body, &len);

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < n_groups(rp); i++) {
		struct json_object *g = group(rp, i);
		_cleanup_(irqheat_done) struct irqheat hm = {0};
		_cleanup_free_ char *label = group_label(g), *gnote = NULL;
		int r = group_heat(rp, g, &hm, &gnote);

		if (r < 0) {
			fclose(b);
			return r;
		}
		if (!note && gnote)
			note = TAKE_PTR(gnote);
		fputs("<h3>", b);
		html_text(b, label);
		fputs("</h3>\n", b);
		if (hm.runs == 0) {
			fputs("<p class=\"note\">no /proc/interrupts snapshots</p>\n", b);
			continue;
		}
		fprintf(b, "<p class=\"note\">%" PRIu64 " completion interrupts over %u run%s%s</p>\n",
			hm.total, hm.runs, hm.runs == 1 ? "" : "s",
			hm.total ? "" : ": none (no completion interrupt of the ports moved)");
		irqheat_draw(b, &hm, label);
	}
	if (fclose(b) != 0)
		return -ENOMEM;
	fputs("<h2>NIC completion interrupts per CPU</h2>\n", f);
	irqheat_legend(f, note);
	fputs(body, f);
	return 0;
}

/* ---- parameters ---- */

/* The word for a setting a group leaves alone: the same in every column,
 * whether the profile says nothing or says so (irq.irqbalance: leave). */
static const char *unset_word(const char *key)
{
	if (streq(key, "irq.irqbalance"))
		return "leave";
	if (strncmp(key, "verify.", 7) == 0)
		return "default";
	return "as found";
}

/* A value in bytes reads 4M. */
static bool is_size(const char *key)
{
	enum sysctl_key k;

	if (strncmp(key, "verify.socket_buffer.", 21) == 0 || streq(key, "verify.message_size"))
		return true;
	return strncmp(key, "sysctl.", 7) == 0 && sysctl_key_from_string(key + 7, &k) >= 0 &&
	       streq(sysctl_def(k)->unit, "bytes");
}

/* A value for people: sizes in K/M, ">= 4194304" as ">= 4M", lists
 * joined. */
static char *value_text(const char *key, struct json_object *v)
{
	const char *s = json_object_get_string(v);
	uint64_t n;
	char *sz = NULL;

	if (json_object_is_type(v, json_type_array)) {
		char *out = strdup("");
		for (size_t i = 0; out && i < json_object_array_length(v); i++) {
			char *t = strprintf("%s%s%s", out, i ? ", " : "",
					    json_object_get_string(json_object_array_get_idx(v, i)));
			free(out);
			out = t;
		}
		return out;
	}
	if (is_size(key)) {
		const char *digits = strncmp(s, ">= ", 3) == 0 ? s + 3 : s;
		if (safe_atou64(digits, &n) >= 0 && runner_format_size(n, &sz) >= 0) {
			char *t = strprintf("%s%s", digits == s ? "" : ">= ", sz);
			free(sz);
			return t;
		}
	}
	if (json_object_is_type(v, json_type_boolean))
		return strdup(json_object_get_boolean(v) ? "on" : "off");
	return strdup(s);
}

/* Not settings of the host or the benchmark: what the profile is. */
static bool param_skipped(const char *key)
{
	static const char *const skip[] = {"version", "name", "description", "extends"};

	for (size_t i = 0; i < ARRAY_SIZE(skip); i++)
		if (streq(key, skip[i]))
			return true;
	return false;
}

/* Every leaf of o as "section.key" -> value, in o's order. */
static int flatten(struct json_object *o, const char *prefix, struct json_object *into)
{
	json_object_object_foreach(o, key, v)
	{
		_cleanup_free_ char *path = prefix ? strprintf("%s.%s", prefix, key) : strdup(key);
		if (!path)
			return -ENOMEM;
		if (param_skipped(path))
			continue;
		if (v && json_object_is_type(v, json_type_object)) {
			int r = flatten(v, path, into);
			if (r < 0)
				return r;
		} else if (v)
			json_object_object_add(into, path, json_object_get(v));
	}
	return 0;
}

/* The section of a flattened key ("irq" of "irq.policy") in the order a
 * profile is written; an unknown section goes last. */
static size_t section_rank(const char *key)
{
	static const char *const order[] = {"match", "requires", "link", "irq", "sysctl", "peer", "verify"};
	size_t len = strcspn(key, ".");

	for (size_t i = 0; i < ARRAY_SIZE(order); i++)
		if (strlen(order[i]) == len && strncmp(key, order[i], len) == 0)
			return i;
	return ARRAY_SIZE(order);
}

/* One row: the setting in every group, marked when the groups differ. */
static void parameter_row(FILE *f, const char *key, struct json_object **flat, size_t n)
{
	_cleanup_strv_free_ char **cells = calloc(n + 1, sizeof(char *));
	bool differs = false;

	if (!cells)
		return;
	for (size_t i = 0; i < n; i++) {
		struct json_object *v = jget(flat[i], key);
		cells[i] = v ? value_text(key, v) : strdup(unset_word(key));
		differs |= i > 0 && !streq_ptr(cells[i], cells[0]);
	}
	fputs(differs ? "<tr class=\"differs\">" : "<tr>", f);
	html_elem(f, "th", "key", key);
	for (size_t i = 0; i < n; i++)
		cell_text(f, "long", cells[i]);
	fputs("</tr>\n", f);
}

static int section_parameters(struct report *rp)
{
	FILE *f = rp->f;
	size_t n = n_groups(rp);
	_cleanup_free_ struct json_object **flat = calloc(n ? n : 1, sizeof(*flat));
	struct json_object *keys = json_object_new_object();
	int r = flat && keys ? 0 : -ENOMEM;

	for (size_t i = 0; r >= 0 && i < n; i++) {
		struct json_object *p = jget(group(rp, i), "profile");
		flat[i] = json_object_new_object();
		r = flat[i] ? 0 : -ENOMEM;
		if (r >= 0 && p && json_object_is_type(p, json_type_object))
			r = flatten(p, NULL, flat[i]);
		json_object_object_foreach(flat[i], key, v)
		{
			(void)v;
			if (!json_object_object_get_ex(keys, key, NULL))
				json_object_object_add(keys, key, NULL);
		}
	}
	if (r >= 0) {
		fputs("<h2>Parameters</h2>\n<table>\n<tr><th>setting</th>", f);
		for (size_t i = 0; i < n; i++) {
			_cleanup_free_ char *l = group_label(group(rp, i));
			html_elem(f, "th", NULL, l);
		}
		fputs("</tr>\n", f);
		for (size_t rank = 0; rank <= section_rank(""); rank++) {
			json_object_object_foreach(keys, key, unused)
			{
				(void)unused;
				if (section_rank(key) == rank)
					parameter_row(f, key, flat, n);
			}
		}
		fputs("</table>\n<p class=\"note\">Highlighted: the groups differ. as found: the group "
		      "leaves the "
		      "host's value as it was; leave: irqbalance is left as it runs; default: the runner's "
		      "default.</p>\n",
		      f);
	}
	for (size_t i = 0; flat && i < n; i++)
		json_object_put(flat[i]);
	json_object_put(keys);
	return r;
}

/* ---- the commands ---- */

static int section_commands(struct report *rp)
{
	FILE *f = rp->f;

	fputs("<h2>The exact commands</h2>\n<table>\n<tr><th>group</th><th class=\"num\">run</th>"
	      "<th>command</th></tr>\n",
	      f);
	for (size_t i = 0; i < n_groups(rp); i++) {
		struct json_object *g = group(rp, i), *rounds = rounds_of(g);
		for (size_t k = 0; rounds && k < json_object_array_length(rounds); k++) {
			const struct run_record *run = run_of(rp, json_object_array_get_idx(rounds, k));
			if (!run)
				continue;
			fputs("<tr>", f);
			label_cell(f, g);
			fprintf(f,
				"<td class=\"num\"><a href=\"runs/run-%" PRId64 "/README.md\">%" PRId64
				"</a></td><td><code>",
				run->id, run->id);
			html_text(f, run->command_line ? run->command_line : "-");
			fputs("</code></td></tr>\n", f);
		}
	}
	fputs("</table>\n", f);
	return 0;
}

/* ---- the page ---- */

/* The page, top to bottom. A new section is one row. */
static int (*const sections[])(struct report *rp) = {
    section_header, section_verdict, section_charts,	 section_results,  section_ledger,
    section_rounds, section_heat,    section_parameters, section_commands,
};

int report_html(struct history *h, struct json_object *doc, char **ret)
{
	struct report rp = {
	    .h = h, .doc = doc, .groups = jget(doc, "groups"), .single = !jget(doc, "campaign")};
	_cleanup_free_ char *buf = NULL, *title = NULL;
	size_t len = 0;
	int r;

	rp.f = open_memstream(&buf, &len);
	if (!rp.f)
		return -ENOMEM;
	r = load_runs(&rp);
	title = strprintf("cx5prof report: %s", strna(jstr(doc, "name")));
	html_page_open(rp.f, title ? title : "cx5prof report", NULL);
	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(sections); i++)
		r = sections[i](&rp);
	html_page_close(rp.f);
	run_records_free(rp.runs, rp.n_runs);
	if (fclose(rp.f) != 0 && r >= 0)
		r = -ENOMEM;
	if (r < 0)
		return r;
	*ret = TAKE_PTR(buf);
	return 0;
}

int report_svg(struct json_object *doc, char **ret)
{
	_cleanup_(chart_data_done) struct chart_data recv = {0}, loss = {0};
	_cleanup_free_ char *buf = NULL, *title = NULL;
	size_t len = 0;
	FILE *f;
	int r, h;

	r = chart_build(doc, false, &recv);
	if (r >= 0)
		r = chart_build(doc, true, &loss);
	if (r < 0)
		return r;
	if (jget(doc, "campaign"))
		title = strprintf("cx5prof campaign %" PRId64 ": %s",
				  json_object_get_int64(jget(doc, "campaign")), strna(jstr(doc, "name")));
	else
		title = strprintf("cx5prof runs");
	f = open_memstream(&buf, &len);
	if (!f || !title)
		return f ? (fclose(f), -ENOMEM) : -ENOMEM;
	h = 30 + chart_height(&recv.c) + 12 + chart_height(&loss.c);
	html_svg_open(f, CHART_WIDTH, h, title, true);
	fputs("<text x=\"4\" y=\"18\" class=\"title\">", f);
	html_text(f, title);
	fputs("</text>\n", f);
	chart_draw(f, &recv.c, 30);
	chart_draw(f, &loss.c, 30 + chart_height(&recv.c) + 12);
	html_svg_close(f);
	if (fclose(f) != 0)
		return -ENOMEM;
	*ret = TAKE_PTR(buf);
	return 0;
}
