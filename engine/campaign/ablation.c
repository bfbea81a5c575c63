/* ablation.c: change families and the groups of an ablation (see
 * ablation.h).
 *
 * Owns: the family table and the group names. Must never: touch the host. */
#define _GNU_SOURCE
#include "ablation.h"

#include "kinds/kinds.h"
#include "verdict.h"

/* A family is one change kind's keys (engine/kinds/: each kind owns its
 * profile keys), or several kinds that one change needs together, as
 * listed here with the label people read; a kind not listed (a new one)
 * is a family of its own, named and labelled after the kind. The listed
 * families come first, in this order, then the others in change_kinds[]
 * order. test_campaign.c checks that every name here is a kind. */
static const struct family_def {
	const char *name;
	const char *label;
	const char *const kinds[5]; /* NULL-terminated */
} family_defs[] = {
    {"mtu", "MTU", {"mtu"}},
    /* XPS follows the IRQ map (link.xps: auto): apart, each would be
     * measured against the other's stale half */
    {"irq", "IRQ map/irqbalance/XPS", {"irq", "irqbalance", "irqbalance-ban", "xps"}},
    {"sysctl", "sysctls", {"sysctl"}},
    {"queues", "channels/rings", {"channels", "rings"}},
    {"offloads", "offloads", {"features"}},
    {"coalescing", "coalescing/pause", {"coalesce", "pause"}},
};

/* The listed family of kind k, or -1. */
static int family_of(const struct change_kind *k)
{
	for (size_t d = 0; d < ARRAY_SIZE(family_defs); d++)
		for (size_t i = 0; i < ARRAY_SIZE(family_defs[d].kinds) && family_defs[d].kinds[i]; i++)
			if (streq(family_defs[d].kinds[i], k->name))
				return (int)d;
	return -1;
}

/* Is kind k one of family f's (a listed family, or the kind itself)? */
static bool in_family(const struct ablation_family *f, const struct change_kind *k)
{
	return f->def >= 0 ? family_of(k) == f->def : f->kind == k;
}

size_t ablation_family_defs(void)
{
	return ARRAY_SIZE(family_defs);
}

const char *const *ablation_family_kinds(size_t def)
{
	return def < ARRAY_SIZE(family_defs) ? family_defs[def].kinds : NULL;
}

const char *ablation_family_name(const struct ablation *a, size_t f)
{
	if (f >= a->n_families)
		return NULL;
	return a->families[f].def >= 0 ? family_defs[a->families[f].def].name : a->families[f].kind->name;
}

static bool family_set(const struct profile *p, const struct ablation_family *f)
{
	for (size_t i = 0; i < n_change_kinds; i++)
		if (in_family(f, change_kinds[i]) && change_kinds[i]->keys &&
		    profile_kind_is_set(p, change_kinds[i]))
			return true;
	return false;
}

static void family_unset(struct profile *p, const struct ablation_family *f)
{
	for (size_t i = 0; i < n_change_kinds; i++)
		if (in_family(f, change_kinds[i]) && change_kinds[i]->keys)
			profile_kind_unset(p, change_kinds[i]);
}

/* "MTU 9000", "txqueuelen 10000": a family of one kind whose one key is
 * a number says its value. */
static char *family_label(const struct profile *p, const struct ablation_family *f)
{
	const char *label = f->def >= 0 ? family_defs[f->def].label : f->kind->name;
	const struct change_kind *k = f->def >= 0 ? change_kind_find(family_defs[f->def].kinds[0]) : f->kind;
	const struct profile_uint *v = NULL;

	if (k && k->keys && k->keys[0].name && !k->keys[1].name &&
	    !(f->def >= 0 && family_defs[f->def].kinds[1])) {
		_cleanup_free_ char *path = k->profile_section
						? strprintf("%s.%s", k->profile_section, k->keys[0].name)
						: strdup(k->keys[0].name);
		v = path ? kinds_key_uint(p, path) : NULL;
	}
	return v ? strprintf("%s %" PRIu64, label, v->value) : strdup(label);
}

/* The set of families named once: a mask already in the list is not
 * added again (one family: its group alone is the full profile). */
