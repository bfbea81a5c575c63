/* sequential.h: the looks of `repeat: auto` and the level each may spend.
 *
 * Owns: the alpha-spending function (Hwang-Shih-DeCani with
 * SEQ_SPENDING_GAMMA: between O'Brien-Fleming and Pocock, less early, most
 * at the last looks), the information of a look (its rounds per group
 * over max_rounds), the boundary of each look from the recursive
 * integration of the normal approximation (Armitage, McPherson and Rowe:
 * the chance to cross a boundary at a look without having crossed one
 * before is exactly what the function spends there), and which rounds
 * are looks: the first round at which a look's level can decide anything
 * for the family's size under Holm's first step, and every later round
 * whose level can; a round that cannot decide is no look and spends
 * nothing (its share goes to the next look); and the order of the
 * groups in each repetition (counterbalanced: reversed every other
 * repetition, or shuffled from a recorded seed). Must never: log, do
 * I/O, draw numbers that a seed does not fix, or look at measurements
 * (the design is fixed before the first round). */
#ifndef CX5_SEQUENTIAL_H
#define CX5_SEQUENTIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/stats.h"

/* gamma of the Hwang-Shih-DeCani family: alpha * (1 - e^(-gamma t)) /
 * (1 - e^(-gamma)); -4 is close to O'Brien-Fleming, 1 to Pocock. */
#define SEQ_SPENDING_GAMMA (-2.0)
#define SEQ_MAX_ROUNDS	   100
#define SEQ_SPENDING_NAME  "hwang-shih-decani(-2)"

struct seq_design {
	unsigned max_rounds;
	size_t comparisons; /* the family's size (Holm's first step: level / comparisons) */
	double alpha;	    /* spent in all: the family-wise level */
	/* level[n], n = 1..max_rounds: the two-sided family-wise level of a
	 * look after n rounds per group; 0: no look after n rounds. */
	double level[SEQ_MAX_ROUNDS + 1];
	unsigned first_look; /* the first n with a look; 0: none */
	unsigned looks;
};

/* The cumulative alpha spent by information fraction t (0..1). */
double seq_spent(double alpha, double t);

/* The design of a campaign of at most max_rounds rounds per group (1..
 * SEQ_MAX_ROUNDS) with `comparisons` throughput comparisons (>= 1) at
 * family-wise level alpha. 0, -EINVAL. */
int seq_design(unsigned max_rounds, size_t comparisons, double alpha, struct seq_design *ret);

/* The level of the last look at or before n rounds per group (the one
 * the verdict of a campaign that stopped there is read at), or of the
 * first look when none was due yet. */
double seq_level_at(const struct seq_design *d, unsigned n);

enum seq_order {
	SEQ_ORDER_ALTERNATE, /* a b c, c b a, a b c, ...: each group as often early as late */
	SEQ_ORDER_SHUFFLE,   /* a permutation per repetition from the seed */
	SEQ_ORDER_FIXED,     /* a b c every repetition (before 0.x: the only order) */
	_SEQ_ORDER_MAX,
};
const char *seq_order_to_string(enum seq_order o);
int seq_order_from_string(const char *s); /* -EINVAL */

/* The order of n cells in repetition rep (1-based): ret[i] is the i-th
 * cell to run. Shuffle draws from seed and rep only (splitmix64, then
 * Fisher-Yates), so the same seed gives the same campaign order. */
void seq_order(enum seq_order o, uint64_t seed, unsigned rep, size_t n, size_t *ret);

#endif
