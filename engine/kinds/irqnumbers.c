/* kinds/irqnumbers.c: IRQ number lists (see irqnumbers.h). */
#include "irqnumbers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/util.h"

#define IRQ_LIST_NONE "-"

size_t irq_numbers_normalize(unsigned *v, size_t n)
{
	size_t k = 0;

	if (n < 2)
		return n; /* and no qsort(NULL, 0): its pointer must not be NULL */
	qsort(v, n, sizeof(*v), cmp_unsigned);
	for (size_t i = 0; i < n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

/* "99,109-123" (v sorted, unique); "-" when empty. */
int irq_numbers_format(const unsigned *v, size_t n, char **ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (n == 0) {
		*ret = strdup(IRQ_LIST_NONE);
		return *ret ? 0 : -ENOMEM;
	}
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		if (j == i)
			fprintf(f, "%s%u", i ? "," : "", v[i]);
		else
			fprintf(f, "%s%u-%u", i ? "," : "", v[i], v[j]);
		i = j + 1;
	}
	if (fclose(f) != 0 || !buf) {
		free(buf);
		return -ENOMEM;
	}
	*ret = buf;
	return 0;
}

/* The list irq_numbers_format writes, back to sorted numbers. */
int irq_numbers_parse(const char *s, unsigned **ret, size_t *ret_n)
{
	_cleanup_free_ char *copy = strdup(streq(s, IRQ_LIST_NONE) ? "" : s);
	_cleanup_free_ unsigned *v = NULL;
	char *save = NULL;
	size_t n = 0;

	if (!copy)
		return -ENOMEM;
	for (char *q = strtok_r(copy, ",", &save); q; q = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(q, '-');
		uint32_t lo, hi;
		unsigned *t;

		if (dash)
			*dash = '\0';
		if (safe_atou32(q, &lo) < 0 || safe_atou32(dash ? dash + 1 : q, &hi) < 0 || hi < lo ||
		    hi - lo >= 65536)
			return -EINVAL;
		t = realloc(v, (n + (hi - lo) + 1) * sizeof(*v));
		if (!t)
			return -ENOMEM;
		v = t;
		for (uint32_t i = 0; i <= hi - lo; i++)
			v[n++] = lo + i;
	}
	*ret_n = irq_numbers_normalize(v, n);
	*ret = TAKE_PTR(v);
	return 0;
}
