/* governor.h: each CPU's frequency governor (scaling_governor) and the
 * governors it offers.
 *
 * Owns: /sys/devices/system/cpu/cpuN/cpufreq/scaling_governor and
 * scaling_available_governors, and the policy directories of
 * /sys/devices/system/cpu/cpufreq, through the sysroot; a CPU without that
 * directory has no cpufreq driver (most VMs): -ENOENT.
 * A governor's tunables: the files of its directory, the policy's own
 * (cpuN/cpufreq/GOV/: schedutil's rate_limit_us, ondemand's up_threshold
 * on a driver with a governor per policy) or the one every policy shares
 * (/sys/devices/system/cpu/cpufreq/GOV/), and userspace's
 * cpuN/cpufreq/scaling_setspeed. The kernel makes them afresh, with its
 * defaults, each time a policy takes the governor again.
 * Must never: write anything but scaling_governor and those tunables, log
 * above debug. */
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

/* The tunables of governor gov on CPU cpu as they are now, "NAME=VALUE"
 * each, in the order of their names: the regular, writable files of its
 * directory (the policy's own first, else the shared one), and
 * scaling_setspeed for userspace, whatever they hold (every tunable of
 * the kernel's governors is a decimal number: governor_tunable_valid). An
 * empty list (NULL) when it has none. */
int governor_tunables_read(unsigned cpu, const char *gov, char ***ret);
/* Write tunable name of gov back to value (decimal), where
 * governor_tunables_read found it, and read it back: 1 changed, 0 already
 * so, -EIO it reads back otherwise, -ENOENT the governor has no such
 * tunable (is it the CPU's governor?). */
int governor_tunable_write(unsigned cpu, const char *gov, const char *name, const char *value);
/* "rate_limit_us=500": a name of lower-case letters, digits and '_' (at
 * most 64) and a decimal value (at most 20 digits). */
bool governor_tunable_valid(const char *tunable);

/* A governor's name as the kernel takes it: lower-case letters, digits
 * and '_' (CPUFREQ_NAME_LEN: 15 at most). */
bool governor_name_valid(const char *s);

#endif
