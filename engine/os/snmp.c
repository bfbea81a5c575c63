/* snmp.c: /proc/net/snmp and /proc/net/snmp6 (see snmp.h).
 *
 * Owns: splitting the text into lines and words (in copies: the caller's
 * text is never written). Must never: read a file but through
 * sysroot_read_live_counters. */
#define _GNU_SOURCE
#include "snmp.h"

#include <ctype.h>

#include "sysroot.h"

#define SNMP_MAX_WORDS 1024 /* fields of one protocol line; the kernel prints 30 at most */

void snmp_table_free(struct snmp_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	free(t);
}

static int table_add(struct snmp_table *t, size_t *cap, const char *proto, const char *field, size_t flen,
		     uint64_t value)
{
	char *name;

	if (t->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct snmp_counter *nv = realloc(t->v, ncap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		t->v = nv;
		*cap = ncap;
	}
	name = strprintf("%s%.*s", proto, (int)flen, field);
	if (!name)
		return -ENOMEM;
	t->v[t->n++] = (struct snmp_counter){.name = name, .value = value};
	return 0;
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* A decimal counter: 0 with *ret, 1 for a negative number (a signed
 * field, skipped), -EINVAL for anything else. */
static int parse_value(const char *s, size_t len, uint64_t *ret)
{
	uint64_t v = 0;
	size_t i = 0;

	if (len > 1 && s[0] == '-') {
		for (i = 1; i < len; i++)
			if (!isdigit((unsigned char)s[i]))
				return -EINVAL;
		return 1;
	}
	if (len == 0)
		return -EINVAL;
	for (; i < len; i++) {
		unsigned d;

		if (!isdigit((unsigned char)s[i]))
			return -EINVAL;
		d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*ret = v;
	return 0;
}

struct word {
	const char *s;
	size_t len;
};

/* The blank-separated words of line [s, s + len), at most max. -EINVAL
 * beyond. */
static int split_words(const char *s, size_t len, struct word *w, size_t max, size_t *ret_n)
{
	size_t n = 0, i = 0;

	while (i < len) {
		size_t start;

		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && s[i] != ' ' && s[i] != '\t')
			i++;
		if (n == max)
			return -EINVAL;
		w[n++] = (struct word){s + start, i - start};
	}
	*ret_n = n;
	return 0;
}

/* "Udp:" -> "Udp" (the protocol: letters and digits, then one colon). */
static bool proto_word(const struct word *w)
{
	if (w->len < 2 || w->s[w->len - 1] != ':')
		return false;
	for (size_t i = 0; i + 1 < w->len; i++)
		if (!isalnum((unsigned char)w->s[i]))
			return false;
	return true;
}

static bool name_word(const struct word *w)
{
	for (size_t i = 0; i < w->len; i++)
		if (!is_name_char(w->s[i]))
			return false;
	return w->len > 0;
}

static bool blank_line(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isspace((unsigned char)s[i]))
			return false;
	return true;
}

/* Walk the lines of text: line(s, len, lineno, userdata) for each
 * non-blank one; the first error stops with *ret_line set. */
static int each_line(const char *text, int (*line)(const char *, size_t, unsigned, void *), void *userdata,
		     unsigned *ret_line)
{
	unsigned lineno = 0;

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		int r;

		lineno++;
		if (!blank_line(p, len)) {
			r = line(p, len, lineno, userdata);
			if (r < 0) {
				if (ret_line)
					*ret_line = lineno;
				return r;
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	if (ret_line)
		*ret_line = 0;
	return 0;
}

struct snmp_state {
	struct snmp_table *t;
	size_t cap;
	struct word *header; /* the pending header line's words, NULL when a header is next */
	size_t nheader;
	unsigned header_line;
	struct word *buf; /* SNMP_MAX_WORDS words each: header, values */
	struct word *values;
};

static int snmp_line(const char *s, size_t len, unsigned lineno, void *userdata)
{
	struct snmp_state *st = userdata;
	_cleanup_free_ char *proto = NULL;
	size_t n;
	int r;

	if (!st->header) {
		r = split_words(s, len, st->buf, SNMP_MAX_WORDS, &n);
		if (r < 0 || n == 0 || !proto_word(&st->buf[0]))
			return -EINVAL;
		for (size_t i = 1; i < n; i++)
			if (!name_word(&st->buf[i]))
				return -EINVAL;
		st->header = st->buf;
		st->nheader = n;
		st->header_line = lineno;
		return 0;
	}
	r = split_words(s, len, st->values, SNMP_MAX_WORDS, &n);
	if (r < 0 || n != st->nheader || st->values[0].len != st->header[0].len ||
	    memcmp(st->values[0].s, st->header[0].s, st->header[0].len) != 0)
		return -EINVAL;
	proto = strndup(st->header[0].s, st->header[0].len - 1);
	if (!proto)
		return -ENOMEM;
	for (size_t i = 1; i < n; i++) {
		uint64_t v;

		r = parse_value(st->values[i].s, st->values[i].len, &v);
		if (r < 0)
			return r;
		if (r > 0)
			continue;
		r = table_add(st->t, &st->cap, proto, st->header[i].s, st->header[i].len, v);
		if (r < 0)
			return r;
	}
	st->header = NULL;
	return 0;
}

int snmp_parse(const char *text, struct snmp_table **ret, unsigned *ret_line)
{
	_cleanup_(snmp_table_freep) struct snmp_table *t = calloc(1, sizeof(*t));
	_cleanup_free_ struct word *buf = calloc(2 * SNMP_MAX_WORDS, sizeof(*buf));
	struct snmp_state st = {.t = t, .buf = buf, .values = buf + SNMP_MAX_WORDS};
	int r;

	if (!t || !buf)
		return -ENOMEM;
	r = each_line(text, snmp_line, &st, ret_line);
	if (r < 0)
		return r;
	if (st.header) {
		/* A header whose values never came. */
		if (ret_line)
			*ret_line = st.header_line;
		return -EINVAL;
	}
	*ret = TAKE_PTR(t);
	return 0;
}

struct snmp6_state {
	struct snmp_table *t;
	size_t cap;
};

static int snmp6_line(const char *s, size_t len, unsigned lineno, void *userdata)
{
	struct snmp6_state *st = userdata;
	struct word w[2];
	uint64_t v;
	size_t n;
	int r;

	(void)lineno;
	if (split_words(s, len, w, 2, &n) < 0 || n != 2 || !name_word(&w[0]))
		return -EINVAL;
	r = parse_value(w[1].s, w[1].len, &v);
	if (r != 0)
		return r < 0 ? r : 0;
	return table_add(st->t, &st->cap, "", w[0].s, w[0].len, v);
}

int snmp6_parse(const char *text, struct snmp_table **ret, unsigned *ret_line)
{
	_cleanup_(snmp_table_freep) struct snmp_table *t = calloc(1, sizeof(*t));
	struct snmp6_state st = {.t = t};
	int r;

	if (!t)
		return -ENOMEM;
	r = each_line(text, snmp6_line, &st, ret_line);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(t);
	return 0;
}

int snmp_read(struct snmp_table **ret)
{
	_cleanup_(snmp_table_freep) struct snmp_table *t = NULL, *t6 = NULL;
	_cleanup_free_ char *text = NULL, *text6 = NULL;
	int r;

	r = sysroot_read_live_counters("/proc/net/snmp", &text, NULL);
	if (r < 0)
		return r;
	r = snmp_parse(text, &t, NULL);
	if (r < 0)
		return r;
	/* No IPv6 in this kernel: the IPv4 counters alone. */
	if (sysroot_read_live_counters("/proc/net/snmp6", &text6, NULL) >= 0 &&
	    snmp6_parse(text6, &t6, NULL) >= 0 && t6->n > 0) {
		struct snmp_counter *nv = realloc(t->v, (t->n + t6->n) * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		t->v = nv;
		memcpy(t->v + t->n, t6->v, t6->n * sizeof(*nv));
		t->n += t6->n;
		t6->n = 0;
	}
	*ret = TAKE_PTR(t);
	return 0;
}

bool snmp_get(const struct snmp_table *t, const char *name, uint64_t *ret)
{
	for (size_t i = 0; t && i < t->n; i++)
		if (streq(t->v[i].name, name)) {
			*ret = t->v[i].value;
			return true;
		}
	return false;
}
