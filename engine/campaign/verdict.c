/* verdict.c: a campaign's comparisons, Holm's correction, the best group
 * and the verdict line (see verdict.h).
 *
 * Owns: the pairs compared, their statistics and words, and the text and
 * JSON of them. Must never: name a winner whose interval against the
 * baseline does not exclude 0. */
#define _GNU_SOURCE
#include "verdict.h"

#include <math.h>

static const char *const role_names[_ROLE_MAX] = {"group", "baseline", "alone", "full", "minus"};
static const char *const kind_names[_CMP_MAX] = {"baseline", "previous", "alone", "marginal", "campaign"};

const char *verdict_role_to_string(enum verdict_role r)
{
	return r >= 0 && r < _ROLE_MAX ? role_names[r] : NULL;
}

const char *comparison_kind_to_string(enum comparison_kind k)
{
	return k >= 0 && k < _CMP_MAX ? kind_names[k] : NULL;
}

/* ---- the pairs ---- */

struct pairs {
	struct verdict_pair *v;
	size_t n;
};

static int pair_add(struct pairs *p, const struct verdict_input *in, size_t g, size_t against,
		    enum comparison_kind kind, int family)
{
	struct verdict_pair *n;

	if (g == against || in->groups[g].n == 0 || in->groups[against].n == 0)
		return 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].group == g && p->v[i].against == against)
			return 0; /* the same pair under another name (a small ablation) */
	n = realloc(p->v, (p->n + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	p->v = n;
	p->v[p->n++] = (struct verdict_pair){g, against, kind, family};
	return 0;
}

/* The row of the group with exactly these families in sweep s, or -1. */
static int ablation_row(const struct verdict_input *in, size_t s, unsigned families)
{
	for (size_t i = s; i < in->n_groups; i += in->n_sweeps)
		if (in->groups[i].families == families && in->groups[i].role != ROLE_GROUP)
			return (int)i;
	return -1;
}

/* The row every other is compared with in sweep s: the first group, or
 * the ablation's baseline. */
static int baseline_row(const struct verdict_input *in, size_t s)
{
	return in->n_families ? ablation_row(in, s, 0) : (int)s;
}

static int derive_pairs(const struct verdict_input *in, struct pairs *p)
{
	int r = 0;

	for (size_t s = 0; s < in->n_sweeps && r >= 0; s++) {
		int base = baseline_row(in, s);

		if (in->n_families) {
			unsigned all = (1u << in->n_families) - 1;
			int full = ablation_row(in, s, all);

			if (base < 0 || full < 0)
				continue;
			r = pair_add(p, in, (size_t)full, (size_t)base, CMP_BASELINE, -1);
			for (size_t f = 0; f < in->n_families && r >= 0; f++) {
				int alone = ablation_row(in, s, 1u << f),
				    minus = ablation_row(in, s, all & ~(1u << f));
				if (alone >= 0)
					r = pair_add(p, in, (size_t)alone, (size_t)base, CMP_ALONE, (int)f);
				if (r >= 0 && minus >= 0)
					r = pair_add(p, in, (size_t)full, (size_t)minus, CMP_MARGINAL,
						     (int)f);
			}
			continue;
		}
		for (size_t g = s + in->n_sweeps; g < in->n_groups && r >= 0; g += in->n_sweeps) {
			size_t prev = g - in->n_sweeps; /* the previous measured group */

			r = pair_add(p, in, g, (size_t)base, CMP_BASELINE, -1);
			while (prev > s && in->groups[prev].n == 0)
				prev -= in->n_sweeps;
			if (r >= 0 && prev != (size_t)base)
				r = pair_add(p, in, g, prev, CMP_PREVIOUS, -1);
		}
	}
	return r;
}

/* ---- the statistics ---- */

bool verdict_thresholds_failed(size_t failures, size_t counted)
{
	return counted > 0 && 2 * failures >= counted;
}

struct family_walk {
	const struct verdict_input *in;
	struct verdict_comparison *cmp;
	bool loss;
	int r;
};

/* The samples of a comparison: receive throughput or loss. */
static void samples(const struct verdict_input *in, const struct verdict_pair *p, bool loss, const double **x,
		    const double **y)
{
	*x = loss ? in->groups[p->group].loss : in->groups[p->group].recv;
	*y = loss ? in->groups[p->against].loss : in->groups[p->against].recv;
}

static int shift(const double *x, size_t nx, const double *y, size_t ny, bool loss, double level,
		 struct stats_shift *ret)
{
	return loss ? stats_shift(x, nx, y, ny, level, ret) : stats_ratio(x, nx, y, ny, level, ret);
}

static int measure(const struct verdict_input *in, const struct verdict_pair *p, bool loss, double level,
		   struct verdict_measure *ret)
{
	const struct verdict_group *g = &in->groups[p->group], *a = &in->groups[p->against];
	struct verdict_measure m = {.level = level, .margin = loss ? in->margin_loss : in->margin_recv};
	const double *x, *y;
	int r;

	samples(in, p, loss, &x, &y);
	r = shift(x, g->n, y, a->n, loss, level, &m.s);
	if (r < 0)
		return r;
	m.sign = stats_shift_sign(&m.s);
	/* Equivalence: the same interval inside the margin (each of the two
	 * one-sided tests at level / 2, so the look's level covers it). It
	 * wins over a difference too small to matter. */
	m.equivalent = m.margin > 0 && m.s.low > -m.margin && m.s.high < m.margin;
	if (m.equivalent)
		m.sign = 0;
	if (stats_shift_unbounded(&m.s))
		m.min_rounds = stats_min_rounds(level);
	*ret = m;
	return 0;
}

/* One-sided p-value of "the shift of x over y is below 0" (below: true)
 * or above it, from the two-sided one. */
static double one_sided(const struct stats_shift *s, bool below)
{
	return (s->estimate < 0) == below ? s->p_value / 2 : 1 - s->p_value / 2;
}

/* The p-value of equivalence within margin M (two-sided, as the interval
 * is): twice the larger of the one-sided p-values of "at least +M" and
 * "at most -M". Orders Holm's walk only. 1 without a margin. */
static int equivalence_p(const struct verdict_input *in, const struct verdict_pair *p, bool loss, double *ret)
{
	const struct verdict_group *g = &in->groups[p->group], *a = &in->groups[p->against];
	double margin = loss ? in->margin_loss : in->margin_recv, worst = 0;
	_cleanup_free_ double *moved = calloc(g->n ? g->n : 1, sizeof(*moved));
	const double *x, *y;
	struct stats_shift s;
	int r;

	if (!moved)
		return -ENOMEM;
	if (margin <= 0 || margin >= 100) {
		*ret = 1;
		return 0;
	}
	samples(in, p, loss, &x, &y);
	for (int side = -1; side <= 1; side += 2) {
		for (size_t i = 0; i < g->n; i++)
			moved[i] = loss ? x[i] - side * margin : x[i] / (1 + side * margin / 100);
		r = shift(moved, g->n, y, a->n, loss, VERDICT_ALPHA, &s);
		if (r < 0)
			return r;
		worst = fmax(worst, one_sided(&s, side > 0));
	}
	*ret = fmin(1, 2 * worst);
	return 0;
}

static bool decide(size_t i, double level, void *userdata)
{
	struct family_walk *w = userdata;
	struct verdict_measure *m = w->loss ? &w->cmp[i].loss : &w->cmp[i].recv;
	int r = measure(w->in, &w->cmp[i].pair, w->loss, level, m);

	if (r < 0)
		w->r = r;
	return r >= 0 && (m->sign != 0 || m->equivalent);
}

/* Holm over one family (throughput or loss): every comparison first at
 * the family's level for its p-values, then at the level of its step. A
 * step decides a comparison either way: a difference (the interval
 * excludes 0) or no meaningful difference (it lies inside the margin).
 * Whatever the true shift, only one of the two can be wrong for it (0:
 * only a difference; at or beyond the margin: only equivalence), each at
 * most at the step's level, so Holm's argument holds for the family: the
 * first wrong decision of a walk is made at a level of at most alpha /
 * (the comparisons that could be wrong). The walk goes in order of the
 * smaller of the two p-values. */
static int family_compute(const struct verdict_input *in, struct verdict *v, bool loss)
{
	_cleanup_free_ double *p = calloc(v->n_cmp ? v->n_cmp : 1, sizeof(*p));
	_cleanup_free_ double *level = calloc(v->n_cmp ? v->n_cmp : 1, sizeof(*level));
	struct family_walk w = {in, v->cmp, loss, 0};
	int r;

	if (!p || !level)
		return -ENOMEM;
	for (size_t i = 0; i < v->n_cmp; i++) {
		struct verdict_measure m;
		double eq;
		r = measure(in, &v->cmp[i].pair, loss, in->alpha, &m);
		if (r >= 0)
			r = equivalence_p(in, &v->cmp[i].pair, loss, &eq);
		if (r < 0)
			return r;
		p[i] = fmin(m.s.p_value, eq);
	}
	r = stats_holm(p, v->n_cmp, in->alpha, decide, &w, level);
	return r < 0 ? r : w.r;
}

static int find_cmp(const struct verdict *v, size_t g, size_t against)
{
	for (size_t i = 0; i < v->n_cmp; i++)
		if (v->cmp[i].pair.group == g && v->cmp[i].pair.against == against)
			return (int)i;
	return -1;
}

/* The best group of sweep s: the highest median among the groups clearly
 * faster than the baseline (and measured, complete, within thresholds). */
static void best_compute(const struct verdict_input *in, struct verdict *v, size_t s)
{
	int base = baseline_row(in, s);
	double best = -1, top = -1;

	v->best[s] = v->best_cmp[s] = -1;
	if (base < 0)
		return;
	for (size_t g = s; g < in->n_groups; g += in->n_sweeps) {
		const struct verdict_group *gr = &in->groups[g];
		double med = stats_median(gr->recv, gr->n);
		int c = find_cmp(v, g, (size_t)base);

		if ((int)g == base || gr->n == 0 || gr->skipped || gr->thresholds_failed || c < 0)
			continue;
		if (v->cmp[c].recv.sign > 0 && med > best) {
			best = med;
			v->best[s] = (int)g;
			v->best_cmp[s] = c;
		}
		if (v->best[s] < 0 && med > top) {
			top = med;
			v->best_cmp[s] = c;
		}
	}
}

/* Is group o of sweep s a rival of the verdict's group b: also clearly
 * faster than the baseline (measured, not skipped, within thresholds), and
 * not shown slower than b? Naming b alone would then claim more than the
 * rounds show. *ret_cmp: their comparison (either way round), or -1 when
 * they were not compared. */
static bool rival(const struct verdict_input *in, const struct verdict *v, size_t s, size_t o, int *ret_cmp)
{
	const struct verdict_group *gr = &in->groups[o];
	int base = baseline_row(in, s), b = v->best[s], c;

	*ret_cmp = -1;
	if (b < 0 || (int)o == b || (int)o == base || gr->n == 0 || gr->skipped || gr->thresholds_failed)
		return false;
	c = find_cmp(v, o, (size_t)base);
	if (c < 0 || v->cmp[c].recv.sign <= 0)
		return false;
	if ((c = find_cmp(v, (size_t)b, o)) >= 0) {
		*ret_cmp = c;
		return v->cmp[c].recv.sign <= 0;
	}
	if ((c = find_cmp(v, o, (size_t)b)) >= 0) {
		*ret_cmp = c;
		return v->cmp[c].recv.sign >= 0;
	}
	return true;
}

int verdict_rounds_needed(const struct verdict_input *in, size_t *ret_n, unsigned *ret_rounds)
{
	struct verdict_group *groups = calloc(in->n_groups ? in->n_groups : 1, sizeof(*groups));
	struct verdict_input planned = *in;
	struct pairs p = {0};
	int r;

	if (!groups)
		return -ENOMEM;
	for (size_t g = 0; g < in->n_groups; g++) {
		groups[g] = in->groups[g];
		groups[g].n = groups[g].skipped ? 0 : 1;
	}
	planned.groups = groups;
	r = derive_pairs(&planned, &p);
	free(groups);
	free(p.v);
	if (r < 0)
		return r;
	/* Every comparison decided: the first of Holm's walk too, tested at
	 * alpha / m; with an even separation all share one p value. */
	*ret_n = p.n;
	*ret_rounds = p.n ? stats_min_rounds(VERDICT_ALPHA / (double)p.n) : 0;
	return 0;
}

int verdict_compute(const struct verdict_input *in, struct verdict *ret)
{
	struct pairs p = {0};
	struct verdict v = {0};
	int r = 0;

	if (in->pairs) {
		for (size_t i = 0; i < in->n_pairs; i++) {
			r = pair_add(&p, in, in->pairs[i].group, in->pairs[i].against, in->pairs[i].kind,
				     in->pairs[i].family);
			if (r < 0)
				break;
		}
	} else
		r = derive_pairs(in, &p);
	v.cmp = calloc(p.n ? p.n : 1, sizeof(*v.cmp));
	v.best = calloc(in->n_sweeps, sizeof(*v.best));
	v.best_cmp = calloc(in->n_sweeps, sizeof(*v.best_cmp));
	if (r >= 0 && (!v.cmp || !v.best || !v.best_cmp))
		r = -ENOMEM;
	v.n_cmp = p.n;
	for (size_t i = 0; r >= 0 && i < p.n; i++)
		v.cmp[i].pair = p.v[i];
	free(p.v);
	if (r >= 0)
		r = family_compute(in, &v, false);
	if (r >= 0)
		r = family_compute(in, &v, true);
	if (r < 0) {
		verdict_done(&v);
		return r;
	}
	v.decided = v.n_cmp > 0;
	for (size_t i = 0; i < v.n_cmp; i++)
		v.decided &= v.cmp[i].recv.sign != 0 || v.cmp[i].recv.equivalent;
	/* A group not skipped and still without a counted round has no
	 * comparison yet: nothing about it is decided. */
	for (size_t g = 0; g < in->n_groups; g++)
		v.decided &= in->groups[g].n > 0 || in->groups[g].skipped != NULL;
	for (size_t s = 0; s < in->n_sweeps; s++)
		best_compute(in, &v, s);
	*ret = v;
	return 0;
}

void verdict_done(struct verdict *v)
{
	free(v->cmp);
	free(v->best);
	free(v->best_cmp);
	*v = (struct verdict){0};
}

/* ---- words ---- */

/* 73 -> "73", 7.25 -> "7.2", in the precision the size deserves; a value
 * that is not 0 never reads as 0 (0.004 pp -> "0.004"): the end of an
 * interval that excludes 0 must not seem to touch it. */
static void figure(char *buf, size_t size, double x, bool sign, bool points)
{
	int digits = points ? 2 : fabs(x) < 10 ? 1 : 0;

	for (;; digits++) {
		snprintf(buf, size, sign ? "%+.*f" : "%.*f", digits, x);
		if (x == 0 || strtod(buf, NULL) != 0 || digits >= 15)
			return;
	}
}

char *verdict_measure_text(const struct verdict_measure *m, bool points)
{
	char est[32], lo[32], hi[32];

	figure(est, sizeof(est), m->s.estimate, true, points);
	if (stats_shift_unbounded(&m->s) && m->min_rounds)
		return strprintf("%s%s [needs %u rounds]", est, points ? " pp" : "%", m->min_rounds);
	if (stats_shift_unbounded(&m->s))
		return strprintf("%s%s [needs more than %u rounds]", est, points ? " pp" : "%",
				 STATS_EXACT_MAX_N);
	figure(lo, sizeof(lo), m->s.low, false, points);
	figure(hi, sizeof(hi), m->s.high, false, points);
	return strprintf("%s%s [%s..%s]", est, points ? " pp" : "%", lo, hi);
}

const char *verdict_measure_word(const struct verdict_measure *m, bool loss)
{
	if (m->equivalent)
		return "no meaningful difference";
	if (m->sign == 0)
		return "no clear difference";
	return (m->sign > 0) != loss ? "better" : "worse";
}

char *verdict_measure_words(const struct verdict_measure *m, bool loss)
{
	if (!m->equivalent)
		return strdup(verdict_measure_word(m, loss));
	return strprintf("no meaningful difference (within ±%g%s)", m->margin, loss ? " pp" : "%");
}

static const char *gname(const struct verdict_input *in, size_t g)
{
	return in->groups[g].name;
}

/* "loss -2.10 pp [-3.00..-1.20] (lower)" */
static char *loss_text(const struct verdict_comparison *c)
{
	_cleanup_free_ char *t = verdict_measure_text(&c->loss, true),
			    *w = verdict_measure_words(&c->loss, true);

	return strprintf("loss %s (%s)", strna(t),
			 c->loss.sign == 0  ? strna(w)
			 : c->loss.sign > 0 ? "higher"
					    : "lower");
}

/* Append ", "-joined pieces: *s grows; false on out of memory. */
static bool append(char **s, const char *sep, const char *piece)
{
	char *t;

	if (!piece)
		return false;
	t = strprintf("%s%s%s", *s ? *s : "", *s && **s ? sep : "", piece);
	free(*s);
	*s = t;
	return t != NULL;
}

static char *family_effect(const struct verdict_input *in, const struct verdict *v, size_t f, size_t s)
{
	const struct verdict_family *fam = &in->families[f];
	const struct verdict_comparison *alone = NULL, *inside = NULL;
	_cleanup_free_ char *a = NULL;

	if (fam->skipped)
		return strprintf("%s: not applied (%s)", fam->label, fam->skipped);
	for (size_t i = 0; i < v->n_cmp; i++) {
		const struct verdict_comparison *c = &v->cmp[i];
		if (c->pair.group % in->n_sweeps != s)
			continue;
		if (c->pair.kind == CMP_ALONE && c->pair.family == (int)f)
			alone = c;
		if (c->pair.kind == CMP_MARGINAL && c->pair.family == (int)f)
			inside = c;
	}
	/* One family: alone is the whole profile against the baseline. */
	if (!alone && in->n_families == 1) {
		int base = baseline_row(in, s), full = ablation_row(in, s, 1);
		int c = base >= 0 && full >= 0 ? find_cmp(v, (size_t)full, (size_t)base) : -1;
		alone = c >= 0 ? &v->cmp[c] : NULL;
	}
	if (alone && alone->recv.sign != 0) {
		a = verdict_measure_text(&alone->recv, false);
		return strprintf("%s %s", fam->label, strna(a));
	}
	if (inside && inside->recv.sign != 0) {
		a = verdict_measure_text(&inside->recv, false);
		return strprintf("%s %s inside the full profile", fam->label, strna(a));
	}
	if (!alone && !inside)
		return strprintf("%s: not measured", fam->label);
	if (alone && alone->recv.equivalent && (!inside || inside->recv.equivalent)) {
		_cleanup_free_ char *w = verdict_measure_words(&alone->recv, false);
		return strprintf("%s: %s", fam->label, strna(w));
	}
	return strprintf("%s: no clear difference", fam->label);
}

/* "not clearly faster than jumbo (full vs jumbo +0.5% [-1.9..3.0]),
 * mtu-only (+486% [403..634] over baseline)": the rivals of the verdict's
 * group of sweep s, or NULL when it has none. */
static char *rivals_text(const struct verdict_input *in, const struct verdict *v, size_t s)
{
	_cleanup_free_ char *out = NULL;

	for (size_t o = s; o < in->n_groups; o += in->n_sweeps) {
		_cleanup_free_ char *t = NULL, *m = NULL;
		int c;

		if (!rival(in, v, s, o, &c))
			continue;
		if (c >= 0) {
			m = verdict_measure_text(&v->cmp[c].recv, false);
			t = strprintf("%s (%s vs %s %s)", gname(in, o), gname(in, v->cmp[c].pair.group),
				      gname(in, v->cmp[c].pair.against), strna(m));
		} else {
			m = verdict_measure_text(&v->cmp[find_cmp(v, o, (size_t)baseline_row(in, s))].recv,
						 false);
			t = strprintf("%s (%s over %s)", gname(in, o), strna(m),
				      gname(in, (size_t)baseline_row(in, s)));
		}
		if (!append(&out, ", ", t))
			return NULL;
	}
	return out ? strprintf("not clearly faster than %s", out) : NULL;
}

/* "small-mtu -45% [-50..-40]": the groups of sweep s clearly slower than
 * the baseline, or NULL when none is. */
static char *worse_text(const struct verdict_input *in, const struct verdict *v, size_t s)
{
	int base = baseline_row(in, s);
	char *out = NULL;

	for (size_t i = 0; base >= 0 && i < v->n_cmp; i++) {
		const struct verdict_comparison *c = &v->cmp[i];
		_cleanup_free_ char *m = NULL, *t = NULL;

		if (c->pair.against != (size_t)base || c->pair.group % in->n_sweeps != s || c->recv.sign >= 0)
			continue;
		m = verdict_measure_text(&c->recv, false);
		t = strprintf("%s %s", gname(in, c->pair.group), strna(m));
		if (!append(&out, ", ", t)) {
			free(out);
			return NULL;
		}
	}
	return out;
}

/* Every comparison of sweep s with its baseline lies inside the margin. */
static bool all_equivalent(const struct verdict_input *in, const struct verdict *v, size_t s)
{
	int base = baseline_row(in, s);
	size_t n = 0;

	for (size_t i = 0; base >= 0 && i < v->n_cmp; i++) {
		const struct verdict_comparison *c = &v->cmp[i];
		if (c->pair.against != (size_t)base || c->pair.group % in->n_sweeps != s)
			continue;
		if (!c->recv.equivalent)
			return false;
		n++;
	}
	return n > 0;
}

static char *sweep_line(const struct verdict_input *in, const struct verdict *v, size_t s)
{
	_cleanup_free_ char *line = NULL, *skipped = NULL, *failed = NULL, *families = NULL, *rivals = NULL,
			    *unmeasured = NULL, *worse = NULL;
	int base = baseline_row(in, s), best = v->best[s], bc = v->best_cmp[s];
	size_t measured = 0, last = 0;

	for (size_t g = s; g < in->n_groups; g += in->n_sweeps) {
		const struct verdict_group *gr = &in->groups[g];
		_cleanup_free_ char *t = NULL;

		if (gr->n) {
			measured++;
			last = g;
		}
		if (gr->skipped) {
			t = strprintf("%s (exit %d)", gr->name, gr->skipped_code);
			if (!append(&skipped, ", ", t))
				return NULL;
		} else if (gr->n == 0 && (int)g != base) {
			if (!append(&unmeasured, ", ", gr->name))
				return NULL;
		} else if (gr->thresholds_failed && !append(&failed, ", ", gr->name))
			return NULL;
	}
	if (measured == 0)
		line = strdup("no group was measured");
	else if (base < 0 || in->groups[base].n == 0)
		line = strprintf("the baseline %s was not measured: nothing to compare against",
				 base < 0 ? "group" : gname(in, (size_t)base));
	else if (measured == 1)
		line = strprintf("only %s was measured: nothing to compare", gname(in, last));
	else if (best >= 0) {
		const struct verdict_group *b = &in->groups[best];
		_cleanup_free_ char *gain = verdict_measure_text(&v->cmp[bc].recv, false);
		_cleanup_free_ char *loss = loss_text(&v->cmp[bc]);
		line =
		    strprintf("%s%s%s%s %s receive throughput over %s, %s", b->name,
			      b->description ? " (" : "", b->description ? b->description : "",
			      b->description ? ")" : "", strna(gain), gname(in, (size_t)base), strna(loss));
	} else if ((worse = worse_text(in, v, s))) {
		line = strprintf("no group was clearly faster than %s; worse: %s", gname(in, (size_t)base),
				 worse);
	} else if (bc >= 0 && all_equivalent(in, v, s)) {
		_cleanup_free_ char *w = verdict_measure_words(&v->cmp[bc].recv, false);
		line = strprintf("%s: every group's receive throughput against %s lies inside the margin",
				 strna(w), gname(in, (size_t)base));
	} else if (bc >= 0) {
		const struct verdict_comparison *c = &v->cmp[bc];
		_cleanup_free_ char *gain = verdict_measure_text(&c->recv, false);
		line = strprintf(
		    "no clear difference: no group was clearly faster than %s (highest median: %s %s)",
		    gname(in, (size_t)base), gname(in, c->pair.group), strna(gain));
	} else
		line = strprintf("no clear difference: no group was clearly faster than %s",
				 gname(in, (size_t)base));
	if (!line)
		return NULL;
	rivals = rivals_text(in, v, s);
	if (rivals && !append(&line, "; ", rivals))
		return NULL;
	for (size_t f = 0; f < in->n_families; f++) {
		_cleanup_free_ char *e = family_effect(in, v, f, s);
		if (!append(&families, ", ", e))
			return NULL;
	}
	if (families && (!append(&line, "; ", "families: ") || !append(&line, "", families)))
		return NULL;
	if (skipped && (!append(&line, "; ", "skipped: ") || !append(&line, "", skipped)))
		return NULL;
	if (measured > 0 && unmeasured &&
	    (!append(&line, "; ", "no round counted: ") || !append(&line, "", unmeasured)))
		return NULL;
	if (failed && (!append(&line, "; ", "failed thresholds: ") || !append(&line, "", failed)))
		return NULL;
	return TAKE_PTR(line);
}

char *verdict_line(const struct verdict_input *in, const struct verdict *v)
{
	char *out = NULL;

	for (size_t s = 0; s < in->n_sweeps; s++) {
		_cleanup_free_ char *line = sweep_line(in, v, s), *t = NULL;
		const char *value = in->groups[s].sweep_value;

		if (value)
			t = strprintf("%s: %s", value, strna(line));
		if (!line || !append(&out, "; ", t ? t : line)) {
			free(out);
			return NULL;
		}
	}
	return out;
}

/* ---- JSON ---- */

static struct json_object *num_or_null(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static struct json_object *measure_json(const struct verdict_measure *m, bool loss)
{
	struct json_object *o = json_object_new_object();
	_cleanup_free_ char *text = verdict_measure_text(m, loss), *words = verdict_measure_words(m, loss);

	json_object_object_add(o, "unit", json_object_new_string(loss ? "points" : "percent"));
	json_object_object_add(o, "change", num_or_null(m->s.estimate));
	json_object_object_add(o, "low", num_or_null(m->s.low));
	json_object_object_add(o, "high", num_or_null(m->s.high));
	json_object_object_add(o, "confidence", json_object_new_double(1 - m->level));
	json_object_object_add(o, "p_value", json_object_new_double(m->s.p_value));
	json_object_object_add(o, "exact", json_object_new_boolean(m->s.exact));
	json_object_object_add(o, "verdict", json_object_new_string(verdict_measure_word(m, loss)));
	json_object_object_add(o, "margin", m->margin > 0 ? json_object_new_double(m->margin) : NULL);
	json_object_object_add(o, "words", words ? json_object_new_string(words) : NULL);
	json_object_object_add(o, "text", text ? json_object_new_string(text) : NULL);
	json_object_object_add(o, "min_rounds",
			       m->min_rounds ? json_object_new_int((int)m->min_rounds) : NULL);
	return o;
}

static struct json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

struct json_object *verdict_comparisons_json(const struct verdict_input *in, const struct verdict *v)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < v->n_cmp; i++) {
		const struct verdict_comparison *c = &v->cmp[i];
		const struct verdict_group *g = &in->groups[c->pair.group], *w = &in->groups[c->pair.against];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "group", json_object_new_string(g->name));
		json_object_object_add(o, "against", json_object_new_string(w->name));
		json_object_object_add(o, "sweep_value", str_or_null(g->sweep_value));
		json_object_object_add(o, "kind",
				       json_object_new_string(comparison_kind_to_string(c->pair.kind)));
		json_object_object_add(
		    o, "family",
		    c->pair.family >= 0 ? json_object_new_string(in->families[c->pair.family].name) : NULL);
		json_object_object_add(o, "rounds", json_object_new_int((int)g->n));
		json_object_object_add(o, "rounds_against", json_object_new_int((int)w->n));
		json_object_object_add(o, "recv", measure_json(&c->recv, false));
		json_object_object_add(o, "loss", measure_json(&c->loss, true));
		json_object_array_add(a, o);
	}
	return a;
}

