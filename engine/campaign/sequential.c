/* sequential.c: the looks of repeat: auto and their levels (see
 * sequential.h).
 *
 * Owns: the spending function and the boundaries. Must never: depend on
 * anything but its arguments. */
#define _GNU_SOURCE
#include "sequential.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* Points of the grid the density of the sum is carried on between looks
 * (odd: Simpson's rule). */
#define GRID 401

double seq_spent(double alpha, double t)
{
	double g = SEQ_SPENDING_GAMMA;

	if (t <= 0)
		return 0;
	if (t >= 1)
		return alpha;
	return alpha * -expm1(-g * t) / -expm1(-g);
}

static double phi(double x)
{
	return exp(-x * x / 2) / sqrt(2 * M_PI);
}

static double upper_tail(double x)
{
	return 0.5 * erfc(x / M_SQRT2);
}

/* The carried density: on the scale of the sum S_n (a standard normal
 * per round), its values at GRID points evenly over [-b, b] of the last
 * look, where it has not yet crossed. */
struct carried {
	double b, f[GRID];
	unsigned n; /* rounds of the last look */
};

static double simpson_weight(size_t i)
{
	return i == 0 || i == GRID - 1 ? 1.0 : i % 2 ? 4.0 : 2.0;
}

/* P(not crossed before, |S_n| >= bound) from the carried density (or
 * from the start, when nothing is carried). */
static double cross(const struct carried *c, unsigned n, double bound)
{
	double s, h, sum = 0;

	if (!c->n) {
		s = sqrt((double)n);
		return 2 * upper_tail(bound / s);
	}
	s = sqrt((double)(n - c->n));
	h = 2 * c->b / (GRID - 1);
	for (size_t i = 0; i < GRID; i++) {
		double u = -c->b + h * (double)i;
		sum +=
		    simpson_weight(i) * c->f[i] * (upper_tail((bound - u) / s) + upper_tail((bound + u) / s));
	}
	return sum * h / 3;
}

/* The density at n rounds over [-bound, bound], where the look at n did
 * not stop. */
static void carry(struct carried *c, unsigned n, double bound)
{
	double next[GRID], h_new = 2 * bound / (GRID - 1);

	for (size_t j = 0; j < GRID; j++) {
		double x = -bound + h_new * (double)j;

		if (!c->n) {
			double s = sqrt((double)n);
			next[j] = phi(x / s) / s;
			continue;
		}
		double s = sqrt((double)(n - c->n)), h = 2 * c->b / (GRID - 1), sum = 0;
		for (size_t i = 0; i < GRID; i++) {
			double u = -c->b + h * (double)i;
			sum += simpson_weight(i) * c->f[i] * phi((x - u) / s) / s;
		}
		next[j] = sum * h / 3;
	}
	memcpy(c->f, next, sizeof(next));
	c->b = bound;
	c->n = n;
}

/* The bound on S_n that crosses with probability `spend` (bisection). */
static double bound_for(const struct carried *c, unsigned n, double spend)
{
	double lo = 0, hi = 40 * sqrt((double)n);

	for (int i = 0; i < 80; i++) {
		double mid = (lo + hi) / 2;
		if (cross(c, n, mid) > spend)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

int seq_design(unsigned max_rounds, size_t comparisons, double alpha, struct seq_design *ret)
{
	struct seq_design d = {.max_rounds = max_rounds, .comparisons = comparisons, .alpha = alpha};
	struct carried c = {0};
	double spent = 0;

	if (max_rounds < 1 || max_rounds > SEQ_MAX_ROUNDS || comparisons < 1 || !(alpha > 0 && alpha < 1))
		return -EINVAL;
	for (unsigned n = 1; n <= max_rounds; n++) {
		double spend = seq_spent(alpha, (double)n / max_rounds) - spent, b, level;
		unsigned need;

		if (spend <= 0)
			continue;
		b = bound_for(&c, n, spend);
		level = 2 * upper_tail(b / sqrt((double)n));
		need = stats_min_rounds(level / (double)comparisons);
		/* A look that cannot decide anything is no look: it spends
		 * nothing, and the next one has its share. */
		if (need == 0 || need > n)
			continue;
		d.level[n] = level;
		d.looks++;
		if (!d.first_look)
			d.first_look = n;
		spent += spend;
		carry(&c, n, b);
	}
	*ret = d;
	return 0;
}

double seq_level_at(const struct seq_design *d, unsigned n)
{
	for (unsigned k = n < d->max_rounds ? n : d->max_rounds; k >= 1; k--)
		if (d->level[k] > 0)
			return d->level[k];
	return d->first_look ? d->level[d->first_look] : 0;
}

static const char *const order_names[_SEQ_ORDER_MAX] = {"alternate", "shuffle", "fixed"};

const char *seq_order_to_string(enum seq_order o)
{
	return o < _SEQ_ORDER_MAX ? order_names[o] : NULL;
}

int seq_order_from_string(const char *s)
{
	for (size_t i = 0; s && i < _SEQ_ORDER_MAX; i++)
		if (strcmp(s, order_names[i]) == 0)
			return (int)i;
	return -EINVAL;
}

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void seq_order(enum seq_order o, uint64_t seed, unsigned rep, size_t n, size_t *ret)
{
	uint64_t state = seed ^ ((uint64_t)rep * 0xd1b54a32d192ed03ULL);

	for (size_t i = 0; i < n; i++)
		ret[i] = o == SEQ_ORDER_ALTERNATE && rep % 2 == 0 ? n - 1 - i : i;
	if (o != SEQ_ORDER_SHUFFLE)
		return;
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(splitmix64(&state) % i), t = ret[i - 1];
		ret[i - 1] = ret[j];
		ret[j] = t;
	}
}
