/* ethops.c: the ethtool operations' table and the one choice between
 * netlink and the ioctl (see ethops.h). */
#include <errno.h>
#include <stdlib.h>

#include "ethops.h"

const struct ethtool_op ethtool_ops[_ETHOP_MAX] = {
    [ETHOP_GROUP_GET] = {"group-get", ethnl_group_nl_get, ethnl_group_ioctl_get},
    [ETHOP_GROUP_SET] = {"group-set", ethnl_group_nl_set, ethnl_group_ioctl_set},
    [ETHOP_FEATURES_GET] = {"features-get", ethfeatures_nl_get, ethfeatures_ioctl_get},
    [ETHOP_FEATURES_SET] = {"features-set", ethfeatures_nl_set, ethfeatures_ioctl_set},
    [ETHOP_PRIVFLAGS_GET] = {"privflags-get", ethprivflags_nl_get, ethprivflags_ioctl_get},
    [ETHOP_PRIVFLAGS_SET] = {"privflags-set", ethprivflags_nl_set, ethprivflags_ioctl_set},
    [ETHOP_RSS_GET] = {"rss-get", NULL, ethrss_ioctl_get},
    [ETHOP_RSS_SET] = {"rss-set", NULL, ethrss_ioctl_set},
    [ETHOP_FLOWHASH_GET] = {"flowhash-get", NULL, ethflowhash_ioctl_get},
    [ETHOP_FLOWHASH_SET] = {"flowhash-set", NULL, ethflowhash_ioctl_set},
};

int ethtool_op_run(enum ethtool_op_id id, const char *ifname, void *arg, char **ret_kmsg)
{
	const struct ethtool_op *op;
	int r;

	if ((unsigned)id >= _ETHOP_MAX)
		return -EINVAL;
	op = &ethtool_ops[id];
	if (!op->nlfunc)
		return op->func(ifname, arg);
	r = op->nlfunc(ifname, arg, ret_kmsg);
	if (r != -EOPNOTSUPP || !op->func)
		return r;
	r = op->func(ifname, arg);
	/* The ioctl did what netlink could not: its refusal is no message. */
	if (r >= 0 && ret_kmsg) {
		free(*ret_kmsg);
		*ret_kmsg = NULL;
	}
	return r;
}
