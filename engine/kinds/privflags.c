/* kinds/privflags.c: the "private_flags" kind, link.private_flags.NAME:
 * object "ens1f0", key "private_flags.rx_cqe_compress", values "on" and
 * "off". The names are the device's (`ethtool --show-priv-flags`: mlx5's
 * rx_cqe_moder, tx_cqe_moder, rx_cqe_compress, rx_striding_rq, ... as its
 * kernel or OFED lists them), so the loader checks only their spelling:
 * a name the device does not have is a profile error once the device
 * answers (exit 65, at the key), a device that cannot answer a plan
 * problem (exit 69, with the kernel's text). Read and written through
 * ethprivflags.h (netlink, the ioctl, or the sysroot's text), which reads
 * back. */
#include "kinds.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "base/exitcode.h"
#include "base/output.h"
#include "base/yamltree.h"
#include "keys/keyread.h"
#include "os/ethprivflags.h"
#include "os/ethsysroot.h"
#include "os/probe.h"
#include "os/sysroot.h"
#include "changes.h"
#include "profile.h"

#define KEY_PREFIX "private_flags."

/* NAME: on | off with names the host knows, not the format: in the order written (parents' entries first,
 * overridden in place). */
struct profile_flag {
	char *name;
	bool value;
	struct profile_mark at;
};

struct profile_flags {
	struct profile_flag *v;
	size_t n;
};

struct privflags_want {
	struct profile_flags flags;
};

/* The kernel's strings: ETH_GSTRING_LEN bytes with the NUL. */
static const char *check_flag_name(const char *s)
{
	static const char *const why = "a private flag name (letters, digits, '_', '-', '.', at most 31)";

	if (!*s || strlen(s) >= ETH_PRIV_FLAG_NAMES)
		return why;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-.", *s))
			return why;
	return NULL;
}

/* ---- the profile's link.private_flags (KT_OWN) ---- */

/* NAME: on | off (true | false too), NAME what the row's check accepts;
 * a child's entry replaces its parent's of the same name, `NAME: ~`
 * removes it. */
static int flags_parse(struct profile_loader *l, const struct profile_key *k, const struct ynode *map,
		       void *field, const char *path)
{
	struct profile_flags *p = field;
	char buf[64];
	int r;

	if (map->kind != YNODE_MAPPING)
		return key_expect(l, map, path, "a mapping");
	for (size_t i = 0; i + 1 < map->n_items; i += 2) {
		const struct ynode *name = map->items[i], *v = map->items[i + 1];
		const char *why = NULL;
		bool on;
		size_t j;

		r = key_check_name(l, map, i);
		if (r < 0)
			return r;
		if (k->check)
			why = k->check(name->value);
		if (why)
			return key_fail(l, name, "%s: %s is not %s", path,
					ynode_quote(name, buf, sizeof(buf)), why);
		for (j = 0; j < p->n; j++)
			if (streq(p->v[j].name, name->value))
				break;
		if (key_is_null(v) && j < p->n) {
			free(p->v[j].name);
			memmove(&p->v[j], &p->v[j + 1], (p->n - j - 1) * sizeof(p->v[0]));
			p->n--;
			continue;
		}
		r = key_on_off(l, v, path, name->value, &on);
		if (r < 0)
			return r;
		if (j == p->n) {
			struct profile_flag *a = reallocarray(p->v, p->n + 1, sizeof(*a));
			char *n = strdup(name->value);

			if (!a || !n) {
				free(n);
				if (a)
					p->v = a;
				return key_fail_oom(l, l->file);
			}
			p->v = a;
			p->v[p->n++] = (struct profile_flag){.name = n};
		}
		p->v[j].value = on;
		p->v[j].at = key_mark(l, v);
	}
	return 0;
}

static bool flags_is_set(const void *f)
{
	return ((const struct profile_flags *)f)->n > 0;
}

static void flags_unset(void *f)
{
	struct profile_flags *p = f;

	for (size_t i = 0; i < p->n; i++)
		free(p->v[i].name);
	free(p->v);
	*p = (struct profile_flags){0};
}

/* true/false: the loader reads a JSON "on" as a quoted string, which a
 * profile may not use, and the history's effective profile is loaded back. */
static struct json_object *flags_json(const void *f)
{
	const struct profile_flags *p = f;
	struct json_object *o;

	if (p->n == 0)
		return NULL;
	o = json_object_new_object();
	for (size_t i = 0; o && i < p->n; i++)
		json_object_object_add(o, p->v[i].name, json_object_new_boolean(p->v[i].value));
	return o;
}

