/* irqplan.c: the IRQ affinity planner (see irqplan.h for the policy).
 *
 * Owns: choosing one CPU per completion queue from plain inputs (ports with
 * their IRQ lists, the topology, the options), the notes that explain the
 * choice, and the `plan` table. Must never: touch the
 * host, depend on iteration order of anything but its inputs (the result is
 * deterministic), use an excluded CPU, or plan async/control vectors. */
#include "irqplan.h"

#include <inttypes.h>

#include "base/output.h"

static const char *const policy_names[_IRQPLAN_POLICY_MAX] = {
    [IRQPLAN_NUMA_LOCAL] = "numa-local",
    [IRQPLAN_CPULIST] = "cpulist",
};

const char *irqplan_policy_to_string(enum irqplan_policy p)
{
	return p < _IRQPLAN_POLICY_MAX ? policy_names[p] : NULL;
}

int irqplan_policy_from_string(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(policy_names); i++)
		if (streq(s, policy_names[i]))
			return (int)i;
	return -EINVAL;
}

void irqplan_options_done(struct irqplan_options *o)
{
	cpuset_done(&o->cpulist);
	cpuset_done(&o->exclude);
}

void irqplan_free(struct irqplan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		cpuset_done(&p->e[i].before);
	free(p->e);
	strv_free(p->notes);
	free(p);
}

/* Working state of one build. Loads are indexed by CPU number; a core is
 * named by its smallest CPU (topology_core_of). */
struct planner {
	const struct topology *topo;
	const struct irqplan_port *ports;
	size_t nports;
	struct cpuset usable;	/* online minus the excluded CPUs */
	struct cpuset excluded; /* effective exclude set (for core preference) */
	unsigned nslots;
	unsigned *cpu_load;
	unsigned *core_load;
	struct irqplan *plan;
};

/* One queue to place: the port and its completion vector. */
struct pending {
	unsigned port;
	const struct irq_vector *v;
	size_t ordinal; /* k-th completion vector of its port */
};

static void planner_done(struct planner *pl)
{
	cpuset_done(&pl->usable);
	cpuset_done(&pl->excluded);
	free(pl->cpu_load);
	free(pl->core_load);
	irqplan_free(pl->plan);
}

static int add_note(struct planner *pl, char *s)
{
	return strv_push(&pl->plan->notes, s);
}

static int core_of(const struct planner *pl, int cpu)
{
	return topology_core_of(pl->topo, (unsigned)cpu);
}

/* A core one of whose threads is excluded (CPU0's sibling) is less
 * attractive: it shares the physical core with what we kept free. */
static bool core_partly_excluded(const struct planner *pl, int core)
{
	CPUSET_FOREACH(c, &pl->excluded)
	if (core_of(pl, c) == core)
		return true;
	return false;
}

/* The CPU of `set` on the least loaded core, then the least loaded thread,
 * then cores with no excluded sibling, then the smallest core and CPU. */
static int pick_cpu(const struct planner *pl, const struct cpuset *set)
{
	int best = -1;
	unsigned bcore = 0, bcpu = 0;
	bool bpart = false;

	CPUSET_FOREACH(cpu, set)
	{
		int core = core_of(pl, cpu);
		unsigned lc = pl->core_load[core], lt = pl->cpu_load[cpu];
		bool part = core_partly_excluded(pl, core);

		if (best < 0 || lc < bcore || (lc == bcore && lt < bcpu) ||
		    (lc == bcore && lt == bcpu && !part && bpart) ||
		    (lc == bcore && lt == bcpu && part == bpart && core < core_of(pl, best))) {
			best = cpu;
			bcore = lc;
			bcpu = lt;
			bpart = part;
		}
	}
	return best;
}

