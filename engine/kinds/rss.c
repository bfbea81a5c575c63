/* kinds/rss.c: the "rss" kind, link.rss.equal|weights|key: object
 * "ens1f0", keys "rss.indir" (the indirection table: "default", the
 * driver's even spread over every receive queue, or its entries "0 1 2 ...")
 * and "rss.key" (the hash key, "7c:9c:..."). Which receive queues, and so
 * which cores, UDP flows land on (`ethtool -X DEV equal N | weight ...`).
 * Planned and applied after channels: mlx5 rebuilds a table nobody set
 * when the channel count changes, so the table is computed for the count
 * the profile sets; a table set by hand and a channel change in one run
 * is a problem (its undo could name queues that are gone). The hash key
 * is left alone unless given. Read and written through ethrss.h (the
 * ioctl, or the sysroot's text), which reads back. */
#define _GNU_SOURCE
#include "kinds.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "base/cpuset.h"
#include "base/exitcode.h"
#include "base/output.h"
#include "os/ethrss.h"
#include "os/ethsysroot.h"
#include "os/probe.h"
#include "os/sysroot.h"
#include "changes.h"
#include "profile.h"

#define RSS_EQUAL_MAX 1024

struct rss_want {
	struct profile_string equal; /* "8" or "numa-local" */
	struct profile_uints weights;
	struct profile_string key;
};

static const char *check_equal(const char *s)
{
	uint32_t n;

	if (streq(s, "numa-local") || (safe_atou32(s, &n) >= 0 && n >= 1 && n <= RSS_EQUAL_MAX))
		return NULL;
	return "a number of queues (1..1024) or numa-local";
}

/* The bytes of a hash key: "7c:9c:37". */
static int parse_key(const char *s, uint8_t *key, uint32_t *ret_n)
{
	uint32_t n = 0;

	for (;;) {
		unsigned b;
		int len = 0;

		if (n == ETH_RSS_KEY_MAX || !isxdigit((unsigned char)s[0]) ||
		    !isxdigit((unsigned char)s[1]) || sscanf(s, "%2x%n", &b, &len) != 1 || len != 2)
			return -EINVAL;
		key[n++] = (uint8_t)b;
		s += 2;
		if (!*s)
			break;
		if (*s++ != ':')
			return -EINVAL;
	}
	*ret_n = n;
	return 0;
}

static const char *check_key(const char *s)
{
	uint8_t key[ETH_RSS_KEY_MAX];
	uint32_t n;

	return parse_key(s, key, &n) < 0 ? "a hash key (hex bytes separated by ':', as ethtool -x prints it)"
					 : NULL;
}

#define W(member) offsetof(struct rss_want, member)

static const struct profile_key rss_children[] = {
    {.name = "equal",
     .type = KT_TEXT,
     .offset = W(equal),
     .min = 1,
     .max = 10,
     .check = check_equal,
     .int_ok = true,
     .pattern = "^([1-9][0-9]{0,3}|numa-local)$",
     .help = "spread the flows evenly over the first N receive queues (ethtool -X DEV equal N); "
	     "numa-local: over as many as the port's NUMA node has CPUs (with irq.policy numa-local, the "
	     "queues whose IRQs are on the node)"},
    {.name = "weights",
     .type = KT_UINTS,
     .offset = W(weights),
     .min = 0,
     .max = 65535,
     .help = "relative share of each receive queue, from queue 0 (ethtool -X DEV weight W0 W1 ...); "
	     "not with equal"},
    {.name = "key",
     .type = KT_TEXT,
     .offset = W(key),
     .min = 2,
     .max = 3 * ETH_RSS_KEY_MAX,
     .check = check_key,
     .pattern = "^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2})*$",
     .help = "the RSS hash key, as many bytes as the device's (ethtool -X DEV hkey ...); unset: left as "
	     "it is"},
    {0},
};

