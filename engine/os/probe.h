/* probe.h: the observed state of the host, assembled in one place.
 *
 * Owns: joining the kernel's links (linkfacts.h: link.h, ethtool.h in the
 * current network namespace, or a snapshot's record) and the per-port
 * and host-wide facts its caller adds (the change kinds' live state) with
 * sysfs facts from the sysroot (nic.h) and the firewall. Read-only. Each fact
 * carries its own result code, so "unsupported" (-EOPNOTSUPP) is never
 * confused with "failed". Must never: change the host, log above debug. */
#ifndef CX5_PROBE_H
#define CX5_PROBE_H

#include "ethtool.h"
#include "firewall.h"
#include "irqaffinity.h"
#include "link.h"
#include "nic.h"

/* A per-port fact a caller adds to the probe (a change kind's live state,
 * kinds.h): read fills a zeroed buffer of size bytes (plain data without
 * padding, freed with free()) and may set *ret_kmsg to the kernel's
 * extack text when it fails. A snapshot records the buffer under name
 * (the kind's) with layout and size, and a reader takes it back only when
 * all three are its own (snapshot.h): layout is bumped whenever the
 * buffer's struct or the meaning of its slots changes. check: whether a
 * recorded buffer (a snapshot's, maybe hand-edited or corrupted) is one
 * read could have written, field by field (counts and lengths within the
 * buffer, strings NUL-terminated, bools 0 or 1): 0, else -EINVAL with
 * *ret_why naming the field and its value (caller frees); NULL: any
 * bytes are. A reader trusts a buffer only after its check. */
struct probe_fact {
	const char *name;
	unsigned layout;
	size_t size;
	int (*read)(const char *ifname, void *ret, char **ret_kmsg);
	int (*check)(const void *value, char **ret_why);
};

/* For the checks: -EINVAL with *ret_why = the formatted text (-ENOMEM
 * when it cannot be made). */
int probe_fact_bad(char **ret_why, const char *fmt, ...) _printf_(2, 3);
/* The byte of a recorded bool is 0 or 1 (any other is no bool). */
bool probe_fact_bool_ok(const bool *b);

/* A host-wide fact a caller adds to the probe (a host-wide kind's live
 * state: the sysctls, irqbalance): read once, after the ports, into a
 * zeroed buffer of size bytes; not read with PROBE_IFACES_ONLY (r is then
 * -ENODATA). A snapshot does not record the buffer but every file read
 * fills it from, so a reader of the snapshot reads it again. */
struct probe_host_fact {
	const char *name;
	size_t size;
	/* 0 or -errno; -ENOMEM fails the probe. */
	int (*read)(void *ret);
	/* Free what a read buffer holds (not the buffer); NULL: nothing. */
	void (*done)(void *value);
};

/* What the probe read of a host-wide fact. */
struct host_fact {
	const struct probe_host_fact *def;
	int r;
	void *value; /* def->size bytes, zero unless read */
};

/* The facts a caller adds to the probe: per port (entries may be NULL),
 * into iface_state.facts in the same order, and host-wide, into
 * host_state.facts. */
struct probe_facts {
	const struct probe_fact *const *port;
	size_t n_port;
	const struct probe_host_fact *const *host;
	size_t n_host;
};

/* What the probe read of one fact: r 0, -EOPNOTSUPP (unsupported), other
 * -errno (-ENODEV: the port is only in the sysroot); value is the fact's
 * buffer, valid when r == 0 (NULL for a NULL fact); kmsg the kernel's text
 * when the read failed and it sent one, else NULL. */
struct iface_fact {
	int r;
	void *value;
	char *kmsg;
};

struct iface_state {
	char *name;
	/* In the kernel (this namespace). false: only in the sysroot; then
	 * link, ethtool and their result codes are not meaningful. */
	bool present;
	struct link_info link;
	/* Result of each ethtool read: 0, -EOPNOTSUPP (unsupported), other -errno. */
	int drvinfo_r;
	struct eth_drvinfo drvinfo;
	int ethlink_r;
	struct eth_link ethlink;
	/* The facts its callers added (struct probe_fact), in their order. */
	struct iface_fact *facts;
	size_t n_facts;
	/* sysfs facts: has_nic is true when /sys/class/net/<name> exists under
	 * the sysroot; nic_r is the result of nic_read otherwise. */
	bool has_nic;
	int nic_r;
	struct nic_info nic;
	/* The device's IRQs (irqaffinity.h: msi_irqs + /proc/interrupts, affinity;
	 * effective affinity and counts only with PROBE_IRQ_DETAILS);
	 * irqs is NULL unless irqs_r == 0 (-ENODEV without sysfs facts). A
	 * virtual interface has an empty list. */
	int irqs_r;
	struct irq_list *irqs;
};

struct host_state {
	struct iface_state *ifaces; /* kernel links by ifindex, then sysroot-only by name */
	size_t n_ifaces;
	/* The callers' host-wide facts, in their order. */
	struct host_fact *facts;
	size_t n_facts;
	struct firewall_state firewall;
};

enum probe_flags {
	/* The IRQs' effective affinity and per-CPU counts (`show`): two more
	 * values per IRQ that planning does not use. */
	PROBE_IRQ_DETAILS = 1 << 0,
	/* The interfaces alone: the host-wide facts (-ENODATA) and the
	 * firewall, which cost programs run and a scan of every process, are
	 * not read and must not be used (serve's STATE, answered to any
	 * client). */
	PROBE_IFACES_ONLY = 1 << 1,
};

/* Probe the host. only: NULL for every interface (loopback skipped), or a
 * NULL-terminated list of names to keep (names found nowhere are simply
 * absent: check with host_state_iface). flags: enum probe_flags. facts:
 * what else to read (NULL: nothing). -errno only when the kernel's link
 * list itself cannot be read, or for memory. */
int probe_host(char *const *only, unsigned flags, const struct probe_facts *facts, struct host_state **ret);
void host_state_free(struct host_state *h);
static inline void host_state_freep(struct host_state **h)
{
	host_state_free(*h);
}
#define _cleanup_host_state_ _cleanup_(host_state_freep)

/* The interface named `name`, or NULL. */
const struct iface_state *host_state_iface(const struct host_state *h, const char *name);

#endif
