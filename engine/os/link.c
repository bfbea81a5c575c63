/* link.c: links through rtnetlink with libnl-route-3 (see link.h).
 *
 * Owns: the netlink sockets it opens (one per call, closed before
 * returning) and the NLE_* -> errno table (the extended-ack capture is
 * nlerr.h's). Reads use libnl-route's link parser plus the raw
 * IFLA_MIN_MTU/IFLA_MAX_MTU attributes, which libnl 3.7 has no getter for. Must never: touch /proc or
 * /sys, change a link attribute other than the one asked for. */
#define _GNU_SOURCE
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netlink/errno.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/socket.h>
#include <sys/socket.h>

#include "link.h"
#include "nlerr.h"

static const char *const operstate_names[_LINK_OPER_MAX] = {
    [LINK_OPER_UNKNOWN] = "unknown", [LINK_OPER_NOTPRESENT] = "notpresent",
    [LINK_OPER_DOWN] = "down",	     [LINK_OPER_LOWERLAYERDOWN] = "lowerlayerdown",
    [LINK_OPER_TESTING] = "testing", [LINK_OPER_DORMANT] = "dormant",
    [LINK_OPER_UP] = "up",
};

const char *link_operstate_to_string(enum link_operstate s)
{
	if ((unsigned)s >= _LINK_OPER_MAX)
		return NULL;
	return operstate_names[s];
}

int link_operstate_from_string(const char *s, enum link_operstate *ret)
{
	for (unsigned i = 0; i < _LINK_OPER_MAX; i++)
		if (streq(operstate_names[i], s)) {
			*ret = (enum link_operstate)i;
			return 0;
		}
	return -EINVAL;
}

/* libnl's error space, translated once. Codes without an errno twin map to
 * the nearest meaning (a malformed reply is -EBADMSG). */
static const int nle_errno[NLE_MAX + 1] = {
    [NLE_SUCCESS] = 0,
    [NLE_FAILURE] = EIO,
    [NLE_INTR] = EINTR,
    [NLE_BAD_SOCK] = EBADF,
    [NLE_AGAIN] = EAGAIN,
    [NLE_NOMEM] = ENOMEM,
    [NLE_EXIST] = EEXIST,
    [NLE_INVAL] = EINVAL,
    [NLE_RANGE] = ERANGE,
    [NLE_MSGSIZE] = EMSGSIZE,
    [NLE_OPNOTSUPP] = EOPNOTSUPP,
    [NLE_AF_NOSUPPORT] = EAFNOSUPPORT,
    [NLE_OBJ_NOTFOUND] = ENOENT,
    [NLE_NOATTR] = ENODATA,
    [NLE_MISSING_ATTR] = EINVAL,
    [NLE_AF_MISMATCH] = EAFNOSUPPORT,
    [NLE_SEQ_MISMATCH] = EILSEQ,
    [NLE_MSG_OVERFLOW] = EOVERFLOW,
    [NLE_MSG_TRUNC] = EMSGSIZE,
    [NLE_NOADDR] = EADDRNOTAVAIL,
    [NLE_SRCRT_NOSUPPORT] = EOPNOTSUPP,
    [NLE_MSG_TOOSHORT] = EBADMSG,
    [NLE_MSGTYPE_NOSUPPORT] = EOPNOTSUPP,
    [NLE_OBJ_MISMATCH] = EINVAL,
    [NLE_NOCACHE] = ENOENT,
    [NLE_BUSY] = EBUSY,
    [NLE_PROTO_MISMATCH] = EPROTONOSUPPORT,
    [NLE_NOACCESS] = EACCES,
    [NLE_PERM] = EPERM,
    [NLE_PKTLOC_FILE] = ENOENT,
    [NLE_PARSE_ERR] = EBADMSG,
    [NLE_NODEV] = ENODEV,
    [NLE_IMMUTABLE] = EPERM,
    [NLE_DUMP_INTR] = EINTR,
    [NLE_ATTRSIZE] = EBADMSG,
};

