/* rules.c: the rule table of `cx5prof tune` (see rules.h).
 *
 * Owns: each rule's evidence, its weight and the fragment it tries. The
 * weight orders the candidates: a rule whose stage the loss ledger names
 * as the bottleneck weighs 100, a stage that lost datagrams its share of
 * the drops; a port below MTU 9000 whose messages do not fit one frame (or
 * whose reassembly fails) 90, else 50; reassembly memory half its ledger
 * weight (after the MTU, which removes the fragments); doctor's failed
 * check 40, its warning 20. Must never: touch the host, propose a CPU
 * list, or fire on evidence it did not read (an unknown counter is no
 * evidence). */
#define _GNU_SOURCE
#include "rules.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "doctor.h"
#include "profile.h"

static const struct doctor_check *doctor_find(const struct tune_facts *f, const char *name)
{
	const struct doctor_check *worst = NULL;

	for (size_t i = 0; f->doctor && i < f->doctor->n_checks; i++) {
		const struct doctor_check *c = &f->doctor->checks[i];
		if (!streq(c->name, name) || (c->status != DOCTOR_WARN && c->status != DOCTOR_FAIL))
			continue;
		if (!worst || c->status == DOCTOR_FAIL)
			worst = c;
	}
	return worst;
}

static const char *measured_string(const struct tune_facts *f, const char *key)
{
	struct json_object *v;

	return f->measured && json_object_object_get_ex(f->measured, key, &v) && v ? json_object_get_string(v)
										   : NULL;
}

/* The summed rise of the counters named (NULL-terminated) in the
 * measured group's drops; -1 when the drops are unknown. */
static long long drops_of(const struct tune_facts *f, const char *const *names)
{
	struct json_object *drops, *v;
	long long n = 0;

	if (!f->measured || !json_object_object_get_ex(f->measured, "drops", &drops) || !drops)
		return -1;
	for (; *names; names++)
		if (json_object_object_get_ex(drops, *names, &v) && v)
			n += json_object_get_int64(v);
	return n;
}

static long long drops_total(const struct tune_facts *f)
{
	struct json_object *drops;
	long long n = 0;

	if (!f->measured || !json_object_object_get_ex(f->measured, "drops", &drops) || !drops)
		return 0;
	json_object_object_foreach(drops, k, v)
	{
		(void)k;
		n += json_object_get_int64(v);
	}
	return n;
}

/* The counters of names that rose, "IpReasmFails + Ip6ReasmFails" (the
 * first name when none did); NULL: out of memory. */
static char *rose_names(const struct tune_facts *f, const char *const *names)
{
	_cleanup_free_ char *s = NULL;

	for (size_t i = 0; names[i]; i++) {
		const char *one[] = {names[i], NULL};
		char *t;

		if (drops_of(f, one) <= 0)
			continue;
		t = s ? strprintf("%s + %s", s, names[i]) : strdup(names[i]);
		if (!t)
			return NULL;
		free(s);
		s = t;
	}
	return s ? TAKE_PTR(s) : strdup(names[0]);
}

/* Fires on the ledger: the stage named the bottleneck (weight 100), or
 * its counters rose (their share of every counter's rise). */
static int ledger_evidence(const struct tune_facts *f, const char *stage, const char *const *counters,
			   char **ret_why, double *ret_weight)
{
	const char *limited = measured_string(f, "limited_by");
	long long n = counters ? drops_of(f, counters) : -1, total = drops_total(f);
	_cleanup_free_ char *rose = NULL;

	if (n > 0 && !(rose = rose_names(f, counters)))
		return -ENOMEM;
	if (limited && streq(limited, stage)) {
		*ret_why = n > 0 ? strprintf("the loss ledger names the %s the bottleneck (%s +%lld)", stage,
					     rose, n)
				 : strprintf("the loss ledger names the %s the bottleneck", stage);
		*ret_weight = 100;
		return *ret_why ? 1 : -ENOMEM;
	}
	if (n > 0) {
		*ret_why = strprintf("%s rose by %lld in the rounds", rose, n);
		*ret_weight = total > 0 ? 100.0 * (double)n / (double)total : 1;
		if (*ret_weight > 99)
			*ret_weight = 99;
		return *ret_why ? 1 : -ENOMEM;
	}
	return 0;
}

