/* keyread.c: reading a key's value from YAML, with its place (see
 * keyread.h). */
#define _GNU_SOURCE
#include "keyread.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int key_fail_at(struct profile_loader *l, const char *file, unsigned line, unsigned column, const char *fmt,
		...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = profile_vfail_at(l->err, file, line, column, fmt, ap);
	va_end(ap);
	return r;
}

int key_fail(struct profile_loader *l, const struct ynode *at, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = profile_vfail_at(l->err, l->file, at->line, at->column, fmt, ap);
	va_end(ap);
	return r;
}

int key_fail_oom(struct profile_loader *l, const char *file)
{
	key_fail_at(l, file, 0, 0, "out of memory");
	return -ENOMEM;
}

struct profile_mark key_mark(const struct profile_loader *l, const struct ynode *n)
{
	return (struct profile_mark){l->file, n->line, n->column};
}

/* The closest of names (stride bytes apart, NULL name ends) within 2 edits,
 * or a quarter of the candidate's length for long names ("net.core.rmem"),
 * or of which s is a prefix of at least 4 characters. */
const char *key_closest(const char *s, const void *names, size_t stride, size_t n)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX;

	for (size_t i = 0; i < n; i++) {
		const char *t = *(const char *const *)((const char *)names + i * stride);
		size_t d;
		if (!t)
			break;
		d = edit_distance(s, t);
		if (strlen(s) >= 4 && strncmp(s, t, strlen(s)) == 0 && d > 2)
			d = 2; /* "throughput" for "throughput_mbps" */
		if (d < best_d && d < strlen(t) && (d <= 2 || d <= strlen(t) / 4)) {
			best_d = d;
			best = t;
		}
	}
	return best;
}

int key_expect(struct profile_loader *l, const struct ynode *v, const char *path, const char *what)
{
	char buf[64];
	return key_fail(l, v, "%s: expected %s, got %s", path, what, ynode_describe(v, buf, sizeof(buf)));
}

/* Decimal integers only, as YAML 1.1 and 1.2 agree on them: an optional
 * sign and no leading zeros. -ERANGE beyond int64. */
int key_scalar_integer(const struct ynode *v, int64_t *ret)
{
	const char *s = v->value;
	char *end;
	long long x;

	if (v->kind != YNODE_SCALAR || !v->plain)
		return -EINVAL;
	if (*s == '-' || *s == '+')
		s++;
	if (!isdigit((unsigned char)*s) || (s[0] == '0' && s[1] != '\0'))
		return -EINVAL;
	for (const char *c = s; *c; c++)
		if (!isdigit((unsigned char)*c))
			return -EINVAL;
	errno = 0;
	x = strtoll(v->value, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	*ret = x;
	return 0;
}

/* "4194304", 4194304, "4M", 4M. */
int key_scalar_size(const struct ynode *v, int64_t *ret)
{
	uint64_t x;
	int r;

	r = key_scalar_integer(v, ret);
	if (r != -EINVAL)
		return r;
	if (v->kind != YNODE_SCALAR || ynode_scalar_type(v) != YSCALAR_STRING ||
	    !isdigit((unsigned char)v->value[0]))
		return -EINVAL;
	for (size_t i = 0; i + 1 < v->len; i++)
		if (!isdigit((unsigned char)v->value[i]))
			return -EINVAL;
	if (!strchr("0123456789KkMmGg", v->value[v->len - 1]))
		return -EINVAL;
	r = parse_size(v->value, &x);
	if (r < 0)
		return r == -ERANGE ? -ERANGE : -EINVAL;
	if (x > INT64_MAX)
		return -ERANGE;
	*ret = (int64_t)x;
	return 0;
}

/* Walk a mapping's keys: strings, no repeats. */
int key_check_name(struct profile_loader *l, const struct ynode *map, size_t i)
{
	const struct ynode *key = map->items[i];
	char buf[64];

	if (key->kind != YNODE_SCALAR)
		return key_fail(l, key, "mapping keys must be strings, got %s",
				ynode_describe(key, buf, sizeof(buf)));
	for (size_t j = 0; j < i; j += 2)
		if (streq(map->items[j]->value, key->value))
			return key_fail(l, key, "duplicate key %s (first at %u:%u)",
					ynode_quote(key, buf, sizeof(buf)), map->items[j]->line,
					map->items[j]->column);
	return 0;
}

bool key_is_null(const struct ynode *v)
{
	return v->kind == YNODE_SCALAR && ynode_scalar_type(v) == YSCALAR_NULL;
}

/* A switch's value: on | off (true | false too), plain scalars only;
 * path.name in the error. */
int key_on_off(struct profile_loader *l, const struct ynode *v, const char *path, const char *name, bool *ret)
{
	static const struct {
		const char *text;
		bool value;
	} words[] = {{"on", true}, {"off", false}, {"true", true}, {"false", false}};
	char buf[64];

	for (size_t w = 0; w < ARRAY_SIZE(words); w++)
		if (v->kind == YNODE_SCALAR && v->plain && streq(v->value, words[w].text)) {
			*ret = words[w].value;
			return 0;
		}
	return key_fail(l, v, "%s.%s: expected on or off, got %s", path, name,
			ynode_describe(v, buf, sizeof(buf)));
}
