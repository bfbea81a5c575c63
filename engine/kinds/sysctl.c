/* kinds/sysctl.c: the "sysctl" kind, the profile's sysctl section: object
 * "sysctl", key "net.core.rmem_max", values decimal ("188010 250681
 * 376020" for the three of net.ipv4.udp_mem). A floor (">= 4M") is
 * planned only when the host's value is lower. Read and written through
 * procsys.h (under the sysroot); host-wide, so it manages no port. */
#include "kinds.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "base/exitcode.h"
#include "base/output.h"
#include "os/probe.h"
#include "os/procsys.h"
#include "os/sysroot.h"
#include "changes.h"
#include "profile.h"

struct sysctl_want {
	struct profile_sysctls sysctls;
};

static const struct profile_key sysctl_keys[] = {
    {.name = "sysctl",
     .type = KT_SYSCTLS,
     .offset = offsetof(struct sysctl_want, sysctls),
     .help =
	 "NAME: VALUE of the sysctls cx5prof manages: a number or a size like 4M (K, M, G: 1024-based) "
	 "sets exactly; a floor \">= 4M\" raises a lower value and leaves a larger one; net.ipv4.udp_mem is "
	 "a list of three numbers (exact only)"},
    {0},
};

extern const struct change_kind kind_sysctl;

static int sysctl_kind_read(const char *object, const char *key, char **ret, char **kmsg _unused_)
{
	struct sysctl_value v;
	enum sysctl_key k;
	int r;

	(void)object;
	r = sysctl_key_from_string(key, &k);
	if (r >= 0)
		r = sysctl_read_value(k, &v);
	return r < 0 ? r : sysctl_value_format(&v, ret);
}

static int sysctl_kind_write(const char *object, const char *key, const char *value, char **kmsg)
{
	struct sysctl_value v;
	enum sysctl_key k;
	int r;

	(void)object;
	(void)kmsg;
	r = sysctl_key_from_string(key, &k);
	if (r >= 0)
		r = sysctl_value_parse(k, value, &v);
	return r < 0 ? r : sysctl_write_value(k, &v);
}

/* A floor (one value) is met by a larger current value; exact values, all
 * of them, must be equal. */
static bool sysctl_differs(const struct profile_sysctl *w, const struct sysctl_value *cur)
{
	if (w->op == PROFILE_SYSCTL_FLOOR)
		return cur->v[0] < w->value.v[0];
	return !sysctl_value_equal(cur, &w->value);
}

static int sysctl_diff(struct plan_ctx *ctx, const struct iface_state *port)
{
	const struct profile_sysctls *want =
	    &((const struct sysctl_want *)kind_want(ctx->profile, &kind_sysctl))->sysctls;
	struct plan *p = ctx->plan;
	int r;

	(void)port;
	for (size_t i = 0; i < want->n; i++) {
		const struct profile_sysctl *w = &want->v[i];
		const struct sysctl_state *cur = &ctx->host->sysctl[w->key];
		_cleanup_free_ char *old = NULL, *new = NULL;

		if (cur->r < 0) {
			r = plan_add_problem(
			    p, cur->r == -ENOENT ? EXIT_UNSUPPORTED : EXIT_ERROR, w->name,
			    "remove it from the profile, or run in the initial network namespace",
			    "cannot be read: %s", sysroot_strerror(cur->r));
			if (r < 0)
				return r;
			continue;
		}
		if (!sysctl_differs(w, &cur->value))
			continue;
		if (sysctl_value_format(&cur->value, &old) < 0 || sysctl_value_format(&w->value, &new) < 0)
			return -ENOMEM;
		r = plan_add_change(p, "sysctl", "sysctl", w->name, old, new);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Every managed sysctl, as the host has it ("- (absent)" when it has not). */
static void sysctl_show(const struct host_state *h)
{
	out_open_object("sysctl");
	out_text("sysctl\n");
	for (unsigned k = 0; k < _SYSCTL_MAX; k++) {
		const char *name = sysctl_key_to_string((enum sysctl_key)k);
		const struct sysctl_value *v = &h->sysctl[k].value;

		if (h->sysctl[k].r < 0)
			out_string(OUT_JSON, name, NULL, NULL);
		else if (sysctl_def((enum sysctl_key)k)->n_values == 1)
			out_uint(OUT_JSON, name, NULL, v->v[0]);
		else {
			out_open_array(name);
			for (unsigned i = 0; i < v->n; i++)
				out_uint(OUT_JSON, NULL, NULL, v->v[i]);
			out_close_array();
		}
		out_text("  %-28s ", name);
		if (h->sysctl[k].r >= 0) {
			for (unsigned i = 0; i < v->n; i++)
				out_text("%s%" PRIu64, i ? " " : "", v->v[i]);
			out_text("\n");
		} else
			out_text("- (%s)\n",
				 h->sysctl[k].r == -ENOENT ? "absent" : sysroot_strerror(h->sysctl[k].r));
	}
	out_close_object();
}

/* What show writes of it (kinds.h: show_schema; `make docs` puts it into
 * schemas/state.schema.json). */
static const char sysctl_show_schema[] =
    "{"
    " \"sysctl\": {"
    "  \"type\": \"object\","
    "  \"description\": \"The managed sysctls (/proc/sys/<name with / for .> under the sysroot); null when "
    "the file is absent (e.g. netdev_max_backlog outside the initial network namespace) or unreadable.\","
    "  \"additionalProperties\": false,"
    "  \"x-cx5prof-table\": \"sysctls\""
    " }"
    "}";

const struct change_kind kind_sysctl = {
    .name = "sysctl",
    .rank = 10,
    .scope = KIND_SCOPE_HOST,
    .keys = sysctl_keys,
    .want_size = sizeof(struct sysctl_want),
    .read = sysctl_kind_read,
    .write = sysctl_kind_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .diff = sysctl_diff,
    .show_host = sysctl_show,
    .show_schema = sysctl_show_schema,
};
