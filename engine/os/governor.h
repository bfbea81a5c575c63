/* governor.h: each CPU's frequency governor (scaling_governor) and the
 * governors it offers.
 *
 * Owns: /sys/devices/system/cpu/cpuN/cpufreq/scaling_governor and
 * scaling_available_governors, through the sysroot; a CPU without that
 * directory has no cpufreq driver (most VMs): -ENOENT.
 * Must never: write anything but scaling_governor, log above debug. */
#ifndef CX5_GOVERNOR_H
#define CX5_GOVERNOR_H

#include "base/util.h"

/* "performance". -ENOENT: no cpufreq for this CPU. */
int governor_read(unsigned cpu, char **ret);
/* The governors it offers, in the kernel's order. */
int governor_available(unsigned cpu, char ***ret);
/* Write the governor ("performance\n", as `echo`) and read it back: 1
 * changed, 0 already so, -EIO it reads back otherwise. */
int governor_write(unsigned cpu, const char *governor);

/* A governor's name as the kernel takes it: lower-case letters, digits
 * and '_' (CPUFREQ_NAME_LEN: 15 at most). */
bool governor_name_valid(const char *s);

#endif
