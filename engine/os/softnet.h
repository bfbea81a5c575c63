/* softnet.h: the kernel's per-CPU receive backlog counters
 * (/proc/net/softnet_stat).
 *
 * Owns: parsing the file (one line per online CPU, hexadecimal columns:
 * 1 packets processed, 2 dropped because the backlog was full
 * (net.core.netdev_max_backlog), 3 time_squeeze (the NAPI budget or time
 * ran out with work left), 10 received_rps, 11 flow_limit_count; since
 * Linux 5.10 12 the backlog length and 13 the CPU; Linux 6.x adds 14 and
 * 15, the input and process queue lengths), and reading it live. The file
 * is host-wide: every network namespace reads the same one, so in the lab
 * both ends share it. Must never: map a line to a CPU by position when the
 * line says which CPU it is (offline CPUs have no line), or read the file
 * but through sysroot_read_live_counters (never a sysroot's copy). */
#ifndef CX5_SOFTNET_H
#define CX5_SOFTNET_H

#include "base/util.h"

#define SOFTNET_MIN_COLUMNS 10 /* Linux 2.6 */
#define SOFTNET_MAX_COLUMNS 32 /* the kernel prints 15 today; later columns are ignored */
#define SOFTNET_MAX_CPUS    8192

struct softnet_cpu {
	unsigned cpu; /* column 13; without it the line's index */
	uint32_t processed;
	uint32_t dropped;
	uint32_t time_squeeze;
	uint32_t received_rps;
	uint32_t flow_limit; /* 0 on 10-column kernels */
};

struct softnet {
	unsigned columns; /* of every line */
	bool cpu_known;	  /* column 13 named each line's CPU */
	size_t n;
	struct softnet_cpu cpu[]; /* n lines, in file order */
};

/* -EINVAL with *ret_line (1-based, when ret_line is not NULL) for a line
 * that is not SOFTNET_MIN_COLUMNS..SOFTNET_MAX_COLUMNS hexadecimal 32-bit
 * numbers, has another column count than the first line, names a CPU
 * twice or one beyond SOFTNET_MAX_CPUS; -ENODATA for no line at all;
 * -ENOMEM. */
int softnet_parse(const char *text, struct softnet **ret, unsigned *ret_line);

/* This host's file. -errno when it cannot be read or parsed. */
int softnet_read(struct softnet **ret);

/* The counters are 32 bits wide and wrap: the rise from before to after,
 * modulo 2^32. */
static inline uint32_t softnet_rise(uint32_t before, uint32_t after)
{
	return after - before;
}

#endif
