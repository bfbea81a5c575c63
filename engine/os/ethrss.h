/* ethrss.h: a port's RSS indirection table and hash key (`ethtool -x` /
 * `-X`): which receive queue, and so which core, each flow lands on.
 *
 * Owns: reading the receive ring count (ETHTOOL_GRXRINGS), the table and
 * the key (ETHTOOL_GRSSH), and setting them (ETHTOOL_SRSSH: the whole
 * table, or the driver's default spread, and the key only when given; the
 * hash function is left as it is), read back. The ioctl is the one path:
 * the kernel headers cx5prof builds against have no ETHTOOL_MSG_RSS_GET
 * (Linux 6.2) and netlink has no RSS set before Linux 6.16. A sysroot that
 * describes the port's RSS (ethsysroot.h: `ethtool -x` text) answers
 * instead of the kernel. Works in the caller's network namespace. Must
 * never: change the hash function or the key when not asked, the input
 * transformation, or an RSS context other than the main one; log above
 * debug. */
#ifndef CX5_ETHRSS_H
#define CX5_ETHRSS_H

#include "base/util.h"

#define ETH_RSS_INDIR_MAX 4096	/* entries a table may have here */
#define ETH_RSS_KEY_MAX	  256	/* bytes */
#define ETH_RSS_RINGS_MAX 65536 /* RX rings a header may name (a queue index is 16 bits) */

struct eth_rss {
	uint32_t rings;	     /* receive rings (queues) the table may name */
	uint32_t indir_size; /* entries; 0: no table */
	uint32_t *indir;
	uint32_t key_size; /* bytes; 0: no key */
	uint8_t *key;
	uint8_t input_xfrm; /* GRSSH's input transformation (symmetric hash); 0 from a sysroot */
	uint8_t hfunc;	    /* the hash function in use: one ETH_RSS_HASH_* bit (1 toeplitz, 2 xor,
			     * 4 crc32); 0 when the driver or the text does not say */
};

/* The hash functions by ethtool's names ("toeplitz", "xor", "crc32"), as
 * their ETH_RSS_HASH_* bit; eth_rss_hfunc_name: NULL for 0 or an unknown
 * bit. -EINVAL for an unknown name. */
const char *eth_rss_hfunc_name(uint8_t hfunc);
int eth_rss_hfunc_from_name(const char *name, uint8_t *ret);

void eth_rss_done(struct eth_rss *r);

/* Rings, table and key. -EOPNOTSUPP: the driver has no RSS table. */
int ethtool_get_rss(const char *ifname, struct eth_rss *ret, char **ret_kmsg);

/* What ethtool_set_rss sets: the table (indir: indir_size entries, the
 * device's size; NULL: the driver's default spread over every ring, as
 * `ethtool -X IF default`) when set_indir, the key when key is not NULL
 * (key_size: the device's). */
struct eth_rss_change {
	bool set_indir;
	const uint32_t *indir;
	uint32_t indir_size;
	const uint8_t *key;
	uint32_t key_size;
	uint8_t hfunc; /* the hash function to set (ETH_RSS_HASH_* bit), 0: left as it is */
};

/* Set, then read back: 1 changed, 0 already so (nothing sent), -EINVAL a
 * size that is not the device's or a queue beyond its rings, -EIO the
 * read-back differs. */
int ethtool_set_rss(const char *ifname, const struct eth_rss_change *c, char **ret_kmsg);

/* The SRSSH request of c (caller frees; NULL: no memory), with the
 * input transformation GRSSH gave, sent back as it was. */
struct ethtool_rxfh;
struct ethtool_rxfh *eth_rss_set_request(const struct eth_rss_change *c, uint8_t input_xfrm);

/* The driver's default table: entry i on ring i % rings (the kernel's
 * ethtool_rxfh_indir_default). */
bool eth_rss_is_default(const struct eth_rss *r);

/* `ethtool -x` text: parse (-EBADMSG: not that text, -EOVERFLOW: the
 * header's ring count is not digits from 0 to ETH_RSS_RINGS_MAX ("-1",
 * "4294967359"), -ERANGE: an entry names a queue the header's RX rings do
 * not have), and that text with r's table, key and hash function (when
 * r's is not 0 and the text lists them) written into it (the rest kept as
 * it was). */
int eth_rss_parse(const char *text, struct eth_rss *ret);
char *eth_rss_rewrite(const char *text, const struct eth_rss *r);

#endif
