/* verdict.h: what a campaign's measurements support: the comparisons
 * between its groups, each with an interval and a word, and the one-line
 * verdict.
 *
 * Owns: which pairs of groups are compared (each group against the
 * baseline and against the previous measured one; in an ablation each
 * family alone against the baseline, the full profile against the
 * baseline and against the full profile minus each family), their
 * statistics (base/stats.h: receive throughput as a ratio in percent,
 * loss as a shift in percentage points), the margin's equivalence ("no
 * meaningful difference": the interval inside it), Holm's correction over
 * each family of comparisons (throughput, loss) with either decision, the
 * best group and the verdict line (a clearly slower group named worse),
 * and their JSON (schemas/campaign.schema.json: "comparisons", "best",
 * "ablation".families). Must never: name a group better, worse or best
 * when its interval does not exclude 0, call a difference not meaningful
 * when its interval reaches the margin, count a round that was not
 * counted (interrupted, warm-up, failed), or touch the host. */
#ifndef CX5_VERDICT_H
#define CX5_VERDICT_H

#include <json-c/json.h>

#include "base/stats.h"
#include "base/util.h"

/* The family-wise error rate of one campaign's throughput comparisons
 * and, separately, of its loss comparisons: a false word somewhere in
 * both together is at most twice it. */
#define VERDICT_ALPHA 0.05

/* The margins a difference must exceed to matter (min_effect), unless the
 * campaign file or the command line says otherwise: a quiet 25G host
 * measures throughput within a few percent round to round. */
#define VERDICT_MIN_EFFECT_RECV 8.0 /* percent */
#define VERDICT_MIN_EFFECT_LOSS 1.0 /* percentage points */

enum verdict_role {
	ROLE_GROUP,    /* a group of a campaign file (the first is the baseline) */
	ROLE_BASELINE, /* ablation: the host as found */
	ROLE_ALONE,    /* ablation: one family alone */
	ROLE_FULL,     /* ablation: the whole profile */
	ROLE_MINUS,    /* ablation: the whole profile minus one family */
	_ROLE_MAX,
};
const char *verdict_role_to_string(enum verdict_role r);

struct verdict_pair;

struct verdict_group {
	const char *name;
	const char *description; /* or NULL */
	size_t sweep;		 /* index of its sweep value (0 without a sweep) */
	const char *sweep_value; /* as written, or NULL */
	const double *recv;	 /* the counted rounds' receive Mbps */
	const double *loss;	 /* and their loss percent */
	size_t n;		 /* counted rounds */
	const char *skipped;	 /* why it has no rounds (or no more), or NULL */
	int skipped_code;
	bool thresholds_failed; /* verdict_thresholds_failed() of its counted rounds */
	enum verdict_role role;
	/* ablation: the families applied (bit f: family f) */
	unsigned families;
};

struct verdict_family {
	const char *name;    /* "mtu" */
	const char *label;   /* "MTU 9000" */
	const char *skipped; /* why it could not be applied alone, or NULL */
};

struct verdict_input {
	const struct verdict_group *groups; /* g * n_sweeps + s */
	size_t n_groups;		    /* rows: profiles * sweep values */
	size_t n_sweeps;		    /* >= 1 */
	const struct verdict_family *families;
	size_t n_families; /* 0: not an ablation */
	/* The family-wise level of this look: VERDICT_ALPHA, or what the
	 * spending function gives this look when `repeat: auto` looks
	 * several times (sequential.h). */
	double alpha;
	/* The margins (min_effect): throughput in percent, loss in
	 * percentage points; a comparison whose interval lies inside
	 * (-margin, +margin) is decided "no meaningful difference". 0: no
	 * margin (only a difference decides). */
	double margin_recv, margin_loss;
	/* The pairs to compare instead of the campaign's own (compare
	 * --campaign: a group of one campaign against the same group of the
	 * other, both in groups); NULL: derived from the roles. */
	const struct verdict_pair *pairs;
	size_t n_pairs;
};

enum comparison_kind {
	CMP_BASELINE, /* against the baseline (ablation: the full profile against it) */
	CMP_PREVIOUS, /* against the previous measured group */
	CMP_ALONE,    /* ablation: a family alone against the baseline */
	CMP_MARGINAL, /* ablation: the full profile against the full one minus a family */
	CMP_CAMPAIGN, /* compare --campaign: the same group in the other campaign */
	_CMP_MAX,
};
const char *comparison_kind_to_string(enum comparison_kind k);