static int assign(struct planner *pl, const struct pending *q, int cpu)
{
	const struct irqplan_port *port = &pl->ports[q->port];
	struct irqplan *p = pl->plan;
	struct irqplan_entry *e;
	struct irqplan_entry *ne;
	int r;

	ne = realloc(p->e, (p->n + 1) * sizeof(*ne));
	if (!ne)
		return -ENOMEM;
	p->e = ne;
	e = &ne[p->n];
	*e = (struct irqplan_entry){
	    .port = q->port,
	    .queue = (unsigned)q->v->queue,
	    .irq = q->v->irq,
	    .cpu = cpu,
	    .cpu_node = topology_node_of(pl->topo, (unsigned)cpu),
	};
	if (q->v->has_affinity) {
		r = cpuset_copy(&q->v->affinity, &e->before);
		if (r < 0)
			return r;
	}
	e->remote = port->numa_node >= 0 && e->cpu_node >= 0 && e->cpu_node != port->numa_node;
	e->changed = !(cpuset_count(&e->before) == 1 && cpuset_has(&e->before, (unsigned)cpu));
	p->n++;
	pl->cpu_load[cpu]++;
	pl->core_load[core_of(pl, cpu)]++;
	return 0;
}

/* The CPUs a port's queues belong on: its local_cpulist, else its node's
 * cpulist, else every online CPU. */
static int port_local_cpus(const struct planner *pl, const struct irqplan_port *port, struct cpuset *ret)
{
	const struct topology_node *n =
	    port->numa_node >= 0 ? topology_find_node(pl->topo, port->numa_node) : NULL;
	int r;

	if (cpuset_count(&port->local_cpus) > 0)
		r = cpuset_copy(&port->local_cpus, ret);
	else if (n)
		r = cpuset_copy(&n->cpus, ret);
	else
		r = cpuset_copy(&pl->topo->online, ret);
	if (r < 0)
		return r;
	cpuset_and(ret, &pl->topo->online);
	return 0;
}

/* Completion vectors of the ports in `members`, interleaved p0q0, p1q0, ... */
static int interleave(const struct planner *pl, const unsigned *members, size_t nmembers,
		      struct pending **ret, size_t *ret_n)
{
	_cleanup_free_ struct pending *v = NULL;
	size_t n = 0, total = 0;

	for (size_t i = 0; i < nmembers; i++)
		if (pl->ports[members[i]].irqs)
			total += pl->ports[members[i]].irqs->n;
	v = calloc(total ? total : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t k = 0;; k++) {
		bool any = false;

		for (size_t i = 0; i < nmembers; i++) {
			const struct irq_list *l = pl->ports[members[i]].irqs;
			size_t seen = 0;

			if (!l)
				continue;
			/* the k-th completion vector; the list keeps them first, by queue */
			for (size_t j = 0; j < l->n; j++) {
				if (l->v[j].kind != IRQ_KIND_COMPLETION || l->v[j].queue < 0)
					continue;
				if (seen++ == k) {
					v[n++] =
					    (struct pending){.port = members[i], .v = &l->v[j], .ordinal = k};
					any = true;
					break;
				}
			}
		}
		if (!any)
			break;
	}
	*ret = TAKE_PTR(v);
	*ret_n = n;
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct irqplan_entry *x = a, *y = b;

	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	return x->queue < y->queue ? -1 : x->queue > y->queue;
}

/* "ens1f0, ens1f1" */
static char *port_names(const struct planner *pl, const unsigned *members, size_t n)
{
	char *s = strdup("");

	for (size_t i = 0; s && i < n; i++) {
		char *t = strprintf("%s%s%s", s, i ? ", " : "", pl->ports[members[i]].ifname);
		free(s);
		s = t;
	}
	return s;
}

struct group {
	int node;	   /* the ports' NUMA node, -1 none */
	unsigned *members; /* port indices, input order */
	size_t nmembers;
	struct cpuset cands; /* usable local CPUs */
	struct pending *queues;
	size_t nqueues;
	struct pending *over; /* queues beyond the local capacity */
	size_t nover;
};

static void groups_free(struct group *g, size_t n)
{
	for (size_t i = 0; g && i < n; i++) {
		free(g[i].members);
		cpuset_done(&g[i].cands);
		free(g[i].queues);
		free(g[i].over);
	}
	free(g);
}

