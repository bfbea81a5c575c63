/* kinds.h: the change kinds, one module each (engine/kinds/NAME.c), and the
 * table of them (kinds.c).
 *
 * Owns: what a kind is: its name (stored in the undo log, never renamed),
 * its apply rank, how its current value is read, written, undone and
 * verified on the host, how it is diffed against a profile (diff), whether
 * a profile manages ports through it (manages), and how its values read to
 * people (human). A kind's values are strings only (object, key, old, new),
 * so the undo log alone restores them after a crash. Must never: change the
 * host from diff or manages; know another kind except through struct
 * plan_ctx (what planning shares) and the conflicts table in plan.c.
 *
 * Adding a kind: one file here defining `const struct change_kind
 * kind_NAME`, one row in kinds.c, and the profile keys it reads. plan.c is
 * not edited: plan_build calls every kind's diff. */
#ifndef CX5_KINDS_H
#define CX5_KINDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct plan;
struct profile;
struct host_state;
struct iface_state;

/* What planning shares with the kinds' diff. */
struct plan_ctx {
	struct plan *plan; /* add changes, problems and warnings here (plan.h) */
	const struct profile *profile;
	const struct host_state *host;
	/* The completion IRQs the irq kind pins, changed or already in
	 * place, sorted and unique: what irqbalance-ban keeps irqbalance off.
	 * Set by the irq kind's diff, which runs before irqbalance-ban's. */
	unsigned *pinned_irqs;
	size_t n_pinned_irqs;
};

enum kind_scope {
	KIND_SCOPE_NONE, /* not diffed by plan_build (boot: plan_boot_unit) */
	KIND_SCOPE_PORT, /* diff runs once per matched port, in port order */
	KIND_SCOPE_HOST, /* diff runs once, port NULL, after every port's */
};

struct change_kind {
	const char *name;
	int rank;		/* apply order: lower first; undo in reverse */
	bool resets_link;	/* writing it briefly takes the link down */
	bool persists;		/* survives a reboot (service state, files on disk) */
	const char *order_note; /* why this kind comes where it does, or NULL */
	enum kind_scope scope;
	/* Current value as the plan would write it. */
	int (*read)(const char *object, const char *key, char **ret_value);
	/* Write value, reading it back: 1 changed, 0 already so, -errno.
	 * *ret_kernel_msg: the kernel's extack text, when it sent one. */
	int (*write)(const char *object, const char *key, const char *value, char **ret_kernel_msg);
	/* Restore old_value (idempotent: 0 when it already is). */
	int (*undo)(const struct change_kind *k, const char *object, const char *key, const char *old_value,
		    char **ret_kernel_msg);
	/* 0 when the live value equals value, -EIO when it differs, -errno. */
	int (*verify)(const struct change_kind *k, const char *object, const char *key, const char *value);
	/* write (and so undo) already reads the value back and fails with
	 * -EIO when it differs: apply needs no verify after it. */
	bool write_reads_back;
	/* Diff the profile against the probed host: add the changes (and the
	 * problems: an unsupported key is one, never a skip) to ctx->plan.
	 * port: the port for KIND_SCOPE_PORT, NULL for KIND_SCOPE_HOST.
	 * -errno only when planning itself failed (memory). NULL: not planned
	 * by plan_build. */
	int (*diff)(struct plan_ctx *ctx, const struct iface_state *port);
	/* The profile sets a key of this kind that acts on the ports it
	 * matches (so matching none is a problem). NULL: never (host-wide
	 * kinds such as sysctl). */
	bool (*manages)(const struct profile *p);
	/* A stored value as people should read it (caller frees), computed
	 * against its counterpart (the other side of the change); NULL: out
	 * of memory. NULL op: values print as they are. */
	char *(*human)(const char *value, const char *counterpart);
};

/* The kinds, in planning order (a kind's diff may use what an earlier one
 * shared in plan_ctx); apply order is rank. n_change_kinds rows. */
extern const struct change_kind *const change_kinds[];
extern const size_t n_change_kinds;

/* The kind named `name` ("mtu", "channels", ...), NULL when unknown. */
const struct change_kind *change_kind_find(const char *name);

/* The profile manages ports through at least one kind. */
bool kinds_manage_ports(const struct profile *p);

/* Generic ops: undo by writing the old value; verify by reading back. */
int kind_undo_by_write(const struct change_kind *k, const char *object, const char *key,
		       const char *old_value, char **ret_kernel_msg);
int kind_verify_by_read(const struct change_kind *k, const char *object, const char *key, const char *value);

/* "%" PRIu64 into a new string: 0 or -ENOMEM. */
int kind_format_u64(uint64_t v, char **ret);

#endif