static const struct profile_key rss_keys[] = {
    PROFILE_KEY_SECTION("rss", rss_children,
			"the RSS indirection table and hash key (ethtool -x / -X): which receive queues, and "
			"so which cores, the flows land on; applied after channels"),
    {0},
};

extern const struct change_kind kind_rss;

static const struct rss_want *want_of(const struct profile *p)
{
	return kind_want(p, &kind_rss);
}

static int rss_profile_check(void *want, const char *file, struct profile_error *err)
{
	struct rss_want *w = want;
	uint64_t sum = 0;

	if (file)
		return 0;
	if (w->equal.set && w->weights.set) {
		const struct profile_mark *later =
		    w->weights.at.line > w->equal.at.line ? &w->weights.at : &w->equal.at;
		return profile_fail_at(err, later, "link.rss: equal and weights are exclusive (set one)");
	}
	for (size_t i = 0; w->weights.set && i < w->weights.n; i++)
		sum += w->weights.value[i];
	if (w->weights.set && sum == 0)
		return profile_fail_at(err, &w->weights.at, "link.rss.weights: at least one must be above 0");
	return 0;
}

/* ---- the host ---- */

/* The probe's copy of the table and key: plain data. */
struct rss_fact {
	uint32_t rings, indir_size, key_size;
	uint32_t indir[ETH_RSS_INDIR_MAX];
	uint8_t key[ETH_RSS_KEY_MAX];
};

static int probe_rss(const char *ifname, void *ret, char **kmsg)
{
	_cleanup_(eth_rss_done) struct eth_rss r = {0};
	struct rss_fact *f = ret;
	int e = ethtool_get_rss(ifname, &r, kmsg);

	if (e < 0)
		return e;
	f->rings = r.rings;
	f->indir_size = r.indir_size;
	f->key_size = r.key_size;
	memcpy(f->indir, r.indir, r.indir_size * sizeof(uint32_t));
	if (r.key_size)
		memcpy(f->key, r.key, r.key_size);
	return 0;
}

/* The table and key fit the record, and every entry names one of the
 * header's rings (as the kernel and ethtool -x text guarantee). */
static int rss_check(const void *value, char **ret_why)
{
	const struct rss_fact *f = value;

	if (f->indir_size > ETH_RSS_INDIR_MAX)
		return probe_fact_bad(ret_why,
				      "indir_size %" PRIu32 " is above the %d entries the record holds",
				      f->indir_size, ETH_RSS_INDIR_MAX);
	if (f->key_size > ETH_RSS_KEY_MAX)
		return probe_fact_bad(ret_why, "key_size %" PRIu32 " is above the %d bytes the record holds",
				      f->key_size, ETH_RSS_KEY_MAX);
	for (uint32_t i = 0; i < f->indir_size; i++)
		if (f->indir[i] >= f->rings)
			return probe_fact_bad(ret_why,
					      "indir[%" PRIu32 "] %" PRIu32
					      " names a queue beyond its %" PRIu32 " rings",
					      i, f->indir[i], f->rings);
	return 0;
}

static const struct probe_fact rss_fact = {
    .name = "rss",
    .layout = 1,
    .size = sizeof(struct rss_fact),
    .read = probe_rss,
    .check = rss_check,
};

static bool is_default(const uint32_t *indir, uint32_t n, uint32_t rings)
{
	const struct eth_rss r = {.rings = rings, .indir_size = n, .indir = (uint32_t *)indir};
	return eth_rss_is_default(&r);
}

/* ethtool -X's weight: entry i goes to the queue whose share of the
 * cumulated weights i falls in. */
static void fill_weights(uint32_t *indir, uint32_t n, const uint64_t *w, size_t nw, uint64_t sum)
{
	uint64_t partial = 0;
	size_t j = 0;
	bool started = false;

	for (uint32_t i = 0; i < n; i++) {
		while (!started || (uint64_t)i >= (uint64_t)n * partial / sum) {
			if (started)
				j++;
			started = true;
			partial += j < nw ? w[j] : 0;
		}
		indir[i] = (uint32_t)j;
	}
}