/* Ports grouped by NUMA node, groups by ascending node (-1 first). */
static int make_groups(struct planner *pl, struct group **ret, size_t *ret_n)
{
	struct group *g = NULL;
	size_t ng = 0;
	int r;

	for (size_t i = 0; i < pl->nports; i++) {
		int node = pl->ports[i].numa_node < 0 ? -1 : pl->ports[i].numa_node;
		size_t k = 0;
		unsigned *nm;

		while (k < ng && g[k].node != node)
			k++;
		if (k == ng) {
			struct group *ngp = realloc(g, (ng + 1) * sizeof(*g));
			size_t pos = 0;

			if (!ngp) {
				groups_free(g, ng);
				return -ENOMEM;
			}
			g = ngp;
			while (pos < ng && g[pos].node < node)
				pos++;
			memmove(&g[pos + 1], &g[pos], (ng - pos) * sizeof(*g));
			g[pos] = (struct group){.node = node};
			ng++;
			k = pos;
			r = port_local_cpus(pl, &pl->ports[i], &g[k].cands);
			if (r < 0) {
				groups_free(g, ng);
				return r;
			}
		}
		nm = realloc(g[k].members, (g[k].nmembers + 1) * sizeof(unsigned));
		if (!nm) {
			groups_free(g, ng);
			return -ENOMEM;
		}
		g[k].members = nm;
		nm[g[k].nmembers++] = (unsigned)i;
	}
	*ret = g;
	*ret_n = ng;
	return 0;
}

/* Remote nodes by distance from `node` (ties: lower id), into ids[]. */
static void nodes_by_distance(const struct topology *t, int node, int *ids, unsigned *n)
{
	*n = 0;
	for (unsigned i = 0; i < t->nnodes; i++) {
		int id = t->nodes[i].id, d = topology_distance(t, node, id);
		unsigned pos = *n;

		if (id == node)
			continue;
		while (pos > 0 && topology_distance(t, node, ids[pos - 1]) > d)
			pos--;
		memmove(&ids[pos + 1], &ids[pos], (*n - pos) * sizeof(int));
		ids[pos] = id;
		(*n)++;
	}
}

/* Usable CPUs of node `id` that carry no queue yet. */
static int free_cpus_of_node(const struct planner *pl, int id, struct cpuset *ret)
{
	const struct topology_node *n = topology_find_node(pl->topo, id);
	int r;

	cpuset_clear(ret);
	if (!n)
		return 0;
	r = cpuset_copy(&n->cpus, ret);
	if (r < 0)
		return r;
	cpuset_and(ret, &pl->usable);
	CPUSET_FOREACH(cpu, &n->cpus)
	if (cpuset_has(ret, (unsigned)cpu) && pl->cpu_load[cpu] > 0)
		cpuset_remove(ret, (unsigned)cpu);
	return 0;
}

