/* kinds.h: the change kinds, one module each (engine/kinds/NAME.c), and the
 * table of them (kinds.c): the contract a setting is written against.
 *
 * Owns: what a kind is, end to end: its name (stored in the undo log,
 * never renamed); its profile keys (a table of rows: name, type, range,
 * help, keys/keys.h; a value of its own shape it reads itself: KT_OWN,
 * struct key_codec) and the struct they fill; the checks that span its
 * keys; the per-port or host-wide fact it reads from the host (probe.h);
 * how its current value is read, written, undone and verified; how it is
 * diffed against a profile (diff) and which other kinds' changes block it
 * (conflicts); how its state shows in `show`; how its values read to
 * people (human). A
 * kind's values are strings only (object, key, old, new), so the undo log
 * alone restores them after a crash. Must never: change the host from
 * diff, manages, probe or show; know another kind except through struct
 * plan_ctx (what planning shares), a conflict row naming the other kind,
 * a key path read with kinds_key_value(), or an event of this table
 * (kinds_irqs_recreated).
 *
 * Adding a kind (a setting): one file here defining `const struct
 * change_kind kind_NAME` with its key rows, and one row in kinds.c; its OS
 * helper in engine/os/ if one is missing. profile.c, probe.c, plan.c,
 * verify.c and `show` iterate over this table and are not edited; `make
 * docs` regenerates the key tables of the man page and the JSON Schemas
 * (the profile's from the rows, show's from show_schema; docs/ARCHITECTURE.md,
 * "Adding a setting"). */
#ifndef CX5_KINDS_H
#define CX5_KINDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct plan;
struct profile;
struct profile_key;
struct profile_error;
struct host_state;
struct iface_state;
struct iface_fact;
struct host_fact;
struct probe_fact;
struct probe_facts;
struct probe_host_fact;

/* What a kind's diff publishes for the kinds planned after it (its plan
 * as a fact, such as the irq kind's "irq.pins": irqplan.h), by name: an
 * array of n elements, owned by the plan_ctx (freed after planning). */
struct plan_share {
	const char *name;
	void *data;
	size_t n;
};

#define PLAN_SHARES_MAX 4

/* What planning shares with the kinds' diff: nothing of one kind; a kind
 * that follows another's plan finds it with plan_ctx_lookup(). */
struct plan_ctx {
	struct plan *plan; /* add changes, problems and warnings here (plan.h) */
	const struct profile *profile;
	const struct host_state *host;
	struct plan_share shares[PLAN_SHARES_MAX];
	size_t n_shares;
};

/* Publish data (n elements, malloc'ed: ctx takes it, also on failure)
 * under name (a string that outlives planning). -EEXIST when published
 * already, -ENOSPC when full. */
int plan_ctx_publish(struct plan_ctx *ctx, const char *name, void *data, size_t n);
/* What was published under name, NULL (and *ret_n 0) when nothing: the
 * publishing kind is not in the profile, or planned nothing. */
const void *plan_ctx_lookup(const struct plan_ctx *ctx, const char *name, size_t *ret_n);
/* Free what was published (plan_build, after the last diff). */
void plan_ctx_done(struct plan_ctx *ctx);

enum kind_scope {
	KIND_SCOPE_NONE, /* not diffed by plan_build (boot: plan_boot_unit) */
	KIND_SCOPE_PORT, /* diff runs once per matched port, in port order */
	KIND_SCOPE_HOST, /* diff runs once, port NULL, after every port's */
};

/* A change of kind `changed` (by name) in the same run makes this kind's
 * plan wrong: this kind is not planned, and each object that `changed`
 * changes is a problem (exit 69) with message and remedy. */
struct kind_conflict {
	const char *changed;
	const char *message, *remedy;
};

struct change_kind {
	const char *name;
	int rank;		/* apply order: lower first; undo in reverse */
	bool resets_link;	/* writing it briefly takes the link down */
	bool persists;		/* survives a reboot (service state, files on disk) */
	const char *order_note; /* why this kind comes where it does, or NULL */
	enum kind_scope scope;

	/* ---- the profile ---- */
	/* The profile section its keys are under ("link", "irq"), or NULL:
	 * its one row is a top-level key of that name ("sysctl"). */
	const char *profile_section;
	/* Its key rows (NULL name ends), offsets into its wanted state, a
	 * struct of want_size bytes, zero when the profile sets none of them
	 * (kind_want). NULL: no keys. */
	const struct profile_key *keys;
	size_t want_size;
	/* The checks that span its keys: after each file of an extends chain
	 * (file: that file's name as the marks hold it; drop what that file's
	 * own keys supersede) and once on the effective profile (file NULL).
	 * -EINVAL with err filled (profile_fail_at, keys.h). NULL: none. */
	int (*profile_check)(void *want, const char *file, struct profile_error *err);

