/* test_irqplan.c: the IRQ planner over fixture and generated topologies.
 *
 * Every plan is checked against the planner's promises: each completion
 * queue planned exactly once; NUMA-local whenever the port's node has as
 * many usable CPUs as the port has queues; per-core load on every node
 * differs by at most one queue; no excluded CPU; hyperthread siblings only
 * after every core of the node has a queue; the same result on a second
 * run. test_compare_round_robin prints (as TAP diagnostics) the numbers of
 * the docs/irq.md table: the planner against a round-robin-from-
 * core-0 script (Mellanox set_irq_affinity.sh) on the same topologies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>

#include "base/output.h"
#include "kinds/irqplan.h"
#include "os/sysroot.h"

#define FIXTURES  "tests/fixtures/sysroot"
#define MAX_PORTS 4

/* A host and its ports, built in memory or discovered from a sysroot. */
struct host {
	const char *name;
	struct topology *topo;
	struct irqplan_port ports[MAX_PORTS];
	struct irq_list *lists[MAX_PORTS];
	size_t nports;
};

/* How many entries of the plan move their IRQ. */
static size_t changed_entries(const struct irqplan *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++)
		n += p->e[i].changed;
	return n;
}

static void host_done(struct host *h)
{
	for (size_t i = 0; i < h->nports; i++) {
		irq_list_free(h->lists[i]);
		cpuset_done(&h->ports[i].local_cpus);
	}
	topology_free(h->topo);
	memset(h, 0, sizeof(*h));
}

/* A port with nq completion queues (IRQs base+q, all on CPU0 now: the
 * symptom) plus an async vector that must stay untouched. */
static void add_port(struct host *h, const char *ifname, int node, const char *local, unsigned nq,
		     unsigned base)
{
	struct irqplan_port *p = &h->ports[h->nports];
	struct irq_list *l;
	char name[64];

	assert_true(h->nports < MAX_PORTS);
	assert_int_equal(irq_list_new(ifname, "0000:af:00.0", &l), 0);
	assert_int_equal(irq_list_add(l, base - 1, "mlx5_async0@pci:0000:af:00.0", "0"), 0);
	for (unsigned q = 0; q < nq; q++) {
		snprintf(name, sizeof(name), "mlx5_comp%u@pci:0000:af:00.0", q);
		assert_int_equal(irq_list_add(l, base + q, name, "0"), 0);
	}
	p->ifname = ifname;
	p->numa_node = node;
	p->local_cpus = (struct cpuset)CPUSET_INIT;
	if (local)
		assert_int_equal(cpuset_parse_list(local, &p->local_cpus), 0);
	p->irqs = l;
	h->lists[h->nports++] = l;
}

/* Discover the named interfaces of a fixture, as `plan` does. */
static void load_fixture(struct host *h, const char *name, const char *const *ifnames)
{
	_cleanup_free_ char *dir = strprintf(FIXTURES "/%s", name);

	h->name = name;
	assert_int_equal(sysroot_set(dir), 0);
	assert_int_equal(topology_read(&h->topo), 0);
	for (; *ifnames; ifnames++) {
		struct irqplan_port *p = &h->ports[h->nports];
		_cleanup_free_ char *local = NULL, *node = NULL;

		assert_int_equal(irq_discover(*ifnames, NULL, IRQ_DISCOVER_AFFINITY | IRQ_DISCOVER_DETAILS,
					      &h->lists[h->nports]),
				 0);
		assert_int_equal(
		    sysroot_read_linef(&local, "/sys/class/net/%s/device/local_cpulist", *ifnames), 0);
		assert_int_equal(sysroot_read_linef(&node, "/sys/class/net/%s/device/numa_node", *ifnames),
				 0);
		p->ifname = *ifnames;
		assert_int_equal(safe_atoi(node, &p->numa_node), 0);
		p->local_cpus = (struct cpuset)CPUSET_INIT;
		assert_int_equal(cpuset_parse_list(local, &p->local_cpus), 0);
		p->irqs = h->lists[h->nports];
		h->nports++;
	}
	assert_int_equal(sysroot_set(NULL), 0);
}

