/* parse_netperf.c: netperf UDP_STREAM output to numbers (see
 * parse_netperf.h).
 *
 * Owns: the three layouts netperf prints (classic, -P 0, -o CSV), the
 * table of throughput units and the table of netperf's error messages.
 * Must never: allocate what it cannot free on every path, or accept a line
 * it only half understands as a result. */
#define _GNU_SOURCE
#include "parse_netperf.h"

#include <math.h>

/* netperf -f: netlib.c format_units(); K/M/G bytes are 1024-based. */
static const struct {
	const char *name;
	double to_mbps; /* multiply a value in this unit by this */
} units[] = {
    {"10^0bits", 1e-6},
    {"10^3bits", 1e-3},
    {"10^6bits", 1.0},
    {"10^9bits", 1e3},
    {"Bytes", 8e-6},
    {"KBytes", 8.0 * 1024 / 1e6},
    {"MBytes", 8.0 * 1024 * 1024 / 1e6},
    {"GBytes", 8.0 * 1024 * 1024 * 1024 / 1e6},
};

/* What netperf prints when it has no result, and what it means. */
static const struct {
	const char *needle;
	int err;
} failures[] = {
    {"establish control: are you sure there is a netserver", -ECONNREFUSED},
    {"establish_control could not establish the control connection", -ECONNREFUSED},
    {"could not resolve host", -EHOSTUNREACH},
};

int netperf_unit_factor(const char *unit, double *ret)
{
	const char *slash = strchr(unit, '/');
	size_t n = slash ? (size_t)(slash - unit) : strlen(unit);

	if (slash && !streq(slash, "/s") && !streq(slash, "/sec"))
		return -EPROTONOSUPPORT;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (strlen(units[i].name) == n && strncmp(units[i].name, unit, n) == 0) {
			*ret = units[i].to_mbps;
			return 0;
		}
	return -EPROTONOSUPPORT;
}

static bool is_number(const char *s, double *ret)
{
	char *end;
	double v;

	if (!*s)
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (*end || errno == ERANGE)
		return false;
	*ret = v;
	return true;
}

#define MAX_FIELDS 32

/* Split `line` (modified) at any of `seps`; empty fields are kept for
 * commas, skipped for blanks. Returns the count (at most MAX_FIELDS). */
static size_t split(char *line, const char *seps, bool keep_empty, char **f)
{
	size_t n = 0;
	char *p = line;

	if (keep_empty) {
		while (n < MAX_FIELDS) {
			f[n++] = p;
			p = strpbrk(p, seps);
			if (!p)
				break;
			*p++ = '\0';
		}
		for (size_t i = 0; i < n; i++) { /* trim blanks around CSV fields */
			while (*f[i] == ' ' || *f[i] == '\t')
				f[i]++;
			size_t l = strlen(f[i]);
			while (l > 0 && (f[i][l - 1] == ' ' || f[i][l - 1] == '\t' || f[i][l - 1] == '\r'))
				f[i][--l] = '\0';
		}
		return n;
	}
	for (char *save = NULL, *t = strtok_r(line, seps, &save); t && n < MAX_FIELDS;
	     t = strtok_r(NULL, seps, &save))
		f[n++] = t;
	return n;
}

/* Every field numeric? Fills v. */
static bool all_numbers(char **f, size_t n, double *v)
{
	for (size_t i = 0; i < n; i++)
		if (!is_number(f[i], &v[i]))
			return false;
	return n > 0;
}

static bool is_count(double v)
{
	return isfinite(v) && v >= 0 && v <= 1.8e19 && floor(v) == v;
}

/* -o CSV columns: human titles (default) and output selector names. */
enum csv_col {
	CSV_THROUGHPUT,
	CSV_UNITS,
	CSV_SEND_CALLS,
	CSV_RECV_CALLS,
	CSV_ELAPSED,
	CSV_SEND_TPUT,
	CSV_RECV_TPUT,
	CSV_SEND_SOCKET,
	CSV_RECV_SOCKET,
	CSV_SEND_SIZE,
	_CSV_MAX,
};

