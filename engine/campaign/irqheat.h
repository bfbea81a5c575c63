/* irqheat.h: the per-CPU heat map of a NIC's completion interrupts.
 *
 * Owns: summing, over some runs, the rise of the NIC's completion
 * interrupts (the rows of /proc/interrupts that irq_classify() calls the
 * completion vectors of the run's ports: mlx5_comp<N>@pci:<its address>,
 * OFED's <ifname>-<N>; after - before) on each CPU, and drawing it as SVG: each CPU coloured by its share of
 * the total on one absolute scale (a legend names each colour's range, so a CPU that took everything never
 * looks like one that took an eighth), rows of 32 CPUs (a host with hundreds folds, never shrinks), the NIC's
 * NUMA-local CPUs underlined and CPU0 outlined. Must never: read anything
 * but the texts it is given, or colour a CPU relative to another one. */
#ifndef CX5_IRQHEAT_H
#define CX5_IRQHEAT_H

#include <stdio.h>

#include "base/cpuset.h"

/* Zero-initialised before the first irqheat_add(). */
struct irqheat {
	uint64_t *counts; /* per CPU number, ncpus of them */
	unsigned ncpus;	  /* the highest CPU of any snapshot + 1; 0: none added */
	uint64_t total;
	unsigned runs;	     /* runs added */
	struct cpuset local; /* the NIC's NUMA-local CPUs; empty: unknown */
	bool has_local;
};

/* A port of a run: its interface name, its PCI address (NULL: a virtual
 * port, whose only vectors are OFED's <ifname>-<N>). */
struct irqheat_port {
	const char *ifname;
	const char *pci;
};

/* Add one run: its /proc/interrupts texts before and after, and the ports
 * whose completion vectors count (n_ports 0: the ports are unknown, every
 * device's mlx5 completion vectors count). -EINVAL when either text does
 * not parse; -ENOMEM. */
int irqheat_add(struct irqheat *hm, const char *before, const char *after, const struct irqheat_port *ports,
		size_t n_ports);
/* The NIC's NUMA-local CPUs ("8-15,24-31"). */
int irqheat_set_local(struct irqheat *hm, const char *cpulist);
void irqheat_done(struct irqheat *hm);

/* The colour classes of the scale, in order (0 the CPUs that took none). */
struct irqheat_class {
	double below; /* share (percent) under which a CPU is in this class */
	const char *fill;
	const char *label; /* "10-25%" */
};
extern const struct irqheat_class irqheat_classes[];
extern const size_t irqheat_n_classes;
/* The class of a CPU of hm. */
size_t irqheat_class_of(const struct irqheat *hm, unsigned cpu);

/* The map as an SVG picture of its own; label names it. */
void irqheat_draw(FILE *f, const struct irqheat *hm, const char *label);
/* The legend, an SVG picture: every class with its range, the marks;
 * local_note says whose NUMA-local CPUs are underlined (NULL: none
 * known). */
void irqheat_legend(FILE *f, const char *local_note);

#endif
