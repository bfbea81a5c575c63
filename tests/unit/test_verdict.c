/* test_verdict.c: a campaign's comparisons, Holm's correction, the best
 * group and the verdict line, on hand-made rounds whose answers follow
 * from test_stats.c's known cases. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "campaign/verdict.h"

#define assert_double_equal(a, b, eps)                                                                       \
	do {                                                                                                 \
		double a_ = (a), b_ = (b);                                                                   \
		if (!(fabs(a_ - b_) <= (eps)))                                                               \
			fail_msg("%s = %.17g, want %.17g", #a, a_, b_);                                      \
	} while (0)

/* Five rounds each, no ties: complete separation of 5 against 5 has
 * p = 2/252 = 0.0079 (test_stats.c), below 0.05/3 = 0.0167 (Holm's first
 * step over three comparisons) and below 0.05/2 and 0.05. */
static const double base_recv[] = {100, 101, 102, 103, 104};
static const double jumbo_recv[] = {200, 202, 204, 206, 208};
static const double full_recv[] = {201, 203, 205, 207, 209};
/* A group that changes nothing: its rounds interleave with the baseline's. */
static const double same_recv[] = {100.5, 101.5, 102.5, 103.5, 104.5};
static const double loss_a[] = {1.0, 1.1, 1.2, 1.3, 1.4};
static const double loss_b[] = {0.10, 0.11, 0.12, 0.13, 0.14};

static struct verdict_group group(const char *name, const double *recv, const double *loss, size_t n)
{
	return (struct verdict_group){.name = name, .recv = recv, .loss = loss, .n = n, .role = ROLE_GROUP};
}

/* The verdict line of groups g (one sweep value, no families) and the
 * group it names (-1: none). Caller frees. */
static char *line_of(const struct verdict_group *g, size_t n, int *ret_best)
{
	struct verdict_input in = {.groups = g, .n_groups = n, .n_sweeps = 1, .alpha = VERDICT_ALPHA};
	struct verdict v;
	char *line;

	assert_int_equal(verdict_compute(&in, &v), 0);
	*ret_best = v.best[0];
	line = verdict_line(&in, &v);
	verdict_done(&v);
	return line;
}

/* Three groups: jumbo and full each about +100% over baseline (decided),
 * full against jumbo interleaved (full's rounds sit between jumbo's: the
 * differences straddle 0, no clear difference). The best is full (the
 * highest median among the groups clearly faster).
 * Holm over the three throughput comparisons: jumbo/base and full/base
 * both have p = 2/252 (complete separation); the tie goes by order, so
 * jumbo is tested at 0.05/3 and full at 0.05/2 = 0.025. For 5 against 5,
 * P(U <= 1) = 2/252 = 0.0079 <= 0.0125 < P(U <= 2) = 4/252: k = 2, the
 * interval is [D(2), D(24)] of the 25 ratios full/base: the second
 * smallest 201/103 = 1.9515 (+95%), the second largest 207/100 = 2.07
 * (+107%); their median 205/102 = 2.0098 (+101%).
 * Loss: the 25 differences 0.10..0.14 - 1.0..1.4 are all negative; full
 * vs baseline comes first in the loss family (p = 0.0079; jumbo's loss
 * equals the baseline's, p = 1) at 0.05/3: k = 2 again, [D(2), D(24)] =
 * [0.11 - 1.4, 0.13 - 1.0] = [-1.29, -0.87], median 0.12 - 1.2 = -1.08.
 * Jumbo is as fast as far as the rounds show (full vs jumbo, tested last
 * at 0.05: k = 3, [D(3), D(23)] = [203/208, 209/202] = [-2.4%, +3.5%]):
 * the verdict says that full is not clearly faster than jumbo, and the
 * JSON lists jumbo under not_clearly_faster_than. */
