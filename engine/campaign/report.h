/* report.h: the report of a campaign (or of some runs) as a page people
 * open on an offline lab host, and its chart as a picture of its own.
 *
 * Owns: report.html, self-contained (inline CSS and SVG, no JavaScript,
 * no external URL or font): a header that places the report (campaign,
 * host, interfaces with NIC model, driver and firmware, kernel, peer and
 * its NIC, start, end and duration, cx5prof version), the verdict, the
 * throughput and loss charts (axes from 0, loss on a fixed 0-100% scale,
 * every round a dot), the results per group (loss changes in percentage
 * points), every round with pass/FAIL per threshold, the drop counters
 * that rose and the reason of every skipped or failed round, the per-CPU
 * heat map of the NIC's completion interrupts, the parameters of every
 * group in the same words, and the exact commands; and report.svg, the
 * throughput and loss chart alone. Must never: read anything but the
 * document and the history, write files (the caller writes the directory),
 * or let a stored string into the page unescaped. */
#ifndef CX5_REPORT_H
#define CX5_REPORT_H

#include <json-c/json.h>

struct history;

/* The HTML page of doc: a campaign document (schemas/campaign.schema.json)
 * or `report RUN`'s (campaign null: a group is one run). Its runs are read
 * from h (interrupts, host facts, commands); the bundles are linked as
 * runs/run-N/. */
int report_html(struct history *h, struct json_object *doc, char **ret);

/* The throughput and loss chart of doc as one SVG file. */
int report_svg(struct json_object *doc, char **ret);

#endif