static void fixture_2port(struct host *h)
{
	static const char *const ifs[] = {"ens1f0", "ens1f1", NULL};
	load_fixture(h, "cx5-2port", ifs);
}

static void fixture_8node(struct host *h)
{
	static const char *const ifs[] = {"enp216s0f0np0", NULL};
	load_fixture(h, "cx5-8node", ifs);
}

static void fixture_nonuma(struct host *h)
{
	static const char *const ifs[] = {"ens1f0", NULL};
	load_fixture(h, "cx5-nonuma", ifs);
}

/* 2 sockets x 16 cores x 2 threads, siblings (i, i+32), NIC (2 ports x 16
 * queues) on node 1. */
static void gen_2s16c2t(struct host *h)
{
	char sib[32];

	h->name = "2x16x2, NIC node 1";
	assert_int_equal(topology_new(&h->topo), 0);
	assert_int_equal(topology_add_node(h->topo, 0, "0-15,32-47"), 0);
	assert_int_equal(topology_add_node(h->topo, 1, "16-31,48-63"), 0);
	for (int i = 0; i < 32; i++) {
		snprintf(sib, sizeof(sib), "%d,%d", i, i + 32);
		assert_int_equal(topology_set_siblings(h->topo, sib), 0);
	}
	assert_int_equal(topology_set_distance(h->topo, 0, 0, 10), 0);
	assert_int_equal(topology_set_distance(h->topo, 0, 1, 21), 0);
	assert_int_equal(topology_set_distance(h->topo, 1, 0, 21), 0);
	assert_int_equal(topology_set_distance(h->topo, 1, 1, 10), 0);
	add_port(h, "ens1f0", 1, "16-31,48-63", 16, 100);
	add_port(h, "ens1f1", 1, "16-31,48-63", 16, 200);
}

/* 8 nodes with split ranges (node n: 6n..6n+5 and 48+6n..), siblings
 * (i, i+48), no distance files (numeric proximity), NIC on node 3 with 16
 * queues for 12 local CPUs. */
static void gen_8node_split(struct host *h)
{
	char buf[64];

	h->name = "8 nodes split, 16 queues";
	assert_int_equal(topology_new(&h->topo), 0);
	for (int n = 0; n < 8; n++) {
		snprintf(buf, sizeof(buf), "%d-%d,%d-%d", 6 * n, 6 * n + 5, 48 + 6 * n, 48 + 6 * n + 5);
		assert_int_equal(topology_add_node(h->topo, n, buf), 0);
	}
	for (int i = 0; i < 48; i++) {
		snprintf(buf, sizeof(buf), "%d,%d", i, i + 48);
		assert_int_equal(topology_set_siblings(h->topo, buf), 0);
	}
	add_port(h, "enp59s0f0", 3, "18-23,66-71", 16, 300);
}

/* Node numbers 0, 2, 5 (a gap); node 5 is nearer to node 2 than node 0 by
 * SLIT distance although farther by number. NIC on node 2: 12 queues for 8
 * CPUs. Siblings (i, i+4) inside each node. */
static void gen_gap(struct host *h)
{
	static const int ids[] = {0, 2, 5};
	static const int dist[3][3] = {{10, 31, 31}, {31, 10, 21}, {31, 21, 10}};
	char buf[32];

	h->name = "nodes 0,2,5 (gap)";
	assert_int_equal(topology_new(&h->topo), 0);
	for (int n = 0; n < 3; n++) {
		snprintf(buf, sizeof(buf), "%d-%d", 8 * n, 8 * n + 7);
		assert_int_equal(topology_add_node(h->topo, ids[n], buf), 0);
		for (int c = 0; c < 4; c++) {
			snprintf(buf, sizeof(buf), "%d,%d", 8 * n + c, 8 * n + c + 4);
			assert_int_equal(topology_set_siblings(h->topo, buf), 0);
		}
	}
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			assert_int_equal(topology_set_distance(h->topo, ids[a], ids[b], dist[a][b]), 0);
	add_port(h, "ens2f0", 2, NULL, 12, 400);
}

/* More queues than local CPUs: 2 nodes x 4 cores x 2 threads (siblings
 * (i, i+8)); NIC on node 1 with 24 queues: 8 local, 7 on node 0 (CPU0 is
 * excluded), 9 sharing the local CPUs. */
