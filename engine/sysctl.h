/* sysctl.h: the net.core sysctls cx5prof reads and manages.
 *
 * Owns: the table of managed sysctl names and their /proc/sys paths
 * ("net.core.rmem_max" -> /proc/sys/net/core/rmem_max), read through the
 * sysroot. Only names in the table are accepted, so a name never becomes an
 * arbitrary path. Must never: write a sysctl not in the table, or touch
 * /proc/sys except through sysroot.h (tests write a sysroot copy). */
#ifndef CX5_SYSCTL_H
#define CX5_SYSCTL_H

#include "util.h"

enum sysctl_key {
	SYSCTL_RMEM_MAX,
	SYSCTL_WMEM_MAX,
	SYSCTL_RMEM_DEFAULT,
	SYSCTL_WMEM_DEFAULT,
	SYSCTL_NETDEV_MAX_BACKLOG,
	_SYSCTL_MAX,
};

/* "net.core.rmem_max", ...; NULL when out of range. */
const char *sysctl_key_to_string(enum sysctl_key k);
/* -EINVAL for a name not in the table. */
int sysctl_key_from_string(const char *name, enum sysctl_key *ret);

/* Read the value. -ENOENT when the file is absent (a non-initial network
 * namespace has no netdev_max_backlog), -EINVAL unparsable. */
int sysctl_read(enum sysctl_key k, uint64_t *ret);
/* Write the value, then read it back. 1 changed, 0 already so (nothing
 * written), -errno on failure, -EIO when the read-back differs. */
int sysctl_write(enum sysctl_key k, uint64_t value);

/* By name: -EINVAL for a name not in the table, else as above. */
int sysctl_read_name(const char *name, uint64_t *ret);
int sysctl_write_name(const char *name, uint64_t value);

#endif
