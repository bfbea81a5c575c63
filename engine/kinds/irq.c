/* kinds/irq.c: the "irq" kind, irq.policy: object "irq ens1f0 q3", key
 * "smp_affinity_list 98" (IRQ 98), values CPU lists ("0-31" -> "17"). Read
 * and write first check that queue 3 of ens1f0 is still IRQ 98 (-ESTALE,
 * nothing written, when a reboot or driver reload renumbered it). The plan
 * is irqplan.h's spread of every matched port's completion IRQs; the IRQs it
 * pins are shared in plan_ctx for irqbalance-ban. Also the IRQ number lists
 * ("99,109-123") of irq_kind.h. */
#define _GNU_SOURCE
#include "kinds.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/cpuset.h"
#include "base/exitcode.h"
#include "irq_kind.h"
#include "irqplan.h"
#include "os/interrupts.h"
#include "os/irqaffinity.h"
#include "os/probe.h"
#include "os/topology.h"
#include "plan.h"
#include "profile.h"

#define IRQ_KEY_PREFIX "smp_affinity_list "

static int irq_from_key(const char *key, unsigned *ret)
{
	uint32_t irq;

	if (strncmp(key, IRQ_KEY_PREFIX, strlen(IRQ_KEY_PREFIX)) != 0)
		return -EINVAL;
	if (safe_atou32(key + strlen(IRQ_KEY_PREFIX), &irq) < 0)
		return -EINVAL;
	*ret = irq;
	return 0;
}

/* "irq ens1f0 q3" -> "ens1f0", 3. */
static int irq_object_parse(const char *object, char *ifname, size_t size, unsigned *ret_queue)
{
	const char *sp, *q;
	uint32_t queue;

	if (strncmp(object, "irq ", 4) != 0)
		return -EINVAL;
	sp = object + 4;
	q = strrchr(sp, ' ');
	if (!q || q[1] != 'q' || (size_t)(q - sp) >= size || safe_atou32(q + 2, &queue) < 0)
		return -EINVAL;
	memcpy(ifname, sp, (size_t)(q - sp));
	ifname[q - sp] = '\0';
	*ret_queue = queue;
	return 0;
}

/* The undo log keys an IRQ change by number, but numbers are handed out
 * at boot and driver load: rediscover the interface's queue and check it
 * is still that IRQ before touching it, so a rollback after a reboot never
 * writes an old CPU list onto whatever device owns the number now.
 * -ESTALE (with *ret_why when asked) when it moved or vanished. */
/* The ports' IRQ lists, discovered once per process and kept for every
 * IRQ step: which IRQ serves which queue cannot change within one run
 * except by a channel change (channels_write drops the cache; a plan never
 * changes channels and the IRQ map together), and re-reading
 * /proc/interrupts per step made an 8-port apply quadratic. */
#define IRQ_OWNERS_MAX 64

static struct irq_owner {
	char ifname[64];
	int r; /* irq_discover's result */
	struct irq_list *l;
} irq_owners[IRQ_OWNERS_MAX];
static size_t n_irq_owners;
static struct interrupts *irq_owners_table;

void irq_kind_forget_owners(void)
{
	for (size_t i = 0; i < n_irq_owners; i++)
		irq_list_free(irq_owners[i].l);
	n_irq_owners = 0;
	interrupts_free(irq_owners_table);
	irq_owners_table = NULL;
}

static int irq_owner_lookup(const char *ifname, const struct irq_list **ret)
{
	struct irq_owner *o;
	int r;

	for (size_t i = 0; i < n_irq_owners; i++)
		if (streq(irq_owners[i].ifname, ifname)) {
			*ret = irq_owners[i].l;
			return irq_owners[i].r;
		}
	if (!irq_owners_table) {
		r = interrupts_read(INTERRUPTS_NO_COUNTS, &irq_owners_table, NULL);
		if (r < 0)
			return r;
	}
	if (n_irq_owners == IRQ_OWNERS_MAX)
		irq_kind_forget_owners(); /* more ports than slots: start over, still correct */
	o = &irq_owners[n_irq_owners];
	snprintf(o->ifname, sizeof(o->ifname), "%s", ifname);
	o->l = NULL;
	o->r = irq_discover(ifname, irq_owners_table, 0, &o->l);
	if (o->r < 0 && o->r != -ENODEV)
		return o->r; /* not cached: a transient failure is retried */
	n_irq_owners++;
	*ret = o->l;
	return o->r;
}

