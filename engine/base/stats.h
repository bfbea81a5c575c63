/* stats.h: the statistics of comparison rounds (campaigns), with no host in
 * them.
 *
 * Owns: the median; the Hodges-Lehmann shift between two samples with its
 * distribution-free Mann-Whitney confidence interval (from the exact
 * distribution of U without ties when both samples have at most
 * STATS_EXACT_MAX_N values, else its normal approximation; with ties the
 * closed interval is then conservative) and two-sided p-value (exact
 * without ties up to STATS_EXACT_MAX_N values, else the normal
 * approximation with the ties correction); the same on a log scale for ratios
 * (throughput: a percent change); Holm's step-down over a family of
 * comparisons; how many rounds a decision needs at all. Must never: log,
 * do I/O, or draw random numbers (the same rounds give the same answer).
 *
 * Method (docs/campaigns.md says the same for operators): the shift of x
 * over y is the median of the m*n differences x_i - y_j. Its interval at
 * confidence 1 - alpha is [D(k), D(mn+1-k)] of the sorted differences,
 * where k - 1 is the largest u with P(U <= u) <= alpha/2 for the
 * Mann-Whitney count U under "no difference" (without ties: with ties,
 * breaking them at random gives U that distribution, and D(k) > 0 needs
 * fewer than k differences at or below 0, so the closed interval covers
 * at least as often); when there is no such u the
 * interval is unbounded: with that few rounds no interval at that
 * confidence can exclude 0 (3 against 3 at 95%: P(U = 0) = 1/20 > 2.5%).
 * Assumptions: the rounds of each group are independent draws from one
 * distribution each (the host's noise does not trend during a campaign),
 * and the two distributions differ by a shift (on the log scale for
 * ratios: by a factor). */
#ifndef CX5_STATS_H
#define CX5_STATS_H

#include <stdbool.h>
#include <stddef.h>

/* The exact Mann-Whitney distribution is computed up to this many values
 * per sample (C(2n, n) counts stay exact in a double). */
#define STATS_EXACT_MAX_N 20

/* The median of n values; NAN when n is 0. */
double stats_median(const double *v, size_t n);

struct stats_shift {
	double estimate;  /* Hodges-Lehmann: the median of x_i - y_j */
	double low, high; /* the interval; -INFINITY and INFINITY when unbounded */
	double p_value;	  /* two-sided, for "no difference" */
	bool exact;	  /* the p-value is exact (no ties, small samples), else normal */
};

/* The shift of x over y at confidence 1 - alpha (0 < alpha < 1). 0 with
 * *ret; -EINVAL when a sample is empty or alpha is out of range, -ENOMEM. */
int stats_shift(const double *x, size_t nx, const double *y, size_t ny, double alpha,
		struct stats_shift *ret);

/* A round that received nothing (or less than this share of the largest
 * round of both samples) counts as this share of it: ranked below every
 * other and tied with its like, and every ratio stays finite (over it at
 * most +99999900%, of it at least -99.9999%), so one such round in each
 * group does not make the interval infinite. */
#define STATS_RATIO_FLOOR 1e-6

/* The same for the ratio x/y, in percent: the shift of log(x) over log(y),
 * then 100 * (exp(d) - 1) for the estimate and both ends (a round below
 * STATS_RATIO_FLOOR of the largest counts as that). The p-value is the log
 * scale's. */
int stats_ratio(const double *x, size_t nx, const double *y, size_t ny, double alpha,
		struct stats_shift *ret);

/* Unbounded: too few rounds for an interval at that confidence (both
 * ends infinite, one each way). */
bool stats_shift_unbounded(const struct stats_shift *s);

/* Decided: the interval excludes 0 (1 above, -1 below); 0: it does not. */
int stats_shift_sign(const struct stats_shift *s);

/* The fewest rounds per group (equal groups, no ties) with which an
 * interval at confidence 1 - alpha can exclude 0; 0 when more than
 * STATS_EXACT_MAX_N would be needed. */
unsigned stats_min_rounds(double alpha);

/* Holm's step-down over m comparisons at family level alpha: in order of
 * increasing p[i], comparison j (0-based) of the walk is tested at level
 * alpha / (m - j) by decide(i, level, userdata), which computes it at that
 * level and returns true when it is decided; at the first undecided one
 * the walk keeps that level for every comparison left (each is still
 * computed and may still be decided: the family-wise error rate stays at
 * most alpha, since a true "no difference" is only ever tested at a level
 * of at most alpha / (the number of true ones)). ret_level[i] is the level
 * comparison i was tested at. 0, or -ENOMEM. */
int stats_holm(const double *p, size_t m, double alpha,
	       bool (*decide)(size_t i, double level, void *userdata), void *userdata, double *ret_level);

/* The standard normal quantile: z with P(Z <= z) = q, 0 < q < 1. */
double stats_normal_quantile(double q);

#endif
