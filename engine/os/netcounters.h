/* netcounters.h: one snapshot of every kernel counter the loss ledger
 * reads on a host, by name.
 *
 * Owns: the list of counters and their names, and where each comes from:
 *   "Udp*", "Udp6*", "Ip*", "Ip6*"  /proc/net/snmp and snmp6 of this
 *        process's network namespace (snmp.h; the live namespace even
 *        under --sysroot), nstat's names ("UdpRcvbufErrors");
 *   "softnet.dropped", "softnet.time_squeeze", "softnet.processed" and
 *        "softnet.dropped.cpuN"  /proc/net/softnet_stat (softnet.h):
 *        host-wide, every namespace of the kernel shares it; the per-CPU
 *        entries only for CPUs whose dropped count is not 0 (absent is 0);
 *   "qdisc.drops", "qdisc.overlimits", "qdisc.requeues", "qdisc.packets"
 *        the interface's root qdisc over rtnetlink (qdisc.h);
 *   "link.*"  the interface's IFLA_STATS64 over rtnetlink (link.h);
 *   "nic.*"   the driver's ETHTOOL_GSTATS counters of counters.h's table
 *        (rx_discards_phy, rx_out_of_buffer, ...), present only when the
 *        driver reports them.
 * Every one of them is shared with other traffic (no counter is per
 * socket): the ledger subtracts the rate measured while idle. Must never:
 * report a counter it could not read (a source that fails is named in
 * `unavailable`, its counters absent), or change anything. */
#ifndef CX5_NETCOUNTERS_H
#define CX5_NETCOUNTERS_H

#include "base/util.h"

#define NETCOUNTER_NAME_MAX  47
#define NETCOUNTERS_MAX_CPUS 64 /* per-CPU softnet entries kept, the largest first */

struct netcounter {
	char name[NETCOUNTER_NAME_MAX + 1];
	uint64_t value;
};

struct netcounters {
	uint64_t taken_usec; /* now_usec() when taken (0: never taken) */
	char ifname[16];     /* the interface of the per-device counters, "" for none */
	struct netcounter *v;
	size_t n;
	char **unavailable; /* "qdisc: No such device", one per source that failed */
};

/* Take a snapshot: the host-wide counters, and the per-device ones of
 * ifname (NULL: none). Sources that fail are listed in ret->unavailable;
 * -ENOMEM only. */
int netcounters_take(const char *ifname, struct netcounters *ret);

/* Add (or replace) one counter. -EINVAL for a name that is empty, too
 * long or not [A-Za-z0-9_.]; -ENOMEM. */
int netcounters_set(struct netcounters *s, const char *name, uint64_t value);
bool netcounters_get(const struct netcounters *s, const char *name, uint64_t *ret);
/* A deep copy. -ENOMEM. */
int netcounters_copy(const struct netcounters *s, struct netcounters *ret);
void netcounters_done(struct netcounters *s);

/* Is name one of the counters a snapshot may hold (the names above)? For
 * the peer's answers: a name cx5prof does not know is ignored. */
bool netcounter_name_known(const char *name);

/* Whose counter it is: "host" (softnet_stat: every namespace of the
 * kernel shares it), "namespace" (snmp: this network namespace's) or
 * "device" (qdisc, link, nic: the interface's). */
const char *netcounter_scope(const char *name);

/* How much the counter rose from before to after, with its width: the
 * softnet and qdisc queue counters are 32-bit and wrap (from the top half
 * of their range), the others are 64-bit and never go back (a fall is a
 * reset: 0). */
uint64_t netcounter_rise(const char *name, uint64_t before, uint64_t after);
/* The same, false when the counter went back (reset: a driver reload, a
 * peer restarted): unknown, never a wrap. Only a 32-bit counter (qdisc.*,
 * softnet.dropped.cpuN) wraps, and only from the top half of its range. */
bool netcounter_delta(const char *name, uint64_t before, uint64_t after, uint64_t *ret);

#endif
