/* ethflowhash.h: which header fields the NIC hashes a flow type on to pick
 * its receive queue (`ethtool -n IF rx-flow-hash udp4` / `-N ... sdfn`).
 * Without the UDP ports (f, n) every flow between two hosts hashes alike
 * and lands on one queue.
 *
 * Owns: the fields of UDP over IPv4 and IPv6 (ioctl ETHTOOL_GRXFH and
 * ETHTOOL_SRXFH with UDP_V4_FLOW / UDP_V6_FLOW: the kernel headers cx5prof
 * builds against have no netlink for them), read back after a write;
 * ethtool's letters for the fields (m v t s d f n r) and its text; a
 * sysroot that describes the port's flow hash (ethsysroot.h:
 * "rx-flow-hash-udp4") answers instead of the kernel. Works in the
 * caller's network namespace. Must never: change another flow type, log
 * above debug. */
#ifndef CX5_ETHFLOWHASH_H
#define CX5_ETHFLOWHASH_H

#include "base/util.h"

enum eth_flow {
	ETH_FLOW_UDP4,
	ETH_FLOW_UDP6,
	_ETH_FLOW_MAX,
};

/* "udp4", "udp6" (the profile's and ethtool's name); NULL out of range. */
const char *eth_flow_to_string(enum eth_flow f);

/* The fields (RXH_* bits) of flow f. -EOPNOTSUPP: the driver does not
 * report them. */
int ethtool_get_flow_hash(const char *ifname, enum eth_flow f, uint64_t *ret, char **ret_kmsg);
/* Set them, read back: 1 changed, 0 already so, -EIO the read-back
 * differs (the driver took other fields). */
int ethtool_set_flow_hash(const char *ifname, enum eth_flow f, uint64_t fields, char **ret_kmsg);

/* ethtool's letters: "sdfn" <-> RXH_IP_SRC | RXH_IP_DST | RXH_L4_B_0_1 |
 * RXH_L4_B_2_3. parse: -EINVAL for a letter ethtool does not know or one
 * given twice, or no letter at all. format: the letters in ethtool's
 * order (m v t s d f n r), "0x..." for bits it has none for, "" for none;
 * caller frees. */
int eth_flow_hash_parse(const char *letters, uint64_t *ret);
char *eth_flow_hash_format(uint64_t fields);
/* The letters ethtool knows, for messages: "m v t s d f n r". */
const char *eth_flow_hash_letters(void);
/* Both UDP ports are in the hash. */
bool eth_flow_hash_has_ports(uint64_t fields);

/* `ethtool -n IF rx-flow-hash udp4` text, both ways (-EBADMSG: not that
 * text; rewrite keeps its first line, whatever follows it, and is NULL
 * when that line is not the text's). */
int eth_flow_hash_text_parse(const char *text, uint64_t *ret);
char *eth_flow_hash_text_rewrite(const char *text, uint64_t fields);

#endif
