/* kinds/features.c: the "features" kind, link.features: object "ens1f0",
 * key "features.gro" (the profile's name of the feature, ethfeatures.h),
 * values "on" | "off". Read and written one feature at a time through
 * ethtool netlink (ioctl fallback); a feature the device keeps fixed is
 * unsupported, never skipped. */
#include "kinds.h"

#include <errno.h>
#include <json-c/json.h>
#include <string.h>

#include "base/exitcode.h"
#include "base/output.h"
#include "base/yamltree.h"
#include "keys/keyread.h"
#include "os/ethfeatures.h"
#include "os/probe.h"
#include "os/sysroot.h"
#include "changes.h"
#include "profile.h"

#define FEATURES_KEY_PREFIX "features."

struct features_want {
	struct profile_bool f[_ETH_FEATURE_MAX]; /* by enum eth_feature */
};

/* ---- the profile's link.features (KT_OWN) ---- */

/* link.features: NAME: on | off (true | false too), NAME a profile or
 * kernel name from ethfeatures.h's table. */
static int features_parse(struct profile_loader *l, const struct profile_key *k _unused_,
			  const struct ynode *map, void *field, const char *path)
{
	struct profile_bool *features = field;
	char buf[64];
	int r;

	if (map->kind != YNODE_MAPPING)
		return key_expect(l, map, path, "a mapping");
	for (size_t i = 0; i + 1 < map->n_items; i += 2) {
		const struct ynode *name = map->items[i], *v = map->items[i + 1];
		enum eth_feature f;
		bool on;

		r = key_check_name(l, map, i);
		if (r < 0)
			return r;
		if (eth_feature_from_string(name->value, &f) < 0)
			return key_fail(l, name, "%s: unknown feature %s (cx5prof manages %s)", path,
					ynode_quote(name, buf, sizeof(buf)), eth_feature_names());
		for (size_t j = 0; j < i; j += 2) {
			enum eth_feature g;
			if (eth_feature_from_string(map->items[j]->value, &g) == 0 && g == f)
				return key_fail(l, name, "%s: %s is the same feature as %s (first at %u:%u)",
						path, ynode_quote(name, buf, sizeof(buf)),
						map->items[j]->value, map->items[j]->line,
						map->items[j]->column);
		}
		if (key_is_null(v) && features[f].set) {
			features[f] = (struct profile_bool){0};
			continue;
		}
		r = key_on_off(l, v, path, eth_feature_def(f)->name, &on);
		if (r < 0)
			return r;
		features[f] = (struct profile_bool){.set = true, .value = on, .at = key_mark(l, v)};
	}
	return 0;
}

static bool features_is_set(const void *f)
{
	const struct profile_bool *features = f;

	for (size_t i = 0; i < _ETH_FEATURE_MAX; i++)
		if (features[i].set)
			return true;
	return false;
}

static void features_unset(void *f)
{
	memset(f, 0, _ETH_FEATURE_MAX * sizeof(struct profile_bool));
}

/* true/false: the loader reads a JSON "on" as a quoted string, which a
 * profile may not use, and the history's effective profile is loaded back
 * (verify's last applied profile). */
static struct json_object *features_json(const void *f)
{
	const struct profile_bool *features = f;
	struct json_object *o = json_object_new_object();

