/* interrupts.h: the /proc/interrupts table.
 *
 * Owns: parsing the table into rows keyed by IRQ number, with per-CPU counts
 * mapped through the header's CPU<n> labels (offline CPUs have no column,
 * so columns are never mapped by position). Must never: write anything, or
 * crash on a malformed table: a bad line is -EINVAL with its line number. */
#ifndef CX5_INTERRUPTS_H
#define CX5_INTERRUPTS_H

#include "base/util.h"

struct interrupts_row {
	char *label;	  /* "98" or "NMI", "LOC", ... (without the colon) */
	bool numeric;	  /* label is an IRQ number */
	unsigned irq;	  /* valid when numeric */
	uint64_t *counts; /* ncounts values, in the header's column order */
	unsigned ncounts; /* == table ncpus for numeric rows; may be fewer for ERR/MIS;
			   * 0 (counts NULL) when read with INTERRUPTS_NO_COUNTS */
	char *chip;	  /* "IR-PCI-MSIX-0000:01:00.0", "IO-APIC"; NULL when absent */
	char *hwirq;	  /* "1-edge", "12582912-edge", "27 Level"; NULL when absent */
	char *name;	  /* handler name(s) ("mlx5_comp0@pci:0000:01:00.0"), or the
			   * description of a non-numeric row; NULL when absent */
};

struct interrupts {
	unsigned ncpus;		     /* count columns */
	unsigned *cpus;		     /* CPU number of each column, from the CPU<n> labels */
	unsigned max_cpu;	     /* largest CPU number in the header */
	struct interrupts_row *rows; /* numeric IRQs, in file order */
	size_t nrows;
	bool ascending;		      /* rows by increasing IRQ, as the kernel prints them: lookups bisect */
	struct interrupts_row *other; /* NMI, LOC, ERR, MIS, IPI0, ... */
	size_t nother;
};

enum interrupts_flags {
	/* Check every count but keep none (rows' counts NULL, ncounts 0): a
	 * 256-CPU table holds 1 MB of them, and planning needs the names. */
	INTERRUPTS_NO_COUNTS = 1 << 0,
};

/* Parse the text of /proc/interrupts. On -EINVAL, *ret_line (if non-NULL)
 * is the 1-based line at fault. CPU labels must be below CPUSET_MAX_CPUS. */
int interrupts_parse(const char *text, struct interrupts **ret, unsigned *ret_line);
/* Read and parse /proc/interrupts under the sysroot, in pieces (never the
 * whole text in memory), as interrupts_parse would. flags: enum
 * interrupts_flags. */
int interrupts_read(unsigned flags, struct interrupts **ret, unsigned *ret_line);
void interrupts_free(struct interrupts *t);
static inline void interrupts_freep(struct interrupts **t)
{
	interrupts_free(*t);
}
#define _cleanup_interrupts_ _cleanup_(interrupts_freep)

/* The row of IRQ `irq`, NULL when absent. */
const struct interrupts_row *interrupts_find(const struct interrupts *t, unsigned irq);
/* Count of a row on CPU `cpu` (0 when the CPU has no column). */
uint64_t interrupts_count_on(const struct interrupts *t, const struct interrupts_row *row, unsigned cpu);
uint64_t interrupts_row_total(const struct interrupts_row *row);

#endif
