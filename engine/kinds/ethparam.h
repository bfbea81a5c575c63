/* kinds/ethparam.h: what the coalesce and pause kinds share: a kind over
 * one ethtool parameter group (ethnl.h), object "ens1f0", key
 * "GROUP.PARAM" ("coalesce.rx_usecs", "pause.rx"), values "on" | "off"
 * for the boolean parameters and decimal numbers for the others.
 *
 * Owns: the key and value mapping, read, write and diff of such a kind. A
 * driver without the group, or without one of its parameters, is
 * unsupported (exit 69) with the kernel's reason, never a skip. Must
 * never: write a parameter the profile does not set. */
#ifndef CX5_KINDS_ETHPARAM_H
#define CX5_KINDS_ETHPARAM_H

#include "kinds.h"
#include "os/ethnl.h"

struct ethparam_kind {
	const char *kind;		 /* "coalesce": the kind's name and the key prefix */
	const char *profile_path;	 /* "link.coalesce" */
	const struct ethnl_group *group; /* &ethnl_coalesce */
	/* Offset in struct profile of each parameter's field, in group
	 * order: a struct profile_bool for a boolean parameter, else a struct
	 * profile_uint. */
	size_t profile_offset[ETHNL_PARAMS_MAX];
};

int ethparam_read(const struct ethparam_kind *pk, const char *object, const char *key, char **ret);
int ethparam_write(const struct ethparam_kind *pk, const char *object, const char *key, const char *value,
		   char **ret_kmsg);
/* read_r, cur, kmsg: the probe's result, values and kernel message. */
int ethparam_diff(const struct ethparam_kind *pk, struct plan_ctx *ctx, const char *ifname, int read_r,
		  const struct ethnl_values *cur, const char *kmsg);
bool ethparam_manages(const struct ethparam_kind *pk, const struct profile *p);

#endif