static void gen_more_queues(struct host *h)
{
	char buf[32];

	h->name = "2x4x2, 24 queues";
	assert_int_equal(topology_new(&h->topo), 0);
	assert_int_equal(topology_add_node(h->topo, 0, "0-3,8-11"), 0);
	assert_int_equal(topology_add_node(h->topo, 1, "4-7,12-15"), 0);
	for (int i = 0; i < 8; i++) {
		snprintf(buf, sizeof(buf), "%d,%d", i, i + 8);
		assert_int_equal(topology_set_siblings(h->topo, buf), 0);
	}
	add_port(h, "ens3f0", 1, "4-7,12-15", 24, 500);
}

static void gen_no_numa(struct host *h)
{
	h->name = "no NUMA, 8 CPUs";
	assert_int_equal(topology_new(&h->topo), 0);
	assert_int_equal(topology_add_cpus(h->topo, "0-7"), 0);
	for (int i = 0; i < 4; i++) {
		char buf[16];
		snprintf(buf, sizeof(buf), "%d,%d", i, i + 4);
		assert_int_equal(topology_set_siblings(h->topo, buf), 0);
	}
	add_port(h, "eth0", -1, NULL, 10, 600);
}

static void gen_single_cpu(struct host *h)
{
	h->name = "single CPU";
	assert_int_equal(topology_new(&h->topo), 0);
	assert_int_equal(topology_add_cpus(h->topo, "0"), 0);
	add_port(h, "eth0", -1, NULL, 4, 700);
}

/* Two ports of 5 queues on node 0 of a 2 x 8 CPU host (cpulist tests). */
static void make_two_small_ports(struct host *h)
{
	h->name = "2 x 8, two small ports";
	assert_int_equal(topology_new(&h->topo), 0);
	assert_int_equal(topology_add_node(h->topo, 0, "0-7"), 0);
	assert_int_equal(topology_add_node(h->topo, 1, "8-15"), 0);
	add_port(h, "ens1f0", 0, "0-7", 5, 800);
	add_port(h, "ens1f1", 0, "0-7", 5, 900);
}

typedef void (*host_fn)(struct host *h);

/* ---- invariants ---- */

static void effective_exclude(const struct host *h, const struct irqplan_options *o, struct cpuset *ret)
{
	cpuset_clear(ret);
	if (o->has_exclude)
		assert_int_equal(cpuset_copy(&o->exclude, ret), 0);
	else if (o->policy == IRQPLAN_NUMA_LOCAL && cpuset_count(&h->topo->online) > 1)
		assert_int_equal(cpuset_add(ret, 0), 0);
}

static void port_local(const struct host *h, const struct irqplan_port *p, const struct cpuset *excl,
		       struct cpuset *ret)
{
	const struct topology_node *n = topology_find_node(h->topo, p->numa_node);

	if (cpuset_count(&p->local_cpus))
		assert_int_equal(cpuset_copy(&p->local_cpus, ret), 0);
	else if (n)
		assert_int_equal(cpuset_copy(&n->cpus, ret), 0);
	else
		assert_int_equal(cpuset_copy(&h->topo->online, ret), 0);
	cpuset_and(ret, &h->topo->online);
	cpuset_andnot(ret, excl);
}

/* Per-core loads over the usable CPUs of `cpus`: max-min <= 1, and a core
 * with two queues means every core has one. */
static void check_core_balance(const struct host *h, const struct irqplan *p, const struct cpuset *cpus,
			       const char *what)
{
	unsigned *load = calloc(h->topo->nslots, sizeof(unsigned));
	unsigned lo = UINT32_MAX, hi = 0;

	assert_non_null(load);
	for (size_t i = 0; i < p->n; i++)
		if (cpuset_has(cpus, (unsigned)p->e[i].cpu))
			load[topology_core_of(h->topo, (unsigned)p->e[i].cpu)]++;
	CPUSET_FOREACH(cpu, cpus)
	{
		unsigned l = load[topology_core_of(h->topo, (unsigned)cpu)];
		lo = l < lo ? l : lo;
		hi = l > hi ? l : hi;
	}
	free(load);
	if (cpuset_count(cpus) == 0)
		return;
	if (hi - lo > 1)
		fail_msg("%s: %s: per-core load %u..%u", h->name, what, lo, hi);
	if (hi >= 2 && lo == 0)
		fail_msg("%s: %s: a core carries two queues while another has none", h->name, what);
}

