/* topology.c: online CPUs, NUMA nodes, distances and thread siblings
 * (see topology.h).
 *
 * Owns: the host's CPU topology as read from sysfs through the sysroot, or
 * built in memory. Must never: write anything, or fail because an optional
 * file is missing: no node<N>/ means no NUMA, no distance file means numeric
 * proximity, no thread_siblings_list means every CPU is its own core. */
#include "topology.h"

#include <stdarg.h>

#include "sysroot.h"

void topology_free(struct topology *t)
{
	if (!t)
		return;
	for (unsigned i = 0; i < t->nnodes; i++) {
		cpuset_done(&t->nodes[i].cpus);
		free(t->nodes[i].distance);
	}
	free(t->nodes);
	cpuset_done(&t->online);
	free(t->core);
	free(t->node);
	free(t);
}

int topology_new(struct topology **ret)
{
	struct topology *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	*ret = t;
	return 0;
}

/* Make the per-CPU arrays cover CPU `cpu`. New slots: own core, no node. */
static int grow_slots(struct topology *t, unsigned cpu)
{
	unsigned need = cpu + 1;
	int *nc, *nn;

	if (need <= t->nslots)
		return 0;
	nc = realloc(t->core, need * sizeof(int));
	if (!nc)
		return -ENOMEM;
	t->core = nc;
	nn = realloc(t->node, need * sizeof(int));
	if (!nn)
		return -ENOMEM;
	t->node = nn;
	for (unsigned i = t->nslots; i < need; i++) {
		t->core[i] = (int)i;
		t->node[i] = -1;
	}
	t->nslots = need;
	return 0;
}

static int add_online(struct topology *t, const struct cpuset *cpus)
{
	int last = cpuset_last(cpus);
	int r;

	if (last >= 0) {
		r = grow_slots(t, (unsigned)last);
		if (r < 0)
			return r;
	}
	return cpuset_or(&t->online, cpus);
}

int topology_add_cpus(struct topology *t, const char *cpulist)
{
	_cleanup_cpuset_ struct cpuset s = CPUSET_INIT;
	int r;

	r = cpuset_parse_list(cpulist, &s);
	if (r < 0)
		return r;
	return add_online(t, &s);
}