static const struct key_codec flags_codec = {
    .doc_type = "flags",
    .not_one_value = true,
    .parse = flags_parse,
    .is_set = flags_is_set,
    .unset = flags_unset,
    .json = flags_json,
};

static const struct profile_key privflags_keys[] = {
    {.name = "private_flags",
     .type = KT_OWN,
     .codec = &flags_codec,
     .offset = offsetof(struct privflags_want, flags),
     .check = check_flag_name,
     .pattern = "^[A-Za-z0-9_.-]{1,31}$",
     .help = "the driver's private flags, NAME: on | off with the names the device lists (ethtool "
	     "--show-priv-flags; mlx5: rx_cqe_compress, rx_striding_rq, rx_cqe_moder, tx_cqe_moder, "
	     "...); rx_cqe_compress and rx_striding_rq reopen the channels (a short traffic gap)"},
    {0},
};

extern const struct change_kind kind_private_flags;

static const struct profile_flags *want_of(const struct profile *p)
{
	return &((const struct privflags_want *)kind_want(p, &kind_private_flags))->flags;
}

static int probe_flags(const char *ifname, void *ret, char **kmsg)
{
	return ethtool_get_priv_flags(ifname, ret, kmsg);
}

/* At most ETH_PRIV_FLAGS_MAX flags, each name NUL-terminated within its
 * slot and not empty, each "on" a bool. */
static int privflags_check(const void *value, char **ret_why)
{
	const struct eth_priv_flags *f = value;

	if (f->n > ETH_PRIV_FLAGS_MAX)
		return probe_fact_bad(ret_why, "n %u is above the %d flags the record holds", f->n,
				      ETH_PRIV_FLAGS_MAX);
	for (unsigned i = 0; i < f->n; i++) {
		if (!memchr(f->name[i], '\0', ETH_PRIV_FLAG_NAMES))
			return probe_fact_bad(ret_why, "name[%u] has no NUL within its %d bytes", i,
					      ETH_PRIV_FLAG_NAMES);
		if (!f->name[i][0])
			return probe_fact_bad(ret_why, "name[%u] is empty", i);
		if (!probe_fact_bool_ok(&f->on[i]))
			return probe_fact_bad(ret_why, "on[%u] is not a bool", i);
	}
	return 0;
}

static const struct probe_fact privflags_fact = {
    .name = "private_flags",
    .layout = 1,
    .size = sizeof(struct eth_priv_flags),
    .read = probe_flags,
    .check = privflags_check,
};

static const char *flag_of(const char *key)
{
	return strncmp(key, KEY_PREFIX, strlen(KEY_PREFIX)) == 0 ? key + strlen(KEY_PREFIX) : NULL;
}

static int privflags_read(const char *object, const char *key, char **ret, char **kmsg)
{
	struct eth_priv_flags f;
	const char *name = flag_of(key);
	int i, r;

	if (!name)
		return -EINVAL;
	r = ethtool_get_priv_flags(object, &f, kmsg);
	if (r < 0)
		return r;
	i = eth_priv_flags_find(&f, name);
	if (i < 0)
		return i;
	*ret = strdup(f.on[i] ? "on" : "off");
	return *ret ? 0 : -ENOMEM;
}

static int privflags_write(const char *object, const char *key, const char *value, char **kmsg)
{
	const char *name = flag_of(key);

	if (!name || (!streq(value, "on") && !streq(value, "off")))
		return -EINVAL;
	return ethtool_set_priv_flag(object, name, streq(value, "on"), kmsg);
}

/* "rx_cqe_moder, tx_cqe_moder, ..." */
static char *flag_names(const struct eth_priv_flags *f)
{
	_cleanup_free_ char *s = strdup("");

	for (unsigned i = 0; s && i < f->n; i++) {
		char *n = strprintf("%s%s%s", s, i ? ", " : "", f->name[i]);
		free(s);
		s = n;
	}
	return TAKE_PTR(s);
}

