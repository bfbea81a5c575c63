/* link.h: link-level state of network interfaces, from and to the kernel
 * through rtnetlink (libnl-route-3).
 *
 * Owns: reading links (name, ifindex, MTU and its range, transmit queue
 * length, operstate, flags, kind, the device's counters) and changing the
 * MTU and the transmit queue length, in the caller's network namespace. libnl's
 * NLE_* codes are converted to -errno here and nowhere else. Must never:
 * touch /proc or /sys (that is sysroot.h), log above debug, or change
 * anything but the attribute it was asked to change. */
#ifndef CX5_LINK_H
#define CX5_LINK_H

#include "base/util.h"

/* IFNAMSIZ, without pulling <net/if.h> (it clashes with <linux/if.h>). */
#define LINK_NAME_SIZE 16

/* RFC 2863 operational state, as IFLA_OPERSTATE and sysfs report it. */
enum link_operstate {
	LINK_OPER_UNKNOWN,
	LINK_OPER_NOTPRESENT,
	LINK_OPER_DOWN,
	LINK_OPER_LOWERLAYERDOWN,
	LINK_OPER_TESTING,
	LINK_OPER_DORMANT,
	LINK_OPER_UP,
	_LINK_OPER_MAX,
};

/* "unknown", "notpresent", "down", "lowerlayerdown", "testing", "dormant",
 * "up"; NULL when out of range. */
const char *link_operstate_to_string(enum link_operstate s);
/* -EINVAL for an unknown name. */
int link_operstate_from_string(const char *s, enum link_operstate *ret);

struct link_info {
	char name[LINK_NAME_SIZE];
	int ifindex;
	uint32_t mtu;
	/* IFLA_MIN_MTU / IFLA_MAX_MTU; has_mtu_range is false when the kernel
	 * did not send them (then min_mtu and max_mtu are 0). */
	bool has_mtu_range;
	uint32_t min_mtu;
	uint32_t max_mtu;
	uint32_t txqlen; /* IFLA_TXQLEN: packets (`ip link set DEV txqueuelen N`) */
	enum link_operstate operstate;
	unsigned flags; /* IFF_* as the kernel sent them */
	bool loopback;	/* IFF_LOOPBACK */
	bool admin_up;	/* IFF_UP */
	bool lower_up;	/* IFF_LOWER_UP: carrier */
	char kind[32];	/* IFLA_INFO_KIND ("veth", "bond"); "" for a plain device */
};

/* Every link of the current network namespace, loopback included, sorted by
 * ifindex. *ret is an array of *ret_n entries (caller frees with free()). */
int link_list(struct link_info **ret, size_t *ret_n);

/* One link by name. -EINVAL for an invalid name (ifname_valid), -ENODEV
 * when no such link exists in this namespace. */
int link_get(const char *name, struct link_info *ret);

/* The device's own packet and error counters (IFLA_STATS64, as `ip -s
 * link` prints them): 64-bit, kept by the driver or the core. */
struct link_stats {
	uint64_t rx_packets, tx_packets;
	uint64_t rx_dropped, tx_dropped; /* the core's and the driver's drops */
	uint64_t rx_errors, tx_errors;
	uint64_t rx_crc_errors, rx_frame_errors, rx_length_errors; /* frames damaged on the wire */
	uint64_t rx_missed_errors, rx_fifo_errors, rx_over_errors; /* the NIC had no room */
	uint64_t tx_fifo_errors, tx_carrier_errors, tx_aborted_errors;
};

/* The counters of link `name`. -EINVAL invalid name, -ENODEV no such link. */
int link_get_stats(const char *name, struct link_stats *ret);

/* Set the MTU of link `name` with rtnl_link_change() (a change object
 * against the link as it is), then read it back.
 * Returns 1 when changed, 0 when the MTU already was `mtu` (nothing sent),
 * -errno on failure: -ENODEV no such link, -EINVAL/-ERANGE refused by the
 * kernel, -EPERM not allowed, -EIO the read-back differs.
 * kernel_msg (may be NULL): on failure, set to the kernel's extended ack
 * message ("mtu greater than device maximum") when it sent one, else NULL;
 * caller frees. Untouched on success. */
int link_set_mtu(const char *name, uint32_t mtu, char **kernel_msg);

/* The same for the transmit queue length (IFLA_TXQLEN). */
int link_set_txqlen(const char *name, uint32_t txqlen, char **kernel_msg);

/* Convert a libnl error (NLE_*, positive or negative) to -errno. The one
 * place libnl's error space is translated. */
int link_errno_from_nle(int nle);

#endif
