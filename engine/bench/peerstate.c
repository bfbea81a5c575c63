/* peerstate.c: the STATE facts of the serving host and the client's
 * document of them (see peerstate.h).
 *
 * Owns: mapping a local address to its interface (getifaddrs), reading
 * that interface through probe.h, nicfacts.h, procsys.h, counters.h,
 * netcounters.h and /proc/stat (sysroot), and the JSON of one or two
 * answers. Must never:
 * write anything, or answer for another interface than the address's. */
#define _GNU_SOURCE
#include "peerstate.h"

#include <ifaddrs.h>
#include <netdb.h>
#include <inttypes.h>
#include <netinet/in.h>

#include "base/output.h"
#include "irqspread.h"
#include "os/counters.h"
#include "os/ethnl.h"
#include "os/nic.h"
#include "os/nicfacts.h"
#include "os/probe.h"
#include "os/procsys.h"
#include "os/sysroot.h"

static bool same_address(const struct sockaddr *a, const struct sockaddr *b)
{
	if (!a || !b || a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->sa_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			      &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr)) == 0;
	return false;
}

static int ifname_of(const struct sockaddr *local, char *buf, size_t size)
{
	struct ifaddrs *list = NULL;
	int r = -EADDRNOTAVAIL;

	if (getifaddrs(&list) < 0)
		return -errno;
	for (struct ifaddrs *i = list; i; i = i->ifa_next)
		if (i->ifa_name && same_address(i->ifa_addr, local)) {
			snprintf(buf, size, "%s", i->ifa_name);
			r = 0;
			break;
		}
	freeifaddrs(list);
	return r;
}

/* Copy a fact into a STATE text: cut to the limit, unprintable bytes as
 * '?' (the wire carries printable ASCII only). */
static void set_text(char *dst, const char *src)
{
	size_t i = 0;

	for (; src && src[i] && i < UDPB_MAX_STATE_TEXT; i++) {
		unsigned char c = (unsigned char)src[i];
		dst[i] = c >= 0x20 && c <= 0x7e ? (char)c : '?';
	}
	dst[i] = '\0';
}

static void collect_counters(const char *ifname, struct udpb_state *st)
{
	_cleanup_(counter_snapshot_done) struct counter_snapshot snap = {0};
	const struct counter_def *defs;
	size_t n;

	defs = counter_defs(&n);
	if (counters_snapshot(ifname, &snap) < 0)
		return;
	for (size_t i = 0; i < n && st->ncounters < UDPB_MAX_COUNTERS; i++)
		if (snap.present[i]) {
			set_text(st->counter[st->ncounters].name, defs[i].name);
			st->counter[st->ncounters++].value = snap.value[i];
		}
}

static uint64_t irqs_on_cpu(const struct irq_list *irqs, unsigned cpu)
{
	uint64_t n = 0;

	for (size_t i = 0; irqs && i < irqs->n; i++)
		if (cpu < irqs->v[i].ncounts)
			n += irqs->v[i].counts[cpu];
	return n;
}

static void collect_cpus(const struct irq_list *irqs, struct udpb_state *st)
{
	_cleanup_free_ char *text = NULL;
	struct proc_stat *ps = NULL;

	if (sysroot_read_all("/proc/stat", &text, NULL) < 0 || procstat_parse(text, &ps) < 0)
		return;
	for (size_t i = 0; i < ps->n && st->ncpus < UDPB_MAX_CPUS; i++)
		st->cpu[st->ncpus++] = (struct udpb_state_cpu){.cpu = ps->cpu[i].cpu,
							       .softirq = ps->cpu[i].softirq,
							       .total = ps->cpu[i].total,
							       .irqs = irqs_on_cpu(irqs, ps->cpu[i].cpu)};
	procstat_free(ps);
}

/* Version 2's counters: every one a snapshot holds, in its order (the
 * per-CPU ones last, so a payload that cannot hold them all drops those). */
static int collect_net(const char *ifname, struct udpb_state *st)
{
	_cleanup_(netcounters_done) struct netcounters s = {0};
	int r = netcounters_take(ifname, &s);

	if (r < 0)
		return r;
	for (size_t i = 0; i < s.n && st->nnet < UDPB_MAX_NET_COUNTERS; i++) {
		set_text(st->net[st->nnet].name, s.v[i].name);
		st->net[st->nnet++].value = s.v[i].value;
	}
	return 0;
}

