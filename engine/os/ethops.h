/* ethops.h: every ethtool operation cx5prof performs, one row each naming
 * its netlink implementation and its ioctl implementation, as ethtool's
 * own args[] table does (.nlfunc, .func); the one place that picks
 * between them.
 *
 * Owns: the choice: netlink first; the SIOCETHTOOL ioctl only when netlink
 * says -EOPNOTSUPP (no ethtool family before Linux 5.6, a message the
 * kernel lacks) or when the row has no netlink implementation (RSS and the
 * flow hash: the kernel headers cx5prof builds against have no message for
 * them); the kernel's extack text kept, and dropped when the ioctl did the
 * work. The implementations live in the file of their setting and do one
 * path each; their callers never choose. Must never: log above debug. */
#ifndef CX5_ETHOPS_H
#define CX5_ETHOPS_H

enum ethtool_op_id {
	ETHOP_GROUP_GET, /* channels, rings, coalesce, pause (ethnl.c) */
	ETHOP_GROUP_SET,
	ETHOP_FEATURES_GET, /* the offload features (ethfeatures.c) */
	ETHOP_FEATURES_SET,
	ETHOP_PRIVFLAGS_GET, /* the driver's private flags (ethprivflags.c) */
	ETHOP_PRIVFLAGS_SET,
	ETHOP_RSS_GET, /* the RSS table and key (ethrss.c) */
	ETHOP_RSS_SET,
	ETHOP_FLOWHASH_GET, /* the UDP flow hash (ethflowhash.c) */
	ETHOP_FLOWHASH_SET,
	_ETHOP_MAX,
};

struct ethtool_op {
	const char *name;
	/* NULL where the kernel offers no netlink message. */
	int (*nlfunc)(const char *ifname, void *arg, char **ret_kmsg);
	int (*func)(const char *ifname, void *arg);
};

extern const struct ethtool_op ethtool_ops[_ETHOP_MAX];

/* Operation id on ifname with its file's argument (arg): the result of the
 * path the row's choice took; *ret_kmsg (when not NULL) netlink's extack
 * text, or NULL. */
int ethtool_op_run(enum ethtool_op_id id, const char *ifname, void *arg, char **ret_kmsg);

/* The implementations the table names, each in its setting's file; arg is
 * that file's own argument struct. */
int ethnl_group_nl_get(const char *ifname, void *arg, char **ret_kmsg);
int ethnl_group_ioctl_get(const char *ifname, void *arg);
int ethnl_group_nl_set(const char *ifname, void *arg, char **ret_kmsg);
int ethnl_group_ioctl_set(const char *ifname, void *arg);
int ethfeatures_nl_get(const char *ifname, void *arg, char **ret_kmsg);
int ethfeatures_ioctl_get(const char *ifname, void *arg);
int ethfeatures_nl_set(const char *ifname, void *arg, char **ret_kmsg);
int ethfeatures_ioctl_set(const char *ifname, void *arg);
int ethprivflags_nl_get(const char *ifname, void *arg, char **ret_kmsg);
int ethprivflags_ioctl_get(const char *ifname, void *arg);
int ethprivflags_nl_set(const char *ifname, void *arg, char **ret_kmsg);
int ethprivflags_ioctl_set(const char *ifname, void *arg);
int ethrss_ioctl_get(const char *ifname, void *arg);
int ethrss_ioctl_set(const char *ifname, void *arg);
int ethflowhash_ioctl_get(const char *ifname, void *arg);
int ethflowhash_ioctl_set(const char *ifname, void *arg);

#endif
