/* ethnl.c: the ethtool genetlink family and the parameter groups (see
 * ethnl.h).
 *
 * Owns: one genetlink socket per call (closed before returning), the
 * request header, the read-compare-write-readback sequence of a group
 * parameter and its ioctl fallback. Must never: touch /proc or /sys, send a
 * parameter that already has the wanted value, rewrite the kernel's
 * message. */
#define _GNU_SOURCE
#include "ethnl.h"

#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include "ethops.h"
#include "ethtool.h"
#include "link.h"
#include "nlerr.h"

/* Every ethtool message carries its header nest as attribute 1
 * (ETHTOOL_A_FEATURES_HEADER, ETHTOOL_A_COALESCE_HEADER, ...). */
#define ETHNL_HEADER_ATTR 1

struct reply {
	const struct ethnl_request *q;
	int r;
	bool acked;
};

static int valid_cb(struct nl_msg *msg, void *arg)
{
	struct reply *rp = arg;
	struct nlattr *tb[ETHNL_ATTR_MAX + 1];

	if (!rp->q->decode)
		return NL_OK;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, rp->q->maxattr, NULL) < 0) {
		rp->r = -EBADMSG;
		return NL_SKIP;
	}
	rp->r = rp->q->decode(tb, rp->q->decode_arg);
	return NL_OK;
}

static int ack_cb(struct nl_msg *msg _unused_, void *arg)
{
	((struct reply *)arg)->acked = true;
	return NL_STOP;
}

static int put_header(struct nl_msg *m, const struct ethnl_request *q)
{
	struct nlattr *h = nla_nest_start(m, ETHNL_HEADER_ATTR);

	if (!h || nla_put_string(m, ETHTOOL_A_HEADER_DEV_NAME, q->ifname) < 0 ||
	    (q->flags && nla_put_u32(m, ETHTOOL_A_HEADER_FLAGS, q->flags) < 0))
		return -EMSGSIZE;
	return nla_nest_end(m, h) < 0 ? -EMSGSIZE : 0;
}

int ethnl_call(const struct ethnl_request *q, char **ret_kmsg)
{
	_cleanup_(nl_kernel_error_done) struct nl_kernel_error k = {0};
	_cleanup_nl_sock_ struct nl_sock *sk = NULL;
	_cleanup_nlmsg_ struct nl_msg *m = NULL;
	struct reply rp = {.q = q};
	int family, r;

	if (ret_kmsg)
		*ret_kmsg = NULL;
	if (!q->ifname || !ifname_valid(q->ifname) || q->maxattr > ETHNL_ATTR_MAX)
		return -EINVAL;
	if (failpoint("ethnl-absent", 1))
		return -EOPNOTSUPP; /* tests: as on a kernel without ethtool netlink */
	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	r = genl_connect(sk);
	if (r < 0)
		return link_errno_from_nle(r);
	family = genl_ctrl_resolve(sk, ETHTOOL_GENL_NAME);
	if (family < 0)
		return -EOPNOTSUPP; /* a kernel without ethtool netlink */
	r = nl_kernel_error_attach(sk, &k);
	if (r < 0)
		return r;
	m = nlmsg_alloc();
	if (!m)
		return -ENOMEM;
	if (!genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_REQUEST, q->cmd,
			 ETHTOOL_GENL_VERSION))
		return -EMSGSIZE;
	r = put_header(m, q);
	if (r >= 0 && q->encode)
		r = q->encode(m, q->encode_arg);
	if (r < 0)
		return r;
	if (nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, valid_cb, &rp) < 0 ||
	    nl_socket_modify_cb(sk, NL_CB_ACK, NL_CB_CUSTOM, ack_cb, &rp) < 0)
		return -ENOMEM;
	r = nl_send_auto(sk, m);
	while (r >= 0 && !rp.acked && k.err == 0)
		r = nl_recvmsgs_default(sk);
	if (k.err < 0) {
		if (ret_kmsg)
			*ret_kmsg = TAKE_PTR(k.msg);
		return k.err;
	}
	if (r < 0)
		return link_errno_from_nle(r);
	return rp.r;
}

/* ---- parameter groups ---- */

int ethnl_group_find(const struct ethnl_group *g, const char *name)
{
	for (size_t i = 0; i < g->n_params; i++)
		if (streq(g->params[i].name, name))
			return (int)i;
	return -ENOENT;
}

int ethnl_group_encode(const struct ethnl_group *g, struct nl_msg *m, size_t i, uint32_t value)
{
	const struct ethnl_param *p;

	if (i >= g->n_params)
		return -EINVAL;
	p = &g->params[i];
	if (p->is_bool) {
		if (value > 1)
			return -EINVAL;
		return nla_put_u8(m, p->attr, (uint8_t)value) < 0 ? -EMSGSIZE : 0;
	}
	return nla_put_u32(m, p->attr, value) < 0 ? -EMSGSIZE : 0;
}

int ethnl_group_decode(const struct ethnl_group *g, struct nlattr **tb, struct ethnl_values *ret)
{
	struct ethnl_values v = {0};

	for (size_t i = 0; i < g->n_params; i++) {
		const struct ethnl_param *p = &g->params[i];
		const struct nlattr *a = tb[p->attr];

		if (!a)
			continue;
		if (nla_len(a) < (p->is_bool ? 1 : 4))
			return -EBADMSG;
		v.v[i] = p->is_bool ? (nla_get_u8((struct nlattr *)a) != 0) : nla_get_u32((struct nlattr *)a);
		v.present[i] = true;
		a = p->max_attr ? tb[p->max_attr] : NULL;
		if (a && nla_len(a) >= 4)
			v.max[i] = nla_get_u32((struct nlattr *)a);
	}
	*ret = v;
	return 0;
}