static int plan_overflow(struct planner *pl, struct group *g)
{
	_cleanup_free_ int *order = NULL;
	_cleanup_free_ int *placed_node = NULL;
	unsigned norder = 0;
	int r;

	if (g->nover == 0)
		return 0;
	order = calloc(pl->topo->nnodes + 1, sizeof(int));
	placed_node = calloc(g->nover, sizeof(int));
	if (!order || !placed_node)
		return -ENOMEM;
	if (g->node >= 0)
		nodes_by_distance(pl->topo, g->node, order, &norder);

	for (size_t i = 0; i < g->nover; i++) {
		_cleanup_cpuset_ struct cpuset free_cpus = CPUSET_INIT;
		int cpu = -1;

		placed_node[i] = -2; /* shared on the local node */
		for (unsigned k = 0; k < norder && cpu < 0; k++) {
			r = free_cpus_of_node(pl, order[k], &free_cpus);
			if (r < 0)
				return r;
			cpu = pick_cpu(pl, &free_cpus);
			if (cpu >= 0)
				placed_node[i] = order[k];
		}
		if (cpu < 0)
			cpu = pick_cpu(pl, cpuset_count(&g->cands) ? &g->cands : &pl->usable);
		if (cpu < 0)
			return -ENOSPC;
		r = assign(pl, &g->over[i], cpu);
		if (r < 0)
			return r;
	}

	/* One note per port: which queues went where, and why. */
	for (size_t m = 0; m < g->nmembers; m++) {
		unsigned port = g->members[m];
		const char *ifname = pl->ports[port].ifname;
		size_t nq =
		    pl->ports[port].irqs ? irq_list_count(pl->ports[port].irqs, IRQ_KIND_COMPLETION) : 0;
		unsigned cap = cpuset_count(&g->cands);
		_cleanup_free_ char *where = strdup("");
		bool any = false;

		if (!where)
			return -ENOMEM;
		/* destinations in the order the queues reached them */
		for (size_t i = 0; i < g->nover; i++) {
			_cleanup_cpuset_ struct cpuset qs = CPUSET_INIT;
			_cleanup_free_ char *ql = NULL, *item = NULL;
			bool seen = false;
			char *t;

			if (g->over[i].port != port)
				continue;
			for (size_t k = 0; k < i; k++)
				seen |= g->over[k].port == port && placed_node[k] == placed_node[i];
			if (seen)
				continue;
			for (size_t k = i; k < g->nover; k++)
				if (g->over[k].port == port && placed_node[k] == placed_node[i] &&
				    cpuset_add(&qs, (unsigned)g->over[k].v->queue) < 0)
					return -ENOMEM;
			if (cpuset_format_list(&qs, &ql) < 0)
				return -ENOMEM;
			if (placed_node[i] >= 0)
				item = strprintf("%s on node %d (distance %d%s)", ql, placed_node[i],
						 topology_distance(pl->topo, g->node, placed_node[i]),
						 topology_has_distance(pl->topo) ? "" : ", by node number");
			else
				item = strprintf("%s share the node's CPUs (no free CPU elsewhere)", ql);
			if (!item)
				return -ENOMEM;
			t = strprintf("%s%s%s%s", where, any ? ", " : "",
				      any ? "" : (cpuset_count(&qs) > 1 ? "queues " : "queue "), item);
			if (!t)
				return -ENOMEM;
			free(where);
			where = t;
			any = true;
		}
		if (!any)
			continue;
		r = add_note(
		    pl, strprintf("%s: %zu queues for %u usable CPUs on node %d: %s; `ethtool -L %s combined "
				  "%u` keeps every queue local",
				  ifname, nq, cap, g->node, where, ifname, cap));
		if (r < 0)
			return r;
	}
	return 0;
}

