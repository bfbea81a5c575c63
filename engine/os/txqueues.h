/* txqueues.h: a port's transmit queues and the CPUs that send on each (XPS,
 * /sys/class/net/IF/queues/tx-N/xps_cpus), and the masks mlx5 gives them
 * from its completion IRQs.
 *
 * Owns: counting a port's queues (queues/rx-N, queues/tx-N), reading and
 * writing one queue's mask in the kernel's format (hex, comma-separated
 * 32-bit groups as wide as the possible CPUs, as smp_affinity), through
 * the sysroot only, and the rule of mlx5e_set_default_xps_cpumasks: tx
 * queue q belongs to channel q % channels (channels = rx queues), whose
 * mask is the CPU of each completion vector it uses (c, c + channels,
 * ...). Must never: write a file other than a queue's xps_cpus, log
 * above debug. */
#ifndef CX5_TXQUEUES_H
#define CX5_TXQUEUES_H

#include "base/cpuset.h"

#define XPS_QUEUES_MAX 4096

struct xps_state {
	unsigned n_rx, n_tx;
	struct cpuset *tx; /* n_tx masks */
	int *tx_r;	   /* n_tx read results: 0, -ENOENT (no XPS in this kernel), -errno */
};

void xps_state_done(struct xps_state *s);

/* The port's queues and their masks. -ENOENT: no queues directory. */
int xps_read(const char *ifname, struct xps_state *ret);

/* One queue's mask. */
int xps_read_queue(const char *ifname, unsigned q, struct cpuset *ret);
/* Write it (as wide as the kernel prints it: the current text's width,
 * else the possible CPUs, else the online ones; with a newline, as `echo`),
 * read back: 1 changed, 0 already so, -EIO it reads back otherwise,
 * -ENOENT no such queue. */
int xps_write_queue(const char *ifname, unsigned q, const struct cpuset *cpus);

/* The masks of n_tx queues (ret: n_tx cpusets, initialised) when each
 * channel follows its completion vectors: vector_cpu[v] the CPU of vector
 * v (-1: unknown, left out). -EINVAL: no channels or no vectors. */
int xps_follow_irqs(unsigned n_tx, unsigned channels, const int *vector_cpu, unsigned n_vectors,
		    struct cpuset *ret);

#endif
