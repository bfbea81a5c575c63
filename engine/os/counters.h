/* counters.h: the NIC drop counters cx5prof watches, before and after a
 * run, and what a rising one means in plain words.
 *
 * Owns: the ONE table of watched counters (name as mlx5 reports it through
 * ETHTOOL_GSTATS, its meaning, the remedy), snapshots of those counters for
 * an interface, and the difference of two snapshots. Must never: reset or
 * change a counter, or invent one a driver does not report (absent stays
 * absent: veth has none of them). */
#ifndef CX5_COUNTERS_H
#define CX5_COUNTERS_H

#include "base/util.h"
#include "ethtool.h"

struct counter_def {
	const char *name;    /* "rx_out_of_buffer" */
	const char *meaning; /* what a rise means, one sentence */
	const char *remedy;  /* what to try */
};

/* The table, in report order. */
const struct counter_def *counter_defs(size_t *ret_n);
/* The entry called name, or NULL. */
const struct counter_def *counter_def_find(const char *name);

#define COUNTERS_MAX 16

struct counter_snapshot {
	int r;			    /* result of reading: 0, -EOPNOTSUPP, -ENODEV, ... */
	bool present[COUNTERS_MAX]; /* indexed like counter_defs() */
	uint64_t value[COUNTERS_MAX];
	char *dump; /* every counter of the device, "name: value" lines
		     * (as `ethtool -S`), for the evidence; NULL on failure */
};

/* Snapshot of interface ifname's counters (in this network namespace). The
 * snapshot is always filled: a failure is kept in ret->r (and returned), so
 * a report can say "counters unavailable: ..." next to the other results. */
int counters_snapshot(const char *ifname, struct counter_snapshot *ret);
/* The same from stats already read (tests, callers holding a stats list). */
int counters_from_stats(const struct eth_stat *stats, size_t n, struct counter_snapshot *ret);
void counter_snapshot_done(struct counter_snapshot *s);

struct counter_delta {
	const struct counter_def *def;
	uint64_t before, after;
	uint64_t delta; /* after - before; 0 when the counter went backwards (reset) */
	bool rising;	/* delta > 0 */
};

/* Counters present in both snapshots, in table order. *ret (caller frees)
 * has *ret_n entries; 0 entries when either snapshot failed. */
int counters_diff(const struct counter_snapshot *before, const struct counter_snapshot *after,
		  struct counter_delta **ret, size_t *ret_n);

#endif