static int plan_numa_local(struct planner *pl)
{
	struct group *g = NULL;
	size_t ng = 0;
	int r;

	r = make_groups(pl, &g, &ng);
	if (r < 0)
		return r;
	for (size_t i = 0; i < ng; i++) {
		size_t cap, nfit = 0;
		bool no_numa;

		r = interleave(pl, g[i].members, g[i].nmembers, &g[i].queues, &g[i].nqueues);
		if (r < 0)
			goto out;
		cpuset_and(&g[i].cands, &pl->usable);
		no_numa = g[i].node < 0 || pl->topo->nnodes < 2;
		if (cpuset_count(&g[i].cands) == 0 && no_numa) {
			r = cpuset_copy(&pl->usable, &g[i].cands);
			if (r < 0)
				goto out;
		}
		cap = cpuset_count(&g[i].cands);
		g[i].over = calloc(g[i].nqueues ? g[i].nqueues : 1, sizeof(struct pending));
		if (!g[i].over) {
			r = -ENOMEM;
			goto out;
		}
		/* A port overflows only with more queues than the node has usable
		 * CPUs; ports of the same node share its CPUs otherwise. Without
		 * NUMA there is nowhere to overflow to. */
		for (size_t k = 0; k < g[i].nqueues; k++) {
			int cpu;

			if (!no_numa && g[i].queues[k].ordinal >= cap) {
				g[i].over[g[i].nover++] = g[i].queues[k];
				continue;
			}
			nfit++;
			cpu = pick_cpu(pl, &g[i].cands);
			if (cpu < 0) {
				r = -ENOSPC;
				goto out;
			}
			r = assign(pl, &g[i].queues[k], cpu);
			if (r < 0)
				goto out;
		}

		if (g[i].nqueues > 0) {
			_cleanup_free_ char *names = port_names(pl, g[i].members, g[i].nmembers);
			_cleanup_cpuset_ struct cpuset cores = CPUSET_INIT;
			unsigned ncores;
			char *note = NULL;

			if (!names) {
				r = -ENOMEM;
				goto out;
			}
			CPUSET_FOREACH(cpu, &g[i].cands)
			if (cpuset_add(&cores, (unsigned)core_of(pl, cpu)) < 0) {
				r = -ENOMEM;
				goto out;
			}
			ncores = cpuset_count(&cores);
			if (g[i].node < 0)
				note = strprintf("%s: no NUMA node: %zu queues spread over %zu CPUs%s", names,
						 g[i].nqueues, cap,
						 g[i].nqueues > cap ? ", some CPUs carry more than one queue"
								    : "");
			else if (nfit > ncores && ncores > 0)
				note = strprintf(
				    "%s: %zu queues on node %d: one per physical core (%u), then on "
				    "hyperthread siblings",
				    names, nfit, g[i].node, ncores);
			else if (cap == 0)
				note = strprintf("%s: node %d has no usable CPU (all excluded or offline)",
						 names, g[i].node);
			if (note) {
				r = add_note(pl, note);
				if (r < 0)
					goto out;
			}
		}
	}
	/* Overflow after every node has placed its own queues, so the nearest
	 * node's own ports keep their CPUs. */
	for (size_t i = 0; i < ng; i++) {
		r = plan_overflow(pl, &g[i]);
		if (r < 0)
			goto out;
	}
	r = 0;
out:
	groups_free(g, ng);
	return r;
}

static int plan_cpulist(struct planner *pl, const struct irqplan_options *opts)
{
	_cleanup_cpuset_ struct cpuset list = CPUSET_INIT, dropped = CPUSET_INIT;
	_cleanup_free_ unsigned *all = NULL;
	_cleanup_free_ struct pending *q = NULL;
	_cleanup_free_ int *cpus = NULL;
	size_t nq = 0, ncpus = 0;
	int r;

	if (cpuset_count(&opts->cpulist) == 0)
		return -EINVAL;
	r = cpuset_copy(&opts->cpulist, &list);
	if (r < 0)
		return r;
	cpuset_and(&list, &pl->usable);
	r = cpuset_copy(&opts->cpulist, &dropped);
	if (r < 0)
		return r;
	cpuset_andnot(&dropped, &list);
	if (cpuset_count(&dropped) > 0) {
		_cleanup_free_ char *s = NULL;
		r = cpuset_format_list(&dropped, &s);
		if (r < 0)
			return r;
		r = add_note(pl, strprintf("CPUs %s of the cpulist are offline or excluded: not used", s));
		if (r < 0)
			return r;
	}
	if (cpuset_count(&list) == 0)
		return -ENOSPC;
	cpus = calloc(cpuset_count(&list), sizeof(int));
	all = calloc(pl->nports ? pl->nports : 1, sizeof(unsigned));
	if (!cpus || !all)
		return -ENOMEM;
	CPUSET_FOREACH(cpu, &list)
	cpus[ncpus++] = cpu;
	for (size_t i = 0; i < pl->nports; i++)
		all[i] = (unsigned)i;
	r = interleave(pl, all, pl->nports, &q, &nq);
	if (r < 0)
		return r;
	for (size_t i = 0; i < nq; i++) {
		r = assign(pl, &q[i], cpus[i % ncpus]);
		if (r < 0)
			return r;
	}
	if (nq > ncpus)
		return add_note(pl,
				strprintf("%zu queues for %zu CPUs in the cpulist: some CPUs carry more than "
					  "one queue",
					  nq, ncpus));
	return 0;
}

