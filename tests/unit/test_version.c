/* test_version.c: version_compare() over a table of real version strings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "base/version.h"

static const struct {
	const char *a, *b;
	int cmp; /* -1, 0, 1; or -EINVAL expected as the return value */
	int r;
} cases[] = {
    /* OFED versions */
    {"5.2-2.0.7", "24.10-1.1.4", -1, 0},
    {"24.10-1.1.4", "5.2-2.0.7", 1, 0},
    {"5.2-2.0.7", "5.2-2.0.7", 0, 0},
    {"5.0-0", "5.2-2.0.7", -1, 0},
    {"5.2-2.0.7", "5.0-0", 1, 0},
    {"5.8-1.0.1.1.2", "5.8-1.0.1.1", 1, 0},
    {"5.2-2.0.10", "5.2-2.0.9", 1, 0}, /* numeric, not lexical */
    /* inbox: the kernel release */
    {"6.8.0", "5.0-0", 1, 0},
    {"6.8.0", "6.8", 0, 0},
    {"6.8", "6.8.0.0", 0, 0},
    {"6.8.0-31-generic", "6.8.0", 1, 0},
    {"6.8.0-31-generic", "6.8.0-31", 0, 0},
    {"5.4.0-rc1", "5.4.0", 0, 0},
    {"4.18.0_305", "4.18.0-305", 0, 0},
    /* firmware with PSID */
    {"16.29.1030 (MT_0000000080)", "16.26.1040", 1, 0},
    {"16.26.1040", "16.29.1030 (MT_0000000080)", -1, 0},
    {"16.29.1030 (DEL0000000016)", "16.29.1030", 0, 0},
    {"16.21.0106", "16.21.106", 0, 0},
    {"1.0", "1.0", 0, 0}, /* veth */
    {"18446744073709551615", "1", 1, 0},
    /* unparsable */
    {"", "1.0", 0, -EINVAL},
    {"1.0", "", 0, -EINVAL},
    {"abc", "1.0", 0, -EINVAL},
    {"v1.0", "1.0", 0, -EINVAL},
    {"1..2", "1.0", 0, -EINVAL},
    {"1.2.", "1.0", 0, -EINVAL},
    {"1.2 ", "1.0", 0, -EINVAL},
    {"1.2 (PSID", "1.0", 0, -EINVAL},
    {"1.2 (A) (B)", "1.0", 0, -EINVAL},
    {"1.2/3", "1.0", 0, -EINVAL},
    {"18446744073709551616", "1", 0, -EINVAL},
    {"1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.16.17", "1", 0, -EINVAL},
    {"1.2-rc1/x", "1.0", 0, -EINVAL},
};

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int cmp = 42, r = version_compare(cases[i].a, cases[i].b, &cmp);
		if (r != cases[i].r || (r == 0 && cmp != cases[i].cmp) || (r < 0 && cmp != 42))
			fail_msg("case %zu: \"%s\" vs \"%s\": r=%d cmp=%d, expected r=%d cmp=%d", i,
				 cases[i].a, cases[i].b, r, cmp, cases[i].r, cases[i].cmp);
	}
}

static void test_parse_segments(void **state)
{
	uint64_t seg[VERSION_MAX_SEGMENTS];
	(void)state;
	assert_int_equal(version_parse("24.10-1.1.4", seg), 5);
	assert_int_equal(seg[0], 24);
	assert_int_equal(seg[1], 10);
	assert_int_equal(seg[2], 1);
	assert_int_equal(seg[4], 4);
	assert_int_equal(version_parse("16.29.1030 (MT_0000000080)", seg), 3);
	assert_int_equal(seg[2], 1030);
	assert_true(version_valid("5.0-0"));
	assert_false(version_valid("five"));
	assert_false(version_valid(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table),
	    cmocka_unit_test(test_parse_segments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