static const struct {
	const char *title;
	const char *selector;
	enum csv_col col;
} csv_columns[] = {
    {"Throughput", "THROUGHPUT", CSV_THROUGHPUT},
    {"Throughput Units", "THROUGHPUT_UNITS", CSV_UNITS},
    {"Local Send Calls", "LOCAL_SEND_CALLS", CSV_SEND_CALLS},
    {"Remote Recv Calls", "REMOTE_RECV_CALLS", CSV_RECV_CALLS},
    {"Elapsed Time (sec)", "ELAPSED_TIME", CSV_ELAPSED},
    {"Local Send Throughput", "LOCAL_SEND_THROUGHPUT", CSV_SEND_TPUT},
    {"Remote Recv Throughput", "REMOTE_RECV_THROUGHPUT", CSV_RECV_TPUT},
    {"Local Send Socket Size Final", "LSS_SIZE_END", CSV_SEND_SOCKET},
    {"Remote Recv Socket Size Final", "RSR_SIZE_END", CSV_RECV_SOCKET},
    {"Local Send Size", "LOCAL_SEND_SIZE", CSV_SEND_SIZE},
};

static int csv_column(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(csv_columns); i++)
		if (streq(name, csv_columns[i].title) || streq(name, csv_columns[i].selector))
			return (int)csv_columns[i].col;
	return -1;
}

/* header/values: the two CSV rows (modified). */
static int parse_csv(char *header, char *values, struct netperf_report *ret, const char **ret_field)
{
	char *h[MAX_FIELDS], *v[MAX_FIELDS];
	size_t nh = split(header, ",", true, h), nv;
	const char *val[_CSV_MAX] = {0};
	struct netperf_report rep = {0};
	double x, factor = 1.0;

	if (!values)
		return -ENODATA;
	nv = split(values, ",", true, v);
	if (nv != nh)
		return -ENODATA; /* a value row cut short */
	for (size_t i = 0; i < nh; i++) {
		int c = csv_column(h[i]);
		if (c >= 0)
			val[c] = v[i];
	}
	if (!val[CSV_SEND_CALLS] || !val[CSV_RECV_CALLS] || !val[CSV_ELAPSED] ||
	    (!val[CSV_RECV_TPUT] && !val[CSV_THROUGHPUT]))
		return -EBADMSG; /* the -o list lacks what a loss figure needs */
	if (val[CSV_UNITS]) {
		if (netperf_unit_factor(val[CSV_UNITS], &factor) < 0)
			return -EPROTONOSUPPORT;
		snprintf(rep.unit, sizeof(rep.unit), "%s", val[CSV_UNITS]);
	}
	/* No figure netperf prints can be negative: one that is would pass
	 * as a measurement (a "0%" loss, an n/a throughput). */
	for (size_t i = 0; i < ARRAY_SIZE(csv_columns); i++) {
		const char *s = val[csv_columns[i].col];
		if (s && is_number(s, &x) && x < 0) {
			if (ret_field)
				*ret_field = csv_columns[i].title;
			return -EDOM;
		}
	}
	if (!is_number(val[CSV_SEND_CALLS], &x) || !is_count(x))
		return -EBADMSG;
	rep.sent = (uint64_t)x;
	if (!is_number(val[CSV_RECV_CALLS], &x) || !is_count(x))
		return -EBADMSG;
	rep.received = (uint64_t)x;
	if (!is_number(val[CSV_ELAPSED], &rep.elapsed_sec))
		return -EBADMSG;
	if (!is_number(val[CSV_RECV_TPUT] ? val[CSV_RECV_TPUT] : val[CSV_THROUGHPUT], &x))
		return -EBADMSG;
	rep.recv_mbps = x * factor;
	if (val[CSV_SEND_TPUT]) {
		if (!is_number(val[CSV_SEND_TPUT], &x))
			return -EBADMSG;
		rep.send_mbps = x * factor;
	}
	if (val[CSV_SEND_SOCKET] && is_number(val[CSV_SEND_SOCKET], &x) && is_count(x))
		rep.send_socket = (uint64_t)x;
	if (val[CSV_RECV_SOCKET] && is_number(val[CSV_RECV_SOCKET], &x) && is_count(x))
		rep.recv_socket = (uint64_t)x;
	if (val[CSV_SEND_SIZE] && is_number(val[CSV_SEND_SIZE], &x) && is_count(x))
		rep.message_size = (uint64_t)x;
	if (!(rep.elapsed_sec > 0) || !isfinite(rep.elapsed_sec) || !isfinite(rep.recv_mbps) ||
	    !isfinite(rep.send_mbps))
		return -EDOM;
	*ret = rep;
	return 0;
}

