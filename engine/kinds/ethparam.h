/* kinds/ethparam.h: what the coalesce and pause kinds share: a kind over
 * one ethtool parameter group (ethnl.h), object "ens1f0", key
 * "GROUP.PARAM" ("coalesce.rx_usecs", "pause.rx"), values "on" | "off"
 * for the boolean parameters and decimal numbers for the others.
 *
 * Owns: the key and value mapping, read, write, diff and show of such a kind. A
 * driver without the group, or without one of its parameters, is
 * unsupported (exit 69) with the kernel's reason, never a skip. Must
 * never: write a parameter the profile does not set. */
#ifndef CX5_KINDS_ETHPARAM_H
#define CX5_KINDS_ETHPARAM_H

#include "kinds.h"
#include "os/ethnl.h"

struct ethparam_kind {
	const struct change_kind *kind;	 /* its name is the key prefix: "coalesce" */
	const char *profile_path;	 /* "link.coalesce" */
	const char *label;		 /* show's line label, padded: "coalesce" */
	const struct ethnl_group *group; /* &ethnl_coalesce */
	/* Offset in the kind's wanted state of each parameter's field, in
	 * group order: a struct profile_bool for a boolean parameter, else a
	 * struct profile_uint. */
	size_t want_offset[ETHNL_PARAMS_MAX];
};

int ethparam_read(const struct ethparam_kind *pk, const char *object, const char *key, char **ret,
		  char **ret_kmsg);
int ethparam_write(const struct ethparam_kind *pk, const char *object, const char *key, const char *value,
		   char **ret_kmsg);
/* Against the probe's fact (kind_fact: result, values, kernel message). */
int ethparam_diff(const struct ethparam_kind *pk, struct plan_ctx *ctx, const struct iface_state *s);
bool ethparam_manages(const struct ethparam_kind *pk, const struct profile *p);
/* The probe's read of the group (probe.h's probe_fact.read). */
int ethparam_probe(const struct ethparam_kind *pk, const char *ifname, void *ret, char **ret_kmsg);
/* show: each parameter the driver reports; "unsupported" with the kernel's
 * message when it has none. */
void ethparam_show(const struct ethparam_kind *pk, const struct iface_state *s);

#endif
