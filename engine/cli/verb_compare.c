/* verb_compare.c: `cx5prof compare RUN RUN...` (runs side by side) and
 * `cx5prof compare --campaign A B` (B's groups against A's).
 *
 * Owns: the comparison's rows and their rendering (human and JSON through
 * output.h, keys in schemas/history.schema.json). Must never: write to the
 * database (it is opened read-only) or change the host. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>

#include "base/log.h"
#include "base/output.h"
#include "base/stats.h"
#include "campaign/verdict.h"
#include "ledger/ledger.h"
#include "mirror/mirror.h"
#include "os/procsys.h"
#include "store/campaigns.h"
#include "store/history.h"
#include "base/jsonget.h"
#include "store/runs.h"
#include "verbkit.h"
#include "verbs.h"

/* "+67% [41..112] better" from a comparison's measure, into buf. */
static void measure_cell(struct json_object *m, char *buf, size_t size)
{
	_cleanup_free_ char *t = verdict_doc_measure_text(m);

	snprintf(buf, size, "%s", strna(t));
}

/* ---- `cx5prof compare RUN RUN...` ---- */

/* F_TUNE: a line of the run's host_tuning artifact (name is its key);
 * F_LEDGER: a line's count in the run's loss ledger (name "ledger.STAGE"). */
enum field_type { F_STR, F_U64, F_DBL, F_BOOL, F_TUNE, F_LEDGER };

struct field {
	const char *name;
	enum field_type type;
	bool result; /* results get deltas against the first run */
	size_t offset;
	bool peer; /* from the runs' peer_state.json: a row only when one has it */
};

#define FS(n, t, res)                                                                                        \
	{                                                                                                    \
#n, t, res, offsetof(struct run_record, n), false                                            \
	}
static const struct field compare_fields[] = {
    FS(runner, F_STR, false),
    FS(profile, F_STR, false),
    {"interface", F_STR, false, offsetof(struct run_record, ifname), false},
    FS(peer, F_STR, false),
    FS(test, F_STR, false),
    {"mtu", F_U64, false, offsetof(struct run_record, mtu), false},
    FS(message_size, F_U64, false),
    FS(send_buffer, F_U64, false),
    FS(recv_buffer, F_U64, false),
    {"streams", F_U64, false, offsetof(struct run_record, streams), false},
    FS(duration_s, F_DBL, false),
    FS(irq_policy, F_STR, false),
    FS(irq_map, F_STR, false),
    {"irqbalance", F_TUNE, false, 0, false},
    {"bench_cpus", F_TUNE, false, 0, false}, /* then a row per sysctl (compare_rows) */
    FS(driver, F_STR, false),
    FS(driver_version, F_STR, false),
    FS(firmware_version, F_STR, false),
    {"peer_driver", F_STR, false, offsetof(struct run_record, peer_driver), true},
    {"peer_version", F_STR, false, offsetof(struct run_record, peer_driver_version), true},
    {"peer_firmware", F_STR, false, offsetof(struct run_record, peer_firmware), true},
    {"peer_mtu", F_U64, false, offsetof(struct run_record, peer_mtu), true},
    {"peer_rmem_max", F_U64, false, offsetof(struct run_record, peer_rmem_max), true},
    FS(sent, F_U64, true),
    FS(received, F_U64, true),
    FS(lost, F_U64, true),
    FS(send_mbps, F_DBL, true),
    FS(recv_mbps, F_DBL, true),
    FS(loss_pct, F_DBL, true),
    {"pass", F_BOOL, true, offsetof(struct run_record, passed), false},
    FS(limited_by, F_STR, true), /* then a row per stage of the ledger (compare_rows) */
};

#define LEDGER_ROW_PREFIX "ledger."

/* A line's count in the run's ledger; NAN when the run has none or its
 * host's counters were unknown. */
