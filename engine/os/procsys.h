/* procsys.h: the sysctls cx5prof reads and manages.
 *
 * Owns: the ONE table of managed sysctls (name, number of values, unit,
 * the range the kernel accepts), shared by the profile loader, the probe
 * and the sysctl kind, and their /proc/sys paths ("net.core.rmem_max" -> /proc/sys/net/core/rmem_max), read
 * and written through the sysroot. Only names in the table are accepted, so a name never becomes an arbitrary
 * path. Must never: write a sysctl not in the table, or touch /proc/sys except through sysroot.h (tests write
 * a sysroot copy). */
#ifndef CX5_PROCSYS_H
#define CX5_PROCSYS_H

#include "base/util.h"

enum sysctl_key {
	SYSCTL_RMEM_MAX,
	SYSCTL_WMEM_MAX,
	SYSCTL_RMEM_DEFAULT,
	SYSCTL_WMEM_DEFAULT,
	SYSCTL_NETDEV_MAX_BACKLOG,
	SYSCTL_NETDEV_BUDGET,
	SYSCTL_NETDEV_BUDGET_USECS,
	SYSCTL_BUSY_READ,
	SYSCTL_BUSY_POLL,
	SYSCTL_UDP_MEM,
	SYSCTL_UDP_RMEM_MIN,
	SYSCTL_IPFRAG_HIGH_THRESH,
	_SYSCTL_MAX,
};

#define SYSCTL_VALUES_MAX 3

struct sysctl_def {
	const char *name;  /* "net.core.rmem_max" */
	unsigned n_values; /* 1; 3 for net.ipv4.udp_mem (min, pressure, max) */
	bool ordered;	   /* the values must not decrease (udp_mem) */
	uint64_t min, max; /* of each value, as the kernel accepts it */
	const char *unit;  /* "bytes", "packets", "microseconds", "pages" */
	const char *help;  /* what it is, for the generated key tables; NULL: its unit says it */
};

/* The row of k; NULL when out of range. */
const struct sysctl_def *sysctl_def(enum sysctl_key k);
/* "net.core.rmem_max", ...; NULL when out of range. */
const char *sysctl_key_to_string(enum sysctl_key k);
/* -EINVAL for a name not in the table. */
int sysctl_key_from_string(const char *name, enum sysctl_key *ret);
/* Every name, "net.core.rmem_max, net.core.wmem_max, ..." (table order),
 * for the loader's "unknown sysctl" message. Static storage. */
const char *sysctl_names(void);

struct sysctl_value {
	unsigned n; /* the row's n_values */
	uint64_t v[SYSCTL_VALUES_MAX];
};

/* "4096" or "188010 250681 376020" (one space between values). */
int sysctl_value_format(const struct sysctl_value *v, char **ret);
/* The same back, or the kernel's text (tabs): -EINVAL unless it has the
 * row's number of values. */
int sysctl_value_parse(enum sysctl_key k, const char *s, struct sysctl_value *ret);

/* Both have the same number of values, each equal. */
bool sysctl_value_equal(const struct sysctl_value *a, const struct sysctl_value *b);

/* Read the value. -ENOENT when the file is absent (a non-initial network
 * namespace has no netdev_max_backlog), -EINVAL unparsable. */
int sysctl_read_value(enum sysctl_key k, struct sysctl_value *ret);
/* Write the value, then read it back. 1 changed, 0 already so (nothing
 * written), -errno on failure, -EIO when the read-back differs. */
int sysctl_write_value(enum sysctl_key k, const struct sysctl_value *v);

/* A one-value sysctl as a number (-EINVAL for udp_mem). */
int sysctl_read(enum sysctl_key k, uint64_t *ret);

#endif