static void test_three_groups(void **state)
{
	struct verdict_group g[] = {
	    group("baseline", base_recv, loss_a, 5),
	    group("jumbo", jumbo_recv, loss_a, 5),
	    group("full", full_recv, loss_b, 5),
	};
	struct verdict_input in = {.groups = g, .n_groups = 3, .n_sweeps = 1, .alpha = VERDICT_ALPHA};
	struct verdict v;
	struct json_object *j;
	char *line;

	(void)state;
	g[2].description = "MTU 9000 and buffers";
	assert_int_equal(verdict_compute(&in, &v), 0);
	assert_int_equal(v.n_cmp, 3);
	/* jumbo vs baseline, full vs baseline, full vs jumbo (previous) */
	assert_int_equal(v.cmp[0].pair.kind, CMP_BASELINE);
	assert_int_equal(v.cmp[0].pair.group, 1);
	assert_int_equal(v.cmp[1].pair.kind, CMP_BASELINE);
	assert_int_equal(v.cmp[2].pair.kind, CMP_PREVIOUS);
	assert_int_equal(v.cmp[2].pair.against, 1);
	assert_int_equal(v.cmp[0].recv.sign, 1);
	assert_int_equal(v.cmp[1].recv.sign, 1);
	assert_int_equal(v.cmp[2].recv.sign, 0);
	assert_string_equal(verdict_measure_word(&v.cmp[1].loss, true), "better");
	assert_false(v.decided);
	assert_int_equal(v.best[0], 2);
	assert_int_equal(v.best_cmp[0], 1);
	j = verdict_best_json(&in, &v);
	assert_string_equal(
	    json_object_to_json_string_ext(
		json_object_object_get(json_object_array_get_idx(j, 0), "not_clearly_faster_than"),
		JSON_C_TO_STRING_PLAIN),
	    "[\"jumbo\"]");
	json_object_put(j);
	line = verdict_line(&in, &v);
	assert_non_null(line);
	assert_string_equal(line,
			    "full (MTU 9000 and buffers) +101% [95..107] receive throughput over baseline, "
			    "loss -1.08 pp [-1.29..-0.87] (lower); not clearly faster than jumbo (full vs "
			    "jumbo +0.5% [-2.4..3.5])");
	free(line);
	verdict_done(&v);
}

/* Two groups about +100% over the baseline that were never compared with
 * each other (a group between them: each is compared with the baseline
 * and the previous one): the verdict names the higher median, full, and
 * says it is not clearly faster than jumbo, with jumbo's own gain. */
static void test_rival_not_compared(void **state)
{
	struct verdict_group g[] = {
	    group("baseline", base_recv, loss_a, 5),
	    group("jumbo", jumbo_recv, loss_a, 5),
	    group("irq", same_recv, loss_a, 5),
	    group("full", full_recv, loss_a, 5),
	};
	int best;
	char *line = line_of(g, 4, &best);

	(void)state;
	assert_int_equal(best, 3);
	assert_non_null(strstr(line, "(no clear difference); not clearly faster than jumbo (+100% ["));
	assert_non_null(strstr(line, "] over baseline)"));
	free(line);
}

/* Three rounds against three: no interval at 95% can exclude 0 (P(U=0) =
 * 1/20 > 2.5%): no winner, and the line says how many rounds would do (4
 * each: 2/70 = 0.029 <= 0.05). */
static void test_too_few_rounds(void **state)
{
	struct verdict_group g[] = {group("baseline", base_recv, loss_a, 3),
				    group("jumbo", jumbo_recv, loss_a, 3)};
	struct verdict_input in = {.groups = g, .n_groups = 2, .n_sweeps = 1, .alpha = VERDICT_ALPHA};
	struct verdict v;
	char *line;

	(void)state;
	assert_int_equal(verdict_compute(&in, &v), 0);
	assert_int_equal(v.n_cmp, 1);
	assert_int_equal(v.cmp[0].recv.sign, 0);
	assert_int_equal(v.cmp[0].recv.min_rounds, 4);
	assert_int_equal(v.best[0], -1);
	line = verdict_line(&in, &v);
	assert_string_equal(line,
			    "no clear difference: no group was clearly faster than baseline (highest median: "
			    "jumbo +100% [needs 4 rounds])");
	free(line);
	verdict_done(&v);
}

