/* irqspread.h: where a NIC's interrupts and the softirq load landed during
 * a benchmark, from /proc/interrupts and /proc/stat deltas.
 *
 * Owns: snapshots of /proc/interrupts and /proc/stat (through the sysroot),
 * the /proc/stat per-CPU parser, and three figures over a run: the share of
 * the watched IRQs' interrupts that landed on their planned CPUs, the
 * largest share any single CPU took, and the busiest CPU's softirq time
 * (the "single core at 100%" symptom). Must never: write anything, or
 * report a figure it has no data for (unknown is -1, never 0).
 *
 * /proc/stat cpuN columns: user nice system idle iowait irq softirq steal
 * (guest time is already inside user); a CPU's total is their sum. */
#ifndef CX5_IRQSPREAD_H
#define CX5_IRQSPREAD_H

#include "base/cpuset.h"
#include "os/interrupts.h"

struct cpu_time {
	unsigned cpu;
	uint64_t softirq; /* jiffies (USER_HZ) */
	uint64_t total;
};

struct proc_stat {
	struct cpu_time *cpu; /* "cpuN" lines in file order */
	size_t n;
};

/* -EINVAL when a cpuN line is malformed or no cpuN line exists. */
int procstat_parse(const char *text, struct proc_stat **ret);
void procstat_free(struct proc_stat *s);

struct irqspread_snapshot {
	int interrupts_r; /* reading/parsing /proc/interrupts: 0 or -errno */
	struct interrupts *intr;
	char *interrupts_text; /* evidence, NULL on failure */
	int stat_r;
	struct proc_stat *stat;
	char *stat_text;
};

/* Read both files under the sysroot. Always fills ret (failures in the _r
 * fields); returns 0, or -ENOMEM. */
int irqspread_snapshot_take(struct irqspread_snapshot *ret);
/* The same from texts (tests); either may be NULL (= not read). */
int irqspread_snapshot_from_text(const char *interrupts, const char *stat, struct irqspread_snapshot *ret);
void irqspread_snapshot_done(struct irqspread_snapshot *s);

/* A watched IRQ and the CPUs it should run on (empty: no plan for it). */
struct irqspread_irq {
	unsigned irq;
	struct cpuset planned;
};

struct irqspread_cpu {
	unsigned cpu;
	uint64_t interrupts;	/* watched IRQs' interrupts on this CPU */
	double irq_percent;	/* of all watched interrupts */
	double softirq_percent; /* softirq time / all time of this CPU; -1 unknown */
	bool planned;		/* in some watched IRQ's planned set */
};

struct irqspread_result {
	uint64_t interrupts;	    /* watched interrupts during the run */
	double planned_percent;	    /* on planned CPUs; -1 without data or plan */
	int max_cpu;		    /* CPU with the largest share; -1 unknown */
	double max_cpu_percent;	    /* -1 unknown */
	int softirq_max_cpu;	    /* busiest CPU in softirq; -1 unknown */
	double softirq_max_percent; /* -1 unknown */
	struct irqspread_cpu *cpus; /* CPUs that took watched interrupts, are planned, or
				     * spent time (softirq figure), ascending */
	size_t ncpus;
};

/* Compare two snapshots. Missing data gives -1 figures, not an error.
 * -ENOMEM only. */
int irqspread_compute(const struct irqspread_snapshot *before, const struct irqspread_snapshot *after,
		      const struct irqspread_irq *irqs, size_t nirqs, struct irqspread_result *ret);
void irqspread_result_done(struct irqspread_result *r);

#endif
