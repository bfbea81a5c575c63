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

static void facts_free(struct recorded_fact *f, size_t n)
{
	for (size_t i = 0; f && i < n; i++) {
		free(f[i].kind);
		free(f[i].value);
		free(f[i].kmsg);
	}
	free(f);
}

void linkfacts_free(struct link_facts *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		facts_free(v[i].facts, v[i].n_facts);
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

static int copy_facts(const struct link_facts *from, struct link_facts *to)
{
	to->facts = calloc(from->n_facts + 1, sizeof(*to->facts));
	if (!to->facts)
		return -ENOMEM;
	to->n_facts = from->n_facts;
	for (size_t i = 0; i < from->n_facts; i++) {
		const struct recorded_fact *f = &from->facts[i];
		struct recorded_fact *t = &to->facts[i];

		*t = (struct recorded_fact){.layout = f->layout, .r = f->r, .size = f->size};
		if (f->kind && !(t->kind = strdup(f->kind)))
			return -ENOMEM;
		if (f->value) {
			t->value = malloc(f->size);
			if (!t->value)
				return -ENOMEM;
			memcpy(t->value, f->value, f->size);
		}
		if (f->kmsg && !(t->kmsg = strdup(f->kmsg)))
			return -ENOMEM;
	}
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
		v[n].facts = NULL;
		v[n].n_facts = 0;
		if (copy_facts(&recorded[i], &v[n++]) < 0) {
			linkfacts_free(v, n);
			return -ENOMEM;
		}
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

static void read_kernel(struct link_facts *f)
{
	f->drvinfo_r = ethtool_get_drvinfo(f->link.name, &f->drvinfo);
	f->ethlink_r = ethtool_get_link(f->link.name, &f->ethlink);
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

static void add_int(struct json_object *o, const char *key, int64_t v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

static void add_str(struct json_object *o, const char *key, const char *v)
{
	json_object_object_add(o, key, v ? json_object_new_string(v) : NULL);
}

/* "result": R, "error": "Operation not supported": the result of one read. */
static void add_result(struct json_object *o, int r)
{
	add_int(o, "result", r);
	add_str(o, "error", r < 0 ? strerror(-r) : NULL);
}

static struct json_object *read_object(int r)
{
	struct json_object *o = json_object_new_object();

	add_result(o, r);
	return o;
}

static struct json_object *fact_json(const struct recorded_fact *f)
{
	struct json_object *o = json_object_new_object();
	_cleanup_free_ char *hex = NULL;

	add_str(o, "kind", f->kind);
	add_int(o, "layout", f->layout);
	add_result(o, f->r);
	add_int(o, "size", (int64_t)f->size);
	if (f->value && (hex = malloc(f->size * 2 + 1))) {
		for (size_t i = 0; i < f->size; i++)
			sprintf(hex + 2 * i, "%02x", ((const unsigned char *)f->value)[i]);
		hex[f->size * 2] = '\0';
	}
	add_str(o, "value", hex);
	add_str(o, "kernel_message", f->kmsg);
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
	add_int(o, "txqueuelen", l->txqlen);
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

	x = json_object_new_array();
	for (size_t i = 0; i < f->n_facts; i++)
		json_object_array_add(x, fact_json(&f->facts[i]));
	json_object_object_add(o, "facts", x);
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
 * take, so a hand-edited snapshot fails with "links[1].ethlink.speed". */
struct reader {
	size_t index;
	const char *group; /* "ethlink", or NULL at the link's level */
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
	if (!v || json_object_is_type(v, json_type_null))
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
		r = get_u32(rd, o, "txqueuelen", &l->txqlen);
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

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int get_fact(struct reader *rd, struct json_object *o, struct recorded_fact *f)
{
	struct json_object *value;
	int64_t layout, size, r;
	const char *hex;

	if (!json_object_is_type(o, json_type_object))
		return bad(rd, "facts");
	rd->group = "facts";
	if (get_opt_str(rd, o, "kind", &f->kind) < 0 || !f->kind || !f->kind[0])
		return bad(rd, "kind");
	if (get_i64(rd, o, "layout", 0, UINT32_MAX, &layout) < 0 ||
	    get_i64(rd, o, "result", -4095, 0, &r) < 0 || get_i64(rd, o, "size", 0, 1 << 16, &size) < 0)
		return -EINVAL;
	f->layout = (unsigned)layout;
	f->r = (int)r;
	f->size = (size_t)size;
	value = member(o, "value");
	if (value && !json_object_is_type(value, json_type_null)) {
		hex = json_object_get_string(value);
		if (!json_object_is_type(value, json_type_string) || strlen(hex) != f->size * 2)
			return bad(rd, "value");
		f->value = calloc(1, f->size + 1);
		if (!f->value)
			return -ENOMEM;
		for (size_t i = 0; i < f->size; i++) {
			int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);

			if (hi < 0 || lo < 0)
				return bad(rd, "value");
			((unsigned char *)f->value)[i] = (unsigned char)(hi << 4 | lo);
		}
	} else if (f->r == 0)
		return bad(rd, "value");
	return get_opt_str(rd, o, "kernel_message", &f->kmsg);
}

static int get_one(struct reader *rd, struct json_object *o, struct link_facts *f)
{
	struct json_object *x, *speed, *facts;
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
	if (r < 0)
		return r;
	rd->group = NULL;
	facts = member(o, "facts");
	if (!facts || !json_object_is_type(facts, json_type_array))
		return bad(rd, "facts");
	f->n_facts = json_object_array_length(facts);
	f->facts = calloc(f->n_facts + 1, sizeof(*f->facts));
	if (!f->facts)
		return -ENOMEM;
	for (size_t i = 0; r == 0 && i < f->n_facts; i++)
		r = get_fact(rd, json_object_array_get_idx(facts, i), &f->facts[i]);
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
