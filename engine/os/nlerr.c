/* nlerr.c: the kernel's netlink errors and extack text (see nlerr.h).
 *
 * Owns: the NLMSG_ERROR callback. Must never: change the text the kernel
 * sent. */
#define _GNU_SOURCE
#include "nlerr.h"

#include <linux/netlink.h>
#include <sys/socket.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

void nl_kernel_error_done(struct nl_kernel_error *k)
{
	free(k->msg);
	k->msg = NULL;
	k->err = 0;
}

/* NLMSG_ERROR handler: keep the kernel's own errno (NLE_* loses it:
 * ERANGE and EINVAL both matter for MTU) and its NLMSGERR_ATTR_MSG. */
static int error_cb(struct sockaddr_nl *nla _unused_, struct nlmsgerr *e, void *arg)
{
	struct nl_kernel_error *k = arg;
	const struct nlmsghdr *h = (const struct nlmsghdr *)((const char *)e - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t payload = sizeof(*e), off;

	k->err = e->error;
	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	if (!(h->nlmsg_flags & NLM_F_CAPPED) && e->msg.nlmsg_len >= NLMSG_HDRLEN)
		payload += e->msg.nlmsg_len - NLMSG_HDRLEN;
	off = NLMSG_ALIGN(NLMSG_HDRLEN + payload);
	if (off >= h->nlmsg_len)
		return NL_STOP;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)h + off), (int)(h->nlmsg_len - off),
		      NULL) < 0)
		return NL_STOP;
	if (tb[NLMSGERR_ATTR_MSG]) {
		free(k->msg);
		k->msg = strndup(nla_data(tb[NLMSGERR_ATTR_MSG]), (size_t)nla_len(tb[NLMSGERR_ATTR_MSG]));
	}
	return NL_STOP;
}

int nl_kernel_error_attach(struct nl_sock *sk, struct nl_kernel_error *k)
{
	int one = 1;

	(void)setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	return nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, error_cb, k) < 0 ? -ENOMEM : 0;
}
