/* plan.c: change kinds and the plan (see plan.h).
 *
 * Owns: the change-kind table (one row per kind with its read, write, undo
 * and verify), the diff of a profile against the probed host, and the
 * preconditions. The OS is reached only through link.h, ethtool.h,
 * sysctl.h, irq.h and irqbalance.h; the IRQ lists are the probe's. Must
 * never: write anything while planning, or drop a key the profile manages
 * (an unsupported key is a problem). */
#define _GNU_SOURCE
#include "plan.h"

#include <inttypes.h>
#include <stdarg.h>

#include "bootunit.h"
#include "cpuset.h"
#include "ethtool.h"
#include "interrupts.h"
#include "exitcode.h"
#include "irq.h"
#include "irqbalance.h"
#include "irqplan.h"
#include "link.h"
#include "log.h"
#include "nicfacts.h"
#include "output.h"
#include "probe.h"
#include "service.h"
#include "profile.h"
#include "sysctl.h"
#include "topology.h"
#include "version.h"

/* ---- values ---- */

static int format_u64(uint64_t v, char **ret)
{
	char *s = strprintf("%" PRIu64, v);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

static int parse_u32(const char *value, uint32_t *ret)
{
	return safe_atou32(value, ret);
}

/* ---- mtu ---- */

static int mtu_read(const char *object, const char *key, char **ret)
{
	struct link_info l;
	int r;

	(void)key;
	r = link_get(object, &l);
	return r < 0 ? r : format_u64(l.mtu, ret);
}

static int mtu_write(const char *object, const char *key, const char *value, char **kmsg)
{
	uint32_t mtu;
	int r;

	(void)key;
	r = parse_u32(value, &mtu);
	return r < 0 ? r : link_set_mtu(object, mtu, kmsg);
}

/* ---- channels and rings: one field of the ethtool struct per key ---- */

struct u32_field {
	const char *key;
	size_t offset;
};

static const struct u32_field channel_fields[] = {
    {"channels.combined", offsetof(struct eth_channels, combined)},
    {"channels.rx", offsetof(struct eth_channels, rx)},
    {"channels.tx", offsetof(struct eth_channels, tx)},
};

static const struct u32_field ring_fields[] = {
    {"rings.rx", offsetof(struct eth_rings, rx)},
    {"rings.tx", offsetof(struct eth_rings, tx)},
};

static uint32_t *field_ptr(void *base, const struct u32_field *f, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (streq(f[i].key, key))
			return (uint32_t *)((char *)base + f[i].offset);
	return NULL;
}

static int channels_read(const char *object, const char *key, char **ret)
{
	struct eth_channels ch;
	uint32_t *v;
	int r = ethtool_get_channels(object, &ch);

	if (r < 0)
		return r;
	v = field_ptr(&ch, channel_fields, ARRAY_SIZE(channel_fields), key);
	return v ? format_u64(*v, ret) : -EINVAL;
}

static void irq_owners_forget(void);

static int channels_write(const char *object, const char *key, const char *value, char **kmsg)
{
	struct eth_channels ch;
	uint32_t *v;
	int r;

	(void)kmsg;
	r = ethtool_get_channels(object, &ch);
	if (r < 0)
		return r;
	v = field_ptr(&ch, channel_fields, ARRAY_SIZE(channel_fields), key);
	if (!v)
		return -EINVAL;
	r = parse_u32(value, v);
	if (r < 0)
		return r;
	r = ethtool_set_channels(object, &ch);
	if (r > 0)
		irq_owners_forget(); /* the driver re-created the IRQs */
	return r;
}

static int rings_read(const char *object, const char *key, char **ret)
{
	struct eth_rings rg;
	uint32_t *v;
	int r = ethtool_get_rings(object, &rg);

	if (r < 0)
		return r;
	v = field_ptr(&rg, ring_fields, ARRAY_SIZE(ring_fields), key);
	return v ? format_u64(*v, ret) : -EINVAL;
}

static int rings_write(const char *object, const char *key, const char *value, char **kmsg)
{
	struct eth_rings rg;
	uint32_t *v;
	int r;

	(void)kmsg;
	r = ethtool_get_rings(object, &rg);
	if (r < 0)
		return r;
	v = field_ptr(&rg, ring_fields, ARRAY_SIZE(ring_fields), key);
	if (!v)
		return -EINVAL;
	r = parse_u32(value, v);
	return r < 0 ? r : ethtool_set_rings(object, &rg);
}

/* ---- sysctl ---- */

static int sysctl_kind_read(const char *object, const char *key, char **ret)
{
	uint64_t v;
	int r;

	(void)object;
	r = sysctl_read_name(key, &v);
	return r < 0 ? r : format_u64(v, ret);
}

static int sysctl_kind_write(const char *object, const char *key, const char *value, char **kmsg)
{
	uint64_t v;
	int r;

	(void)object;
	(void)kmsg;
	r = safe_atou64(value, &v);
	return r < 0 ? r : sysctl_write_name(key, v);
}

/* ---- irq affinity ---- */

#define IRQ_KEY_PREFIX "smp_affinity_list "

static int irq_from_key(const char *key, unsigned *ret)
{
	uint32_t irq;

	if (strncmp(key, IRQ_KEY_PREFIX, strlen(IRQ_KEY_PREFIX)) != 0)
		return -EINVAL;
	if (safe_atou32(key + strlen(IRQ_KEY_PREFIX), &irq) < 0)
		return -EINVAL;
	*ret = irq;
	return 0;
}

/* "irq ens1f0 q3" -> "ens1f0", 3. */
static int irq_object_parse(const char *object, char *ifname, size_t size, unsigned *ret_queue)
{
	const char *sp, *q;
	uint32_t queue;

	if (strncmp(object, "irq ", 4) != 0)
		return -EINVAL;
	sp = object + 4;
	q = strrchr(sp, ' ');
	if (!q || q[1] != 'q' || (size_t)(q - sp) >= size || safe_atou32(q + 2, &queue) < 0)
		return -EINVAL;
	memcpy(ifname, sp, (size_t)(q - sp));
	ifname[q - sp] = '\0';
	*ret_queue = queue;
	return 0;
}

/* The undo log keys an IRQ change by number, but numbers are handed out
 * at boot and driver load: rediscover the interface's queue and check it
 * is still that IRQ before touching it, so a rollback after a reboot never
 * writes an old CPU list onto whatever device owns the number now.
 * -ESTALE (with *ret_why when asked) when it moved or vanished. */
/* The ports' IRQ lists, discovered once per process and kept for every
 * IRQ step: which IRQ serves which queue cannot change within one run
 * except by a channel change (channels_write drops the cache; a plan never
 * changes channels and the IRQ map together), and re-reading
 * /proc/interrupts per step made an 8-port apply quadratic. */
#define IRQ_OWNERS_MAX 64

static struct irq_owner {
	char ifname[64];
	int r; /* irq_discover's result */
	struct irq_list *l;
} irq_owners[IRQ_OWNERS_MAX];
static size_t n_irq_owners;
static struct interrupts *irq_owners_table;

static void irq_owners_forget(void)
{
	for (size_t i = 0; i < n_irq_owners; i++)
		irq_list_free(irq_owners[i].l);
	n_irq_owners = 0;
	interrupts_free(irq_owners_table);
	irq_owners_table = NULL;
}

static int irq_owner_lookup(const char *ifname, const struct irq_list **ret)
{
	struct irq_owner *o;
	int r;

	for (size_t i = 0; i < n_irq_owners; i++)
		if (streq(irq_owners[i].ifname, ifname)) {
			*ret = irq_owners[i].l;
			return irq_owners[i].r;
		}
	if (!irq_owners_table) {
		r = interrupts_read(INTERRUPTS_NO_COUNTS, &irq_owners_table, NULL);
		if (r < 0)
			return r;
	}
	if (n_irq_owners == IRQ_OWNERS_MAX)
		irq_owners_forget(); /* more ports than slots: start over, still correct */
	o = &irq_owners[n_irq_owners];
	snprintf(o->ifname, sizeof(o->ifname), "%s", ifname);
	o->l = NULL;
	o->r = irq_discover(ifname, irq_owners_table, 0, &o->l);
	if (o->r < 0 && o->r != -ENODEV)
		return o->r; /* not cached: a transient failure is retried */
	n_irq_owners++;
	*ret = o->l;
	return o->r;
}

static int irq_still_owned(const char *object, unsigned irq, char **ret_why)
{
	const struct irq_list *l = NULL;
	const struct irq_vector *v;
	char ifname[64];
	unsigned queue;
	char *why;
	int r;

	r = irq_object_parse(object, ifname, sizeof(ifname), &queue);
	if (r < 0)
		return r;
	r = irq_owner_lookup(ifname, &l);
	if (r < 0 && r != -ENODEV)
		return r;
	v = r < 0 ? NULL : irq_list_by_queue(l, queue);
	if (v && v->irq == irq)
		return 0;
	if (r == -ENODEV)
		why = strprintf("%s no longer exists (IRQ %u was its queue %u): nothing written", ifname, irq,
				queue);
	else if (!v)
		why = strprintf("%s has no queue %u any more (it was IRQ %u): the IRQs changed (reboot, "
				"driver reload or channel change) since the transaction; nothing written",
				ifname, queue, irq);
	else
		why = strprintf("%s queue %u is now IRQ %u, not %u: the IRQ numbers changed (reboot or "
				"driver reload) since the transaction; nothing written",
				ifname, queue, v->irq, irq);
	if (!why)
		return -ENOMEM;
	if (ret_why)
		*ret_why = why;
	else
		free(why);
	return -ESTALE;
}

static int irq_kind_read(const char *object, const char *key, char **ret)
{
	_cleanup_cpuset_ struct cpuset s = CPUSET_INIT;
	unsigned irq;
	int r;

	r = irq_from_key(key, &irq);
	if (r < 0)
		return r;
	r = irq_still_owned(object, irq, NULL);
	if (r < 0)
		return r;
	r = irq_read_affinity(irq, &s);
	return r < 0 ? r : cpuset_format_list(&s, ret);
}

static int irq_kind_write(const char *object, const char *key, const char *value, char **kmsg)
{
	_cleanup_cpuset_ struct cpuset s = CPUSET_INIT;
	unsigned irq;
	int r;

	r = irq_from_key(key, &irq);
	if (r < 0)
		return r;
	r = cpuset_parse_list(value, &s);
	if (r < 0)
		return r;
	r = irq_still_owned(object, irq, kmsg);
	if (r < 0)
		return r;
	r = irq_write_affinity(irq, &s);
	return r == IRQ_AFFINITY_MISMATCH ? -EIO : r;
}

/* ---- irqbalance service (irq.irqbalance: stop) ----
 * Values: "stopped", or the service state to restore, "active=A,enabled=E"
 * (1 yes, 0 no), which becomes irqbalance.h's undo record. */

#define IRQBALANCE_STOPPED "stopped"

static int irqbalance_kind_read(const char *object, const char *key, char **ret)
{
	struct irqbalance_state st;
	int r;

	(void)object;
	(void)key;
	r = irqbalance_detect(&st);
	if (r < 0)
		return r;
	if (st.active < 0 || st.enabled < 0)
		r = -EOPNOTSUPP;
	else if (st.active == 0 && st.enabled == 0 && !st.running)
		*ret = strdup(IRQBALANCE_STOPPED);
	else
		*ret = strprintf("active=%d,enabled=%d", st.active, st.enabled);
	irqbalance_state_done(&st);
	if (r < 0)
		return r;
	return *ret ? 0 : -ENOMEM;
}

static int irqbalance_kind_write(const char *object, const char *key, const char *value, char **kmsg)
{
	_cleanup_free_ char *undo = NULL;
	int active, enabled;

	(void)object;
	(void)key;
	if (streq(value, IRQBALANCE_STOPPED))
		return irqbalance_stop(&undo, kmsg);
	if (sscanf(value, "active=%d,enabled=%d", &active, &enabled) != 2)
		return -EINVAL;
	undo = strprintf("{\"action\":\"stop\",\"active\":%d,\"enabled\":%d}", active, enabled);
	if (!undo)
		return -ENOMEM;
	return irqbalance_restore(undo);
}

/* ---- irqbalance ban (irq.irqbalance: ban) ----
 * Object "irqbalance", key "banirq". New value: the IRQs to ban, a list
 * ("99,109-123"). Old value: irqbalance.h's undo record of the config file
 * (its path, content or absence, and mode: a JSON object), so the undo log
 * alone restores the file byte for byte; the plan line shows instead which
 * of the IRQs were banned already (ban_before_human). */

#define IRQBALANCE_BAN_KEY "banirq"
#define IRQ_LIST_NONE	   "-"

/* Sort and deduplicate in place; the new count. */
static size_t irq_numbers_normalize(unsigned *v, size_t n)
{
	size_t k = 0;

	if (n < 2)
		return n; /* and no qsort(NULL, 0): its pointer must not be NULL */
	qsort(v, n, sizeof(*v), cmp_unsigned);
	for (size_t i = 0; i < n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

/* "99,109-123" (v sorted, unique); "-" when empty. */
static int irq_numbers_format(const unsigned *v, size_t n, char **ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (n == 0) {
		*ret = strdup(IRQ_LIST_NONE);
		return *ret ? 0 : -ENOMEM;
	}
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		if (j == i)
			fprintf(f, "%s%u", i ? "," : "", v[i]);
		else
			fprintf(f, "%s%u-%u", i ? "," : "", v[i], v[j]);
		i = j + 1;
	}
	if (fclose(f) != 0 || !buf) {
		free(buf);
		return -ENOMEM;
	}
	*ret = buf;
	return 0;
}

/* The list irq_numbers_format writes, back to sorted numbers. */
static int irq_numbers_parse(const char *s, unsigned **ret, size_t *ret_n)
{
	_cleanup_free_ char *copy = strdup(streq(s, IRQ_LIST_NONE) ? "" : s);
	_cleanup_free_ unsigned *v = NULL;
	char *save = NULL;
	size_t n = 0;

	if (!copy)
		return -ENOMEM;
	for (char *q = strtok_r(copy, ",", &save); q; q = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(q, '-');
		uint32_t lo, hi;
		unsigned *t;

		if (dash)
			*dash = '\0';
		if (safe_atou32(q, &lo) < 0 || safe_atou32(dash ? dash + 1 : q, &hi) < 0 || hi < lo ||
		    hi - lo >= 65536)
			return -EINVAL;
		t = realloc(v, (n + (hi - lo) + 1) * sizeof(*v));
		if (!t)
			return -ENOMEM;
		v = t;
		for (uint32_t i = 0; i <= hi - lo; i++)
			v[n++] = lo + i;
	}
	*ret_n = irq_numbers_normalize(v, n);
	*ret = TAKE_PTR(v);
	return 0;
}

static bool is_undo_record(const char *value)
{
	return value[0] == '{';
}

/* Of the IRQs in want (sorted), those banned in the config as `undo`
 * describes it (NULL: as it is now), formatted; "-" when none. */
static int ban_intersection(const char *undo, const unsigned *want, size_t nwant, char **ret)
{
	_cleanup_free_ unsigned *have = NULL, *both = NULL;
	size_t nhave = 0, nboth = 0;
	int r;

	r = irqbalance_ban_list(undo, &have, &nhave);
	if (r < 0)
		return r;
	nhave = irq_numbers_normalize(have, nhave);
	both = calloc(nwant ? nwant : 1, sizeof(*both));
	if (!both)
		return -ENOMEM;
	for (size_t i = 0; nhave > 0 && i < nwant; i++)
		if (bsearch(&want[i], have, nhave, sizeof(*have), cmp_unsigned))
			both[nboth++] = want[i];
	return irq_numbers_format(both, nboth, ret);
}

static int irqban_read(const char *object, const char *key, char **ret)
{
	(void)object;
	(void)key;
	return irqbalance_ban_snapshot(ret);
}

static int irqban_write(const char *object, const char *key, const char *value, char **kmsg)
{
	_cleanup_free_ unsigned *irqs = NULL;
	_cleanup_free_ char *undo = NULL;
	size_t n = 0;
	int r;

	(void)object;
	(void)key;
	(void)kmsg;
	r = irq_numbers_parse(value, &irqs, &n);
	return r < 0 ? r : irqbalance_ban(irqs, n, &undo);
}

/* The old value is an undo record (apply, rollback); a list only when a
 * rollback is itself rolled back. */
static int irqban_undo(const struct change_kind *k, const char *object, const char *key,
		       const char *old_value, char **kmsg)
{
	int r;

	if (is_undo_record(old_value)) {
		r = irqbalance_restore(old_value);
		if (r == -ESTALE) {
			_cleanup_free_ char *path = irqbalance_ban_record_path(old_value);
			*kmsg = strprintf("%s changed since the ban was written (edited, removed or "
					  "replaced by a symlink): nothing written; remove the --banirq "
					  "options by hand",
					  strna(path));
		}
		return r;
	}
	r = k->write(object, key, old_value, kmsg);
	return r < 0 ? r : 0;
}

static int irqban_verify(const struct change_kind *k, const char *object, const char *key, const char *value)
{
	_cleanup_free_ unsigned *want = NULL;
	_cleanup_free_ char *banned = NULL, *all = NULL;
	size_t n = 0;
	int r;

	(void)k;
	(void)object;
	(void)key;
	if (is_undo_record(value)) {
		r = irqbalance_ban_matches(value);
		return r < 0 ? r : r ? 0 : -EIO;
	}
	r = irq_numbers_parse(value, &want, &n);
	if (r < 0)
		return r;
	if ((r = ban_intersection(NULL, want, n, &banned)) < 0 || (r = irq_numbers_format(want, n, &all)) < 0)
		return r;
	return streq(banned, all) ? 0 : -EIO;
}

/* ---- boot-time unit (bootunit.h) ---- */

static int boot_read(const char *object, const char *key, char **ret)
{
	(void)key;
	return bootunit_read(object, ret, NULL);
}

static int boot_write(const char *object, const char *key, const char *value, char **kmsg)
{
	(void)key;
	(void)kmsg;
	return bootunit_write(object, value);
}

/* ---- generic undo and verify ---- */

static int undo_by_write(const struct change_kind *k, const char *object, const char *key,
			 const char *old_value, char **kmsg)
{
	int r = k->write(object, key, old_value, kmsg);
	return r < 0 ? r : 0;
}

static int verify_by_read(const struct change_kind *k, const char *object, const char *key, const char *value)
{
	_cleanup_free_ char *cur = NULL;
	int r = k->read(object, key, &cur);

	if (r < 0)
		return r;
	return streq(cur, value) ? 0 : -EIO;
}

/* ---- the table ---- */

static const struct change_kind change_kinds[] = {
    {.name = "sysctl",
     .rank = 10,
     .read = sysctl_kind_read,
     .write = sysctl_kind_write,
     .undo = undo_by_write,
     .verify = verify_by_read},
    {.name = "irqbalance",
     .rank = 15,
     .persists = true,
     .order_note = "before IRQ affinity: irqbalance would move the pins again",
     .read = irqbalance_kind_read,
     .write = irqbalance_kind_write,
     .undo = undo_by_write,
     .verify = verify_by_read},
    {.name = "irqbalance-ban",
     .rank = 16,
     .persists = true,
     .order_note = "before IRQ affinity: irqbalance would move the pins again",
     .read = irqban_read,
     .write = irqban_write,
     .undo = irqban_undo,
     .verify = irqban_verify},
    {.name = "channels",
     .rank = 20,
     .resets_link = true,
     .order_note = "before IRQ affinity: changing channels re-creates the IRQs; briefly resets the link",
     .read = channels_read,
     .write = channels_write,
     .undo = undo_by_write,
     .verify = verify_by_read},
    {.name = "rings",
     .rank = 30,
     .resets_link = true,
     .order_note = "briefly resets the link",
     .read = rings_read,
     .write = rings_write,
     .undo = undo_by_write,
     .verify = verify_by_read},
    {.name = "mtu",
     .rank = 40,
     .read = mtu_read,
     .write = mtu_write,
     .undo = undo_by_write,
     .verify = verify_by_read},
    {.name = "irq",
     .rank = 50,
     .read = irq_kind_read,
     .write = irq_kind_write,
     .undo = undo_by_write,
     .verify = verify_by_read,
     .write_reads_back = true},
    {.name = "boot",
     .rank = 90,
     .persists = true,
     .order_note = "last: re-applied at boot only once all of it has landed",
     .read = boot_read,
     .write = boot_write,
     .undo = undo_by_write,
     .verify = verify_by_read},
};

const struct change_kind *change_kind_find(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(change_kinds); i++)
		if (streq(change_kinds[i].name, name))
			return &change_kinds[i];
	return NULL;
}

/* ---- plan container ---- */

static void plan_change_done(struct plan_change *c)
{
	free(c->object);
	free(c->key);
	free(c->old_value);
	free(c->new_value);
	free(c->note);
}

void plan_free(struct plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_changes; i++)
		plan_change_done(&p->changes[i]);
	free(p->changes);
	for (size_t i = 0; i < p->n_problems; i++) {
		free(p->problems[i].object);
		free(p->problems[i].message);
		free(p->problems[i].remedy);
	}
	free(p->problems);
	strv_free(p->warnings);
	free(p->boot_unit);
	strv_free(p->interfaces);
	free(p);
}

