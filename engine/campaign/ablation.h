/* ablation.h: a campaign's groups derived from one profile, to attribute
 * its gain to its change families.
 *
 * Owns: the change families, each the keys of one or more change kinds
 * (engine/kinds/: a kind owns its profile keys): link MTU; IRQ map,
 * irqbalance and XPS (which follows the map); sysctls; channels/rings; offloads; coalescing/pause; and
 * every other kind on its own; which families a profile manages; the
 * groups of an ablation (the host as found, each family alone, the full
 * profile, the full profile minus each family, the same set of families
 * named once); and a profile restricted to some families. Must never:
 * touch the host, or leave a kind's key in the "baseline". */
#ifndef CX5_ABLATION_H
#define CX5_ABLATION_H

#include "profile.h"

/* At most this many families in one profile: 2 * F + 2 groups fit a
 * campaign. */
#define ABLATION_MAX_FAMILIES 7

struct change_kind;

struct ablation_family {
	int def;			/* row of the family table, or -1: the kind's own family */
	const struct change_kind *kind; /* def -1: the one kind */
	char *label;			/* "MTU 9000", "sysctls" */
};

struct ablation_group {
	char *name;	   /* "baseline", "mtu-only", "full", "full-no-irq" */
	char *description; /* "the host as found: none of udp-tuned's changes" */
	int role;	   /* enum verdict_role */
	unsigned families; /* bit f: family f of the ablation applied */
};

struct ablation {
	struct ablation_family families[ABLATION_MAX_FAMILIES];
	size_t n_families;
	struct ablation_group *groups;
	size_t n_groups;
};

/* The families p manages and the groups to run. -EINVAL with *ret_why
 * (caller frees) when p manages nothing or more than
 * ABLATION_MAX_FAMILIES families; -ENOMEM. */
int ablation_derive(const struct profile *p, struct ablation *ret, char **ret_why);
void ablation_done(struct ablation *a);

/* The family's name ("mtu"), for JSON. */
const char *ablation_family_name(const struct ablation *a, size_t f);

/* Restrict p (the ablated profile, with the campaign's overlays) to
 * group g: unset every key of the families g leaves out, and name it and
 * describe it as g. 0 or -ENOMEM. */
int ablation_restrict(const struct ablation *a, size_t g, struct profile *p);

/* The number of families in the table and the change kinds of family
 * row `def` (NULL-terminated), for the test that every name is a kind. */
size_t ablation_family_defs(void);
const char *const *ablation_family_kinds(size_t def);

#endif
