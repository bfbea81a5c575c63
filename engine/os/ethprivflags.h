/* ethprivflags.h: a driver's private flags (`ethtool --show-priv-flags` /
 * `--set-priv-flags`): mlx5's rx_cqe_compress, rx_striding_rq,
 * rx_cqe_moder, tx_cqe_moder and the others its kernel or OFED lists.
 *
 * Owns: reading every flag with its name as the device reports it
 * (ethtool netlink PRIVFLAGS_GET, verbose bitset; else the ioctl:
 * GSSET_INFO + GSTRINGS of ETH_SS_PRIV_FLAGS, GPFLAGS) and changing one
 * (PRIVFLAGS_SET with that bit alone; else SPFLAGS), read back; a sysroot
 * that describes the port's flags (ethsysroot.h: `ethtool
 * --show-priv-flags` text) answers instead of the kernel. The kernel's
 * extack text is kept. Works in the caller's network namespace. Must
 * never: change a flag it was not asked to change, log above debug. */
#ifndef CX5_ETHPRIVFLAGS_H
#define CX5_ETHPRIVFLAGS_H

#include "base/util.h"

struct nl_msg;
struct nlattr;

#define ETH_PRIV_FLAGS_MAX  32 /* the ioctl's bitmap is 32 bits */
#define ETH_PRIV_FLAG_NAMES 32 /* ETH_GSTRING_LEN */

struct eth_priv_flags {
	unsigned n;
	char name[ETH_PRIV_FLAGS_MAX][ETH_PRIV_FLAG_NAMES];
	bool on[ETH_PRIV_FLAGS_MAX];
};

/* The flag named name, -ENOENT when the device has none. */
int eth_priv_flags_find(const struct eth_priv_flags *f, const char *name);

/* Every flag, in the driver's order. -EOPNOTSUPP: the driver has none. */
int ethtool_get_priv_flags(const char *ifname, struct eth_priv_flags *ret, char **ret_kmsg);
/* Turn flag name on or off, read back: 1 changed, 0 already so (nothing
 * sent), -ENOENT no such flag, -EIO the driver kept it as it was. */
int ethtool_set_priv_flag(const char *ifname, const char *name, bool on, char **ret_kmsg);

/* `ethtool --show-priv-flags` text, both ways ("Private flags for IF:",
 * then "NAME: on" padded to the longest name). -EBADMSG: not that text. */
int eth_priv_flags_parse(const char *text, struct eth_priv_flags *ret);
char *eth_priv_flags_format(const char *ifname, const struct eth_priv_flags *f);

/* The netlink steps, for the unit tests: the SET bitset changing name
 * alone, and a GET reply's flags. */
int ethnl_priv_flags_encode(struct nl_msg *m, const char *name, bool on);
int ethnl_priv_flags_decode(struct nlattr **tb, struct eth_priv_flags *ret);

#endif