struct json_object *verdict_best_json(const struct verdict_input *in, const struct verdict *v)
{
	struct json_object *a = json_object_new_array();

	for (size_t s = 0; s < in->n_sweeps; s++) {
		struct json_object *o = json_object_new_object(), *skipped = json_object_new_array(),
				   *failed = json_object_new_array(), *mattered = json_object_new_array(),
				   *rivals = json_object_new_array();
		int base = baseline_row(in, s), rc;

		for (size_t g = s; g < in->n_groups; g += in->n_sweeps) {
			if (rival(in, v, s, g, &rc))
				json_object_array_add(rivals, json_object_new_string(gname(in, g)));
			if (in->groups[g].skipped)
				json_object_array_add(skipped, json_object_new_string(in->groups[g].name));
			else if (in->groups[g].thresholds_failed)
				json_object_array_add(failed, json_object_new_string(in->groups[g].name));
		}
		for (size_t i = 0; i < v->n_cmp; i++) {
			const struct verdict_comparison *c = &v->cmp[i];
			bool seen = false;
			if (c->pair.family < 0 || c->pair.group % in->n_sweeps != s || c->recv.sign == 0)
				continue;
			for (size_t k = 0; k < json_object_array_length(mattered); k++)
				seen |= streq(json_object_get_string(json_object_array_get_idx(mattered, k)),
					      in->families[c->pair.family].name);
			if (!seen)
				json_object_array_add(
				    mattered, json_object_new_string(in->families[c->pair.family].name));
		}
		json_object_object_add(o, "sweep_value", str_or_null(in->groups[s].sweep_value));
		json_object_object_add(
		    o, "group", v->best[s] >= 0 ? json_object_new_string(gname(in, v->best[s])) : NULL);
		json_object_object_add(o, "against",
				       base >= 0 ? json_object_new_string(gname(in, (size_t)base)) : NULL);
		json_object_object_add(o, "comparison",
				       v->best_cmp[s] >= 0 ? json_object_new_int(v->best_cmp[s]) : NULL);
		json_object_object_add(o, "not_clearly_faster_than", rivals);
		json_object_object_add(o, "families",
				       in->n_families ? mattered : (json_object_put(mattered), NULL));
		json_object_object_add(o, "skipped", skipped);
		json_object_object_add(o, "failed_thresholds", failed);
		json_object_array_add(a, o);
	}
	return a;
}