static int insert_node(struct topology *t, int id, struct cpuset *cpus)
{
	struct topology_node *nv;
	unsigned pos = 0;
	int last = cpuset_last(cpus);
	int r;

	if (id < 0 || topology_find_node(t, id))
		return -EINVAL;
	if (last >= 0) {
		r = grow_slots(t, (unsigned)last);
		if (r < 0)
			return r;
	}
	nv = realloc(t->nodes, (t->nnodes + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	t->nodes = nv;
	while (pos < t->nnodes && t->nodes[pos].id < id)
		pos++;
	memmove(&nv[pos + 1], &nv[pos], (t->nnodes - pos) * sizeof(*nv));
	nv[pos] = (struct topology_node){.id = id, .cpus = *cpus};
	*cpus = (struct cpuset)CPUSET_INIT;
	t->nnodes++;
	/* Distances are indexed by node position: drop partial tables. */
	for (unsigned i = 0; i < t->nnodes; i++) {
		free(t->nodes[i].distance);
		t->nodes[i].distance = NULL;
	}
	CPUSET_FOREACH(cpu, &nv[pos].cpus)
	t->node[cpu] = id;
	return 0;
}

int topology_add_node(struct topology *t, int id, const char *cpulist)
{
	_cleanup_cpuset_ struct cpuset s = CPUSET_INIT;
	int r;

	r = cpuset_parse_list(cpulist, &s);
	if (r < 0)
		return r;
	r = add_online(t, &s);
	if (r < 0)
		return r;
	return insert_node(t, id, &s);
}

int topology_set_siblings(struct topology *t, const char *cpulist)
{
	_cleanup_cpuset_ struct cpuset s = CPUSET_INIT;
	int first, r;

	r = cpuset_parse_list(cpulist, &s);
	if (r < 0)
		return r;
	first = cpuset_next(&s, -1);
	if (first < 0)
		return -EINVAL;
	r = grow_slots(t, (unsigned)cpuset_last(&s));
	if (r < 0)
		return r;
	CPUSET_FOREACH(cpu, &s)
	t->core[cpu] = first;
	return 0;
}

static int node_index(const struct topology *t, int id)
{
	for (unsigned i = 0; i < t->nnodes; i++)
		if (t->nodes[i].id == id)
			return (int)i;
	return -1;
}

int topology_set_distance(struct topology *t, int from, int to, int distance)
{
	int a = node_index(t, from), b = node_index(t, to);
	struct topology_node *n;

	if (a < 0 || b < 0 || distance <= 0)
		return -EINVAL;
	n = &t->nodes[a];
	if (!n->distance) {
		n->distance = calloc(t->nnodes, sizeof(int));
		if (!n->distance)
			return -ENOMEM;
	}
	n->distance[b] = distance;
	return 0;
}

const struct topology_node *topology_find_node(const struct topology *t, int id)
{
	int i = node_index(t, id);

	return i < 0 ? NULL : &t->nodes[i];
}

int topology_node_of(const struct topology *t, unsigned cpu)
{
	return cpu < t->nslots ? t->node[cpu] : -1;
}

int topology_core_of(const struct topology *t, unsigned cpu)
{
	return cpu < t->nslots ? t->core[cpu] : (int)cpu;
}

int topology_distance(const struct topology *t, int from, int to)
{
	int a = node_index(t, from), b = node_index(t, to);

	if (a >= 0 && b >= 0 && t->nodes[a].distance && t->nodes[a].distance[b] > 0)
		return t->nodes[a].distance[b];
	if (from == to)
		return 10;
	return 20 + (from > to ? from - to : to - from);
}

bool topology_has_distance(const struct topology *t)
{
	for (unsigned i = 0; i < t->nnodes; i++)
		if (!t->nodes[i].distance)
			return false;
	return t->nnodes > 0;
}

static int read_cpuset(const char *path, struct cpuset *ret)
{
	_cleanup_free_ char *s = NULL;
	int r;

	r = sysroot_read_line(path, &s);
	if (r < 0)
		return r;
	return cpuset_parse_list(s, ret);
}

/* node<N>/distance: one value per online node, in ascending node order. */
static int read_distances(struct topology *t)
{
	for (unsigned i = 0; i < t->nnodes; i++) {
		_cleanup_free_ char *s = NULL;
		_cleanup_free_ int *d = NULL;
		char *p, *tok, *save = NULL;
		unsigned n = 0;

		if (sysroot_read_linef(&s, "/sys/devices/system/node/node%d/distance", t->nodes[i].id) < 0)
			return 0; /* no SLIT: numeric proximity */
		d = calloc(t->nnodes, sizeof(int));
		if (!d)
			return -ENOMEM;
		for (p = s; (tok = strtok_r(p, " \t", &save)) != NULL; p = NULL) {
			int v;
			if (n >= t->nnodes || safe_atoi(tok, &v) < 0 || v <= 0)
				return 0; /* malformed: ignore the whole table */
			d[n++] = v;
		}
		if (n != t->nnodes)
			return 0;
		free(t->nodes[i].distance);
		t->nodes[i].distance = TAKE_PTR(d);
	}
	return 0;
}

static void drop_distances(struct topology *t)
{
	if (topology_has_distance(t))
		return;
	for (unsigned i = 0; i < t->nnodes; i++) {
		free(t->nodes[i].distance);
		t->nodes[i].distance = NULL;
	}
}

static bool node_dir_name(const char *name, int *ret)
{
	int id;

	if (strncmp(name, "node", 4) != 0 || safe_atoi(name + 4, &id) < 0 || id < 0 || name[4] == '+' ||
	    name[4] == '-')
		return false;
	*ret = id;
	return true;
}

int topology_read(struct topology **ret)
{
	_cleanup_topology_ struct topology *t = NULL;
	_cleanup_strv_free_ char **dirs = NULL;
	_cleanup_cpuset_ struct cpuset online = CPUSET_INIT;
	int r;

	r = topology_new(&t);
	if (r < 0)
		return r;
	r = read_cpuset("/sys/devices/system/cpu/online", &online);
	if (r < 0)
		return r;
	r = add_online(t, &online);
	if (r < 0)
		return r;

	if (sysroot_listdir("/sys/devices/system/node", &dirs) >= 0) {
		for (char **d = dirs; *d; d++) {
			_cleanup_cpuset_ struct cpuset cpus = CPUSET_INIT;
			_cleanup_free_ char *path = NULL;
			int id;

			if (!node_dir_name(*d, &id))
				continue;
			path = strprintf("/sys/devices/system/node/%s/cpulist", *d);
			if (!path)
				return -ENOMEM;
			r = read_cpuset(path, &cpus);
			if (r == -ENOENT)
				continue;
			if (r < 0)
				return r;
			r = insert_node(t, id, &cpus);
			if (r < 0)
				return r;
		}
		r = read_distances(t);
		if (r < 0)
			return r;
		drop_distances(t);
	}

	CPUSET_FOREACH(cpu, &t->online)
	{
		_cleanup_free_ char *s = NULL;
		_cleanup_cpuset_ struct cpuset sib = CPUSET_INIT;
		int first;

		/* Siblings name each other: a CPU already named by a smaller
		 * sibling's list needs no file of its own (one read per core,
		 * 128 fewer on a 256-CPU host with two threads per core). */
		if (t->core[cpu] != cpu)
			continue;
		r = sysroot_read_linef(&s, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
				       cpu);
		if (r == -ENOENT)
			r = sysroot_read_linef(&s, "/sys/devices/system/cpu/cpu%d/topology/core_cpus_list",
					       cpu);
		if (r == -ENOENT)
			continue;
		if (r < 0)
			return r;
		r = cpuset_parse_list(s, &sib);
		if (r < 0)
			return r;
		/* Offline siblings do not count: the core is its smallest online CPU. */
		cpuset_and(&sib, &t->online);
		first = cpuset_next(&sib, -1);
		if (first < 0)
			continue;
		t->core[cpu] = first;
		CPUSET_FOREACH(c, &sib)
		if (c > cpu)
			t->core[c] = first;
	}
	*ret = TAKE_PTR(t);
	return 0;
}
