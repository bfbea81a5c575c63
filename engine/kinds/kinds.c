/* kinds.c: the table of change kinds (see kinds.h) and the ops several
 * kinds share. A new kind appends its row: planning runs every port kind
 * for a port, then every host kind, each in table order. */
#include "kinds.h"

#include <errno.h>
#include <inttypes.h>

#include "base/util.h"

extern const struct change_kind kind_channels, kind_rings, kind_mtu, kind_irqbalance, kind_irq,
    kind_irqbalance_ban, kind_sysctl, kind_boot, kind_features, kind_coalesce, kind_pause;

const struct change_kind *const change_kinds[] = {
    &kind_channels, &kind_rings, &kind_mtu,	 &kind_irqbalance, &kind_irq,	&kind_irqbalance_ban,
    &kind_sysctl,   &kind_boot,	 &kind_features, &kind_coalesce,   &kind_pause,
};
const size_t n_change_kinds = ARRAY_SIZE(change_kinds);

const struct change_kind *change_kind_find(const char *name)
{
	for (size_t i = 0; name && i < n_change_kinds; i++)
		if (streq(change_kinds[i]->name, name))
			return change_kinds[i];
	return NULL;
}

bool kinds_manage_ports(const struct profile *p)
{
	for (size_t i = 0; i < n_change_kinds; i++)
		if (change_kinds[i]->manages && change_kinds[i]->manages(p))
			return true;
	return false;
}

int kind_undo_by_write(const struct change_kind *k, const char *object, const char *key,
		       const char *old_value, char **kmsg)
{
	int r = k->write(object, key, old_value, kmsg);
	return r < 0 ? r : 0;
}

int kind_verify_by_read(const struct change_kind *k, const char *object, const char *key, const char *value)
{
	_cleanup_free_ char *cur = NULL;
	int r = k->read(object, key, &cur);

	if (r < 0)
		return r;
	return streq(cur, value) ? 0 : -EIO;
}

int kind_format_u64(uint64_t v, char **ret)
{
	char *s = strprintf("%" PRIu64, v);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}
