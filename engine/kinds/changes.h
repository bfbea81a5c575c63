/* changes.h: what a plan is made of: its changes, problems and warnings,
 * which the kinds' diff adds (kinds.h) and plan.c's plan_build collects.
 *
 * Owns: the plan container (struct plan) and its adders, the apply order
 * of its changes (by kind rank) and the exit code of its problems. A
 * change is described by strings only (kind, object, key, old, new), so
 * the undo log in the history is enough to restore it after a crash.
 * Must never: know a kind's values; diff, probe or write (plan.h, apply.h). */
#ifndef CX5_CHANGES_H
#define CX5_CHANGES_H

#include <stddef.h>

#include "base/util.h"

struct change_kind;

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

void plan_free(struct plan *p);
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

#endif
