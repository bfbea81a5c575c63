/* version.c: driver and firmware version comparison (see version.h).
 *
 * Owns: parsing version strings into numeric segments. Must never: touch
 * the host or log. */
#include "version.h"

#include <ctype.h>

static bool is_separator(char c)
{
	return c == '.' || c == '-' || c == '_';
}

int version_parse(const char *s, uint64_t segments[static VERSION_MAX_SEGMENTS])
{
	int n = 0;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	for (;;) {
		uint64_t v = 0;

		if (n >= VERSION_MAX_SEGMENTS)
			return -EINVAL;
		for (; isdigit((unsigned char)*s); s++) {
			unsigned d = (unsigned)(*s - '0');
			if (v > (UINT64_MAX - d) / 10)
				return -EINVAL;
			v = v * 10 + d;
		}
		segments[n++] = v;
		if (*s == '\0')
			return n;
		/* Firmware: "16.29.1030 (MT_0000000080)". */
		if (*s == ' ') {
			size_t len = strlen(s);
			if (len >= 3 && s[1] == '(' && s[len - 1] == ')' && !strchr(s + 2, '(') &&
			    strchr(s + 2, ')') == s + len - 1)
				return n;
			return -EINVAL;
		}
		if (!is_separator(*s))
			return -EINVAL;
		s++;
		if (isdigit((unsigned char)*s))
			continue;
		/* A tag like "-generic" or "-rc1" ends the comparable part. */
		if (!isalpha((unsigned char)*s))
			return -EINVAL;
		for (; *s; s++)
			if (!isalnum((unsigned char)*s) && !is_separator(*s) && *s != '+' && *s != '~')
				return -EINVAL;
		return n;
	}
}

bool version_valid(const char *s)
{
	uint64_t seg[VERSION_MAX_SEGMENTS];

	return version_parse(s, seg) > 0;
}

int version_compare(const char *a, const char *b, int *ret_cmp)
{
	uint64_t sa[VERSION_MAX_SEGMENTS], sb[VERSION_MAX_SEGMENTS];
	int na, nb;

	na = version_parse(a, sa);
	if (na < 0)
		return na;
	nb = version_parse(b, sb);
	if (nb < 0)
		return nb;
	for (int i = 0; i < na || i < nb; i++) {
		uint64_t x = i < na ? sa[i] : 0, y = i < nb ? sb[i] : 0;
		if (x != y) {
			*ret_cmp = x < y ? -1 : 1;
			return 0;
		}
	}
	*ret_cmp = 0;
	return 0;
}

bool version_same(const char *a, const char *b)
{
	int cmp;

	if (version_compare(a, b, &cmp) >= 0)
		return cmp == 0;
	return streq(a, b);
}