static int family_cmp(const struct verdict *v, size_t f, enum comparison_kind kind, size_t s, size_t n_sweeps)
{
	for (size_t i = 0; i < v->n_cmp; i++)
		if (v->cmp[i].pair.kind == kind && v->cmp[i].pair.family == (int)f &&
		    v->cmp[i].pair.group % n_sweeps == s)
			return (int)i;
	return -1;
}

char *verdict_interaction(const struct verdict_input *in, const struct verdict *v, size_t f)
{
	char *out = NULL;

	for (size_t s = 0; s < in->n_sweeps; s++) {
		int a = family_cmp(v, f, CMP_ALONE, s, in->n_sweeps),
		    m = family_cmp(v, f, CMP_MARGINAL, s, in->n_sweeps);
		_cleanup_free_ char *ta = NULL, *tm = NULL, *note = NULL;
		const struct verdict_measure *ma, *mm;
		bool disjoint;

		if (a < 0 || m < 0)
			continue;
		ma = &v->cmp[a].recv;
		mm = &v->cmp[m].recv;
		ta = verdict_measure_text(ma, false);
		tm = verdict_measure_text(mm, false);
		/* Only intervals that do not overlap show that the effects
		 * differ: one better and the other no clear difference may
		 * well be the same effect measured once clearly. */
		disjoint = ma->s.low > mm->s.high || mm->s.low > ma->s.high;
		if (disjoint && ma->sign != mm->sign)
			note = strprintf(
			    "alone %s (%s), inside the full profile %s (%s): its effect depends on the "
			    "other families",
			    verdict_measure_word(ma, false), strna(ta), verdict_measure_word(mm, false),
			    strna(tm));
		else if (disjoint)
			note =
			    strprintf("alone %s and inside the full profile %s do not overlap: the families "
				      "interact",
				      strna(ta), strna(tm));
		else if (ma->sign != mm->sign)
			note = strprintf("alone %s (%s), inside the full profile %s (%s): the intervals "
					 "overlap, so the rounds do not show that its effect depends on the "
					 "other families",
					 verdict_measure_word(ma, false), strna(ta),
					 verdict_measure_word(mm, false), strna(tm));
		if (note && !append(&out, "; ", note))
			return NULL;
	}
	return out;
}