struct verdict_pair {
	size_t group, against; /* indexes into groups */
	enum comparison_kind kind;
	int family; /* ablation: the family of an ALONE or MARGINAL pair; -1 */
};

struct verdict_measure {
	struct stats_shift s; /* receive: percent; loss: percentage points */
	double level;	      /* the level it was tested at (1 - confidence) */
	int sign;	      /* 1: higher, -1: lower, 0: no clear or no meaningful difference */
	bool equivalent;      /* the interval lies inside (-margin, +margin): no meaningful difference */
	double margin;	      /* the margin it was held against; 0: none */
	unsigned min_rounds;  /* unbounded interval: rounds per group that could decide; 0 */
};

struct verdict_comparison {
	struct verdict_pair pair;
	struct verdict_measure recv, loss;
};

struct verdict {
	struct verdict_comparison *cmp;
	size_t n_cmp;
	bool decided; /* every throughput comparison is better, worse or no meaningful
		       * difference (and there is one), and every group not
		       * skipped has counted rounds */
	/* Per sweep value: the group the verdict names (-1: none) and its
	 * comparison with the baseline (-1). */
	int *best, *best_cmp;
};

/* A group passed its thresholds when more than half of its counted rounds
 * passed verify's thresholds; half or fewer (2 of 4) is failed: the
 * verdict never names a group its thresholds reject as often as not.
 * False without counted rounds (nothing to judge). */
bool verdict_thresholds_failed(size_t failures, size_t counted);

/* Before any round: how many throughput comparisons in's groups will make
 * once each group not skipped has rounds (*ret_n), and the fewest rounds
 * per group with which every one of them can be decided under Holm's
 * correction at VERDICT_ALPHA (*ret_rounds; 0: more than
 * STATS_EXACT_MAX_N). A fixed repeat below it can never decide. 0,
 * -ENOMEM. */
int verdict_rounds_needed(const struct verdict_input *in, size_t *ret_n, unsigned *ret_rounds);

/* The comparisons of in, their statistics and the best groups. 0, -ENOMEM. */
int verdict_compute(const struct verdict_input *in, struct verdict *ret);
void verdict_done(struct verdict *v);

/* "+73% [61..85]", "-12.5% [-20.1..-4.2]", "+3% [needs 6 rounds]": a
 * figure with its interval at the level it was computed, or how many
 * rounds per group an interval at that level needs (unit "%" or " pp").
 * Caller frees; NULL: out of memory. */
char *verdict_measure_text(const struct verdict_measure *m, bool points);
/* "better", "worse", "no meaningful difference", "no clear difference";
 * for loss, lower is better. */
const char *verdict_measure_word(const struct verdict_measure *m, bool loss);
/* The word with its margin: "no meaningful difference (within ±5%)", else
 * the word. Caller frees. */
char *verdict_measure_words(const struct verdict_measure *m, bool loss);

/* The one-line verdict (per sweep value, joined with "; "). Caller frees. */
char *verdict_line(const struct verdict_input *in, const struct verdict *v);

/* JSON (schemas/campaign.schema.json): the comparisons array, the best
 * array (one entry per sweep value) and the ablation families array. */
struct json_object *verdict_comparisons_json(const struct verdict_input *in, const struct verdict *v);
struct json_object *verdict_best_json(const struct verdict_input *in, const struct verdict *v);
struct json_object *verdict_families_json(const struct verdict_input *in, const struct verdict *v);

/* The counted rounds of a group of a campaign document (a round counts
 * when "counted" is true; in a document older than that key, when it
 * measured): *ret_recv and *ret_loss (caller frees) hold *ret_n values.
 * 0, -ENOMEM. */
int verdict_doc_rounds(struct json_object *group, double **ret_recv, double **ret_loss, size_t *ret_n);

/* The words the campaign table and report.html both print, from a
 * campaign document: a comparison's measure ("recv" or "loss" of an entry
 * of "comparisons") as "+67% [41..112] better", "+0.36 pp [?] no clear
 * difference" (its "text" when the document has one, so the figures read
 * as the verdict line's); and its name, "mtu-jumbo vs baseline (8000)".
 * Caller frees; NULL: out of memory. */
char *verdict_doc_measure_text(struct json_object *measure);
char *verdict_doc_comparison_name(struct json_object *comparison);

/* The interaction note of family f ("alone better, inside the full
 * profile no clear difference: ..."), or NULL when alone and inside agree.
 * Caller frees. */
char *verdict_interaction(const struct verdict_input *in, const struct verdict *v, size_t f);

#endif