/* The queue count N of a table that is "equal N" (entry i on queue i % N,
 * as `ethtool -X equal N`), 0 when it is not one. */
static uint32_t equal_of(const uint32_t *indir, uint32_t n)
{
	uint64_t max = 0; /* an entry of UINT32_MAX must not wrap it to 0 */

	for (uint32_t i = 0; i < n; i++)
		if ((uint64_t)indir[i] + 1 > max)
			max = (uint64_t)indir[i] + 1;
	if (max == 0 || max > ETH_RSS_INDIR_MAX)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		if (indir[i] != i % max)
			return 0;
	return (uint32_t)max;
}

/* A table as the undo log keeps it: "default" (the driver's spread over
 * every ring), "equal N", else its entries "0 1 2 3 ...". */
static char *format_table(const uint32_t *indir, uint32_t n, uint32_t rings)
{
	_cleanup_free_ char *s = NULL;
	uint32_t eq;
	size_t len = 0;

	if (is_default(indir, n, rings))
		return strdup("default");
	eq = equal_of(indir, n);
	if (eq)
		return strprintf("equal %u", eq);
	s = malloc((size_t)n * 11 + 1);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (uint32_t i = 0; i < n; i++)
		len += (size_t)sprintf(s + len, "%s%u", i ? " " : "", indir[i]);
	return TAKE_PTR(s);
}

static char *format_key(const uint8_t *key, uint32_t n)
{
	char *s = malloc((size_t)n * 3 + 1);

	if (!s)
		return NULL;
	s[0] = '\0';
	for (uint32_t i = 0; i < n; i++)
		sprintf(s + 3 * i, "%02x%s", key[i], i + 1 < n ? ":" : "");
	return s;
}

/* The numbers of s, at most max of them. */
static int parse_numbers(const char *s, uint64_t *v, uint32_t max, uint32_t *ret_n)
{
	uint32_t n = 0;

	while (*s) {
		char *end;
		unsigned long x;

		errno = 0;
		x = strtoul(s, &end, 10);
		if (end == s || errno || x > UINT32_MAX || n == max || (*end && *end != ' '))
			return -EINVAL;
		v[n++] = x;
		s = *end ? end + 1 : end;
	}
	if (n == 0)
		return -EINVAL;
	*ret_n = n;
	return 0;
}

/* A stored table for a device of n entries: *ret NULL for "default";
 * "equal N" and "weights W0 W1 ..." spread over the n entries (the device
 * may have another size than when it was recorded); else the entries, n
 * of them. */
static int parse_table(const char *s, uint32_t n, uint32_t **ret)
{
	_cleanup_free_ uint64_t *num = NULL;
	_cleanup_free_ uint32_t *t = NULL;
	uint32_t k = 0;
	uint64_t sum = 0;
	int r;

	*ret = NULL;
	if (streq(s, "default"))
		return 0;
	if (n == 0 || n > ETH_RSS_INDIR_MAX)
		return -EINVAL;
	num = calloc(ETH_RSS_INDIR_MAX, sizeof(*num));
	t = calloc(n, sizeof(*t));
	if (!num || !t)
		return -ENOMEM;
	if (strncmp(s, "equal ", 6) == 0) {
		r = parse_numbers(s + 6, num, 1, &k);
		if (r < 0 || num[0] == 0)
			return -EINVAL;
		for (uint32_t i = 0; i < n; i++)
			t[i] = i % (uint32_t)num[0];
	} else if (strncmp(s, "weights ", 8) == 0) {
		r = parse_numbers(s + 8, num, ETH_RSS_INDIR_MAX, &k);
		for (uint32_t i = 0; r >= 0 && i < k; i++)
			sum += num[i];
		if (r < 0 || sum == 0 || sum > n)
			return -EINVAL;
		fill_weights(t, n, num, k, sum);
	} else {
		r = parse_numbers(s, num, ETH_RSS_INDIR_MAX, &k);
		if (r < 0 || k != n)
			return -EINVAL;
		for (uint32_t i = 0; i < n; i++)
			t[i] = (uint32_t)num[i];
	}
	*ret = TAKE_PTR(t);
	return 0;
}