static double ledger_count_of(const struct run_record *r, const char *row)
{
	struct json_object *doc = r->ledger ? json_tokener_parse(r->ledger) : NULL;
	uint64_t v = 0;
	bool known = doc && ledger_doc_count(doc, row + strlen(LEDGER_ROW_PREFIX), &v);

	json_object_put(doc);
	return known ? (double)v : NAN;
}

/* The table with a host_tuning row per sysctl of procsys.h after
 * bench_cpus, so a sysctl cx5prof learns is compared without an edit here. */
static struct field *compare_rows(size_t *ret_n)
{
	static char *ledger_rows[32];
	size_t n_stages, k = 0, n;
	const char *const *stages = ledger_stages(&n_stages);
	struct field *v;

	n = ARRAY_SIZE(compare_fields) + _SYSCTL_MAX + n_stages + 1;
	v = calloc(n, sizeof(*v));
	if (!v)
		return NULL;
	/* "ledger.receiver-socket-buffer", ..., "ledger.unaccounted" */
	for (size_t i = 0; i <= n_stages && i < ARRAY_SIZE(ledger_rows); i++)
		if (!ledger_rows[i])
			ledger_rows[i] =
			    strprintf(LEDGER_ROW_PREFIX "%s", i < n_stages ? stages[i] : "unaccounted");
	for (size_t i = 0; i < ARRAY_SIZE(compare_fields); i++) {
		v[k++] = compare_fields[i];
		if (streq(compare_fields[i].name, "bench_cpus"))
			for (int s = 0; s < _SYSCTL_MAX; s++)
				v[k++] = (struct field){sysctl_key_to_string(s), F_TUNE, false, 0, false};
		if (streq(compare_fields[i].name, "limited_by"))
			for (size_t s = 0; s <= n_stages && ledger_rows[s]; s++)
				v[k++] = (struct field){ledger_rows[s], F_LEDGER, true, 0, false};
	}
	*ret_n = k;
	return v;
}

static double field_num(const struct run_record *r, const struct field *f)
{
	const char *p = (const char *)r + f->offset;

	if (f->type == F_DBL)
		return *(const double *)p;
	if (f->type == F_BOOL)
		return *(const bool *)p;
	if (f->type == F_LEDGER)
		return ledger_count_of(r, f->name);
	if (streq(f->name, "mtu") || streq(f->name, "streams"))
		return *(const uint32_t *)p;
	return (double)*(const uint64_t *)p;
}

/* A text field's value (F_STR, F_TUNE), whole; NULL when unknown (or out
 * of memory). */
static char *field_str(const struct run_record *r, const struct field *f)
{
	const char *s;

	if (f->type == F_TUNE)
		return run_record_tuning(r, f->name);
	s = *(char *const *)((const char *)r + f->offset);
	return s ? strdup(s) : NULL;
}

/* Text of a value for people ("-" when unknown), whole. */
static char *field_text(const struct run_record *r, const struct field *f)
{
	char *s;
	double v;

	switch (f->type) {
	case F_STR:
	case F_TUNE:
		s = field_str(r, f);
		return s ? s : strdup("-");
	case F_BOOL: /* the one bool row, pass: for people the run's outcome */
		return strdup(run_record_outcome_label(r));
	case F_U64:
		v = field_num(r, f);
		return v == 0 && !f->result ? strdup("-") : strprintf("%.0f", v);
	case F_DBL:
		if (!isfinite(field_num(r, f))) /* loss of a run that sent nothing */
			return strdup("n/a");
		return f->result || field_num(r, f) != 0 ? strprintf("%.2f", field_num(r, f)) : strdup("-");
	case F_LEDGER:
		v = field_num(r, f);
		return isfinite(v) ? strprintf("%.0f", v) : strdup("-");
	}
	return NULL;
}

/* A measured parameter (duration_s: the run's own length, microseconds
 * apart between any two runs) differs when its printed value does. */