/* A group that failed its thresholds is never the best, a skipped one is
 * named; the best is the next: jumbo, tested first at 0.05/3 (k = 2 as
 * above): [D(2), D(24)] of jumbo/base = [200/103, 206/100] = [+94%,
 * +106%]. Its loss equals the baseline's (p = 1), tested last, at 0.05
 * after the two others were decided: the exact 5x5 rule (ties or not)
 * gives k = 3: [D(3), D(23)] of the differences of {1.0 .. 1.4} with itself =
 * [-0.3, 0.3]. */
static void test_thresholds_and_skipped(void **state)
{
	struct verdict_group g[] = {
	    group("baseline", base_recv, loss_a, 5),
	    group("jumbo", jumbo_recv, loss_a, 5),
	    group("full", full_recv, loss_b, 5),
	    group("driver", NULL, NULL, 0),
	};
	int best;
	char *line;

	(void)state;
	g[2].thresholds_failed = true;
	g[3].skipped = "ens1f0: driver 5.0 < 99.0";
	g[3].skipped_code = 5;
	line = line_of(g, 4, &best);
	assert_int_equal(best, 1);
	assert_string_equal(line, "jumbo +100% [94..106] receive throughput over baseline, loss +0.00 pp "
				  "[-0.30..0.30] (no clear difference); skipped: driver (exit 5); failed "
				  "thresholds: full");
	free(line);
}

/* A group that ran but never counted a round (every run cut short, each
 * time after a different number of seconds: never "the same failure
 * twice", never skipped) has no comparison: the verdict names it, and
 * repeat: auto may not stop as if every comparison were decided. */
static void test_no_round_counted(void **state)
{
	struct verdict_group g[] = {
	    group("baseline", base_recv, loss_a, 5),
	    group("jumbo", jumbo_recv, loss_a, 5),
	    group("full", NULL, NULL, 0),
	};
	struct verdict_input in = {.groups = g, .n_groups = 3, .n_sweeps = 1, .alpha = VERDICT_ALPHA};
	struct verdict v;
	char *line;

	(void)state;
	assert_int_equal(verdict_compute(&in, &v), 0);
	assert_int_equal(v.n_cmp, 1);
	assert_int_equal(v.cmp[0].recv.sign, 1);
	assert_false(v.decided);
	line = verdict_line(&in, &v);
	assert_string_equal(line, "jumbo +100% [94..106] receive throughput over baseline, loss +0.00 pp "
				  "[-0.30..0.30] (no clear difference); no round counted: full");
	free(line);
	verdict_done(&v);
}

/* Thresholds: passed only when more than half of the counted rounds
 * passed; 2 failures of 4 is failed (it was passed), no rounds is not
 * failed. */
static void test_thresholds_half(void **state)
{
	(void)state;
	assert_true(verdict_thresholds_failed(2, 4));
	assert_false(verdict_thresholds_failed(1, 4));
	assert_false(verdict_thresholds_failed(1, 3));
	assert_true(verdict_thresholds_failed(2, 3));
	assert_true(verdict_thresholds_failed(1, 2));
	assert_true(verdict_thresholds_failed(1, 1));
	assert_false(verdict_thresholds_failed(0, 5));
	assert_false(verdict_thresholds_failed(0, 0));
}

/* An ablation of two families: baseline (none), mtu-only, irq-only, full.
 * With two families "full minus mtu" is irq-only and "full minus irq" is
 * mtu-only: five distinct pairs. MTU doubles the throughput alone and
 * inside the full profile; the IRQ map changes nothing (its rounds
 * interleave with the baseline's): no clear difference either way.
 * Holm over five: full/base first at 0.05/5 = 0.01: P(U <= 0) = 1/252 =
 * 0.004 <= 0.005 < P(U <= 1): k = 1, [D(1), D(25)] = [201/104, 209/100]
 * = [+93%, +109%]; mtu-only/base at 0.05/4: k = 1 again, [200/104,
 * 208/100] = [+92%, +108%]. Every loss is the same: p = 1 everywhere,
 * the walk stops at once and tests all at 0.01, where the exact rule
 * (ties or not) gives k = 1: [D(1), D(25)] = [1.0 - 1.4, 1.4 - 1.0] =
 * [-0.40, 0.40] (the normal approximation with the ties correction left
 * it unbounded: [?], "more rounds needed" with enough rounds). */
