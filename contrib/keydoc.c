/* keydoc.c: print the change kinds (names, apply ranks, the schema of what
 * show prints of each), their profile keys (kinds.h, profile.h) and the
 * vocabularies of their map types (procsys.h's sysctls, ethfeatures.h's
 * features) and the rules of `tune` (tune/rules.h) as JSON, for contrib/gen-docs.py (`make docs`), which
 * writes the key tables of the man page and the JSON Schemas from it.
 *
 * Owns: nothing but this dump. Must never: touch the host. */
#include <json-c/json.h>
#include <stdio.h>

#include "kinds/kinds.h"
#include "os/ethfeatures.h"
#include "os/procsys.h"
#include "profile.h"
#include "tune/rules.h"

static const char *const type_names[_KT_MAX] = {
    [KT_SECTION] = "section", [KT_UINT] = "uint",   [KT_SIZE] = "size",	      [KT_NUMBER] = "number",
    [KT_BOOL] = "bool",	      [KT_ENUM] = "enum",   [KT_CPULIST] = "cpulist", [KT_KINDS] = "kinds",
    [KT_TEXT] = "text",	      [KT_UINTS] = "uints",
};

static int add_key(const char *path, const struct profile_key *k, const struct change_kind *kind,
		   void *userdata)
{
	struct json_object *keys = userdata, *o;
	const char *type = k->type == KT_OWN ? k->codec->doc_type : type_names[k->type];

	if (!kind && k->type != KT_KINDS)
		return 0; /* the profile's own sections are written by hand */
	if (!type) {
		fprintf(stderr, "keydoc: %s: a key type the docs do not know (%d)\n", path, k->type);
		return -1;
	}
	o = json_object_new_object();
	json_object_object_add(o, "path", json_object_new_string(path));
	json_object_object_add(o, "kind", kind ? json_object_new_string(kind->name) : NULL);
	json_object_object_add(o, "type", json_object_new_string(type));
	if (k->type == KT_UINT || k->type == KT_SIZE || k->type == KT_CPULIST || k->type == KT_TEXT ||
	    k->type == KT_UINTS) {
		json_object_object_add(o, "min", json_object_new_int64(k->min));
		json_object_object_add(o, "max", json_object_new_int64(k->max));
	}
	if (k->names) {
		struct json_object *a = json_object_new_array();
		for (const char *const *n = k->names; *n; n++)
			json_object_array_add(a, json_object_new_string(*n));
		json_object_object_add(o, "names", a);
	}
	if (k->type == KT_TEXT)
		json_object_object_add(o, "int_ok", json_object_new_boolean(k->int_ok));
	if (k->pattern)
		json_object_object_add(o, "pattern", json_object_new_string(k->pattern));
	json_object_object_add(o, "help", k->help ? json_object_new_string(k->help) : NULL);
	json_object_array_add(keys, o);
	return 0;
}

/* Where the kind's show writes ("link", "port", "host") and its schema. */
static int add_show(struct json_object *o, const struct change_kind *k)
{
	const char *in = k->show_link ? "link" : k->show_port ? "port" : k->show_host ? "host" : NULL;
	struct json_object *schema;

	if (!in != !k->show_schema) {
		fprintf(stderr, "keydoc: kind %s: %s\n", k->name,
			in ? "shows its state but has no show_schema" : "has a show_schema but no show op");
		return -1;
	}
	if (!in)
		return 0;
	schema = json_tokener_parse(k->show_schema);
	if (!schema || !json_object_is_type(schema, json_type_object)) {
		fprintf(stderr, "keydoc: kind %s: show_schema is not a JSON object\n", k->name);
		json_object_put(schema);
		return -1;
	}
	json_object_object_add(o, "show_in", json_object_new_string(in));
	json_object_object_add(o, "show_schema", schema);
	return 0;
}

int main(void)
{
	struct json_object *doc = json_object_new_object(), *keys = json_object_new_array(),
			   *sysctls = json_object_new_array(), *features = json_object_new_array(),
			   *kinds = json_object_new_array(), *rules = json_object_new_array();

	if (profile_keys_walk(add_key, keys) < 0)
		return 1;
	for (size_t i = 0; i < n_change_kinds; i++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(change_kinds[i]->name));
		json_object_object_add(o, "rank", json_object_new_int(change_kinds[i]->rank));
		if (add_show(o, change_kinds[i]) < 0)
			return 1;
		json_object_array_add(kinds, o);
	}
	for (unsigned i = 0; i < _SYSCTL_MAX; i++) {
		const struct sysctl_def *d = sysctl_def((enum sysctl_key)i);
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(d->name));
		json_object_object_add(o, "values", json_object_new_int(d->n_values));
		json_object_object_add(o, "ordered", json_object_new_boolean(d->ordered));
		json_object_object_add(o, "min", json_object_new_uint64(d->min));
		json_object_object_add(o, "max", json_object_new_uint64(d->max));
		json_object_object_add(o, "unit", json_object_new_string(d->unit));
		json_object_object_add(o, "help", d->help ? json_object_new_string(d->help) : NULL);
		json_object_array_add(sysctls, o);
	}
	for (unsigned i = 0; i < _ETH_FEATURE_MAX; i++) {
		const struct eth_feature_def *d = eth_feature_def((enum eth_feature)i);
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(d->name));
		json_object_object_add(o, "kernel_name", json_object_new_string(d->kernel_name));
		json_object_array_add(features, o);
	}
	for (size_t i = 0; i < tune_n_rules; i++) {
		const struct tune_rule *t = &tune_rules[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "family", json_object_new_string(t->family));
		json_object_object_add(o, "evidence", json_object_new_string(t->evidence));
		json_object_object_add(o, "tries", json_object_new_string(t->tries));
		json_object_object_add(o, "needs_peer", json_object_new_boolean(t->needs_peer));
		json_object_object_add(o, "link_down", json_object_new_boolean(t->link_down));
		json_object_object_add(o, "ladder", json_object_new_boolean(t->ladder));
		json_object_array_add(rules, o);
	}
	json_object_object_add(doc, "tune_rules", rules);
	json_object_object_add(doc, "kinds", kinds);
	json_object_object_add(doc, "keys", keys);
	json_object_object_add(doc, "sysctls", sysctls);
	json_object_object_add(doc, "features", features);
	puts(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(doc);
	return 0;
}
