/* irqplan.h: where each completion IRQ of each port should run.
 *
 * Owns: the IRQ affinity planner (policies numa-local and cpulist) over plain
 * structs (ports, topology, policy) and its rendering for `plan` (`show`
 * judges the current map itself: a CPU carrying two busy queues).
 * Deterministic: the same input
 * gives the same plan. Must never: read or write the host (callers pass the
 * topology and the IRQ lists in), or touch async/control IRQs.
 *
 * numa-local: a port's CPUs are its local_cpulist, else its node's cpulist
 * (else all online CPUs). Per NUMA node, the queues of the ports on that
 * node are interleaved (p0q0, p1q0, p0q1, ...) and each goes to the least
 * loaded physical core (so one queue per core first, siblings only after
 * every core has one; per-core load differs by at most one), on that core's
 * least loaded thread; ports on one node share its CPUs. Only a port with
 * more queues than its node has usable CPUs overflows: its queues beyond
 * that count go to free CPUs of the nearest other node (node<N>/distance,
 * else numeric proximity), else share the local CPUs. Without NUMA every
 * online CPU is local. cpulist: round-robin over the usable CPUs of the
 * list, ports interleaved. Excluded CPUs are never used; without an
 * explicit exclude set, numa-local leaves CPU0 out when there is a choice
 * (cpulist uses the list as given). */
#ifndef CX5_IRQPLAN_H
#define CX5_IRQPLAN_H

#include "base/cpuset.h"
#include "os/irqaffinity.h"
#include "os/topology.h"

/* The irq kind's plan as it publishes it for the kinds planned after it
 * (plan_ctx_publish, IRQPLAN_PINS): where each completion IRQ it pins
 * runs, changed or already in place; link.xps follows them, irq.irqbalance
 * ban keeps irqbalance off them. */
#define IRQPLAN_PINS "irq.pins"

struct plan_irq_cpu {
	const char *ifname; /* the port (points into the probed host state) */
	unsigned queue;	    /* completion vector N (mlx5_comp<N>) */
	unsigned irq;
	int cpu;
};

enum irqplan_policy {
	IRQPLAN_NUMA_LOCAL,
	IRQPLAN_CPULIST,
	_IRQPLAN_POLICY_MAX,
};
const char *irqplan_policy_to_string(enum irqplan_policy p); /* "numa-local", "cpulist" */
int irqplan_policy_from_string(const char *s);		     /* -EINVAL when unknown */

struct irqplan_options {
	enum irqplan_policy policy;
	struct cpuset cpulist; /* IRQPLAN_CPULIST: the CPUs to use */
	bool has_exclude;      /* false: default (CPU0 when there is a choice) */
	struct cpuset exclude;
};

struct irqplan_port {
	const char *ifname;
	int numa_node;		     /* -1: no NUMA / unknown */
	struct cpuset local_cpus;    /* device/local_cpulist; empty when unknown */
	const struct irq_list *irqs; /* borrowed; only completion vectors are planned */
};

struct irqplan_entry {
	unsigned port; /* index into the ports given */
	unsigned queue;
	unsigned irq;
	struct cpuset before; /* current affinity (empty when unknown) */
	int cpu;	      /* planned CPU */
	int cpu_node;	      /* node of `cpu` (-1 without NUMA) */
	bool remote;	      /* cpu is off the port's NUMA node */
	bool changed;	      /* before != {cpu} */
};

struct irqplan {
	struct irqplan_entry *e; /* ports in order, queues ascending */
	size_t n;
	char **notes; /* why: overflow, shared CPUs, no NUMA, ... (strv) */
};

/* -EINVAL bad options (cpulist policy with an empty list), -ENOSPC when the
 * exclude set leaves no usable CPU at all. */
int irqplan_build(const struct irqplan_port *ports, size_t nports, const struct topology *topo,
		  const struct irqplan_options *opts, struct irqplan **ret);
void irqplan_free(struct irqplan *p);
static inline void irqplan_freep(struct irqplan **p)
{
	irqplan_free(*p);
}
#define _cleanup_irqplan_ _cleanup_(irqplan_freep)
void irqplan_options_done(struct irqplan_options *o);

#endif
