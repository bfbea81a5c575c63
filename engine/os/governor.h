/* governor.h: each CPU's frequency governor (scaling_governor) and the
 * governors it offers.
 *
 * Owns: /sys/devices/system/cpu/cpuN/cpufreq/scaling_governor and
 * scaling_available_governors, and the policy directories of
 * /sys/devices/system/cpu/cpufreq, through the sysroot; a CPU without that
 * directory has no cpufreq driver (most VMs): -ENOENT.
 * Must never: write anything but scaling_governor, log above debug. */
#ifndef CX5_GOVERNOR_H
#define CX5_GOVERNOR_H

#include "base/util.h"

/* 1 when the host has a cpufreq driver (a policyN directory under
 * /sys/devices/system/cpu/cpufreq), 0 when it has none: a virtual machine,
 * or firmware that sets the frequency itself. */
int governor_driver_present(void);
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
