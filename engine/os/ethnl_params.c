/* ethnl_params.c: the ethtool parameter groups cx5prof manages, channels,
 * rings, coalescing and pause frames, as tables for ethnl.h.
 *
 * Owns: which netlink attribute and which ioctl field carry each
 * parameter and its device maximum; the names are the profile's
 * (link.channels.combined, link.coalesce.rx_usecs, link.pause.rx). Must
 * never: list a parameter the ioctl structure does not have (the fallback
 * would write beside it). */
#define _GNU_SOURCE
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>

#include "ethnl.h"

#define COUNT(name, ATTR, field)                                                                             \
	{                                                                                                    \
#name, ETHTOOL_A_CHANNELS_##ATTR##_COUNT, false,                                             \
		    offsetof(struct ethtool_channels, field##_count), ETHTOOL_A_CHANNELS_##ATTR##_MAX,       \
		    offsetof(struct ethtool_channels, max_##field)                                           \
	}

/* show's order: rx tx other combined */
static const struct ethnl_param channel_params[] = {
    COUNT(rx, RX, rx),
    COUNT(tx, TX, tx),
    COUNT(other, OTHER, other),
    COUNT(combined, COMBINED, combined),
};

const struct ethnl_group ethnl_channels = {
    .name = "channels",
    .get_cmd = ETHTOOL_MSG_CHANNELS_GET,
    .set_cmd = ETHTOOL_MSG_CHANNELS_SET,
    .maxattr = ETHTOOL_A_CHANNELS_MAX,
    .ioctl_get = ETHTOOL_GCHANNELS,
    .ioctl_set = ETHTOOL_SCHANNELS,
    .ioctl_size = sizeof(struct ethtool_channels),
    .params = channel_params,
    .n_params = ARRAY_SIZE(channel_params),
};

/* The main rx and tx rings; the mini and jumbo rings are kept as they are. */
static const struct ethnl_param ring_params[] = {
    {"rx", ETHTOOL_A_RINGS_RX, false, offsetof(struct ethtool_ringparam, rx_pending), ETHTOOL_A_RINGS_RX_MAX,
     offsetof(struct ethtool_ringparam, rx_max_pending)},
    {"tx", ETHTOOL_A_RINGS_TX, false, offsetof(struct ethtool_ringparam, tx_pending), ETHTOOL_A_RINGS_TX_MAX,
     offsetof(struct ethtool_ringparam, tx_max_pending)},
};

const struct ethnl_group ethnl_rings = {
    .name = "rings",
    .get_cmd = ETHTOOL_MSG_RINGS_GET,
    .set_cmd = ETHTOOL_MSG_RINGS_SET,
    .maxattr = ETHTOOL_A_RINGS_MAX,
    .ioctl_get = ETHTOOL_GRINGPARAM,
    .ioctl_set = ETHTOOL_SRINGPARAM,
    .ioctl_size = sizeof(struct ethtool_ringparam),
    .params = ring_params,
    .n_params = ARRAY_SIZE(ring_params),
};

static const struct ethnl_param coalesce_params[] = {
    {"adaptive_rx", ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, true,
     offsetof(struct ethtool_coalesce, use_adaptive_rx_coalesce), 0, 0},
    {"adaptive_tx", ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX, true,
     offsetof(struct ethtool_coalesce, use_adaptive_tx_coalesce), 0, 0},
    {"rx_usecs", ETHTOOL_A_COALESCE_RX_USECS, false, offsetof(struct ethtool_coalesce, rx_coalesce_usecs), 0,
     0},
    {"rx_frames", ETHTOOL_A_COALESCE_RX_MAX_FRAMES, false,
     offsetof(struct ethtool_coalesce, rx_max_coalesced_frames), 0, 0},
    {"tx_usecs", ETHTOOL_A_COALESCE_TX_USECS, false, offsetof(struct ethtool_coalesce, tx_coalesce_usecs), 0,
     0},
    {"tx_frames", ETHTOOL_A_COALESCE_TX_MAX_FRAMES, false,
     offsetof(struct ethtool_coalesce, tx_max_coalesced_frames), 0, 0},
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
    {"autoneg", ETHTOOL_A_PAUSE_AUTONEG, true, offsetof(struct ethtool_pauseparam, autoneg), 0, 0},
    {"rx", ETHTOOL_A_PAUSE_RX, true, offsetof(struct ethtool_pauseparam, rx_pause), 0, 0},
    {"tx", ETHTOOL_A_PAUSE_TX, true, offsetof(struct ethtool_pauseparam, tx_pause), 0, 0},
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
