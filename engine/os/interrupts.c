/* interrupts.c: the /proc/interrupts parser (see interrupts.h).
 *
 * Owns: turning the table's text into rows, given whole or read from the
 * file in pieces, line by line. The header names the columns (CPU<n> per
 * online CPU); a numeric row has exactly one count per column, then the
 * chip, the hwirq ("1-edge") and the handler name(s); other rows (NMI,
 * LOC, ERR, ...) may have fewer counts and a description. Must never: read
 * anything but the text given (interrupts_read() goes through the
 * sysroot), trust a column position, or crash on malformed input. */
#include "interrupts.h"

#include <ctype.h>

#include "base/cpuset.h"
#include "sysroot.h"

static void row_done(struct interrupts_row *r)
{
	free(r->label);
	free(r->counts);
	free(r->chip);
	free(r->hwirq);
	free(r->name);
}

void interrupts_free(struct interrupts *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nrows; i++)
		row_done(&t->rows[i]);
	for (size_t i = 0; i < t->nother; i++)
		row_done(&t->other[i]);
	free(t->rows);
	free(t->other);
	free(t->cpus);
	free(t);
}

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Next whitespace-separated token of [p, end): sets *tok and *len, returns the
 * position after it. */
static const char *next_token(const char *p, const char *end, const char **tok, size_t *len)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	*tok = p;
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	*len = (size_t)(p - *tok);
	return p;
}

static bool token_is_number(const char *tok, size_t len)
{
	if (len == 0 || len > 20)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)tok[i]))
			return false;
	return true;
}

static int parse_header(const char *line, const char *end, struct interrupts *t)
{
	const char *p = line, *tok;
	size_t len;

	for (;;) {
		unsigned *nc;
		uint32_t cpu;
		char num[16];

		p = next_token(p, end, &tok, &len);
		if (len == 0)
			break;
		if (len < 4 || len - 3 >= sizeof(num) || strncmp(tok, "CPU", 3) != 0)
			return -EINVAL;
		memcpy(num, tok + 3, len - 3);
		num[len - 3] = '\0';
		if (!token_is_number(num, len - 3) || safe_atou32(num, &cpu) < 0 || cpu >= CPUSET_MAX_CPUS)
			return -EINVAL;
		for (unsigned i = 0; i < t->ncpus; i++)
			if (t->cpus[i] == cpu)
				return -EINVAL; /* duplicate label */
		nc = realloc(t->cpus, (t->ncpus + 1) * sizeof(unsigned));
		if (!nc)
			return -ENOMEM;
		t->cpus = nc;
		t->cpus[t->ncpus++] = cpu;
		if (cpu > t->max_cpu)
			t->max_cpu = cpu;
	}
	return t->ncpus > 0 ? 0 : -EINVAL;
}

static int dup_range(const char *s, size_t len, char **ret)
{
	char *d;

	if (len == 0) {
		*ret = NULL;
		return 0;
	}
	d = strndup(s, len);
	if (!d)
		return -ENOMEM;
	*ret = d;
	return 0;
}

/* "1-edge", "12582912-edge", "0-level": digits, '-', letters. */
static bool token_is_hwirq(const char *tok, size_t len)
{
	size_t i = 0;

	while (i < len && isdigit((unsigned char)tok[i]))
		i++;
	if (i == 0 || i >= len || tok[i] != '-' || i + 1 >= len)
		return false;
	for (i++; i < len; i++)
		if (!isalpha((unsigned char)tok[i]))
			return false;
	return true;
}

static bool token_is_trigger(const char *tok, size_t len)
{
	return (len == 4 && strncmp(tok, "Edge", 4) == 0) || (len == 5 && strncmp(tok, "Level", 5) == 0);
}

/* After the counts of a numeric row: chip, hwirq, name (each optional). */
static int parse_tail(const char *p, const char *end, struct interrupts_row *row)
{
	const char *tok, *after, *tok2;
	size_t len, len2;
	int r;

	after = next_token(p, end, &tok, &len);
	if (len == 0)
		return 0;
	r = dup_range(tok, len, &row->chip);
	if (r < 0)
		return r;
	p = after;
	after = next_token(p, end, &tok, &len);
	if (token_is_hwirq(tok, len)) {
		r = dup_range(tok, len, &row->hwirq);
		if (r < 0)
			return r;
		p = after;
	} else if (token_is_number(tok, len)) {
		/* ARM GIC style: "27 Level" */
		const char *after2 = next_token(after, end, &tok2, &len2);
		if (token_is_trigger(tok2, len2)) {
			r = dup_range(tok, (size_t)(tok2 + len2 - tok), &row->hwirq);
			if (r < 0)
				return r;
			p = after2;
		}
	}
	p = skip_space(p);
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	return dup_range(p, (size_t)(end - p), &row->name);
}

