/* ratelimit.c: per-source and global token buckets (see ratelimit.h).
 *
 * Each bucket is one time: the request is allowed when the bucket's
 * theoretical arrival time is at most (burst - 1) intervals ahead of now,
 * and taking it moves that time one interval on. Must never: let a time
 * in the past give more than a full burst. */
#include "ratelimit.h"

static bool bucket_allows(const struct ratelimit_bucket *b, const struct ratelimit_rate *rate, uint64_t now)
{
	return b->tat <= now || b->tat - now <= (uint64_t)(rate->burst - 1) * rate->interval_usec;
}

static void bucket_take(struct ratelimit_bucket *b, const struct ratelimit_rate *rate, uint64_t now)
{
	b->tat = (b->tat > now ? b->tat : now) + rate->interval_usec;
}

void ratelimit_init(struct ratelimit *rl, struct ratelimit_rate per_source, struct ratelimit_rate global)
{
	*rl = (struct ratelimit){.per_source = per_source, .global = global};
}

/* The bucket of source: its own, or the one of the address seen least
 * lately (an empty or full one first), handed over to source. */
static struct ratelimit_bucket *source_bucket(struct ratelimit *rl, const char *source)
{
	struct ratelimit_source *oldest = &rl->sources[0];

	for (size_t i = 0; i < RATELIMIT_SOURCES; i++) {
		struct ratelimit_source *s = &rl->sources[i];
		if (streq(s->source, source))
			return &s->bucket;
		if (s->bucket.tat < oldest->bucket.tat)
			oldest = s;
	}
	snprintf(oldest->source, sizeof(oldest->source), "%s", source);
	oldest->bucket = (struct ratelimit_bucket){0};
	return &oldest->bucket;
}

int ratelimit_take(struct ratelimit *rl, const char *source, uint64_t now)
{
	struct ratelimit_bucket *b = source_bucket(rl, source);

	if (!bucket_allows(b, &rl->per_source, now))
		return -EAGAIN;
	if (!bucket_allows(&rl->all, &rl->global, now))
		return -EBUSY;
	bucket_take(b, &rl->per_source, now);
	bucket_take(&rl->all, &rl->global, now);
	return 0;
}
