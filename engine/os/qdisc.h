/* qdisc.h: the transmit queueing discipline's statistics of a device, as
 * `tc -s qdisc show dev IF` prints them, over rtnetlink.
 *
 * Owns: the RTM_GETQDISC dump of this network namespace and the parsing of
 * its RTM_NEWQDISC messages (TCA_KIND; TCA_STATS2 with TCA_STATS_BASIC
 * and TCA_STATS_QUEUE, or the older TCA_STATS). Only the device's root
 * qdisc counts: a classful root (mq with one child per transmit queue,
 * prio, htb) already counts what its children drop, and mq sums its
 * children when dumped, so adding the children would count twice. The
 * ingress qdisc is not a transmit queue and is left out. The queue
 * counters are 32 bits wide in the kernel's structures. Must never: change
 * a qdisc, or log above debug. The messages are parsed here with libnl's
 * attribute validation (nlmsg_parse, nla_parse_nested) rather than
 * libnl-route's rtnl_qdisc objects, whose parser also decodes every qdisc
 * kind's options: what the fuzzer exercises is what runs. */
#ifndef CX5_QDISC_H
#define CX5_QDISC_H

#include <linux/netlink.h>

#include "base/util.h"

struct qdisc_stats {
	bool has_root;	/* the device has a root qdisc (down devices may not) */
	char kind[16];	/* the root's kind: "mq", "fq_codel", "pfifo_fast", "noqueue" */
	unsigned count; /* qdiscs of the device (root, children, ingress) */
	uint64_t bytes, packets;
	uint32_t drops, overlimits, requeues, backlog, qlen;
};

/* Add the root qdisc of ifindex in one RTM_NEWQDISC message (nlmsg_len
 * bytes at h, which the caller checked are there) to *acc; other devices'
 * and other message types are skipped. -EBADMSG for a malformed message. */
int qdisc_parse_msg(const struct nlmsghdr *h, int ifindex, struct qdisc_stats *acc);

/* The same over a buffer of netlink messages as a dump answers (len bytes,
 * any alignment), stopping at NLMSG_DONE. -EBADMSG for a message whose
 * length runs past the buffer or is malformed; *ret is written only on
 * success. */
int qdisc_parse_dump(const void *buf, size_t len, int ifindex, struct qdisc_stats *ret);

/* The statistics of device ifname in this network namespace. -ENODEV no
 * such device; -errno of the netlink request. */
int qdisc_stats_get(const char *ifname, struct qdisc_stats *ret);

#endif
