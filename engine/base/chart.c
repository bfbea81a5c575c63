/* chart.c: bar charts as SVG (see chart.h).
 *
 * Owns: the layout constants and the axis' round numbers. Text widths are
 * estimated from the number of characters with a margin (the page has no
 * script to measure them): a label is shortened before it could reach the
 * picture's edge. Must never: write text unescaped (html.h). */
#define _GNU_SOURCE
#include "chart.h"

#include <math.h>

#include "html.h"

#define ROW_H	  34 /* bar, dots, gap */
#define BAR_H	  16
#define DOT_Y	  24 /* the dots' centre below a row's top */
#define VALUE_W	  140
#define LABEL_MIN 80
#define LABEL_MAX 230
#define LABEL_CH  8.0 /* the most a character of .lbl (13px) takes, in user units */
#define AXIS_H	  36  /* ticks, their numbers and the axis' title */
#define LEGEND_H  16

/* The label column: as wide as the longest label needs, within bounds. */
static int label_width(const struct chart *c)
{
	double w = LABEL_MIN;

	for (size_t i = 0; i < c->n_rows; i++)
		w = fmax(w, (double)utf8_width(c->rows[i].label) * LABEL_CH + 14);
	return (int)fmin(w, LABEL_MAX);
}

/* A round step (1, 2, 2.5 or 5 times a power of ten) giving at most 6
 * ticks up to top. */
static double nice_step(double top)
{
	static const double mult[] = {1, 2, 2.5, 5, 10};
	double p = pow(10, floor(log10(top / 6)));

	for (size_t i = 0; i < ARRAY_SIZE(mult); i++)
		if (mult[i] * p * 6 >= top)
			return mult[i] * p;
	return 10 * p;
}

/* The axis' end: c->max, else the next tick at or above every value. */
static double axis_max(const struct chart *c, double *ret_step)
{
	double top = 0;

	if (c->max > 0) {
		*ret_step = nice_step(c->max);
		return c->max;
	}
	for (size_t i = 0; i < c->n_rows; i++) {
		const struct chart_row *r = &c->rows[i];
		if (!isnan(r->value))
			top = fmax(top, r->value);
		for (size_t k = 0; k < r->n_rounds; k++)
			top = fmax(top, r->rounds[k]);
		for (size_t k = 0; k < r->n_excluded; k++)
			top = fmax(top, r->excluded[k]);
	}
	if (!(top > 0))
		top = 1;
	*ret_step = nice_step(top);
	return ceil(top / *ret_step - 1e-9) * *ret_step;
}

int chart_height(const struct chart *c)
{
	return (int)c->n_rows * ROW_H + AXIS_H + (c->legend ? LEGEND_H : 0) + 4;
}

/* The row's label, shortened to fit the label column (the full one as its
 * title). */
static void row_label(FILE *f, const char *label, int lw, int y)
{
	size_t room = (size_t)((lw - 14) / LABEL_CH), len = utf8_width(label);

	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"lbl\">", lw - 8, y + 13);
	if (len <= room) {
		html_text(f, label);
	} else {
		_cleanup_free_ char *cut = utf8_prefix(label, room - 1);
		fputs("<title>", f);
		html_text(f, label);
		fputs("</title>", f);
		html_text(f, cut);
		fputs("\xe2\x80\xa6", f); /* … */
	}
	fputs("</text>\n", f);
}

/* "4331.91 Mbps" but "2.50%". */
static const char *unit_gap(const struct chart *c)
{
	return c->unit[0] == '%' ? "" : " ";
}

static void row_marks(FILE *f, const struct chart *c, const struct chart_row *r, double x0, double pw,
		      double top, int y)
{
	for (size_t k = 0; c->dots && k < r->n_rounds; k++)
		fprintf(f,
			"<circle cx=\"%.1f\" cy=\"%d\" r=\"3.5\" fill=\"#222\" fill-opacity=\"0.7\">"
			"<title>round: %.*f %s</title></circle>\n",
			x0 + pw * fmin(r->rounds[k], top) / top, y + DOT_Y, c->decimals, r->rounds[k],
			c->unit);
	for (size_t k = 0; k < r->n_excluded; k++) {
		double x = x0 + pw * fmin(r->excluded[k], top) / top;
		fprintf(f,
			"<path d=\"M%.1f %d l7 7 m0 -7 l-7 7\" stroke=\"#b00020\" stroke-width=\"2\">"
			"<title>not counted: %.*f%s%s</title></path>\n",
			x - 3.5, y + DOT_Y - 4, c->decimals, r->excluded[k], unit_gap(c), c->unit);
	}
}

static void row_value(FILE *f, const struct chart *c, const struct chart_row *r, int y)
{
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"val\">", CHART_WIDTH - 4, y + 13);
	if (!isnan(r->value))
		fprintf(f, "%.*f%s%s", c->decimals, r->value, unit_gap(c), c->unit);
	fputs("</text>\n", f);
	if (!c->dots || (!r->n_rounds && !r->n_excluded_all))
		return;
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"note\">%zu round%s", CHART_WIDTH - 4,
		y + DOT_Y + 4, r->n_rounds, r->n_rounds == 1 ? "" : "s");
	if (r->n_excluded_all)
		fprintf(f, ", %zu not counted", r->n_excluded_all);
	fputs("</text>\n", f);
}

void chart_draw(FILE *f, const struct chart *c, int y0)
{
	int lw = label_width(c), ybase = y0 + (int)c->n_rows * ROW_H;
	double x0 = lw, pw = CHART_WIDTH - VALUE_W - lw - 10, step, top = axis_max(c, &step);

	/* the grid and the axis, under the bars */
	for (double t = 0; t <= top + step / 2; t += step) {
		double x = x0 + pw * t / top;
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>\n"
			"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" class=\"axis\">%g</text>\n",
			x, y0, x, ybase + 4, t == 0 ? "#888" : "#e4e4e4", x, ybase + 16, t);
	}
	fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\"/>\n", x0, ybase,
		x0 + pw, ybase);
	fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" class=\"axis\">", x0 + pw / 2,
		ybase + 31);
	html_text(f, c->axis);
	fputs("</text>\n", f);
	if (c->legend) {
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" class=\"note\">", x0 + pw / 2,
			ybase + AXIS_H + 11);
		html_text(f, c->legend);
		fputs("</text>\n", f);
	}
	for (size_t i = 0; i < c->n_rows; i++) {
		const struct chart_row *r = &c->rows[i];
		int y = y0 + (int)i * ROW_H + 4;

		row_label(f, r->label, lw, y);
		if (isnan(r->value)) {
			fprintf(f, "<text x=\"%.1f\" y=\"%d\" class=\"note\">", x0 + 6, y + 13);
			html_text(f, r->note ? r->note : "not measured");
			fputs("</text>\n", f);
		} else
			fprintf(
			    f,
			    "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%.*f"
			    "%s%s</title></rect>\n",
			    x0, y, fmax(1, pw * fmin(r->value, top) / top), BAR_H, c->color, c->decimals,
			    r->value, unit_gap(c), c->unit);
		row_marks(f, c, r, x0, pw, top, y);
		row_value(f, c, r, y);
	}
}