	/* ---- the host ---- */
	/* The per-port fact the probe reads for it (probe.h), found with
	 * kind_fact(); NULL: it reads what the probe has anyway. Its name is
	 * the kind's; bump its layout when the fact's struct (or the meaning
	 * of its slots) changes, so a snapshot taken before is refused rather
	 * than misread. */
	const struct probe_fact *probe;
	/* The host-wide fact the probe reads for it (probe.h: the sysctls,
	 * irqbalance), found with kind_host_fact(); NULL: none. A host-wide
	 * setting's live state comes from here, never from a slot of
	 * host_state. */
	const struct probe_host_fact *host_probe;
	/* Current value as the plan would write it. ret_kernel_msg may be
	 * NULL; else *ret_kernel_msg is NULL on entry and set to the kernel's
	 * extack text when the read failed and it sent one. */
	int (*read)(const char *object, const char *key, char **ret_value, char **ret_kernel_msg);
	/* Write value, reading it back: 1 changed, 0 already so, -errno.
	 * *ret_kernel_msg: the kernel's extack text, when it sent one. */
	int (*write)(const char *object, const char *key, const char *value, char **ret_kernel_msg);
	/* Restore old_value (idempotent: 0 when it already is). */
	int (*undo)(const struct change_kind *k, const char *object, const char *key, const char *old_value,
		    char **ret_kernel_msg);
	/* 0 when the live value equals value, -EIO when it differs, -errno;
	 * *ret_kernel_msg as for read. */
	int (*verify)(const struct change_kind *k, const char *object, const char *key, const char *value,
		      char **ret_kernel_msg);
	/* write (and so undo) already reads the value back and fails with
	 * -EIO when it differs: apply needs no verify after it. */
	bool write_reads_back;

	/* ---- planning ---- */
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
	/* Whether old_value, the value a change replaces, is one this kind
	 * can write back (what its undo will write): 0 yes; -EINVAL no, with
	 * *ret_why saying why (caller frees: "not a governor this CPU offers
	 * (performance powersave)"); -errno when it cannot tell. plan_build
	 * calls it once per change: a value that fails is a problem (exit 5)
	 * naming the object and the value, so nothing is changed that could
	 * not be undone. NULL: any value read is writable (the kind formats
	 * what it parsed: numbers, on/off, CPU lists). */
	int (*old_writable)(const char *object, const char *key, const char *old_value, char **ret_why);
	/* The kinds whose changes block this one (ends with a NULL changed). */
	const struct kind_conflict *conflicts;
	/* A stored value as people should read it (caller frees), computed
	 * against its counterpart (the other side of the change); NULL: out
	 * of memory. NULL op: values print as they are. */
	char *(*human)(const char *value, const char *counterpart);

	/* ---- show (output.h: one call for people and JSON) ---- */
	/* Inside a port's "link" object and line (mtu). */
	void (*show_link)(const struct iface_state *s);
	/* A port's own object and line, after the link (channels). */
	void (*show_port)(const struct iface_state *s);
	/* Host-wide, after the ports (sysctl). */
	void (*show_host)(const struct host_state *h);
	/* The JSON Schema of the keys its show writes into that object (link,
	 * port or host): a JSON object of key -> schema, each key required.
	 * `make docs` writes them into schemas/state.schema.json, filling in
	 * an object's "x-cx5prof-status": "WHY" (the status and error keys
	 * kind_show_status writes; WHY: when it is "unsupported"),
	 * "x-cx5prof-kmsg": true (kernel_message), "x-cx5prof-table":
	 * "sysctls" or "features" (a property per row of that table),
	 * "feature-names" (their enum) and "x-cx5prof-same-as": "KEY" (the
	 * schema of the sibling KEY). Required with a show op. */
	const char *show_schema;

	/* ---- events ---- */
	/* A write re-created the ports' IRQs (kinds_irqs_recreated): drop
	 * what is cached about them. */
	void (*irqs_recreated)(void);
};

/* The kinds, in planning order (a kind's diff may use what an earlier one
 * shared in plan_ctx), which is also the order of `show` and of the keys
 * within a profile section after the format's published ones (profile.c);
 * apply order is rank. n_change_kinds rows. */
extern const struct change_kind *const change_kinds[];
extern const size_t n_change_kinds;

/* The kind named `name` ("mtu", "channels", ...), NULL when unknown. */
const struct change_kind *change_kind_find(const char *name);
/* k's row in change_kinds[]. */
size_t change_kind_index(const struct change_kind *k);

