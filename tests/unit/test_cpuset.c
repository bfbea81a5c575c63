/* test_cpuset.c: CPU lists and masks in every form the kernel prints. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <sched.h>

#include "base/cpuset.h"

static void assert_list_roundtrip(const char *in, const char *expect)
{
	_cleanup_cpuset_ struct cpuset s = CPUSET_INIT;
	_cleanup_free_ char *out = NULL;

	assert_int_equal(cpuset_parse_list(in, &s), 0);
	assert_int_equal(cpuset_format_list(&s, &out), 0);
	assert_string_equal(out, expect);
}

static void test_list_forms(void **state)
{
	(void)state;
	assert_list_roundtrip("", "");
	assert_list_roundtrip("\n", "");
	assert_list_roundtrip("8", "8");
	assert_list_roundtrip("8\n", "8");
	assert_list_roundtrip("0-31", "0-31");
	assert_list_roundtrip("0-5,48-53", "0-5,48-53");
	assert_list_roundtrip("0-3,8", "0-3,8");
	assert_list_roundtrip("0,16", "0,16");
	assert_list_roundtrip("3,1,2", "1-3");
	assert_list_roundtrip("0-3,2-5", "0-5");
	assert_list_roundtrip("5-5", "5");
	assert_list_roundtrip("63-64", "63-64");
	assert_list_roundtrip("0-255", "0-255");
	assert_list_roundtrip("8191", "8191");
	/* The kernel's stride form: first 2 of every 8. */
	assert_list_roundtrip("0-31:2/8", "0-1,8-9,16-17,24-25");
}

static void test_list_errors(void **state)
{
	_cleanup_cpuset_ struct cpuset s = CPUSET_INIT;
	static const char *const invalid[] = {
	    "a",   "1,",   ",1",   "1-",      "-1",	 "1--2",  "1 2",
	    "0x1", "1,,2", "1-2:", "0-7:0/4", "0-7:3/2", "0-7:2", "+1",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(invalid); i++) {
		int r = cpuset_parse_list(invalid[i], &s);
		if (r != -EINVAL)
			fail_msg("\"%s\": got %d, want -EINVAL", invalid[i], r);
	}
	assert_int_equal(cpuset_parse_list("5-3", &s), -ERANGE);
	assert_int_equal(cpuset_parse_list("8192", &s), -ERANGE);
	assert_int_equal(cpuset_parse_list("0-8192", &s), -ERANGE);
	assert_int_equal(cpuset_parse_list("99999999999999999999", &s), -ERANGE);
	/* ret untouched on failure */
	assert_int_equal(cpuset_parse_list("1-2", &s), 0);
	assert_int_equal(cpuset_parse_list("x", &s), -EINVAL);
	assert_int_equal(cpuset_count(&s), 2);
}

static void assert_mask(const char *list, unsigned ncpus, const char *mask)
{
	_cleanup_cpuset_ struct cpuset s = CPUSET_INIT, back = CPUSET_INIT;
	_cleanup_free_ char *out = NULL;

	assert_int_equal(cpuset_parse_list(list, &s), 0);
	assert_int_equal(cpuset_format_mask(&s, ncpus, &out), 0);
	assert_string_equal(out, mask);
	assert_int_equal(cpuset_parse_mask(mask, &back), 0);
	assert_true(cpuset_equal(&s, &back));
}

static void test_mask_forms(void **state)
{
	(void)state;
	assert_mask("16-21", 64, "00000000,003f0000");
	assert_mask("0-11", 12, "fff");
	assert_mask("10", 12, "400");
	assert_mask("0", 32, "00000001");
	assert_mask("0-31", 32, "ffffffff");
	assert_mask("", 32, "00000000");
	assert_mask("32", 40, "01,00000000");
	assert_mask("0-5,48-53", 96, "00000000,003f0000,0000003f");
	assert_mask("64", 128, "00000000,00000001,00000000,00000000");
	assert_mask("255", 256, "80000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000");
	assert_mask("1", 0, "2");
	assert_mask("", 0, "0");
}

