/* service.h: asking and telling the service manager about one unit.
 *
 * Owns: the service-control command and running it: `systemctl` on the
 * live host; with a --sysroot the host's service manager is never asked:
 * the command is $CX5PROF_SYSTEMCTL when set (tests point it to a script
 * that keeps the units' state in files; it gets CX5PROF_SYSROOT in its
 * environment), else service control is unavailable (-EOPNOTSUPP). The
 * command runs without a shell, stdin and stderr on /dev/null, and is
 * killed after $CX5PROF_SERVICE_TIMEOUT seconds (default 120). Used by
 * irqbalanced.h (stop, ban) and bootunit.h (the boot-time unit). Must
 * never: reach the live host's service manager while a sysroot is set. */
#ifndef CX5_SERVICE_H
#define CX5_SERVICE_H

#include "base/util.h"

/* "systemctl", $CX5PROF_SYSTEMCTL, or NULL when unavailable (a sysroot
 * without CX5PROF_SYSTEMCTL). */
const char *service_command(void);

/* Run `<cmd> <verb> <unit> [extra...]` (extra NULL-terminated, at most 4);
 * the first line of its stdout, trailing blanks stripped, in *ret_out (may
 * be NULL). Returns the exit status (0..255), -EOPNOTSUPP without a
 * command, -ENOENT when the command cannot be run, -ETIMEDOUT when it was
 * killed at the timeout, or -errno. */
int service_run(const char *verb, const char *unit, const char *const *extra, char **ret_out);

/* The one-word answer of `<cmd> <verb> <unit>` ("enabled", "masked",
 * "active", ...) in *ret. -ENOENT when the service manager has no such
 * unit, -EIO when it answered nothing, or service_run's errors. */
int service_state(const char *verb, const char *unit, char **ret);
/* Whether an is-enabled state means enabled ("enabled-runtime" too). */
bool service_state_enabled(const char *state);

/* `is-enabled` / `is-active` as 1 (yes: "enabled", "enabled-runtime";
 * "active"), 0 (no, or the unit does not exist), or -1 when unknown (no
 * service manager, or it answered nothing). */
int service_is_enabled(const char *unit);
int service_is_active(const char *unit);

/* True when the service manager says it has no such unit (LoadState
 * "not-found"). */
bool service_unit_missing(const char *unit);

#endif