int link_errno_from_nle(int nle)
{
	if (nle < 0)
		nle = -nle;
	if (nle == 0)
		return 0;
	if (nle > NLE_MAX)
		return -EIO;
	return -nle_errno[nle];
}

static void rtnl_link_putp(struct rtnl_link **l)
{
	if (*l)
		rtnl_link_put(*l);
}
#define _cleanup_rtnl_link_ _cleanup_(rtnl_link_putp)

/* A connected NETLINK_ROUTE socket that asks for extended acks and records
 * kernel errors into *k. */
static int link_socket(struct nl_kernel_error *k, struct nl_sock **ret)
{
	_cleanup_nl_sock_ struct nl_sock *sk = NULL;
	int r;

	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	r = nl_connect(sk, NETLINK_ROUTE);
	if (r < 0)
		return link_errno_from_nle(r);
	r = nl_kernel_error_attach(sk, k);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(sk);
	return 0;
}

static const enum link_operstate operstate_from_kernel[] = {
    [IF_OPER_UNKNOWN] = LINK_OPER_UNKNOWN, [IF_OPER_NOTPRESENT] = LINK_OPER_NOTPRESENT,
    [IF_OPER_DOWN] = LINK_OPER_DOWN,	   [IF_OPER_LOWERLAYERDOWN] = LINK_OPER_LOWERLAYERDOWN,
    [IF_OPER_TESTING] = LINK_OPER_TESTING, [IF_OPER_DORMANT] = LINK_OPER_DORMANT,
    [IF_OPER_UP] = LINK_OPER_UP,
};

/* Collects parsed links. */
struct link_dump {
	struct link_info *v;
	size_t n, cap;
	int err;
	struct link_info *cur; /* the entry nl_msg_parse fills */
};

static void fill_from_object(struct nl_object *obj, void *arg)
{
	struct link_info *l = arg;
	struct rtnl_link *link = (struct rtnl_link *)obj;
	const char *name = rtnl_link_get_name(link), *kind = rtnl_link_get_type(link);
	uint8_t oper = rtnl_link_get_operstate(link);

	snprintf(l->name, sizeof(l->name), "%s", name ? name : "");
	snprintf(l->kind, sizeof(l->kind), "%s", kind ? kind : "");
	l->ifindex = rtnl_link_get_ifindex(link);
	l->mtu = rtnl_link_get_mtu(link);
	l->txqlen = rtnl_link_get_txqlen(link);
	l->flags = rtnl_link_get_flags(link);
	l->loopback = l->flags & IFF_LOOPBACK;
	l->admin_up = l->flags & IFF_UP;
	l->lower_up = l->flags & IFF_LOWER_UP;
	l->operstate =
	    oper < ARRAY_SIZE(operstate_from_kernel) ? operstate_from_kernel[oper] : LINK_OPER_UNKNOWN;
}

static int valid_cb(struct nl_msg *msg, void *arg)
{
	struct link_dump *d = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct nlattr *tb[IFLA_MAX + 1];
	struct link_info l = {0};
	int r;

	if (h->nlmsg_type != RTM_NEWLINK)
		return NL_SKIP;
	r = nlmsg_parse(h, sizeof(struct ifinfomsg), tb, IFLA_MAX, NULL);
	if (r < 0) {
		d->err = link_errno_from_nle(r);
		return NL_STOP;
	}
	r = nl_msg_parse(msg, fill_from_object, &l);
	if (r < 0) {
		d->err = link_errno_from_nle(r);
		return NL_STOP;
	}
	/* Devices without a range (loopback, ifb) report 0/0. */
	if (tb[IFLA_MIN_MTU] && tb[IFLA_MAX_MTU] && nla_get_u32(tb[IFLA_MAX_MTU]) > 0) {
		l.has_mtu_range = true;
		l.min_mtu = nla_get_u32(tb[IFLA_MIN_MTU]);
		l.max_mtu = nla_get_u32(tb[IFLA_MAX_MTU]);
	}
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 8;
		struct link_info *nv = realloc(d->v, cap * sizeof(*nv));
		if (!nv) {
			d->err = -ENOMEM;
			return NL_STOP;
		}
		d->v = nv;
		d->cap = cap;
	}
	d->v[d->n++] = l;
	return NL_OK;
}

