/* interrupts.c: the /proc/interrupts parser (see interrupts.h).
 *
 * Owns: turning the table's text into rows. The header names the columns
 * (CPU<n> per online CPU); a numeric row has exactly one count per column,
 * then the chip, the hwirq ("1-edge") and the handler name(s); other rows
 * (NMI, LOC, ERR, ...) may have fewer counts and a description. Must never:
 * read anything but the text given (interrupts_read() goes through the
 * sysroot), trust a column position, or crash on malformed input. */
#include "interrupts.h"

#include <ctype.h>

#include "cpuset.h"
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

static int parse_row(const char *line, const char *end, const struct interrupts *t,
		     struct interrupts_row *row)
{
	const char *p = skip_space(line), *colon, *tok, *after;
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
	row->counts = calloc(t->ncpus, sizeof(uint64_t));
	if (!row->counts)
		return -ENOMEM;
	p = colon + 1;
	while (row->ncounts < t->ncpus) {
		uint64_t v = 0;

		after = next_token(p, end, &tok, &len);
		if (!token_is_number(tok, len))
			break;
		/* Inline decimal conversion: this loop runs once per IRQ and CPU
		 * (130,000 times on a 256-CPU host with 8 ports). */
		for (size_t i = 0; i < len; i++) {
			unsigned d = (unsigned)(tok[i] - '0');
			if (v > (UINT64_MAX - d) / 10)
				return -EINVAL;
			v = v * 10 + d;
		}
		row->counts[row->ncounts++] = v;
		p = after;
	}
	if (row->numeric) {
		/* Every online CPU has a column: fewer counts is a truncated line. */
		if (row->ncounts != t->ncpus)
			return -EINVAL;
		return parse_tail(p, end, row);
	}
	p = skip_space(p);
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	return dup_range(p, (size_t)(end - p), &row->name);
}

static int push_row(struct interrupts_row **v, size_t *n, struct interrupts_row *row)
{
	struct interrupts_row *nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[(*n)++] = *row;
	return 0;
}

int interrupts_parse(const char *text, struct interrupts **ret, unsigned *ret_line)
{
	_cleanup_interrupts_ struct interrupts *t = NULL;
	const char *p = text;
	unsigned lineno = 0;
	int r;

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	while (*p) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		struct interrupts_row row = {0};

		lineno++;
		if (lineno == 1) {
			r = parse_header(p, end, t);
		} else if (*skip_space(p) == '\0' || skip_space(p) >= end) {
			r = 0; /* blank line */
			goto next;
		} else {
			r = parse_row(p, end, t, &row);
			if (r >= 0) {
				if (row.numeric && interrupts_find(t, row.irq))
					r = -EINVAL; /* the same IRQ twice */
				else if (row.numeric)
					r = push_row(&t->rows, &t->nrows, &row);
				else
					r = push_row(&t->other, &t->nother, &row);
			}
			if (r < 0)
				row_done(&row);
		}
		if (r < 0) {
			if (ret_line)
				*ret_line = lineno;
			return r;
		}
	next:
		if (!nl)
			break;
		p = nl + 1;
	}
	if (lineno == 0) {
		if (ret_line)
			*ret_line = 1;
		return -EINVAL;
	}
	*ret = TAKE_PTR(t);
	return 0;
}

int interrupts_read(struct interrupts **ret, unsigned *ret_line)
{
	_cleanup_free_ char *text = NULL;
	int r;

	r = sysroot_read_all("/proc/interrupts", &text, NULL);
	if (r < 0)
		return r;
	return interrupts_parse(text, ret, ret_line);
}

const struct interrupts_row *interrupts_find(const struct interrupts *t, unsigned irq)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (t->rows[i].irq == irq)
			return &t->rows[i];
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