int peerstate_counters_at(const char *address, struct netcounters *ret)
{
	struct addrinfo hints = {.ai_flags = AI_NUMERICHOST}, *ai = NULL;
	char ifname[LINK_NAME_SIZE];
	int r;

	if (!address || getaddrinfo(address, NULL, &hints, &ai) != 0)
		return -EINVAL;
	r = ifname_of(ai->ai_addr, ifname, sizeof(ifname));
	freeaddrinfo(ai);
	if (r < 0)
		return r;
	return netcounters_take(ifname, ret);
}

int peerstate_netcounters(const struct udpb_state *st, uint64_t taken_usec, struct netcounters *ret)
{
	struct netcounters s = {.taken_usec = taken_usec};

	if (st->version < 2)
		return -ENODATA;
	/* The decoder keeps an ifname below 16 bytes. */
	snprintf(s.ifname, sizeof(s.ifname), "%.15s", st->ifname);
	for (unsigned i = 0; i < st->nnet; i++)
		if (netcounter_name_known(st->net[i].name) &&
		    netcounters_set(&s, st->net[i].name, st->net[i].value) < 0) {
			netcounters_done(&s);
			return -ENOMEM;
		}
	*ret = s;
	return 0;
}

/* The settings a client compares and cx5prof changes: the interface that
 * owns local (and its index, which a driver reload or a firmware reset
 * changes), its MTU and rings, rmem_max and rmem_default. Cheap (a few
 * ioctls, netlink requests and file reads): read for every answer. */
static int collect_settings(const struct sockaddr *local, struct udpb_state *st, char ifname[LINK_NAME_SIZE],
			    int *ret_ifindex)
{
	struct link_info li;
	struct ethnl_values rings;
	uint64_t v;
	int r;

	r = ifname_of(local, ifname, LINK_NAME_SIZE);
	if (r < 0)
		return r;
	set_text(st->ifname, ifname);
	st->present &= ~(UDPB_STATE_MTU | UDPB_STATE_RINGS | UDPB_STATE_RMEM_MAX | UDPB_STATE_RMEM_DEFAULT);
	st->mtu = st->rmem_max = st->rmem_default = 0;
	st->rx_ring = st->rx_ring_max = st->tx_ring = st->tx_ring_max = 0;
	if (sysctl_read(SYSCTL_RMEM_MAX, &v) >= 0) {
		st->present |= UDPB_STATE_RMEM_MAX;
		st->rmem_max = v;
	}
	if (sysctl_read(SYSCTL_RMEM_DEFAULT, &v) >= 0) {
		st->present |= UDPB_STATE_RMEM_DEFAULT;
		st->rmem_default = v;
	}
	*ret_ifindex = 0;
	if (link_get(ifname, &li) >= 0) {
		st->present |= UDPB_STATE_MTU;
		st->mtu = li.mtu;
		*ret_ifindex = li.ifindex;
	}
	/* ethnl_rings: rx, tx */
	if (ethnl_group_get(&ethnl_rings, ifname, &rings, NULL) >= 0 && rings.present[0] &&
	    rings.present[1]) {
		st->present |= UDPB_STATE_RINGS;
		st->rx_ring = rings.v[0];
		st->rx_ring_max = rings.max[0];
		st->tx_ring = rings.v[1];
		st->tx_ring_max = rings.max[1];
	}
	return 0;
}

static bool same_settings(const struct udpb_state *a, const struct udpb_state *b)
{
	const uint16_t settings =
	    UDPB_STATE_MTU | UDPB_STATE_RINGS | UDPB_STATE_RMEM_MAX | UDPB_STATE_RMEM_DEFAULT;

	return streq(a->ifname, b->ifname) && (a->present & settings) == (b->present & settings) &&
	       a->mtu == b->mtu && a->rmem_max == b->rmem_max && a->rmem_default == b->rmem_default &&
	       a->rx_ring == b->rx_ring && a->rx_ring_max == b->rx_ring_max && a->tx_ring == b->tx_ring &&
	       a->tx_ring_max == b->tx_ring_max;
}

