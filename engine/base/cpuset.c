/* cpuset.c: CPU sets as growable bitmaps, parsed from and printed to the
 * kernel's list ("0-5,48-53") and mask ("00000000,003f0000") forms.
 *
 * Owns: the bitmap and both text forms, for any CPU number below
 * CPUSET_MAX_CPUS. Must never: touch the host (reading this process's own
 * CPU affinity aside), log, or guess: input that is not exactly one of the
 * kernel's forms is rejected with -EINVAL. */
#define _GNU_SOURCE
#include "cpuset.h"

#include <ctype.h>
#include <sched.h>

#define WORD_BITS 64u

void cpuset_done(struct cpuset *s)
{
	free(s->bits);
	s->bits = NULL;
	s->nwords = 0;
}

static int cpuset_grow(struct cpuset *s, unsigned cpu)
{
	unsigned need = cpu / WORD_BITS + 1;
	uint64_t *nb;

	if (cpu >= CPUSET_MAX_CPUS)
		return -ERANGE;
	if (need <= s->nwords)
		return 0;
	nb = realloc(s->bits, need * sizeof(uint64_t));
	if (!nb)
		return -ENOMEM;
	memset(nb + s->nwords, 0, (need - s->nwords) * sizeof(uint64_t));
	s->bits = nb;
	s->nwords = need;
	return 0;
}

int cpuset_add(struct cpuset *s, unsigned cpu)
{
	int r = cpuset_grow(s, cpu);

	if (r < 0)
		return r;
	s->bits[cpu / WORD_BITS] |= UINT64_C(1) << (cpu % WORD_BITS);
	return 0;
}

void cpuset_remove(struct cpuset *s, unsigned cpu)
{
	if (cpu / WORD_BITS < s->nwords)
		s->bits[cpu / WORD_BITS] &= ~(UINT64_C(1) << (cpu % WORD_BITS));
}

bool cpuset_has(const struct cpuset *s, unsigned cpu)
{
	if (cpu / WORD_BITS >= s->nwords)
		return false;
	return (s->bits[cpu / WORD_BITS] >> (cpu % WORD_BITS)) & 1;
}

unsigned cpuset_count(const struct cpuset *s)
{
	unsigned n = 0;

	for (unsigned i = 0; i < s->nwords; i++)
		n += (unsigned)__builtin_popcountll(s->bits[i]);
	return n;
}

static uint64_t word_at(const struct cpuset *s, unsigned i)
{
	return i < s->nwords ? s->bits[i] : 0;
}

bool cpuset_equal(const struct cpuset *a, const struct cpuset *b)
{
	unsigned n = a->nwords > b->nwords ? a->nwords : b->nwords;

	for (unsigned i = 0; i < n; i++)
		if (word_at(a, i) != word_at(b, i))
			return false;
	return true;
}

int cpuset_next(const struct cpuset *s, int after)
{
	unsigned cpu = (unsigned)(after + 1);

	if (after < -1)
		cpu = 0;
	for (unsigned i = cpu / WORD_BITS; i < s->nwords; i++) {
		uint64_t w = s->bits[i];

		if (i == cpu / WORD_BITS)
			w &= ~UINT64_C(0) << (cpu % WORD_BITS);
		if (w)
			return (int)(i * WORD_BITS + (unsigned)__builtin_ctzll(w));
	}
	return -1;
}

int cpuset_copy(const struct cpuset *s, struct cpuset *ret)
{
	uint64_t *nb = NULL;

	if (s->nwords > 0) {
		nb = malloc(s->nwords * sizeof(uint64_t));
		if (!nb)
			return -ENOMEM;
		memcpy(nb, s->bits, s->nwords * sizeof(uint64_t));
	}
	cpuset_done(ret);
	ret->bits = nb;
	ret->nwords = s->nwords;
	return 0;
}

void cpuset_clear(struct cpuset *s)
{
	if (s->nwords)
		memset(s->bits, 0, s->nwords * sizeof(uint64_t));
}

int cpuset_or(struct cpuset *a, const struct cpuset *b)
{
	int last = -1;
	int r;

	for (int c = cpuset_next(b, -1); c >= 0; c = cpuset_next(b, c))
		last = c;
	if (last >= 0) {
		r = cpuset_grow(a, (unsigned)last);
		if (r < 0)
			return r;
	}
	/* b's words past a's are empty (a now covers b's last CPU); b may
	 * have more words than its CPUs need (after cpuset_remove) */
	for (unsigned i = 0; i < b->nwords && i < a->nwords; i++)
		a->bits[i] |= b->bits[i];
	return 0;
}

void cpuset_and(struct cpuset *a, const struct cpuset *b)
{
	for (unsigned i = 0; i < a->nwords; i++)
		a->bits[i] &= word_at(b, i);
}

void cpuset_andnot(struct cpuset *a, const struct cpuset *b)
{
	for (unsigned i = 0; i < a->nwords; i++)
		a->bits[i] &= ~word_at(b, i);
}

int cpuset_last(const struct cpuset *s)
{
	for (unsigned i = s->nwords; i > 0; i--)
		if (s->bits[i - 1])
			return (int)((i - 1) * WORD_BITS + 63u - (unsigned)__builtin_clzll(s->bits[i - 1]));
	return -1;
}

/* Decimal CPU number; leaves *p after it. */
static int parse_cpu(const char **p, unsigned *ret)
{
	const char *s = *p;
	unsigned long v = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	while (isdigit((unsigned char)*s)) {
		v = v * 10 + (unsigned long)(*s - '0');
		if (v >= CPUSET_MAX_CPUS)
			return -ERANGE;
		s++;
	}
	*p = s;
	*ret = (unsigned)v;
	return 0;
}

