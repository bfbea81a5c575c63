/* ratelimit.h: how often `serve` answers a kind of request, per source
 * address and in all.
 *
 * Owns: token buckets (the generic cell rate algorithm on now_usec()
 * times): a burst of requests at once, then one per interval, for each
 * source address (the RATELIMIT_SOURCES most recently seen; a forgotten
 * address starts with a full burst, which the global bucket bounds) and
 * for all sources together. Must never: allocate, block, or consume a
 * token of one bucket when the other refuses. */
#ifndef CX5_RATELIMIT_H
#define CX5_RATELIMIT_H

#include <netinet/in.h>

#include "base/util.h"

#define RATELIMIT_SOURCES 256

struct ratelimit_bucket {
	uint64_t tat; /* theoretical arrival time of the next request, usec */
};

struct ratelimit_source {
	char source[INET6_ADDRSTRLEN];
	struct ratelimit_bucket bucket;
};

struct ratelimit_rate {
	unsigned burst;		/* requests at once, >= 1 */
	uint64_t interval_usec; /* then one per interval */
};

struct ratelimit {
	struct ratelimit_rate per_source, global;
	struct ratelimit_bucket all;
	struct ratelimit_source sources[RATELIMIT_SOURCES];
};

void ratelimit_init(struct ratelimit *rl, struct ratelimit_rate per_source, struct ratelimit_rate global);

/* Take one request of source at now: 0 allowed; -EAGAIN the source is over
 * its rate; -EBUSY all sources together are (nothing taken then). */
int ratelimit_take(struct ratelimit *rl, const char *source, uint64_t now);

#endif
