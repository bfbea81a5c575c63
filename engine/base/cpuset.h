/* cpuset.h: CPU sets of any size, in every form the kernel prints.
 *
 * Owns: parsing and printing of CPU lists ("0-5,48-53", "8", "") and hex
 * masks with a comma every 8 digits ("00000000,003f0000"), for hosts with
 * more than 64 CPUs. Must never: touch the host. */
#ifndef CX5_CPUSET_H
#define CX5_CPUSET_H

#include "util.h"

#define CPUSET_MAX_CPUS 8192

struct cpuset {
	uint64_t *bits;
	unsigned nwords;
};

#define CPUSET_INIT                                                                                          \
	{                                                                                                    \
		NULL, 0                                                                                      \
	}

void cpuset_done(struct cpuset *s);
static inline void cpuset_donep(struct cpuset *s)
{
	cpuset_done(s);
}
#define _cleanup_cpuset_ _cleanup_(cpuset_donep)

/* Parse a list; "" and "\n" give the empty set. -EINVAL on bad syntax,
 * -ERANGE for a CPU >= CPUSET_MAX_CPUS or a reversed range. */
int cpuset_parse_list(const char *s, struct cpuset *ret);
/* Parse a hex mask, comma-separated 32-bit groups, most significant first.
 * The list parser also takes the kernel's stride form "0-31:2/8". Empty
 * mask: -EINVAL. Both parsers accept trailing whitespace/newline. */
int cpuset_parse_mask(const char *s, struct cpuset *ret);
/* "0-5,48-53"; "" for the empty set. */
int cpuset_format_list(const struct cpuset *s, char **ret);
/* Mask as /proc/irq/N/smp_affinity prints it for a host of ncpus CPUs
 * (nr_cpu_ids): groups of 8 hex digits, the top one only as wide as its bits
 * need ("fff" for 12 CPUs). ncpus 0 = just wide enough for the set; -ERANGE
 * when the set holds a CPU >= ncpus. */
int cpuset_format_mask(const struct cpuset *s, unsigned ncpus, char **ret);

int cpuset_add(struct cpuset *s, unsigned cpu);
void cpuset_remove(struct cpuset *s, unsigned cpu);
bool cpuset_has(const struct cpuset *s, unsigned cpu);
unsigned cpuset_count(const struct cpuset *s);
bool cpuset_equal(const struct cpuset *a, const struct cpuset *b);
/* Smallest CPU > after (after = -1 starts), or -1 when none. */
int cpuset_next(const struct cpuset *s, int after);
int cpuset_copy(const struct cpuset *s, struct cpuset *ret);

/* Set algebra, in place on a. */
void cpuset_clear(struct cpuset *s);
int cpuset_or(struct cpuset *a, const struct cpuset *b);
void cpuset_and(struct cpuset *a, const struct cpuset *b);
void cpuset_andnot(struct cpuset *a, const struct cpuset *b);
/* Largest CPU in the set, or -1 when empty. */
int cpuset_last(const struct cpuset *s);
/* Keep only the CPUs this process may run on (sched_getaffinity: cgroups
 * and taskset narrow a host; a sysroot may describe a bigger one). */
int cpuset_keep_runnable(struct cpuset *s);

#define CPUSET_FOREACH(cpu, s) for (int cpu = cpuset_next((s), -1); cpu >= 0; cpu = cpuset_next((s), cpu))

#endif
