/* kinds.c: the table of change kinds (see kinds.h) and what the table
 * does for all of them: find, probe, notify, and the ops and show helpers
 * several kinds share. A new kind appends its row. */
#include "kinds.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>

#include "base/output.h"
#include "base/util.h"
#include "os/ethnl.h"
#include "os/probe.h"
#include "os/sysroot.h"

extern const struct change_kind kind_mtu, kind_channels, kind_rings, kind_features, kind_coalesce, kind_pause,
    kind_sysctl, kind_irq, kind_irqbalance, kind_irqbalance_ban, kind_boot, kind_txqueuelen, kind_rss,
    kind_flow_hash, kind_private_flags, kind_xps, kind_cpufreq, kind_rss_hash;

/* The order of planning (kinds.h) and of `show`: the ports' kinds, then
 * the host's; irq before irqbalance-ban, which bans the IRQs irq pins, and
 * before xps, which follows them; rss after channels, whose count it
 * spreads over. */
const struct change_kind *const change_kinds[] = {
    &kind_channels, &kind_rings,      &kind_mtu,       &kind_features,	     &kind_coalesce, &kind_pause,
    &kind_sysctl,   &kind_irqbalance, &kind_irq,       &kind_irqbalance_ban, &kind_boot,     &kind_txqueuelen,
    &kind_rss,	    &kind_rss_hash,   &kind_flow_hash, &kind_private_flags,  &kind_xps,	     &kind_cpufreq,
};
const size_t n_change_kinds = ARRAY_SIZE(change_kinds);

int kind_check_ethnl_values(const void *value, char **ret_why)
{
	const struct ethnl_values *v = value;

	for (size_t i = 0; i < ETHNL_PARAMS_MAX; i++)
		if (!probe_fact_bool_ok(&v->present[i]))
			return probe_fact_bad(ret_why, "present[%zu] is not a bool", i);
	return 0;
}

int plan_ctx_publish(struct plan_ctx *ctx, const char *name, void *data, size_t n)
{
	if (plan_ctx_lookup(ctx, name, &(size_t){0}) || ctx->n_shares == PLAN_SHARES_MAX) {
		free(data);
		return ctx->n_shares == PLAN_SHARES_MAX ? -ENOSPC : -EEXIST;
	}
	ctx->shares[ctx->n_shares++] = (struct plan_share){.name = name, .data = data, .n = n};
	return 0;
}

const void *plan_ctx_lookup(const struct plan_ctx *ctx, const char *name, size_t *ret_n)
{
	for (size_t i = 0; i < ctx->n_shares; i++)
		if (streq(ctx->shares[i].name, name)) {
			*ret_n = ctx->shares[i].n;
			return ctx->shares[i].data;
		}
	*ret_n = 0;
	return NULL;
}

void plan_ctx_done(struct plan_ctx *ctx)
{
	for (size_t i = 0; i < ctx->n_shares; i++)
		free(ctx->shares[i].data);
	ctx->n_shares = 0;
}

const struct change_kind *change_kind_find(const char *name)
{
	for (size_t i = 0; name && i < n_change_kinds; i++)
		if (streq(change_kinds[i]->name, name))
			return change_kinds[i];
	return NULL;
}

size_t change_kind_index(const struct change_kind *k)
{
	size_t i;

	for (i = 0; i < n_change_kinds && change_kinds[i] != k; i++)
		;
	assert(i < n_change_kinds);
	return i;
}

bool kinds_manage_ports(const struct profile *p)
{
	for (size_t i = 0; i < n_change_kinds; i++)
		if (change_kinds[i]->manages && change_kinds[i]->manages(p))
			return true;
	return false;
}

void kinds_probe_facts(const struct probe_fact **ret)
{
	for (size_t i = 0; i < n_change_kinds; i++) {
		ret[i] = change_kinds[i]->probe;
		/* a snapshot finds it by the kind's name */
		assert(!ret[i] || streq(ret[i]->name, change_kinds[i]->name));
	}
}

void kinds_probe_request(struct probe_facts *ret, const struct probe_fact **port,
			 const struct probe_host_fact **host)
{
	size_t n = 0;

	kinds_probe_facts(port);
	for (size_t i = 0; i < n_change_kinds; i++)
		if (change_kinds[i]->host_probe)
			host[n++] = change_kinds[i]->host_probe;
	*ret = (struct probe_facts){.port = port, .n_port = n_change_kinds, .host = host, .n_host = n};
}

int kinds_probe_host(char *const *only, unsigned flags, struct host_state **ret)
{
	const struct probe_fact *port[ARRAY_SIZE(change_kinds)];
	const struct probe_host_fact *host[ARRAY_SIZE(change_kinds)];
	struct probe_facts facts;

	kinds_probe_request(&facts, port, host);
	return probe_host(only, flags, &facts, ret);
}

const struct host_fact *kind_host_fact(const struct host_state *h, const struct change_kind *k)
{
	static const struct host_fact none = {.r = -ENODATA};

	for (size_t i = 0; k->host_probe && i < h->n_facts; i++)
		if (h->facts[i].def == k->host_probe)
			return &h->facts[i];
	return &none;
}

const struct iface_fact *kind_fact(const struct iface_state *s, const struct change_kind *k)
{
	static const struct iface_fact none = {.r = -ENOENT};
	size_t i = change_kind_index(k);

	return i < s->n_facts ? &s->facts[i] : &none;
}

void kinds_irqs_recreated(void)
{
	for (size_t i = 0; i < n_change_kinds; i++)
		if (change_kinds[i]->irqs_recreated)
			change_kinds[i]->irqs_recreated();
}

int kind_undo_by_write(const struct change_kind *k, const char *object, const char *key,
		       const char *old_value, char **kmsg)
{
	int r = k->write(object, key, old_value, kmsg);
	return r < 0 ? r : 0;
}

int kind_verify_by_read(const struct change_kind *k, const char *object, const char *key, const char *value,
			char **kmsg)
{
	_cleanup_free_ char *cur = NULL;
	int r = k->read(object, key, &cur, kmsg);

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

void kind_show_status(int r)
{
	out_string(OUT_JSON, "status", NULL, r >= 0 ? "ok" : r == -EOPNOTSUPP ? "unsupported" : "failed");
	out_string(OUT_JSON, "error", NULL, r < 0 && r != -EOPNOTSUPP ? sysroot_strerror(r) : NULL);
	if (r < 0)
		out_text("%s", r == -EOPNOTSUPP ? "unsupported" : sysroot_strerror(r));
}
