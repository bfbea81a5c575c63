/* stats.c: medians, Hodges-Lehmann shifts with Mann-Whitney intervals,
 * Holm's step-down (see stats.h).
 *
 * Owns: the arithmetic only. Must never: log, do I/O, or depend on
 * anything but its arguments. */
#define _GNU_SOURCE
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double stats_median(const double *v, size_t n)
{
	_cleanup_free_ double *s = NULL;

	if (n == 0 || !(s = malloc(n * sizeof(*s))))
		return NAN;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* Acklam's rational approximation, then one Halley step on erfc: about
 * 1e-15 relative error over (0, 1). */
double stats_normal_quantile(double q)
{
	static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
				   1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
	static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
				   6.680131188771972e+01, -1.328068155288572e+01};
	static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
				   -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
	static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
				   3.754408661907416e+00};
	double x, r, e, u;

	if (!(q > 0 && q < 1))
		return q == 0 ? -INFINITY : q == 1 ? INFINITY : NAN;
	if (q < 0.02425) {
		r = sqrt(-2 * log(q));
		x = (((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5]) /
		    ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1);
	} else if (q > 1 - 0.02425) {
		r = sqrt(-2 * log(1 - q));
		x = -(((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5]) /
		    ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1);
	} else {
		r = (q - 0.5) * (q - 0.5);
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * (q - 0.5) /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
	}
	e = 0.5 * erfc(-x / M_SQRT2) - q;
	u = e * sqrt(2 * M_PI) * exp(x * x / 2);
	return x - u / (1 + x * u / 2);
}

/* The number of arrangements of m x's and n y's with each Mann-Whitney
 * count u = 0..mn, as the coefficients of the Gaussian binomial
 * [m+n choose m](q) = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i). Every
 * intermediate is a count below C(m+n, m), exact in a double for
 * m, n <= STATS_EXACT_MAX_N. ret has mn + 1 entries. */
static void mw_counts(size_t m, size_t n, double *ret)
{
	size_t top = m * n;

	memset(ret, 0, (top + 1) * sizeof(*ret));
	ret[0] = 1;
	for (size_t i = 1; i <= m; i++) {
		for (size_t k = top; k >= n + i; k--)
			ret[k] -= ret[k - (n + i)];
		for (size_t k = i; k <= top; k++)
			ret[k] += ret[k - i];
	}
}

/* Exact cdf of U for samples of m and n: cdf[u] = P(U <= u). */
static int mw_cdf(size_t m, size_t n, double **ret)
{
	size_t top = m * n;
	double *c = calloc(top + 1, sizeof(*c)), total = 0;

	if (!c)
		return -ENOMEM;
	mw_counts(m, n, c);
	for (size_t u = 0; u <= top; u++)
		total += c[u];
	for (size_t u = 1; u <= top; u++)
		c[u] += c[u - 1];
	for (size_t u = 0; u <= top; u++)
		c[u] /= total;
	*ret = c;
	return 0;
}

/* 1 + the largest u with cdf[u] <= half_alpha; 0 when there is none. */
static size_t exact_k(const double *cdf, size_t top, double half_alpha)
{
	size_t k = 0;

	/* A relative slack absorbs the rounding of the division. */
	while (k <= top && cdf[k] <= half_alpha * (1 + 1e-12))
		k++;
	return k;
}

static bool has_ties(const double *x, size_t nx, const double *y, size_t ny)
{
	_cleanup_free_ double *all = malloc((nx + ny) * sizeof(*all));

	if (!all)
		return true; /* the normal approximation needs no memory */
	memcpy(all, x, nx * sizeof(*x));
	memcpy(all + nx, y, ny * sizeof(*y));
	qsort(all, nx + ny, sizeof(*all), cmp_double);
	for (size_t i = 1; i < nx + ny; i++)
		if (all[i] == all[i - 1])
			return true;
	return false;
}

/* sum of t^3 - t over the groups of tied values of the pooled sample. */
static double ties_term(const double *x, size_t nx, const double *y, size_t ny)
{
	_cleanup_free_ double *all = malloc((nx + ny) * sizeof(*all));
	double sum = 0;

	if (!all)
		return 0;
	memcpy(all, x, nx * sizeof(*x));
	memcpy(all + nx, y, ny * sizeof(*y));
	qsort(all, nx + ny, sizeof(*all), cmp_double);
	for (size_t i = 0; i < nx + ny;) {
		size_t j = i;
		while (j < nx + ny && all[j] == all[i])
			j++;
		sum += (double)(j - i) * (double)(j - i) * (double)(j - i) - (double)(j - i);
		i = j;
	}
	return sum;
}