static int irq_still_owned(const char *object, unsigned irq, char **ret_why)
{
	const struct irq_list *l = NULL;
	const struct irq_vector *v;
	char ifname[64];
	unsigned queue;
	char *why;
	int r;

	r = irq_object_parse(object, ifname, sizeof(ifname), &queue);
	if (r < 0)
		return r;
	r = irq_owner_lookup(ifname, &l);
	if (r < 0 && r != -ENODEV)
		return r;
	v = r < 0 ? NULL : irq_list_by_queue(l, queue);
	if (v && v->irq == irq)
		return 0;
	if (r == -ENODEV)
		why = strprintf("%s no longer exists (IRQ %u was its queue %u): nothing written", ifname, irq,
				queue);
	else if (!v)
		why = strprintf("%s has no queue %u any more (it was IRQ %u): the IRQs changed (reboot, "
				"driver reload or channel change) since the transaction; nothing written",
				ifname, queue, irq);
	else
		why = strprintf("%s queue %u is now IRQ %u, not %u: the IRQ numbers changed (reboot or "
				"driver reload) since the transaction; nothing written",
				ifname, queue, v->irq, irq);
	if (!why)
		return -ENOMEM;
	if (ret_why)
		*ret_why = why;
	else
		free(why);
	return -ESTALE;
}

/* The IRQ a change is keyed by, checked to still serve its queue. */
static int irq_of_change(const char *object, const char *key, unsigned *ret, char **ret_why)
{
	int r = irq_from_key(key, ret);
	return r < 0 ? r : irq_still_owned(object, *ret, ret_why);
}

static int irq_kind_read(const char *object, const char *key, char **ret)
{
	_cleanup_cpuset_ struct cpuset s = CPUSET_INIT;
	unsigned irq;
	int r;

	r = irq_of_change(object, key, &irq, NULL);
	if (r < 0)
		return r;
	r = irq_read_affinity(irq, &s);
	return r < 0 ? r : cpuset_format_list(&s, ret);
}

static int irq_kind_write(const char *object, const char *key, const char *value, char **kmsg)
{
	_cleanup_cpuset_ struct cpuset s = CPUSET_INIT;
	unsigned irq;
	int r;

	r = cpuset_parse_list(value, &s);
	if (r < 0)
		return r;
	r = irq_of_change(object, key, &irq, kmsg);
	if (r < 0)
		return r;
	r = irq_write_affinity(irq, &s);
	return r == IRQ_AFFINITY_MISMATCH ? -EIO : r;
}

/* ---- IRQ number lists (irq_kind.h) ---- */

#define IRQ_LIST_NONE "-"