static int privflags_diff(struct plan_ctx *ctx, const struct iface_state *s)
{
	const struct profile_flags *want = want_of(ctx->profile);
	const struct iface_fact *fact = kind_fact(s, &kind_private_flags);
	const struct eth_priv_flags *cur = fact->value;
	int r;

	if (want->n == 0)
		return 0;
	if (fact->r < 0) {
		_cleanup_free_ char *note = ethsysroot_absent_note(s->name, ETHSYSROOT_PRIV_FLAGS);

		if (!note)
			return -ENOMEM;
		return plan_add_problem(
		    ctx->plan, fact->r == -EOPNOTSUPP ? EXIT_UNSUPPORTED : EXIT_ERROR, s->name,
		    fact->r == -EOPNOTSUPP ? "remove link.private_flags from the profile for this port"
					   : "check the interface",
		    "link.private_flags: %s: %s%s%s%s%s",
		    fact->r == -EOPNOTSUPP ? "the driver has no private flags" : "cannot be read",
		    sysroot_strerror(fact->r), fact->kmsg ? " (kernel: " : "", fact->kmsg ? fact->kmsg : "",
		    fact->kmsg ? ")" : "", note);
	}
	for (size_t k = 0; k < want->n; k++) {
		const struct profile_flag *w = &want->v[k];
		_cleanup_free_ char *key = NULL;
		int i = eth_priv_flags_find(cur, w->name);

		if (i < 0) {
			_cleanup_free_ char *names = flag_names(cur);

			if (!names)
				return -ENOMEM;
			r = plan_add_problem(
			    ctx->plan, EXIT_INVALID, s->name,
			    "use one of the device's names (ethtool --show-priv-flags)",
			    "%s:%u:%u: link.private_flags: %s has no private flag \"%s\" (it has %s)",
			    w->at.file, w->at.line, w->at.column, s->name, w->name, names);
			if (r < 0)
				return r;
			continue;
		}
		if (cur->on[i] == w->value)
			continue;
		key = strprintf(KEY_PREFIX "%s", w->name);
		if (!key)
			return -ENOMEM;
		r = plan_add_change(ctx->plan, "private_flags", s->name, key, cur->on[i] ? "on" : "off",
				    w->value ? "on" : "off");
		if (r < 0)
			return r;
	}
	return 0;
}

static bool privflags_manages(const struct profile *p)
{
	return want_of(p)->n > 0;
}

/* `ethtool --show-priv-flags` as one line: "private_flags rx_cqe_moder on
 * ..."; JSON {"status", "kernel_message", "flags": {NAME: bool}}. */
static void privflags_show(const struct iface_state *s)
{
	const struct iface_fact *fact = kind_fact(s, &kind_private_flags);
	const struct eth_priv_flags *f = fact->value;

	if (!s->present) {
		out_json("private_flags", NULL);
		return;
	}
	out_open_object("private_flags");
	out_text("  %-8s", "privflags");
	if (fact->r < 0)
		out_text("  ");
	kind_show_status(fact->r);
	out_string(OUT_JSON, "kernel_message", NULL, fact->kmsg);
	if (fact->r < 0 && fact->kmsg)
		out_text(" (kernel: %s)", fact->kmsg);
	out_open_object("flags");
	for (unsigned i = 0; fact->r >= 0 && i < f->n; i++) {
		out_bool(OUT_JSON, f->name[i], NULL, f->on[i]);
		out_text("  %s %s", f->name[i], f->on[i] ? "on" : "off");
	}
	out_close_object();
	out_text("\n");
	out_close_object();
}

/* What show writes of it (kinds.h: show_schema; `make docs` puts it into
 * schemas/state.schema.json). */
static const char privflags_show_schema[] =
    "{"
    " \"private_flags\": {"
    "  \"type\": [\"object\", \"null\"],"
    "  \"description\": \"The driver's private flags (ethtool netlink PRIVFLAGS_GET, else ETHTOOL_GPFLAGS; a "
    "sysroot's ethtool/IFACE/show-priv-flags when it describes the port), as `ethtool --show-priv-flags` "
    "shows them. null when the interface is not in this network namespace.\","
    "  \"required\": [\"status\", \"error\", \"kernel_message\", \"flags\"],"
    "  \"additionalProperties\": false,"
    "  \"x-cx5prof-status\": \"the driver has no private flags (veth)\","
    "  \"x-cx5prof-kmsg\": true,"
    "  \"properties\": {"
    "   \"flags\": {"
    "    \"type\": \"object\","
    "    \"additionalProperties\": {\"type\": \"boolean\"},"
    "    \"description\": \"each flag by the device's name (rx_cqe_compress, rx_striding_rq, ...): on true; "
    "empty unless status is ok\""
    "   }"
    "  }"
    " }"
    "}";

const struct change_kind kind_private_flags = {
    .name = "private_flags",
    .rank = 22,
    .order_note = "after channels; rx_cqe_compress and rx_striding_rq reopen the channels (a short gap)",
    .scope = KIND_SCOPE_PORT,
    .profile_section = "link",
    .keys = privflags_keys,
    .want_size = sizeof(struct privflags_want),
    .probe = &privflags_fact,
    .read = privflags_read,
    .write = privflags_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .write_reads_back = true,
    .diff = privflags_diff,
    .manages = privflags_manages,
    .show_port = privflags_show,
    .show_schema = privflags_show_schema,
};