static int add_key(struct tune_fragment *fr, const char *section, const char *key, const char *value)
{
	struct tune_key *k;

	if (fr->n >= TUNE_MAX_KEYS)
		return -E2BIG;
	k = &fr->keys[fr->n++];
	snprintf(k->section, sizeof(k->section), "%s", section);
	snprintf(k->key, sizeof(k->key), "%s", key);
	snprintf(k->value, sizeof(k->value), "%s", value);
	return 0;
}

void tune_size_text(unsigned long long bytes, char *buf, size_t size)
{
	if (bytes >= (1ull << 20) && bytes % (1ull << 20) == 0)
		snprintf(buf, size, "%lluM", bytes >> 20);
	else if (bytes >= 1024 && bytes % 1024 == 0)
		snprintf(buf, size, "%lluK", bytes >> 10);
	else
		snprintf(buf, size, "%llu", bytes);
}

/* The socket buffer now: the kept one, else the starting profile's; 0:
 * the system's default. */
static unsigned long long buffer_now(const struct tune_facts *f, bool receive)
{
	const char *v = tune_fragment_get(f->best, "verify.socket_buffer", receive ? "receive" : "send");
	unsigned long long n = 0;
	char unit = 0;

	if (v && sscanf(v, "%llu%c", &n, &unit) >= 1)
		return unit == 'M' ? n << 20 : unit == 'K' ? n << 10 : n;
	if (!f->start)
		return 0;
	if (receive)
		return f->start->verify.socket_receive.set ? f->start->verify.socket_receive.value : 0;
	return f->start->verify.socket_send.set ? f->start->verify.socket_send.value : 0;
}

/* The next size of the ladder above now: 256K, then four times the size
 * before, up to TUNE_BUFFER_CAP; 0 at the cap. */
static unsigned long long buffer_next(unsigned long long now)
{
	for (unsigned long long s = 256ull << 10; s <= TUNE_BUFFER_CAP; s *= 4)
		if (s > now)
			return s;
	return 0;
}

static int buffer_rule(const struct tune_facts *f, bool receive, char **ret_why, double *ret_weight,
		       struct tune_fragment *ret_frag)
{
	static const char *const rcv[] = {"UdpRcvbufErrors", "Udp6RcvbufErrors", NULL};
	static const char *const snd[] = {"UdpSndbufErrors", "Udp6SndbufErrors", NULL};
	unsigned long long next = buffer_next(buffer_now(f, receive));
	char size[32], floor[40];
	int r;

	if (!next)
		return 0;
	r = ledger_evidence(f, receive ? "receiver-socket-buffer" : "sender-socket", receive ? rcv : snd,
			    ret_why, ret_weight);
	if (r <= 0)
		return r;
	/* A size tune already raised: the next one only while the ledger still
	 * names the stage the bottleneck (a few drops left do not pay for
	 * another candidate's rounds). */
	if (tune_fragment_get(f->best, "verify.socket_buffer", receive ? "receive" : "send") &&
	    *ret_weight < 100) {
		free(*ret_why);
		*ret_why = NULL;
		return 0;
	}
	tune_size_text(next, size, sizeof(size));
	snprintf(floor, sizeof(floor), "\">= %s\"", size);
	if (add_key(ret_frag, "verify.socket_buffer", receive ? "receive" : "send", size) < 0 ||
	    add_key(ret_frag, "sysctl", receive ? "net.core.rmem_max" : "net.core.wmem_max", floor) < 0)
		return -E2BIG;
	return 1;
}

static int fire_rcvbuf(const struct tune_facts *f, char **ret_why, double *ret_weight,
		       struct tune_fragment *ret_frag)
{
	return buffer_rule(f, true, ret_why, ret_weight, ret_frag);
}