struct json_object *verdict_families_json(const struct verdict_input *in, const struct verdict *v)
{
	struct json_object *a = json_object_new_array();

	for (size_t f = 0; f < in->n_families; f++) {
		struct json_object *o = json_object_new_object();
		_cleanup_free_ char *note = verdict_interaction(in, v, f);
		int alone = family_cmp(v, f, CMP_ALONE, 0, in->n_sweeps);
		int inside = family_cmp(v, f, CMP_MARGINAL, 0, in->n_sweeps);
		bool mattered = false;

		for (size_t i = 0; i < v->n_cmp; i++)
			mattered |= v->cmp[i].pair.family == (int)f && v->cmp[i].recv.sign != 0;
		if (in->n_families == 1) {
			int base = baseline_row(in, 0), full = ablation_row(in, 0, 1);
			alone = inside =
			    base >= 0 && full >= 0 ? find_cmp(v, (size_t)full, (size_t)base) : -1;
			mattered = alone >= 0 && v->cmp[alone].recv.sign != 0;
		}
		json_object_object_add(o, "family", json_object_new_string(in->families[f].name));
		json_object_object_add(o, "label", json_object_new_string(in->families[f].label));
		json_object_object_add(o, "skipped", str_or_null(in->families[f].skipped));
		json_object_object_add(o, "alone_comparison", alone >= 0 ? json_object_new_int(alone) : NULL);
		json_object_object_add(o, "marginal_comparison",
				       inside >= 0 ? json_object_new_int(inside) : NULL);
		json_object_object_add(o, "mattered", json_object_new_boolean(mattered));
		json_object_object_add(o, "interaction", str_or_null(note));
		json_object_array_add(a, o);
	}
	return a;
}