/* The columns of the two data lines, for naming a negative one. */
static const char *const sender_fields[] = {
    "sender socket size",   "message size",  "sender elapsed time",
    "sender Okay messages", "sender Errors", "sender throughput",
};
static const char *const receiver_fields[] = {
    "receiver socket size",
    "receiver elapsed time",
    "receiver Okay messages",
    "receiver throughput",
};

/* The first negative value of a data line's known columns, or -1. */
static int negative_field(const double *v, size_t n, size_t known)
{
	for (size_t k = 0; k < n && k < known; k++)
		if (v[k] < 0)
			return (int)k;
	return -1;
}

int parse_netperf(const char *text, struct netperf_report *ret)
{
	return parse_netperf_field(text, ret, NULL);
}

int parse_netperf_field(const char *text, struct netperf_report *ret, const char **ret_field)
{
	_cleanup_strv_free_ char **lines = NULL;
	_cleanup_free_ char *copy = NULL;
	struct netperf_report rep = {0};
	bool have_sender = false, have_receiver = false, partial = false;
	double factor = 1.0;

	if (!text)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(failures); i++)
		if (strstr(text, failures[i].needle))
			return failures[i].err;

	copy = strdup(text);
	if (!copy)
		return -ENOMEM;
	for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (strv_extend(&lines, l) < 0)
			return -ENOMEM;
	for (size_t i = 0; lines && lines[i]; i++) {
		char *f[MAX_FIELDS];
		double v[MAX_FIELDS];
		size_t n;

		/* -o: a row of column names with at least one we know. */
		if (strchr(lines[i], ',')) {
			_cleanup_free_ char *probe = strdup(lines[i]);
			bool known = false;

			if (!probe)
				return -ENOMEM;
			n = split(probe, ",", true, f);
			for (size_t k = 0; k < n && !known; k++)
				known = csv_column(f[k]) >= 0;
			if (known)
				return parse_csv(lines[i], lines[i + 1], ret, ret_field);
			continue;
		}
		n = split(lines[i], " \t\r", false, f);
		if (!have_sender) {
			/* The header's unit column: "10^6bits/sec" */
			for (size_t k = 0; k < n; k++) {
				double fx;
				if (strchr(f[k], '/') && netperf_unit_factor(f[k], &fx) == 0) {
					factor = fx;
					snprintf(rep.unit, sizeof(rep.unit), "%s", f[k]);
				} else if (streq(f[k], "Trans/sec") || streq(f[k], "Trans/s")) {
					return -EPROTONOSUPPORT;
				}
			}
		}
		if (!all_numbers(f, n, v))
			continue;
		if (!have_sender) {
			/* socket, message, elapsed, okay, errors, throughput [, cpu...] */
			int neg = n >= 6 ? negative_field(v, n, ARRAY_SIZE(sender_fields)) : -1;
			if (neg >= 0) {
				if (ret_field)
					*ret_field = sender_fields[neg];
				return -EDOM;
			}
			if (n < 6 || !is_count(v[0]) || !is_count(v[1]) || !is_count(v[3]) ||
			    !is_count(v[4])) {
				partial = true;
				continue;
			}
			rep.send_socket = (uint64_t)v[0];
			rep.message_size = (uint64_t)v[1];
			rep.elapsed_sec = v[2];
			rep.sent = (uint64_t)v[3];
			rep.send_errors = (uint64_t)v[4];
			rep.send_mbps = v[5] * factor;
			have_sender = true;
		} else if (!have_receiver) {
			/* socket, elapsed, okay, throughput [, cpu...] */
			int neg = n >= 4 ? negative_field(v, n, ARRAY_SIZE(receiver_fields)) : -1;
			if (neg >= 0) {
				if (ret_field)
					*ret_field = receiver_fields[neg];
				return -EDOM;
			}
			if (n < 4 || !is_count(v[0]) || !is_count(v[2])) {
				partial = true;
				continue;
			}
			rep.recv_socket = (uint64_t)v[0];
			rep.received = (uint64_t)v[2];
			rep.recv_mbps = v[3] * factor;
			if (v[1] > rep.elapsed_sec)
				rep.elapsed_sec = v[1];
			have_receiver = true;
		}
	}
	if (!have_sender)
		return partial ? -ENODATA : -EBADMSG;
	if (!have_receiver)
		return -ENODATA;
	if (!(rep.elapsed_sec > 0) || !isfinite(rep.elapsed_sec) || !isfinite(rep.send_mbps) ||
	    !isfinite(rep.recv_mbps))
		return -EDOM;
	*ret = rep;
	return 0;
}
