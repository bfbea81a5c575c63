/* qdisc.c: qdisc statistics over rtnetlink (see qdisc.h).
 *
 * Owns: the netlink socket of one dump (opened and closed per call) and
 * the attribute policies of the messages it reads. Must never: send
 * anything but the dump request. */
#define _GNU_SOURCE
#include "qdisc.h"

#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <sys/socket.h>

#include "link.h"
#include "nlerr.h"

static struct nla_policy tca_policy[TCA_MAX + 1] = {
    [TCA_KIND] = {.type = NLA_STRING},
    [TCA_STATS] = {.minlen = sizeof(struct tc_stats)},
    [TCA_STATS2] = {.type = NLA_NESTED},
};

static struct nla_policy stats2_policy[TCA_STATS_MAX + 1] = {
    [TCA_STATS_BASIC] = {.minlen = offsetof(struct gnet_stats_basic, packets) + sizeof(uint32_t)},
    [TCA_STATS_QUEUE] = {.minlen = sizeof(struct gnet_stats_queue)},
    [TCA_STATS_PKT64] = {.type = NLA_U64},
};

/* The kind as printable text (a NUL-terminated string of the message). */
static void copy_kind(char dst[static 16], const struct nlattr *a)
{
	const char *s = nla_data(a);
	size_t i = 0;

	for (; i < 15 && i < (size_t)nla_len(a) && s[i]; i++)
		dst[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	dst[i] = '\0';
}

static int parse_stats2(struct nlattr *a, struct qdisc_stats *acc)
{
	struct nlattr *tb[TCA_STATS_MAX + 1];
	int r = nla_parse_nested(tb, TCA_STATS_MAX, a, stats2_policy);

	if (r < 0)
		return -EBADMSG;
	if (tb[TCA_STATS_BASIC]) {
		struct gnet_stats_basic b = {0};
		size_t n = (size_t)nla_len(tb[TCA_STATS_BASIC]);

		memcpy(&b, nla_data(tb[TCA_STATS_BASIC]), n < sizeof(b) ? n : sizeof(b));
		acc->bytes = b.bytes;
		acc->packets = b.packets;
	}
	if (tb[TCA_STATS_PKT64])
		acc->packets = nla_get_u64(tb[TCA_STATS_PKT64]);
	if (tb[TCA_STATS_QUEUE]) {
		struct gnet_stats_queue q;

		memcpy(&q, nla_data(tb[TCA_STATS_QUEUE]), sizeof(q));
		acc->qlen = q.qlen;
		acc->backlog = q.backlog;
		acc->drops = q.drops;
		acc->requeues = q.requeues;
		acc->overlimits = q.overlimits;
	}
	return 0;
}

int qdisc_parse_msg(const struct nlmsghdr *h, int ifindex, struct qdisc_stats *acc)
{
	struct nlattr *tb[TCA_MAX + 1];
	const struct tcmsg *tcm;
	int r;

	if (h->nlmsg_type != RTM_NEWQDISC)
		return 0;
	r = nlmsg_parse((struct nlmsghdr *)h, sizeof(struct tcmsg), tb, TCA_MAX, tca_policy);
	if (r < 0)
		return -EBADMSG;
	tcm = nlmsg_data(h);
	if (tcm->tcm_ifindex != ifindex)
		return 0;
	acc->count++;
	if (tcm->tcm_parent != TC_H_ROOT || acc->has_root)
		return 0;
	acc->has_root = true;
	if (tb[TCA_KIND])
		copy_kind(acc->kind, tb[TCA_KIND]);
	if (tb[TCA_STATS2])
		return parse_stats2(tb[TCA_STATS2], acc);
	if (tb[TCA_STATS]) {
		struct tc_stats st;

		memcpy(&st, nla_data(tb[TCA_STATS]), sizeof(st));
		acc->bytes = st.bytes;
		acc->packets = st.packets;
		acc->drops = st.drops;
		acc->overlimits = st.overlimits;
		acc->qlen = st.qlen;
		acc->backlog = st.backlog;
	}
	return 0;
}

int qdisc_parse_dump(const void *buf, size_t len, int ifindex, struct qdisc_stats *ret)
{
	/* Aligned for the headers' fields, whatever buf's alignment. */
	_cleanup_free_ void *copy = malloc(len ? len : 1);
	struct qdisc_stats acc = {0};
	struct nlmsghdr *h;
	int left = (int)len;

	if (!copy)
		return -ENOMEM;
	if (len > INT32_MAX)
		return -EBADMSG;
	memcpy(copy, buf, len);
	for (h = copy; left > 0; h = nlmsg_next(h, &left)) {
		int r;

		if (!nlmsg_ok(h, left))
			return -EBADMSG;
		if (h->nlmsg_type == NLMSG_DONE)
			break;
		if (h->nlmsg_type == NLMSG_ERROR)
			return -EBADMSG;
		r = qdisc_parse_msg(h, ifindex, &acc);
		if (r < 0)
			return r;
	}
	*ret = acc;
	return 0;
}

struct dump {
	int ifindex;
	struct qdisc_stats acc;
	int err;
};

static int valid_cb(struct nl_msg *msg, void *arg)
{
	struct dump *d = arg;
	int r = qdisc_parse_msg(nlmsg_hdr(msg), d->ifindex, &d->acc);

	if (r < 0) {
		d->err = r;
		return NL_STOP;
	}
	return NL_OK;
}

static int dump_once(int ifindex, struct qdisc_stats *ret)
{
	_cleanup_(nl_kernel_error_done) struct nl_kernel_error k = {0};
	_cleanup_nl_sock_ struct nl_sock *sk = nl_socket_alloc();
	struct tcmsg tcm = {.tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex};
	struct dump d = {.ifindex = ifindex};
	int r;

	if (!sk)
		return -ENOMEM;
	r = nl_connect(sk, NETLINK_ROUTE);
	if (r < 0)
		return link_errno_from_nle(r);
	r = nl_kernel_error_attach(sk, &k);
	if (r < 0)
		return r;
	r = nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, valid_cb, &d);
	if (r < 0)
		return link_errno_from_nle(r);
	r = nl_send_simple(sk, RTM_GETQDISC, NLM_F_DUMP, &tcm, sizeof(tcm));
	if (r < 0)
		return link_errno_from_nle(r);
	r = nl_recvmsgs_default(sk);
	if (d.err < 0)
		return d.err;
	if (k.err < 0)
		return k.err;
	if (r < 0)
		return link_errno_from_nle(r);
	*ret = d.acc;
	return 0;
}

int qdisc_stats_get(const char *ifname, struct qdisc_stats *ret)
{
	struct link_info l;
	int r;

	r = link_get(ifname, &l);
	if (r < 0)
		return r;
	/* A dump that raced with a qdisc change is flagged inconsistent
	 * (-EINTR): take it again, a bounded number of times. */
	for (unsigned attempt = 0;; attempt++) {
		r = dump_once(l.ifindex, ret);
		if (r != -EINTR || attempt >= 3)
			return r;
	}
}