static int rss_read(const char *object, const char *key, char **ret, char **kmsg)
{
	_cleanup_(eth_rss_done) struct eth_rss r = {0};
	int e = ethtool_get_rss(object, &r, kmsg);

	if (e < 0)
		return e;
	if (streq(key, "rss.indir"))
		*ret = format_table(r.indir, r.indir_size, r.rings);
	else if (streq(key, "rss.key"))
		*ret = format_key(r.key, r.key_size);
	else
		return -EINVAL;
	return *ret ? 0 : -ENOMEM;
}

static int rss_write(const char *object, const char *key, const char *value, char **kmsg)
{
	_cleanup_(eth_rss_done) struct eth_rss cur = {0};
	_cleanup_free_ uint32_t *indir = NULL;
	struct eth_rss_change c = {0};
	uint8_t hkey[ETH_RSS_KEY_MAX];
	int r;

	if (streq(key, "rss.indir")) {
		r = ethtool_get_rss(object, &cur, kmsg);
		if (r >= 0)
			r = parse_table(value, cur.indir_size, &indir);
		c = (struct eth_rss_change){.set_indir = true, .indir = indir, .indir_size = cur.indir_size};
	} else if (streq(key, "rss.key")) {
		r = parse_key(value, hkey, &c.key_size);
		c.key = hkey;
	} else
		r = -EINVAL;
	return r < 0 ? r : ethtool_set_rss(object, &c, kmsg);
}

/* The table as the device's size and rings make the value. */
static int rss_verify(const struct change_kind *k, const char *object, const char *key, const char *value,
		      char **kmsg)
{
	_cleanup_(eth_rss_done) struct eth_rss r = {0};
	_cleanup_free_ uint32_t *want = NULL;
	int e;

	if (!streq(key, "rss.indir"))
		return kind_verify_by_read(k, object, key, value, kmsg);
	e = ethtool_get_rss(object, &r, kmsg);
	if (e >= 0)
		e = parse_table(value, r.indir_size, &want);
	if (e < 0)
		return e;
	if (!want)
		return eth_rss_is_default(&r) ? 0 : -EIO;
	return memcmp(want, r.indir, r.indir_size * sizeof(uint32_t)) == 0 ? 0 : -EIO;
}

/* ---- planning ---- */

/* The number of queues of equal: N, or the CPUs of the port's node. */
static int equal_queues(const struct iface_state *s, const char *equal, uint32_t *ret, const char **ret_why)
{
	_cleanup_cpuset_ struct cpuset local = CPUSET_INIT;

	if (!streq(equal, "numa-local"))
		return safe_atou32(equal, ret);
	if (!s->has_nic || !s->nic.local_cpulist || cpuset_parse_list(s->nic.local_cpulist, &local) < 0 ||
	    cpuset_count(&local) == 0) {
		*ret_why = "the port has no NUMA-local CPUs in sysfs (no PCI function)";
		return -ENODATA;
	}
	*ret = cpuset_count(&local);
	return 0;
}

/* The rings the port will have when this kind's step runs: the channel
 * count the profile sets, else today's. */
static uint32_t rings_after(const struct profile *p, uint32_t rings)
{
	const struct profile_uint *c = kinds_key_uint(p, "link.channels.combined");
	return c && c->value > 0 ? (uint32_t)c->value : rings;
}

/* "weights 1 1 2": spread over the device's entries when written. */
static char *weights_value(const struct profile_uints *w)
{
	_cleanup_free_ char *s = strdup("weights");

	for (size_t i = 0; s && i < w->n; i++) {
		char *n = strprintf("%s %" PRIu64, s, w->value[i]);
		free(s);
		s = n;
	}
	return TAKE_PTR(s);
}

