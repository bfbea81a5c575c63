/* counters.c: watched drop counters, snapshots and differences (see
 * counters.h).
 *
 * Owns: the table of counter meanings (from the mlx5 counters
 * documentation, reference section 4). Must never: write to the device. */
#define _GNU_SOURCE
#include "counters.h"

#include <inttypes.h>

static const struct counter_def defs[] = {
    {"rx_discards_phy", "the port dropped received packets for lack of buffers: the adapter is congested",
     "make the host drain the NIC faster (IRQs on NUMA-local cores, larger rx rings) or enable flow control"},
    {"rx_out_of_buffer", "a receive queue had no software buffers: the host did not keep up (CPU/IRQ)",
     "spread the completion IRQs over NUMA-local cores, raise the rx ring size, check softirq saturation"},
    {"rx_buffer_passed_thres_phy", "the port receive buffer went over 85% full: congestion is building up",
     "the same as for rx_discards_phy: the receive path is close to dropping"},
    {"tx_discards_phy",
     "packets were discarded on transmit (link down, head-of-line drop, pause frames from the switch)",
     "check the link and the switch port (pause/PFC settings, congestion)"},
    {"rx_crc_errors_phy", "frames arrived with a bad FCS: the cable or the optics are faulty",
     "reseat or replace the cable and the transceivers"},
    {"rx_buff_alloc_err",
     "the driver could not allocate receive buffers (memory pressure or DMA mapping failures)",
     "check free memory and IOMMU settings on this host"},
    {"tx_queue_dropped", "a transmit queue dropped packets (DMA mapping failures)",
     "check IOMMU settings and memory on this host"},
};

_Static_assert(ARRAY_SIZE(defs) <= COUNTERS_MAX, "COUNTERS_MAX too small");

const struct counter_def *counter_defs(size_t *ret_n)
{
	*ret_n = ARRAY_SIZE(defs);
	return defs;
}

const struct counter_def *counter_def_find(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(defs); i++)
		if (streq(defs[i].name, name))
			return &defs[i];
	return NULL;
}

int counters_from_stats(const struct eth_stat *stats, size_t n, struct counter_snapshot *ret)
{
	struct counter_snapshot s = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%.*s: %" PRIu64 "\n", (int)sizeof(stats[i].name), stats[i].name, stats[i].value);
		for (size_t k = 0; k < ARRAY_SIZE(defs); k++)
			if (strncmp(stats[i].name, defs[k].name, sizeof(stats[i].name)) == 0) {
				s.present[k] = true;
				s.value[k] = stats[i].value;
			}
	}
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	s.dump = buf;
	*ret = s;
	return 0;
}

int counters_snapshot(const char *ifname, struct counter_snapshot *ret)
{
	_cleanup_free_ struct eth_stat *stats = NULL;
	size_t n = 0;
	int r;

	r = ethtool_get_stats(ifname, &stats, &n);
	if (r >= 0)
		r = counters_from_stats(stats, n, ret);
	if (r < 0)
		*ret = (struct counter_snapshot){.r = r};
	return r;
}

void counter_snapshot_done(struct counter_snapshot *s)
{
	free(s->dump);
	*s = (struct counter_snapshot){0};
}

int counters_diff(const struct counter_snapshot *before, const struct counter_snapshot *after,
		  struct counter_delta **ret, size_t *ret_n)
{
	_cleanup_free_ struct counter_delta *d = calloc(ARRAY_SIZE(defs), sizeof(*d));
	size_t n = 0;

	if (!d)
		return -ENOMEM;
	for (size_t k = 0; before->r >= 0 && after->r >= 0 && k < ARRAY_SIZE(defs); k++) {
		if (!before->present[k] || !after->present[k])
			continue;
		d[n] = (struct counter_delta){
		    .def = &defs[k],
		    .before = before->value[k],
		    .after = after->value[k],
		    .delta = after->value[k] > before->value[k] ? after->value[k] - before->value[k] : 0,
		};
		d[n].rising = d[n].delta > 0;
		n++;
	}
	*ret = TAKE_PTR(d);
	*ret_n = n;
	return 0;
}
