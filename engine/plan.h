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
#include "kinds/changes.h"
#include "kinds/kinds.h"

struct profile;
struct host_state;

/* Diff profile p against the probed host. Problems (preconditions,
 * unsupported keys, missing interfaces) are collected, all of them, in
 * plan->problems; the return value is -errno only when planning itself
 * failed (memory, unreadable topology). */
int plan_build(const struct profile *p, const struct host_state *host, struct plan **ret);

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
