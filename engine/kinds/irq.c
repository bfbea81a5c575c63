/* kinds/irq.c: the "irq" kind, irq.policy: object "irq ens1f0 q3", key
 * "smp_affinity_list 98" (IRQ 98), values CPU lists ("0-31" -> "17"). Read
 * and write first check that queue 3 of ens1f0 is still IRQ 98 (-ESTALE,
 * nothing written, when a reboot or driver reload renumbered it). The plan
 * is irqplan.h's spread of every matched port's completion IRQs; the IRQs it
 * pins are shared in plan_ctx for irqbalance-ban. A channels change in the
 * same run blocks it (the IRQs are re-created). Its show is each port's
 * IRQ table (the probe's irqaffinity.h lists). */
#define _GNU_SOURCE
#include "kinds.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/cpuset.h"
#include "base/exitcode.h"
#include "base/output.h"
#include "irqnumbers.h"
#include "irqplan.h"
#include "os/interrupts.h"
#include "os/irqaffinity.h"
#include "os/probe.h"
#include "os/sysroot.h"
#include "os/topology.h"
#include "changes.h"
#include "profile.h"

#define IRQ_KEY_PREFIX "smp_affinity_list "

enum irq_policy {
	IRQ_POLICY_NUMA_LOCAL, /* default when unset */
	IRQ_POLICY_CPULIST,
};

static const char *const irq_policy_names[] = {
    [IRQ_POLICY_NUMA_LOCAL] = "numa-local", [IRQ_POLICY_CPULIST] = "cpulist", NULL};

struct irq_want {
	struct profile_enum policy;	    /* enum irq_policy */
	struct profile_string cpulist;	    /* set iff policy is cpulist; valid cpuset_parse_list() input */
	struct profile_string exclude_cpus; /* unset: the planner's default (CPU0 when there is a choice) */
};

#define W(member) offsetof(struct irq_want, member)

static const struct profile_key irq_keys[] = {
    PROFILE_KEY_ENUM("policy", W(policy), irq_policy_names,
		     "how the completion IRQs are spread: over the NIC's NUMA-local cores (numa-local) or "
		     "round-robin over irq.cpulist; without it no IRQ is pinned (irq.irqbalance alone leaves "
		     "the pins as they are)"),
    {.name = "cpulist",
     .type = KT_CPULIST,
     .offset = W(cpulist),
     .min = 1,
     .max = 4096,
     .help = "CPUs to spread the completion IRQs over, e.g. \"8-15,24-31\"; required with, and only allowed "
	     "with, policy: cpulist"},
    {.name = "exclude_cpus",
     .type = KT_CPULIST,
     .offset = W(exclude_cpus),
     .min = 0,
     .max = 4096,
     .help = "CPUs irq.policy never gives a NIC IRQ (without a policy nothing is pinned: a plan warning); "
	     "\"\" excludes none; unset: CPU0 when there is a choice"},
    {0},
};

extern const struct change_kind kind_irq;

static const struct irq_want *want_of(const struct profile *p)
{
	return kind_want(p, &kind_irq);
}

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

static void irq_forget_owners(void)
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
		irq_forget_owners(); /* more ports than slots: start over, still correct */
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

static int irq_kind_read(const char *object, const char *key, char **ret, char **kmsg _unused_)
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

/* ---- planning ---- */

/* An IRQ's affinity can be written back when it names a CPU: the kernel
 * refuses an empty mask (a sysroot's empty smp_affinity reads as one). */
static int irq_old_writable(const char *object _unused_, const char *key _unused_, const char *old,
			    char **ret_why)
{
	_cleanup_cpuset_ struct cpuset s = CPUSET_INIT;
	int r = cpuset_parse_list(old, &s);

	if (r == -ENOMEM)
		return r;
	if (r >= 0 && cpuset_count(&s) > 0)
		return 0;
	*ret_why = strdup(r < 0 ? "not a CPU list" : "no CPU: the kernel refuses an IRQ affinity of no CPU");
	return *ret_why ? -EINVAL : -ENOMEM;
}

