/* campaignfile.c: campaign format v1 -> struct campaign (see campaignfile.h).
 *
 * Owns: the campaign's own keys (version, name, groups, verify, peer,
 * repeat, sweep) and their messages; the profile keys inside `verify:` and
 * `peer:` and the sweep are checked by the profile loader itself (profile_overlay), so a
 * value is accepted or refused the same way in both files. Must never:
 * touch the host or read files other than the campaign and its groups. */
#define _GNU_SOURCE
#include "campaignfile.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdarg.h>

#include "base/yamltree.h"
#include "sequential.h"
#include "verdict.h"

static int fail_at(struct profile_error *err, const char *file, const struct ynode *n, const char *fmt, ...)
    _printf_(4, 5);
static int fail_at(struct profile_error *err, const char *file, const struct ynode *n, const char *fmt, ...)
{
	va_list ap;

	snprintf(err->file, sizeof(err->file), "%s", file);
	err->line = n ? n->line : 0;
	err->column = n ? n->column : 0;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static const char *const campaign_keys[] = {"version", "name",	     "groups",	   "ablate", "verify",
					    "peer",    "repeat",     "max_rounds", "warmup", "budget",
					    "sweep",   "min_effect", "order",	   "seed",   NULL};
/* The top-level keys only a profile has: a profile passed as a campaign. */
static const char *const profile_only_keys[] = {"description", "extends", "match",  "requires", "link",
						"irq",	       "sysctl",  "mirror", NULL};

static const struct ynode *get(const struct ynode *map, const char *key)
{
	for (size_t i = 0; i + 1 < map->n_items; i += 2)
		if (streq(map->items[i]->value, key))
			return map->items[i + 1];
	return NULL;
}

/* Keys are strings, known, and not repeated. */
static int check_keys(const struct campaign *c, const struct ynode *root, struct profile_error *err)
{
	char buf[64];

	for (size_t i = 0; i + 1 < root->n_items; i += 2) {
		const struct ynode *key = root->items[i];
		if (key->kind != YNODE_SCALAR)
			return fail_at(err, c->file, key, "mapping keys must be strings, got %s",
				       ynode_describe(key, buf, sizeof(buf)));
		for (size_t j = 0; j < i; j += 2)
			if (streq(root->items[j]->value, key->value))
				return fail_at(err, c->file, key, "duplicate key %s (first at %u:%u)",
					       ynode_quote(key, buf, sizeof(buf)), root->items[j]->line,
					       root->items[j]->column);
		if (strv_contains((char **)profile_only_keys, key->value))
			return fail_at(err, c->file, key,
				       "unknown key %s: a profile's key, not a campaign's: list the profile "
				       "under groups:, or check it with `cx5prof validate FILE`",
				       ynode_quote(key, buf, sizeof(buf)));
		if (!strv_contains((char **)campaign_keys, key->value))
			return fail_at(
			    err, c->file, key,
			    "unknown key %s (a campaign has version, name, groups or ablate, verify, "
			    "peer, repeat, max_rounds, warmup, budget, sweep, min_effect, order, seed)",
			    ynode_quote(key, buf, sizeof(buf)));
	}
	return 0;
}

static bool is_string(const struct ynode *v)
{
	return v->kind == YNODE_SCALAR && ynode_scalar_type(v) == YSCALAR_STRING;
}

/* A decimal integer without sign or leading zeros, in lo..hi. */
static int get_uint(const struct campaign *c, const struct ynode *v, const char *key, unsigned lo,
		    unsigned hi, unsigned *ret, struct profile_error *err)
{
	char buf[64];
	uint32_t x;

	if (v->kind != YNODE_SCALAR || ynode_scalar_type(v) != YSCALAR_INT || !v->plain ||
	    !isdigit((unsigned char)v->value[0]))
		return fail_at(err, c->file, v, "%s: expected an integer, got %s", key,
			       ynode_describe(v, buf, sizeof(buf)));
	if (safe_atou32(v->value, &x) < 0 || x < lo || x > hi)
		return fail_at(err, c->file, v, "%s: %s is out of range %u..%u", key, v->value, lo, hi);
	*ret = x;
	return 0;
}

static int check_name(const struct campaign *c, const struct ynode *v, struct profile_error *err)
{
	char buf[64];
	bool ok = is_string(v) && v->len >= 1 && v->len <= 64 &&
		  (islower((unsigned char)v->value[0]) || isdigit((unsigned char)v->value[0]));

	for (const char *s = v->value; ok && *s; s++)
		ok = islower((unsigned char)*s) || isdigit((unsigned char)*s) || strchr("._-", *s);
	if (!ok)
		return fail_at(
		    err, c->file, v,
		    "name: %s is not a valid name (a-z, 0-9, '.', '_', '-', starting with a letter or "
		    "digit, up to 64)",
		    ynode_describe(v, buf, sizeof(buf)));
	return 0;
}

/* "dir/campaign.yaml" + "group.yaml" -> "dir/group.yaml". */
static char *resolve(const char *file, const char *path)
{
	const char *slash = strrchr(file, '/');

	if (path[0] == '/' || !slash)
		return strdup(path);
	return strprintf("%.*s/%s", (int)(slash - file), file, path);
}

static int load_groups(struct campaign *c, const struct ynode *v, struct profile_error *err)
{
	char buf[64];

	if (v->kind != YNODE_SEQUENCE)
		return fail_at(err, c->file, v, "groups: expected a list of profiles, got %s",
			       ynode_describe(v, buf, sizeof(buf)));
	if (v->n_items == 0)
		return fail_at(err, c->file, v, "groups: the list is empty");
	if (v->n_items > CAMPAIGN_MAX_GROUPS)
		return fail_at(err, c->file, v->items[CAMPAIGN_MAX_GROUPS], "groups: more than %d groups",
			       CAMPAIGN_MAX_GROUPS);
	c->groups = calloc(v->n_items, sizeof(*c->groups));
	if (!c->groups)
		return -ENOMEM;
	for (size_t i = 0; i < v->n_items; i++) {
		const struct ynode *e = v->items[i];
		struct campaign_group *g = &c->groups[c->n_groups];

		if (!is_string(e) || e->len == 0)
			return fail_at(err, c->file, e, "groups[%zu]: expected a profile path, got %s", i,
				       ynode_describe(e, buf, sizeof(buf)));
		for (size_t j = 0; j < i; j++)
			if (streq(v->items[j]->value, e->value))
				return fail_at(err, c->file, e, "groups[%zu]: %s is listed twice", i,
					       ynode_quote(e, buf, sizeof(buf)));
		g->path = resolve(c->file, e->value);
		if (!g->path)
			return -ENOMEM;
		g->written = e->value;
		g->at = (struct profile_mark){c->file, e->line, e->column};
		c->n_groups++;
		if (access(g->path, F_OK) < 0) {
			int r = errno == ENOENT ? -ENOENT : -EINVAL;
			fail_at(err, c->file, e, "groups[%zu]: cannot read \"%s\": %s", i, g->path,
				strerror(errno));
			return r;
		}
	}
	return 0;
}

static int load_overlaid(const struct campaign *c, const char *path, size_t s, struct profile **ret,
			 struct profile_error *err);

static void groups_free(struct campaign *c)
{
	for (size_t i = 0; i < c->n_groups; i++) {
		free(c->groups[i].path);
		free(c->groups[i].name);
		free(c->groups[i].description);
	}
	free(c->groups);
	c->groups = NULL;
	c->n_groups = 0;
}

/* The groups of the ablation of `path` (as resolved), written at node (NULL:
 * the command line's --ablate). */
static int load_ablation(struct campaign *c, const char *path, const struct ynode *node,
			 struct profile_error *err)
{
	_cleanup_profile_ struct profile *p = NULL;
	_cleanup_free_ char *why = NULL;
	int r;

	groups_free(c);
	ablation_done(&c->ablation);
	free(c->ablate);
	c->ablate = strdup(path);
	if (!c->ablate)
		return -ENOMEM;
	if (access(path, F_OK) < 0) {
		r = errno == ENOENT ? -ENOENT : -EINVAL;
		fail_at(err, node ? c->file : path, node, "ablate: cannot read \"%s\": %s", path,
			strerror(errno));
		return r;
	}
	r = load_overlaid(c, path, 0, &p, err);
	if (r < 0)
		return r;
	r = ablation_derive(p, &c->ablation, &why);
	if (r == -EINVAL)
		return fail_at(err, node ? c->file : path, node, "ablate: %s: %s", path, strna(why));
	if (r < 0)
		return r;
	c->groups = calloc(c->ablation.n_groups, sizeof(*c->groups));
	if (!c->groups)
		return -ENOMEM;
	for (size_t g = 0; g < c->ablation.n_groups; g++) {
		c->groups[g] = (struct campaign_group){
		    .path = strdup(path),
		    .written = node ? node->value : path,
		    .at = {c->file, node ? node->line : 0, node ? node->column : 0},
		    .role = c->ablation.groups[g].role,
		    .families = c->ablation.groups[g].families,
		};
		c->n_groups++;
		if (!c->groups[g].path)
			return -ENOMEM;
	}
	return 0;
}

static int load_sweep(struct campaign *c, const struct ynode *v, struct profile_error *err)
{
	const struct ynode *values;
	char buf[64];

	if (v->kind != YNODE_MAPPING || v->n_items == 0)
		return fail_at(err, c->file, v,
			       "sweep: expected a mapping of one verify key to its values, got %s",
			       ynode_describe(v, buf, sizeof(buf)));
	if (v->n_items > 2)
		return fail_at(err, c->file, v->items[2],
			       "sweep: one key only (a campaign varies one parameter)");
	c->sweep_key_node = v->items[0];
	values = v->items[1];
	if (!is_string(c->sweep_key_node) || strncmp(c->sweep_key_node->value, "verify.", 7) != 0)
		return fail_at(err, c->file, c->sweep_key_node,
			       "sweep: %s is not a verify key (a sweep varies one verify.* parameter)",
			       ynode_describe(c->sweep_key_node, buf, sizeof(buf)));
	c->sweep_key = strdup(c->sweep_key_node->value);
	if (!c->sweep_key)
		return -ENOMEM;
	if (values->kind != YNODE_SEQUENCE)
		return fail_at(err, c->file, values, "sweep.%s: expected a list of values, got %s",
			       c->sweep_key, ynode_describe(values, buf, sizeof(buf)));
	if (values->n_items == 0)
		return fail_at(err, c->file, values, "sweep.%s: the list is empty", c->sweep_key);
	if (values->n_items > CAMPAIGN_MAX_SWEEP)
		return fail_at(err, c->file, values->items[CAMPAIGN_MAX_SWEEP],
			       "sweep.%s: more than %d values", c->sweep_key, CAMPAIGN_MAX_SWEEP);
	c->sweep_values = calloc(values->n_items, sizeof(*c->sweep_values));
	if (!c->sweep_values)
		return -ENOMEM;
	for (size_t i = 0; i < values->n_items; i++) {
		const struct ynode *e = values->items[i];
		if (e->kind != YNODE_SCALAR)
			return fail_at(err, c->file, e, "sweep.%s[%zu]: expected a value, got %s",
				       c->sweep_key, i, ynode_describe(e, buf, sizeof(buf)));
		for (size_t j = 0; j < i; j++)
			if (streq(values->items[j]->value, e->value))
				return fail_at(err, c->file, e, "sweep.%s[%zu]: %s is listed twice",
					       c->sweep_key, i, ynode_quote(e, buf, sizeof(buf)));
		c->sweep_values[c->n_sweep++] = e;
	}
	return 0;
}

int campaign_parse_duration(const char *s, unsigned *ret)
{
	static const struct {
		char suffix;
		unsigned seconds;
	} units[] = {{'\0', 1}, {'s', 1}, {'m', 60}, {'h', 3600}};
	uint32_t v;
	size_t n = strspn(s, "0123456789");

	if (n == 0 || n > 9 || (s[n] && s[n + 1]))
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		_cleanup_free_ char *digits = strndup(s, n);
		if (s[n] != units[i].suffix)
			continue;
		if (!digits || safe_atou32(digits, &v) < 0 || v == 0 ||
		    (uint64_t)v * units[i].seconds > CAMPAIGN_MAX_BUDGET_S)
			return -EINVAL;
		*ret = v * units[i].seconds;
		return 0;
	}
	return -EINVAL;
}

