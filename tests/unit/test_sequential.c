/* test_sequential.c: the spending function, the looks of repeat: auto and
 * their levels, and the order of the groups, against answers computed by
 * hand (and, for the boundaries, by an independent integration). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>

#include "campaign/sequential.h"

#define assert_double_equal(a, b, eps)                                                                       \
	do {                                                                                                 \
		double a_ = (a), b_ = (b);                                                                   \
		if (!(fabs(a_ - b_) <= (eps)))                                                               \
			fail_msg("%s = %.17g, want %.17g", #a, a_, b_);                                      \
	} while (0)

/* Hwang-Shih-DeCani with gamma -2: alpha (1 - e^(2t)) / (1 - e^2).
 * t = 0.5: 0.05 (e - 1) / (e^2 - 1) = 0.05 / (e + 1) = 0.0134471; t = 0
 * spends nothing, t = 1 all. */
static void test_spent(void **state)
{
	(void)state;
	assert_double_equal(seq_spent(0.05, 0), 0, 0);
	assert_double_equal(seq_spent(0.05, 0.5), 0.05 / (M_E + 1), 1e-12);
	assert_double_equal(seq_spent(0.05, 1), 0.05, 0);
	assert_true(seq_spent(0.05, 0.3) < seq_spent(0.05, 0.6));
}

/* Two-sided P(|Z1| >= c1 or |Z2| >= c2) with corr(Z1, Z2) = rho, by a
 * plain trapezoid over z1 (independent of sequential.c's grid). */
static double cross_two(double c1, double c2, double rho)
{
	double s = sqrt(1 - rho * rho), sum = 0, h = 2 * c1 / 20000;

	for (int i = 0; i <= 20000; i++) {
		double z = -c1 + h * i, w = i == 0 || i == 20000 ? 0.5 : 1;
		double inside =
		    0.5 * erfc(-(c2 - rho * z) / s / M_SQRT2) - 0.5 * erfc(-(-c2 - rho * z) / s / M_SQRT2);
		sum += w * h * exp(-z * z / 2) / sqrt(2 * M_PI) * inside;
	}
	return 1 - sum;
}

static double z_of(double level)
{
	return stats_normal_quantile(1 - level / 2);
}

/* max_rounds 6, one comparison: 5 against 5 can decide at 2/252 =
 * 0.0079, 4 against 4 only at 2/70 = 0.029. After 4 rounds the function
 * has spent 0.05 (e^(4/3) - 1) / (e^2 - 1) = 0.02186 < 0.029: no look.
 * The first look is after 5 rounds and spends all of 0.05 (e^(5/3) - 1)
 * / (e^2 - 1) = 0.03361 (nothing was spent before it: its level is the
 * spend). The last look's level makes the chance to cross at either
 * look 0.05 with corr(Z5, Z6) = sqrt(5/6). */
static void test_design_two_looks(void **state)
{
	struct seq_design d;

	(void)state;
	assert_int_equal(seq_design(6, 1, 0.05, &d), 0);
	assert_int_equal(d.first_look, 5);
	assert_int_equal(d.looks, 2);
	for (unsigned n = 1; n <= 4; n++)
		assert_double_equal(d.level[n], 0, 0);
	assert_double_equal(d.level[5], 0.05 * expm1(5.0 / 3) / expm1(2), 1e-9);
	assert_double_equal(cross_two(z_of(d.level[5]), z_of(d.level[6]), sqrt(5.0 / 6)), 0.05, 1e-5);
	assert_true(d.level[6] < 0.05 && d.level[6] > d.level[5]);
	/* Read at a round without a look: the last look's level. */
	assert_double_equal(seq_level_at(&d, 6), d.level[6], 0);
	assert_double_equal(seq_level_at(&d, 3), d.level[5], 0);
}

/* max_rounds 10: after 5 rounds 0.0134471 (test_spent) >= 2/252 =
 * 0.0079: the first look, its level the spend. Seven comparisons need
 * level / 7 >= 0.0079 after 5 rounds (0.0556: no look, nothing spent)
 * and level / 7 >= 2/924 = 0.0021645 after 6 (a level of 0.01515): the
 * spend by then, 0.05 (e^1.2 - 1) / (e^2 - 1) = 0.018157, can: the first
 * look is after 6 rounds with all of it. */
static void test_design_family_size(void **state)
{
	struct seq_design d;

	(void)state;
	assert_int_equal(seq_design(10, 1, 0.05, &d), 0);
	assert_int_equal(d.first_look, 5);
	assert_int_equal(d.looks, 6);
	assert_double_equal(d.level[5], 0.05 / (M_E + 1), 1e-9);
	assert_int_equal(seq_design(10, 7, 0.05, &d), 0);
	assert_int_equal(d.first_look, 6);
	assert_int_equal(d.looks, 5);
	assert_double_equal(d.level[5], 0, 0);
	assert_double_equal(d.level[6], 0.05 * expm1(1.2) / expm1(2), 1e-9);
	/* One round can never decide: no look at all. */
	assert_int_equal(seq_design(1, 1, 0.05, &d), 0);
	assert_int_equal(d.first_look, 0);
	assert_int_equal(d.looks, 0);
	assert_int_equal(seq_design(0, 1, 0.05, &d), -EINVAL);
	assert_int_equal(seq_design(10, 0, 0.05, &d), -EINVAL);
}

/* Alternate: 0 1 2, then 2 1 0, then 0 1 2 again. Shuffle: a
 * permutation, the same for the same seed and repetition. */
static void test_order(void **state)
{
	size_t o[3], p[3];
	unsigned seen = 0;

	(void)state;
	seq_order(SEQ_ORDER_ALTERNATE, 0, 1, 3, o);
	assert_true(o[0] == 0 && o[1] == 1 && o[2] == 2);
	seq_order(SEQ_ORDER_ALTERNATE, 0, 2, 3, o);
	assert_true(o[0] == 2 && o[1] == 1 && o[2] == 0);
	seq_order(SEQ_ORDER_ALTERNATE, 0, 3, 3, o);
	assert_true(o[0] == 0 && o[1] == 1 && o[2] == 2);
	seq_order(SEQ_ORDER_FIXED, 0, 2, 3, o);
	assert_true(o[0] == 0 && o[1] == 1 && o[2] == 2);
	seq_order(SEQ_ORDER_SHUFFLE, 42, 5, 3, o);
	seq_order(SEQ_ORDER_SHUFFLE, 42, 5, 3, p);
	for (size_t i = 0; i < 3; i++) {
		assert_true(o[i] == p[i]);
		seen |= 1u << o[i];
	}
	assert_int_equal(seen, 7);
	assert_string_equal(seq_order_to_string(SEQ_ORDER_SHUFFLE), "shuffle");
	assert_int_equal(seq_order_from_string("alternate"), SEQ_ORDER_ALTERNATE);
	assert_int_equal(seq_order_from_string("random"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_spent),
	    cmocka_unit_test(test_design_two_looks),
	    cmocka_unit_test(test_design_family_size),
	    cmocka_unit_test(test_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