static void check_plan(const struct host *h, const struct irqplan_options *o, const struct irqplan *p)
{
	_cleanup_cpuset_ struct cpuset excl = CPUSET_INIT, usable = CPUSET_INIT;
	_cleanup_irqplan_ struct irqplan *again = NULL;
	size_t want = 0;

	effective_exclude(h, o, &excl);
	assert_int_equal(cpuset_copy(&h->topo->online, &usable), 0);
	cpuset_andnot(&usable, &excl);

	/* every completion queue exactly once, nothing else */
	for (size_t i = 0; i < h->nports; i++)
		want += irq_list_count(h->lists[i], IRQ_KIND_COMPLETION);
	assert_int_equal(p->n, want);
	for (size_t i = 0; i < p->n; i++) {
		const struct irq_vector *v = irq_list_by_queue(h->lists[p->e[i].port], p->e[i].queue);

		assert_non_null(v);
		assert_int_equal(v->irq, p->e[i].irq);
		for (size_t j = i + 1; j < p->n; j++)
			assert_false(p->e[j].port == p->e[i].port && p->e[j].queue == p->e[i].queue);
		if (cpuset_has(&excl, (unsigned)p->e[i].cpu))
			fail_msg("%s: excluded CPU %d used", h->name, p->e[i].cpu);
		assert_true(cpuset_has(&h->topo->online, (unsigned)p->e[i].cpu));
		assert_int_equal(p->e[i].cpu_node, topology_node_of(h->topo, (unsigned)p->e[i].cpu));
	}

	if (o->policy == IRQPLAN_NUMA_LOCAL) {
		/* NUMA-local whenever the port's node has enough usable CPUs */
		for (size_t pi = 0; pi < h->nports; pi++) {
			_cleanup_cpuset_ struct cpuset local = CPUSET_INIT;

			port_local(h, &h->ports[pi], &excl, &local);
			if (irq_list_count(h->lists[pi], IRQ_KIND_COMPLETION) > cpuset_count(&local))
				continue;
			for (size_t i = 0; i < p->n; i++)
				if (p->e[i].port == pi && !cpuset_has(&local, (unsigned)p->e[i].cpu))
					fail_msg("%s: %s queue %u on CPU %d, off its node", h->name,
						 h->ports[pi].ifname, p->e[i].queue, p->e[i].cpu);
		}
		/* balance per node (or over the whole host without NUMA) */
		if (h->topo->nnodes < 2) {
			check_core_balance(h, p, &usable, "host");
		} else {
			for (unsigned n = 0; n < h->topo->nnodes; n++) {
				_cleanup_cpuset_ struct cpuset c = CPUSET_INIT;
				assert_int_equal(cpuset_copy(&h->topo->nodes[n].cpus, &c), 0);
				cpuset_and(&c, &usable);
				check_core_balance(h, p, &c, "node");
			}
		}
	}

	/* deterministic */
	assert_int_equal(irqplan_build(h->ports, h->nports, h->topo, o, &again), 0);
	assert_int_equal(again->n, p->n);
	for (size_t i = 0; i < p->n; i++) {
		assert_int_equal(again->e[i].port, p->e[i].port);
		assert_int_equal(again->e[i].queue, p->e[i].queue);
		assert_int_equal(again->e[i].cpu, p->e[i].cpu);
	}
	assert_int_equal(strv_length(again->notes), strv_length(p->notes));
}

static void plan_and_check(host_fn make, const struct irqplan_options *o, struct host *h,
			   struct irqplan **ret)
{
	make(h);
	assert_int_equal(irqplan_build(h->ports, h->nports, h->topo, o, ret), 0);
	check_plan(h, o, *ret);
}

static int cpu_of(const struct irqplan *p, unsigned port, unsigned queue)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->e[i].port == port && p->e[i].queue == queue)
			return p->e[i].cpu;
	return -100;
}

