/* plan.h: the plan: what must change on the host to reach a profile, in
 * which order, and whether it may change at all.
 *
 * Owns: the plan container, the diff of a profile against a probed host
 * (plan_build: a loop over the change kinds of engine/kinds/kinds.h, each
 * of which diffs itself and documents its objects and keys), which ports a
 * profile matches, the conflicts between kinds (channels with irq.policy),
 * the preconditions (requires: driver, firmware, link) and the plan's
 * rendering for people and for --json (schemas/plan.schema.json). A change
 * is described by strings only (kind, object, key, old, new), so the undo
 * log in the history is enough to restore it after a crash. Must never:
 * change the host while planning; drop a managed key silently (unsupported
 * is a problem, not a skip). */
#ifndef CX5_PLAN_H
#define CX5_PLAN_H

#include <json-c/json.h>

#include "base/util.h"
#include "kinds/kinds.h"

struct profile;
struct host_state;

struct plan_change {
	const struct change_kind *kind;
	char *object;
	char *key;
	char *old_value;
	char *new_value;
	char *note; /* side effect or ordering reason, or NULL */
};

/* A reason the plan cannot be applied: object, what is wrong, what to do. */
struct plan_problem {
	int exit_code; /* EXIT_PRECONDITION, EXIT_UNSUPPORTED, EXIT_NOT_FOUND, ... */
	char *object;
	char *message;
	char *remedy;
};

struct plan {
	struct plan_change *changes; /* in apply order */
	size_t n_changes;
	struct plan_problem *problems;
	size_t n_problems;
	char **warnings;   /* strv: things the operator should know */
	char **interfaces; /* strv: the ports the profile manages */
	char *boot_unit;   /* the unit that re-applies the profile at boot, NULL: runtime only */
};

/* Diff profile p against the probed host. Problems (preconditions,
 * unsupported keys, missing interfaces) are collected, all of them, in
 * plan->problems; the return value is -errno only when planning itself
 * failed (memory, unreadable topology). */
int plan_build(const struct profile *p, const struct host_state *host, struct plan **ret);
void plan_free(struct plan *p);

/* Make the applied profile persist: plan enabling the boot-time unit of
 * profile file `path` (bootunit.h) as the last change, and set
 * p->boot_unit. When it cannot persist (the file is not the one the unit
 * reads, the unit is not installed or masked, no service manager answers)
 * a warning says why and the plan stays runtime only. Nothing is planned
 * on a plan with problems, or with a sysroot and no service manager
 * (service.h). -errno only for memory. */
int plan_boot_unit(struct plan *p, const char *path);
static inline void plan_freep(struct plan **p)
{
	if (*p)
		plan_free(*p);
}
#define _cleanup_plan_ _cleanup_(plan_freep)

/* The exit code for the problems: 0 when there are none, else the most
 * specific one (not found, then unsupported, then precondition). */
int plan_problems_exit_code(const struct plan *p);

/* Add a change (used by plan_build and by tests). Takes copies. */
int plan_add_change(struct plan *p, const char *kind, const char *object, const char *key,
		    const char *old_value, const char *new_value);
/* Add a problem: exit code, object, what to do, then what is wrong
 * (printf format). 0 or -ENOMEM. */
int plan_add_problem(struct plan *p, int exit_code, const char *object, const char *remedy, const char *fmt,
		     ...) _printf_(5, 6);
/* Stable sort of the changes by kind rank, then set the notes. */
void plan_order(struct plan *p);

/* A change's value as people should read it (caller frees): the value
 * itself, or for a value that is an undo record (irqbalance-ban: the whole
 * config file) a short summary computed against its counterpart (the
 * other side of the change). NULL only when out of memory. */
char *change_value_human(const char *kind, const char *value, const char *counterpart);

/* Print the plan through output.h: one line per change ("ens1f0  mtu
 * 1500 -> 9000"), problems and warnings on stderr; JSON keys "changed",
 * "diff" {"before","after"}, "changes", "problems", "warnings", "msg". */
void plan_render(const struct plan *p, const char *msg);

#endif