/* repeat (N or auto), max_rounds, warmup, budget. */
static int load_rounds(struct campaign *c, const struct ynode *root, struct profile_error *err)
{
	const struct ynode *v = get(root, "repeat"), *max = get(root, "max_rounds");
	char buf[64];
	int r;

	c->repeat = 1;
	if (v && v->kind == YNODE_SCALAR && is_string(v) && streq(v->value, "auto")) {
		c->repeat_auto = true;
		c->repeat = CAMPAIGN_MAX_ROUNDS;
	} else if (v && (v->kind != YNODE_SCALAR || ynode_scalar_type(v) != YSCALAR_INT))
		return fail_at(err, c->file, v, "repeat: expected an integer or auto, got %s",
			       ynode_describe(v, buf, sizeof(buf)));
	else if (v) {
		r = get_uint(c, v, "repeat", 1, CAMPAIGN_MAX_REPEAT, &c->repeat, err);
		if (r < 0)
			return r;
	}
	if (max && !c->repeat_auto)
		return fail_at(
		    err, c->file, max,
		    "max_rounds: only with \"repeat: auto\" (a fixed repeat runs exactly that many)");
	if (max) {
		r = get_uint(c, max, "max_rounds", 2, CAMPAIGN_MAX_REPEAT, &c->repeat, err);
		if (r < 0)
			return r;
	}
	v = get(root, "warmup");
	if (v) {
		r = get_uint(c, v, "warmup", 0, CAMPAIGN_MAX_WARMUP, &c->warmup, err);
		if (r < 0)
			return r;
	}
	v = get(root, "budget");
	if (v && (v->kind != YNODE_SCALAR || campaign_parse_duration(v->value, &c->budget_s) < 0))
		return fail_at(
		    err, c->file, v,
		    "budget: expected a duration such as 900, 90s, 15m or 2h (at most 7 days), got %s",
		    ynode_describe(v, buf, sizeof(buf)));
	return 0;
}