static int cmp_ifindex(const void *a, const void *b)
{
	const struct link_info *x = a, *y = b;
	return (x->ifindex > y->ifindex) - (x->ifindex < y->ifindex);
}

/* Send msg (or a dump request when msg is NULL) and collect the links. */
static int link_query(struct nl_msg *msg, struct link_dump *d)
{
	_cleanup_(nl_kernel_error_done) struct nl_kernel_error k = {0};
	_cleanup_nl_sock_ struct nl_sock *sk = NULL;
	int r;

	r = link_socket(&k, &sk);
	if (r < 0)
		return r;
	r = nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, valid_cb, d);
	if (r < 0)
		return link_errno_from_nle(r);
	if (msg)
		r = nl_send_auto(sk, msg);
	else {
		struct ifinfomsg ifi = {.ifi_family = AF_UNSPEC};
		r = nl_send_simple(sk, RTM_GETLINK, NLM_F_DUMP, &ifi, sizeof(ifi));
	}
	if (r < 0)
		return link_errno_from_nle(r);
	r = nl_recvmsgs_default(sk);
	if (d->err < 0)
		return d->err;
	if (k.err < 0)
		return k.err;
	if (r < 0)
		return link_errno_from_nle(r);
	return 0;
}

int link_list(struct link_info **ret, size_t *ret_n)
{
	struct link_dump d = {0};
	int r;

	/* A dump that raced with a link change is flagged inconsistent
	 * (NLE_DUMP_INTR -> -EINTR): take it again, a bounded number of times. */
	for (unsigned attempt = 0;; attempt++) {
		r = link_query(NULL, &d);
		if (r != -EINTR || attempt >= 3)
			break;
		free(d.v);
		d = (struct link_dump){0};
	}
	if (r < 0) {
		free(d.v);
		return r;
	}
	if (d.n > 1)
		qsort(d.v, d.n, sizeof(*d.v), cmp_ifindex);
	*ret = d.v;
	*ret_n = d.n;
	return 0;
}

int link_get(const char *name, struct link_info *ret)
{
	_cleanup_nlmsg_ struct nl_msg *msg = NULL;
	struct link_dump d = {0};
	int r;

	if (!name || !ifname_valid(name))
		return -EINVAL;
	r = rtnl_link_build_get_request(0, name, &msg);
	if (r < 0)
		return link_errno_from_nle(r);
	r = link_query(msg, &d);
	if (r >= 0 && (d.n != 1 || !streq(d.v[0].name, name)))
		r = -ENODEV;
	if (r >= 0)
		*ret = d.v[0];
	free(d.v);
	return r;
}

