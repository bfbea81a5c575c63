/* kinds/sysctl.h: the "sysctl" kind's values: wanted, as the profile's
 * sysctl map gives them (its key is KT_OWN: sysctl.c reads it), and as the
 * probe found them (its host-wide fact).
 *
 * Owns: the types of the map's entries and of a probed sysctl, and how
 * others read the probed ones (verify's host tuning, doctor). */
#ifndef CX5_KINDS_SYSCTL_H
#define CX5_KINDS_SYSCTL_H

#include "keys/keys.h"
#include "os/procsys.h"

/* How a sysctl value is wanted: exactly this value, or at least it (a
 * larger current value is left alone). */
enum profile_sysctl_op {
	PROFILE_SYSCTL_EXACT,
	PROFILE_SYSCTL_FLOOR,
};

struct profile_sysctl {
	enum sysctl_key key;
	const char *name;	   /* "net.core.rmem_max" (static string) */
	enum profile_sysctl_op op; /* a floor only for a one-value sysctl */
	struct sysctl_value value; /* bytes/units after suffix expansion */
	struct profile_mark at;
};

/* The sysctl key's field: in the order written (parents' entries first,
 * overridden in place). */
struct profile_sysctls {
	struct profile_sysctl *v;
	size_t n;
};

/* A managed sysctl as the probe read it. */
struct sysctl_state {
	int r;			   /* 0, -ENOENT (absent here), -ENODATA (not probed), other -errno */
	struct sysctl_value value; /* valid when r == 0 */
};

struct host_state;

/* Sysctl k of a probed host (kinds_probe_host); r -ENODATA when the probe
 * did not read the sysctls (PROBE_IFACES_ONLY). Never NULL. */
const struct sysctl_state *sysctl_probed(const struct host_state *h, enum sysctl_key k);

const char *profile_sysctl_op_to_string(int v); /* "exact" | "floor", NULL: neither */

#endif