int stats_shift(const double *x, size_t nx, const double *y, size_t ny, double alpha, struct stats_shift *ret)
{
	_cleanup_free_ double *d = NULL, *cdf = NULL;
	size_t mn = nx * ny, k, below = 0, zero = 0;
	double u, half = mn / 2.0, n = (double)(nx + ny);
	bool small = nx <= STATS_EXACT_MAX_N && ny <= STATS_EXACT_MAX_N;
	struct stats_shift s = {0};
	int r;

	if (nx == 0 || ny == 0 || !(alpha > 0 && alpha < 1))
		return -EINVAL;
	d = malloc(mn * sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < nx; i++)
		for (size_t j = 0; j < ny; j++)
			d[i * ny + j] = x[i] == y[j] ? 0 : x[i] - y[j]; /* -inf twice: a tie */
	qsort(d, mn, sizeof(*d), cmp_double);
	s.estimate = stats_median(d, mn);
	for (size_t i = 0; i < mn; i++) {
		below += d[i] < 0;
		zero += d[i] == 0;
	}
	u = (double)below + (double)zero / 2;

	/* The interval's k comes from the distribution of U without ties,
	 * also when there are ties: the closed interval is then
	 * conservative (break the ties at random: that U has this
	 * distribution, and D(k) > 0 needs fewer than k differences at or
	 * below 0, which the broken U cannot exceed). */
	if (small) {
		r = mw_cdf(nx, ny, &cdf);
		if (r < 0)
			return r;
		k = exact_k(cdf, mn, alpha / 2);
	} else {
		double kk =
		    floor(half + 0.5 - stats_normal_quantile(1 - alpha / 2) * sqrt(mn * (n + 1) / 12));
		k = kk < 1 ? 0 : (size_t)kk;
	}
	s.exact = small && !has_ties(x, nx, y, ny);
	if (s.exact) {
		size_t ui = (size_t)u; /* no ties: U is a whole number */
		s.p_value = fmin(1, 2 * fmin(cdf[ui], cdf[mn - ui]));
	} else {
		double var = (double)mn / 12 * ((n + 1) - ties_term(x, nx, y, ny) / (n * (n - 1)));
		double sd = var > 0 ? sqrt(var) : 0;

		s.p_value = sd > 0 ? fmin(1, erfc(fmax(0, fabs(u - half) - 0.5) / sd / M_SQRT2)) : 1;
	}
	if (k > (mn + 1) / 2)
		k = (mn + 1) / 2;
	s.low = k ? d[k - 1] : -INFINITY;
	s.high = k ? d[mn - k] : INFINITY;
	*ret = s;
	return 0;
}

int stats_ratio(const double *x, size_t nx, const double *y, size_t ny, double alpha, struct stats_shift *ret)
{
	_cleanup_free_ double *lx = malloc((nx ? nx : 1) * sizeof(*lx));
	_cleanup_free_ double *ly = malloc((ny ? ny : 1) * sizeof(*ly));
	struct stats_shift s;
	bool unbounded;
	int r;

	double top = 0, floor_log;

	if (!lx || !ly)
		return -ENOMEM;
	for (size_t i = 0; i < nx; i++)
		top = fmax(top, x[i]);
	for (size_t i = 0; i < ny; i++)
		top = fmax(top, y[i]);
	floor_log = top > 0 ? log(top * STATS_RATIO_FLOOR) : 0;
	for (size_t i = 0; i < nx; i++)
		lx[i] = x[i] > 0 ? fmax(log(x[i]), floor_log) : floor_log;
	for (size_t i = 0; i < ny; i++)
		ly[i] = y[i] > 0 ? fmax(log(y[i]), floor_log) : floor_log;
	r = stats_shift(lx, nx, ly, ny, alpha, &s);
	if (r < 0)
		return r;
	unbounded = stats_shift_unbounded(&s);
	s.estimate = 100 * expm1(s.estimate);
	s.low = unbounded ? -INFINITY : 100 * expm1(s.low);
	s.high = unbounded ? INFINITY : 100 * expm1(s.high);
	*ret = s;
	return 0;
}

bool stats_shift_unbounded(const struct stats_shift *s)
{
	return s->low == -INFINITY && s->high == INFINITY;
}

int stats_shift_sign(const struct stats_shift *s)
{
	return s->low > 0 ? 1 : s->high < 0 ? -1 : 0;
}

unsigned stats_min_rounds(double alpha)
{
	double c = 1; /* C(2n, n) */

	for (unsigned n = 1; n <= STATS_EXACT_MAX_N; n++) {
		c = c * (2 * n) * (2 * n - 1) / ((double)n * n);
		/* Complete separation, the most extreme outcome: p = 2 / C(2n, n). */
		if (2 / c <= alpha * (1 + 1e-12))
			return n;
	}
	return 0;
}

struct holm_order {
	const double *p;
	size_t i;
};

static int cmp_order(const void *a, const void *b)
{
	const struct holm_order *x = a, *y = b;
	double px = x->p[x->i], py = y->p[y->i];

	if (px != py)
		return (px > py) - (px < py);
	return (x->i > y->i) - (x->i < y->i);
}

int stats_holm(const double *p, size_t m, double alpha,
	       bool (*decide)(size_t i, double level, void *userdata), void *userdata, double *ret_level)
{
	_cleanup_free_ struct holm_order *o = calloc(m ? m : 1, sizeof(*o));
	double level = 0;
	bool stopped = false;

	if (!o)
		return -ENOMEM;
	for (size_t i = 0; i < m; i++)
		o[i] = (struct holm_order){p, i};
	qsort(o, m, sizeof(*o), cmp_order);
	for (size_t j = 0; j < m; j++) {
		if (!stopped)
			level = alpha / (double)(m - j);
		ret_level[o[j].i] = level;
		if (!decide(o[j].i, level, userdata))
			stopped = true;
	}
	return 0;
}