static bool has_note(const struct irqplan *p, const char *needle)
{
	for (char **n = p->notes; n && *n; n++)
		if (strstr(*n, needle))
			return true;
	return false;
}

static void dump_notes(const struct irqplan *p)
{
	for (char **n = p->notes; n && *n; n++)
		print_message("# note: %s\n", *n);
}

/* ---- tests ---- */

static const struct irqplan_options numa_local = {.policy = IRQPLAN_NUMA_LOCAL};

static void test_all_topologies(void **state)
{
	static const host_fn hosts[] = {
	    fixture_2port, fixture_8node,   fixture_nonuma, gen_2s16c2t,    gen_8node_split,
	    gen_gap,	   gen_more_queues, gen_no_numa,    gen_single_cpu,
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(hosts); i++) {
		struct host h = {0};
		_cleanup_irqplan_ struct irqplan *p = NULL;

		plan_and_check(hosts[i], &numa_local, &h, &p);
		/* every host here starts with all queues on CPU0 but the single-CPU one */
		assert_true(changed_entries(p) > 0 || cpuset_count(&h.topo->online) == 1);
		host_done(&h);
	}
}

static void test_fixture_2port(void **state)
{
	struct host h = {0};
	_cleanup_irqplan_ struct irqplan *p = NULL;

	(void)state;
	plan_and_check(fixture_2port, &numa_local, &h, &p);
	/* 2 ports x 16 queues, node 1 = 8-15,24-31 (8 cores): interleaved,
	 * one queue per core first, then siblings, then a second round. */
	assert_int_equal(p->n, 32);
	assert_int_equal(cpu_of(p, 0, 0), 8);
	assert_int_equal(cpu_of(p, 1, 0), 9);
	assert_int_equal(cpu_of(p, 0, 1), 10);
	assert_int_equal(cpu_of(p, 1, 3), 15);
	assert_int_equal(cpu_of(p, 0, 4), 24);
	assert_int_equal(cpu_of(p, 1, 7), 31);
	assert_int_equal(cpu_of(p, 0, 8), 8);
	for (size_t i = 0; i < p->n; i++) {
		assert_int_equal(p->e[i].cpu_node, 1);
		assert_false(p->e[i].remote);
	}
	/* IRQ numbers came from the fixture, keyed by queue */
	assert_int_equal(p->e[0].irq, 99);
	assert_int_equal(p->e[1].irq, 109);
	assert_true(has_note(p, "one per physical core (8), then on hyperthread siblings"));
	/* CPU0 (node 0) is neither local to the ports nor given a queue:
	 * leaving it out changed nothing, no note says so */
	assert_false(has_note(p, "CPU0 left out"));
	host_done(&h);
}

static void test_gen_2s16c2t_exact(void **state)
{
	struct host h = {0};
	_cleanup_irqplan_ struct irqplan *p = NULL;

	(void)state;
	plan_and_check(gen_2s16c2t, &numa_local, &h, &p);
	for (unsigned q = 0; q < 8; q++) {
		assert_int_equal(cpu_of(p, 0, q), 16 + 2 * (int)q);
		assert_int_equal(cpu_of(p, 1, q), 17 + 2 * (int)q);
		assert_int_equal(cpu_of(p, 0, q + 8), 48 + 2 * (int)q);
		assert_int_equal(cpu_of(p, 1, q + 8), 49 + 2 * (int)q);
	}
	host_done(&h);
}

static void test_gap_uses_distance(void **state)
{
	struct host h = {0};
	_cleanup_irqplan_ struct irqplan *p = NULL;
	unsigned remote = 0;

	(void)state;
	plan_and_check(gen_gap, &numa_local, &h, &p);
	for (size_t i = 0; i < p->n; i++) {
		if (p->e[i].queue < 8) {
			assert_int_equal(p->e[i].cpu_node, 2);
			continue;
		}
		/* node 5 (distance 21) before node 0 (distance 31) */
		assert_int_equal(p->e[i].cpu_node, 5);
		assert_true(p->e[i].remote);
		remote++;
	}
	assert_int_equal(remote, 4);
	assert_true(has_note(p,
			     "ens2f0: 12 queues for 8 usable CPUs on node 2: queues 8-11 on node 5 (distance "
			     "21); `ethtool -L ens2f0 combined 8` keeps every queue local"));
	host_done(&h);
}