static void test_ablation(void **state)
{
	struct verdict_group g[] = {
	    group("baseline", base_recv, loss_a, 5),
	    group("mtu-only", jumbo_recv, loss_a, 5),
	    group("irq-only", same_recv, loss_a, 5),
	    group("full", full_recv, loss_a, 5),
	};
	struct verdict_family fam[] = {{"mtu", "MTU 9000", NULL}, {"irq", "IRQ map + irqbalance", NULL}};
	struct verdict_input in = {.groups = g,
				   .n_groups = 4,
				   .n_sweeps = 1,
				   .families = fam,
				   .n_families = 2,
				   .alpha = VERDICT_ALPHA};
	struct verdict v;
	struct json_object *j;
	char *line;

	(void)state;
	g[0].role = ROLE_BASELINE;
	g[1].role = g[2].role = ROLE_ALONE;
	g[1].families = 1;
	g[2].families = 2;
	g[3].role = ROLE_FULL;
	g[3].families = 3;
	assert_int_equal(verdict_compute(&in, &v), 0);
	assert_int_equal(v.n_cmp, 5);
	assert_int_equal(v.cmp[0].pair.kind, CMP_BASELINE); /* full vs baseline */
	assert_int_equal(v.cmp[1].pair.kind, CMP_ALONE);    /* mtu-only vs baseline */
	assert_int_equal(v.cmp[2].pair.kind, CMP_MARGINAL); /* full vs irq-only */
	assert_int_equal(v.cmp[2].pair.against, 2);
	assert_int_equal(v.cmp[3].pair.kind, CMP_ALONE); /* irq-only vs baseline */
	assert_int_equal(v.cmp[4].pair.kind, CMP_MARGINAL);
	assert_int_equal(v.cmp[4].pair.against, 1); /* full vs mtu-only */
	assert_int_equal(v.cmp[1].recv.sign, 1);
	assert_int_equal(v.cmp[2].recv.sign, 1);
	assert_int_equal(v.cmp[3].recv.sign, 0);
	assert_int_equal(v.cmp[4].recv.sign, 0);
	line = verdict_line(&in, &v);
	assert_string_equal(
	    line, "full +101% [93..109] receive throughput over baseline, loss +0.00 pp [-0.40..0.40] "
		  "(no clear difference); not clearly faster than mtu-only (full vs mtu-only +0.5% "
		  "[-2.4..3.5]); families: MTU 9000 +100% [92..108], IRQ map + irqbalance: no "
		  "clear difference");
	free(line);
	j = verdict_families_json(&in, &v);
	assert_string_equal(
	    json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN),
	    "[{\"family\":\"mtu\",\"label\":\"MTU 9000\",\"skipped\":null,\"alone_comparison\":1,"
	    "\"marginal_comparison\":2,\"mattered\":true,\"interaction\":null},{\"family\":\"irq\","
	    "\"label\":\"IRQ map + irqbalance\",\"skipped\":null,\"alone_comparison\":3,"
	    "\"marginal_comparison\":4,\"mattered\":false,\"interaction\":null}]");
	json_object_put(j);
	verdict_done(&v);
}

/* The interaction note of family a in an ablation of two families, a
 * and b, over the rounds of base_recv: a-only, b-only and full as given.
 * Caller frees. */
