/* linkfacts.c: the kernel's link facts, live or from a snapshot's record
 * (see linkfacts.h). */
#define _GNU_SOURCE
#include "linkfacts.h"

#include <linux/if.h>
#include <stdarg.h>

#include "sysroot.h"

static struct link_facts *recorded;
static size_t n_recorded;
static bool use_record;
static bool record_of_live_host;

void linkfacts_free(struct link_facts *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].coalesce_kmsg);
		free(v[i].pause_kmsg);
	}
	free(v);
}

void linkfacts_use(struct link_facts *v, size_t n, bool of_live_host)
{
	linkfacts_free(recorded, n_recorded);
	recorded = v;
	n_recorded = n;
	use_record = v != NULL;
	record_of_live_host = of_live_host;
}

bool linkfacts_of_this_host(void)
{
	return use_record ? record_of_live_host : sysroot_is_live();
}

static bool wanted(char *const *only, const struct link_info *l)
{
	return !l->loopback && (!only || strv_contains(only, l->name));
}

static int dup_kmsg(const char *s, char **ret)
{
	*ret = NULL;
	if (s && !(*ret = strdup(s)))
		return -ENOMEM;
	return 0;
}

static int list_recorded(char *const *only, struct link_facts **ret, size_t *ret_n)
{
	struct link_facts *v = calloc(n_recorded + 1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n_recorded; i++) {
		if (!wanted(only, &recorded[i].link))
			continue;
		v[n] = recorded[i];
		if (dup_kmsg(recorded[i].coalesce_kmsg, &v[n].coalesce_kmsg) < 0 ||
		    dup_kmsg(recorded[i].pause_kmsg, &v[n].pause_kmsg) < 0) {
			linkfacts_free(v, n + 1);
			return -ENOMEM;
		}
		n++;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

static void read_kernel(struct link_facts *f)
{
	const char *name = f->link.name;

	f->drvinfo_r = ethtool_get_drvinfo(name, &f->drvinfo);
	f->ethlink_r = ethtool_get_link(name, &f->ethlink);
	f->channels_r = ethtool_get_channels(name, &f->channels);
	f->rings_r = ethtool_get_rings(name, &f->rings);
	f->features_r = ethtool_get_features(name, &f->features, NULL);
	f->coalesce_r = ethnl_group_get(&ethnl_coalesce, name, &f->coalesce, &f->coalesce_kmsg);
	f->pause_r = ethnl_group_get(&ethnl_pause, name, &f->pause, &f->pause_kmsg);
}

int linkfacts_list(char *const *only, struct link_facts **ret, size_t *ret_n)
{
	_cleanup_free_ struct link_info *links = NULL;
	struct link_facts *v;
	size_t n = 0, kept = 0;
	int r;

	if (use_record)
		return list_recorded(only, ret, ret_n);
	r = link_list(&links, &n);
	if (r < 0)
		return r;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (!wanted(only, &links[i]))
			continue;
		v[kept].link = links[i];
		read_kernel(&v[kept++]);
	}
	*ret = v;
	*ret_n = kept;
	return 0;
}

/* ---- JSON ---- */

/* The plain counts of the record (channels, rings), written and read back
 * from this one table. */
static const struct count_field {
	const char *group, *key;
	size_t offset; /* of the uint32_t in struct link_facts */
} count_fields[] = {
#define COUNT(g, k)                                                                                          \
	{                                                                                                    \
#g, #k, offsetof(struct link_facts, g.k)                                                     \
	}
    COUNT(channels, rx),	COUNT(channels, tx),	       COUNT(channels, other),
    COUNT(channels, combined),	COUNT(channels, max_rx),       COUNT(channels, max_tx),
    COUNT(channels, max_other), COUNT(channels, max_combined), COUNT(rings, rx),
    COUNT(rings, tx),		COUNT(rings, max_rx),	       COUNT(rings, max_tx),
#undef COUNT
};

static uint32_t *count_of(const struct link_facts *f, const struct count_field *c)
{
	return (uint32_t *)((char *)f + c->offset);
}

static void add_int(struct json_object *o, const char *key, int64_t v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

static void add_str(struct json_object *o, const char *key, const char *v)
{
	json_object_object_add(o, key, v ? json_object_new_string(v) : NULL);
}

/* {"result": R, "error": "Operation not supported"}: the result of one read. */
static struct json_object *read_object(int r)
{
	struct json_object *o = json_object_new_object();

	add_int(o, "result", r);
	add_str(o, "error", r < 0 ? strerror(-r) : NULL);
	return o;
}

static struct json_object *values_json(const struct ethnl_group *g, const struct ethnl_values *v, int r,
				       const char *kmsg)
{
	struct json_object *o = read_object(r), *vals = json_object_new_object();

	for (size_t i = 0; r == 0 && i < g->n_params; i++)
		if (v->present[i])
			add_int(vals, g->params[i].name, v->v[i]);
	json_object_object_add(o, "values", vals);
	add_str(o, "kernel_message", kmsg);
	return o;
}

static struct json_object *one_json(const struct link_facts *f)
{
	struct json_object *o = json_object_new_object(), *x;
	const struct link_info *l = &f->link;

	add_str(o, "name", l->name);
	add_int(o, "ifindex", l->ifindex);
	add_int(o, "mtu", l->mtu);
	json_object_object_add(o, "min_mtu", l->has_mtu_range ? json_object_new_int64(l->min_mtu) : NULL);
	json_object_object_add(o, "max_mtu", l->has_mtu_range ? json_object_new_int64(l->max_mtu) : NULL);
	add_str(o, "operstate", link_operstate_to_string(l->operstate));
	add_int(o, "flags", l->flags);
	add_str(o, "kind", l->kind);

	x = read_object(f->drvinfo_r);
	add_str(x, "driver", f->drvinfo.driver);
	add_str(x, "version", f->drvinfo.version);
	add_str(x, "firmware_version", f->drvinfo.fw_version);
	add_str(x, "bus_info", f->drvinfo.bus_info);
	json_object_object_add(o, "drvinfo", x);

	x = read_object(f->ethlink_r);
	json_object_object_add(x, "speed",
			       f->ethlink.speed_known ? json_object_new_int64(f->ethlink.speed) : NULL);
	add_str(x, "duplex", eth_duplex_to_string(f->ethlink.duplex));
	json_object_object_add(x, "autoneg", json_object_new_boolean(f->ethlink.autoneg));
	json_object_object_add(o, "ethlink", x);

	json_object_object_add(o, "channels", read_object(f->channels_r));
	json_object_object_add(o, "rings", read_object(f->rings_r));
	for (size_t i = 0; i < ARRAY_SIZE(count_fields); i++)
		add_int(json_object_object_get(o, count_fields[i].group), count_fields[i].key,
			*count_of(f, &count_fields[i]));

	x = read_object(f->features_r);
	for (int i = 0; i < _ETH_FEATURE_MAX; i++) {
		const struct eth_feature_state *s = &f->features.f[i];
		struct json_object *fo = json_object_new_object();

		json_object_object_add(fo, "changeable", json_object_new_boolean(s->changeable));
		json_object_object_add(fo, "active", json_object_new_boolean(s->active));
		json_object_object_add(fo, "wanted", json_object_new_boolean(s->wanted));
		json_object_object_add(x, eth_feature_def((enum eth_feature)i)->name, fo);
	}
	json_object_object_add(o, "features", x);

	json_object_object_add(o, "coalesce",
			       values_json(&ethnl_coalesce, &f->coalesce, f->coalesce_r, f->coalesce_kmsg));
	json_object_object_add(o, "pause", values_json(&ethnl_pause, &f->pause, f->pause_r, f->pause_kmsg));
	return o;
}

struct json_object *linkfacts_to_json(const struct link_facts *v, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < n; i++)
		json_object_array_add(a, one_json(&v[i]));
	return a;
}

/* The reader of the record: each getter names the field it could not
 * take, so a hand-edited snapshot fails with "links[1].rings.rx". */
struct reader {
	size_t index;
	const char *group; /* "channels", or NULL at the link's level */
	char *bad;	   /* the first bad field */
};

static int bad(struct reader *rd, const char *key)
{
	if (!rd->bad)
		rd->bad = strprintf("links[%zu].%s%s%s", rd->index, rd->group ? rd->group : "",
				    rd->group ? "." : "", key);
	return -EINVAL;
}

static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static int get_i64(struct reader *rd, struct json_object *o, const char *key, int64_t lo, int64_t hi,
		   int64_t *ret)
{
	struct json_object *v = member(o, key);
	int64_t x;

	if (!v || !json_object_is_type(v, json_type_int))
		return bad(rd, key);
	x = json_object_get_int64(v);
	if (x < lo || x > hi)
		return bad(rd, key);
	*ret = x;
	return 0;
}

static int get_u32(struct reader *rd, struct json_object *o, const char *key, uint32_t *ret)
{
	int64_t x;
	int r = get_i64(rd, o, key, 0, UINT32_MAX, &x);

	if (r == 0)
		*ret = (uint32_t)x;
	return r;
}

static int get_bool(struct reader *rd, struct json_object *o, const char *key, bool *ret)
{
	struct json_object *v = member(o, key);

	if (!v || !json_object_is_type(v, json_type_boolean))
		return bad(rd, key);
	*ret = json_object_get_boolean(v);
	return 0;
}

/* A string that fits size bytes; null reads as "". */
static int get_str(struct reader *rd, struct json_object *o, const char *key, char *buf, size_t size)
{
	struct json_object *v = member(o, key);

	if (v && !json_object_is_type(v, json_type_string))
		return bad(rd, key);
	if (v && (size_t)json_object_get_string_len(v) >= size)
		return bad(rd, key);
	snprintf(buf, size, "%s", v ? json_object_get_string(v) : "");
	return 0;
}

static int get_opt_str(struct reader *rd, struct json_object *o, const char *key, char **ret)
{
	struct json_object *v = member(o, key);

	*ret = NULL;
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return bad(rd, key);
	*ret = strdup(json_object_get_string(v));
	return *ret ? 0 : -ENOMEM;
}

/* The group's object and its "result". */
static int get_group(struct reader *rd, struct json_object *o, const char *group, struct json_object **ret,
		     int *ret_r)
{
	int64_t r;

	rd->group = NULL;
	*ret = member(o, group);
	if (!*ret || !json_object_is_type(*ret, json_type_object))
		return bad(rd, group);
	rd->group = group;
	if (get_i64(rd, *ret, "result", -4095, 0, &r) < 0)
		return -EINVAL;
	*ret_r = (int)r;
	return 0;
}

static int get_values(struct reader *rd, struct json_object *o, const struct ethnl_group *g, int *ret_r,
		      struct ethnl_values *ret, char **ret_kmsg)
{
	struct json_object *x, *vals;
	int r;

	r = get_group(rd, o, g->name, &x, ret_r);
	if (r < 0)
		return r;
	vals = member(x, "values");
	if (!vals || !json_object_is_type(vals, json_type_object))
		return bad(rd, "values");
	for (size_t i = 0; i < g->n_params; i++) {
		if (!member(vals, g->params[i].name))
			continue;
		rd->group = g->name;
		r = get_u32(rd, vals, g->params[i].name, &ret->v[i]);
		if (r < 0)
			return r;
		ret->present[i] = true;
	}
	return get_opt_str(rd, x, "kernel_message", ret_kmsg);
}

static int get_link(struct reader *rd, struct json_object *o, struct link_info *l)
{
	struct json_object *min = member(o, "min_mtu");
	char state[32];
	int64_t x;
	int r;

	rd->group = NULL;
	r = get_str(rd, o, "name", l->name, sizeof(l->name));
	if (r == 0 && !l->name[0])
		r = bad(rd, "name");
	if (r == 0)
		r = get_i64(rd, o, "ifindex", 1, INT32_MAX, &x);
	if (r < 0)
		return r;
	l->ifindex = (int)x;
	r = get_u32(rd, o, "mtu", &l->mtu);
	if (r == 0 && min && !json_object_is_type(min, json_type_null)) {
		l->has_mtu_range = true;
		r = get_u32(rd, o, "min_mtu", &l->min_mtu);
		if (r == 0)
			r = get_u32(rd, o, "max_mtu", &l->max_mtu);
	}
	if (r == 0)
		r = get_str(rd, o, "operstate", state, sizeof(state));
	if (r == 0 && link_operstate_from_string(state, &l->operstate) < 0)
		r = bad(rd, "operstate");
	if (r == 0)
		r = get_u32(rd, o, "flags", &l->flags);
	if (r == 0)
		r = get_str(rd, o, "kind", l->kind, sizeof(l->kind));
	if (r < 0)
		return r;
	l->loopback = l->flags & IFF_LOOPBACK;
	l->admin_up = l->flags & IFF_UP;
	l->lower_up = l->flags & IFF_LOWER_UP;
	return 0;
}

static int get_duplex(struct reader *rd, struct json_object *o, enum eth_duplex *ret)
{
	char s[16];
	int r = get_str(rd, o, "duplex", s, sizeof(s));

	if (r < 0)
		return r;
	for (int d = 0; d < _ETH_DUPLEX_MAX; d++)
		if (streq(eth_duplex_to_string((enum eth_duplex)d), s)) {
			*ret = (enum eth_duplex)d;
			return 0;
		}
	return bad(rd, "duplex");
}

static int get_one(struct reader *rd, struct json_object *o, struct link_facts *f)
{
	struct json_object *x, *speed;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return bad(rd, "name");
	r = get_link(rd, o, &f->link);
	if (r == 0)
		r = get_group(rd, o, "drvinfo", &x, &f->drvinfo_r);
	if (r == 0)
		r = get_str(rd, x, "driver", f->drvinfo.driver, sizeof(f->drvinfo.driver));
	if (r == 0)
		r = get_str(rd, x, "version", f->drvinfo.version, sizeof(f->drvinfo.version));
	if (r == 0)
		r = get_str(rd, x, "firmware_version", f->drvinfo.fw_version, sizeof(f->drvinfo.fw_version));
	if (r == 0)
		r = get_str(rd, x, "bus_info", f->drvinfo.bus_info, sizeof(f->drvinfo.bus_info));
	if (r == 0)
		r = get_group(rd, o, "ethlink", &x, &f->ethlink_r);
	if (r < 0)
		return r;
	speed = member(x, "speed");
	f->ethlink.speed_known = speed && !json_object_is_type(speed, json_type_null);
	if (f->ethlink.speed_known)
		r = get_u32(rd, x, "speed", &f->ethlink.speed);
	if (r == 0)
		r = get_duplex(rd, x, &f->ethlink.duplex);
	if (r == 0)
		r = get_bool(rd, x, "autoneg", &f->ethlink.autoneg);
	if (r == 0)
		r = get_group(rd, o, "channels", &x, &f->channels_r);
	if (r == 0)
		r = get_group(rd, o, "rings", &x, &f->rings_r);
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(count_fields); i++) {
		rd->group = count_fields[i].group;
		r = get_u32(rd, member(o, count_fields[i].group), count_fields[i].key,
			    count_of(f, &count_fields[i]));
	}
	if (r == 0)
		r = get_group(rd, o, "features", &x, &f->features_r);
	for (int i = 0; r == 0 && i < _ETH_FEATURE_MAX; i++) {
		const char *name = eth_feature_def((enum eth_feature)i)->name;
		struct eth_feature_state *s = &f->features.f[i];
		struct json_object *fo = member(x, name);

		if (!fo) /* recorded by a cx5prof that did not manage it: fixed and off */
			continue;
		if (!json_object_is_type(fo, json_type_object))
			return bad(rd, name);
		r = get_bool(rd, fo, "changeable", &s->changeable);
		if (r == 0)
			r = get_bool(rd, fo, "active", &s->active);
		if (r == 0)
			r = get_bool(rd, fo, "wanted", &s->wanted);
	}
	if (r == 0)
		r = get_values(rd, o, &ethnl_coalesce, &f->coalesce_r, &f->coalesce, &f->coalesce_kmsg);
	if (r == 0)
		r = get_values(rd, o, &ethnl_pause, &f->pause_r, &f->pause, &f->pause_kmsg);
	return r;
}

int linkfacts_from_json(struct json_object *a, struct link_facts **ret, size_t *ret_n, char **ret_field)
{
	struct reader rd = {0};
	struct link_facts *v;
	size_t n;
	int r = 0;

	if (!a || !json_object_is_type(a, json_type_array)) {
		*ret_field = strdup("links");
		return -EINVAL;
	}
	n = json_object_array_length(a);
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; r == 0 && i < n; i++) {
		rd.index = i;
		r = get_one(&rd, json_object_array_get_idx(a, i), &v[i]);
	}
	if (r < 0) {
		linkfacts_free(v, n);
		*ret_field = rd.bad;
		return r;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}
