/* irqheat.c: the interrupt heat map (see irqheat.h).
 *
 * Owns: the colour scale and the map's geometry. Must never: write text
 * unescaped (html.h). */
#define _GNU_SOURCE
#include "irqheat.h"

#include <inttypes.h>

#include "base/html.h"
#include "os/interrupts.h"
#include "os/irqaffinity.h"

#define PER_ROW	 32 /* CPUs a row */
#define CELL	 18
#define PITCH	 20 /* a cell and its gap */
#define ROW_H	 27 /* a row of cells and the NUMA mark under it */
#define LABEL_W	 70 /* "cpu 224-255" */
#define LOCAL_MK "#1b9e3e"
#define CPU0_MK	 "#e07000"

/* Blues of increasing depth: a share's class reads the same in every map
 * of every report. */
const struct irqheat_class irqheat_classes[] = {
    {0, "#ffffff", "none"},	     {2, "#deebf7", "under 2%"}, {5, "#c6dbef", "2-5%"},
    {10, "#9ecae1", "5-10%"},	     {25, "#4292c6", "10-25%"},	 {50, "#2171b5", "25-50%"},
    {1e9, "#08306b", "50% or more"},
};
const size_t irqheat_n_classes = ARRAY_SIZE(irqheat_classes);

static int grow(struct irqheat *hm, unsigned ncpus)
{
	uint64_t *c;

	if (ncpus <= hm->ncpus)
		return 0;
	c = reallocarray(hm->counts, ncpus, sizeof(*c));
	if (!c)
		return -ENOMEM;
	memset(c + hm->ncpus, 0, (ncpus - hm->ncpus) * sizeof(*c));
	hm->counts = c;
	hm->ncpus = ncpus;
	return 0;
}

/* A completion vector of one of the ports; of any device when they are
 * unknown. */
static bool counted(const char *name, const struct irqheat_port *ports, size_t n_ports)
{
	enum irq_kind kind;
	int queue;

	if (n_ports == 0)
		return irq_classify(name, NULL, NULL, &kind, &queue) && kind == IRQ_KIND_COMPLETION;
	for (size_t i = 0; i < n_ports; i++)
		if (irq_name_is_device(name, ports[i].ifname, ports[i].pci, &kind, &queue) &&
		    kind == IRQ_KIND_COMPLETION)
			return true;
	return false;
}

int irqheat_add(struct irqheat *hm, const char *before, const char *after, const struct irqheat_port *ports,
		size_t n_ports)
{
	_cleanup_interrupts_ struct interrupts *b = NULL, *a = NULL;
	int r;

	if (!before || !after)
		return -EINVAL;
	r = interrupts_parse(before, &b, NULL);
	if (r >= 0)
		r = interrupts_parse(after, &a, NULL);
	if (r >= 0)
		r = grow(hm, a->max_cpu + 1);
	if (r < 0)
		return r;
	for (size_t k = 0; k < a->nrows; k++) {
		const struct interrupts_row *ra = &a->rows[k], *rb;

		if (!counted(ra->name, ports, n_ports))
			continue;
		rb = interrupts_find(b, ra->irq);
		for (unsigned c = 0; c < a->ncpus && c < ra->ncounts; c++) {
			uint64_t now = ra->counts[c], then = rb ? interrupts_count_on(b, rb, a->cpus[c]) : 0;

			/* a counter that went down (a reset, a renumbered IRQ) adds nothing */
			if (now > then) {
				hm->counts[a->cpus[c]] += now - then;
				hm->total += now - then;
			}
		}
	}
	hm->runs++;
	return 0;
}

int irqheat_set_local(struct irqheat *hm, const char *cpulist)
{
	struct cpuset s = CPUSET_INIT;
	int r = cpuset_parse_list(cpulist, &s);

	if (r < 0)
		return r;
	cpuset_done(&hm->local);
	hm->local = s;
	hm->has_local = true;
	return 0;
}

void irqheat_done(struct irqheat *hm)
{
	free(hm->counts);
	cpuset_done(&hm->local);
	*hm = (struct irqheat){0};
}