static char *interaction_of_a(const double *a_recv, const double *b_recv, const double *full)
{
	struct verdict_group g[] = {
	    group("baseline", base_recv, loss_a, 5),
	    group("a-only", a_recv, loss_a, 5),
	    group("b-only", b_recv, loss_a, 5),
	    group("full", full, loss_a, 5),
	};
	struct verdict_family fam[] = {{"a", "A", NULL}, {"b", "B", NULL}};
	struct verdict_input in = {.groups = g,
				   .n_groups = 4,
				   .n_sweeps = 1,
				   .families = fam,
				   .n_families = 2,
				   .alpha = VERDICT_ALPHA};
	struct verdict v;
	char *note;

	g[0].role = ROLE_BASELINE;
	g[1].role = g[2].role = ROLE_ALONE;
	g[1].families = 1;
	g[2].families = 2;
	g[3].role = ROLE_FULL;
	g[3].families = 3;
	assert_int_equal(verdict_compute(&in, &v), 0);
	note = verdict_interaction(&in, &v, 0);
	verdict_done(&v);
	return note;
}

/* Two families that do the same thing (each alone doubles the rate, both
 * together too): alone each is better, inside the full profile neither
 * adds anything (the full profile minus either is as fast): the note says
 * the effect depends on the other families. The full/other-alone pairs
 * interleave (the "full" rounds sit between those of each "-only" group),
 * so their intervals straddle 0, far from the alone interval. */
static void test_interaction(void **state)
{
	static const double a_recv[] = {200.5, 202.5, 204.5, 206.5, 208.5};
	static const double b_recv[] = {199.5, 201.5, 203.5, 205.5, 207.5};
	char *note = interaction_of_a(a_recv, b_recv, jumbo_recv);

	(void)state;
	assert_non_null(note);
	assert_non_null(strstr(note, "alone better ("));
	assert_non_null(strstr(note, "), inside the full profile no clear difference ("));
	assert_non_null(strstr(note, "): its effect depends on the other families"));
	free(note);
}

/* A family clearly better alone whose effect inside the full profile is
 * measured too loosely to tell (the full profile's rounds spread from
 * 60 to 500 Mbps): the two words differ, but the intervals overlap, so
 * the note claims no dependence. */
static void test_interaction_not_shown(void **state)
{
	static const double full_wide[] = {60, 120, 200, 330, 500};
	char *note = interaction_of_a(jumbo_recv, base_recv, full_wide);

	(void)state;
	assert_non_null(note);
	assert_non_null(strstr(note, "alone better ("));
	assert_non_null(strstr(note, "), inside the full profile no clear difference ("));
	assert_non_null(strstr(note, "): the intervals overlap, so the rounds do not show that its effect "
				     "depends on the other families"));
	assert_null(strstr(note, "): its effect depends"));
	free(note);
}

/* The interval's text: precision by size, unbounded as [?]. */
static void test_measure_text(void **state)
{
	struct verdict_measure m = {.s = {.estimate = 73.4, .low = 61.2, .high = 85.1}, .sign = 1};
	char *t;

	(void)state;
	t = verdict_measure_text(&m, false);
	assert_string_equal(t, "+73% [61..85]");
	free(t);
	m.s = (struct stats_shift){.estimate = -2.5, .low = -4.25, .high = -0.5};
	t = verdict_measure_text(&m, false);
	assert_string_equal(t, "-2.5% [-4.2..-0.5]");
	free(t);
	m.s = (struct stats_shift){.estimate = 0.125, .low = -INFINITY, .high = INFINITY};
	t = verdict_measure_text(&m, true);
	assert_string_equal(t, "+0.12 pp [needs more than 20 rounds]");
	free(t);
	m.min_rounds = 6;
	t = verdict_measure_text(&m, true);
	assert_string_equal(t, "+0.12 pp [needs 6 rounds]");
	free(t);
	m.sign = -1;
	assert_string_equal(verdict_measure_word(&m, false), "worse");
	assert_string_equal(verdict_measure_word(&m, true), "better");
}

/* An interval that excludes 0 never reads as touching it: an end that is
 * not 0 keeps digits until it is not "0" (a loss that rose by a few
 * packets in ten million, a gain whose lower end is a fraction of a
 * percent); the table takes the same text from the JSON. */