static int fire_sndbuf(const struct tune_facts *f, char **ret_why, double *ret_weight,
		       struct tune_fragment *ret_frag)
{
	return buffer_rule(f, false, ret_why, ret_weight, ret_frag);
}

static int fire_mtu(const struct tune_facts *f, char **ret_why, double *ret_weight,
		    struct tune_fragment *ret_frag)
{
	unsigned msg =
	    f->start && f->start->verify.message_size.set ? (unsigned)f->start->verify.message_size.value : 0;
	const char *reasm = measured_string(f, "limited_by");
	bool split;

	if (!f->mtu || f->mtu >= 9000 || (f->max_mtu && f->max_mtu < 9000))
		return 0;
	split = (msg && msg + 28 > f->mtu) || (reasm && streq(reasm, "reassembly"));
	*ret_why = strprintf("MTU %u%s%s", f->mtu, f->max_mtu ? " on ports that take 9000" : "",
			     reasm && streq(reasm, "reassembly") ? "; the loss ledger names IP reassembly"
			     : split				 ? "; each message is split into IP fragments"
								 : "");
	if (!*ret_why)
		return -ENOMEM;
	*ret_weight = split ? 90 : 50;
	return add_key(ret_frag, "link", "mtu", "9000") < 0 ? -E2BIG : 1;
}

static int doctor_rule(const struct tune_facts *f, const char *check, char **ret_why, double *ret_weight)
{
	const struct doctor_check *c = doctor_find(f, check);

	if (!c)
		return 0;
	*ret_why = strprintf("doctor: %s: %s", c->object, c->detail);
	*ret_weight = c->status == DOCTOR_FAIL ? 40 : 20;
	return *ret_why ? 1 : -ENOMEM;
}

static int fire_irq(const struct tune_facts *f, char **ret_why, double *ret_weight,
		    struct tune_fragment *ret_frag)
{
	int r = doctor_rule(f, "irq-placement", ret_why, ret_weight);

	if (r <= 0)
		return r;
	if (doctor_find(f, "irqbalance")) {
		char *t = strprintf("%s; irqbalance runs and may move the pins (irq.irqbalance: stop in the "
				    "tuned profile keeps them)",
				    *ret_why);
		free(*ret_why);
		if (!(*ret_why = t))
			return -ENOMEM;
	}
	return add_key(ret_frag, "irq", "policy", "numa-local") < 0 ? -E2BIG : 1;
}

static int fire_xps(const struct tune_facts *f, char **ret_why, double *ret_weight,
		    struct tune_fragment *ret_frag)
{
	int r = doctor_rule(f, "xps", ret_why, ret_weight);

	return r <= 0 ? r : add_key(ret_frag, "link", "xps", "auto") < 0 ? -E2BIG : 1;
}

static int fire_cpufreq(const struct tune_facts *f, char **ret_why, double *ret_weight,
			struct tune_fragment *ret_frag)
{
	int r = doctor_rule(f, "cpufreq", ret_why, ret_weight);

	return r <= 0 ? r : add_key(ret_frag, "host.cpufreq", "governor", "performance") < 0 ? -E2BIG : 1;
}

static int fire_backlog(const struct tune_facts *f, char **ret_why, double *ret_weight,
			struct tune_fragment *ret_frag)
{
	static const char *const c[] = {"softnet.dropped", NULL};
	int r = ledger_evidence(f, "receiver-backlog", c, ret_why, ret_weight);

	return r <= 0										? r
	       : add_key(ret_frag, "sysctl", "net.core.netdev_max_backlog", "\">= 16384\"") < 0 ? -E2BIG
												: 1;
}

static int fire_budget(const struct tune_facts *f, char **ret_why, double *ret_weight,
		       struct tune_fragment *ret_frag)
{
	static const char *const c[] = {"softnet.time_squeeze", NULL};
	long long n = drops_of(f, c);

