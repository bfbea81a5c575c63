/* timeline.c: the history's transactions, runs and campaigns as one
 * timeline (see timeline.h). */
#include <errno.h>
#include <stdlib.h>

#include "timeline.h"

static int cmp_entry(const void *a, const void *b)
{
	const struct history_entry *x = a, *y = b;

	if (x->when != y->when)
		return x->when < y->when ? 1 : -1;
	return x->run && !y->run ? -1 : !x->run && y->run ? 1 : 0;
}

void history_timeline_done(struct history_timeline *tl)
{
	for (size_t i = 0; i < tl->n_txns; i++)
		txn_record_done(&tl->txns[i]);
	free(tl->txns);
	run_records_free(tl->runs, tl->n_runs);
	campaign_records_free(tl->campaigns, tl->n_campaigns);
	free(tl->entries);
	*tl = (struct history_timeline){0};
}

int history_timeline_load(struct history *h, size_t limit, struct history_timeline *ret)
{
	struct history_timeline tl = {0};
	size_t n = 0;
	int r;

	r = history_txn_list_newest(h, limit, &tl.txns, &tl.n_txns);
	if (r >= 0)
		r = runs_list(h, limit, &tl.runs, &tl.n_runs);
	if (r >= 0)
		r = campaigns_list(h, limit, &tl.campaigns, &tl.n_campaigns);
	if (r >= 0) {
		tl.entries = calloc(tl.n_txns + tl.n_runs + tl.n_campaigns + 1, sizeof(*tl.entries));
		if (!tl.entries)
			r = -ENOMEM;
	}
	if (r < 0) {
		history_timeline_done(&tl);
		return r;
	}
	for (size_t i = 0; i < tl.n_txns; i++)
		tl.entries[n++] = (struct history_entry){.when = tl.txns[i].started_usec, .txn = &tl.txns[i]};
	for (size_t i = 0; i < tl.n_runs; i++)
		tl.entries[n++] = (struct history_entry){.when = tl.runs[i].started_usec, .run = &tl.runs[i]};
	for (size_t i = 0; i < tl.n_campaigns; i++)
		tl.entries[n++] = (struct history_entry){.when = tl.campaigns[i].started_usec,
							 .campaign = &tl.campaigns[i]};
	qsort(tl.entries, n, sizeof(*tl.entries), cmp_entry);
	tl.n = limit && n > limit ? limit : n;
	*ret = tl;
	return 0;
}