	for (unsigned i = 0; o && i < _ETH_FEATURE_MAX; i++)
		if (features[i].set)
			json_object_object_add(o, eth_feature_def((enum eth_feature)i)->name,
					       json_object_new_boolean(features[i].value));
	if (o && json_object_object_length(o) == 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static const struct key_codec features_codec = {
    .doc_type = "features",
    .parse = features_parse,
    .is_set = features_is_set,
    .unset = features_unset,
    .json = features_json,
};

static const struct profile_key features_keys[] = {
    {.name = "features",
     .type = KT_OWN,
     .codec = &features_codec,
     .offset = offsetof(struct features_want, f),
     .help =
	 "offload features to turn on or off (ethtool -K), by cx5prof's names; the kernel's names of the "
	 "same features are accepted in YAML and shown under these names; an unknown name is a profile "
	 "error listing these; a feature the device keeps fixed is unsupported (exit 69); on and off "
	 "(YAML 1.1 tools read them as true and false, which are accepted too); each feature is read "
	 "back after it is written: one the kernel keeps as it was (gso while sg is off) fails the change "
	 "and its request is withdrawn"},
    {0},
};

extern const struct change_kind kind_features;

static const struct profile_bool *want_of(const struct profile *p)
{
	return ((const struct features_want *)kind_want(p, &kind_features))->f;
}

static int features_probe(const char *ifname, void *ret, char **kmsg)
{
	return ethtool_get_features(ifname, ret, kmsg);
}

static int features_check(const void *value, char **ret_why)
{
	const struct eth_features *v = value;

	for (size_t i = 0; i < _ETH_FEATURE_MAX; i++)
		if (!probe_fact_bool_ok(&v->f[i].changeable) || !probe_fact_bool_ok(&v->f[i].active) ||
		    !probe_fact_bool_ok(&v->f[i].wanted))
			return probe_fact_bad(ret_why, "f[%zu] is not three bools", i);
	return 0;
}

static const struct probe_fact features_fact = {
    .name = "features",
    .layout = 1,
    .size = sizeof(struct eth_features),
    .read = features_probe,
    .check = features_check,
};

static const char *on_off(bool on)
{
	return on ? "on" : "off";
}

/* "features.gro" -> ETH_FEATURE_GRO. */
static int feature_from_key(const char *key, enum eth_feature *ret)
{
	if (strncmp(key, FEATURES_KEY_PREFIX, strlen(FEATURES_KEY_PREFIX)) != 0)
		return -EINVAL;
	return eth_feature_from_string(key + strlen(FEATURES_KEY_PREFIX), ret);
}

static int features_read(const char *object, const char *key, char **ret, char **kmsg)
{
	struct eth_features cur;
	enum eth_feature f;
	int r;

	r = feature_from_key(key, &f);
	if (r < 0)
		return r;
	r = ethtool_get_features(object, &cur, kmsg);
	if (r < 0)
		return r;
	*ret = strdup(on_off(cur.f[f].active));
	return *ret ? 0 : -ENOMEM;
}

static int features_write(const char *object, const char *key, const char *value, char **kmsg)
{
	enum eth_feature f;
	int r;

	r = feature_from_key(key, &f);
	if (r < 0)
		return r;
	if (!streq(value, "on") && !streq(value, "off"))
		return -EINVAL;
	return ethtool_set_feature(object, f, streq(value, "on"), kmsg);
}

static bool features_manages(const struct profile *p)
{
	for (unsigned i = 0; i < _ETH_FEATURE_MAX; i++)
		if (want_of(p)[i].set)
			return true;
	return false;
}

static int features_diff(struct plan_ctx *ctx, const struct iface_state *s)
{
	const struct iface_fact *fact = kind_fact(s, &kind_features);
	const struct eth_features *features = fact->value;
	const struct profile_bool *want = want_of(ctx->profile);
	int r;

	if (!features_manages(ctx->profile))
		return 0;
	if (fact->r < 0)
		return plan_add_problem(ctx->plan, fact->r == -EOPNOTSUPP ? EXIT_UNSUPPORTED : EXIT_ERROR,
					s->name, "remove link.features from the profile for this port",
					"link.features cannot be read: %s%s%s%s", sysroot_strerror(fact->r),
					fact->kmsg ? " (kernel: " : "", fact->kmsg ? fact->kmsg : "",
					fact->kmsg ? ")" : "");
	for (unsigned i = 0; i < _ETH_FEATURE_MAX; i++) {
		const struct eth_feature_state *cur = &features->f[i];
		const char *name = eth_feature_def((enum eth_feature)i)->name;
		_cleanup_free_ char *key = NULL;

		if (!want[i].set || cur->active == want[i].value)
			continue;
		if (!cur->changeable) {
			r = plan_add_problem(ctx->plan, EXIT_UNSUPPORTED, s->name,
					     "remove it from link.features for this port",
					     "link.features.%s: fixed %s on this device (ethtool -k shows it "
					     "[fixed]): it cannot be turned %s",
					     name, on_off(cur->active), on_off(want[i].value));
			if (r < 0)
				return r;
			continue;
		}
		key = strprintf(FEATURES_KEY_PREFIX "%s", name);
		if (!key)
			return -ENOMEM;
		r = plan_add_change(ctx->plan, "features", s->name, key, on_off(cur->active),
				    on_off(want[i].value));
		if (r < 0)
			return r;
	}
	return 0;
}

/* As `ethtool -k` shows them: on/off, [fixed] when the device does not
 * let them change. */
static void features_show(const struct iface_state *s)
{
	const struct iface_fact *fact = kind_fact(s, &kind_features);
	const struct eth_features *features = fact->value;

	if (!s->present) {
		out_json("features", NULL);
		return;
	}
	out_open_object("features");
	out_text("  features");
	if (fact->r < 0)
		out_text("  ");
	kind_show_status(fact->r);
	if (fact->r >= 0) {
		out_open_object("active");
		for (unsigned i = 0; i < _ETH_FEATURE_MAX; i++) {
			const struct eth_feature_state *f = &features->f[i];
			const char *name = eth_feature_def((enum eth_feature)i)->name;

			out_string(OUT_JSON, name, NULL, f->active ? "on" : "off");
			out_text("  %s %s%s", name, f->active ? "on" : "off",
				 f->changeable ? "" : " [fixed]");
		}
		out_close_object();
		out_open_array("fixed");
		for (unsigned i = 0; i < _ETH_FEATURE_MAX; i++)
			if (!features->f[i].changeable)
				out_string(OUT_JSON, NULL, NULL, eth_feature_def((enum eth_feature)i)->name);
		out_close_array();
	}
	out_text("\n");
	out_close_object();
}

/* What show writes of it (kinds.h: show_schema; `make docs` puts it into
 * schemas/state.schema.json). */
static const char features_show_schema[] =
    "{"
    " \"features\": {"
    "  \"type\": [\"object\", \"null\"],"
    "  \"description\": \"Offload features (ethtool netlink FEATURES_GET, else ETHTOOL_GFEATURES), the ones "
    "link.features manages, as `ethtool -k` shows them. null when the interface is not in this network "
    "namespace (present false).\","
    "  \"required\": [\"status\", \"error\"],"
    "  \"additionalProperties\": false,"
    "  \"x-cx5prof-status\": \"neither ethtool netlink nor the ioctl answers\","
    "  \"properties\": {"
    "   \"active\": {"
    "    \"type\": \"object\","
    "    \"description\": \"each managed feature (profile names, e.g. gro for the kernel's rx-gro): on or "
    "off now\","
    "    \"additionalProperties\": false,"
    "    \"x-cx5prof-table\": \"features\""
    "   },"
    "   \"fixed\": {"
    "    \"type\": \"array\","
    "    \"items\": {\"x-cx5prof-table\": \"feature-names\"},"
    "    \"uniqueItems\": true,"
    "    \"description\": \"the features the device does not let change (ethtool -k: [fixed]); a profile "
    "asking to change one is unsupported (exit 69)\""
    "   }"
    "  }"
    " }"
    "}";

const struct change_kind kind_features = {
    .name = "features",
    .rank = 32,
    .scope = KIND_SCOPE_PORT,
    .profile_section = "link",
    .keys = features_keys,
    .want_size = sizeof(struct features_want),
    .probe = &features_fact,
    .read = features_read,
    .write = features_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .write_reads_back = true,
    .diff = features_diff,
    .manages = features_manages,
    .show_port = features_show,
    .show_schema = features_show_schema,
};
