/* netcounters.c: the ledger's counter snapshot (see netcounters.h).
 *
 * Owns: the tables of the SNMP fields and device counters kept. Must
 * never: read a source but through its module (snmp, softnet, qdisc,
 * link, counters). */
#define _GNU_SOURCE
#include "netcounters.h"

#include <ctype.h>
#include <stddef.h>

#include "counters.h"
#include "link.h"
#include "qdisc.h"
#include "snmp.h"
#include "softnet.h"

/* The SNMP fields a ledger line or its evidence names. */
static const char *const snmp_names[] = {
    "UdpInDatagrams",  "UdpNoPorts",	   "UdpInErrors",      "UdpOutDatagrams",  "UdpRcvbufErrors",
    "UdpSndbufErrors", "UdpInCsumErrors",  "UdpMemErrors",     "Udp6InDatagrams",  "Udp6NoPorts",
    "Udp6InErrors",    "Udp6OutDatagrams", "Udp6RcvbufErrors", "Udp6SndbufErrors", "Udp6InCsumErrors",
    "Udp6MemErrors",   "IpInReceives",	   "IpInHdrErrors",    "IpInAddrErrors",   "IpInDiscards",
    "IpInDelivers",    "IpOutDiscards",	   "IpReasmTimeout",   "IpReasmReqds",	   "IpReasmOKs",
    "IpReasmFails",    "IpFragOKs",	   "IpFragFails",      "IpFragCreates",	   "Ip6InReceives",
    "Ip6InHdrErrors",  "Ip6InAddrErrors",  "Ip6InDiscards",    "Ip6InDelivers",	   "Ip6ReasmTimeout",
    "Ip6ReasmReqds",   "Ip6ReasmOKs",	   "Ip6ReasmFails",
};

#define LINK_STAT(f)                                                                                         \
	{                                                                                                    \
		"link." #f, offsetof(struct link_stats, f)                                                   \
	}
static const struct {
	const char *name;
	size_t offset;
} link_fields[] = {
    LINK_STAT(rx_packets),	 LINK_STAT(tx_packets),	       LINK_STAT(rx_dropped),
    LINK_STAT(tx_dropped),	 LINK_STAT(rx_errors),	       LINK_STAT(tx_errors),
    LINK_STAT(rx_crc_errors),	 LINK_STAT(rx_frame_errors),   LINK_STAT(rx_length_errors),
    LINK_STAT(rx_missed_errors), LINK_STAT(rx_fifo_errors),    LINK_STAT(rx_over_errors),
    LINK_STAT(tx_fifo_errors),	 LINK_STAT(tx_carrier_errors), LINK_STAT(tx_aborted_errors),
};

static const char *const softnet_names[] = {"softnet.processed", "softnet.dropped", "softnet.time_squeeze"};
static const char *const qdisc_names[] = {"qdisc.packets", "qdisc.drops", "qdisc.overlimits",
					  "qdisc.requeues"};

static bool name_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > NETCOUNTER_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_' && name[i] != '.')
			return false;
	return true;
}

