/* chart.h: horizontal bar charts as SVG, honest at a glance.
 *
 * Owns: the geometry of a bar chart: one bar per row (a group's median),
 * every round as a dot below its bar (so the spread and the count of
 * rounds show), rounds that do not count as crosses, a labelled axis that
 * starts at 0 and runs to a round number or to a fixed maximum (loss:
 * 0-100%), the values in a column of their own so no text is cut, and the
 * rows' labels shortened with an ellipsis (the full label as the
 * element's title) only when wider than the label column. Must never:
 * scale an axis to anything but 0..max, or draw outside its box. */
#ifndef CX5_CHART_H
#define CX5_CHART_H

#include <stdio.h>

#include "util.h"

#define CHART_WIDTH 760 /* user units of a chart; an 800 px window shows it 1:1 */

struct chart_row {
	const char *label;
	double value;	      /* the bar; NAN: none (note says why) */
	const char *note;     /* instead of a bar: "skipped", "not measured"; or NULL */
	const double *rounds; /* the counted rounds: a dot each */
	size_t n_rounds;
	const double *excluded; /* rounds run and not counted that have a value: a cross each */
	size_t n_excluded;
	size_t n_excluded_all; /* rounds not counted, with or without a value */
};

struct chart {
	const char *axis;   /* the axis' title: "receive throughput (Mbps)" */
	const char *legend; /* one line under it: what a bar, a dot and a cross are; or NULL */
	const char *unit;   /* after each value: "Mbps", "%" */
	int decimals;
	double max;	   /* > 0: the axis runs to max (a fixed scale); 0: to a round number */
	const char *color; /* the bars' fill, "#3b7dd8" */
	bool dots;	   /* draw the rounds (false: one run a row, the bar is the run) */
	const struct chart_row *rows;
	size_t n_rows;
};

/* The height chart_draw() takes. */
int chart_height(const struct chart *c);
/* Draw c at y0 inside an SVG picture CHART_WIDTH wide (html_svg_open). */
void chart_draw(FILE *f, const struct chart *c, int y0);

#endif
