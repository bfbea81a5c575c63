/* nlerr.h: what the kernel says when a netlink request fails, and the
 * libnl cleanup helpers, shared by rtnetlink (link.c) and ethtool netlink
 * (ethnl.c).
 *
 * Owns: the NLMSG_ERROR capture (the kernel's own errno, which NLE_* codes
 * lose, and its extended-ack text NLMSGERR_ATTR_MSG, kept verbatim for the
 * user) and the socket setup that asks for extended acks. Must never: log
 * above debug, rewrite the kernel's message. */
#ifndef CX5_NLERR_H
#define CX5_NLERR_H

#include <netlink/msg.h>
#include <netlink/socket.h>

#include "base/util.h"

struct nl_kernel_error {
	int err;   /* -errno, 0: none received */
	char *msg; /* the extack text, NULL when the kernel sent none */
};

void nl_kernel_error_done(struct nl_kernel_error *k);

/* Ask for extended acks on sk (older kernels simply send none) and record
 * every NLMSG_ERROR into *k. -errno on failure. */
int nl_kernel_error_attach(struct nl_sock *sk, struct nl_kernel_error *k);

static inline void nl_socket_freep(struct nl_sock **sk)
{
	if (*sk)
		nl_socket_free(*sk);
}
#define _cleanup_nl_sock_ _cleanup_(nl_socket_freep)

static inline void nlmsg_freep(struct nl_msg **m)
{
	if (*m)
		nlmsg_free(*m);
}
#define _cleanup_nlmsg_ _cleanup_(nlmsg_freep)

#endif