	if (n <= 0)
		return 0;
	*ret_why = strprintf("softnet.time_squeeze rose by %lld in the rounds", n);
	*ret_weight = 10;
	if (!*ret_why)
		return -ENOMEM;
	return add_key(ret_frag, "sysctl", "net.core.netdev_budget", "\">= 600\"") < 0 ? -E2BIG : 1;
}

static int fire_txqueuelen(const struct tune_facts *f, char **ret_why, double *ret_weight,
			   struct tune_fragment *ret_frag)
{
	int r = ledger_evidence(f, "sender-qdisc", NULL, ret_why, ret_weight);

	return r <= 0 ? r : add_key(ret_frag, "link", "txqueuelen", "10000") < 0 ? -E2BIG : 1;
}

static int fire_rings(const struct tune_facts *f, char **ret_why, double *ret_weight,
		      struct tune_fragment *ret_frag)
{
	static const char *const c[] = {"rx_out_of_buffer", "rx_discards_phy", NULL};
	int r = ledger_evidence(f, "receiver-nic", c, ret_why, ret_weight);

	return r <= 0 ? r : add_key(ret_frag, "link.rings", "rx", "8192") < 0 ? -E2BIG : 1;
}

static int fire_cqe(const struct tune_facts *f, char **ret_why, double *ret_weight,
		    struct tune_fragment *ret_frag)
{
	static const char *const c[] = {"rx_out_of_buffer", NULL};
	int r = ledger_evidence(f, "receiver-nic", c, ret_why, ret_weight);

	if (r <= 0)
		return r;
	*ret_weight /= 2; /* after the rings */
	return add_key(ret_frag, "link.private_flags", "rx_cqe_compress", "true") < 0 ? -E2BIG : 1;
}

/* IPv4 reassembly: after the MTU (which removes the fragments), so half
 * the ledger's weight; it tries more memory for the fragments in flight,
 * which helps only when reassembly ran out of it: the rounds decide. Its
 * sysctl is IPv4's: an IPv6 rise alone (Ip6ReasmFails) is no evidence. */
static int fire_reasm(const struct tune_facts *f, char **ret_why, double *ret_weight,
		      struct tune_fragment *ret_frag)
{
	static const char *const c[] = {"IpReasmFails", NULL};
	int r = ledger_evidence(f, "reassembly", c, ret_why, ret_weight);

	if (r <= 0)
		return r;
	*ret_weight /= 2;
	return add_key(ret_frag, "sysctl", "net.ipv4.ipfrag_high_thresh", "\">= 16M\"") < 0 ? -E2BIG : 1;
}

const struct tune_rule tune_rules[] = {
    {"mtu",
     "the ports below MTU 9000 and able to take it (first of all when messages are split into IP "
     "fragments or the ledger names IP reassembly)",
     "link.mtu: 9000 (on both ends)", true, true, false, false, fire_mtu},
    {"rcvbuf", "UdpRcvbufErrors rose, or the ledger names the receiver socket buffer",
     "verify.socket_buffer.receive and net.core.rmem_max: the next of 256K, 1M, 4M, 16M, 64M (a next size "
     "only while the ledger names the stage)",
     false, false, true, true, fire_rcvbuf},
    {"sndbuf", "UdpSndbufErrors rose, or the ledger names the sender socket",
     "verify.socket_buffer.send and net.core.wmem_max: the next of 256K, 1M, 4M, 16M, 64M (a next size only "
     "while the ledger names the stage)",
     false, false, true, true, fire_sndbuf},
    {"txqueuelen", "the ledger names the sender qdisc", "link.txqueuelen: 10000", false, false, false, true,
     fire_txqueuelen},
    {"backlog", "softnet dropped rose, or the ledger names the receiver backlog",
     "net.core.netdev_max_backlog: \">= 16384\"", false, false, false, true, fire_backlog},
    {"budget", "softnet time_squeeze rose", "net.core.netdev_budget: \">= 600\"", false, false, false, true,
     fire_budget},
    {"rings", "rx_out_of_buffer or rx_discards_phy rose, or the ledger names the receiver NIC",
     "link.rings.rx: 8192", false, true, false, true, fire_rings},
    {"cqe", "rx_out_of_buffer rose", "link.private_flags.rx_cqe_compress: true", false, true, false, true,
     fire_cqe},
    {"reasm", "IpReasmFails (IPv4) rose, or the ledger names IP reassembly",
     "net.ipv4.ipfrag_high_thresh: \">= 16M\"", false, false, false, true, fire_reasm},
    {"irq", "doctor: completion IRQs on CPU0 or off the NIC's NUMA node (irq-placement)",
     "irq.policy: numa-local", false, false, false, false, fire_irq},
    {"xps", "doctor: transmit queues sending from other CPUs than their IRQ's (xps)", "link.xps: auto", false,
     false, false, false, fire_xps},
    {"cpufreq", "doctor: no performance governor on the NIC-local CPUs (cpufreq)",
     "host.cpufreq.governor: performance", false, false, false, false, fire_cpufreq},
};
const size_t tune_n_rules = ARRAY_SIZE(tune_rules);

