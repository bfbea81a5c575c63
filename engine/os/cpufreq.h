/* cpufreq.h: each CPU's frequency governor (scaling_governor), the
 * governors it offers, and its current frequency.
 *
 * Owns: /sys/devices/system/cpu/cpuN/cpufreq/{scaling_governor,
 * scaling_available_governors,scaling_cur_freq} through the sysroot; a
 * CPU without that directory has no cpufreq driver (most VMs): -ENOENT.
 * Must never: write anything but scaling_governor, log above debug. */
#ifndef CX5_CPUFREQ_H
#define CX5_CPUFREQ_H

#include "base/util.h"

/* "performance". -ENOENT: no cpufreq for this CPU. */
int cpufreq_governor(unsigned cpu, char **ret);
/* The governors it offers, in the kernel's order. */
int cpufreq_available(unsigned cpu, char ***ret);
/* Write the governor ("performance\n", as `echo`) and read it back: 1
 * changed, 0 already so, -EIO it reads back otherwise. */
int cpufreq_set_governor(unsigned cpu, const char *governor);

/* A governor's name as the kernel takes it: lower-case letters, digits
 * and '_' (CPUFREQ_NAME_LEN: 15 at most). */
bool cpufreq_governor_name_valid(const char *s);

#endif