static int collect(const struct sockaddr *local, struct udpb_state *ret, int *ret_ifindex)
{
	_cleanup_host_state_ struct host_state *h = NULL;
	_cleanup_free_ char *version = NULL, *duplex = NULL;
	char ifname[LINK_NAME_SIZE], pci[16];
	char *only[] = {ifname, NULL};
	const struct iface_state *s;
	uint64_t speed;
	int r;

	memset(ret, 0, sizeof(*ret));
	ret->version = 1;
	r = collect_settings(local, ret, ifname, ret_ifindex);
	if (r < 0)
		return r;
	collect_counters(ifname, ret);
	r = probe_host(only, PROBE_IRQ_DETAILS | PROBE_IFACES_ONLY, NULL, &h);
	s = r >= 0 ? host_state_iface(h, ifname) : NULL;
	collect_cpus(s && s->irqs_r == 0 ? s->irqs : NULL, ret);
	if (!s) /* the probe leaves loopback out */
		return 0;
	set_text(ret->driver, nicfacts_driver(s));
	if (nicfacts_driver_version(s, &version) >= 0)
		set_text(ret->driver_version, version);
	set_text(ret->firmware, nicfacts_firmware(s));
	if (s->has_nic && s->nic.has_pci_id) {
		snprintf(pci, sizeof(pci), "%04x:%04x", s->nic.vendor, s->nic.device);
		set_text(ret->pci_id, pci);
	}
	if (nicfacts_link(s, &speed, &duplex) >= 0 && speed <= UINT32_MAX) {
		ret->present |= UDPB_STATE_SPEED;
		ret->speed_mbps = (uint32_t)speed;
	}
	return 0;
}

int peerstate_collect(const struct sockaddr *local, struct udpb_state *ret)
{
	int ifindex;

	return collect(local, ret, &ifindex);
}

static const char *const level_names[_PEERSTATE_LEVEL_MAX] = {
    [PEERSTATE_FULL] = "full",
    [PEERSTATE_MINIMAL] = "minimal",
    [PEERSTATE_OFF] = "off",
};

const char *peerstate_level_to_string(enum peerstate_level l)
{
	return l < _PEERSTATE_LEVEL_MAX ? level_names[l] : NULL;
}

int peerstate_level_from_string(const char *s, enum peerstate_level *ret)
{
	for (size_t i = 0; i < _PEERSTATE_LEVEL_MAX; i++)
		if (streq(s, level_names[i])) {
			*ret = (enum peerstate_level)i;
			return 0;
		}
	return -EINVAL;
}

void peerstate_restrict(struct udpb_state *st, enum peerstate_level level)
{
	if (level == PEERSTATE_FULL)
		return;
	if (level == PEERSTATE_OFF) {
		memset(st, 0, sizeof(*st));
		return;
	}
	st->present &= UDPB_STATE_MTU | UDPB_STATE_RMEM_MAX | UDPB_STATE_RMEM_DEFAULT;
	st->speed_mbps = 0;
	st->rx_ring = st->rx_ring_max = st->tx_ring = st->tx_ring_max = 0;
	st->driver[0] = st->driver_version[0] = st->firmware[0] = st->pci_id[0] = '\0';
	st->ncpus = 0;
}

struct cached_state {
	struct sockaddr_storage local;
	bool valid;
	int ifindex;
	uint64_t read_at; /* now_usec() */
	struct udpb_state st;
};

struct peerstate_cache {
	enum peerstate_level level;
	uint64_t refresh_usec;
	struct cached_state entry[PEERSTATE_CACHE_ADDRESSES];
	struct udpb_state answer, settings; /* scratch: the answer, the settings read now */
};

int peerstate_cache_new(enum peerstate_level level, unsigned refresh_ms, struct peerstate_cache **ret)
{
	struct peerstate_cache *c;

	if (level != PEERSTATE_FULL && level != PEERSTATE_MINIMAL)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->level = level;
	c->refresh_usec = (uint64_t)refresh_ms * 1000;
	*ret = c;
	return 0;
}

void peerstate_cache_free(struct peerstate_cache *c)
{
	free(c);
}

void peerstate_cache_expire(struct peerstate_cache *c)
{
	for (size_t i = 0; i < PEERSTATE_CACHE_ADDRESSES; i++)
		c->entry[i].valid = false;
}

/* The entry of address local: its own, else a free one, else the one read
 * longest ago (then invalid). */
