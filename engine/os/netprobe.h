/* netprobe.h: small, bounded network probes towards a benchmark peer.
 *
 * Owns: "is something listening on PEER:PORT" (a TCP connect, closed at
 * once) and "does a full-size frame reach PEER with DF set" (ICMP echo with
 * IP_PMTUDISC_DO, as `ping -M do -s MTU-28`). Both are bounded by a timeout
 * and send at most a handful of packets, to the given peer only. Must
 * never: send to anything but the address it was given, or loop unbounded.
 * IPv4 only for the DF probe (the lab and the seed's hosts are IPv4). */
#ifndef CX5_NETPROBE_H
#define CX5_NETPROBE_H

#include "base/util.h"

/* 0: a TCP listener accepted on one of host's addresses (each tried in
 * getaddrinfo's order, all within timeout_ms); else the last address's
 * failure: -ECONNREFUSED nothing listens; -ETIMEDOUT no answer in
 * timeout_ms (filtered?); -EHOSTUNREACH/-ENETUNREACH; -EINVAL: host is not
 * a numeric address or resolvable name. The timeout starts after name
 * resolution, which is bounded only by the resolver (resolv.conf timeout
 * and attempts); numeric addresses and /etc/hosts names do not wait. */
int netprobe_tcp(const char *host, uint16_t port, unsigned timeout_ms);

enum df_result {
	DF_PASSED,	    /* a full-size DF echo came back */
	DF_LOCAL_TOO_SMALL, /* the local route refused the size (EMSGSIZE) */
	DF_DROPPED,	    /* small echo answered, full-size one not: a hop drops jumbo frames */
	DF_NO_ECHO,	    /* the peer answers no echo at all: nothing learned */
};

/* Probe the path to host (IPv4) with an ICMP echo of mtu - 28 bytes of
 * payload and DF set, then (if unanswered) a 56-byte one. *ret_path_mtu:
 * the route's MTU as the kernel knows it (IP_MTU), 0 if unknown.
 * -errno when no socket could be opened (-EPERM without privileges). */
int netprobe_df(const char *host, uint32_t mtu, unsigned timeout_ms, enum df_result *ret,
		uint32_t *ret_path_mtu);

#endif