void ethnl_group_from_ioctl(const struct ethnl_group *g, const void *buf, struct ethnl_values *ret)
{
	struct ethnl_values v = {0};

	for (size_t i = 0; i < g->n_params; i++) {
		uint32_t x;

		memcpy(&x, (const char *)buf + g->params[i].ioctl_offset, sizeof(x));
		v.v[i] = g->params[i].is_bool ? x != 0 : x;
		v.present[i] = true;
		if (g->params[i].max_attr) {
			memcpy(&x, (const char *)buf + g->params[i].ioctl_max_offset, sizeof(x));
			v.max[i] = x;
			/* as netlink: a channel type with no maximum is not reported */
			v.present[i] = x > 0;
		}
	}
	*ret = v;
}

struct group_get {
	const struct ethnl_group *g;
	struct ethnl_values *v;
};

static int group_decode_cb(struct nlattr **tb, void *arg)
{
	struct group_get *gg = arg;
	return ethnl_group_decode(gg->g, tb, gg->v);
}

/* The ioctl structure of the group, read into buf (ioctl_size bytes). */
static int group_ioctl_get(const struct ethnl_group *g, const char *ifname, void *buf)
{
	memset(buf, 0, g->ioctl_size);
	memcpy(buf, &g->ioctl_get, sizeof(uint32_t)); /* .cmd comes first in every ethtool struct */
	return ethtool_request(ifname, buf);
}

struct group_get_arg {
	const struct ethnl_group *g;
	struct ethnl_values *v;
};

int ethnl_group_nl_get(const char *ifname, void *arg, char **ret_kmsg)
{
	struct group_get_arg *a = arg;
	struct group_get gg = {a->g, a->v};
	const struct ethnl_request q = {
	    .cmd = a->g->get_cmd,
	    .ifname = ifname,
	    .maxattr = a->g->maxattr,
	    .decode = group_decode_cb,
	    .decode_arg = &gg,
	};

	return ethnl_call(&q, ret_kmsg);
}

int ethnl_group_ioctl_get(const char *ifname, void *arg)
{
	struct group_get_arg *a = arg;
	_cleanup_free_ void *buf = malloc(a->g->ioctl_size);
	int r;

	if (!buf)
		return -ENOMEM;
	r = group_ioctl_get(a->g, ifname, buf);
	if (r >= 0)
		ethnl_group_from_ioctl(a->g, buf, a->v);
	return r;
}

int ethnl_group_get(const struct ethnl_group *g, const char *ifname, struct ethnl_values *ret,
		    char **ret_kmsg)
{
	struct ethnl_values v = {0};
	struct group_get_arg a = {g, &v};
	int r;

	r = ethtool_op_run(ETHOP_GROUP_GET, ifname, &a, ret_kmsg);
	if (r < 0)
		return r;
	*ret = v;
	return 0;
}

struct group_set {
	const struct ethnl_group *g;
	size_t i;
	uint32_t value;
};

static int group_encode_cb(struct nl_msg *m, const void *arg)
{
	const struct group_set *gs = arg;
	return ethnl_group_encode(gs->g, m, gs->i, gs->value);
}

static int group_ioctl_set(const struct ethnl_group *g, const char *ifname, size_t i, uint32_t value)
{
	_cleanup_free_ void *buf = malloc(g->ioctl_size);
	int r;

	if (!buf)
		return -ENOMEM;
	r = group_ioctl_get(g, ifname, buf);
	if (r < 0)
		return r;
	memcpy(buf, &g->ioctl_set, sizeof(uint32_t));
	memcpy((char *)buf + g->params[i].ioctl_offset, &value, sizeof(value));
	return ethtool_request(ifname, buf);
}

int ethnl_group_nl_set(const char *ifname, void *arg, char **ret_kmsg)
{
	const struct group_set *gs = arg;
	const struct ethnl_request q = {
	    .cmd = gs->g->set_cmd,
	    .ifname = ifname,
	    .flags = ETHTOOL_FLAG_OMIT_REPLY,
	    .encode = group_encode_cb,
	    .encode_arg = gs,
	};

	return ethnl_call(&q, ret_kmsg);
}

int ethnl_group_ioctl_set(const char *ifname, void *arg)
{
	const struct group_set *gs = arg;
	return group_ioctl_set(gs->g, ifname, gs->i, gs->value);
}

int ethnl_group_set(const struct ethnl_group *g, const char *ifname, size_t i, uint32_t value,
		    char **ret_kmsg)
{
	struct group_set gs = {g, i, value};
	struct ethnl_values cur;
	int r;

	if (ret_kmsg)
		*ret_kmsg = NULL;
	if (i >= g->n_params || (g->params[i].is_bool && value > 1))
		return -EINVAL;
	r = ethnl_group_get(g, ifname, &cur, ret_kmsg);
	if (r < 0)
		return r;
	if (!cur.present[i])
		return -EOPNOTSUPP;
	if (cur.v[i] == value)
		return 0;
	r = ethtool_op_run(ETHOP_GROUP_SET, ifname, &gs, ret_kmsg);
	if (r < 0)
		return r;
	r = ethnl_group_get(g, ifname, &cur, ret_kmsg);
	if (r < 0)
		return r;
	return cur.present[i] && cur.v[i] == value ? 1 : -EIO;
}