size_t irq_numbers_normalize(unsigned *v, size_t n)
{
	size_t k = 0;

	if (n < 2)
		return n; /* and no qsort(NULL, 0): its pointer must not be NULL */
	qsort(v, n, sizeof(*v), cmp_unsigned);
	for (size_t i = 0; i < n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

/* "99,109-123" (v sorted, unique); "-" when empty. */
int irq_numbers_format(const unsigned *v, size_t n, char **ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (n == 0) {
		*ret = strdup(IRQ_LIST_NONE);
		return *ret ? 0 : -ENOMEM;
	}
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		if (j == i)
			fprintf(f, "%s%u", i ? "," : "", v[i]);
		else
			fprintf(f, "%s%u-%u", i ? "," : "", v[i], v[j]);
		i = j + 1;
	}
	if (fclose(f) != 0 || !buf) {
		free(buf);
		return -ENOMEM;
	}
	*ret = buf;
	return 0;
}

/* The list irq_numbers_format writes, back to sorted numbers. */
int irq_numbers_parse(const char *s, unsigned **ret, size_t *ret_n)
{
	_cleanup_free_ char *copy = strdup(streq(s, IRQ_LIST_NONE) ? "" : s);
	_cleanup_free_ unsigned *v = NULL;
	char *save = NULL;
	size_t n = 0;

	if (!copy)
		return -ENOMEM;
	for (char *q = strtok_r(copy, ",", &save); q; q = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(q, '-');
		uint32_t lo, hi;
		unsigned *t;

		if (dash)
			*dash = '\0';
		if (safe_atou32(q, &lo) < 0 || safe_atou32(dash ? dash + 1 : q, &hi) < 0 || hi < lo ||
		    hi - lo >= 65536)
			return -EINVAL;
		t = realloc(v, (n + (hi - lo) + 1) * sizeof(*v));
		if (!t)
			return -ENOMEM;
		v = t;
		for (uint32_t i = 0; i <= hi - lo; i++)
			v[n++] = lo + i;
	}
	*ret_n = irq_numbers_normalize(v, n);
	*ret = TAKE_PTR(v);
	return 0;
}

/* ---- planning ---- */

static int irq_options(const struct profile *prof, struct irqplan_options *o)
{
	int r;

	o->policy = prof->irq.policy.value == PROFILE_IRQ_CPULIST ? IRQPLAN_CPULIST : IRQPLAN_NUMA_LOCAL;
	if (prof->irq.cpulist.set && (r = cpuset_parse_list(prof->irq.cpulist.value, &o->cpulist)) < 0)
		return r;
	if (prof->irq.exclude_cpus.set) {
		o->has_exclude = true;
		r = cpuset_parse_list(prof->irq.exclude_cpus.value, &o->exclude);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The ports' IRQ lists are the probe's (host_state owns them: one
 * /proc/interrupts snapshot for the whole plan); only the CPU sets are ours. */
struct irq_ports {
	struct irqplan_port *ports;
	size_t n;
};

static void irq_ports_done(struct irq_ports *ip)
{
	for (size_t i = 0; i < ip->n; i++)
		cpuset_done(&ip->ports[i].local_cpus);
	free(ip->ports);
}

/* Every matched port takes part in the IRQ plan: one without device IRQs
 * (a veth, or no PCI function in the sysroot) is a problem of its own,
 * never skipped, else irq.policy would look applied where nothing was. */
static int irq_ports_collect(struct plan *p, const struct host_state *host, char **names,
			     struct irq_ports *ip)
{
	size_t n = strv_length(names);
	int r;

	ip->ports = calloc(n ? n : 1, sizeof(*ip->ports));
	if (!ip->ports)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct iface_state *s = host_state_iface(host, names[i]);
		struct irqplan_port *port = &ip->ports[ip->n];

		if (!s || !s->has_nic || s->irqs_r == -ENODEV ||
		    (s->irqs_r >= 0 && s->irqs && !s->irqs->pci_bdf)) {
			r = plan_add_problem(p, EXIT_UNSUPPORTED, names[i],
					     "remove irq.policy, or match only ports with a PCI function "
					     "(on a test host: a --sysroot that has it)",
					     "no device IRQs (no PCI function in the sysroot)");
			if (r < 0)
				return r;
			continue;
		}
		if (s->irqs_r < 0)
			return s->irqs_r;
		if (!s->irqs)
			return -ENODATA;
		if (irq_list_count(s->irqs, IRQ_KIND_COMPLETION) == 0) {
			r = plan_add_problem(p, EXIT_UNSUPPORTED, names[i],
					     "check /proc/interrupts and the driver (mlx5_core)",
					     "no completion IRQs in /proc/interrupts");
			if (r < 0)
				return r;
			continue;
		}
		port->ifname = s->name;
		port->numa_node = s->nic.numa_node;
		port->irqs = s->irqs;
		ip->n++;
		if (s->nic.local_cpulist &&
		    (r = cpuset_parse_list(s->nic.local_cpulist, &port->local_cpus)) < 0)
			return r;
	}
	return 0;
}

static int irq_add_entry(struct plan *p, const struct irqplan_entry *e, const struct irq_ports *ip)
{
	/* fixed buffers: this runs once per queue (504 on a big host) */
	char object[64], key[sizeof(IRQ_KEY_PREFIX) + 16], after[16];
	_cleanup_free_ char *before = NULL;

	if (!e->changed)
		return 0;
	snprintf(object, sizeof(object), "irq %s q%u", ip->ports[e->port].ifname, e->queue);
	snprintf(key, sizeof(key), IRQ_KEY_PREFIX "%u", e->irq);
	snprintf(after, sizeof(after), "%d", e->cpu);
	if (cpuset_format_list(&e->before, &before) < 0)
		return -ENOMEM;
	return plan_add_change(p, "irq", object, key, before, after);
}

/* Planned whatever problems the other kinds found, so that a plan that
 * cannot be applied still lists every change; only its own problems (bad
 * CPU list, a port without device IRQs) leave the IRQ map out. */
static int irq_diff(struct plan_ctx *ctx, const struct iface_state *port)
{
	struct plan *p = ctx->plan;
	const struct profile *prof = ctx->profile;
	_cleanup_(irqplan_options_done) struct irqplan_options o = {0};
	_cleanup_(irq_ports_done) struct irq_ports ip = {0};
	_cleanup_topology_ struct topology *topo = NULL;
	_cleanup_irqplan_ struct irqplan *ipl = NULL;
	size_t problems = p->n_problems;
	int r;

	(void)port;
	if (!prof->irq.policy.set || !p->interfaces)
		return 0;
	r = irq_options(prof, &o);
	if (r < 0)
		return plan_add_problem(p, EXIT_INVALID, "irq", "fix irq.cpulist / irq.exclude_cpus",
					"bad CPU list");
	r = irq_ports_collect(p, ctx->host, p->interfaces, &ip);
	if (r < 0)
		return plan_add_problem(p, EXIT_ERROR, "irq", "check /proc/interrupts and the sysroot",
					"cannot discover the IRQs: %s", strerror(-r));
	if (p->n_problems > problems)
		return 0;
	r = topology_read(&topo);
	if (r < 0)
		return plan_add_problem(p, EXIT_ERROR, "irq", "check /sys/devices/system/cpu and node",
					"cannot read the CPU topology: %s", strerror(-r));
	r = irqplan_build(ip.ports, ip.n, topo, &o, &ipl);
	if (r == -ENOSPC)
		return plan_add_problem(p, EXIT_PRECONDITION, "irq", "exclude fewer CPUs",
					"irq.exclude_cpus leaves no CPU for the IRQs");
	if (r < 0)
		return plan_add_problem(p, EXIT_INVALID, "irq", "check the irq section",
					"cannot plan IRQ affinity: %s", strerror(-r));
	ctx->pinned_irqs = calloc(ipl->n ? ipl->n : 1, sizeof(*ctx->pinned_irqs));
	if (!ctx->pinned_irqs)
		return -ENOMEM;
	for (size_t i = 0; i < ipl->n; i++) {
		ctx->pinned_irqs[ctx->n_pinned_irqs++] = ipl->e[i].irq;
		if ((r = irq_add_entry(p, &ipl->e[i], &ip)) < 0)
			return r;
	}
	ctx->n_pinned_irqs = irq_numbers_normalize(ctx->pinned_irqs, ctx->n_pinned_irqs);
	for (char **n = ipl->notes; n && *n; n++)
		if ((r = strv_extend(&p->warnings, *n)) < 0)
			return r;
	return 0;
}

static bool irq_manages(const struct profile *p)
{
	return p->irq.policy.set;
}

const struct change_kind kind_irq = {
    .name = "irq",
    .rank = 50,
    .scope = KIND_SCOPE_HOST,
    .read = irq_kind_read,
    .write = irq_kind_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .write_reads_back = true,
    .diff = irq_diff,
    .manages = irq_manages,
};