static struct cached_state *cache_entry(struct peerstate_cache *c, const struct sockaddr *local)
{
	struct cached_state *pick = NULL;

	for (size_t i = 0; i < PEERSTATE_CACHE_ADDRESSES; i++) {
		struct cached_state *e = &c->entry[i];
		if (e->local.ss_family != AF_UNSPEC && same_address((struct sockaddr *)&e->local, local))
			return e;
		if (!pick || (pick->local.ss_family != AF_UNSPEC &&
			      (e->local.ss_family == AF_UNSPEC || e->read_at < pick->read_at)))
			pick = e;
	}
	memset(&pick->local, 0, sizeof(pick->local));
	memcpy(&pick->local, local,
	       local->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
	pick->valid = false;
	return pick;
}

int peerstate_answer(struct peerstate_cache *c, int fd, uint64_t now, uint16_t version, uint8_t **ret_frame)
{
	_cleanup_free_ uint8_t *frame = malloc(UDPB_FRAME_HDR + UDPB_MAX_PAYLOAD);
	struct sockaddr_storage local;
	socklen_t alen = sizeof(local);
	char ifname[LINK_NAME_SIZE];
	struct cached_state *e;
	int ifindex = 0, n;

	if (!frame)
		return -ENOMEM;
	if (getsockname(fd, (struct sockaddr *)&local, &alen) < 0)
		return -errno;
	if (local.ss_family != AF_INET && local.ss_family != AF_INET6)
		return -EAFNOSUPPORT;
	e = cache_entry(c, (struct sockaddr *)&local);
	/* The settings are read for every answer: one changed since the
	 * facts were read (an apply between two requests) reads them all. */
	if (e->valid && (now < e->read_at || now - e->read_at >= c->refresh_usec ||
			 collect_settings((struct sockaddr *)&local, &c->settings, ifname, &ifindex) < 0 ||
			 ifindex != e->ifindex || !same_settings(&c->settings, &e->st)))
		e->valid = false;
	if (!e->valid) {
		/* An address no interface owns (removed since the connection
		 * was made) still gets an answer, with every fact unknown. */
		if (collect((struct sockaddr *)&local, &e->st, &e->ifindex) < 0) {
			memset(&e->st, 0, sizeof(e->st));
			e->ifindex = 0;
		}
		e->valid = true;
		e->read_at = now;
	}
	c->answer = e->st;
	peerstate_restrict(&c->answer, c->level);
	c->answer.version = version;
	if (version >= 2 && ifname_of((struct sockaddr *)&local, ifname, sizeof(ifname)) >= 0 &&
	    collect_net(ifname, &c->answer) == -ENOMEM)
		return -ENOMEM;
	n = udpbench_encode_state(&c->answer, frame, UDPB_FRAME_HDR + UDPB_MAX_PAYLOAD);
	if (n < 0)
		return n;
	*ret_frame = TAKE_PTR(frame);
	return n;
}

static void add_text(struct json_object *o, const char *key, const char *v)
{
	json_object_object_add(o, key, v[0] ? json_object_new_string(v) : NULL);
}

static void add_u64(struct json_object *o, const char *key, bool present, uint64_t v)
{
	json_object_object_add(o, key, present ? json_object_new_int64((int64_t)v) : NULL);
}

static const struct udpb_state_counter *find_named(const struct udpb_state_counter *v, unsigned n,
						   const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (streq(v[i].name, name))
			return &v[i];
	return NULL;
}

static const struct udpb_state_cpu *find_cpu(const struct udpb_state *s, uint32_t cpu)
{
	for (unsigned i = 0; i < s->ncpus; i++)
		if (s->cpu[i].cpu == cpu)
			return &s->cpu[i];
	return NULL;
}

static uint64_t rise(uint64_t before, uint64_t after)
{
	return after >= before ? after - before : 0;
}

/* serve's drop counters: the rise, 0 when a counter went down. */
static uint64_t drop_rise(const char *name _unused_, uint64_t before, uint64_t after)
{
	return rise(before, after);
}

/* The counters both answers carry (av, bv: after, before), with their
 * rise as rise_of says. */
static struct json_object *rises_json(const struct udpb_state_counter *bv, unsigned bn,
				      const struct udpb_state_counter *av, unsigned an,
				      uint64_t (*rise_of)(const char *name, uint64_t before, uint64_t after))
{
	struct json_object *arr = json_object_new_array();

	for (unsigned i = 0; arr && i < an; i++) {
		const struct udpb_state_counter *c = find_named(bv, bn, av[i].name);
		struct json_object *o;

		if (!c)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(c->name));
		json_object_object_add(o, "before", json_object_new_int64((int64_t)c->value));
		json_object_object_add(o, "after", json_object_new_int64((int64_t)av[i].value));
		json_object_object_add(
		    o, "delta", json_object_new_int64((int64_t)rise_of(c->name, c->value, av[i].value)));
		json_object_array_add(arr, o);
	}
	return arr;
}