static int diff_table(struct plan_ctx *ctx, const struct iface_state *s, const struct rss_fact *cur)
{
	const struct rss_want *w = want_of(ctx->profile);
	uint32_t rings = rings_after(ctx->profile, cur->rings), n = cur->indir_size, queues = 0;
	bool rings_change = rings != cur->rings;
	_cleanup_free_ uint32_t *want = NULL;
	_cleanup_free_ char *old = NULL, *new = NULL;
	const char *why = NULL;
	uint64_t sum = 0;

	if (!w->equal.set && !w->weights.set)
		return 0;
	if (rings_change && !is_default(cur->indir, n, cur->rings))
		return plan_add_problem(
		    ctx->plan, EXIT_UNSUPPORTED, s->name,
		    "apply link.channels first, then link.rss: two profiles or two runs",
		    "link.rss with link.channels in one run: the RSS table was set by hand, and "
		    "its undo could name receive queues the channel change removes");
	if (w->equal.set) {
		int r = equal_queues(s, w->equal.value, &queues, &why);

		if (r == -ENODATA)
			return plan_add_problem(ctx->plan, EXIT_UNSUPPORTED, s->name,
						"give link.rss.equal a number of queues",
						"link.rss.equal: %s", why);
		if (r < 0)
			return -EINVAL;
		if (streq(w->equal.value, "numa-local") && queues > rings)
			queues = rings;
	} else {
		queues = (uint32_t)w->weights.n;
		for (size_t i = 0; i < w->weights.n; i++)
			sum += w->weights.value[i];
		if (sum > n)
			return plan_add_problem(ctx->plan, EXIT_PRECONDITION, s->name, "use smaller weights",
						"link.rss.weights: they add up to %" PRIu64
						", more than the %u entries of the table",
						sum, n);
	}
	if (queues == 0)
		return plan_add_problem(ctx->plan, EXIT_PRECONDITION, s->name,
					"check the port's receive queues (ethtool -l)",
					"link.rss: %s has no receive queue to spread over", s->name);
	if (queues > rings)
		return plan_add_problem(ctx->plan, EXIT_PRECONDITION, s->name,
					"spread over at most as many queues as the port has, or raise "
					"link.channels",
					"link.rss: %u receive queues asked for, %s has %u", queues, s->name,
					rings);
	want = calloc(n ? n : 1, sizeof(*want));
	if (!want)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		want[i] = w->equal.set ? i % queues : 0;
	if (w->weights.set)
		fill_weights(want, n, w->weights.value, w->weights.n, sum);
	/* after a channel change the driver's table is its default over the new count */
	if (rings_change ? is_default(want, n, rings) : memcmp(want, cur->indir, n * sizeof(*want)) == 0)
		return 0;
	old = rings_change ? strdup("default") : format_table(cur->indir, n, cur->rings);
	new = w->weights.set ? weights_value(&w->weights) : format_table(want, n, rings);
	if (!old || !new)
		return -ENOMEM;
	return plan_add_change(ctx->plan, "rss", s->name, "rss.indir", old, new);
}

static int diff_key(struct plan_ctx *ctx, const struct iface_state *s, const struct rss_fact *cur)
{
	const struct rss_want *w = want_of(ctx->profile);
	_cleanup_free_ char *old = NULL, *new = NULL;
	uint8_t key[ETH_RSS_KEY_MAX];
	uint32_t n;

	if (!w->key.set)
		return 0;
	if (parse_key(w->key.value, key, &n) < 0)
		return -EINVAL; /* the loader checked it */
	if (n != cur->key_size)
		return plan_add_problem(ctx->plan, EXIT_PRECONDITION, s->name,
					"give as many bytes as ethtool -x shows",
					"link.rss.key: %u bytes, the device's key has %u", n, cur->key_size);
	if (memcmp(key, cur->key, n) == 0)
		return 0;
	old = format_key(cur->key, n);
	new = format_key(key, n);
	if (!old || !new)
		return -ENOMEM;
	return plan_add_change(ctx->plan, "rss", s->name, "rss.key", old, new);
}

