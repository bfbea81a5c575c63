/* fuzz_cpuset.c: the CPU list and mask parsers (engine/base/cpuset.h).
 *
 * The first byte picks the parser (list or mask), the rest is the text.
 * Contract checked: only -EINVAL/-ERANGE/-ENOMEM fail; every parsed set
 * prints as a list and a mask that parse back to the same set. */
#include <errno.h>

#include "base/cpuset.h"
#include "fuzz.h"

static void check_roundtrip(const struct cpuset *set)
{
	_cleanup_cpuset_ struct cpuset back = CPUSET_INIT, back_mask = CPUSET_INIT;
	_cleanup_free_ char *list = NULL, *mask = NULL;
	int last = cpuset_last(set);

	fuzz_check(last < CPUSET_MAX_CPUS);
	fuzz_check(cpuset_format_list(set, &list) == 0);
	fuzz_check(cpuset_parse_list(list, &back) == 0);
	fuzz_check(cpuset_equal(set, &back));
	fuzz_check(cpuset_count(set) == cpuset_count(&back));

	/* The narrowest mask, and a host one CPU too small for the set. */
	fuzz_check(cpuset_format_mask(set, 0, &mask) == 0);
	if (last >= 0) {
		fuzz_check(cpuset_parse_mask(mask, &back_mask) == 0);
		fuzz_check(cpuset_equal(set, &back_mask));
	}
	if (last > 0) { /* ncpus 0 means "wide enough", so only from CPU 1 on */
		_cleanup_free_ char *small = NULL;
		fuzz_check(cpuset_format_mask(set, (unsigned)last, &small) == -ERANGE);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int list_errors[] = {EINVAL, ERANGE, ENOMEM, 0};
	_cleanup_cpuset_ struct cpuset set = CPUSET_INIT;
	_cleanup_free_ char *text = NULL;
	int r;

	if (size < 1)
		return 0;
	text = fuzz_strndup(data + 1, size - 1);
	if (data[0] & 1)
		r = cpuset_parse_mask(text, &set);
	else
		r = cpuset_parse_list(text, &set);
	if (r < 0) {
		fuzz_check(fuzz_errno_in(r, list_errors));
		fuzz_check(set.bits == NULL); /* ret untouched on failure */
		return 0;
	}
	fuzz_check(r == 0);
	check_roundtrip(&set);
	return 0;
}