const struct tune_rule *tune_rule_find(const char *family)
{
	for (size_t i = 0; i < tune_n_rules; i++)
		if (streq(tune_rules[i].family, family))
			return &tune_rules[i];
	return NULL;
}

static struct tune_key *fragment_find(struct tune_fragment *f, const struct tune_key *k)
{
	for (size_t i = 0; i < f->n; i++)
		if (streq(f->keys[i].section, k->section) && streq(f->keys[i].key, k->key))
			return &f->keys[i];
	return NULL;
}

int tune_fragment_merge(struct tune_fragment *dst, const struct tune_fragment *src)
{
	struct tune_fragment out = *dst;

	for (size_t i = 0; i < src->n; i++) {
		struct tune_key *k = fragment_find(&out, &src->keys[i]);
		if (!k && out.n >= ARRAY_SIZE(out.keys))
			return -E2BIG;
		if (!k)
			k = &out.keys[out.n++];
		*k = src->keys[i];
	}
	*dst = out;
	return 0;
}

void tune_fragment_remove(struct tune_fragment *dst, const struct tune_fragment *src)
{
	size_t w = 0;

	for (size_t i = 0; i < dst->n; i++) {
		bool drop = false;
		for (size_t j = 0; j < src->n; j++)
			drop |= streq(dst->keys[i].section, src->keys[j].section) &&
				streq(dst->keys[i].key, src->keys[j].key);
		if (!drop)
			dst->keys[w++] = dst->keys[i];
	}
	dst->n = w;
}

const char *tune_fragment_get(const struct tune_fragment *f, const char *section, const char *key)
{
	for (size_t i = 0; f && i < f->n; i++)
		if (streq(f->keys[i].section, section) && streq(f->keys[i].key, key))
			return f->keys[i].value;
	return NULL;
}

char *tune_fragment_text(const struct tune_fragment *f)
{
	char *s = strdup("");

	for (size_t i = 0; s && i < f->n; i++) {
		char *t = strprintf("%s%s%s.%s: %s", s, i ? ", " : "", f->keys[i].section, f->keys[i].key,
				    f->keys[i].value);
		free(s);
		s = t;
	}
	return s;
}

struct json_object *tune_fragment_json(const struct tune_fragment *f)
{
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; o && i < f->n; i++) {
		char path[96], value[48];
		size_t n = strlen(f->keys[i].value);

		snprintf(path, sizeof(path), "%s.%s", f->keys[i].section, f->keys[i].key);
		/* the value as the profile means it: without YAML's quotes */
		if (n >= 2 && f->keys[i].value[0] == '"' && f->keys[i].value[n - 1] == '"')
			snprintf(value, sizeof(value), "%.*s", (int)(n - 2), f->keys[i].value + 1);
		else
			snprintf(value, sizeof(value), "%s", f->keys[i].value);
		json_object_object_add(o, path, json_object_new_string(value));
	}
	return o;
}
