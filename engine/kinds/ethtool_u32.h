/* kinds/ethtool_u32.h: the shared half of the kinds whose keys are u32
 * parameters of one ethtool parameter group with a device maximum beside
 * each (channels, rings; os/ethnl.h: netlink first, the ioctl as the
 * fallback, the kernel's extack text kept): read, write, probe, diff and
 * show by a table of fields, so such a kind is its table and its group.
 *
 * Owns: the per-key read and write (one parameter set and read back,
 * ethnl_group_set), the diff against the probe's copy of the group (device
 * maximum, "no such setting", unsupported driver) and the group's line in
 * `show`. Must never: send anything when the value is already so (the
 * group's set compares first). */
#ifndef CX5_KINDS_ETHTOOL_U32_H
#define CX5_KINDS_ETHTOOL_U32_H

#include <stdbool.h>
#include <stddef.h>

#include "os/ethnl.h"

struct change_kind;
struct iface_state;
struct plan_ctx;
struct profile;

struct ethtool_u32_field {
	const char *key;   /* "channels.combined" */
	const char *param; /* the group's parameter: "combined" */
	size_t want;	   /* offsetof the wanted value (struct profile_uint) in the kind's wanted state */
};

struct ethtool_u32_group {
	const struct change_kind *kind; /* its name is the key prefix: "channels" */
	const char *label;		/* show's line label, padded: "channels" */
	const struct ethnl_group *group;
	const struct ethtool_u32_field *fields;
	size_t n_fields;
};

int ethtool_u32_read(const struct ethtool_u32_group *g, const char *ifname, const char *key, char **ret,
		     char **ret_kmsg);
int ethtool_u32_write(const struct ethtool_u32_group *g, const char *ifname, const char *key,
		      const char *value, char **ret_kmsg);
/* The probe's read of the group (probe.h's probe_fact.read). */
int ethtool_u32_probe(const struct ethtool_u32_group *g, const char *ifname, void *ret, char **ret_kmsg);
/* Diff the group for one port against the probe's copy (kind_fact;
 * -EOPNOTSUPP: unsupported driver). */
int ethtool_u32_diff(const struct ethtool_u32_group *g, struct plan_ctx *ctx, const struct iface_state *s);
/* The profile sets a key of the group. */
bool ethtool_u32_manages(const struct ethtool_u32_group *g, const struct profile *p);
/* show: the group's object and line for port s, every parameter with its
 * maximum ("n/a", JSON null, when the device has none). */
void ethtool_u32_show(const struct ethtool_u32_group *g, const struct iface_state *s);

#endif
