/* ethtool.c: SIOCETHTOOL requests (see ethtool.h).
 *
 * Owns: the ioctl socket (one per call) and the request structures of the
 * reads. Must never: touch /proc or /sys, or write a setting (ethnl.h
 * does, netlink first, with this module's ethtool_request as the
 * fallback). */
#define _GNU_SOURCE
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "ethtool.h"

const char *const eth_drop_counters[] = {
    "rx_discards_phy", "rx_out_of_buffer",  "rx_buffer_passed_thres_phy",
    "tx_discards_phy", "rx_crc_errors_phy", NULL,
};

static const char *const duplex_names[_ETH_DUPLEX_MAX] = {
    [ETH_DUPLEX_HALF] = "half",
    [ETH_DUPLEX_FULL] = "full",
    [ETH_DUPLEX_UNKNOWN] = "unknown",
};

const char *eth_duplex_to_string(enum eth_duplex d)
{
	if ((unsigned)d >= _ETH_DUPLEX_MAX)
		return NULL;
	return duplex_names[d];
}

/* A datagram socket for the ioctl; AF_UNIX when IPv4 is compiled out. */
static int ethtool_socket(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	return fd < 0 ? -errno : fd;
}

/* One SIOCETHTOOL request on ifname with data as the command block. */
static int ethtool_ioctl(int fd, const char *ifname, void *data)
{
	struct ifreq ifr = {0};

	if (!ifname || !ifname_valid(ifname))
		return -EINVAL;
	memcpy(ifr.ifr_name, ifname, strlen(ifname));
	ifr.ifr_data = data;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		return errno == EOPNOTSUPP || errno == ENOTSUP ? -EOPNOTSUPP : -errno;
	return 0;
}

int ethtool_request(const char *ifname, void *data)
{
	_cleanup_close_ int fd = -1;

	if (!ifname || !ifname_valid(ifname))
		return -EINVAL;
	fd = ethtool_socket();
	if (fd < 0)
		return fd;
	return ethtool_ioctl(fd, ifname, data);
}

static void copy_str(char *dst, size_t n, const char *src, size_t srcn)
{
	size_t len = strnlen(src, srcn);

	if (len >= n)
		len = n - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

int ethtool_get_drvinfo(const char *ifname, struct eth_drvinfo *ret)
{
	struct ethtool_drvinfo d = {.cmd = ETHTOOL_GDRVINFO};
	int r = ethtool_request(ifname, &d);

	if (r < 0)
		return r;
	copy_str(ret->driver, sizeof(ret->driver), d.driver, sizeof(d.driver));
	copy_str(ret->version, sizeof(ret->version), d.version, sizeof(d.version));
	copy_str(ret->fw_version, sizeof(ret->fw_version), d.fw_version, sizeof(d.fw_version));
	copy_str(ret->bus_info, sizeof(ret->bus_info), d.bus_info, sizeof(d.bus_info));
	return 0;
}

static enum eth_duplex duplex_from_kernel(uint8_t d)
{
	switch (d) {
	case DUPLEX_HALF:
		return ETH_DUPLEX_HALF;
	case DUPLEX_FULL:
		return ETH_DUPLEX_FULL;
	default:
		return ETH_DUPLEX_UNKNOWN;
	}
}

static void link_from_speed(uint32_t speed, uint8_t duplex, uint8_t autoneg, struct eth_link *ret)
{
	ret->speed_known = speed != 0 && speed != (uint32_t)SPEED_UNKNOWN;
	ret->speed = ret->speed_known ? speed : 0;
	ret->duplex = duplex_from_kernel(duplex);
	ret->autoneg = autoneg == AUTONEG_ENABLE;
}

/* ETHTOOL_GLINKSETTINGS: the first call with 0 mask words makes the kernel
 * answer with the (negated) number it wants; the second call reads. */
static int get_link_ksettings(int fd, const char *ifname, struct eth_link *ret)
{
	struct {
		struct ethtool_link_settings s;
		uint32_t masks[3 * 127];
	} req = {.s = {.cmd = ETHTOOL_GLINKSETTINGS}};
	int8_t nwords;
	int r;

	r = ethtool_ioctl(fd, ifname, &req);
	if (r < 0)
		return r;
	nwords = req.s.link_mode_masks_nwords;
	if (nwords >= 0 || -nwords > 127)
		return -EPROTO;
	memset(&req, 0, sizeof(req));
	req.s.cmd = ETHTOOL_GLINKSETTINGS;
	req.s.link_mode_masks_nwords = (int8_t)-nwords;
	r = ethtool_ioctl(fd, ifname, &req);
	if (r < 0)
		return r;
	if (req.s.link_mode_masks_nwords <= 0)
		return -EPROTO;
	link_from_speed(req.s.speed, req.s.duplex, req.s.autoneg, ret);
	return 0;
}

int ethtool_get_link(const char *ifname, struct eth_link *ret)
{
	_cleanup_close_ int fd = -1;
	struct ethtool_cmd ecmd = {.cmd = ETHTOOL_GSET};
	struct eth_link l;
	int r;

	if (!ifname || !ifname_valid(ifname))
		return -EINVAL;
	fd = ethtool_socket();
	if (fd < 0)
		return fd;
	r = get_link_ksettings(fd, ifname, &l);
	if (r == -EOPNOTSUPP) {
		r = ethtool_ioctl(fd, ifname, &ecmd);
		if (r >= 0)
			link_from_speed(ethtool_cmd_speed(&ecmd), ecmd.duplex, ecmd.autoneg, &l);
	}
	if (r < 0)
		return r;
	*ret = l;
	return 0;
}

/* Number of ETH_SS_STATS strings: GSSET_INFO, else the old drvinfo field. */
static int stats_count(int fd, const char *ifname, uint32_t *ret)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t buf[1];
	} sset = {.hdr = {.cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ULL << ETH_SS_STATS}};
	struct ethtool_drvinfo d = {.cmd = ETHTOOL_GDRVINFO};
	int r;

	r = ethtool_ioctl(fd, ifname, &sset);
	if (r >= 0) {
		*ret = (sset.hdr.sset_mask & (1ULL << ETH_SS_STATS)) ? sset.hdr.data[0] : 0;
		return 0;
	}
	if (r != -EOPNOTSUPP)
		return r;
	r = ethtool_ioctl(fd, ifname, &d);
	if (r < 0)
		return r;
	*ret = d.n_stats;
	return 0;
}