static int irq_options(const struct irq_want *w, struct irqplan_options *o)
{
	int r;

	o->policy = w->policy.value == IRQ_POLICY_CPULIST ? IRQPLAN_CPULIST : IRQPLAN_NUMA_LOCAL;
	if (w->cpulist.set && (r = cpuset_parse_list(w->cpulist.value, &o->cpulist)) < 0)
		return r;
	if (w->exclude_cpus.set) {
		o->has_exclude = true;
		r = cpuset_parse_list(w->exclude_cpus.value, &o->exclude);
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
	const struct irq_want *w = want_of(ctx->profile);
	_cleanup_(irqplan_options_done) struct irqplan_options o = {0};
	_cleanup_(irq_ports_done) struct irq_ports ip = {0};
	_cleanup_topology_ struct topology *topo = NULL;
	_cleanup_irqplan_ struct irqplan *ipl = NULL;
	struct plan_irq_cpu *pins;
	size_t problems = p->n_problems;
	int r;

	(void)port;
	if (!w->policy.set && w->exclude_cpus.set)
		return strv_pushf(&p->warnings,
				  "irq.exclude_cpus has no effect without irq.policy: no completion "
				  "IRQ is pinned");
	if (!w->policy.set || !p->interfaces)
		return 0;
	r = irq_options(w, &o);
	if (r < 0)
		return plan_add_problem(p, EXIT_INVALID, "irq", "fix irq.cpulist / irq.exclude_cpus",
					"bad CPU list");
	r = irq_ports_collect(p, ctx->host, p->interfaces, &ip);
	if (r < 0)
		return plan_add_problem(p, EXIT_ERROR, "irq", "check /proc/interrupts and the sysroot",
					"cannot discover the IRQs: %s", sysroot_strerror(r));
	if (p->n_problems > problems)
		return 0;
	r = topology_read(&topo);
	if (r < 0)
		return plan_add_problem(p, EXIT_ERROR, "irq", "check /sys/devices/system/cpu and node",
					"cannot read the CPU topology: %s", sysroot_strerror(r));
	r = irqplan_build(ip.ports, ip.n, topo, &o, &ipl);
	if (r == -ENOSPC)
		return plan_add_problem(p, EXIT_PRECONDITION, "irq", "exclude fewer CPUs",
					"irq.exclude_cpus leaves no CPU for the IRQs");
	if (r < 0)
		return plan_add_problem(p, EXIT_INVALID, "irq", "check the irq section",
					"cannot plan IRQ affinity: %s", sysroot_strerror(r));
	pins = calloc(ipl->n ? ipl->n : 1, sizeof(*pins));
	if (!pins)
		return -ENOMEM;
	for (size_t i = 0; i < ipl->n; i++) {
		const struct irqplan_entry *e = &ipl->e[i];

		pins[i] = (struct plan_irq_cpu){ip.ports[e->port].ifname, e->queue, e->irq, e->cpu};
		if ((r = irq_add_entry(p, e, &ip)) < 0) {
			free(pins);
			return r;
		}
	}
	r = plan_ctx_publish(ctx, IRQPLAN_PINS, pins, ipl->n);
	if (r < 0)
		return r;
	for (char **n = ipl->notes; n && *n; n++)
		if ((r = strv_extend(&p->warnings, *n)) < 0)
			return r;
	return 0;
}

static bool irq_manages(const struct profile *p)
{
	return want_of(p)->policy.set;
}

static int irq_profile_check(void *want, const char *file, struct profile_error *err)
{
	struct irq_want *w = want;

	/* A child that switches away from cpulist drops the inherited list. */
	if (file) {
		if (w->policy.set && w->policy.at.file == file && w->policy.value != IRQ_POLICY_CPULIST &&
		    w->cpulist.set && w->cpulist.at.file != file) {
			free(w->cpulist.value);
			w->cpulist = (struct profile_string){0};
		}
		return 0;
	}
	if (w->policy.set && w->policy.value == IRQ_POLICY_CPULIST && !w->cpulist.set)
		return profile_fail_at(
		    err, &w->policy.at,
		    "irq.policy: cpulist needs irq.cpulist (the CPUs to spread the IRQs over)");
	if (w->cpulist.set && (!w->policy.set || w->policy.value != IRQ_POLICY_CPULIST))
		return profile_fail_at(err, &w->cpulist.at,
				       "irq.cpulist: only used with \"policy: cpulist\"");
	return 0;
}

/* The IRQ map comes from the probe, taken before the channels change; a
 * channel change re-creates the IRQs (new numbers, new count), so the map
 * would pin IRQs that are gone, or someone else's. */
static const struct kind_conflict irq_conflicts[] = {
    {"channels",
     "channels and irq.policy in one run: changing channels re-creates the IRQs, the IRQ map would be "
     "planned from the IRQs before the change",
     "apply channels first, then the IRQ map: two profiles or two runs"},
    {0},
};

/* ---- show: each port's IRQs ---- */

/* The CPUs an IRQ is delivered to now: the effective affinity when the
 * kernel reports one, else the affinity when it names a single CPU. */
static const struct cpuset *irq_landing(const struct irq_vector *v)
{
	if (v->has_effective && cpuset_count(&v->effective) > 0)
		return &v->effective;
	if (v->has_affinity && cpuset_count(&v->affinity) == 1)
		return &v->affinity;
	return NULL;
}

static bool cpuset_subset(const struct cpuset *a, const struct cpuset *b)
{
	CPUSET_FOREACH(cpu, a)
	if (!cpuset_has(b, (unsigned)cpu))
		return false;
	return true;
}

static char *format_set(bool has, const struct cpuset *c)
{
	char *s = NULL;

	if (!has || cpuset_format_list(c, &s) < 0)
		return NULL;
	return s;
}

/* Per-CPU counts, nonzero only: JSON {"<cpu>": n}; people see the first
 * three as "cpu:n" and how many more. */
static void show_irq_counts(const struct irq_vector *v)
{
	char buf[64] = "";
	size_t len = 0;
	unsigned shown = 0, more = 0;

	out_open_object("counts");
	for (unsigned c = 0; c < v->ncounts; c++) {
		char key[16];

		if (!v->counts[c])
			continue;
		snprintf(key, sizeof(key), "%u", c);
		out_uint(OUT_JSON, key, NULL, v->counts[c]);
		if (shown < 3 && len < sizeof(buf)) {
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%u:%" PRIu64,
						shown ? "," : "", c, v->counts[c]);
			shown++;
		} else
			more++;
	}
	out_close_object();
	if (more)
		out_text("%-20s+%u ", buf, more);
	else
		out_text("%-23s ", shown ? buf : "-");
}