static bool field_differs(const struct run_record *runs, size_t n, const struct field *f)
{
	for (size_t i = 1; i < n; i++) {
		bool text = f->type == F_STR || f->type == F_TUNE;
		double a = text ? 0 : field_num(&runs[0], f), b = text ? 0 : field_num(&runs[i], f);

		if (text || (f->type == F_DBL && !f->result)) {
			_cleanup_free_ char *ta = text ? field_str(&runs[0], f) : field_text(&runs[0], f),
					    *tb = text ? field_str(&runs[i], f) : field_text(&runs[i], f);
			if (!streq_ptr(ta, tb))
				return true;
		} else if (a != b && !(isnan(a) && isnan(b)))
			return true;
	}
	return false;
}

/* A result read in percent of something (loss_pct): its change is in
 * percentage points, never a percentage of a percentage. */
static bool field_is_percent(const struct field *f)
{
	size_t n = strlen(f->name);
	return n > 4 && streq(f->name + n - 4, "_pct");
}

static void compare_field_json(const struct run_record *runs, size_t n, const struct field *f, bool differs)
{
	struct json_object *o = json_object_new_object(), *vals = json_object_new_array(), *deltas = NULL,
			   *pcts = NULL;

	json_object_object_add(o, "name", json_object_new_string(f->name));
	json_object_object_add(o, "differs", json_object_new_boolean(differs));
	if (f->result && f->type != F_BOOL && f->type != F_STR) {
		deltas = json_object_new_array();
		pcts = json_object_new_array();
	}
	for (size_t i = 0; i < n; i++) {
		bool text = f->type == F_STR || f->type == F_TUNE;
		double v = text ? 0 : field_num(&runs[i], f), base = text ? 0 : field_num(&runs[0], f);
		_cleanup_free_ char *str = text ? field_str(&runs[i], f) : NULL;

		switch (f->type) {
		case F_STR:
		case F_TUNE:
			json_object_array_add(vals, str ? json_object_new_string(str) : NULL);
			break;
		case F_BOOL:
			json_object_array_add(vals, json_object_new_boolean(v != 0));
			break;
		case F_U64:
			json_object_array_add(vals, v == 0 && !f->result ? NULL
									 : json_object_new_int64((int64_t)v));
			break;
		case F_DBL:
			json_object_array_add(
			    vals, (v == 0 && !f->result) || !isfinite(v) ? NULL : json_object_new_double(v));
			break;
		case F_LEDGER:
			json_object_array_add(vals, isfinite(v) ? json_object_new_int64((int64_t)v) : NULL);
			break;
		}
		if (deltas) {
			bool known = i > 0 && isfinite(v - base);

			json_object_array_add(deltas, known ? json_object_new_double(v - base) : NULL);
			json_object_array_add(pcts, !known || base == 0
							? NULL
							: json_object_new_double(100.0 * (v - base) / base));
		}
	}
	json_object_object_add(o, "values", vals);
	if (deltas) {
		json_object_object_add(o, "deltas", deltas);
		json_object_object_add(o, "delta_unit",
				       json_object_new_string(field_is_percent(f) ? "pp" : "value"));
		json_object_object_add(o, "delta_pct", pcts);
	}
	out_json(NULL, o);
}

/* One cell for people: the value, and for results its change against
 * the first run ("7742.80 (+136.2%)", loss "1.20 (-3.45 pp)"). */
static char *compare_cell(const struct run_record *runs, size_t i, const struct field *f, bool differs)
{
	_cleanup_free_ char *text = field_text(&runs[i], f);

	if (text && i > 0 && f->result && f->type != F_BOOL && f->type != F_STR && differs) {
		double v = field_num(&runs[i], f), base = field_num(&runs[0], f);

		if (isfinite(v - base) && field_is_percent(f))
			return strprintf("%s (%+.2f pp)", text, v - base);
		if (isfinite(v - base) && base != 0)
			return strprintf("%s (%+.1f%%)", text, 100.0 * (v - base) / base);
		if (isfinite(v - base))
			return strprintf("%s (%+.2f)", text, v - base);
	}
	return TAKE_PTR(text);
}

