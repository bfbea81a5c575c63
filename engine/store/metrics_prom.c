/* metrics_prom.c: render the newest run per interface/profile as
 * Prometheus text exposition format 0.0.4 (node_exporter textfile collector).
 *
 * Owns: the metric table below, label-value escaping, the newest-run
 * selection. Must never: touch the database, stdout or the host. Units are
 * Prometheus base units (bits per second, ratios, seconds), as its naming
 * conventions ask, so dashboards need no per-tool scaling. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "metrics_prom.h"

struct metric {
	const char *name;
	const char *help;
	double (*value)(const struct run_record *r);
};

static double v_timestamp(const struct run_record *r)
{
	return (double)(r->ended_usec ? r->ended_usec : r->started_usec) / 1e6;
}

static double v_id(const struct run_record *r)
{
	return (double)r->id;
}

static double v_recv(const struct run_record *r)
{
	return r->recv_mbps * 1e6;
}

static double v_send(const struct run_record *r)
{
	return r->send_mbps * 1e6;
}

static double v_loss(const struct run_record *r)
{
	return r->loss_pct / 100.0;
}

static double v_lost(const struct run_record *r)
{
	return (double)r->lost;
}

static double v_passed(const struct run_record *r)
{
	return r->passed ? 1 : 0;
}

static const struct metric metrics[] = {
    {"cx5prof_run_timestamp_seconds", "End of the newest cx5prof benchmark run, Unix time.", v_timestamp},
    {"cx5prof_run_id", "History id of the newest run (cx5prof history show ID).", v_id},
    {"cx5prof_run_receive_bits_per_second", "Receiver throughput of the newest run.", v_recv},
    {"cx5prof_run_send_bits_per_second", "Sender throughput of the newest run.", v_send},
    {"cx5prof_run_loss_ratio", "Datagrams lost / sent in the newest run (0..1; NaN: nothing was sent).",
     v_loss},
    {"cx5prof_run_lost_datagrams", "Datagrams sent but not received in the newest run.", v_lost},
    {"cx5prof_run_passed", "1 if every threshold of the newest run held, else 0.", v_passed},
};

/* Label values escape backslash, double quote and newline (exposition format). */
static void put_label_value(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '"')
			fputs("\\\"", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

static bool same_series(const struct run_record *a, const struct run_record *b)
{
	return streq(or_empty(a->ifname), or_empty(b->ifname)) &&
	       streq(or_empty(a->profile), or_empty(b->profile));
}

static int cmp_series(const void *x, const void *y)
{
	const struct run_record *a = *(const struct run_record *const *)x,
				*b = *(const struct run_record *const *)y;
	int c = strcmp(or_empty(a->ifname), or_empty(b->ifname));

	return c ? c : strcmp(or_empty(a->profile), or_empty(b->profile));
}

/* The newest run of each (interface, profile), sorted by those labels. */
static int pick_newest(const struct run_record *runs, size_t n, const struct run_record ***ret, size_t *ret_n)
{
	const struct run_record **v = calloc(n ? n : 1, sizeof(*v));
	size_t k = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t j = 0; j < k && !seen; j++)
			seen = same_series(v[j], &runs[i]);
		if (!seen)
			v[k++] = &runs[i];
	}
	qsort(v, k, sizeof(*v), cmp_series);
	*ret = v;
	*ret_n = k;
	return 0;
}

int metrics_prom_render(const struct run_record *runs, size_t n, char **ret)
{
	_cleanup_free_ const struct run_record **newest = NULL;
	_cleanup_free_ char *buf = NULL;
	size_t k = 0, len = 0;
	FILE *f;
	int r;

	r = pick_newest(runs, n, &newest, &k);
	if (r < 0)
		return r;
	f = open_memstream(&buf, &len);
	if (!f)
		return -errno;
	for (size_t m = 0; m < ARRAY_SIZE(metrics); m++) {
		fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", metrics[m].name, metrics[m].help,
			metrics[m].name);
		for (size_t i = 0; i < k; i++) {
			fprintf(f, "%s{interface=", metrics[m].name);
			put_label_value(f, newest[i]->ifname);
			fputs(",profile=", f);
			put_label_value(f, newest[i]->profile);
			double v = metrics[m].value(newest[i]);

			/* A run that sent nothing has no loss ratio: NaN, never 0. */
			if (isnan(v))
				fprintf(f, "} NaN\n");
			else
				fprintf(f, "} %.15g\n", v);
		}
	}
	if (fclose(f) != 0)
		return -ENOMEM;
	*ret = TAKE_PTR(buf);
	return 0;
}