#define ETH_STATS_MAX	65536u
#define ETH_STATS_TRIES 4

/* ETHTOOL_GSTRINGS and ETHTOOL_GSTATS ignore the length we pass: the kernel
 * asks the driver for its count again and copies that many entries. mlx5
 * (and veth) add per-channel entries when channels grow, so a count read
 * before the call can be smaller than what the kernel then writes: a heap
 * overflow. So each buffer holds the count re-read just before the call
 * plus slack (as much again, at least 1024 entries), which a count growing
 * in the microseconds between the two syscalls cannot outrun; a count read
 * above the buffer, or strings and values of different lengths (channels
 * changed between the two calls: names and values would not line up),
 * start over, at most ETH_STATS_TRIES times (-EAGAIN after). */
static uint32_t stats_capacity(uint32_t n)
{
	uint64_t cap = (uint64_t)n + (n > 1024 ? n : 1024);
	return cap > ETH_STATS_MAX ? ETH_STATS_MAX : (uint32_t)cap;
}

/* One attempt: 1 done (the ret_ outputs set), 0 retry. */
static int stats_try(int fd, const char *ifname, struct ethtool_gstrings **ret_strings,
		     struct ethtool_stats **ret_stats, uint32_t *ret_n)
{
	_cleanup_free_ struct ethtool_gstrings *strings = NULL;
	_cleanup_free_ struct ethtool_stats *stats = NULL;
	uint32_t n, cap;
	int r;

	r = stats_count(fd, ifname, &n);
	if (r < 0)
		return r;
	if (n == 0)
		return -EOPNOTSUPP;
	if (n > ETH_STATS_MAX)
		return -E2BIG;
	cap = stats_capacity(n);
	strings = calloc(1, sizeof(*strings) + (size_t)cap * ETH_GSTRING_LEN);
	stats = calloc(1, sizeof(*stats) + (size_t)cap * sizeof(uint64_t));
	if (!strings || !stats)
		return -ENOMEM;

	if ((r = stats_count(fd, ifname, &n)) < 0)
		return r;
	if (n == 0 || n > cap)
		return 0;
	strings->cmd = ETHTOOL_GSTRINGS;
	strings->string_set = ETH_SS_STATS;
	strings->len = n;
	r = ethtool_ioctl(fd, ifname, strings);
	if (r < 0)
		return r;

	if ((r = stats_count(fd, ifname, &n)) < 0)
		return r;
	if (n == 0 || n > cap)
		return 0;
	stats->cmd = ETHTOOL_GSTATS;
	stats->n_stats = n;
	r = ethtool_ioctl(fd, ifname, stats);
	if (r < 0)
		return r;
	if (strings->len > cap || stats->n_stats > cap)
		abort(); /* the slack was outrun: the heap is no longer trustworthy */
	if (strings->len != stats->n_stats || strings->len == 0)
		return 0;
	*ret_n = stats->n_stats;
	*ret_strings = TAKE_PTR(strings);
	*ret_stats = TAKE_PTR(stats);
	return 1;
}

int ethtool_get_stats(const char *ifname, struct eth_stat **ret, size_t *ret_n)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ struct ethtool_gstrings *strings = NULL;
	_cleanup_free_ struct ethtool_stats *stats = NULL;
	_cleanup_free_ struct eth_stat *v = NULL;
	uint32_t n = 0;
	int r = 0;

	if (!ifname || !ifname_valid(ifname))
		return -EINVAL;
	fd = ethtool_socket();
	if (fd < 0)
		return fd;
	for (unsigned i = 0; i < ETH_STATS_TRIES && r == 0; i++)
		r = stats_try(fd, ifname, &strings, &stats, &n);
	if (r < 0)
		return r;
	if (r == 0)
		return -EAGAIN; /* the count kept changing */
	v = calloc(n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		copy_str(v[i].name, sizeof(v[i].name),
			 (const char *)strings->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		v[i].value = stats->data[i];
	}
	*ret = TAKE_PTR(v);
	*ret_n = n;
	return 0;
}

int eth_stats_find(const struct eth_stat *stats, size_t n, const char *name, uint64_t *ret)
{
	for (size_t i = 0; i < n; i++)
		if (streq(stats[i].name, name)) {
			*ret = stats[i].value;
			return 0;
		}
	return -ENOENT;
}
