/* kinds/sysctl.c: the "sysctl" kind, the profile's sysctl section: object
 * "sysctl", key "net.core.rmem_max", values decimal ("188010 250681
 * 376020" for the three of net.ipv4.udp_mem). A floor (">= 4M") is
 * planned only when the host's value is lower. Read and written through
 * procsys.h (under the sysroot); host-wide, so it manages no port. */
#include "kinds.h"

#include <errno.h>
#include <string.h>

#include "base/exitcode.h"
#include "os/probe.h"
#include "os/procsys.h"
#include "plan.h"
#include "profile.h"

static int sysctl_kind_read(const char *object, const char *key, char **ret)
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
	const struct profile *prof = ctx->profile;
	struct plan *p = ctx->plan;
	int r;

	(void)port;
	for (size_t i = 0; i < prof->n_sysctls; i++) {
		const struct profile_sysctl *w = &prof->sysctls[i];
		const struct sysctl_state *cur = &ctx->host->sysctl[w->key];
		_cleanup_free_ char *old = NULL, *new = NULL;

		if (cur->r < 0) {
			r = plan_add_problem(
			    p, cur->r == -ENOENT ? EXIT_UNSUPPORTED : EXIT_ERROR, w->name,
			    "remove it from the profile, or run in the initial network namespace",
			    "cannot be read: %s", strerror(-cur->r));
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

const struct change_kind kind_sysctl = {
    .name = "sysctl",
    .rank = 10,
    .scope = KIND_SCOPE_HOST,
    .read = sysctl_kind_read,
    .write = sysctl_kind_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .diff = sysctl_diff,
};