int netcounters_set(struct netcounters *s, const char *name, uint64_t value)
{
	struct netcounter *nv;

	if (!name_valid(name))
		return -EINVAL;
	for (size_t i = 0; i < s->n; i++)
		if (streq(s->v[i].name, name)) {
			s->v[i].value = value;
			return 0;
		}
	nv = realloc(s->v, (s->n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	s->v = nv;
	snprintf(nv[s->n].name, sizeof(nv[s->n].name), "%s", name);
	nv[s->n++].value = value;
	return 0;
}

bool netcounters_get(const struct netcounters *s, const char *name, uint64_t *ret)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (streq(s->v[i].name, name)) {
			*ret = s->v[i].value;
			return true;
		}
	return false;
}

void netcounters_done(struct netcounters *s)
{
	free(s->v);
	strv_free(s->unavailable);
	*s = (struct netcounters){0};
}

int netcounters_copy(const struct netcounters *s, struct netcounters *ret)
{
	struct netcounters c = {.taken_usec = s->taken_usec};

	memcpy(c.ifname, s->ifname, sizeof(c.ifname));
	if (s->n) {
		c.v = malloc(s->n * sizeof(*c.v));
		if (!c.v)
			return -ENOMEM;
		memcpy(c.v, s->v, s->n * sizeof(*c.v));
		c.n = s->n;
	}
	for (char **u = s->unavailable; u && *u; u++)
		if (strv_extend(&c.unavailable, *u) < 0) {
			netcounters_done(&c);
			return -ENOMEM;
		}
	*ret = c;
	return 0;
}

static int unavailable(struct netcounters *s, const char *source, int err)
{
	return strv_pushf(&s->unavailable, "%s: %s", source, strerror(-err));
}

static int take_snmp(struct netcounters *s)
{
	_cleanup_snmp_table_ struct snmp_table *t = NULL;
	int r = snmp_read(&t);

	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return unavailable(s, "/proc/net/snmp", r);
	for (size_t i = 0; i < ARRAY_SIZE(snmp_names); i++) {
		uint64_t v;

		if (snmp_get(t, snmp_names[i], &v) && netcounters_set(s, snmp_names[i], v) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int cmp_dropped(const void *a, const void *b)
{
	const struct softnet_cpu *x = a, *y = b;

	if (x->dropped != y->dropped)
		return x->dropped < y->dropped ? 1 : -1;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static int take_softnet(struct netcounters *s)
{
	_cleanup_free_ struct softnet *t = NULL;
	uint64_t sum[ARRAY_SIZE(softnet_names)] = {0};
	int r = softnet_read(&t);

	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return unavailable(s, "/proc/net/softnet_stat", r);
	for (size_t i = 0; i < t->n; i++) {
		sum[0] += t->cpu[i].processed;
		sum[1] += t->cpu[i].dropped;
		sum[2] += t->cpu[i].time_squeeze;
	}
	for (size_t i = 0; i < ARRAY_SIZE(softnet_names); i++)
		if (netcounters_set(s, softnet_names[i], sum[i]) < 0)
			return -ENOMEM;
	/* Which CPUs dropped, for the evidence: the largest first. */
	qsort(t->cpu, t->n, sizeof(t->cpu[0]), cmp_dropped);
	for (size_t i = 0; i < t->n && i < NETCOUNTERS_MAX_CPUS && t->cpu[i].dropped; i++) {
		char name[NETCOUNTER_NAME_MAX + 1];

		snprintf(name, sizeof(name), "softnet.dropped.cpu%u", t->cpu[i].cpu);
		if (netcounters_set(s, name, t->cpu[i].dropped) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int take_qdisc(struct netcounters *s, const char *ifname)
{
	struct qdisc_stats q;
	int r = qdisc_stats_get(ifname, &q);
	uint64_t v[ARRAY_SIZE(qdisc_names)];

	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return unavailable(s, "qdisc", r);
	v[0] = q.packets;
	v[1] = q.drops;
	v[2] = q.overlimits;
	v[3] = q.requeues;
	for (size_t i = 0; i < ARRAY_SIZE(qdisc_names); i++)
		if (netcounters_set(s, qdisc_names[i], v[i]) < 0)
			return -ENOMEM;
	return 0;
}

static int take_link(struct netcounters *s, const char *ifname)
{
	struct link_stats st;
	int r = link_get_stats(ifname, &st);

	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return unavailable(s, "link statistics", r);
	for (size_t i = 0; i < ARRAY_SIZE(link_fields); i++)
		if (netcounters_set(s, link_fields[i].name,
				    *(const uint64_t *)((const char *)&st + link_fields[i].offset)) < 0)
			return -ENOMEM;
	return 0;
}

static int take_nic(struct netcounters *s, const char *ifname)
{
	_cleanup_(counter_snapshot_done) struct counter_snapshot snap = {0};
	const struct counter_def *defs;
	size_t n;
	int r = counters_snapshot(ifname, &snap);

	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return r == -EOPNOTSUPP ? 0 : unavailable(s, "ethtool statistics", r);
	defs = counter_defs(&n);
	for (size_t i = 0; i < n; i++) {
		char name[NETCOUNTER_NAME_MAX + 1];

		if (!snap.present[i])
			continue;
		snprintf(name, sizeof(name), "nic.%s", defs[i].name);
		if (netcounters_set(s, name, snap.value[i]) < 0)
			return -ENOMEM;
	}
	return 0;
}

int netcounters_take(const char *ifname, struct netcounters *ret)
{
	struct netcounters s = {0};
	int r;

	if (ifname)
		snprintf(s.ifname, sizeof(s.ifname), "%s", ifname);
	r = take_snmp(&s);
	if (r >= 0)
		r = take_softnet(&s);
	if (r >= 0 && ifname)
		r = take_qdisc(&s, ifname);
	if (r >= 0 && ifname)
		r = take_link(&s, ifname);
	if (r >= 0 && ifname)
		r = take_nic(&s, ifname);
	if (r < 0) {
		netcounters_done(&s);
		return r;
	}
	s.taken_usec = now_usec();
	*ret = s;
	return 0;
}

const char *netcounter_scope(const char *name)
{
	if (strncmp(name, "softnet.", 8) == 0)
		return "host";
	if (strncmp(name, "qdisc.", 6) == 0 || strncmp(name, "link.", 5) == 0 ||
	    strncmp(name, "nic.", 4) == 0)
		return "device";
	return "namespace";
}

bool netcounter_name_known(const char *name)
{
	if (!name)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(snmp_names); i++)
		if (streq(name, snmp_names[i]))
			return true;
	for (size_t i = 0; i < ARRAY_SIZE(softnet_names); i++)
		if (streq(name, softnet_names[i]))
			return true;
	for (size_t i = 0; i < ARRAY_SIZE(qdisc_names); i++)
		if (streq(name, qdisc_names[i]))
			return true;
	for (size_t i = 0; i < ARRAY_SIZE(link_fields); i++)
		if (streq(name, link_fields[i].name))
			return true;
	if (strncmp(name, "softnet.dropped.cpu", 19) == 0) {
		unsigned cpu;
		int end = 0;
		return sscanf(name + 19, "%u%n", &cpu, &end) == 1 && name[19 + end] == '\0' &&
		       isdigit((unsigned char)name[19]) && cpu < SOFTNET_MAX_CPUS;
	}
	return strncmp(name, "nic.", 4) == 0 && counter_def_find(name + 4);
}

bool netcounter_delta(const char *name, uint64_t before, uint64_t after, uint64_t *ret)
{
	bool narrow = strncmp(name, "qdisc.", 6) == 0 || strncmp(name, "softnet.dropped.cpu", 19) == 0;

	if (after >= before) {
		*ret = after - before;
		return true;
	}
	/* A 32-bit count that came round passes near its top: what it went
	 * back by is most of its range. Anything else went back: reset. */
	if (narrow && before <= UINT32_MAX && before - after > (uint64_t)UINT32_MAX / 2) {
		*ret = (uint32_t)((uint32_t)after - (uint32_t)before);
		return true;
	}
	return false;
}

uint64_t netcounter_rise(const char *name, uint64_t before, uint64_t after)
{
	uint64_t d;

	return netcounter_delta(name, before, after, &d) ? d : 0;
}