/* A host_tuning row no run recorded (runs older than it) is left out, and
 * the peer's rows when no run has its peer_state.json; of the ledger,
 * limited_by when a run has one, a stage when it counted drops in one. */
static bool compare_row_shown(const struct run_record *runs, size_t n, const struct field *f)
{
	if (f->type == F_LEDGER) {
		for (size_t i = 0; i < n; i++)
			if (ledger_count_of(&runs[i], f->name) > 0)
				return true;
		return false;
	}
	if (streq(f->name, "limited_by")) {
		for (size_t i = 0; i < n; i++)
			if (runs[i].ledger)
				return true;
		return false;
	}
	if (f->peer) {
		for (size_t i = 0; i < n; i++)
			if (run_record_artifact(&runs[i], "peer_state.json"))
				return true;
		return false;
	}
	if (f->type != F_TUNE)
		return true;
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *v = field_str(&runs[i], f);
		if (v)
			return true;
	}
	return false;
}

/* People read "net.core.rmem_max" as rmem_max, "net.ipv4.udp_mem" as
 * udp_mem; JSON keeps the full key. */
static const char *compare_label(const struct field *f)
{
	if (strncmp(f->name, "net.core.", 9) == 0 || strncmp(f->name, "net.ipv4.", 9) == 0)
		return f->name + 9;
	return f->name;
}

#define COMPARE_COLUMNS 100

/* The length of s's first item: up to its list separator (a "," or ";"
 * before a space) included, or all of s. */
static int item_length(const char *s)
{
	for (int i = 0; s[i]; i++)
		if ((s[i] == ',' || s[i] == ';') && s[i + 1] == ' ')
			return i + 1;
	return (int)strlen(s);
}

/* The length of the next line of s (at a word) wrapped to width columns:
 * the most whole words that fit, but ending after a list separator ("," or
 * ";") when the item after it then fits whole on the next line, so that an
 * IRQ map's "mlx5_comp1 -> 10" is not split; a word longer than width gets
 * a line of its own, whole. */
static int wrap_length(const char *s, int width)
{
	int end = (int)strcspn(s, " "), sep = 0;

	for (;;) {
		if (s[end] == ' ' && end > 0 && (s[end - 1] == ',' || s[end - 1] == ';') &&
		    item_length(s + end + 1) <= width)
			sep = end;
		if (s[end] != ' ' || !s[end + 1] || end + 1 + (int)strcspn(s + end + 1, " ") > width)
			break;
		end += 1 + (int)strcspn(s + end + 1, " ");
	}
	return s[end] && s[end + 1] && sep ? sep : end;
}

/* Line `line` (0-based) of cell s wrapped to `width` columns
 * (wrap_length): its start and length, or false past the last line.
 * Nothing is cut: every character of s is on some line. */
static bool wrapped_line(const char *s, int width, int line, const char **ret, int *ret_len)
{
	for (int k = 0;; k++) {
		int len;

		s += strspn(s, " ");
		if (!*s)
			return false;
		len = wrap_length(s, width);
		if (k == line) {
			*ret = s;
			*ret_len = len;
			return true;
		}
		s += len;
	}
}

/* Parameters, then results; a value wider than its column (an IRQ map)
 * wraps at spaces within it, so 3 runs fit in COMPARE_COLUMNS. */