/* "cpus": the CPUs that took the interface's interrupts or spent time in
 * softirq during the run, with their shares. */
static struct json_object *cpus_json(const struct udpb_state *b, const struct udpb_state *a)
{
	struct json_object *arr = json_object_new_array();
	uint64_t irqs = 0;

	for (unsigned i = 0; i < a->ncpus; i++) {
		const struct udpb_state_cpu *c = find_cpu(b, a->cpu[i].cpu);
		if (c)
			irqs += rise(c->irqs, a->cpu[i].irqs);
	}
	for (unsigned i = 0; arr && i < a->ncpus; i++) {
		const struct udpb_state_cpu *c = find_cpu(b, a->cpu[i].cpu);
		uint64_t di, ds, dt;
		struct json_object *o;

		if (!c)
			continue;
		di = rise(c->irqs, a->cpu[i].irqs);
		ds = rise(c->softirq, a->cpu[i].softirq);
		dt = rise(c->total, a->cpu[i].total);
		if (di == 0 && ds == 0)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "cpu", json_object_new_int64(a->cpu[i].cpu));
		json_object_object_add(o, "interrupts", json_object_new_int64((int64_t)di));
		json_object_object_add(o, "irq_percent",
				       irqs ? json_object_new_double(100.0 * (double)di / (double)irqs)
					    : NULL);
		json_object_object_add(
		    o, "softirq_percent",
		    dt && ds <= dt ? json_object_new_double(100.0 * (double)ds / (double)dt) : NULL);
		json_object_array_add(arr, o);
	}
	return arr;
}

struct json_object *peerstate_to_json(const struct udpb_state *b, const struct udpb_state *a)
{
	struct json_object *o = json_object_new_object(), *rings = NULL;

	if (!o)
		return NULL;
	add_text(o, "interface", b->ifname);
	add_text(o, "driver", b->driver);
	add_text(o, "driver_version", b->driver_version);
	add_text(o, "firmware", b->firmware);
	add_text(o, "pci_id", b->pci_id);
	add_u64(o, "mtu", b->present & UDPB_STATE_MTU, b->mtu);
	add_u64(o, "speed_mbps", b->present & UDPB_STATE_SPEED, b->speed_mbps);
	add_u64(o, "rmem_max", b->present & UDPB_STATE_RMEM_MAX, b->rmem_max);
	add_u64(o, "rmem_default", b->present & UDPB_STATE_RMEM_DEFAULT, b->rmem_default);
	if (b->present & UDPB_STATE_RINGS) {
		rings = json_object_new_object();
		json_object_object_add(rings, "rx", json_object_new_int64(b->rx_ring));
		json_object_object_add(rings, "rx_max", json_object_new_int64(b->rx_ring_max));
		json_object_object_add(rings, "tx", json_object_new_int64(b->tx_ring));
		json_object_object_add(rings, "tx_max", json_object_new_int64(b->tx_ring_max));
	}
	json_object_object_add(o, "rings", rings);
	/* "drop_counters": serve's; "net_counters": the kernel's, of version 2
	 * answers (netcounters.h's widths) */
	json_object_object_add(o, "drop_counters",
			       a ? rises_json(b->counter, b->ncounters, a->counter, a->ncounters, drop_rise)
				 : NULL);
	json_object_object_add(o, "cpus", a ? cpus_json(b, a) : NULL);
	if (b->version >= 2 && a && a->version >= 2)
		json_object_object_add(o, "net_counters",
				       rises_json(b->net, b->nnet, a->net, a->nnet, netcounter_rise));
	return o;
}