/* Kind k's wanted state in profile p: its keys' fields, the struct of
 * want_size bytes its rows' offsets point into; never NULL for a loaded
 * profile. */
const void *kind_want(const struct profile *p, const struct change_kind *k);
/* A kind's key at a dotted path ("link.mtu", "irq.policy",
 * "link.channels.combined", "sysctl"): 0 with its row and field, -ENOENT
 * when no kind has it, -EISDIR for a section of a kind's rows
 * ("link.channels"; "link" itself is profile.c's section). Anyone may read
 * a kind's key with it (another kind, doctor, verify); profile_key_value
 * finds the kinds' keys through it, and the format's own too. */
int kinds_key_at(const struct profile *p, const char *path, const struct profile_key **ret_key,
		 const void **ret_field);
/* Its field (NULL: no such key), *ret_key its row when ret_key is set. */
const void *kinds_key_value(const struct profile *p, const char *path, const struct profile_key **ret_key);
/* The value of a set KT_UINT/KT_SIZE key at path, else NULL. */
const struct profile_uint *kinds_key_uint(const struct profile *p, const char *path);
/* The name of a set KT_ENUM key's value at path ("cpulist"), else NULL. */
const char *kinds_key_enum_name(const struct profile *p, const char *path);

/* The profile manages ports through at least one kind. */
bool kinds_manage_ports(const struct profile *p);

/* probe_host() with every kind's per-port and host-wide fact. */
int kinds_probe_host(char *const *only, unsigned flags, struct host_state **ret);
/* Every kind's per-port fact (NULL for those without), in the table's
 * order: ret has n_change_kinds entries; what kinds_probe_host asks for. */
void kinds_probe_facts(const struct probe_fact **ret);
/* What kinds_probe_host asks probe_host for, into *ret: every kind's
 * per-port fact (kinds_probe_facts, into port) and the host-wide kinds'
 * facts (host_probe, in the table's order, into host); port and host have
 * room for n_change_kinds each and must outlive *ret. */
void kinds_probe_request(struct probe_facts *ret, const struct probe_fact **port,
			 const struct probe_host_fact **host);
/* The host-wide fact the probe read for kind k (r, value): r -ENODATA
 * when it was not read (PROBE_IFACES_ONLY, a host built without it). */
const struct host_fact *kind_host_fact(const struct host_state *h, const struct change_kind *k);
/* probe.h's check of a recorded struct ethnl_values (channels, rings,
 * coalesce, pause): each "present" is a bool. */
int kind_check_ethnl_values(const void *value, char **ret_why);
/* The plan problem of a port fact that could not be read (fact->r < 0):
 * "PATH: UNSUPPORTED: <error>[ (kernel: ...)]<note on the sysroot's
 * ethtool/IFACE/WHAT>" with exit 69 and "remove PATH from the profile for
 * this port" for -EOPNOTSUPP, else "PATH: cannot be read: ..." (1). */
int kind_fact_problem(struct plan_ctx *ctx, const struct iface_state *s, const char *path,
		      const char *unsupported, const struct iface_fact *fact, const char *what);
/* The fact the probe read for kind k on port s (r, value, kmsg). */
const struct iface_fact *kind_fact(const struct iface_state *s, const struct change_kind *k);

/* Make the applied profile persist: plan enabling the boot-time unit of
 * profile file `path` (bootunit.h; the boot kind, boot.c) as the last change, and set
 * p->boot_unit. When it cannot persist (the file is not the one the unit
 * reads, the unit is not installed or masked, no service manager answers)
 * a warning says why and the plan stays runtime only. Nothing is planned
 * on a plan with problems, or with a sysroot and no service manager
 * (service.h). -errno only for memory. */
int plan_boot_unit(struct plan *p, const char *path);

/* Tell every kind that the ports' IRQs were re-created. */
void kinds_irqs_recreated(void);

/* Generic ops: undo by writing the old value; verify by reading back. */
int kind_undo_by_write(const struct change_kind *k, const char *object, const char *key,
		       const char *old_value, char **ret_kernel_msg);
int kind_verify_by_read(const struct change_kind *k, const char *object, const char *key, const char *value,
			char **ret_kernel_msg);

/* "%" PRIu64 into a new string: 0 or -ENOMEM. */
int kind_format_u64(uint64_t v, char **ret);

/* show: a fact's JSON "status" ("ok", "unsupported": the driver does not
 * implement it, "failed" with "error") and, when it failed, its reason on
 * the line. */
void kind_show_status(int r);

#endif