static void test_8node_split_numeric_proximity(void **state)
{
	struct host h = {0};
	_cleanup_irqplan_ struct irqplan *p = NULL;

	(void)state;
	plan_and_check(gen_8node_split, &numa_local, &h, &p);
	/* 12 local CPUs, 4 queues over: nodes 2 and 4 are both at 21 by
	 * number; the lower id wins. */
	for (size_t i = 0; i < p->n; i++)
		assert_int_equal(p->e[i].cpu_node, p->e[i].queue < 12 ? 3 : 2);
	assert_true(has_note(p, "enp59s0f0: 16 queues for 12 usable CPUs on node 3: queues 12-15 on node 2 "
				"(distance 21, by node number); `ethtool -L enp59s0f0 combined 12`"));
	host_done(&h);
}

static void test_more_queues_than_cpus(void **state)
{
	struct host h = {0};
	_cleanup_irqplan_ struct irqplan *p = NULL;
	unsigned on0 = 0, on1 = 0;

	(void)state;
	plan_and_check(gen_more_queues, &numa_local, &h, &p);
	for (size_t i = 0; i < p->n; i++) {
		on0 += p->e[i].cpu_node == 0;
		on1 += p->e[i].cpu_node == 1;
	}
	assert_int_equal(on0, 7); /* node 0 without CPU0 */
	assert_int_equal(on1, 17);
	assert_true(
	    has_note(p, "ens3f0: 24 queues for 8 usable CPUs on node 1: queues 8-14 on node 0 (distance 21, "
			"by node number), 15-23 share the node's CPUs (no free CPU elsewhere); `ethtool -L "
			"ens3f0 combined 8` keeps every queue local"));
	assert_true(has_note(p, "CPU0 left out")); /* queues spilled onto CPU0's node */
	dump_notes(p);
	host_done(&h);
}

static void test_8node_fixture_overflow(void **state)
{
	struct host h = {0};
	_cleanup_irqplan_ struct irqplan *p = NULL;
	unsigned per_node[8] = {0};

	(void)state;
	plan_and_check(fixture_8node, &numa_local, &h, &p);
	assert_int_equal(p->n, 63);
	for (size_t i = 0; i < p->n; i++) {
		assert_true(p->e[i].cpu_node >= 0 && p->e[i].cpu_node < 8);
		per_node[p->e[i].cpu_node]++;
		assert_true(p->e[i].cpu != 47); /* offline */
	}
	/* node 5 local (12), then distance 12: nodes 4, 6, 7 (7 has CPU 47
	 * offline), then distance 32 from node 0 (CPU0 excluded) on. */
	assert_int_equal(per_node[5], 12);
	assert_int_equal(per_node[4], 12);
	assert_int_equal(per_node[6], 12);
	assert_int_equal(per_node[7], 11);
	assert_int_equal(per_node[0], 11);
	assert_int_equal(per_node[1], 5);
	assert_int_equal(per_node[2] + per_node[3], 0);
	host_done(&h);
}

static void test_nonuma_fixture(void **state)
{
	struct host h = {0};
	_cleanup_irqplan_ struct irqplan *p = NULL;

	(void)state;
	plan_and_check(fixture_nonuma, &numa_local, &h, &p);
	/* OFED names ens1f0-<n>, numa_node -1, 4 CPUs (0,2)(1,3), CPU0 out:
	 * core {1,3} first (its core has no excluded thread), then CPU 2. */
	assert_int_equal(p->n, 4);
	assert_int_equal(cpu_of(p, 0, 0), 1);
	assert_int_equal(cpu_of(p, 0, 1), 2);
	assert_int_equal(cpu_of(p, 0, 2), 3);
	assert_int_equal(cpu_of(p, 0, 3), 2);
	assert_true(has_note(p, "no NUMA node"));
	assert_true(has_note(p, "CPU0 left out")); /* one pool: CPU0 was a candidate */
	host_done(&h);
}