int plan_add_change(struct plan *p, const char *kind, const char *object, const char *key,
		    const char *old_value, const char *new_value)
{
	const struct change_kind *k = change_kind_find(kind);
	struct plan_change *v, c = {.kind = k};

	if (!k)
		return -EINVAL;
	/* grow by doubling: an IRQ plan adds hundreds of changes */
	if ((p->n_changes & (p->n_changes - 1)) == 0) {
		v = realloc(p->changes, (p->n_changes ? 2 * p->n_changes : 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->changes = v;
	}
	c.object = strdup(object);
	c.key = strdup(key);
	c.old_value = strdup(old_value);
	c.new_value = strdup(new_value);
	if (!c.object || !c.key || !c.old_value || !c.new_value) {
		plan_change_done(&c);
		return -ENOMEM;
	}
	p->changes[p->n_changes++] = c;
	return 0;
}

static int plan_problem(struct plan *p, int exit_code, const char *object, const char *remedy,
			const char *fmt, ...) _printf_(5, 6);
static int plan_problem(struct plan *p, int exit_code, const char *object, const char *remedy,
			const char *fmt, ...)
{
	struct plan_problem *v, q = {.exit_code = exit_code};
	va_list ap;

	v = realloc(p->problems, (p->n_problems + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->problems = v;
	va_start(ap, fmt);
	q.message = vstrprintf(fmt, ap);
	va_end(ap);
	q.object = strdup(object);
	q.remedy = strdup(remedy);
	if (!q.message || !q.object || !q.remedy) {
		free(q.message);
		free(q.object);
		free(q.remedy);
		return -ENOMEM;
	}
	p->problems[p->n_problems++] = q;
	return 0;
}

int plan_problems_exit_code(const struct plan *p)
{
	static const int precedence[] = {EXIT_NOT_FOUND, EXIT_UNSUPPORTED, EXIT_PRECONDITION, EXIT_INVALID};

	if (p->n_problems == 0)
		return EXIT_OK;
	for (size_t k = 0; k < ARRAY_SIZE(precedence); k++)
		for (size_t i = 0; i < p->n_problems; i++)
			if (p->problems[i].exit_code == precedence[k])
				return precedence[k];
	return p->problems[0].exit_code;
}

static int change_rank_cmp(const void *a, const void *b)
{
	const struct plan_change *x = a, *y = b;
	return x->kind->rank - y->kind->rank;
}

void plan_order(struct plan *p)
{
	/* qsort is not stable: sort (rank, original index) by insertion. */
	for (size_t i = 1; i < p->n_changes; i++)
		for (size_t j = i; j > 0 && change_rank_cmp(&p->changes[j - 1], &p->changes[j]) > 0; j--) {
			struct plan_change t = p->changes[j];
			p->changes[j] = p->changes[j - 1];
			p->changes[j - 1] = t;
		}
	for (size_t i = 0; i < p->n_changes; i++)
		if (!p->changes[i].note && p->changes[i].kind->order_note)
			p->changes[i].note = strdup(p->changes[i].kind->order_note);
}

/* ---- preconditions ---- */

static int check_version(struct plan *p, const char *ifname, const char *what, const char *have,
			 const struct profile_string *min, const char *remedy)
{
	int cmp, r;

	if (!min->set)
		return 0;
	if (!have)
		return plan_problem(p, EXIT_PRECONDITION, ifname, remedy,
				    "%s version unknown, the profile requires at least %s", what, min->value);
	r = version_compare(have, min->value, &cmp);
	if (r < 0)
		return plan_problem(p, EXIT_PRECONDITION, ifname, remedy,
				    "%s version \"%s\" cannot be compared with %s", what, have, min->value);
	if (cmp < 0)
		return plan_problem(p, EXIT_PRECONDITION, ifname, remedy,
				    "%s version %s is older than the required %s", what, have, min->value);
	return 0;
}

static int check_driver(struct plan *p, const struct profile *prof, const struct iface_state *s)
{
	const char *driver = nicfacts_driver(s);
	_cleanup_free_ char *version = NULL;
	int r;

	if (prof->requires.driver_name.set && !streq_ptr(driver, prof->requires.driver_name.value)) {
		r = plan_problem(
		    p, EXIT_PRECONDITION, s->name, "use a port driven by it, or change requires.driver.name",
		    "driver is %s, the profile requires %s", strna(driver), prof->requires.driver_name.value);
		if (r < 0)
			return r;
	}
	(void)nicfacts_driver_version(s, &version);
	r = check_version(p, s->name, "driver", version, &prof->requires.driver_min_version,
			  "install a newer driver (MLNX_OFED or a newer kernel)");
	if (r < 0)
		return r;
	return check_version(p, s->name, "firmware", nicfacts_firmware(s),
			     &prof->requires.firmware_min_version,
			     "update the NIC firmware (mlxup or mstflint)");
}

static int check_link(struct plan *p, const struct profile *prof, const struct iface_state *s)
{
	_cleanup_free_ char *duplex = NULL;
	uint64_t speed = 0;
	const char *want_duplex;
	int r;

	if (!prof->requires.link_speed.set && !prof->requires.link_duplex.set)
		return 0;
	r = nicfacts_link(s, &speed, &duplex);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return plan_problem(p, EXIT_PRECONDITION, s->name,
				    "check the cable and the switch port (ethtool IFACE)",
				    "link speed and duplex unknown (no link?)");
	if (prof->requires.link_speed.set && speed != prof->requires.link_speed.value) {
		r = plan_problem(p, EXIT_PRECONDITION, s->name,
				 "check the cable, the transceiver and the switch port",
				 "link speed is %" PRIu64 " Mb/s, the profile requires %" PRIu64, speed,
				 prof->requires.link_speed.value);
		if (r < 0)
			return r;
	}
	want_duplex = prof->requires.link_duplex.set
			  ? profile_duplex_to_string(prof->requires.link_duplex.value)
			  : NULL;
	if (want_duplex && !streq(duplex, want_duplex))
		return plan_problem(p, EXIT_PRECONDITION, s->name, "check autonegotiation on both ends",
				    "link is %s duplex, the profile requires %s", duplex, want_duplex);
	return 0;
}

/* ---- link-level diffs ---- */

static int diff_mtu(struct plan *p, const struct profile *prof, const struct iface_state *s)
{
	uint64_t want = prof->link.mtu.value;
	_cleanup_free_ char *old = NULL, *new = NULL;
	int r;

	if (!prof->link.mtu.set)
		return 0;
	if (s->link.has_mtu_range && (want < s->link.min_mtu || want > s->link.max_mtu))
		return plan_problem(p, EXIT_PRECONDITION, s->name, "choose an MTU within the device's range",
				    "MTU %" PRIu64 " is outside the device's range %u..%u", want,
				    s->link.min_mtu, s->link.max_mtu);
	if (want == s->link.mtu)
		return 0;
	if (format_u64(s->link.mtu, &old) < 0 || format_u64(want, &new) < 0)
		return -ENOMEM;
	r = plan_add_change(p, "mtu", s->name, "mtu", old, new);
	return r;
}

struct wanted_u32 {
	const char *key;
	const struct profile_uint *want;
	uint32_t cur;
	uint32_t max;
};

static int diff_u32_group(struct plan *p, const char *kind, const char *ifname, int read_r,
			  const struct wanted_u32 *w, size_t n)
{
	bool any = false;
	int r;

	for (size_t i = 0; i < n; i++)
		any = any || w[i].want->set;
	if (!any)
		return 0;
	if (read_r == -EOPNOTSUPP)
		return plan_problem(p, EXIT_UNSUPPORTED, ifname,
				    "remove the key from the profile for this port",
				    "%s: not supported by the driver", kind);
	if (read_r < 0)
		return plan_problem(p, EXIT_ERROR, ifname, "check the interface", "%s cannot be read: %s",
				    kind, strerror(-read_r));
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *old = NULL, *new = NULL;
		uint64_t want = w[i].want->value;

		if (!w[i].want->set)
			continue;
		if (w[i].max == 0 && want > 0) {
			r = plan_problem(p, EXIT_UNSUPPORTED, ifname,
					 "remove the key from the profile for this port",
					 "%s: the device has no such setting", w[i].key);
		} else if (want > w[i].max) {
			r = plan_problem(p, EXIT_PRECONDITION, ifname, "lower the value in the profile",
					 "%s %" PRIu64 " exceeds the device maximum %u", w[i].key, want,
					 w[i].max);
		} else if (want == w[i].cur) {
			r = 0;
		} else if (format_u64(w[i].cur, &old) < 0 || format_u64(want, &new) < 0) {
			r = -ENOMEM;
		} else {
			r = plan_add_change(p, kind, ifname, w[i].key, old, new);
		}
		if (r < 0)
			return r;
	}
	return 0;
}

static int diff_channels_rings(struct plan *p, const struct profile *prof, const struct iface_state *s)
{
	const struct eth_channels *c = &s->channels;
	const struct eth_rings *g = &s->rings;
	const struct wanted_u32 ch[] = {
	    {"channels.combined", &prof->link.channels_combined, c->combined, c->max_combined},
	    {"channels.rx", &prof->link.channels_rx, c->rx, c->max_rx},
	    {"channels.tx", &prof->link.channels_tx, c->tx, c->max_tx},
	};
	const struct wanted_u32 rg[] = {
	    {"rings.rx", &prof->link.rings_rx, g->rx, g->max_rx},
	    {"rings.tx", &prof->link.rings_tx, g->tx, g->max_tx},
	};
	int r;

	r = diff_u32_group(p, "channels", s->name, s->channels_r, ch, ARRAY_SIZE(ch));
	if (r < 0)
		return r;
	return diff_u32_group(p, "rings", s->name, s->rings_r, rg, ARRAY_SIZE(rg));
}

static bool profile_manages_link(const struct profile *prof)
{
	return prof->link.mtu.set || prof->link.channels_combined.set || prof->link.channels_rx.set ||
	       prof->link.channels_tx.set || prof->link.rings_rx.set || prof->link.rings_tx.set ||
	       prof->irq.policy.set || prof->irq.irqbalance.set || prof->requires.driver_name.set ||
	       prof->requires.driver_min_version.set || prof->requires.firmware_min_version.set ||
	       prof->requires.link_speed.set || prof->requires.link_duplex.set;
}

static int plan_port(struct plan *p, const struct profile *prof, const struct iface_state *s)
{
	int r;

	if (!s->present)
		return plan_problem(p, EXIT_NOT_FOUND, s->name,
				    "check the interface name, or run in the namespace that has it",
				    "no such interface in the kernel");
	if ((r = check_driver(p, prof, s)) < 0 || (r = check_link(p, prof, s)) < 0 ||
	    (r = diff_channels_rings(p, prof, s)) < 0)
		return r;
	return diff_mtu(p, prof, s);
}

/* ---- which ports ---- */

static void iface_pci_id(const struct iface_state *s, uint16_t *vendor, uint16_t *device)
{
	*vendor = s->has_nic && s->nic.has_pci_id ? s->nic.vendor : 0;
	*device = s->has_nic && s->nic.has_pci_id ? s->nic.device : 0;
}

static int select_ports(struct plan *p, const struct profile *prof, const struct host_state *host)
{
	int r;

	for (size_t i = 0; i < host->n_ifaces; i++) {
		const struct iface_state *s = &host->ifaces[i];
		uint16_t vendor, device;

		if (s->present && s->link.loopback)
			continue;
		iface_pci_id(s, &vendor, &device);
		if (profile_match(prof, s->name, vendor, device) &&
		    (r = strv_extend(&p->interfaces, s->name)) < 0)
			return r;
	}
	for (char **n = prof->match.interfaces.set ? prof->match.interfaces.value : NULL; n && *n; n++)
		if (!host_state_iface(host, *n) &&
		    (r = plan_problem(p, EXIT_NOT_FOUND, *n, "check the interface name in match.interfaces",
				      "no such interface")) < 0)
			return r;
	if (!p->interfaces && profile_manages_link(prof) && p->n_problems == 0)
		return plan_problem(p, EXIT_NOT_FOUND, "profile", "check match.interfaces and match.pci",
				    "no interface on this host matches the profile");
	return 0;
}

/* ---- IRQ affinity ---- */

static int irq_options(const struct profile *prof, struct irqplan_options *o)
{
	int r;

	o->policy = prof->irq.policy.value == PROFILE_IRQ_CPULIST ? IRQPLAN_CPULIST : IRQPLAN_NUMA_LOCAL;
	if (prof->irq.cpulist.set && (r = cpuset_parse_list(prof->irq.cpulist.value, &o->cpulist)) < 0)
		return r;
	if (prof->irq.exclude_cpus.set) {
		o->has_exclude = true;
		r = cpuset_parse_list(prof->irq.exclude_cpus.value, &o->exclude);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The ports' IRQ lists are the probe's (host_state owns them: one
 * /proc/interrupts snapshot for the whole plan); only the CPU sets are ours. */
struct irq_ports {
	struct irqplan_port *ports;
	size_t n;
};

static void irq_ports_done(struct irq_ports *ip)
{
	for (size_t i = 0; i < ip->n; i++)
		cpuset_done(&ip->ports[i].local_cpus);
	free(ip->ports);
}

/* Every matched port takes part in the IRQ plan: one without device IRQs
 * (a veth, or no PCI function in the sysroot) is a problem of its own,
 * never skipped, else irq.policy would look applied where nothing was. */
static int irq_ports_collect(struct plan *p, const struct host_state *host, char **names,
			     struct irq_ports *ip)
{
	size_t n = strv_length(names);
	int r;

	ip->ports = calloc(n ? n : 1, sizeof(*ip->ports));
	if (!ip->ports)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct iface_state *s = host_state_iface(host, names[i]);
		struct irqplan_port *port = &ip->ports[ip->n];

		if (!s || !s->has_nic || s->irqs_r == -ENODEV ||
		    (s->irqs_r >= 0 && s->irqs && !s->irqs->pci_bdf)) {
			r = plan_problem(p, EXIT_UNSUPPORTED, names[i],
					 "remove irq.policy, or match only ports with a PCI function "
					 "(on a test host: a --sysroot that has it)",
					 "no device IRQs (no PCI function in the sysroot)");
			if (r < 0)
				return r;
			continue;
		}
		if (s->irqs_r < 0)
			return s->irqs_r;
		if (!s->irqs)
			return -ENODATA;
		if (irq_list_count(s->irqs, IRQ_KIND_COMPLETION) == 0) {
			r = plan_problem(p, EXIT_UNSUPPORTED, names[i],
					 "check /proc/interrupts and the driver (mlx5_core)",
					 "no completion IRQs in /proc/interrupts");
			if (r < 0)
				return r;
			continue;
		}
		port->ifname = s->name;
		port->numa_node = s->nic.numa_node;
		port->irqs = s->irqs;
		ip->n++;
		if (s->nic.local_cpulist &&
		    (r = cpuset_parse_list(s->nic.local_cpulist, &port->local_cpus)) < 0)
			return r;
	}
	return 0;
}

static int irq_add_entry(struct plan *p, const struct irqplan_entry *e, const struct irq_ports *ip)
{
	/* fixed buffers: this runs once per queue (504 on a big host) */
	char object[64], key[sizeof(IRQ_KEY_PREFIX) + 16], after[16];
	_cleanup_free_ char *before = NULL;

	if (!e->changed)
		return 0;
	snprintf(object, sizeof(object), "irq %s q%u", ip->ports[e->port].ifname, e->queue);
	snprintf(key, sizeof(key), IRQ_KEY_PREFIX "%u", e->irq);
	snprintf(after, sizeof(after), "%d", e->cpu);
	if (cpuset_format_list(&e->before, &before) < 0)
		return -ENOMEM;
	return plan_add_change(p, "irq", object, key, before, after);
}

/* The completion IRQs the plan pins (changed or already in place): what
 * irq.irqbalance: ban keeps irqbalance off. */
struct pinned_irqs {
	unsigned *v;
	size_t n;
};

static void pinned_irqs_done(struct pinned_irqs *x)
{
	free(x->v);
}

static int plan_irqs(struct plan *p, const struct profile *prof, const struct host_state *host,
		     struct pinned_irqs *ret_pinned)
{
	_cleanup_(irqplan_options_done) struct irqplan_options o = {0};
	_cleanup_(irq_ports_done) struct irq_ports ip = {0};
	_cleanup_topology_ struct topology *topo = NULL;
	_cleanup_irqplan_ struct irqplan *ipl = NULL;
	size_t problems = p->n_problems;
	int r;

	if (!prof->irq.policy.set || !p->interfaces)
		return 0;
	/* The IRQ map comes from the probe, taken before the channels change;
	 * a channel change re-creates the IRQs (new numbers, new count), so
	 * the map would pin IRQs that are gone, or someone else's. */
	for (size_t i = 0; i < p->n_changes; i++) {
		const struct plan_change *c = &p->changes[i];
		bool seen = false;

		if (!streq(c->kind->name, "channels"))
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = streq(p->changes[j].kind->name, "channels") &&
			       streq(p->changes[j].object, c->object);
		if (seen)
			continue;
		r = plan_problem(p, EXIT_UNSUPPORTED, c->object,
				 "apply channels first, then the IRQ map: two profiles or two runs",
				 "channels and irq.policy in one run: changing channels re-creates the IRQs, "
				 "the IRQ map would be planned from the IRQs before the change");
		if (r < 0)
			return r;
	}
	if (p->n_problems > problems)
		return 0;
	r = irq_options(prof, &o);
	if (r < 0)
		return plan_problem(p, EXIT_INVALID, "irq", "fix irq.cpulist / irq.exclude_cpus",
				    "bad CPU list");
	r = irq_ports_collect(p, host, p->interfaces, &ip);
	if (r < 0)
		return plan_problem(p, EXIT_ERROR, "irq", "check /proc/interrupts and the sysroot",
				    "cannot discover the IRQs: %s", strerror(-r));
	if (p->n_problems > problems)
		return 0;
	r = topology_read(&topo);
	if (r < 0)
		return plan_problem(p, EXIT_ERROR, "irq", "check /sys/devices/system/cpu and node",
				    "cannot read the CPU topology: %s", strerror(-r));
	r = irqplan_build(ip.ports, ip.n, topo, &o, &ipl);
	if (r == -ENOSPC)
		return plan_problem(p, EXIT_PRECONDITION, "irq", "exclude fewer CPUs",
				    "irq.exclude_cpus leaves no CPU for the IRQs");
	if (r < 0)
		return plan_problem(p, EXIT_INVALID, "irq", "check the irq section",
				    "cannot plan IRQ affinity: %s", strerror(-r));
	ret_pinned->v = calloc(ipl->n ? ipl->n : 1, sizeof(*ret_pinned->v));
	if (!ret_pinned->v)
		return -ENOMEM;
	for (size_t i = 0; i < ipl->n; i++) {
		ret_pinned->v[ret_pinned->n++] = ipl->e[i].irq;
		if ((r = irq_add_entry(p, &ipl->e[i], &ip)) < 0)
			return r;
	}
	ret_pinned->n = irq_numbers_normalize(ret_pinned->v, ret_pinned->n);
	for (char **n = ipl->notes; n && *n; n++)
		if ((r = strv_extend(&p->warnings, *n)) < 0)
			return r;
	return 0;
}

static int plan_irqbalance_stop(struct plan *p)
{
	_cleanup_free_ char *cur = NULL;
	int r = irqbalance_kind_read("irqbalance", "service", &cur);

	if (r == -EOPNOTSUPP)
		return plan_problem(p, EXIT_UNSUPPORTED, "irqbalance",
				    "stop it by hand, or with --sysroot set CX5PROF_SYSTEMCTL",
				    "irq.irqbalance: stop: no service manager to stop it with");
	if (r < 0)
		return plan_problem(p, EXIT_ERROR, "irqbalance", "check the irqbalance service",
				    "cannot read the irqbalance state: %s", strerror(-r));
	if (streq(cur, IRQBALANCE_STOPPED))
		return 0;
	return plan_add_change(p, "irqbalance", "irqbalance", "service", cur, IRQBALANCE_STOPPED);
}

/* irq.irqbalance: ban. irqbalance is kept running but told (--banirq in
 * IRQBALANCE_ARGS) to leave the IRQs the plan pins alone. Where irqbalance
 * is neither installed (no config file) nor running there is nothing to
 * ban: creating its config file would only surprise the package manager
 * later, so the plan says so and changes nothing. Installed but stopped:
 * the ban is written, and a later start honours it. */
static int plan_irqbalance_ban(struct plan *p, const struct profile *prof, const struct host_state *host,
			       const struct pinned_irqs *pinned)
{
	const struct irqbalance_state *st = &host->irqbalance;
	bool running = st->running || st->active == 1;
	_cleanup_free_ char *old = NULL, *want = NULL, *banned = NULL;
	int r;

	if (!prof->irq.policy.set)
		return strv_extend(&p->warnings, "irq.irqbalance: ban: the profile pins no IRQ "
						 "(no irq.policy): nothing to ban");
	if (pinned->n == 0)
		return 0;
	if (!st->config_path && !running)
		return strv_extend(
		    &p->warnings,
		    "irq.irqbalance: ban: irqbalance is neither running nor configured here "
		    "(no /etc/default/irqbalance or /etc/sysconfig/irqbalance): nothing to ban");
	r = irqbalance_ban_snapshot(&old);
	if (r == -ENOENT)
		return plan_problem(p, EXIT_UNSUPPORTED, "irqbalance", "use irq.irqbalance: stop",
				    "irq.irqbalance: ban: no /etc/default or /etc/sysconfig to write "
				    "IRQBALANCE_ARGS in");
	if (r == -ELOOP)
		return plan_problem(p, EXIT_UNSUPPORTED, "irqbalance",
				    "add the --banirq options to the link's target by hand, or use "
				    "irq.irqbalance: stop",
				    "irq.irqbalance: ban: %s is a symlink: cx5prof would replace it by a "
				    "regular file",
				    strna(st->config_path));
	if (r == -EINVAL)
		return plan_problem(
		    p, EXIT_UNSUPPORTED, "irqbalance",
		    "add the --banirq options by hand, or use irq.irqbalance: stop",
		    "irq.irqbalance: ban: IRQBALANCE_ARGS in %s uses $, quotes or backslashes: "
		    "cx5prof does not rewrite it",
		    strna(st->config_path));
	if (r < 0)
		return plan_problem(p, EXIT_ERROR, "irqbalance", "check the irqbalance config file",
				    "cannot read the irqbalance configuration: %s", strerror(-r));
	if ((r = irq_numbers_format(pinned->v, pinned->n, &want)) < 0 ||
	    (r = ban_intersection(old, pinned->v, pinned->n, &banned)) < 0)
		return r;
	if (streq(banned, want))
		return 0;
	if (running && !service_command())
		return plan_problem(p, EXIT_UNSUPPORTED, "irqbalance",
				    "ban the IRQs by hand, or with --sysroot set CX5PROF_SYSTEMCTL",
				    "irq.irqbalance: ban: no service manager to restart irqbalance with");
	if (st->running && st->active == 0 &&
	    (r = strv_extend(&p->warnings, "irq.irqbalance: ban: irqbalance runs outside its service: it "
					   "reads the ban only when the service starts it")) < 0)
		return r;
	return plan_add_change(p, "irqbalance-ban", "irqbalance", IRQBALANCE_BAN_KEY, old, want);
}

static int plan_irqbalance(struct plan *p, const struct profile *prof, const struct host_state *host)
{
	if (!prof->irq.irqbalance.set)
		return 0;
	if (prof->irq.irqbalance.value == PROFILE_IRQBALANCE_STOP)
		return plan_irqbalance_stop(p);
	if (prof->irq.irqbalance.value == PROFILE_IRQBALANCE_BAN)
		return 0; /* after the IRQ plan: plan_irqbalance_ban */
	if (!host->irqbalance_running)
		return 0;
	return strv_extend(&p->warnings,
			   "irqbalance is running and left alone: it may overwrite the IRQ pins");
}

/* ---- sysctls ---- */

static int plan_sysctls(struct plan *p, const struct profile *prof, const struct host_state *host)
{
	int r;

	for (size_t i = 0; i < prof->n_sysctls; i++) {
		const struct profile_sysctl *w = &prof->sysctls[i];
		const struct sysctl_state *cur = &host->sysctl[w->key];
		_cleanup_free_ char *old = NULL, *new = NULL;
		bool differs;

		if (cur->r < 0) {
			r = plan_problem(
			    p, cur->r == -ENOENT ? EXIT_UNSUPPORTED : EXIT_ERROR, w->name,
			    "remove it from the profile, or run in the initial network namespace",
			    "cannot be read: %s", strerror(-cur->r));
			if (r < 0)
				return r;
			continue;
		}
		differs = w->op == PROFILE_SYSCTL_FLOOR ? cur->value < w->value : cur->value != w->value;
		if (!differs)
			continue;
		if (format_u64(cur->value, &old) < 0 || format_u64(w->value, &new) < 0)
			return -ENOMEM;
		r = plan_add_change(p, "sysctl", "sysctl", w->name, old, new);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- building ---- */

int plan_build(const struct profile *prof, const struct host_state *host, struct plan **ret)
{
	_cleanup_(pinned_irqs_done) struct pinned_irqs pinned = {0};
	struct plan *p = calloc(1, sizeof(*p));
	int r;

	if (!p)
		return -ENOMEM;
	r = select_ports(p, prof, host);
	for (char **n = p->interfaces; r >= 0 && n && *n; n++)
		r = plan_port(p, prof, host_state_iface(host, *n));
	if (r >= 0)
		r = plan_irqbalance(p, prof, host);
	if (r >= 0 && p->n_problems == 0)
		r = plan_irqs(p, prof, host, &pinned);
	if (r >= 0 && p->n_problems == 0 && prof->irq.irqbalance.set &&
	    prof->irq.irqbalance.value == PROFILE_IRQBALANCE_BAN)
		r = plan_irqbalance_ban(p, prof, host, &pinned);
	if (r >= 0)
		r = plan_sysctls(p, prof, host);
	if (r < 0) {
		plan_free(p);
		return r;
	}
	plan_order(p);
	*ret = p;
	return 0;
}

static int plan_warn_not_persistent(struct plan *p, char *why)
{
	int r;

	if (!why)
		return -ENOMEM;
	r = strv_pushf(&p->warnings, "not persistent: %s; the changes last until the next reboot", why);
	free(why);
	return r;
}

int plan_boot_unit(struct plan *p, const char *path)
{
	_cleanup_free_ char *unit = NULL, *why = NULL, *now = NULL, *state = NULL;
	int r;

	if (p->n_problems > 0)
		return 0;
	if (!service_command()) {
		log_debug("no service manager with --sysroot (CX5PROF_SYSTEMCTL unset): runtime only");
		return 0;
	}
	r = bootunit_for_profile(path, &unit, &why);
	if (r == -EXDEV)
		return plan_warn_not_persistent(p, TAKE_PTR(why));
	if (r < 0)
		return r;
	r = bootunit_read(unit, &now, &state);
	if (r == -ENOENT)
		return plan_warn_not_persistent(
		    p, strprintf("%s is not installed (`make install` installs cx5prof-apply@.service; then "
				 "`systemctl daemon-reload`)",
				 unit));
	if (r == -EPERM)
		return plan_warn_not_persistent(
		    p, strprintf("%s is %s, which enable cannot change (`systemctl unmask` it if masked)",
				 unit, state));
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return plan_warn_not_persistent(
		    p, strprintf("the service manager (%s) gives no state for %s: %s", service_command(),
				 unit, strerror(-r)));
	if (!streq(now, BOOTUNIT_ENABLED)) {
		r = plan_add_change(p, "boot", unit, "enabled", now, BOOTUNIT_ENABLED);
		if (r < 0)
			return r;
		plan_order(p);
	}
	p->boot_unit = TAKE_PTR(unit);
	return 0;
}

/* ---- rendering ---- */

static struct json_object *diff_side(const struct plan *p, bool after)
{
	struct json_object *side = json_object_new_object();

	for (size_t i = 0; side && i < p->n_changes; i++) {
		const struct plan_change *c = &p->changes[i];
		struct json_object *obj = NULL;

		if (!json_object_object_get_ex(side, c->object, &obj)) {
			obj = json_object_new_object();
			json_object_object_add(side, c->object, obj);
		}
		json_object_object_add(obj, c->key,
				       json_object_new_string(after ? c->new_value : c->old_value));
	}
	return side;
}

/* The ban's old value is an undo record (the whole config file): people
 * see which of the IRQs were banned already. */
static char *ban_before_human(const struct plan_change *c)
{
	_cleanup_free_ unsigned *want = NULL;
	char *s = NULL;
	size_t n = 0;

	if (irq_numbers_parse(c->new_value, &want, &n) < 0 || ban_intersection(c->old_value, want, n, &s) < 0)
		return NULL;
	return s;
}

/* Kinds whose stored old value is not for people; the rest print as is. */
static const struct {
	const char *kind;
	char *(*before)(const struct plan_change *c);
} human_values[] = {
    {"irqbalance-ban", ban_before_human},
};

static char *change_before_human(const struct plan_change *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(human_values); i++)
		if (streq(human_values[i].kind, c->kind->name))
			return human_values[i].before(c);
	return NULL;
}

char *change_value_human(const char *kind, const char *value, const char *counterpart)
{
	const struct change_kind *k = change_kind_find(kind);
	struct plan_change c;

	/* Only undo records (JSON objects) need a summary: lists and numbers
	 * print as they are. */
	if (!k || !value || value[0] != '{' || !counterpart)
		return strdup(value ? value : "-");
	c = (struct plan_change){.kind = k, .old_value = (char *)value, .new_value = (char *)counterpart};
	for (size_t i = 0; i < ARRAY_SIZE(human_values); i++)
		if (streq(human_values[i].kind, kind)) {
			char *s = human_values[i].before(&c);
			return s ? s : strdup("(config file as before)");
		}
	return strdup(value);
}

static void render_change(const struct plan_change *c)
{
	_cleanup_free_ char *before = change_before_human(c);

	out_open_object(NULL);
	out_string(OUT_ANY, "object", "%s  ", c->object);
	out_string(OUT_JSON, "kind", NULL, c->kind->name);
	out_string(OUT_ANY, "key", "%s  ", c->key);
	out_string(OUT_JSON, "before", NULL, c->old_value);
	out_string(OUT_HUMAN, NULL, "%s -> ", before ? before : c->old_value);
	out_string(OUT_ANY, "after", "%s", c->new_value);
	out_bool(OUT_JSON, "resets_link", NULL, c->kind->resets_link);
	if (c->note)
		out_string(OUT_ANY, "note", "  (%s)", c->note);
	else
		out_string(OUT_JSON, "note", NULL, NULL);
	out_text("\n");
	out_close_object();
}

static void render_problems(const struct plan *p)
{
	out_open_array("problems");
	for (size_t i = 0; i < p->n_problems; i++) {
		const struct plan_problem *q = &p->problems[i];
		out_open_object(NULL);
		out_string(OUT_JSON, "object", NULL, q->object);
		out_string(OUT_JSON, "message", NULL, q->message);
		out_string(OUT_JSON, "remedy", NULL, q->remedy);
		out_int(OUT_JSON, "exit_code", NULL, q->exit_code);
		out_close_object();
	}
	out_close_array();
}

void plan_render(const struct plan *p, const char *msg)
{
	out_bool(OUT_JSON, "changed", NULL, p->n_changes > 0 && p->n_problems == 0);
	if (out_is_json()) { /* people never see it: do not build it for them */
		struct json_object *diff = json_object_new_object();
		json_object_object_add(diff, "before", diff_side(p, false));
		json_object_object_add(diff, "after", diff_side(p, true));
		out_json("diff", diff);
	}
	out_open_array("changes");
	for (size_t i = 0; i < p->n_changes; i++)
		render_change(&p->changes[i]);
	out_close_array();
	render_problems(p);
	out_bool(OUT_JSON, "persistent", NULL, p->boot_unit != NULL);
	out_string(OUT_JSON, "boot_unit", NULL, p->boot_unit);
	out_open_array("warnings");
	for (char **w = p->warnings; w && *w; w++)
		out_string(OUT_JSON, NULL, NULL, *w);
	out_close_array();
	out_string(OUT_ANY, "msg", "%s\n", msg);
}