static void compare_human(const struct run_record *runs, size_t n, const struct field *rows, size_t nrows)
{
	_cleanup_free_ int *width = calloc(n, sizeof(int));
	_cleanup_free_ char **cells = calloc(n * nrows, sizeof(char *));
	int label = 16, cap;

	if (!width || !cells)
		return;
	for (size_t k = 0; k < nrows; k++)
		if (compare_row_shown(runs, n, &rows[k]) && (int)strlen(compare_label(&rows[k])) > label)
			label = (int)strlen(compare_label(&rows[k]));
	cap = (COMPARE_COLUMNS - label - 2 - 2 * (int)n) / (int)n;
	if (cap < 12)
		cap = 12;
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *head = strprintf("run %" PRId64, runs[i].id);

		width[i] = head ? (int)strlen(head) : 8;
		for (size_t k = 0; k < nrows; k++) {
			const struct field *f = &rows[k];
			char **c = &cells[k * n + i];

			*c = compare_cell(runs, i, f, field_differs(runs, n, f));
			if (*c && compare_row_shown(runs, n, f) && (int)strlen(*c) > width[i])
				width[i] = (int)strlen(*c) < cap ? (int)strlen(*c) : cap;
		}
	}
	out_text("%-*s", label + 2, "");
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *head = strprintf("run %" PRId64, runs[i].id);
		out_text("  %-*s", i + 1 < n ? width[i] : 0, strna(head));
	}
	out_text("\n");
	for (int part = 0; part < 2; part++) {
		out_text(part ? "results\n" : "parameters\n");
		for (size_t k = 0; k < nrows; k++) {
			const struct field *f = &rows[k];
			bool d = field_differs(runs, n, f), more = true;

			if (f->result != (part == 1) || !compare_row_shown(runs, n, f))
				continue;
			for (int line = 0; more; line++) {
				_cleanup_free_ char *text = NULL;
				size_t size = 0;
				FILE *f_line = open_memstream(&text, &size);

				if (!f_line)
					return;
				more = false;
				if (line == 0)
					fprintf(f_line, "%c %-*s", d ? '*' : ' ', label, compare_label(f));
				else
					fprintf(f_line, "%*s", label + 2, "");
				for (size_t i = 0; i < n; i++) {
					const char *cell = strna(cells[k * n + i]), *piece = "", *next;
					int len = 0, next_len;

					if (!wrapped_line(cell, width[i], line, &piece, &len))
						piece = "", len = 0;
					more |= wrapped_line(cell, width[i], line + 1, &next, &next_len);
					fprintf(f_line, "  %-*.*s", width[i], len, piece);
				}
				if (fclose(f_line) != 0)
					return;
				while (size > 0 && text[size - 1] == ' ')
					text[--size] = '\0';
				out_text("%s\n", text);
			}
		}
	}
	out_text("(* differs; in parentheses: change against run %" PRId64
		 ", of the loss in percentage points)\n",
		 runs[0].id);
	for (size_t c = 0; c < n * nrows; c++)
		free(cells[c]);
}

enum { OPT_COMPARE_CAMPAIGN = 1000 };

/* ---- `cx5prof compare --campaign A B` ---- */

/* One campaign's document and its groups' counted rounds. */
struct loaded_campaign {
	int64_t id;
	struct json_object *doc;
	struct json_object *groups;
	size_t n;
	double **recv, **loss;
	size_t *rounds;
};

static void loaded_campaign_done(struct loaded_campaign *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->recv ? l->recv[i] : NULL);
		free(l->loss ? l->loss[i] : NULL);
	}
	free(l->recv);
	free(l->loss);
	free(l->rounds);
	json_object_put(l->doc);
}