static void test_measure_text_near_zero(void **state)
{
	struct verdict_measure m = {.s = {.estimate = 0.02, .low = 0.004, .high = 0.05}, .sign = 1};
	struct verdict_group g[] = {group("baseline", base_recv, loss_a, 5),
				    group("jumbo", jumbo_recv, loss_a, 5)};
	struct verdict_input in = {.groups = g, .n_groups = 2, .n_sweeps = 1, .alpha = VERDICT_ALPHA};
	struct verdict v;
	struct json_object *j;
	char *t;

	(void)state;
	t = verdict_measure_text(&m, true);
	assert_string_equal(t, "+0.02 pp [0.004..0.05]");
	free(t);
	m.s = (struct stats_shift){.estimate = 15.2, .low = 0.04, .high = 30.4};
	t = verdict_measure_text(&m, false);
	assert_string_equal(t, "+15% [0.04..30]");
	free(t);
	m.s = (struct stats_shift){.estimate = -3.1, .low = -6.2, .high = -0.0004};
	m.sign = -1;
	t = verdict_measure_text(&m, false);
	assert_string_equal(t, "-3.1% [-6.2..-0.0004]");
	free(t);
	/* Over a group that received nothing: infinite, not a figure. */
	m.s = (struct stats_shift){.estimate = INFINITY, .low = 250, .high = INFINITY};
	m.sign = 1;
	t = verdict_measure_text(&m, false);
	assert_string_equal(t, "+inf% [250..inf]");
	free(t);
	m.s = (struct stats_shift){.estimate = 0, .low = 0, .high = 1.5};
	m.sign = 0;
	t = verdict_measure_text(&m, true);
	assert_string_equal(t, "+0.00 pp [0.00..1.50]");
	free(t);

	assert_int_equal(verdict_compute(&in, &v), 0);
	j = verdict_comparisons_json(&in, &v);
	assert_string_equal(json_object_get_string(json_object_object_get(
				json_object_object_get(json_object_array_get_idx(j, 0), "recv"), "text")),
			    "+100% [94..106]");
	json_object_put(j);
	verdict_done(&v);
}

/* Before any round: the comparisons the groups will make and the rounds
 * per group Holm needs to decide them all. Three groups: 3 comparisons,
 * the first tested at 0.05/3, which 4 against 4 (2/70 = 0.029) misses
 * and 5 against 5 (0.0079) passes; two: 1 at 0.05, 4 rounds (3 against 3
 * is 0.1 at best); a skipped group is not compared. */
static void test_rounds_needed(void **state)
{
	struct verdict_group g[] = {group("baseline", NULL, NULL, 0), group("jumbo", NULL, NULL, 0),
				    group("full", NULL, NULL, 0)};
	struct verdict_input in = {.groups = g, .n_groups = 3, .n_sweeps = 1, .alpha = VERDICT_ALPHA};
	unsigned rounds;
	size_t n;

	(void)state;
	assert_int_equal(verdict_rounds_needed(&in, &n, &rounds), 0);
	assert_int_equal(n, 3);
	assert_int_equal(rounds, 5);
	in.n_groups = 2;
	assert_int_equal(verdict_rounds_needed(&in, &n, &rounds), 0);
	assert_int_equal(n, 1);
	assert_int_equal(rounds, 4);
	in.n_groups = 3;
	g[1].skipped = "no such interface";
	assert_int_equal(verdict_rounds_needed(&in, &n, &rounds), 0);
	assert_int_equal(n, 1);
	assert_int_equal(rounds, 4);
}

/* Equivalence: same_recv over base_recv, 5 against 5 at 95% (k = 3):
 * the third smallest of the 25 ratios is 101.5/104 (-2.4%; 100.5/104 and
 * 100.5/103 are below it), the third largest 104.5/101 (+3.47%; 104.5/100
 * and 103.5/100 above it). Inside a margin of 5%: no meaningful
 * difference, decided; a margin of 3% does not hold +3.47%: no clear
 * difference, undecided. */
