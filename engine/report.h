/* report.h: the report of a campaign (or of some runs) as a page people
 * open on an offline lab host.
 *
 * Owns: report.html, self-contained: inline CSS and SVG, no JavaScript, no
 * external URL or font (verb_campaign.c writes it next to the document
 * and the runs' export bundles). The HTML shows, per
 * group: throughput and loss bars with the min-max spread of the rounds, a
 * per-CPU heat strip of the NIC's completion interrupts (mlx5_comp*, from
 * the runs' before/after /proc/interrupts snapshots), the parameters of
 * its profile, and the exact commands run. Must never: read anything but
 * the document and the history, or write outside the directory. */
#ifndef CX5_REPORT_H
#define CX5_REPORT_H

#include <json-c/json.h>
#include <stdio.h>

struct history;

/* The HTML page of doc (a campaign document: groups, each with rounds
 * naming their runs; runs are read from h for their interrupts and
 * commands; the bundles are linked as runs/run-N/). */
int report_html(struct history *h, struct json_object *doc, char **ret);

/* The pieces every page of cx5prof shares (report_hosts.c too): text
 * escaped for HTML (and XML), and the page's head (doctype, title, the
 * inline style) up to the opening <h1>. */
void report_esc(FILE *f, const char *s);
void report_page_head(FILE *f, const char *title);

#endif
