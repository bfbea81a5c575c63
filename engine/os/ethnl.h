/* ethnl.h: ethtool settings through the ethtool generic-netlink family
 * (libnl-genl-3), with the SIOCETHTOOL ioctl as the fallback.
 *
 * Owns: the genetlink socket and the "ethtool" family lookup, one request
 * (header with the device name and flags, the caller's attributes, the
 * reply's attributes), and the parameter groups: a setting family made of
 * plain u8/u32 attributes (channels, rings, coalesce, pause), described by
 * one table of parameters (with the device maximum of each, where the
 * kernel reports one), read, compared, written one parameter at a time and
 * read back: every ethtool setting but the offload features (ethfeatures.h)
 * goes this one way. The kernel's extack text is handed to the caller verbatim. Netlink
 * first; the ioctl only when netlink says EOPNOTSUPP, the choice made by ethops.c (no ethtool family
 * before Linux 5.6, or a command the kernel lacks). Works in the caller's
 * network namespace. Must never: log above debug, change a parameter it
 * was not asked to change. */
#ifndef CX5_ETHNL_H
#define CX5_ETHNL_H

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "base/util.h"

/* Attributes of any ethtool message fit below this (ETHTOOL_A_*_MAX). */
#define ETHNL_ATTR_MAX 64

struct ethnl_request {
	uint8_t cmd;	    /* ETHTOOL_MSG_*_GET or _SET */
	const char *ifname; /* ifname_valid() */
	uint32_t flags;	    /* ETHTOOL_FLAG_* for the request header */
	/* Append the request's attributes after the header; NULL: none. */
	int (*encode)(struct nl_msg *m, const void *arg);
	const void *encode_arg;
	int maxattr; /* of the reply, <= ETHNL_ATTR_MAX */
	/* Called with the reply's attributes; NULL: no reply expected. */
	int (*decode)(struct nlattr **tb, void *arg);
	void *decode_arg;
};

/* Send one request and wait for its acknowledgement. 0 or -errno:
 * -EOPNOTSUPP no ethtool family, or the kernel or the driver does not
 * implement the request; -ENODEV no such device; the kernel's errno
 * otherwise. *ret_kmsg (may be NULL): the kernel's extack text when it sent
 * one on failure, else NULL; caller frees. */
int ethnl_call(const struct ethnl_request *q, char **ret_kmsg);

/* One parameter of a group: a netlink attribute and the same value's
 * __u32 field in the ioctl structure, and where the device's maximum of it
 * is, when the kernel reports one (channels, rings). */
struct ethnl_param {
	const char *name;	 /* "rx_usecs", "adaptive_rx" */
	uint16_t attr;		 /* ETHTOOL_A_COALESCE_RX_USECS */
	bool is_bool;		 /* a u8 0/1 on netlink; else a u32 */
	size_t ioctl_offset;	 /* offsetof(struct ethtool_coalesce, rx_coalesce_usecs) */
	uint16_t max_attr;	 /* ETHTOOL_A_CHANNELS_RX_MAX; 0: no maximum */
	size_t ioctl_max_offset; /* offsetof(struct ethtool_channels, max_rx) */
};

#define ETHNL_PARAMS_MAX 8

struct ethnl_group {
	const char *name; /* "coalesce", "pause" */
	uint8_t get_cmd, set_cmd;
	int maxattr;
	uint32_t ioctl_get, ioctl_set; /* ETHTOOL_GCOALESCE, ETHTOOL_SCOALESCE */
	size_t ioctl_size;	       /* sizeof(struct ethtool_coalesce) */
	const struct ethnl_param *params;
	size_t n_params; /* <= ETHNL_PARAMS_MAX */
};

/* A group's values; present[i] false when the driver does not report
 * parameter i (netlink leaves out what the driver does not support: a
 * channel type whose maximum is 0). max[i]: the device maximum of a
 * parameter with one (0 when not reported: no such setting). */
struct ethnl_values {
	uint32_t v[ETHNL_PARAMS_MAX];
	bool present[ETHNL_PARAMS_MAX];
	uint32_t max[ETHNL_PARAMS_MAX];
};

/* The parameter named `name`, -ENOENT when the group has none. */
int ethnl_group_find(const struct ethnl_group *g, const char *name);

/* Read every parameter. -EOPNOTSUPP: the driver has no such settings. */
int ethnl_group_get(const struct ethnl_group *g, const char *ifname, struct ethnl_values *ret,
		    char **ret_kmsg);
/* Set parameter i to value, then read it back: 1 changed, 0 already so
 * (nothing sent), -EOPNOTSUPP the driver does not report or take it,
 * -EIO the read-back differs, -errno. */
int ethnl_group_set(const struct ethnl_group *g, const char *ifname, size_t i, uint32_t value,
		    char **ret_kmsg);

/* The encode and decode steps, for the unit tests: the SET attribute of
 * parameter i (-EINVAL for a bool parameter's value above 1), the values of
 * a GET reply, and the ioctl structure's. */
int ethnl_group_encode(const struct ethnl_group *g, struct nl_msg *m, size_t i, uint32_t value);
int ethnl_group_decode(const struct ethnl_group *g, struct nlattr **tb, struct ethnl_values *ret);
void ethnl_group_from_ioctl(const struct ethnl_group *g, const void *buf, struct ethnl_values *ret);

/* The groups (ethnl_params.c). */
extern const struct ethnl_group ethnl_channels; /* rx tx other combined, with maxima */
extern const struct ethnl_group ethnl_rings;	/* rx tx, with maxima */
extern const struct ethnl_group
    ethnl_coalesce; /* adaptive_rx adaptive_tx rx_usecs rx_frames tx_usecs tx_frames */
extern const struct ethnl_group ethnl_pause; /* autoneg rx tx */

#endif
