/* ethtool.h: driver facts, link settings and statistics of a network
 * interface through the SIOCETHTOOL ioctl, and the one ioctl request the
 * settings' netlink path falls back to (ethops.h picks it: channels, rings,
 * coalescing, pause; ethfeatures.h: offloads).
 *
 * Owns: the read-only ethtool requests cx5prof makes and the raw request.
 * A request the driver does not implement returns -EOPNOTSUPP, never a
 * made-up value: callers report it as "unsupported". Works in the caller's
 * network namespace. Must never: log above debug, write a setting itself
 * (that goes through ethnl.h, netlink first). */
#ifndef CX5_ETHTOOL_H
#define CX5_ETHTOOL_H

#include "base/util.h"

/* ETHTOOL_GDRVINFO; strings are "" when the driver leaves them empty
 * (veth has no firmware, no bus-info). */
struct eth_drvinfo {
	char driver[32];
	char version[32];
	char fw_version[32]; /* "16.29.1030 (MT_0000000080)" */
	char bus_info[32];   /* "0000:d8:00.0" */
};

enum eth_duplex { ETH_DUPLEX_HALF, ETH_DUPLEX_FULL, ETH_DUPLEX_UNKNOWN, _ETH_DUPLEX_MAX };

/* ETHTOOL_GLINKSETTINGS, falling back to ETHTOOL_GSET. */
struct eth_link {
	bool speed_known; /* false: no link or the driver does not say */
	uint32_t speed;	  /* Mb/s */
	enum eth_duplex duplex;
	bool autoneg;
};

/* "half", "full", "unknown". */
const char *eth_duplex_to_string(enum eth_duplex d);

/* One ETHTOOL_GSTATS counter. */
struct eth_stat {
	char name[32]; /* ETH_GSTRING_LEN */
	uint64_t value;
};

/* All functions: 0 (or 1 = changed) on success, -errno on failure:
 * -EINVAL invalid name, -ENODEV no such interface, -EOPNOTSUPP the driver
 * does not implement the request, -EPERM not permitted. */
/* One SIOCETHTOOL request with `data` as its command block (struct
 * ethtool_* with .cmd set), on a socket opened for the call: for the
 * modules that own other ethtool settings (ethfeatures.h, ethnl.h's ioctl
 * fallback). */
int ethtool_request(const char *ifname, void *data);

int ethtool_get_drvinfo(const char *ifname, struct eth_drvinfo *ret);
int ethtool_get_link(const char *ifname, struct eth_link *ret);

/* Every statistics counter (ETHTOOL_GSSET_INFO + GSTRINGS + GSTATS), in the
 * driver's order. *ret: array of *ret_n entries, caller frees with free().
 * Safe against the count changing meanwhile (channels changed): names and
 * values come from calls that agreed on it; -EAGAIN when it kept changing. */
int ethtool_get_stats(const char *ifname, struct eth_stat **ret, size_t *ret_n);
/* Value of one named counter in a list from ethtool_get_stats; -ENOENT if
 * the driver has no such counter. */
int eth_stats_find(const struct eth_stat *stats, size_t n, const char *name, uint64_t *ret);

/* The drop counters worth watching on mlx5 (reference section 4), NULL-ended:
 * rx_discards_phy, rx_out_of_buffer, rx_buffer_passed_thres_phy,
 * tx_discards_phy, rx_crc_errors_phy. */
extern const char *const eth_drop_counters[];

#endif
