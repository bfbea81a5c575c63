/* softnet.c: /proc/net/softnet_stat (see softnet.h).
 *
 * Owns: the column positions of the kernel's format (net/core/net-procfs.c,
 * softnet_seq_show). Must never: write the caller's text. */
#define _GNU_SOURCE
#include "softnet.h"

#include <ctype.h>

#include "sysroot.h"

enum {
	COL_PROCESSED = 0,
	COL_DROPPED = 1,
	COL_TIME_SQUEEZE = 2,
	COL_RECEIVED_RPS = 9,
	COL_FLOW_LIMIT = 10,
	COL_CPU = 12,
};

static int hex_u32(const char *s, size_t len, uint32_t *ret)
{
	uint32_t v = 0;

	if (len == 0 || len > 8)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		int c = (unsigned char)s[i];

		if (!isxdigit(c))
			return -EINVAL;
		v = v << 4 | (uint32_t)(isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
	}
	*ret = v;
	return 0;
}

/* The columns of one line into col[]; their number, or -EINVAL. */
static int parse_line(const char *s, size_t len, uint32_t col[static SOFTNET_MAX_COLUMNS])
{
	size_t i = 0;
	int n = 0;

	while (i < len) {
		size_t start;

		while (i < len && s[i] == ' ')
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && s[i] != ' ')
			i++;
		if (n == SOFTNET_MAX_COLUMNS || hex_u32(s + start, i - start, &col[n]) < 0)
			return -EINVAL;
		n++;
	}
	return n >= SOFTNET_MIN_COLUMNS ? n : -EINVAL;
}

int softnet_parse(const char *text, struct softnet **ret, unsigned *ret_line)
{
	_cleanup_free_ struct softnet *t = NULL;
	size_t lines = 1, n = 0;
	unsigned lineno = 0;
	int columns = 0;

	for (const char *p = text; *p; p++)
		lines += *p == '\n';
	if (lines > SOFTNET_MAX_CPUS + 1)
		lines = SOFTNET_MAX_CPUS + 1;
	t = calloc(1, sizeof(*t) + lines * sizeof(t->cpu[0]));
	if (!t)
		return -ENOMEM;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		uint32_t col[SOFTNET_MAX_COLUMNS];
		int k;

		lineno++;
		if (len > 0) {
			k = parse_line(p, len, col);
			if (k < 0 || (columns && k != columns) || n == SOFTNET_MAX_CPUS)
				goto bad;
			columns = k;
			t->cpu[n] = (struct softnet_cpu){
			    .cpu = k > COL_CPU ? col[COL_CPU] : (unsigned)n,
			    .processed = col[COL_PROCESSED],
			    .dropped = col[COL_DROPPED],
			    .time_squeeze = col[COL_TIME_SQUEEZE],
			    .received_rps = col[COL_RECEIVED_RPS],
			    .flow_limit = k > COL_FLOW_LIMIT ? col[COL_FLOW_LIMIT] : 0,
			};
			if (t->cpu[n].cpu >= SOFTNET_MAX_CPUS)
				goto bad;
			for (size_t i = 0; i < n; i++)
				if (t->cpu[i].cpu == t->cpu[n].cpu)
					goto bad;
			n++;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	if (n == 0)
		return -ENODATA;
	t->columns = (unsigned)columns;
	t->cpu_known = columns > COL_CPU;
	t->n = n;
	*ret = TAKE_PTR(t);
	return 0;
bad:
	if (ret_line)
		*ret_line = lineno;
	return -EINVAL;
}

int softnet_read(struct softnet **ret)
{
	_cleanup_free_ char *text = NULL;
	int r;

	r = sysroot_read_live_counters("/proc/net/softnet_stat", &text, NULL);
	if (r < 0)
		return r;
	return softnet_parse(text, ret, NULL);
}