static int campaign_load_doc(struct history *h, const char *arg, struct loaded_campaign *ret)
{
	_cleanup_free_ char *summary = NULL;
	int r;

	if (safe_atoi64(arg, &ret->id) < 0 || ret->id <= 0) {
		log_error(
		    "compare: '%s' is not a campaign id (a positive number, as listed by 'cx5prof history')",
		    arg);
		return EXIT_USAGE;
	}
	r = campaigns_get_summary(h, ret->id, &summary);
	if (r == -ENOENT) {
		log_error("compare: no campaign %" PRId64 " in %s", ret->id, history_path(h));
		return EXIT_NOT_FOUND;
	}
	if (r < 0) {
		log_error_errno(r, "history %s: %m: %s", history_path(h), history_remedy(r));
		return EXIT_ERROR;
	}
	ret->doc = summary ? json_tokener_parse(summary) : NULL;
	if (!ret->doc || !json_object_object_get_ex(ret->doc, "groups", &ret->groups) ||
	    !json_object_is_type(ret->groups, json_type_array)) {
		log_error("compare: campaign %" PRId64 " has no summary to compare (%s)", ret->id,
			  summary ? "unreadable" : "still running");
		return EXIT_INVALID;
	}
	ret->n = json_object_array_length(ret->groups);
	ret->recv = calloc(ret->n ? ret->n : 1, sizeof(*ret->recv));
	ret->loss = calloc(ret->n ? ret->n : 1, sizeof(*ret->loss));
	ret->rounds = calloc(ret->n ? ret->n : 1, sizeof(*ret->rounds));
	if (!ret->recv || !ret->loss || !ret->rounds)
		return log_error("out of memory"), EXIT_ERROR;
	for (size_t i = 0; i < ret->n; i++)
		if (verdict_doc_rounds(json_object_array_get_idx(ret->groups, i), &ret->recv[i],
				       &ret->loss[i], &ret->rounds[i]) < 0)
			return log_error("out of memory"), EXIT_ERROR;
	return EXIT_OK;
}

static struct verdict_group doc_group(const struct loaded_campaign *l, size_t i)
{
	struct json_object *g = json_object_array_get_idx(l->groups, i);

	return (struct verdict_group){
	    .name = jstr(g, "group"),
	    .sweep_value = jstr(g, "sweep_value"),
	    .recv = l->recv[i],
	    .loss = l->loss[i],
	    .n = l->rounds[i],
	    .skipped = jstr(g, "skipped"),
	};
}

/* "only in campaign 1: lab-full": the groups of `a` that `b` lacks. */
static struct json_object *only_in(const struct loaded_campaign *a, const struct loaded_campaign *b)
{
	struct json_object *out = json_object_new_array();

	for (size_t i = 0; i < a->n; i++) {
		struct verdict_group x = doc_group(a, i);
		bool found = false;
		for (size_t j = 0; j < b->n && !found; j++) {
			struct verdict_group y = doc_group(b, j);
			found = streq_ptr(x.name, y.name) && streq_ptr(x.sweep_value, y.sweep_value);
		}
		if (!found)
			json_object_array_add(out, json_object_new_string(strempty(x.name)));
	}
	return out;
}

static void render_campaign_compare(struct json_object *o, const struct loaded_campaign *l)
{
	struct json_object *cmps = json_object_object_get(o, "comparisons");

	out_text("compare     campaign %" PRId64 " (%s) against campaign %" PRId64 " (%s)\n", l[1].id,
		 strna(jstr(l[1].doc, "name")), l[0].id, strna(jstr(l[0].doc, "name")));
	for (size_t i = 0; i < json_object_array_length(cmps); i++) {
		struct json_object *c = json_object_array_get_idx(cmps, i),
				   *recv = json_object_object_get(c, "recv");
		char name[96], rc[96], lc[96], before[32], after[32];

		if (i == 0)
			out_text("%-24s %-14s %-14s %-44s %-44s %s\n", "group", "before Mbps", "after Mbps",
				 "receive throughput", "loss", "interval levels (throughput, loss)");
		snprintf(name, sizeof(name), "%s%s%s", jstr(c, "group"), jstr(c, "sweep_value") ? " " : "",
			 strempty(jstr(c, "sweep_value")));
		for (size_t k = 0; k < 2; k++) {
			char *buf = k ? after : before;
			const char *key = k ? "rounds" : "rounds_against";
			for (size_t g = 0; g < l[k].n; g++) {
				struct verdict_group vg = doc_group(&l[k], g);
				if (streq_ptr(vg.name, jstr(c, "group")) &&
				    streq_ptr(vg.sweep_value, jstr(c, "sweep_value")))
					snprintf(buf, 32, "%.1f (%d)", stats_median(vg.recv, vg.n),
						 json_object_get_int(json_object_object_get(c, key)));
			}
		}
		measure_cell(recv, rc, sizeof(rc));
		measure_cell(json_object_object_get(c, "loss"), lc, sizeof(lc));
		out_text("%-24s %-14s %-14s %-44s %-44s %.1f%%, %.1f%%\n", name, before, after, rc, lc,
			 100 * jnum(recv, "confidence"),
			 100 * jnum(json_object_object_get(c, "loss"), "confidence"));
	}
	for (size_t k = 0; k < 2; k++) {
		struct json_object *only = json_object_object_get(o, k ? "only_after" : "only_before");
		for (size_t i = 0; i < json_object_array_length(only); i++)
			out_text("only in campaign %" PRId64 ": %s\n", l[k].id,
				 json_object_get_string(json_object_array_get_idx(only, i)));
	}
	if (json_object_array_length(cmps) == 0)
		out_text("nothing to compare: no group of campaign %" PRId64 " has counted rounds in both\n",
			 l[1].id);
}