static void test_mask_parse(void **state)
{
	_cleanup_cpuset_ struct cpuset s = CPUSET_INIT;
	_cleanup_free_ char *l = NULL;

	(void)state;
	assert_int_equal(cpuset_parse_mask("00000000,003f0000\n", &s), 0);
	assert_int_equal(cpuset_format_list(&s, &l), 0);
	assert_string_equal(l, "16-21");
	free(l);
	l = NULL;
	assert_int_equal(cpuset_parse_mask("FF", &s), 0);
	assert_int_equal(cpuset_format_list(&s, &l), 0);
	assert_string_equal(l, "0-7");
	free(l);
	l = NULL;
	assert_int_equal(cpuset_parse_mask("1,00000000,00000000", &s), 0);
	assert_int_equal(cpuset_format_list(&s, &l), 0);
	assert_string_equal(l, "64");

	assert_int_equal(cpuset_parse_mask("", &s), -EINVAL);
	assert_int_equal(cpuset_parse_mask("\n", &s), -EINVAL);
	assert_int_equal(cpuset_parse_mask("xyz", &s), -EINVAL);
	assert_int_equal(cpuset_parse_mask(",ff", &s), -EINVAL);
	assert_int_equal(cpuset_parse_mask("ff,", &s), -EINVAL);
	assert_int_equal(cpuset_parse_mask("ff,,ff", &s), -EINVAL);
	assert_int_equal(cpuset_parse_mask("123456789", &s), -EINVAL);
	assert_int_equal(cpuset_parse_mask("0x1", &s), -EINVAL);
	/* 257 groups of 32 bits reach CPU 8192 and beyond */
	{
		_cleanup_free_ char *big = malloc(257 * 9 + 1);
		size_t n = 0;
		assert_non_null(big);
		n += (size_t)sprintf(big, "1");
		for (int i = 0; i < 256; i++)
			n += (size_t)sprintf(big + n, ",00000000");
		assert_int_equal(cpuset_parse_mask(big, &s), -ERANGE);
	}
}

static void test_format_mask_errors(void **state)
{
	_cleanup_cpuset_ struct cpuset s = CPUSET_INIT;
	_cleanup_free_ char *m = NULL;

	(void)state;
	assert_int_equal(cpuset_parse_list("40", &s), 0);
	assert_int_equal(cpuset_format_mask(&s, 32, &m), -ERANGE);
	assert_null(m);
	assert_int_equal(cpuset_format_mask(&s, CPUSET_MAX_CPUS + 1, &m), -ERANGE);
}

static void test_ops(void **state)
{
	_cleanup_cpuset_ struct cpuset a = CPUSET_INIT, b = CPUSET_INIT, c = CPUSET_INIT;
	_cleanup_free_ char *l = NULL;
	int seen[8], n = 0;

	(void)state;
	assert_int_equal(cpuset_count(&a), 0);
	assert_int_equal(cpuset_next(&a, -1), -1);
	assert_int_equal(cpuset_last(&a), -1);
	assert_false(cpuset_has(&a, 5000));
	cpuset_remove(&a, 5000); /* no-op on an empty set */
	assert_int_equal(cpuset_add(&a, 8192), -ERANGE);
	assert_int_equal(cpuset_add(&a, 200), 0);
	assert_int_equal(cpuset_add(&a, 3), 0);
	assert_int_equal(cpuset_add(&a, 64), 0);
	assert_int_equal(cpuset_count(&a), 3);
	CPUSET_FOREACH(cpu, &a) seen[n++] = cpu;
	assert_int_equal(n, 3);
	assert_int_equal(seen[0], 3);
	assert_int_equal(seen[1], 64);
	assert_int_equal(seen[2], 200);
	assert_int_equal(cpuset_last(&a), 200);
	assert_int_equal(cpuset_next(&a, 63), 64);
	assert_int_equal(cpuset_next(&a, 64), 200);
	assert_int_equal(cpuset_next(&a, 200), -1);

	assert_int_equal(cpuset_copy(&a, &b), 0);
	assert_true(cpuset_equal(&a, &b));
	cpuset_remove(&b, 200);
	assert_false(cpuset_equal(&a, &b));
	/* equal across different word counts */
	assert_int_equal(cpuset_parse_list("3,64", &c), 0);
	assert_true(cpuset_equal(&b, &c));

	assert_int_equal(cpuset_parse_list("0-7,300", &c), 0);
	assert_int_equal(cpuset_or(&b, &c), 0);
	assert_int_equal(cpuset_format_list(&b, &l), 0);
	assert_string_equal(l, "0-7,64,300");
	free(l);
	l = NULL;
	cpuset_and(&b, &a);
	assert_int_equal(cpuset_format_list(&b, &l), 0);
	assert_string_equal(l, "3,64");
	free(l);
	l = NULL;
	cpuset_andnot(&a, &b);
	assert_int_equal(cpuset_format_list(&a, &l), 0);
	assert_string_equal(l, "200");
	cpuset_clear(&a);
	assert_int_equal(cpuset_count(&a), 0);
}

