/* ethnl_params.c: the ethtool parameter groups cx5prof manages, coalescing
 * and pause frames, as tables for ethnl.h.
 *
 * Owns: which netlink attribute and which ioctl field carry each
 * parameter; the names are the profile's (link.coalesce.rx_usecs,
 * link.pause.rx). Must never: list a parameter the ioctl structure does
 * not have (the fallback would write beside it). */
#define _GNU_SOURCE
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>

#include "ethnl.h"

static const struct ethnl_param coalesce_params[] = {
    {"adaptive_rx", ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, true,
     offsetof(struct ethtool_coalesce, use_adaptive_rx_coalesce)},
    {"adaptive_tx", ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX, true,
     offsetof(struct ethtool_coalesce, use_adaptive_tx_coalesce)},
    {"rx_usecs", ETHTOOL_A_COALESCE_RX_USECS, false, offsetof(struct ethtool_coalesce, rx_coalesce_usecs)},
    {"rx_frames", ETHTOOL_A_COALESCE_RX_MAX_FRAMES, false,
     offsetof(struct ethtool_coalesce, rx_max_coalesced_frames)},
    {"tx_usecs", ETHTOOL_A_COALESCE_TX_USECS, false, offsetof(struct ethtool_coalesce, tx_coalesce_usecs)},
    {"tx_frames", ETHTOOL_A_COALESCE_TX_MAX_FRAMES, false,
     offsetof(struct ethtool_coalesce, tx_max_coalesced_frames)},
};

const struct ethnl_group ethnl_coalesce = {
    .name = "coalesce",
    .get_cmd = ETHTOOL_MSG_COALESCE_GET,
    .set_cmd = ETHTOOL_MSG_COALESCE_SET,
    .maxattr = ETHTOOL_A_COALESCE_MAX,
    .ioctl_get = ETHTOOL_GCOALESCE,
    .ioctl_set = ETHTOOL_SCOALESCE,
    .ioctl_size = sizeof(struct ethtool_coalesce),
    .params = coalesce_params,
    .n_params = ARRAY_SIZE(coalesce_params),
};

static const struct ethnl_param pause_params[] = {
    {"autoneg", ETHTOOL_A_PAUSE_AUTONEG, true, offsetof(struct ethtool_pauseparam, autoneg)},
    {"rx", ETHTOOL_A_PAUSE_RX, true, offsetof(struct ethtool_pauseparam, rx_pause)},
    {"tx", ETHTOOL_A_PAUSE_TX, true, offsetof(struct ethtool_pauseparam, tx_pause)},
};

const struct ethnl_group ethnl_pause = {
    .name = "pause",
    .get_cmd = ETHTOOL_MSG_PAUSE_GET,
    .set_cmd = ETHTOOL_MSG_PAUSE_SET,
    .maxattr = ETHTOOL_A_PAUSE_MAX,
    .ioctl_get = ETHTOOL_GPAUSEPARAM,
    .ioctl_set = ETHTOOL_SPAUSEPARAM,
    .ioctl_size = sizeof(struct ethtool_pauseparam),
    .params = pause_params,
    .n_params = ARRAY_SIZE(pause_params),
};