static const char *doc_string(struct json_object *doc, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(doc, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static char *doc_number(struct json_object *doc, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(doc, key, &v) || !json_object_is_type(v, json_type_int))
		return strdup("n/a");
	return strprintf("%" PRId64, json_object_get_int64(v));
}

/* "ConnectX-5, " from the document's pci_id "15b3:1017"; "PCI 15b3:1234, "
 * for a device not in the table; "" without one (a virtual port). */
static char *model_text(struct json_object *doc)
{
	const char *id = doc_string(doc, "pci_id");
	unsigned vendor, device;
	const char *model;
	int end = 0;

	if (!id)
		return strdup("");
	if (sscanf(id, "%4x:%4x%n", &vendor, &device, &end) == 2 && id[end] == '\0' &&
	    (model = nic_model_name((uint16_t)vendor, (uint16_t)device)))
		return strprintf("%s, ", model);
	return strprintf("PCI %s, ", id);
}

char *peerstate_summary(struct json_object *doc)
{
	_cleanup_free_ char *mtu = NULL, *rmem = NULL, *model = NULL;

	if (!doc || !json_object_is_type(doc, json_type_object) || !doc_string(doc, "interface"))
		return NULL;
	mtu = doc_number(doc, "mtu");
	rmem = doc_number(doc, "rmem_max");
	model = model_text(doc);
	if (!mtu || !rmem || !model)
		return NULL;
	return strprintf("%s: %sdriver %s %s, firmware %s, mtu %s, rmem_max %s", doc_string(doc, "interface"),
			 model, strna(doc_string(doc, "driver")), strna(doc_string(doc, "driver_version")),
			 strna(doc_string(doc, "firmware")), mtu, rmem);
}

/* "softirq busiest CPU 1 at 37.9%, interrupts mostly on CPU 1 (100.0%)":
 * the receiver's hot core over the run, or NULL without one. */
static char *busiest_text(struct json_object *doc)
{
	struct json_object *cpus, *v;
	double best_s = -1, best_i = -1;
	int64_t cpu_s = -1, cpu_i = -1;

	if (!json_object_object_get_ex(doc, "cpus", &cpus) || !json_object_is_type(cpus, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(cpus); i++) {
		struct json_object *c = json_object_array_get_idx(cpus, i), *n;
		int64_t cpu = json_object_object_get_ex(c, "cpu", &n) ? json_object_get_int64(n) : -1;

		if (json_object_object_get_ex(c, "softirq_percent", &v) && v &&
		    json_object_get_double(v) > best_s) {
			best_s = json_object_get_double(v);
			cpu_s = cpu;
		}
		if (json_object_object_get_ex(c, "irq_percent", &v) && v &&
		    json_object_get_double(v) > best_i) {
			best_i = json_object_get_double(v);
			cpu_i = cpu;
		}
	}
	if (cpu_s < 0 && cpu_i < 0)
		return NULL;
	if (cpu_i < 0)
		return strprintf("softirq busiest CPU %" PRId64 " at %.1f%%", cpu_s, best_s);
	if (cpu_s < 0)
		return strprintf("interrupts mostly on CPU %" PRId64 " (%.1f%%)", cpu_i, best_i);
	return strprintf("softirq busiest CPU %" PRId64 " at %.1f%%, interrupts mostly on CPU %" PRId64
			 " (%.1f%%)",
			 cpu_s, best_s, cpu_i, best_i);
}

void peerstate_render(struct json_object *doc)
{
	_cleanup_free_ char *line = peerstate_summary(doc), *busy = NULL;
	struct json_object *drops;

	out_json("peer_state", doc ? json_object_get(doc) : NULL);
	if (!line)
		return;
	out_text("peer        %s\n", line);
	busy = busiest_text(doc);
	if (busy)
		out_text("peer load   %s\n", busy);
	if (!json_object_object_get_ex(doc, "drop_counters", &drops) ||
	    !json_object_is_type(drops, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(drops); i++) {
		struct json_object *d = json_object_array_get_idx(drops, i), *name, *delta;
		if (json_object_object_get_ex(d, "name", &name) &&
		    json_object_object_get_ex(d, "delta", &delta) && json_object_get_int64(delta) > 0)
			out_text("peer drops  %s +%" PRId64 " on the receiver\n",
				 json_object_get_string(name), json_object_get_int64(delta));
	}
}
