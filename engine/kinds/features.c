/* kinds/features.c: the "features" kind, link.features: object "ens1f0",
 * key "features.gro" (the profile's name of the feature, ethfeatures.h),
 * values "on" | "off". Read and written one feature at a time through
 * ethtool netlink (ioctl fallback); a feature the device keeps fixed is
 * unsupported, never skipped. */
#include "kinds.h"

#include <errno.h>

#include "base/exitcode.h"
#include "os/ethfeatures.h"
#include "os/probe.h"
#include "plan.h"
#include "profile.h"

#define FEATURES_KEY_PREFIX "features."

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

static int features_read(const char *object, const char *key, char **ret)
{
	struct eth_features cur;
	enum eth_feature f;
	int r;

	r = feature_from_key(key, &f);
	if (r < 0)
		return r;
	r = ethtool_get_features(object, &cur, NULL);
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
		if (p->link.features[i].set)
			return true;
	return false;
}

static int features_diff(struct plan_ctx *ctx, const struct iface_state *s)
{
	const struct profile_bool *want = ctx->profile->link.features;
	int r;

	if (!features_manages(ctx->profile))
		return 0;
	if (s->features_r < 0)
		return plan_add_problem(ctx->plan,
					s->features_r == -EOPNOTSUPP ? EXIT_UNSUPPORTED : EXIT_ERROR, s->name,
					"remove link.features from the profile for this port",
					"link.features cannot be read: %s", strerror(-s->features_r));
	for (unsigned i = 0; i < _ETH_FEATURE_MAX; i++) {
		const struct eth_feature_state *cur = &s->features.f[i];
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

const struct change_kind kind_features = {
    .name = "features",
    .rank = 32,
    .scope = KIND_SCOPE_PORT,
    .read = features_read,
    .write = features_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .write_reads_back = true,
    .diff = features_diff,
    .manages = features_manages,
};
