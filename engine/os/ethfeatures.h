/* ethfeatures.h: the offload features of a network interface (`ethtool
 * -k` / `-K`) cx5prof manages, through ethtool netlink
 * (ETHTOOL_MSG_FEATURES_GET/SET) with the ioctl as the fallback
 * (ETHTOOL_GSSET_INFO + GSTRINGS for the names, GFEATURES/SFEATURES).
 *
 * Owns: the ONE table of managed features (the profile's name, "gro", and
 * the kernel's, "rx-gro"), shared by the profile loader (link.features),
 * the probe and the features kind, and the read-compare-write-readback of
 * one feature. A feature the device does not let change ("[fixed]" in
 * ethtool -k) is never sent: -EOPNOTSUPP. Works in the caller's network
 * namespace. Must never: change a feature it was not asked to change, log
 * above debug. */
#ifndef CX5_ETHFEATURES_H
#define CX5_ETHFEATURES_H

#include "base/util.h"

struct nl_msg;
struct nlattr;

enum eth_feature {
	ETH_FEATURE_GRO,
	ETH_FEATURE_GRO_HW,
	ETH_FEATURE_GRO_LIST,
	ETH_FEATURE_UDP_GRO_FORWARDING,
	ETH_FEATURE_LRO,
	ETH_FEATURE_GSO,
	ETH_FEATURE_UDP_SEGMENTATION,
	ETH_FEATURE_SG,
	ETH_FEATURE_RX_CHECKSUM,
	ETH_FEATURE_RXHASH,
	ETH_FEATURE_NTUPLE,
	_ETH_FEATURE_MAX,
};

struct eth_feature_def {
	const char *name;	 /* the profile's: "gro", "rx-udp-gro-forwarding" */
	const char *kernel_name; /* the kernel's (ETH_SS_FEATURES): "rx-gro" */
};

/* The row of f; NULL out of range. */
const struct eth_feature_def *eth_feature_def(enum eth_feature f);
/* By the profile's or the kernel's name; -EINVAL when not in the table. */
int eth_feature_from_string(const char *name, enum eth_feature *ret);
/* "gro, rx-gro-hw, ..." (every profile name, table order): for the
 * loader's "unknown feature" message. Static storage. */
const char *eth_feature_names(void);

struct eth_feature_state {
	bool changeable; /* in the device's hw_features and not never-change: not "[fixed]" */
	bool active;	 /* on now */
	bool wanted;	 /* requested: on but not active is "off [requested on]" in ethtool -k */
};

struct eth_features {
	struct eth_feature_state f[_ETH_FEATURE_MAX];
};

/* Read every managed feature. A name this kernel does not know reads as
 * fixed and off. -errno: -ENODEV no such device. */
int ethtool_get_features(const char *ifname, struct eth_features *ret, char **ret_kmsg);
/* Turn feature f on or off, then read it back: 1 changed, 0 already so
 * (active and requested as asked: nothing sent), -EOPNOTSUPP fixed on this
 * device (nothing sent), -EIO the kernel kept it as it was (a feature it
 * depends on is off; the request is then put back as it was, so the
 * failed write leaves nothing behind). *ret_kmsg: the kernel's extack text
 * on failure, else NULL. */
int ethtool_set_feature(const char *ifname, enum eth_feature f, bool on, char **ret_kmsg);

/* The encode and decode steps, for the unit tests: the WANTED bitset of a
 * FEATURES_SET that changes f alone, and the state in a FEATURES_GET
 * reply's attributes (ETHTOOL_A_FEATURES_*). */
int ethnl_features_encode(struct nl_msg *m, enum eth_feature f, bool on);
int ethnl_features_decode(struct nlattr **tb, struct eth_features *ret);

#endif
