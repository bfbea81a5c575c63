/* topology.h: CPUs, NUMA nodes and hyperthread siblings of the host.
 *
 * Owns: reading /sys/devices/system/cpu/online, node<N>/cpulist and
 * node<N>/distance, and cpu<N>/topology/thread_siblings_list through the
 * sysroot, and building the same picture in memory for tests. Node numbers
 * may have gaps; a host without node<N> directories has no NUMA (nnodes 0).
 * Must never: write anything. */
#ifndef CX5_TOPOLOGY_H
#define CX5_TOPOLOGY_H

#include "base/cpuset.h"

struct topology_node {
	int id;		    /* N of node<N> */
	struct cpuset cpus; /* node<N>/cpulist (may include offline CPUs) */
	int *distance;	    /* parallel to topology.nodes; NULL when unknown */
};

struct topology {
	struct cpuset online;
	struct topology_node *nodes; /* ascending id */
	unsigned nnodes;
	/* Per CPU number (0..nslots-1): its core (the smallest CPU among its
	 * thread siblings) and its node (-1 when none). */
	int *core;
	int *node;
	unsigned nslots;
};

int topology_read(struct topology **ret);
void topology_free(struct topology *t);
static inline void topology_freep(struct topology **t)
{
	topology_free(*t);
}
#define _cleanup_topology_ _cleanup_(topology_freep)

/* In-memory building (tests, what-if): an empty topology, then nodes, then
 * sibling groups ("0,16"); CPUs not in a sibling group are their own core.
 * topology_add_node() also adds the CPUs to the online set. */
int topology_new(struct topology **ret);
int topology_add_node(struct topology *t, int id, const char *cpulist);
int topology_add_cpus(struct topology *t, const char *cpulist); /* online, no node */
int topology_set_siblings(struct topology *t, const char *cpulist);
/* After every topology_add_node(): adding a node drops the distance table. */
int topology_set_distance(struct topology *t, int from, int to, int distance);

const struct topology_node *topology_find_node(const struct topology *t, int id);
int topology_node_of(const struct topology *t, unsigned cpu); /* -1: none */
int topology_core_of(const struct topology *t, unsigned cpu); /* the CPU itself when unknown */
/* SLIT distance node<from>/distance; without it 10 for the same node and
 * 20 + |from - to| otherwise (numeric proximity). */
int topology_distance(const struct topology *t, int from, int to);
bool topology_has_distance(const struct topology *t);

#endif