static void test_single_cpu(void **state)
{
	struct host h = {0};
	_cleanup_irqplan_ struct irqplan *p = NULL;

	(void)state;
	plan_and_check(gen_single_cpu, &numa_local, &h, &p);
	for (size_t i = 0; i < p->n; i++)
		assert_int_equal(p->e[i].cpu, 0);
	/* already on CPU0: nothing changes */
	assert_int_equal(changed_entries(p), 0);
	assert_true(has_note(p, "single-CPU host"));
	assert_false(has_note(p, "CPU0 left out"));
	host_done(&h);
}

static void test_explicit_exclude(void **state)
{
	struct host h = {0};
	_cleanup_irqplan_ struct irqplan *p = NULL;
	struct irqplan_options o = {.policy = IRQPLAN_NUMA_LOCAL, .has_exclude = true};

	(void)state;
	assert_int_equal(cpuset_parse_list("8-9,24", &o.exclude), 0);
	plan_and_check(fixture_2port, &o, &h, &p);
	assert_false(has_note(p, "CPU0 left out"));
	host_done(&h);
	irqplan_free(p);
	p = NULL;

	/* everything excluded: nothing to plan on */
	assert_int_equal(cpuset_parse_list("0-63", &o.exclude), 0);
	fixture_2port(&h);
	assert_int_equal(irqplan_build(h.ports, h.nports, h.topo, &o, &p), -ENOSPC);
	host_done(&h);
	irqplan_options_done(&o);
}

static void test_cpulist_policy(void **state)
{
	struct host h = {0};
	_cleanup_irqplan_ struct irqplan *p = NULL;
	struct irqplan_options o = {.policy = IRQPLAN_CPULIST};
	static const int want[] = {0, 2, 8, 1, 3}; /* port 0: 0,2,8,1,3; port 1: 1,3,0,2,8 */

	(void)state;
	assert_int_equal(cpuset_parse_list("0-3,8", &o.cpulist), 0);
	make_two_small_ports(&h);
	assert_int_equal(irqplan_build(h.ports, h.nports, h.topo, &o, &p), 0);
	check_plan(&h, &o, p);
	for (unsigned q = 0; q < 5; q++)
		assert_int_equal(cpu_of(p, 0, q), want[q]);
	assert_int_equal(cpu_of(p, 1, 0), 1);
	assert_int_equal(cpu_of(p, 1, 2), 0);
	assert_int_equal(cpu_of(p, 1, 4), 8);
	assert_true(has_note(p, "10 queues for 5 CPUs in the cpulist"));
	host_done(&h);
	irqplan_free(p);
	p = NULL;

	/* offline CPUs in the list are dropped and said so */
	assert_int_equal(cpuset_parse_list("2,40-41", &o.cpulist), 0);
	make_two_small_ports(&h);
	assert_int_equal(irqplan_build(h.ports, h.nports, h.topo, &o, &p), 0);
	assert_true(has_note(p, "CPUs 40-41 of the cpulist are offline or excluded"));
	for (size_t i = 0; i < p->n; i++)
		assert_int_equal(p->e[i].cpu, 2);
	host_done(&h);

	/* empty list */
	cpuset_clear(&o.cpulist);
	make_two_small_ports(&h);
	assert_int_equal(irqplan_build(h.ports, h.nports, h.topo, &o, &p), -EINVAL);
	host_done(&h);
	irqplan_options_done(&o);
}

/* Mellanox set_irq_affinity.sh: per interface, the k-th IRQ goes to the
 * k-th online CPU counting from CPU 0, wrapping. */
static int round_robin_cpu(const struct topology *t, size_t k)
{
	unsigned n = cpuset_count(&t->online), i = 0;

	k %= n;
	CPUSET_FOREACH(cpu, &t->online)
	if (i++ == k)
		return cpu;
	return -1;
}

struct score {
	unsigned local, total, max_core, on_cpu0;
};

