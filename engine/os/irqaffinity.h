/* irqaffinity.h: a network device's IRQs: discovery, affinity read and write.
 *
 * Owns: finding the IRQs of an interface (its PCI function's msi_irqs/ and
 * the handler names of /proc/interrupts: mlx5_comp<N>@pci:<BDF>,
 * mlx5_async0@pci:<BDF>, mlx5_async@pci:.., mlx5_pages_eq, mlx5_cmd_eq,
 * mlx5_async_eq, mlx5_combined0, mlx5_sf_*, OFED <ifname>-<n>), classifying
 * them (completion queue N, async, control), and /proc/irq/<n>/
 * smp_affinity_list reads and writes (effective_affinity: reads only),
 * through the sysroot only. Settings are keyed by queue index, never by
 * IRQ number (numbers change across reboots).
 * Must never: write anything but /proc/irq/<n>/smp_affinity_list. */
#ifndef CX5_IRQAFFINITY_H
#define CX5_IRQAFFINITY_H

#include "base/cpuset.h"
#include "interrupts.h"

enum irq_kind {
	IRQ_KIND_COMPLETION, /* a completion EQ: one per channel (queue) */
	IRQ_KIND_ASYNC,	     /* async events (mlx5_async0, mlx5_async_eq) */
	IRQ_KIND_CONTROL,    /* command/pages EQs, SF control, unknown names */
	_IRQ_KIND_MAX,
};
const char *irq_kind_to_string(enum irq_kind k); /* "completion", "async", "control" */

/* An IRQ whose affinity write failed with EIO: the kernel manages it
 * (managed IRQ, or a chip that cannot move it). Distinct from other errors. */
#define IRQ_AFFINITY_FIXED (-EIO)
/* The written affinity did not read back as written. */
#define IRQ_AFFINITY_MISMATCH (-EBADE)

struct irq_vector {
	unsigned irq; /* Linux IRQ number */
	char *name;   /* handler name; NULL when /proc/interrupts has none */
	enum irq_kind kind;
	int queue; /* completion queue index; -1 for async/control */
	bool has_affinity;
	struct cpuset affinity; /* smp_affinity_list, else smp_affinity */
	bool has_effective;
	struct cpuset effective; /* effective_affinity_list, else effective_affinity */
	uint64_t *counts;	 /* per CPU number, ncounts entries; 0 = no column */
	unsigned ncounts;
	uint64_t total;
};

struct irq_list {
	char *ifname;
	char *pci_bdf;	      /* NULL for a device without PCI function */
	struct irq_vector *v; /* completion by queue, then the others by IRQ number */
	size_t n;
};

/* Name classification: kind and queue (-1 unless completion). Returns false
 * when the name is not one of the known device IRQ names for this ifname /
 * BDF (either may be NULL = do not check). */
bool irq_classify(const char *name, const char *ifname, const char *pci_bdf, enum irq_kind *ret_kind,
		  int *ret_queue);
/* The same, for a name that names this device: "...@pci:<pci_bdf>", or
 * OFED's "<ifname>-<n>". A bare "mlx5_comp0" could be any device's and is
 * not; with pci_bdf NULL (a virtual port) only the OFED names are. */
bool irq_name_is_device(const char *name, const char *ifname, const char *pci_bdf, enum irq_kind *ret_kind,
			int *ret_queue);

/* What irq_discover reads besides each vector's number, name and kind:
 * two files per IRQ for the affinities, so only what the caller uses. */
enum irq_discover_flags {
	IRQ_DISCOVER_AFFINITY = 1 << 0, /* smp_affinity: has_affinity, affinity */
	IRQ_DISCOVER_DETAILS = 1 << 1,	/* effective affinity, per-CPU counts, total */
};

/* The IRQs of interface `ifname`. `table` may be NULL (read /proc/interrupts).
 * flags: enum irq_discover_flags. An interface without a device or IRQs
 * gives an empty list. -EINVAL bad name, -ENODEV no such interface. */
int irq_discover(const char *ifname, const struct interrupts *table, unsigned flags, struct irq_list **ret);
void irq_list_free(struct irq_list *l);
static inline void irq_list_freep(struct irq_list **l)
{
	irq_list_free(*l);
}
#define _cleanup_irq_list_ _cleanup_(irq_list_freep)

/* In-memory building (tests, planners): a vector from a handler name,
 * classified with irq_classify(); unknown names become control vectors. */
int irq_list_new(const char *ifname, const char *pci_bdf, struct irq_list **ret);
int irq_list_add(struct irq_list *l, unsigned irq, const char *name, const char *affinity_list);

/* The completion vectors' affinity as compact text, consecutive queues as
 * ranges: "mlx5_comp0-7 -> 8-15" (one CPU each, in order), "mlx5_comp0-7
 * -> 0" (the same CPUs), pieces joined by ", ". The label is the vectors'
 * handler name without its queue number and "@..." ("q" without a name).
 * *ret is "" when no completion vector has a known affinity. */
int irq_list_format_map(const struct irq_list *l, char **ret);

const struct irq_vector *irq_list_by_queue(const struct irq_list *l, unsigned queue);
const struct irq_vector *irq_list_by_irq(const struct irq_list *l, unsigned irq);
size_t irq_list_count(const struct irq_list *l, enum irq_kind kind);

/* Current affinity of IRQ n (smp_affinity_list, else smp_affinity). */
int irq_read_affinity(unsigned irq, struct cpuset *ret);
/* The one CPU vector v's interrupts land on: its affinity when that is
 * one CPU, else its effective affinity when the kernel shows one CPU
 * (effective_affinity, read now for a vector discovered without details).
 * -ENODATA: no affinity known; -EDOM: the affinity spans several CPUs and
 * no single effective CPU is known (no effective_affinity file). */
int irq_vector_cpu(const struct irq_vector *v);
/* Write smp_affinity_list and read it back. Returns 1 when changed, 0 when it
 * already was so (nothing written), IRQ_AFFINITY_FIXED when the kernel
 * refuses (EIO), IRQ_AFFINITY_MISMATCH when the read-back differs, -ENOENT
 * when the IRQ does not exist, other -errno. An empty set is -EINVAL. */
int irq_write_affinity(unsigned irq, const struct cpuset *cpus);

#endif