int link_get_stats(const char *name, struct link_stats *ret)
{
	_cleanup_(nl_kernel_error_done) struct nl_kernel_error k = {0};
	_cleanup_nl_sock_ struct nl_sock *sk = NULL;
	_cleanup_rtnl_link_ struct rtnl_link *l = NULL;
	int r;

	if (!name || !ifname_valid(name))
		return -EINVAL;
	r = link_socket(&k, &sk);
	if (r < 0)
		return r;
	r = rtnl_link_get_kernel(sk, 0, name, &l);
	if (r < 0)
		return k.err < 0 ? k.err : link_errno_from_nle(r);
	*ret = (struct link_stats){
	    .rx_packets = rtnl_link_get_stat(l, RTNL_LINK_RX_PACKETS),
	    .tx_packets = rtnl_link_get_stat(l, RTNL_LINK_TX_PACKETS),
	    .rx_dropped = rtnl_link_get_stat(l, RTNL_LINK_RX_DROPPED),
	    .tx_dropped = rtnl_link_get_stat(l, RTNL_LINK_TX_DROPPED),
	    .rx_errors = rtnl_link_get_stat(l, RTNL_LINK_RX_ERRORS),
	    .tx_errors = rtnl_link_get_stat(l, RTNL_LINK_TX_ERRORS),
	    .rx_crc_errors = rtnl_link_get_stat(l, RTNL_LINK_RX_CRC_ERR),
	    .rx_frame_errors = rtnl_link_get_stat(l, RTNL_LINK_RX_FRAME_ERR),
	    .rx_length_errors = rtnl_link_get_stat(l, RTNL_LINK_RX_LEN_ERR),
	    .rx_missed_errors = rtnl_link_get_stat(l, RTNL_LINK_RX_MISSED_ERR),
	    .rx_fifo_errors = rtnl_link_get_stat(l, RTNL_LINK_RX_FIFO_ERR),
	    .rx_over_errors = rtnl_link_get_stat(l, RTNL_LINK_RX_OVER_ERR),
	    .tx_fifo_errors = rtnl_link_get_stat(l, RTNL_LINK_TX_FIFO_ERR),
	    .tx_carrier_errors = rtnl_link_get_stat(l, RTNL_LINK_TX_CARRIER_ERR),
	    .tx_aborted_errors = rtnl_link_get_stat(l, RTNL_LINK_TX_ABORT_ERR),
	};
	return 0;
}

/* One u32 attribute of a link: libnl's getter and setter, and where
 * link_info keeps it (for the read-back). */
struct link_u32 {
	unsigned (*get)(struct rtnl_link *l);
	void (*set)(struct rtnl_link *l, unsigned v);
	size_t info_offset;
};

static const struct link_u32 link_mtu = {rtnl_link_get_mtu, rtnl_link_set_mtu,
					 offsetof(struct link_info, mtu)};
static const struct link_u32 link_txqlen = {rtnl_link_get_txqlen, rtnl_link_set_txqlen,
					    offsetof(struct link_info, txqlen)};

/* Set attribute a of link name with rtnl_link_change() against the link as
 * it is, then read it back (see link_set_mtu). */
static int link_set_u32(const char *name, const struct link_u32 *a, uint32_t value, char **kernel_msg)
{
	_cleanup_(nl_kernel_error_done) struct nl_kernel_error k = {0};
	_cleanup_nl_sock_ struct nl_sock *sk = NULL;
	_cleanup_rtnl_link_ struct rtnl_link *orig = NULL, *changes = NULL;
	struct link_info after;
	int r;

	if (kernel_msg)
		*kernel_msg = NULL;
	if (!name || !ifname_valid(name))
		return -EINVAL;
	r = link_socket(&k, &sk);
	if (r < 0)
		return r;
	r = rtnl_link_get_kernel(sk, 0, name, &orig);
	if (r < 0)
		return k.err < 0 ? k.err : link_errno_from_nle(r);
	if (a->get(orig) == value)
		return 0;
	changes = rtnl_link_alloc();
	if (!changes)
		return -ENOMEM;
	a->set(changes, value);
	nl_kernel_error_done(&k);
	r = rtnl_link_change(sk, orig, changes, 0);
	if (r < 0) {
		r = k.err < 0 ? k.err : link_errno_from_nle(r);
		if (kernel_msg && k.msg)
			*kernel_msg = TAKE_PTR(k.msg);
		return r;
	}
	r = link_get(name, &after);
	if (r < 0)
		return r;
	return *(const uint32_t *)((const char *)&after + a->info_offset) == value ? 1 : -EIO;
}

int link_set_mtu(const char *name, uint32_t mtu, char **kernel_msg)
{
	return link_set_u32(name, &link_mtu, mtu, kernel_msg);
}

int link_set_txqlen(const char *name, uint32_t txqlen, char **kernel_msg)
{
	return link_set_u32(name, &link_txqlen, txqlen, kernel_msg);
}
