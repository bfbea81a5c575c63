/* ablation.c: change families and the groups of an ablation (see
 * ablation.h).
 *
 * Owns: the family table and the group names. Must never: touch the host. */
#define _GNU_SOURCE
#include "ablation.h"

#include "verdict.h"

/* The families of changes a profile can make, in the order the groups are
 * run. Each names the profile keys (a section: every key under it) and
 * the change kinds that own them; test_campaign.c checks that every kind
 * of kinds.c but boot (which follows the others) is in exactly one. */
static const struct family_def {
	const char *name;
	const char *label;
	const char *const keys[3];
	const char *const kinds[4];
} family_defs[] = {
    {"mtu", "MTU", {"link.mtu"}, {"mtu"}},
    {"irq", "IRQ map + irqbalance", {"irq"}, {"irq", "irqbalance", "irqbalance-ban"}},
    {"sysctl", "sysctls", {"sysctl"}, {"sysctl"}},
    {"queues", "channels/rings", {"link.channels", "link.rings"}, {"channels", "rings"}},
    {"offloads", "offloads", {"link.features"}, {"features"}},
    {"coalescing", "coalescing/pause", {"link.coalesce", "link.pause"}, {"coalesce", "pause"}},
};

/* What a profile changes: these sections hold every managed key. */
static const char *const managed_sections[] = {"link", "irq", "sysctl"};

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
	return f < a->n_families ? family_defs[a->families[f].def].name : NULL;
}

static bool family_set(const struct profile *p, const struct family_def *d)
{
	for (size_t k = 0; k < ARRAY_SIZE(d->keys) && d->keys[k]; k++)
		if (profile_key_is_set(p, d->keys[k]) > 0)
			return true;
	return false;
}

static void family_unset(struct profile *p, const struct family_def *d)
{
	for (size_t k = 0; k < ARRAY_SIZE(d->keys) && d->keys[k]; k++)
		(void)profile_key_unset(p, d->keys[k]);
}

/* "MTU 9000": a family of one value key says its value. */
static char *family_label(const struct profile *p, const struct family_def *d)
{
	if (streq(d->name, "mtu"))
		return strprintf("%s %" PRIu64, d->label, p->link.mtu.value);
	return strdup(d->label);
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

/* A key p manages that no family owns ("link.txqueuelen"), or NULL:
 * the effective profile's JSON without every family's keys. */
static char *unowned_key(const struct profile *p)
{
	struct json_object *j = NULL, *sec;
	char *found = NULL;

	if (profile_to_json(p, &j) < 0)
		return NULL;
	for (size_t d = 0; d < ARRAY_SIZE(family_defs); d++)
		for (size_t k = 0; k < ARRAY_SIZE(family_defs[d].keys) && family_defs[d].keys[k]; k++) {
			const char *key = family_defs[d].keys[k], *dot = strchr(key, '.');
			_cleanup_free_ char *parent = dot ? strndup(key, (size_t)(dot - key)) : NULL;
			if (!dot)
				json_object_object_del(j, key);
			else if (parent && json_object_object_get_ex(j, parent, &sec) && sec)
				json_object_object_del(sec, dot + 1);
		}
	for (size_t i = 0; !found && i < ARRAY_SIZE(managed_sections); i++) {
		if (!json_object_object_get_ex(j, managed_sections[i], &sec) || !sec)
			continue;
		json_object_object_foreach(sec, key, value)
		{
			(void)value;
			found = strprintf("%s.%s", managed_sections[i], key);
			break;
		}
	}
	json_object_put(j);
	return found;
}

int ablation_derive(const struct profile *p, struct ablation *ret, char **ret_why)
{
	_cleanup_free_ char *unowned = unowned_key(p);
	struct ablation a = {0};
	int r = 0;

	*ret_why = NULL;
	/* Every managed key must belong to a family, or the baseline would
	 * keep it. */
	if (unowned) {
		*ret_why =
		    strprintf("its key %s belongs to no change family: it could not be attributed", unowned);
		return *ret_why ? -EINVAL : -ENOMEM;
	}
	for (size_t d = 0; d < ARRAY_SIZE(family_defs) && r >= 0; d++) {
		if (!family_set(p, &family_defs[d]))
			continue;
		if (a.n_families == ABLATION_MAX_FAMILIES) {
			*ret_why =
			    strprintf("it changes more than %d families of settings", ABLATION_MAX_FAMILIES);
			r = -EINVAL;
			break;
		}
		a.families[a.n_families].def = d;
		a.families[a.n_families].label = family_label(p, &family_defs[d]);
		if (!a.families[a.n_families++].label)
			r = -ENOMEM;
	}
	if (r >= 0 && a.n_families == 0) {
		*ret_why =
		    strdup("it changes nothing (no link, irq or sysctl key): there is nothing to attribute");
		r = -EINVAL;
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
			family_unset(p, &family_defs[a->families[f].def]);
	r = replace(&p->name, gr->name);
	return r < 0 ? r : replace(&p->description, gr->description);
}