/* How many of the 8 bytes at p are spaces before the first other byte
 * (8: all of them), from one 64-bit load instead of 8 compares. */
static unsigned leading_spaces8(const char *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	w ^= UINT64_C(0x2020202020202020); /* a space becomes a zero byte */
	if (w == 0)
		return 8;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (unsigned)__builtin_ctzll(w) / 8;
#else
	return (unsigned)__builtin_clzll(w) / 8;
#endif
}

static int parse_row(const char *line, const char *end, const struct interrupts *t, unsigned flags,
		     struct interrupts_row *row)
{
	const char *p = skip_space(line), *colon, *tok;
	unsigned ncounts = 0;
	size_t len;
	int r;

	colon = memchr(p, ':', (size_t)(end - p));
	if (!colon || colon == p)
		return -EINVAL;
	for (const char *q = p; q < colon; q++)
		if (isspace((unsigned char)*q))
			return -EINVAL;
	r = dup_range(p, (size_t)(colon - p), &row->label);
	if (r < 0)
		return r;
	row->numeric = token_is_number(p, (size_t)(colon - p));
	if (row->numeric) {
		uint32_t irq;
		if (safe_atou32(row->label, &irq) < 0)
			return -EINVAL;
		row->irq = irq;
	}
	if (!(flags & INTERRUPTS_NO_COUNTS)) {
		row->counts = calloc(t->ncpus, sizeof(uint64_t));
		if (!row->counts)
			return -ENOMEM;
	}
	p = colon + 1;
	/* One pass over each count's bytes: this loop runs once per IRQ and
	 * CPU (130,000 times, 1.5 MB of text on a 256-CPU host with 8 ports).
	 * A count is 1-20 digits up to a blank or the line's end; anything
	 * else ends the counts. */
	while (ncounts < t->ncpus) {
		const char *q = p;
		uint64_t v = 0;

		/* The kernel pads each count to 10 characters: most of the
		 * text is spaces, skipped 8 at a time first. */
		while (end - q >= 8) {
			unsigned k = leading_spaces8(q);

			q += k;
			if (k < 8)
				break;
		}
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		tok = q;
		while (q < end && *q >= '0' && *q <= '9')
			v = v * 10 + (unsigned)(*q++ - '0'); /* may wrap: checked below */
		len = (size_t)(q - tok);
		if (len == 0 || len > 20 || (q < end && *q != ' ' && *q != '\t'))
			break;
		/* Equal lengths compare as numbers: above UINT64_MAX? */
		if (len == 20 && strncmp(tok, "18446744073709551615", 20) > 0)
			return -EINVAL;
		if (row->counts)
			row->counts[ncounts] = v;
		ncounts++;
		p = q;
	}
	if (row->counts)
		row->ncounts = ncounts;
	if (row->numeric) {
		/* Every online CPU has a column: fewer counts is a truncated line. */
		if (ncounts != t->ncpus)
			return -EINVAL;
		return parse_tail(p, end, row);
	}
	p = skip_space(p);
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	return dup_range(p, (size_t)(end - p), &row->name);
}

/* Capacity doubles at each power of two: 600 rows are 10 reallocations. */
static int push_row(struct interrupts_row **v, size_t *n, struct interrupts_row *row)
{
	if (*n == 0 || (*n & (*n - 1)) == 0) {
		struct interrupts_row *nv = realloc(*v, (*n ? *n * 2 : 1) * sizeof(**v));

		if (!nv)
			return -ENOMEM;
		*v = nv;
	}
	(*v)[(*n)++] = *row;
	return 0;
}

/* The table as its lines arrive, from a whole text or from a file read in
 * pieces. */
struct parser {
	struct interrupts *t;
	unsigned flags;
	unsigned lineno;
};

static int parser_init(struct parser *ps, unsigned flags)
{
	*ps = (struct parser){.flags = flags};
	ps->t = calloc(1, sizeof(*ps->t));
	if (!ps->t)
		return -ENOMEM;
	ps->t->ascending = true;
	return 0;
}