size_t irqheat_class_of(const struct irqheat *hm, unsigned cpu)
{
	double share;

	if (cpu >= hm->ncpus || hm->counts[cpu] == 0 || hm->total == 0)
		return 0;
	share = 100.0 * (double)hm->counts[cpu] / (double)hm->total;
	for (size_t i = 1; i < irqheat_n_classes; i++)
		if (share < irqheat_classes[i].below)
			return i;
	return irqheat_n_classes - 1;
}

static void cell(FILE *f, const struct irqheat *hm, unsigned cpu, int x, int y)
{
	bool local = hm->has_local && cpuset_has(&hm->local, cpu);

	fprintf(f,
		"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"%s\" "
		"stroke-width=\"%s\">",
		x, y, CELL, CELL, irqheat_classes[irqheat_class_of(hm, cpu)].fill,
		cpu == 0 ? CPU0_MK : "#bbb", cpu == 0 ? "2.5" : "1");
	fprintf(f, "<title>cpu%u: %" PRIu64 " interrupts", cpu, hm->counts[cpu]);
	if (hm->total)
		fprintf(f, " (%.1f%%)", 100.0 * (double)hm->counts[cpu] / (double)hm->total);
	fprintf(f, "%s</title></rect>\n", local ? ", NUMA-local to the NIC" : "");
	if (local)
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"3\" fill=\"%s\"/>\n", x,
			y + CELL + 2, CELL, LOCAL_MK);
}

void irqheat_draw(FILE *f, const struct irqheat *hm, const char *label)
{
	unsigned rows = (hm->ncpus + PER_ROW - 1) / PER_ROW, per = hm->ncpus < PER_ROW ? hm->ncpus : PER_ROW;

	html_svg_open(f, LABEL_W + (int)per * PITCH + 2, (int)rows * ROW_H + 4, label, false);
	for (unsigned row = 0; row < rows; row++) {
		unsigned first = row * PER_ROW, last = first + per - 1;
		int y = (int)row * ROW_H + 3;

		if (last >= hm->ncpus)
			last = hm->ncpus - 1;
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"axis\">cpu %u-%u</text>\n",
			LABEL_W - 6, y + 13, first, last);
		for (unsigned cpu = first; cpu <= last; cpu++)
			cell(f, hm, cpu, LABEL_W + (int)(cpu - first) * PITCH, y);
	}
	html_svg_close(f);
}

void irqheat_legend(FILE *f, const char *local_note)
{
	int x = 4;

	html_svg_open(f, 760, 66, "legend of the interrupt maps", false);
	fputs("<text x=\"4\" y=\"13\" class=\"note\">Each CPU is coloured by its share of all the "
	      "completion interrupts of the ports during the runs:</text>\n",
	      f);
	for (size_t i = 0; i < irqheat_n_classes; i++) {
		fprintf(f,
			"<rect x=\"%d\" y=\"21\" width=\"14\" height=\"14\" fill=\"%s\" stroke=\"#bbb\"/>\n"
			"<text x=\"%d\" y=\"32\" class=\"note\">%s</text>\n",
			x, irqheat_classes[i].fill, x + 18, irqheat_classes[i].label);
		x += 18 + (int)strlen(irqheat_classes[i].label) * 8 + 14;
	}
	fprintf(f,
		"<rect x=\"4\" y=\"46\" width=\"14\" height=\"14\" fill=\"#fff\" stroke=\"%s\" "
		"stroke-width=\"2.5\"/>\n<text x=\"24\" y=\"57\" class=\"note\">CPU0</text>\n",
		CPU0_MK);
	if (local_note) {
		fprintf(f,
			"<rect x=\"80\" y=\"55\" width=\"14\" height=\"3\" fill=\"%s\"/>\n"
			"<text x=\"100\" y=\"57\" class=\"note\">NUMA-local to the NIC: ",
			LOCAL_MK);
		html_text(f, local_note);
		fputs("</text>\n", f);
	}
	html_svg_close(f);
}
