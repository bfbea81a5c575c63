/* snmp.h: the kernel's SNMP MIB counters of this network namespace
 * (/proc/net/snmp: Ip, Icmp, Tcp, Udp, UdpLite; /proc/net/snmp6: Ip6,
 * Icmp6, Udp6, UdpLite6), as `nstat` names them.
 *
 * Owns: parsing both formats into one table of named counters, and reading
 * them from the live network namespace (sysroot_read_live_counters: never
 * from a sysroot fixture). Names are nstat's: the protocol without its
 * colon followed by the field ("UdpRcvbufErrors", "IpReasmFails"), and
 * /proc/net/snmp6 names as the kernel spells them ("Udp6RcvbufErrors").
 * Values are read by their header name, never by position (fields are
 * added over kernel versions). Must never: guess a counter a kernel does
 * not print (absent stays absent), or keep a signed field (Tcp MaxConn
 * -1 is not a counter). */
#ifndef CX5_SNMP_H
#define CX5_SNMP_H

#include "base/util.h"

struct snmp_counter {
	char *name; /* "UdpRcvbufErrors" */
	uint64_t value;
};

struct snmp_table {
	struct snmp_counter *v;
	size_t n;
};

/* /proc/net/snmp: pairs of lines, "Proto: Name Name ..." then "Proto: 1 2
 * ...". -EINVAL (with *ret_line the 1-based line, when ret_line is not
 * NULL) for a line that is not such a pair half: a value line without its
 * header, a different protocol or number of fields, a value that is not a
 * number; -ENOMEM. A name seen twice keeps its first value. */
int snmp_parse(const char *text, struct snmp_table **ret, unsigned *ret_line);
/* /proc/net/snmp6: "Name<whitespace>value" per line; the same errors. */
int snmp6_parse(const char *text, struct snmp_table **ret, unsigned *ret_line);

/* Both files of this process's network namespace, in one table (a kernel
 * without IPv6 has no snmp6: then the IPv4 table alone). -errno when
 * /proc/net/snmp cannot be read or parsed. */
int snmp_read(struct snmp_table **ret);

/* The counter called name: true with *ret set, false when absent. */
bool snmp_get(const struct snmp_table *t, const char *name, uint64_t *ret);

void snmp_table_free(struct snmp_table *t);
static inline void snmp_table_freep(struct snmp_table **t)
{
	snmp_table_free(*t);
}
#define _cleanup_snmp_table_ _cleanup_(snmp_table_freep)

#endif