/* Line [p, end): end is its '\n', or the NUL after the last line. */
static int parse_line(struct parser *ps, const char *p, const char *end)
{
	struct interrupts *t = ps->t;
	struct interrupts_row row = {0};
	int r;

	ps->lineno++;
	if (ps->lineno == 1)
		return parse_header(p, end, t);
	if (skip_space(p) >= end)
		return 0; /* blank line */
	r = parse_row(p, end, t, ps->flags, &row);
	if (r >= 0 && row.numeric) {
		bool above = t->nrows == 0 || row.irq > t->rows[t->nrows - 1].irq;

		/* Rows so far in increasing order, and this one above them
		 * all, cannot repeat one: no search. */
		if (!(t->ascending && above) && interrupts_find(t, row.irq))
			r = -EINVAL; /* the same IRQ twice */
		else {
			t->ascending = t->ascending && above;
			r = push_row(&t->rows, &t->nrows, &row);
		}
	} else if (r >= 0)
		r = push_row(&t->other, &t->nother, &row);
	if (r < 0)
		row_done(&row);
	return r;
}

/* r: the last line's result. Hands the table over when all went well. */
static int parser_finish(struct parser *ps, int r, struct interrupts **ret, unsigned *ret_line)
{
	if (r >= 0 && ps->lineno == 0) {
		ps->lineno = 1; /* an empty text lacks its header */
		r = -EINVAL;
	}
	if (r < 0) {
		if (ret_line)
			*ret_line = ps->lineno;
		interrupts_free(ps->t);
		return r;
	}
	*ret = ps->t;
	return 0;
}

int interrupts_parse(const char *text, struct interrupts **ret, unsigned *ret_line)
{
	struct parser ps;
	const char *p = text;
	int r;

	r = parser_init(&ps, 0);
	if (r < 0)
		return r;
	while (*p && r >= 0) {
		const char *nl = strchr(p, '\n');

		r = parse_line(&ps, p, nl ? nl : p + strlen(p));
		if (!nl)
			break;
		p = nl + 1;
	}
	return parser_finish(&ps, r, ret, ret_line);
}

/* Read in pieces of this size: a 256-CPU host's table is 1.5 MB, and
 * fresh memory for all of it cost more than parsing it. A line longer
 * than a piece (2,000 CPUs and more) grows the buffer, up to the limit. */
#define READ_CHUNK    (64u << 10)
#define READ_MAX_LINE (4u << 20)

int interrupts_read(unsigned flags, struct interrupts **ret, unsigned *ret_line)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = -1;
	size_t cap = READ_CHUNK, len = 0;
	struct parser ps;
	bool eof = false;
	int r;

	fd = sysroot_open_read("/proc/interrupts");
	if (fd < 0)
		return fd;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	r = parser_init(&ps, flags);
	if (r < 0)
		return r;
	while (r >= 0 && !eof) {
		char *p, *nl, *nul;
		ssize_t n;

		if (cap - len < 2) {
			/* A line longer than the buffer: make room for it. */
			char *nb;

			if (cap >= READ_MAX_LINE) {
				r = -EFBIG;
				break;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				r = -ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		/* As for a whole text: the first NUL ends the table. */
		nul = memchr(buf + len, '\0', (size_t)n);
		if (nul)
			n = nul - (buf + len);
		eof = n == 0 || nul != NULL;
		len += (size_t)n;
		buf[len] = '\0';
		p = buf; /* here: realloc() above may have moved the buffer */
		while (r >= 0 && (nl = memchr(p, '\n', len - (size_t)(p - buf)))) {
			r = parse_line(&ps, p, nl);
			p = nl + 1;
		}
		if (r >= 0 && eof && p < buf + len) {
			r = parse_line(&ps, p, buf + len);
			p = buf + len;
		}
		len -= (size_t)(p - buf);
		memmove(buf, p, len);
	}
	return parser_finish(&ps, r, ret, ret_line);
}

const struct interrupts_row *interrupts_find(const struct interrupts *t, unsigned irq)
{
	size_t lo = 0, hi = t->nrows;

	if (!t->ascending) {
		for (size_t i = 0; i < t->nrows; i++)
			if (t->rows[i].irq == irq)
				return &t->rows[i];
		return NULL;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].irq == irq)
			return &t->rows[mid];
		if (t->rows[mid].irq < irq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

uint64_t interrupts_count_on(const struct interrupts *t, const struct interrupts_row *row, unsigned cpu)
{
	for (unsigned i = 0; i < t->ncpus && i < row->ncounts; i++)
		if (t->cpus[i] == cpu)
			return row->counts[i];
	return 0;
}

uint64_t interrupts_row_total(const struct interrupts_row *row)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < row->ncounts; i++)
		sum += row->counts[i];
	return sum;
}