static bool rss_manages(const struct profile *p)
{
	const struct rss_want *w = want_of(p);
	return w->equal.set || w->weights.set || w->key.set;
}

/* What is wrong with a sysroot's `ethtool -x` text (eth_rss_parse's
 * -errno). */
static const char *rss_text_error(int r)
{
	return r == -ERANGE	 ? "an entry names a receive queue beyond the table's RX rings"
	       : r == -EOVERFLOW ? "the header's RX ring count is not a whole number from 0 to 65536"
				 : "not `ethtool -x` text";
}

/* A sysroot's `ethtool -x` text that does not parse, by its file. */
static int bad_text(struct plan_ctx *ctx, const struct iface_state *s, int r)
{
	_cleanup_free_ char *path = NULL;
	int e = ethsysroot_file(s->name, "show-rxfh", &path);

	if (e < 0)
		return e;
	return plan_add_problem(ctx->plan, EXIT_ERROR, s->name, "fix the file: it is `ethtool -x` text",
				"link.rss: %s%s: %s", e > 0 ? sysroot_get() : "the RSS table of ",
				e > 0 ? path : s->name, rss_text_error(r));
}

static int rss_diff(struct plan_ctx *ctx, const struct iface_state *s)
{
	const struct iface_fact *fact = kind_fact(s, &kind_rss);
	int r;

	if (!rss_manages(ctx->profile))
		return 0;
	if (fact->r == -EBADMSG || fact->r == -ERANGE || fact->r == -EOVERFLOW)
		return bad_text(ctx, s, fact->r);
	if (fact->r < 0)
		return kind_fact_problem(ctx, s, "link.rss", "the driver has no RSS table", fact,
					 ETHSYSROOT_RSS);
	r = diff_table(ctx, s, fact->value);
	if (r < 0)
		return r;
	return diff_key(ctx, s, fact->value);
}

/* A table people can read: "default", "equal 8", "weights 1 1 2" as they
 * are; the entries of each queue for a table of its own ("entries per
 * queue 32 32 16 ..."); a key as it is. */
static char *rss_human(const char *value, const char *counterpart)
{
	_cleanup_free_ uint64_t *num = NULL;
	_cleanup_free_ uint32_t *per = NULL;
	_cleanup_free_ char *s = NULL;
	uint32_t n = 0;
	uint64_t max = 0; /* an entry of UINT32_MAX must not wrap it to 0 */
	size_t len = 0;

	(void)counterpart;
	num = calloc(ETH_RSS_INDIR_MAX, sizeof(*num));
	if (!num)
		return NULL;
	if (strchr(value, ':') || !isdigit((unsigned char)value[0]) ||
	    parse_numbers(value, num, ETH_RSS_INDIR_MAX, &n) < 0)
		return strdup(value);
	for (uint32_t i = 0; i < n; i++)
		if (num[i] + 1 > max)
			max = num[i] + 1;
	if (max == 0 || max > ETH_RSS_INDIR_MAX)
		return strdup(value);
	per = calloc(max, sizeof(*per));
	s = malloc((size_t)max * 11 + 32);
	if (!per || !s)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		per[num[i]]++;
	len = (size_t)sprintf(s, "entries per queue");
	for (uint32_t q = 0; q < max; q++)
		len += (size_t)sprintf(s + len, " %u", per[q]);
	return TAKE_PTR(s);
}

/* "rss  16 rings  equal 16  key 7c:9c:..."; JSON {"status", "rings",
 * "table": [...], "default", "key"}. */