int verdict_doc_rounds(struct json_object *group, double **ret_recv, double **ret_loss, size_t *ret_n)
{
	struct json_object *rounds = json_object_object_get(group, "rounds");
	size_t len = json_object_array_length(rounds), n = 0;
	_cleanup_free_ double *recv = calloc(len ? len : 1, sizeof(*recv));
	_cleanup_free_ double *loss = calloc(len ? len : 1, sizeof(*loss));

	if (!recv || !loss)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		struct json_object *r = json_object_array_get_idx(rounds, i), *counted, *mbps, *lp;
		bool has_counted = json_object_object_get_ex(r, "counted", &counted);

		if (!json_object_object_get_ex(r, "recv_mbps", &mbps) || !mbps ||
		    !json_object_object_get_ex(r, "loss_percent", &lp) || !lp)
			continue;
		if (has_counted && !json_object_get_boolean(counted))
			continue;
		recv[n] = json_object_get_double(mbps);
		loss[n++] = json_object_get_double(lp);
	}
	*ret_recv = TAKE_PTR(recv);
	*ret_loss = TAKE_PTR(loss);
	*ret_n = n;
	return 0;
}

static const char *doc_str(struct json_object *o, const char *key)
{
	struct json_object *v;
	return json_object_object_get_ex(o, key, &v) && v ? json_object_get_string(v) : NULL;
}

