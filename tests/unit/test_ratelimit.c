/* test_ratelimit.c: serve's rate limits (ratelimit.h): a burst, then one
 * request per interval, per source and in all; a refusal by one bucket
 * takes nothing from the other; a source forgotten for lack of room starts
 * afresh. Times are given, never read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "bench/ratelimit.h"

#define SEC 1000000ull

static struct ratelimit rl;

static unsigned allowed(const char *source, unsigned n, uint64_t now)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++)
		k += ratelimit_take(&rl, source, now) == 0;
	return k;
}

static void test_burst_then_rate(void **state)
{
	(void)state;
	ratelimit_init(&rl, (struct ratelimit_rate){4, SEC / 2}, (struct ratelimit_rate){100, 1});
	assert_int_equal(allowed("198.18.0.1", 10, 10 * SEC), 4);
	assert_int_equal(ratelimit_take(&rl, "198.18.0.1", 10 * SEC), -EAGAIN);
	/* Half a second gives one more, two seconds a whole burst again. */
	assert_int_equal(allowed("198.18.0.1", 10, 10 * SEC + SEC / 2), 1);
	assert_int_equal(allowed("198.18.0.1", 10, 100 * SEC), 4);
	/* Another source has its own burst. */
	assert_int_equal(allowed("198.18.0.2", 10, 100 * SEC), 4);
}

static void test_global(void **state)
{
	char source[32];
	unsigned k = 0;

	(void)state;
	ratelimit_init(&rl, (struct ratelimit_rate){4, SEC / 2}, (struct ratelimit_rate){16, SEC / 8});
	for (unsigned i = 0; i < 10; i++) {
		snprintf(source, sizeof(source), "198.18.0.%u", i);
		k += allowed(source, 4, 5 * SEC);
	}
	assert_int_equal(k, 16);
	assert_int_equal(ratelimit_take(&rl, "198.18.1.1", 5 * SEC), -EBUSY);
	/* The global refusal took nothing from the source: a full burst
	 * once the global bucket has room. */
	assert_int_equal(allowed("198.18.1.1", 4, 7 * SEC), 4);
}

static void test_forgotten_source(void **state)
{
	char source[32];

	(void)state;
	ratelimit_init(&rl, (struct ratelimit_rate){1, SEC}, (struct ratelimit_rate){100000, 1});
	assert_int_equal(allowed("198.18.0.1", 2, SEC), 1);
	for (unsigned i = 0; i < RATELIMIT_SOURCES; i++) {
		snprintf(source, sizeof(source), "198.19.%u.%u", i / 256, i % 256);
		assert_int_equal(allowed(source, 1, 2 * SEC), 1);
	}
	/* Pushed out by as many newer sources: a fresh start. */
	assert_int_equal(allowed("198.18.0.1", 2, 2 * SEC), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_burst_then_rate),
	    cmocka_unit_test(test_global),
	    cmocka_unit_test(test_forgotten_source),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
