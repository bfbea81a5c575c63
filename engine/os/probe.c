/* probe.c: assemble the observed host state (see probe.h).
 *
 * Owns: the join of kernel links (this network namespace) with sysroot
 * facts, and the order of interfaces: kernel links by ifindex, then
 * interfaces only the sysroot knows, by name. Must never: change the host;
 * a fact that cannot be read is recorded with its -errno, not dropped. */
#define _GNU_SOURCE
#include "probe.h"

#include "linkfacts.h"
#include "sysroot.h"

int probe_fact_bad(char **ret_why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	*ret_why = vstrprintf(fmt, ap);
	va_end(ap);
	return *ret_why ? -EINVAL : -ENOMEM;
}

bool probe_fact_bool_ok(const bool *b)
{
	unsigned char c;

	memcpy(&c, b, 1);
	return c <= 1;
}

static void iface_state_done(struct iface_state *s)
{
	free(s->name);
	for (size_t i = 0; i < s->n_facts; i++) {
		free(s->facts[i].value);
		free(s->facts[i].kmsg);
	}
	free(s->facts);
	nic_info_done(&s->nic);
	irq_list_free(s->irqs);
}

void host_state_free(struct host_state *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n_ifaces; i++)
		iface_state_done(&h->ifaces[i]);
	free(h->ifaces);
	for (size_t i = 0; i < h->n_facts; i++) {
		if (h->facts[i].value && h->facts[i].def && h->facts[i].def->done)
			h->facts[i].def->done(h->facts[i].value);
		free(h->facts[i].value);
	}
	free(h->facts);
	firewall_state_done(&h->firewall);
	free(h);
}

const struct iface_state *host_state_iface(const struct host_state *h, const char *name)
{
	for (size_t i = 0; i < h->n_ifaces; i++)
		if (streq(h->ifaces[i].name, name))
			return &h->ifaces[i];
	return NULL;
}

static bool wanted(char *const *only, const char *name)
{
	return !only || strv_contains(only, name);
}