static void show_irq_vector(const struct irq_vector *v, const struct cpuset *local)
{
	_cleanup_free_ char *aff = format_set(v->has_affinity, &v->affinity);
	_cleanup_free_ char *eff = format_set(v->has_effective, &v->effective);
	const struct cpuset *landing = irq_landing(v);
	char queue[16] = "-";

	out_open_object(NULL);
	out_uint(OUT_JSON, "irq", NULL, v->irq);
	out_string(OUT_JSON, "name", NULL, v->name);
	out_string(OUT_JSON, "kind", NULL, irq_kind_to_string(v->kind));
	if (v->queue >= 0) {
		out_int(OUT_JSON, "queue", NULL, v->queue);
		snprintf(queue, sizeof(queue), "%d", v->queue);
	} else
		out_string(OUT_JSON, "queue", NULL, NULL);
	out_text("            %-6s%-6u", queue, v->irq);
	out_string(OUT_ANY, "affinity", "%-12s", aff);
	out_string(OUT_ANY, "effective", "%-10s", eff);
	if (local && (landing || v->has_affinity)) {
		bool off = !cpuset_subset(landing ? landing : &v->affinity, local);
		out_bool(OUT_JSON, "off_node", NULL, off);
		out_text("%-9s", off ? "off-node" : "");
	} else {
		out_string(OUT_JSON, "off_node", NULL, NULL);
		out_text("%-9s", "");
	}
	out_uint(OUT_ANY, "total", "%-12" PRIu64, v->total);
	show_irq_counts(v);
	out_text("%s\n", strna(v->name));
	out_close_object();
}