/* The default exclusion of CPU0 is worth a note only where CPU0 was a
 * candidate: local to a port, or on a node (or the one pool of a host
 * without NUMA) that received queues. First of the notes: it explains the
 * placements after it. */
static int cpu0_note(struct planner *pl)
{
	int node0 = topology_node_of(pl->topo, 0);
	bool matters = false;
	char **n, *note;
	size_t k;
	int r;

	for (size_t i = 0; i < pl->nports && !matters; i++) {
		_cleanup_cpuset_ struct cpuset local = CPUSET_INIT;

		r = port_local_cpus(pl, &pl->ports[i], &local);
		if (r < 0)
			return r;
		matters = cpuset_has(&local, 0);
	}
	for (size_t i = 0; i < pl->plan->n && !matters; i++)
		matters = pl->plan->e[i].cpu_node == node0;
	if (!matters)
		return 0;
	r = add_note(pl, strdup("CPU0 left out (the default exclude_cpus; it serves the timer and most "
				"unpinned interrupts)"));
	if (r < 0)
		return r;
	n = pl->plan->notes;
	k = strv_length(n) - 1;
	note = n[k];
	memmove(n + 1, n, k * sizeof(*n));
	n[0] = note;
	return 0;
}

int irqplan_build(const struct irqplan_port *ports, size_t nports, const struct topology *topo,
		  const struct irqplan_options *opts, struct irqplan **ret)
{
	_cleanup_(planner_done) struct planner pl = {.topo = topo, .ports = ports, .nports = nports};
	int last = cpuset_last(&topo->online);
	bool cpu0_default_out = false;
	int r;

	if (opts->policy >= _IRQPLAN_POLICY_MAX || last < 0)
		return -EINVAL;
	pl.plan = calloc(1, sizeof(*pl.plan));
	pl.nslots = (unsigned)last + 1;
	pl.cpu_load = calloc(pl.nslots, sizeof(unsigned));
	pl.core_load = calloc(pl.nslots, sizeof(unsigned));
	if (!pl.plan || !pl.cpu_load || !pl.core_load)
		return -ENOMEM;
	for (size_t i = 0; i < nports; i++)
		if (!ports[i].ifname)
			return -EINVAL;

	r = cpuset_copy(&topo->online, &pl.usable);
	if (r < 0)
		return r;
	if (opts->has_exclude) {
		r = cpuset_copy(&opts->exclude, &pl.excluded);
		if (r < 0)
			return r;
	} else if (opts->policy == IRQPLAN_NUMA_LOCAL && cpuset_has(&topo->online, 0) &&
		   cpuset_count(&topo->online) > 1) {
		r = cpuset_add(&pl.excluded, 0);
		if (r < 0)
			return r;
		cpu0_default_out = true;
	}
	cpuset_andnot(&pl.usable, &pl.excluded);
	if (cpuset_count(&pl.usable) == 0)
		return -ENOSPC;
	if (cpuset_count(&topo->online) == 1) {
		r = add_note(&pl, strdup("single-CPU host: every queue on that CPU"));
		if (r < 0)
			return r;
	}

	r = opts->policy == IRQPLAN_CPULIST ? plan_cpulist(&pl, opts) : plan_numa_local(&pl);
	if (r < 0)
		return r;
	if (cpu0_default_out) {
		r = cpu0_note(&pl);
		if (r < 0)
			return r;
	}
	if (pl.plan->n > 1)
		qsort(pl.plan->e, pl.plan->n, sizeof(*pl.plan->e), cmp_entry);
	if (!pl.plan->notes) {
		pl.plan->notes = calloc(1, sizeof(char *));
		if (!pl.plan->notes)
			return -ENOMEM;
	}
	*ret = TAKE_PTR(pl.plan);
	return 0;
}