static void test_large_host(void **state)
{
	_cleanup_cpuset_ struct cpuset s = CPUSET_INIT;
	_cleanup_free_ char *l = NULL, *m = NULL;

	(void)state;
	assert_int_equal(cpuset_parse_list("0-5,48-53,96-101,144-149,192-197,240-245,288-293,336-341", &s),
			 0);
	assert_int_equal(cpuset_count(&s), 48);
	assert_int_equal(cpuset_format_list(&s, &l), 0);
	assert_string_equal(l, "0-5,48-53,96-101,144-149,192-197,240-245,288-293,336-341");
	assert_int_equal(cpuset_format_mask(&s, 384, &m), 0);
	/* groups g11..g0: 48-53 is bits 16-21 of g1, 96-101 bits 0-5 of g3, ... */
	assert_string_equal(m, "00000000,003f0000,0000003f,00000000,003f0000,0000003f,00000000,003f0000,"
			       "0000003f,00000000,003f0000,0000003f");
}

/* cpuset_or of a set emptied by cpuset_remove: its words stay allocated,
 * nothing is written past the smaller set. */
static void test_or_emptied(void **state)
{
	_cleanup_cpuset_ struct cpuset a = CPUSET_INIT, b = CPUSET_INIT;

	(void)state;
	assert_int_equal(cpuset_add(&b, 200), 0);
	cpuset_remove(&b, 200);
	assert_int_equal(cpuset_or(&a, &b), 0);
	assert_int_equal(cpuset_count(&a), 0);
	assert_int_equal(cpuset_add(&b, 3), 0);
	assert_int_equal(cpuset_or(&a, &b), 0);
	assert_int_equal(cpuset_count(&a), 1);
	assert_true(cpuset_has(&a, 3));
}

/* Only the CPUs this process may run on stay: every allowed one of the set,
 * none beyond. */
static void test_keep_runnable(void **state)
{
	_cleanup_cpuset_ struct cpuset s = CPUSET_INIT;
	cpu_set_t allowed;
	int first = -1;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
	for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, &allowed))
			first = c;
	assert_true(first >= 0);
	assert_int_equal(cpuset_add(&s, (unsigned)first), 0);
	assert_int_equal(cpuset_add(&s, CPUSET_MAX_CPUS - 1), 0); /* beyond CPU_SETSIZE: never runnable */
	assert_int_equal(cpuset_keep_runnable(&s), 0);
	assert_int_equal(cpuset_count(&s), 1);
	assert_true(cpuset_has(&s, (unsigned)first));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_list_forms),	       cmocka_unit_test(test_list_errors),
	    cmocka_unit_test(test_mask_forms),	       cmocka_unit_test(test_mask_parse),
	    cmocka_unit_test(test_format_mask_errors), cmocka_unit_test(test_ops),
	    cmocka_unit_test(test_large_host),	       cmocka_unit_test(test_keep_runnable),
	    cmocka_unit_test(test_or_emptied),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