/* CPUs that carry more than one busy (interrupt count > 0) completion queue
 * of this interface: the "single core at 100%" shape. */
static void show_busy_shared(const struct irq_list *l)
{
	unsigned max = 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct cpuset *c = irq_landing(&l->v[i]);
		int last = -1;

		if (!c)
			continue;
		CPUSET_FOREACH(cpu, c)
		last = cpu;
		if (last >= 0 && (unsigned)last + 1 > max)
			max = (unsigned)last + 1;
	}
	_cleanup_free_ unsigned *busy = calloc(max + 1, sizeof(unsigned));

	out_open_array("busy_shared_cpus");
	if (!busy) {
		out_close_array();
		return;
	}
	for (size_t i = 0; i < l->n; i++) {
		const struct irq_vector *v = &l->v[i];
		const struct cpuset *c = irq_landing(v);

		if (v->kind != IRQ_KIND_COMPLETION || v->total == 0 || !c)
			continue;
		CPUSET_FOREACH(cpu, c)
		busy[cpu]++;
	}
	for (unsigned cpu = 0; cpu < max; cpu++) {
		if (busy[cpu] < 2)
			continue;
		out_open_object(NULL);
		out_uint(OUT_JSON, "cpu", NULL, cpu);
		out_uint(OUT_JSON, "queues", NULL, busy[cpu]);
		out_text("            cpu %u carries %u busy queues\n", cpu, busy[cpu]);
		out_close_object();
	}
	out_close_array();
}

static void irq_show(const struct iface_state *s)
{
	_cleanup_cpuset_ struct cpuset local = CPUSET_INIT;
	bool has_local = false;

	if (s->irqs_r == -ENODEV || (!s->irqs && s->irqs_r >= 0)) {
		out_json("irqs", NULL);
		out_string(OUT_JSON, "irqs_error", NULL, NULL);
		out_json("busy_shared_cpus", NULL);
		return;
	}
	if (s->irqs_r < 0) {
		out_json("irqs", NULL);
		out_string(OUT_JSON, "irqs_error", NULL, sysroot_strerror(s->irqs_r));
		out_json("busy_shared_cpus", NULL);
		out_text("  irqs      %s\n", sysroot_strerror(s->irqs_r));
		return;
	}
	if (s->nic.numa_node >= 0 && s->nic.local_cpulist)
		has_local = cpuset_parse_list(s->nic.local_cpulist, &local) >= 0;
	out_open_array("irqs");
	if (s->irqs->n == 0)
		out_text("  irqs      none\n");
	else
		out_text("  irqs      %-6s%-6s%-12s%-10s%-9s%-12s%-24s%s\n", "queue", "irq", "affinity",
			 "effective", "numa", "total", "per-cpu", "name");
	for (size_t i = 0; i < s->irqs->n; i++)
		show_irq_vector(&s->irqs->v[i], has_local ? &local : NULL);
	out_close_array();
	out_string(OUT_JSON, "irqs_error", NULL, NULL);
	show_busy_shared(s->irqs);
}

/* What show writes of it (kinds.h: show_schema; `make docs` puts it into
 * schemas/state.schema.json). */