static int compare_campaigns(struct cli *cli, char **args)
{
	_cleanup_history_ struct history *h = NULL;
	_cleanup_free_ struct verdict_group *groups = NULL;
	_cleanup_free_ struct verdict_pair *pairs = NULL;
	struct loaded_campaign l[2] = {0};
	struct verdict v = {0};
	struct verdict_input in;
	struct json_object *o = NULL, *ids;
	size_t n_pairs = 0;
	int r, code = EXIT_OK;

	if (strv_length(args) != 2) {
		log_error(
		    "compare --campaign: give two campaign ids, the earlier first (see 'cx5prof history')");
		return EXIT_USAGE;
	}
	r = txn_verb_open_history(cli, HISTORY_READ_ONLY, &h);
	if (r != EXIT_OK)
		return r;
	for (size_t k = 0; k < 2 && code == EXIT_OK; k++)
		code = campaign_load_doc(h, args[k], &l[k]);
	if (code == EXIT_OK) {
		groups = calloc(l[0].n + l[1].n + 1, sizeof(*groups));
		pairs = calloc(l[1].n + 1, sizeof(*pairs));
		if (!groups || !pairs)
			code = EXIT_ERROR;
	}
	for (size_t i = 0; code == EXIT_OK && i < l[0].n + l[1].n; i++)
		groups[i] = i < l[0].n ? doc_group(&l[0], i) : doc_group(&l[1], i - l[0].n);
	/* Each group of the second campaign against the same group (and
	 * sweep value) of the first. */
	for (size_t j = 0; code == EXIT_OK && j < l[1].n; j++)
		for (size_t i = 0; i < l[0].n; i++)
			if (streq_ptr(groups[i].name, groups[l[0].n + j].name) &&
			    streq_ptr(groups[i].sweep_value, groups[l[0].n + j].sweep_value)) {
				pairs[n_pairs++] = (struct verdict_pair){l[0].n + j, i, CMP_CAMPAIGN, -1};
				break;
			}
	if (code == EXIT_OK) {
		/* The later campaign's margins (its min_effect), else the defaults. */
		struct json_object *me =
		    json_object_object_get(json_object_object_get(l[1].doc, "statistics"), "min_effect");
		double mr = jnum(me, "throughput_percent"), ml = jnum(me, "loss_points");

		in = (struct verdict_input){.groups = groups,
					    .n_groups = l[0].n + l[1].n,
					    .n_sweeps = 1,
					    .alpha = VERDICT_ALPHA,
					    .margin_recv = isnan(mr) ? VERDICT_MIN_EFFECT_RECV : mr,
					    .margin_loss = isnan(ml) ? VERDICT_MIN_EFFECT_LOSS : ml,
					    .pairs = pairs,
					    .n_pairs = n_pairs};
		r = verdict_compute(&in, &v);
		if (r < 0) {
			log_error_errno(r, "compare: %m");
			code = EXIT_ERROR;
		}
	}
	if (code == EXIT_OK) {
		o = json_object_new_object();
		ids = json_object_new_array();
		json_object_array_add(ids, json_object_new_int64(l[0].id));
		json_object_array_add(ids, json_object_new_int64(l[1].id));
		json_object_object_add(o, "campaigns", ids);
		json_object_object_add(o, "comparisons", verdict_comparisons_json(&in, &v));
		json_object_object_add(o, "only_before", only_in(&l[0], &l[1]));
		json_object_object_add(o, "only_after", only_in(&l[1], &l[0]));
		if (out_is_json())
			out_json(NULL, json_object_get(o));
		else
			render_campaign_compare(o, l);
		json_object_put(o);
		if (out_finish() < 0)
			code = EXIT_ERROR;
	}
	verdict_done(&v);
	loaded_campaign_done(&l[0]);
	loaded_campaign_done(&l[1]);
	return code;
}