static int group_add(struct ablation *a, unsigned mask, int role, const char *name, const char *description)
{
	struct ablation_group *n;

	for (size_t i = 0; i < a->n_groups; i++)
		if (a->groups[i].families == mask)
			return 0;
	n = realloc(a->groups, (a->n_groups + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	a->groups = n;
	n[a->n_groups] = (struct ablation_group){
	    .name = strdup(name), .description = strdup(description), .role = role, .families = mask};
	if (!n[a->n_groups].name || !n[a->n_groups].description) {
		free(n[a->n_groups].name);
		free(n[a->n_groups].description);
		return -ENOMEM;
	}
	a->n_groups++;
	return 0;
}

static int groups_build(struct ablation *a, const char *profile)
{
	unsigned all = (1u << a->n_families) - 1;
	_cleanup_free_ char *d = strprintf("the host as found: none of %s's changes", profile);
	int r;

	if (!d)
		return -ENOMEM;
	r = group_add(a, 0, ROLE_BASELINE, "baseline", d);
	for (size_t f = 0; f < a->n_families && r >= 0; f++) {
		_cleanup_free_ char *name = strprintf("%s-only", ablation_family_name(a, f));
		_cleanup_free_ char *desc = strprintf("%s only", a->families[f].label);
		r = name && desc ? group_add(a, 1u << f, ROLE_ALONE, name, desc) : -ENOMEM;
	}
	if (r >= 0) {
		_cleanup_free_ char *desc = strprintf("%s: every change", profile);
		r = desc ? group_add(a, all, ROLE_FULL, "full", desc) : -ENOMEM;
	}
	for (size_t f = 0; f < a->n_families && r >= 0; f++) {
		_cleanup_free_ char *name = strprintf("full-no-%s", ablation_family_name(a, f));
		_cleanup_free_ char *desc = strprintf("%s without %s", profile, a->families[f].label);
		r = name && desc ? group_add(a, all & ~(1u << f), ROLE_MINUS, name, desc) : -ENOMEM;
	}
	return r;
}

/* Add family f (a listed one: def >= 0; else the kind's own) when p sets
 * any of its keys. */
static int family_add(struct ablation *a, const struct profile *p, int def, const struct change_kind *kind,
		      char **ret_why)
{
	struct ablation_family f = {.def = def, .kind = kind};

	if (!family_set(p, &f))
		return 0;
	if (a->n_families == ABLATION_MAX_FAMILIES) {
		*ret_why = strprintf("it changes more than %d families of settings", ABLATION_MAX_FAMILIES);
		return -EINVAL;
	}
	f.label = family_label(p, &f);
	if (!f.label)
		return -ENOMEM;
	a->families[a->n_families++] = f;
	return 0;
}

int ablation_derive(const struct profile *p, struct ablation *ret, char **ret_why)
{
	struct ablation a = {0};
	int r = 0;

	*ret_why = NULL;
	for (size_t d = 0; d < ARRAY_SIZE(family_defs) && r >= 0; d++)
		r = family_add(&a, p, (int)d, NULL, ret_why);
	for (size_t i = 0; i < n_change_kinds && r >= 0; i++)
		if (change_kinds[i]->keys && family_of(change_kinds[i]) < 0)
			r = family_add(&a, p, -1, change_kinds[i], ret_why);
	if (r >= 0 && a.n_families == 0) {
		*ret_why =
		    strdup("it changes nothing (no link, irq or sysctl key): there is nothing to attribute");
		r = *ret_why ? -EINVAL : -ENOMEM;
	}
	if (r >= 0)
		r = groups_build(&a, p->name.value);
	if (r < 0) {
		ablation_done(&a);
		return r;
	}
	*ret = a;
	return 0;
}

void ablation_done(struct ablation *a)
{
	for (size_t f = 0; f < a->n_families; f++)
		free(a->families[f].label);
	for (size_t g = 0; g < a->n_groups; g++) {
		free(a->groups[g].name);
		free(a->groups[g].description);
	}
	free(a->groups);
	*a = (struct ablation){0};
}

static int replace(struct profile_string *s, const char *value)
{
	char *v = strdup(value);

	if (!v)
		return -ENOMEM;
	free(s->value);
	s->value = v;
	s->set = true;
	return 0;
}

int ablation_restrict(const struct ablation *a, size_t g, struct profile *p)
{
	const struct ablation_group *gr = &a->groups[g];
	int r;

	for (size_t f = 0; f < a->n_families; f++)
		if (!(gr->families & (1u << f)))
			family_unset(p, &a->families[f]);
	r = replace(&p->name, gr->name);
	return r < 0 ? r : replace(&p->description, gr->description);
}
