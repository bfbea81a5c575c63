/* timeline.h: the history as `cx5prof history` lists it: transactions,
 * runs and campaigns in one timeline, newest first.
 *
 * Owns: which records a listing holds and their order (by start, newest
 * first; a run before a transaction that started in the same microsecond).
 * Must never: write to the history. */
#ifndef CX5_TIMELINE_H
#define CX5_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "campaigns.h"
#include "history.h"
#include "runs.h"

/* One entry: exactly one of txn, run, campaign is set (pointing into the
 * timeline's arrays). */
struct history_entry {
	int64_t when;
	const struct txn_record *txn;
	const struct run_record *run;
	const struct campaign_record *campaign;
};

struct history_timeline {
	struct txn_record *txns;
	size_t n_txns;
	struct run_record *runs;
	size_t n_runs;
	struct campaign_record *campaigns;
	size_t n_campaigns;
	struct history_entry *entries; /* newest first */
	size_t n;		       /* at most the limit */
};

/* The newest `limit` (0: all) transactions, runs and campaigns of h as one
 * timeline; *ret is written on success only. -errno. */
int history_timeline_load(struct history *h, size_t limit, struct history_timeline *ret);
void history_timeline_done(struct history_timeline *tl);

#endif