int campaign_parse_margin(const char *s, bool points, double *ret)
{
	const char *unit = points ? "pp" : "%";
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v >= 0) || v >= (points ? 100 : 1000))
		return -EINVAL;
	while (*end == ' ')
		end++;
	if (*end && strcmp(end, unit) != 0)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* min_effect: {throughput: 3%, loss: 1pp} (either may be left out),
 * order, seed. */
static int load_design(struct campaign *c, const struct ynode *root, struct profile_error *err)
{
	static const struct {
		const char *key;
		bool points;
		size_t offset;
	} margins[] = {{"throughput", false, offsetof(struct campaign, min_effect_recv)},
		       {"loss", true, offsetof(struct campaign, min_effect_loss)}};
	const struct ynode *v = get(root, "min_effect");
	char buf[64];
	int r;

	c->min_effect_recv = VERDICT_MIN_EFFECT_RECV;
	c->min_effect_loss = VERDICT_MIN_EFFECT_LOSS;
	if (v && v->kind != YNODE_MAPPING)
		return fail_at(err, c->file, v,
			       "min_effect: expected a mapping such as {throughput: 3%%, loss: 1pp}, got %s",
			       ynode_describe(v, buf, sizeof(buf)));
	for (size_t i = 0; v && i + 1 < v->n_items; i += 2) {
		const struct ynode *k = v->items[i], *val = v->items[i + 1];
		size_t m = 0;

		while (m < ARRAY_SIZE(margins) && !streq(k->value, margins[m].key))
			m++;
		if (m == ARRAY_SIZE(margins))
			return fail_at(err, c->file, k, "min_effect: unknown key %s (throughput or loss)",
				       ynode_quote(k, buf, sizeof(buf)));
		if (val->kind != YNODE_SCALAR ||
		    campaign_parse_margin(val->value, margins[m].points,
					  (double *)((char *)c + margins[m].offset)) < 0)
			return fail_at(err, c->file, val,
				       margins[m].points ? "min_effect.loss: expected percentage points "
							   "below 100 such as 1pp or 0.5, got %s"
							 : "min_effect.throughput: expected a percent below "
							   "1000 such as 3%% or 5, got %s",
				       ynode_describe(val, buf, sizeof(buf)));
	}
	v = get(root, "order");
	if (v && (v->kind != YNODE_SCALAR || (r = seq_order_from_string(v->value)) < 0))
		return fail_at(err, c->file, v, "order: expected alternate, shuffle or fixed, got %s",
			       ynode_describe(v, buf, sizeof(buf)));
	c->order = v ? r : SEQ_ORDER_ALTERNATE;
	v = get(root, "seed");
	if (v) {
		uint64_t seed;
		if (v->kind != YNODE_SCALAR || ynode_scalar_type(v) != YSCALAR_INT || !v->plain ||
		    safe_atou64(v->value, &seed) < 0)
			return fail_at(err, c->file, v, "seed: expected a whole number, got %s",
				       ynode_describe(v, buf, sizeof(buf)));
		if (c->order != SEQ_ORDER_SHUFFLE)
			return fail_at(err, c->file, v, "seed: only with \"order: shuffle\"");
		c->seed = seed;
		c->seed_set = true;
	}
	return 0;
}