static void score_map(const struct host *h, const int *cpus, const unsigned *ports, size_t n, struct score *s)
{
	unsigned *core = calloc(h->topo->nslots, sizeof(unsigned));
	_cleanup_cpuset_ struct cpuset none = CPUSET_INIT;

	assert_non_null(core);
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < n; i++) {
		_cleanup_cpuset_ struct cpuset local = CPUSET_INIT;
		unsigned c = (unsigned)topology_core_of(h->topo, (unsigned)cpus[i]);

		port_local(h, &h->ports[ports[i]], &none, &local);
		s->local += cpuset_has(&local, (unsigned)cpus[i]);
		s->total++;
		s->on_cpu0 += cpus[i] == 0;
		if (++core[c] > s->max_core)
			s->max_core = core[c];
	}
	free(core);
}

static void test_compare_round_robin(void **state)
{
	static const host_fn hosts[] = {
	    fixture_2port,   fixture_8node, fixture_nonuma,  gen_2s16c2t,
	    gen_8node_split, gen_gap,	    gen_more_queues,
	};

	(void)state;
	print_message("# | topology | queues | script: NUMA-local | script: max/core | script: on CPU0 | "
		      "cx5prof: NUMA-local | cx5prof: max/core | cx5prof: on CPU0 |\n");
	for (size_t hi = 0; hi < ARRAY_SIZE(hosts); hi++) {
		struct host h = {0};
		_cleanup_irqplan_ struct irqplan *p = NULL;
		int *rr, *pc;
		unsigned *port;
		struct score a, b;
		size_t n = 0;

		plan_and_check(hosts[hi], &numa_local, &h, &p);
		rr = calloc(p->n, sizeof(int));
		pc = calloc(p->n, sizeof(int));
		port = calloc(p->n, sizeof(unsigned));
		assert_true(rr && pc && port);
		for (size_t pi = 0; pi < h.nports; pi++) {
			size_t k = 0;
			for (size_t j = 0; j < h.lists[pi]->n; j++) {
				if (h.lists[pi]->v[j].kind != IRQ_KIND_COMPLETION)
					continue;
				rr[n] = round_robin_cpu(h.topo, k++);
				pc[n] = cpu_of(p, (unsigned)pi, (unsigned)h.lists[pi]->v[j].queue);
				port[n] = (unsigned)pi;
				n++;
			}
		}
		assert_int_equal(n, p->n);
		score_map(&h, rr, port, n, &a);
		score_map(&h, pc, port, n, &b);
		print_message("# | %s | %zu | %.0f%% | %u | %u | %.0f%% | %u | %u |\n", h.name, n,
			      100.0 * a.local / a.total, a.max_core, a.on_cpu0, 100.0 * b.local / b.total,
			      b.max_core, b.on_cpu0);
		/* never less local, never on CPU0 (it is excluded); the per-core
		 * maximum can be higher: two ports share their node's cores
		 * instead of spilling onto the remote node */
		assert_true(b.local >= a.local);
		assert_int_equal(b.on_cpu0, 0);
		free(rr);
		free(pc);
		free(port);
		host_done(&h);
	}
}

static void test_policy_names(void **state)
{
	(void)state;
	assert_string_equal(irqplan_policy_to_string(IRQPLAN_NUMA_LOCAL), "numa-local");
	assert_string_equal(irqplan_policy_to_string(IRQPLAN_CPULIST), "cpulist");
	assert_int_equal(irqplan_policy_from_string("cpulist"), IRQPLAN_CPULIST);
	assert_int_equal(irqplan_policy_from_string("numa-local"), IRQPLAN_NUMA_LOCAL);
	assert_int_equal(irqplan_policy_from_string("numa"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_all_topologies),
	    cmocka_unit_test(test_fixture_2port),
	    cmocka_unit_test(test_gen_2s16c2t_exact),
	    cmocka_unit_test(test_gap_uses_distance),
	    cmocka_unit_test(test_8node_split_numeric_proximity),
	    cmocka_unit_test(test_more_queues_than_cpus),
	    cmocka_unit_test(test_8node_fixture_overflow),
	    cmocka_unit_test(test_nonuma_fixture),
	    cmocka_unit_test(test_single_cpu),
	    cmocka_unit_test(test_explicit_exclude),
	    cmocka_unit_test(test_cpulist_policy),
	    cmocka_unit_test(test_compare_round_robin),
	    cmocka_unit_test(test_policy_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
