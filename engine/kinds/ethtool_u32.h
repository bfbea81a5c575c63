/* kinds/ethtool_u32.h: the shared half of the kinds whose keys are u32
 * fields of one ethtool struct with a maximum beside each (channels,
 * rings): read, write and diff by a table of fields, so such a kind is its
 * table and the two calls that get and set the struct.
 *
 * Owns: the per-key read and write (get the struct, change one field, set
 * it, which reads it back), and the diff against the probe's copy of the
 * struct (device maximum, "no such setting", unsupported driver), and its
 * lines in `show`. Must
 * never: send anything when the value is already so (the ethtool set
 * functions compare first). */
#ifndef CX5_KINDS_ETHTOOL_U32_H
#define CX5_KINDS_ETHTOOL_U32_H

#include <stdbool.h>
#include <stddef.h>

struct change_kind;
struct iface_state;
struct plan_ctx;
struct profile;

struct ethtool_u32_field {
	const char *key; /* "channels.combined"; in show_fields the JSON name "rx" */
	size_t value;	 /* offsetof the current value (uint32_t) in the struct */
	size_t max;	 /* offsetof its maximum; a maximum of 0: no such setting */
	size_t want;	 /* offsetof the wanted value (struct profile_uint) in the kind's wanted state */
};

struct ethtool_u32_group {
	const struct change_kind *kind; /* its name is the key prefix: "channels" */
	const char *label;		/* show's line label, padded: "channels" */
	const struct ethtool_u32_field *fields;
	size_t n_fields;
	/* What show lists, in order (channels: "other" too, which no key sets). */
	const struct ethtool_u32_field *show_fields;
	size_t n_show_fields;
	size_t size; /* of the ethtool struct */
	int (*get)(const char *ifname, void *ret);
	/* 1 changed, 0 already so, -errno (ethtool.h's set functions) */
	int (*set)(const char *ifname, const void *value);
};

int ethtool_u32_read(const struct ethtool_u32_group *g, const char *ifname, const char *key, char **ret);
int ethtool_u32_write(const struct ethtool_u32_group *g, const char *ifname, const char *key,
		      const char *value);
/* Diff the group for one port against the probe's copy of the struct
 * (kind_fact; -EOPNOTSUPP: unsupported driver). */
int ethtool_u32_diff(const struct ethtool_u32_group *g, struct plan_ctx *ctx, const struct iface_state *s);
/* The profile sets a key of the group. */
bool ethtool_u32_manages(const struct ethtool_u32_group *g, const struct profile *p);
/* show: the group's object and line for port s. */
void ethtool_u32_show(const struct ethtool_u32_group *g, const struct iface_state *s);

#endif