static const char irq_show_schema[] =
    "{"
    " \"irqs\": {"
    "  \"type\": [\"array\", \"null\"],"
    "  \"description\": \"The device's IRQs (its PCI function's msi_irqs and the handler names of "
    "/proc/interrupts, under the sysroot): completion queues by queue index, then the others by IRQ number. "
    "Empty for a virtual interface; null without sysfs facts or when they could not be read (irqs_error).\","
    "  \"items\": {"
    "   \"type\": \"object\","
    "   \"required\": [\"irq\", \"name\", \"kind\", \"queue\", \"affinity\", \"effective\", \"off_node\", "
    "\"total\", \"counts\"],"
    "   \"additionalProperties\": false,"
    "   \"properties\": {"
    "    \"irq\": {"
    "     \"type\": \"integer\","
    "     \"minimum\": 0,"
    "     \"description\": \"Linux IRQ number (changes across reboots: key settings by queue)\""
    "    },"
    "    \"name\": {"
    "     \"type\": [\"string\", \"null\"],"
    "     \"description\": \"handler name in /proc/interrupts (mlx5_comp3@pci:0000:af:00.0, "
    "mlx5_async0@pci:..., OFED ens1f0-3)\""
    "    },"
    "    \"kind\": {"
    "     \"enum\": [\"completion\", \"async\", \"control\"],"
    "     \"description\": \"completion: one per channel (queue); async: async events; control: "
    "command/pages EQs and unknown names\""
    "    },"
    "    \"queue\": {"
    "     \"type\": [\"integer\", \"null\"],"
    "     \"minimum\": 0,"
    "     \"description\": \"completion queue index; null for async/control\""
    "    },"
    "    \"affinity\": {"
    "     \"type\": [\"string\", \"null\"],"
    "     \"description\": \"/proc/irq/<n>/smp_affinity_list (CPU list); null when unreadable\""
    "    },"
    "    \"effective\": {"
    "     \"type\": [\"string\", \"null\"],"
    "     \"description\": \"/proc/irq/<n>/effective_affinity_list: where the kernel delivers it now\""
    "    },"
    "    \"off_node\": {"
    "     \"type\": [\"boolean\", \"null\"],"
    "     \"description\": \"delivered (effective affinity, else a single-CPU affinity, else the affinity) "
    "to a CPU outside the device's local_cpulist; null when the device has no NUMA node\""
    "    },"
    "    \"total\": {"
    "     \"type\": \"integer\","
    "     \"minimum\": 0,"
    "     \"description\": \"interrupts counted on all CPUs\""
    "    },"
    "    \"counts\": {"
    "     \"type\": \"object\","
    "     \"description\": \"nonzero interrupt counts by CPU number (keys are CPU numbers as strings)\","
    "     \"propertyNames\": {\"pattern\": \"^[0-9]+$\"},"
    "     \"additionalProperties\": {\"type\": \"integer\", \"minimum\": 1}"
    "    }"
    "   }"
    "  }"
    " },"
    " \"irqs_error\": {"
    "  \"type\": [\"string\", \"null\"],"
    "  \"description\": \"why the IRQs could not be read; null otherwise\""
    " },"
    " \"busy_shared_cpus\": {"
    "  \"type\": [\"array\", \"null\"],"
    "  \"description\": \"CPUs that carry more than one busy (interrupt count > 0) completion queue of this "
    "interface, by the effective affinity: the 'single core at 100%' shape. null when irqs is null.\","
    "  \"items\": {"
    "   \"type\": \"object\","
    "   \"required\": [\"cpu\", \"queues\"],"
    "   \"additionalProperties\": false,"
    "   \"properties\": {"
    "    \"cpu\": {\"type\": \"integer\", \"minimum\": 0, \"description\": \"CPU number\"},"
    "    \"queues\": {"
    "     \"type\": \"integer\","
    "     \"minimum\": 2,"
    "     \"description\": \"busy completion queues delivered to this CPU\""
    "    }"
    "   }"
    "  }"
    " }"
    "}";

const struct change_kind kind_irq = {
    .name = "irq",
    .rank = 50,
    .scope = KIND_SCOPE_HOST,
    .profile_section = "irq",
    .keys = irq_keys,
    .want_size = sizeof(struct irq_want),
    .profile_check = irq_profile_check,
    .read = irq_kind_read,
    .write = irq_kind_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .write_reads_back = true,
    .diff = irq_diff,
    .old_writable = irq_old_writable,
    .manages = irq_manages,
    .conflicts = irq_conflicts,
    .show_port = irq_show,
    .show_schema = irq_show_schema,
    .irqs_recreated = irq_forget_owners,
};
