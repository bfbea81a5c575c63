/* version.h: comparing driver and firmware version strings.
 *
 * Owns: the one rule for "is this version at least that one", used by
 * plan/doctor for requires.driver.min_version and
 * requires.firmware.min_version. Versions are numeric segments separated by
 * '.', '-' or '_' ("5.2-2.0.7", "24.10-1.1.4", inbox "6.8.0", "5.0-0",
 * firmware "16.29.1030"), compared segment by segment as numbers; a missing
 * segment counts as 0 ("6.8" == "6.8.0"). Ignored: a trailing
 * " (PSID)" ("16.29.1030 (MT_0000000080)") and a trailing tag that starts
 * with a letter after a separator ("6.8.0-31-generic", "5.4.0-rc1" compare
 * as 6.8.0.31 and 5.4.0). Must never: touch the host. */
#ifndef CX5_VERSION_H
#define CX5_VERSION_H

#include "util.h"

/* cx5prof's own version (`--version`, the mirror's User-Agent, reports). */
#define CX5PROF_VERSION "0.1.0"

#define VERSION_MAX_SEGMENTS 16

/* *ret_cmp < 0, 0, > 0 as a is older, equal, newer than b. -EINVAL when
 * either string is not a version as above (empty, no leading digit, "1..2",
 * a segment over UINT64_MAX, more than VERSION_MAX_SEGMENTS segments). */
int version_compare(const char *a, const char *b, int *ret_cmp);

/* Parse one version into its numeric segments; returns the count (>= 1)
 * or -EINVAL. */
int version_parse(const char *s, uint64_t segments[static VERSION_MAX_SEGMENTS]);

/* Are a and b the same version ("5.8-1.0.1" and "5.8-1.0.01"); for
 * strings that are not versions, the same string? */
bool version_same(const char *a, const char *b);

/* Is s a version version_compare() accepts? */
bool version_valid(const char *s);

#endif