const struct cli_option compare_options[] = {
    {"campaign", CLI_ARG_NONE, OPT_COMPARE_CAMPAIGN, NULL,
     "compare two campaigns group by group (A B: B's groups against A's), with the campaign statistics"},
    {0},
};

static int compare_option(int id, const char *arg, void *userdata)
{
	(void)arg;
	*(bool *)userdata = id == OPT_COMPARE_CAMPAIGN;
	return 0;
}

int verb_compare(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_history_ struct history *h = NULL;
	struct run_record *runs = NULL;
	_cleanup_free_ struct field *rows = NULL;
	size_t n, nrows = 0, loaded = 0;
	bool campaigns = false;
	int r;

	r = cli_parse(cli, cli->verb, argc, argv, compare_option, &campaigns, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	if (campaigns)
		return compare_campaigns(cli, args);
	n = strv_length(args);
	if (n < 2) {
		log_error("compare: give at least two run ids (see 'cx5prof history')");
		return EXIT_USAGE;
	}
	runs = calloc(n, sizeof(*runs));
	rows = compare_rows(&nrows);
	if (!runs || !rows)
		return log_error("out of memory"), EXIT_ERROR;
	for (size_t i = 0; i < n; i++) {
		r = verbkit_parse_run_id(args[i], &runs[i].id);
		if (r != 0)
			goto out;
	}
	r = txn_verb_open_history(cli, HISTORY_READ_ONLY, &h);
	if (r != 0)
		goto out;
	for (; loaded < n; loaded++) {
		r = verbkit_load_run(h, runs[loaded].id, &runs[loaded]);
		if (r != 0)
			goto out;
	}

	if (!out_is_json()) {
		compare_human(runs, n, rows, nrows);
		r = out_finish() < 0 ? EXIT_ERROR : EXIT_OK;
		goto out;
	}
	out_open_object(NULL);
	out_open_array("runs");
	for (size_t i = 0; i < n; i++)
		out_int(OUT_JSON, NULL, NULL, runs[i].id);
	out_close_array();
	for (int part = 0; part < 2; part++) {
		out_open_array(part ? "results" : "parameters");
		for (size_t k = 0; k < nrows; k++) {
			const struct field *f = &rows[k];
			bool optional = f->peer || f->type == F_LEDGER || streq(f->name, "limited_by");

			if (f->result == (part == 1) && (!optional || compare_row_shown(runs, n, f)))
				compare_field_json(runs, n, f, field_differs(runs, n, f));
		}
		out_close_array();
	}
	out_close_object();
	r = out_finish() < 0 ? EXIT_ERROR : EXIT_OK;
out:
	for (size_t i = 0; i < n; i++)
		run_record_done(&runs[i]);
	free(runs);
	return r;
}