static void rss_show(const struct iface_state *s)
{
	const struct iface_fact *fact = kind_fact(s, &kind_rss);
	const struct rss_fact *f = fact->value;
	_cleanup_free_ char *table = NULL, *human = NULL, *key = NULL;

	if (!s->present) {
		out_json("rss", NULL);
		return;
	}
	out_open_object("rss");
	out_text("  %-8s", "rss");
	if (fact->r < 0)
		out_text("  ");
	kind_show_status(fact->r);
	out_string(OUT_JSON, "kernel_message", NULL, fact->kmsg);
	if (fact->r < 0) {
		if (fact->kmsg)
			out_text(" (kernel: %s)", fact->kmsg);
		if (fact->r == -EBADMSG || fact->r == -ERANGE || fact->r == -EOVERFLOW)
			out_text(" (the sysroot's `ethtool -x` text: %s)", rss_text_error(fact->r));
		out_text("\n");
		out_close_object();
		return;
	}
	table = format_table(f->indir, f->indir_size, f->rings);
	human = table ? rss_human(table, NULL) : NULL;
	key = f->key_size ? format_key(f->key, f->key_size) : NULL;
	out_uint(OUT_ANY, "rings", "  %" PRIu64 " rings", f->rings);
	out_bool(OUT_JSON, "default", NULL, is_default(f->indir, f->indir_size, f->rings));
	out_text("  %s", human ? human : "default");
	out_open_array("table");
	for (uint32_t i = 0; i < f->indir_size; i++)
		out_uint(OUT_JSON, NULL, NULL, f->indir[i]);
	out_close_array();
	out_string(OUT_JSON, "key", NULL, key);
	if (key)
		out_text("  key %s", key);
	out_text("\n");
	out_close_object();
}

/* What show writes of it (kinds.h: show_schema; `make docs` puts it into
 * schemas/state.schema.json). */
static const char rss_show_schema[] =
    "{"
    " \"rss\": {"
    "  \"type\": [\"object\", \"null\"],"
    "  \"description\": \"The RSS indirection table and hash key (ETHTOOL_GRSSH, as `ethtool -x` shows them; "
    "a sysroot's ethtool/IFACE/show-rxfh when it describes the port): which receive queues the flows land "
    "on. null when the interface is not in this network namespace (present false).\","
    "  \"required\": [\"status\", \"error\", \"kernel_message\"],"
    "  \"additionalProperties\": false,"
    "  \"x-cx5prof-status\": \"the driver has no RSS table (EOPNOTSUPP; veth has none)\","
    "  \"x-cx5prof-kmsg\": true,"
    "  \"properties\": {"
    "   \"rings\": {"
    "    \"type\": \"integer\","
    "    \"minimum\": 0,"
    "    \"description\": \"receive queues the table may name (ETHTOOL_GRXRINGS)\""
    "   },"
    "   \"default\": {"
    "    \"type\": \"boolean\","
    "    \"description\": \"the driver's default table: entry i on queue i % rings (as no one set it; mlx5 "
    "rebuilds such a table when the channel count changes)\""
    "   },"
    "   \"table\": {"
    "    \"type\": \"array\","
    "    \"items\": {\"type\": \"integer\", \"minimum\": 0},"
    "    \"description\": \"the indirection table: the receive queue of each entry\""
    "   },"
    "   \"key\": {"
    "    \"type\": [\"string\", \"null\"],"
    "    \"pattern\": \"^[0-9a-f]{2}(:[0-9a-f]{2})*$\","
    "    \"description\": \"the hash key, hex bytes separated by ':' as ethtool prints it; null when the "
    "device has none\""
    "   }"
    "  }"
    " }"
    "}";

const struct change_kind kind_rss = {
    .name = "rss",
    .rank = 24,
    .order_note = "after channels: the driver rebuilds a table nobody set when the channel count changes",
    .scope = KIND_SCOPE_PORT,
    .profile_section = "link",
    .keys = rss_keys,
    .want_size = sizeof(struct rss_want),
    .profile_check = rss_profile_check,
    .probe = &rss_fact,
    .read = rss_read,
    .write = rss_write,
    .undo = kind_undo_by_write,
    .verify = rss_verify,
    .write_reads_back = true,
    .diff = rss_diff,
    .manages = rss_manages,
    .human = rss_human,
    .show_port = rss_show,
    .show_schema = rss_show_schema,
};