static void test_equivalence(void **state)
{
	struct verdict_group g[] = {group("baseline", base_recv, loss_a, 5),
				    group("irq", same_recv, loss_a, 5)};
	struct verdict_input in = {.groups = g,
				   .n_groups = 2,
				   .n_sweeps = 1,
				   .alpha = VERDICT_ALPHA,
				   .margin_recv = 5,
				   .margin_loss = 1};
	struct verdict v;
	char *line, *w;

	(void)state;
	assert_int_equal(verdict_compute(&in, &v), 0);
	assert_double_equal(v.cmp[0].recv.s.low, 100 * (101.5 / 104 - 1), 1e-9);
	assert_double_equal(v.cmp[0].recv.s.high, 100 * (104.5 / 101 - 1), 1e-9);
	assert_true(v.cmp[0].recv.equivalent);
	assert_int_equal(v.cmp[0].recv.sign, 0);
	assert_true(v.decided);
	assert_int_equal(v.best[0], -1);
	w = verdict_measure_words(&v.cmp[0].recv, false);
	assert_string_equal(w, "no meaningful difference (within ±5%)");
	free(w);
	/* loss: the same rounds, a shift of 0 with [-0.2..+0.2] inside 1 pp */
	assert_true(v.cmp[0].loss.equivalent);
	line = verdict_line(&in, &v);
	assert_string_equal(line, "no meaningful difference (within ±5%): every group's receive throughput "
				  "against baseline lies inside the margin");
	free(line);
	verdict_done(&v);

	in.margin_recv = 3;
	assert_int_equal(verdict_compute(&in, &v), 0);
	assert_false(v.cmp[0].recv.equivalent);
	assert_false(v.decided);
	assert_string_equal(verdict_measure_word(&v.cmp[0].recv, false), "no clear difference");
	verdict_done(&v);

	/* A clear difference smaller than the margin does not matter: jumbo
	 * is +100%, decided better at a margin of 5%, and no meaningful
	 * difference only under a margin above its upper end. */
	g[1] = group("jumbo", jumbo_recv, loss_a, 5);
	in.margin_recv = 150;
	assert_int_equal(verdict_compute(&in, &v), 0);
	assert_true(v.cmp[0].recv.equivalent);
	assert_int_equal(v.cmp[0].recv.sign, 0);
	verdict_done(&v);
}

/* A clearly slower group is named worse in the verdict (it used to read
 * "no clear difference: no group was clearly faster"). base_recv over
 * jumbo_recv at 95% (k = 3): the third smallest ratio is 101/208 (100/208
 * and 100/206 below it), the third largest 104/202 (104/200 and 103/200
 * above it): [-51.4%, -48.5%], decided worse. */
static void test_worse_named(void **state)
{
	struct verdict_group g[] = {group("baseline", jumbo_recv, loss_a, 5),
				    group("small-mtu", base_recv, loss_a, 5)};
	int best;
	char *line = line_of(g, 2, &best);

	(void)state;
	assert_int_equal(best, -1);
	assert_non_null(strstr(line, "no group was clearly faster than baseline; worse: small-mtu -50% ["));
	assert_null(strstr(line, "no clear difference"));
	free(line);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_three_groups),
	    cmocka_unit_test(test_rival_not_compared),
	    cmocka_unit_test(test_too_few_rounds),
	    cmocka_unit_test(test_thresholds_and_skipped),
	    cmocka_unit_test(test_thresholds_half),
	    cmocka_unit_test(test_no_round_counted),
	    cmocka_unit_test(test_ablation),
	    cmocka_unit_test(test_interaction),
	    cmocka_unit_test(test_interaction_not_shown),
	    cmocka_unit_test(test_measure_text),
	    cmocka_unit_test(test_measure_text_near_zero),
	    cmocka_unit_test(test_rounds_needed),
	    cmocka_unit_test(test_equivalence),
	    cmocka_unit_test(test_worse_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