static double doc_num(struct json_object *o, const char *key)
{
	struct json_object *v;
	return json_object_object_get_ex(o, key, &v) && v ? json_object_get_double(v) : NAN;
}

char *verdict_doc_measure_text(struct json_object *m)
{
	bool points = streq(strempty(doc_str(m, "unit")), "points");
	const char *u = points ? " pp" : "%";
	double ch = doc_num(m, "change"), lo = doc_num(m, "low"), hi = doc_num(m, "high");
	int digits = points ? 2 : fabs(ch) < 10 ? 1 : 0;
	const char *text = doc_str(m, "text"), *words = doc_str(m, "words");

	if (!words)
		words = doc_str(m, "verdict");
	if (text) /* the verdict's own figures (verdict_measure_text) */
		return strprintf("%s %s", text, strna(words));
	if ((isnan(lo) || isnan(hi)) && doc_num(m, "min_rounds") > 0)
		return strprintf("%+.*f%s [needs %.0f rounds] %s", digits, ch, u, doc_num(m, "min_rounds"),
				 strna(words));
	if (isnan(lo) || isnan(hi))
		return strprintf("%+.*f%s [needs more rounds] %s", digits, ch, u, strna(words));
	return strprintf("%+.*f%s [%.*f..%.*f] %s", digits, ch, u, digits, lo, digits, hi, strna(words));
}

char *verdict_doc_comparison_name(struct json_object *c)
{
	const char *sv = doc_str(c, "sweep_value");

	return strprintf("%s vs %s%s%s%s", strna(doc_str(c, "group")), strna(doc_str(c, "against")),
			 sv ? " (" : "", strempty(sv), sv ? ")" : "");
}