/* Everything after the data must be whitespace (sysfs ends with "\n"). */
static bool only_space(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return *p == '\0';
}

int cpuset_parse_list(const char *s, struct cpuset *ret)
{
	_cleanup_cpuset_ struct cpuset set = CPUSET_INIT;
	const char *p = s;
	int r;

	while (*p == ' ' || *p == '\t')
		p++;
	if (only_space(p))
		goto done;
	for (;;) {
		unsigned a, b, stride = 1, group = 0;

		r = parse_cpu(&p, &a);
		if (r < 0)
			return r;
		b = a;
		if (*p == '-') {
			p++;
			r = parse_cpu(&p, &b);
			if (r < 0)
				return r;
			if (b < a)
				return -ERANGE;
			/* The kernel's "0-31:2/8" form: first 2 of every 8. */
			if (*p == ':') {
				p++;
				r = parse_cpu(&p, &group);
				if (r < 0)
					return r;
				if (*p++ != '/')
					return -EINVAL;
				r = parse_cpu(&p, &stride);
				if (r < 0)
					return r;
				if (group == 0 || stride == 0 || group > stride)
					return -EINVAL;
			}
		}
		for (unsigned c = a; c <= b; c++) {
			if (group && (c - a) % stride >= group)
				continue;
			r = cpuset_add(&set, c);
			if (r < 0)
				return r;
		}
		if (*p != ',')
			break;
		p++;
	}
	if (!only_space(p))
		return -EINVAL;
done:
	cpuset_done(ret);
	*ret = set;
	set = (struct cpuset)CPUSET_INIT;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int cpuset_parse_mask(const char *s, struct cpuset *ret)
{
	_cleanup_cpuset_ struct cpuset set = CPUSET_INIT;
	const char *end = s + strlen(s);
	unsigned bit = 0;
	int r;

	/* Walk from the least significant (rightmost) group. */
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	while (s < end && isspace((unsigned char)*s))
		s++;
	if (end == s)
		return -EINVAL;
	for (;;) {
		const char *g = end;
		unsigned ndigits;

		while (g > s && g[-1] != ',')
			g--;
		ndigits = (unsigned)(end - g);
		if (ndigits == 0 || ndigits > 8)
			return -EINVAL;
		for (unsigned i = 0; i < ndigits; i++) {
			int v = hexval(end[-1 - (int)i]);

			if (v < 0)
				return -EINVAL;
			for (unsigned k = 0; k < 4; k++)
				if (v & (1 << k)) {
					r = cpuset_add(&set, bit + i * 4 + k);
					if (r < 0)
						return r;
				}
		}
		bit += 32;
		if (g == s)
			break;
		end = g - 1; /* skip the comma */
		if (end == s)
			return -EINVAL; /* leading comma */
	}
	cpuset_done(ret);
	*ret = set;
	set = (struct cpuset)CPUSET_INIT;
	return 0;
}

int cpuset_format_list(const struct cpuset *s, char **ret)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 16;
	int c = cpuset_next(s, -1);

	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	buf[0] = '\0';
	while (c >= 0) {
		int first = c, last = c;
		char item[32];
		int n;

		while ((c = cpuset_next(s, last)) == last + 1)
			last = c;
		if (first == last)
			n = snprintf(item, sizeof(item), "%s%d", len ? "," : "", first);
		else
			n = snprintf(item, sizeof(item), "%s%d-%d", len ? "," : "", first, last);
		if (len + (size_t)n + 1 > cap) {
			char *nb;

			while (len + (size_t)n + 1 > cap)
				cap *= 2;
			nb = realloc(buf, cap);
			if (!nb)
				return -ENOMEM;
			buf = nb;
		}
		memcpy(buf + len, item, (size_t)n + 1);
		len += (size_t)n;
	}
	*ret = TAKE_PTR(buf);
	return 0;
}

int cpuset_format_mask(const struct cpuset *s, unsigned ncpus, char **ret)
{
	_cleanup_free_ char *buf = NULL;
	int last = cpuset_last(s);
	unsigned ngroups, width;
	size_t len = 0;

	if (ncpus == 0)
		ncpus = last >= 0 ? (unsigned)last + 1 : 1;
	if (ncpus > CPUSET_MAX_CPUS)
		return -ERANGE;
	if (last >= 0 && (unsigned)last >= ncpus)
		return -ERANGE;
	ngroups = (ncpus + 31) / 32;
	buf = malloc(ngroups * 9 + 1);
	if (!buf)
		return -ENOMEM;
	/* As the kernel's %*pb: the top group only as wide as its bits need. */
	width = ncpus % 32 ? (ncpus % 32 + 3) / 4 : 8;
	for (unsigned g = ngroups; g > 0; g--) {
		uint32_t v = 0;

		for (unsigned k = 0; k < 32; k++)
			if (cpuset_has(s, (g - 1) * 32 + k))
				v |= UINT32_C(1) << k;
		len += (size_t)sprintf(buf + len, "%s%0*x", g == ngroups ? "" : ",", (int)width, v);
		width = 8;
	}
	*ret = TAKE_PTR(buf);
	return 0;
}

int cpuset_keep_runnable(struct cpuset *s)
{
	cpu_set_t allowed;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
		return -errno;
	CPUSET_FOREACH(cpu, s)
	if (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed))
		cpuset_remove(s, (unsigned)cpu);
	return 0;
}