static int load_tree(struct campaign *c, const struct ynode *root, struct profile_error *err)
{
	const struct ynode *v;
	unsigned version;
	char buf[64];
	int r;

	r = check_keys(c, root, err);
	if (r < 0)
		return r;
	v = get(root, "version");
	if (!v)
		return fail_at(err, c->file, root, "missing required key \"version\" (add \"version: %d\")",
			       CAMPAIGN_FORMAT_VERSION);
	r = get_uint(c, v, "version", 0, UINT32_MAX, &version, err);
	if (r < 0)
		return r;
	if (version != CAMPAIGN_FORMAT_VERSION)
		return fail_at(err, c->file, v,
			       "version: %s is not supported (this cx5prof reads campaign format version %d)",
			       v->value, CAMPAIGN_FORMAT_VERSION);
	v = get(root, "name");
	if (!v)
		return fail_at(err, c->file, root, "missing required key \"name\"");
	r = check_name(c, v, err);
	if (r < 0)
		return r;
	c->name = strdup(v->value);
	if (!c->name)
		return -ENOMEM;
	v = get(root, "groups");
	if (v && get(root, "ablate"))
		return fail_at(
		    err, c->file, get(root, "ablate"),
		    "ablate: a campaign has groups or ablate, not both (ablate derives the groups from "
		    "one profile)");
	if (!v && !get(root, "ablate"))
		return fail_at(err, c->file, root,
			       "missing required key \"groups\" (the profiles to compare; or \"ablate\": one "
			       "profile whose changes to attribute)");
	if (v) {
		r = load_groups(c, v, err);
		if (r < 0)
			return r;
	}
	r = load_rounds(c, root, err);
	if (r >= 0)
		r = load_design(c, root, err);
	if (r < 0)
		return r;
	c->verify = get(root, "verify");
	c->peer = get(root, "peer");
	v = get(root, "sweep");
	if (v) {
		r = load_sweep(c, v, err);
		if (r < 0)
			return r;
	}
	v = get(root, "ablate");
	if (v) {
		_cleanup_free_ char *path = NULL;
		if (!is_string(v) || v->len == 0)
			return fail_at(err, c->file, v, "ablate: expected a profile path, got %s",
				       ynode_describe(v, buf, sizeof(buf)));
		path = resolve(c->file, v->value);
		if (!path)
			return -ENOMEM;
		r = load_ablation(c, path, v, err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Every round's profile must load: each group with the verify block and
 * every sweep value. The groups' names and descriptions come from them. */
static int check_rounds(struct campaign *c, struct profile_error *err)
{
	for (size_t g = 0; g < c->n_groups; g++) {
		for (size_t s = 0; s < (c->n_sweep ? c->n_sweep : 1); s++) {
			_cleanup_profile_ struct profile *p = NULL;
			int r = campaign_group_profile(c, g, s, &p, err);
			if (r < 0)
				return r;
			if (s > 0)
				continue;
			free(c->groups[g].name);
			free(c->groups[g].description);
			c->groups[g].description = NULL;
			c->groups[g].name = strdup(p->name.value);
			if (!c->groups[g].name)
				return -ENOMEM;
			if (p->description.set && !(c->groups[g].description = strdup(p->description.value)))
				return -ENOMEM;
		}
	}
	return 0;
}

int campaign_load(const char *path, struct campaign **ret, struct profile_error *err)
{
	_cleanup_campaign_ struct campaign *c = NULL;
	struct profile_error dummy;
	int r;

	if (!err)
		err = &dummy;
	c = calloc(1, sizeof(*c));
	if (!c || !(c->file = strdup(path)))
		return -ENOMEM;
	r = profile_parse_file(path, "a campaign", &c->tree, err);
	if (r < 0)
		return r;
	r = load_tree(c, c->tree, err);
	if (r < 0)
		return r;
	r = check_rounds(c, err);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(c);
	return 0;
}

int campaign_set_ablate(struct campaign *c, const char *profile, struct profile_error *err)
{
	struct profile_error dummy;
	int r;

	if (!err)
		err = &dummy;
	r = load_ablation(c, profile, NULL, err);
	return r < 0 ? r : check_rounds(c, err);
}

int campaign_new_ablation(const char *profile, struct campaign **ret, struct profile_error *err)
{
	_cleanup_campaign_ struct campaign *c = NULL;
	_cleanup_profile_ struct profile *p = NULL;
	struct profile_error dummy;
	int r;

	if (!err)
		err = &dummy;
	c = calloc(1, sizeof(*c));
	if (!c || !(c->file = strdup(profile)))
		return -ENOMEM;
	r = profile_load(profile, &p, err);
	if (r < 0)
		return r;
	c->name = strprintf("ablate-%.57s", p->name.value);
	if (!c->name)
		return -ENOMEM;
	c->repeat_auto = true;
	c->repeat = CAMPAIGN_MAX_ROUNDS;
	c->min_effect_recv = VERDICT_MIN_EFFECT_RECV;
	c->min_effect_loss = VERDICT_MIN_EFFECT_LOSS;
	r = campaign_set_ablate(c, profile, err);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(c);
	return 0;
}

/* A profile file with the campaign's verify, peer, sweep value s and
 * --duration on top. */
static int load_overlaid(const struct campaign *c, const char *path, size_t s, struct profile **ret,
			 struct profile_error *err)
{
	_cleanup_profile_ struct profile *p = NULL;
	int r;

	r = profile_load(path, &p, err);
	if (r < 0)
		return r;
	if (c->verify) {
		r = profile_overlay(p, c->verify, "verify", c->file, true, err);
		if (r < 0)
			return r;
	}
	if (c->peer) {
		r = profile_overlay(p, c->peer, "peer", c->file, true, err);
		if (r < 0)
			return r;
		if (!p->peer.ssh.set)
			return fail_at(err, c->file, c->peer,
				       "peer: missing required key \"ssh\" (the peer to tune, [user@]host)");
	}
	if (c->n_sweep) {
		r = profile_overlay_key(p, c->sweep_key, c->sweep_key_node, c->sweep_values[s], c->file, err);
		if (r < 0)
			return r;
	}
	if (c->duration) {
		p->verify.duration.set = true;
		p->verify.duration.value = c->duration;
	}
	*ret = TAKE_PTR(p);
	return 0;
}

int campaign_group_profile(const struct campaign *c, size_t g, size_t s, struct profile **ret,
			   struct profile_error *err)
{
	_cleanup_profile_ struct profile *p = NULL;
	int r;

	r = load_overlaid(c, c->groups[g].path, s, &p, err);
	if (r >= 0 && c->ablate)
		r = ablation_restrict(&c->ablation, g, p);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(p);
	return 0;
}

const char *campaign_sweep_value(const struct campaign *c, size_t s)
{
	return c->n_sweep && s < c->n_sweep ? c->sweep_values[s]->value : NULL;
}

void campaign_free(struct campaign *c)
{
	if (!c)
		return;
	groups_free(c);
	ablation_done(&c->ablation);
	free(c->ablate);
	free(c->name);
	free(c->sweep_key);
	free(c->sweep_values);
	ynode_free(c->tree);
	free(c->file);
	free(c);
}