static int push_iface(struct host_state *h, const char *name, struct iface_state **ret)
{
	struct iface_state *v = realloc(h->ifaces, (h->n_ifaces + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	h->ifaces = v;
	v = &h->ifaces[h->n_ifaces];
	*v = (struct iface_state){.nic = {.numa_node = -1}};
	v->name = strdup(name);
	if (!v->name)
		return -ENOMEM;
	h->n_ifaces++;
	*ret = v;
	return 0;
}

/* sysfs facts under the sysroot, and the device's IRQs; absence is normal
 * (a sysroot need not list every kernel link). table is NULL when
 * /proc/interrupts could not be read (table_r). */
static int probe_nic(struct iface_state *s, const struct interrupts *table, int table_r, unsigned irq_flags)
{
	s->nic_r = nic_read(s->name, &s->nic);
	if (s->nic_r == -ENOMEM)
		return s->nic_r;
	s->has_nic = s->nic_r >= 0;
	if (!s->has_nic)
		s->irqs_r = -ENODEV;
	else if (!table && s->nic.has_device)
		s->irqs_r = table_r;
	else
		s->irqs_r = irq_discover(s->name, table, irq_flags, &s->irqs);
	return s->irqs_r == -ENOMEM ? -ENOMEM : 0;
}

struct probe_req {
	char *const *only;
	unsigned irq_flags;
	const struct probe_fact *const *facts;
	size_t n_facts;
};

/* The host-wide facts, in the caller's order; not read (-ENODATA) with
 * read false. */
static int probe_host_facts(struct host_state *h, const struct probe_facts *q, bool read)
{
	size_t n = q ? q->n_host : 0;

	h->facts = calloc(n ? n : 1, sizeof(*h->facts));
	if (!h->facts)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct host_fact *f = &h->facts[h->n_facts++];

		f->def = q->host[i];
		f->value = calloc(1, f->def->size ? f->def->size : 1);
		if (!f->value)
			return -ENOMEM;
		f->r = read ? f->def->read(f->value) : -ENODATA;
		if (f->r == -ENOMEM)
			return f->r;
	}
	return 0;
}

/* Fact q as a snapshot recorded it, found by its name (snapshot_load
 * refused a record of another layout or size); -ENODATA when the snapshot
 * holds none (taken before this kind read one). */
static int recorded_fact(struct link_facts *rec, const struct probe_fact *q, struct iface_fact *f)
{
	for (size_t i = 0; i < rec->n_facts; i++) {
		struct recorded_fact *rf = &rec->facts[i];

		if (!rf->kind || !streq(rf->kind, q->name))
			continue;
		if (rf->layout != q->layout || rf->size != q->size)
			return -EPROTO;
		if (rf->value)
			memcpy(f->value, rf->value, q->size);
		f->kmsg = TAKE_PTR(rf->kmsg);
		return rf->r;
	}
	return -ENODATA;
}

/* The caller's facts of port s; present: read them (rec: from a snapshot's
 * record), else they are -ENODEV. */
static int probe_facts(struct iface_state *s, const struct probe_req *q, bool present, struct link_facts *rec)
{
	s->facts = calloc(q->n_facts ? q->n_facts : 1, sizeof(*s->facts));
	if (!s->facts)
		return -ENOMEM;
	s->n_facts = q->n_facts;
	for (size_t i = 0; i < q->n_facts; i++) {
		struct iface_fact *f = &s->facts[i];

		if (!q->facts[i]) {
			f->r = -ENOENT;
			continue;
		}
		f->value = calloc(1, q->facts[i]->size);
		if (!f->value)
			return -ENOMEM;
		if (rec)
			f->r = recorded_fact(rec, q->facts[i], f);
		else
			f->r = present ? q->facts[i]->read(s->name, f->value, &f->kmsg) : -ENODEV;
		/* Only this process running out of memory fails the probe;
		 * a record's result is the recorded host's. */
		if (f->r == -ENOMEM && !rec)
			return f->r;
	}
	return 0;
}

static int probe_kernel_iface(struct host_state *h, struct link_facts *l, const struct interrupts *table,
			      int table_r, const struct probe_req *q)
{
	struct iface_state *s;
	int r;

	r = push_iface(h, l->link.name, &s);
	if (r < 0)
		return r;
	s->present = true;
	s->link = l->link;
	s->drvinfo_r = l->drvinfo_r;
	s->drvinfo = l->drvinfo;
	s->ethlink_r = l->ethlink_r;
	s->ethlink = l->ethlink;
	r = probe_facts(s, q, true, l->facts ? l : NULL);
	if (r < 0)
		return r;
	return probe_nic(s, table, table_r, q->irq_flags);
}

static int probe_interfaces(struct host_state *h, const struct probe_req *q, unsigned flags)
{
	char *const *only = q->only;
	struct link_facts *links = NULL;
	_cleanup_strv_free_ char **sysfs = NULL;
	_cleanup_interrupts_ struct interrupts *table = NULL;
	size_t n = 0;
	int r, table_r;

	/* The kernel's links, or a snapshot's record of them. */
	r = linkfacts_list(only, &links, &n);
	if (r < 0)
		return r;
	/* One snapshot of /proc/interrupts for every interface. */
	table_r = interrupts_read(flags & PROBE_IRQ_DETAILS ? 0 : INTERRUPTS_NO_COUNTS, &table, NULL);
	for (size_t i = 0; table_r != -ENOMEM && i < n; i++) {
		r = probe_kernel_iface(h, &links[i], table, table_r, q);
		if (r < 0) {
			linkfacts_free(links, n);
			return r;
		}
	}
	linkfacts_free(links, n);
	if (table_r == -ENOMEM)
		return table_r;
	/* On the live host sysfs and the kernel agree; a sysroot may describe
	 * ports this namespace does not have. */
	if (sysroot_is_live() || nic_list(&sysfs) < 0)
		return 0;
	for (char **name = sysfs; *name; name++) {
		struct iface_state *s;

		if (host_state_iface(h, *name) || !wanted(only, *name) || streq(*name, "lo"))
			continue;
		r = push_iface(h, *name, &s);
		if (r < 0)
			return r;
		s->drvinfo_r = s->ethlink_r = -ENODEV;
		r = probe_facts(s, q, false, NULL);
		if (r < 0)
			return r;
		r = probe_nic(s, table, table_r, q->irq_flags);
		if (r < 0)
			return r;
	}
	return 0;
}

int probe_host(char *const *only, unsigned flags, const struct probe_facts *facts, struct host_state **ret)
{
	const struct probe_req q = {
	    .only = only,
	    .irq_flags = IRQ_DISCOVER_AFFINITY | (flags & PROBE_IRQ_DETAILS ? IRQ_DISCOVER_DETAILS : 0),
	    .facts = facts ? facts->port : NULL,
	    .n_facts = facts ? facts->n_port : 0,
	};
	struct host_state *h;
	int r;

	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	r = probe_interfaces(h, &q, flags);
	if (r < 0)
		goto fail;
	r = probe_host_facts(h, facts, !(flags & PROBE_IFACES_ONLY));
	if (r < 0)
		goto fail;
	if (flags & PROBE_IFACES_ONLY) {
		*ret = h;
		return 0;
	}
	r = firewall_detect(&h->firewall);
	if (r < 0)
		goto fail;
	*ret = h;
	return 0;
fail:
	host_state_free(h);
	return r;
}
