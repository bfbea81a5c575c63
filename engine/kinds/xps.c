/* kinds/xps.c: the "xps" kind, link.xps: object "ens1f0", key "xps tx-3",
 * values CPU lists ("8", "" for none): the CPUs that send on each
 * transmit queue (/sys/class/net/DEV/queues/tx-N/xps_cpus). mlx5 maps
 * each queue to the CPU of its channel's completion IRQ when the device
 * opens (mlx5e_set_default_xps_cpumasks); pinning the IRQs later leaves
 * the masks on the old CPUs, so a sender may transmit on a queue whose
 * completions land elsewhere. `auto` does what the driver does, after the
 * IRQ map: the CPUs the irq kind plans in this run (plan_ctx), else the
 * CPU each IRQ runs on now (its affinity, or its effective affinity when
 * the affinity spans several CPUs; with neither, a problem); a CPU list gives tx queue N the list's N-th CPU
 * (round-robin, as irq.policy cpulist). Host-wide in planning (after irq,
 * whose map it follows); a channel change in the same run blocks it (the
 * queues and IRQs are re-created). Read and written through xps.h (the
 * sysroot), which reads back. */
#define _GNU_SOURCE
#include "kinds.h"

#include <errno.h>
#include <stdio.h>

#include "base/cpuset.h"
#include "base/exitcode.h"
#include "base/output.h"
#include "irqplan.h"
#include "os/irqaffinity.h"
#include "os/probe.h"
#include "os/sysroot.h"
#include "os/topology.h"
#include "os/txqueues.h"
#include "changes.h"
#include "profile.h"

#define KEY_PREFIX "xps tx-"

struct xps_want {
	struct profile_string xps; /* "auto" or a CPU list */
};

static const char *check_xps(const char *s)
{
	_cleanup_cpuset_ struct cpuset c = CPUSET_INIT;

	if (streq(s, "auto") || (*s && cpuset_parse_list(s, &c) >= 0 && cpuset_count(&c) > 0))
		return NULL;
	return "auto or a CPU list (like \"8-15\")";
}

static const struct profile_key xps_keys[] = {
    {.name = "xps",
     .type = KT_TEXT,
     .offset = offsetof(struct xps_want, xps),
     .min = 1,
     .max = 4096,
     .check = check_xps,
     .int_ok = true,
     .pattern = "^(auto|[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*)$",
     .help = "the CPUs that send on each transmit queue (queues/tx-N/xps_cpus): auto, each queue on the "
	     "CPU of its channel's completion IRQ after the IRQ map, as mlx5 sets it when the device "
	     "opens; or a CPU list, tx queue N on its N-th CPU (round-robin)"},
    {0},
};

extern const struct change_kind kind_xps;

static const struct xps_want *want_of(const struct profile *p)
{
	return kind_want(p, &kind_xps);
}

static int queue_of(const char *key, unsigned *ret)
{
	uint32_t q;

	if (strncmp(key, KEY_PREFIX, strlen(KEY_PREFIX)) != 0 ||
	    safe_atou32(key + strlen(KEY_PREFIX), &q) < 0)
		return -EINVAL;
	*ret = q;
	return 0;
}

static int xps_kind_read(const char *object, const char *key, char **ret, char **kmsg _unused_)
{
	_cleanup_cpuset_ struct cpuset c = CPUSET_INIT;
	unsigned q;
	int r = queue_of(key, &q);

	if (r >= 0)
		r = xps_read_queue(object, q, &c);
	return r < 0 ? r : cpuset_format_list(&c, ret);
}

static int xps_kind_write(const char *object, const char *key, const char *value, char **kmsg)
{
	_cleanup_cpuset_ struct cpuset c = CPUSET_INIT;
	unsigned q;
	int r = queue_of(key, &q);

	(void)kmsg;
	if (r >= 0)
		r = cpuset_parse_list(value, &c);
	return r < 0 ? r : xps_write_queue(object, q, &c);
}

/* ---- planning ---- */

/* The CPU each completion vector of port s lands on when this kind's
 * steps run: the irq kind's plan, else the one CPU its interrupts land on
 * now (irq_vector_cpu: its affinity, or its effective affinity when that
 * spans several CPUs), -1 when unknown. *ret_n: vectors (queues 0..n-1);
 * ret_spread: the queues of vectors that may run on several CPUs, with no
 * one CPU to follow. -ERANGE: a vector's queue number no port has. */
static int vector_cpus(const struct plan_ctx *ctx, const struct iface_state *s, int **ret, unsigned *ret_n,
		       struct cpuset *ret_spread)
{
	_cleanup_free_ int *cpu = NULL;
	size_t n_pins;
	const struct plan_irq_cpu *pins = plan_ctx_lookup(ctx, IRQPLAN_PINS, &n_pins);
	unsigned n = 0;
	int r;

	for (size_t i = 0; i < s->irqs->n; i++) {
		const struct irq_vector *v = &s->irqs->v[i];

		if (v->kind != IRQ_KIND_COMPLETION)
			continue;
		if (v->queue < 0 || v->queue >= XPS_QUEUES_MAX)
			return -ERANGE; /* "mlx5_comp4294967295@pci:...": no queue of a port */
		if ((unsigned)v->queue + 1 > n)
			n = (unsigned)v->queue + 1;
	}
	cpu = malloc((n ? n : 1) * sizeof(*cpu));
	if (!cpu)
		return -ENOMEM;
	for (unsigned v = 0; v < n; v++)
		cpu[v] = -1;
	for (size_t i = 0; i < s->irqs->n; i++) {
		const struct irq_vector *v = &s->irqs->v[i];

		if (v->kind == IRQ_KIND_COMPLETION)
			cpu[v->queue] = irq_vector_cpu(v);
	}
	for (size_t i = 0; i < n_pins; i++) {
		const struct plan_irq_cpu *p = &pins[i];

		if (streq(p->ifname, s->name) && p->queue < n)
			cpu[p->queue] = p->cpu;
	}
	for (unsigned v = 0; v < n; v++) {
		if (cpu[v] == -ENOMEM)
			return -ENOMEM;
		if (cpu[v] == -EDOM && (r = cpuset_add(ret_spread, v)) < 0)
			return r;
		if (cpu[v] < 0)
			cpu[v] = -1;
	}
	*ret = TAKE_PTR(cpu);
	*ret_n = n;
	return 0;
}

static int port_problem(struct plan *p, const struct iface_state *s, int code, const char *remedy,
			const char *why)
{
	return plan_add_problem(p, code, s->name, remedy, "link.xps: %s", why);
}

/* Queue q's xps_cpus could not be taken (r): only a missing file is a
 * kernel without XPS; one that holds no CPU mask is shown as it is. */
static int queue_problem(struct plan *p, const struct iface_state *s, unsigned q, int r)
{
	_cleanup_free_ char *path = strprintf("/sys/class/net/%s/queues/tx-%u/xps_cpus", s->name, q);
	_cleanup_free_ char *text = NULL, *remedy = NULL;
	size_t len = 0;

	if (r == -ENOENT)
		return port_problem(p, s, EXIT_UNSUPPORTED,
				    "remove link.xps (a kernel without CONFIG_XPS has no xps_cpus)",
				    "the kernel has no XPS (no xps_cpus)");
	remedy = strprintf("check the file%s", sysroot_is_live() ? "" : " (of the sysroot)");
	if (!path || !remedy)
		return -ENOMEM;
	if (r != -EBADMSG || sysroot_read_all(path, &text, &len) < 0)
		return plan_add_problem(p, EXIT_ERROR, s->name, remedy, "link.xps: %s cannot be read: %s",
					path, sysroot_strerror(r));
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
		text[--len] = '\0';
	if (len == 0)
		return plan_add_problem(p, EXIT_ERROR, s->name, remedy,
					"link.xps: %s is empty, not a CPU mask", path);
	if (len > 64)
		memcpy(text + 61, "...", 4);
	return plan_add_problem(p, EXIT_ERROR, s->name, remedy, "link.xps: %s holds \"%s\", not a CPU mask",
				path, str_make_printable(text));
}

/* The masks of port s's n_tx queues as the profile wants them, into want. */
static int wanted_masks(struct plan_ctx *ctx, const struct iface_state *s, const struct xps_state *cur,
			struct cpuset *want, bool *ret_problem)
{
	const char *value = want_of(ctx->profile)->xps.value;
	_cleanup_cpuset_ struct cpuset spread = CPUSET_INIT;
	_cleanup_free_ int *cpu = NULL;
	unsigned n_vec = 0;
	int r = 0;

	*ret_problem = true;
	if (!streq(value, "auto")) {
		_cleanup_cpuset_ struct cpuset list = CPUSET_INIT;
		_cleanup_topology_ struct topology *topo = NULL;
		unsigned n = 0;
		int *order;

		if (cpuset_parse_list(value, &list) < 0)
			return -EINVAL; /* the loader checked it */
		if (topology_read(&topo) >= 0) {
			_cleanup_cpuset_ struct cpuset off = CPUSET_INIT;

			if (cpuset_copy(&list, &off) < 0)
				return -ENOMEM;
			cpuset_andnot(&off, &topo->online);
			if (cpuset_count(&off) > 0) {
				_cleanup_free_ char *l = NULL;

				if (cpuset_format_list(&off, &l) < 0)
					return -ENOMEM;
				return plan_add_problem(ctx->plan, EXIT_PRECONDITION, s->name,
							"list online CPUs only",
							"link.xps: CPUs %s are not online", l);
			}
		}
		order = calloc(cpuset_count(&list), sizeof(*order));
		if (!order)
			return -ENOMEM;
		CPUSET_FOREACH(c, &list)
		order[n++] = c;
		for (unsigned q = 0; q < cur->n_tx; q++)
			if ((r = cpuset_add(&want[q], (unsigned)order[q % n])) < 0)
				break;
		free(order);
		*ret_problem = false;
		return r < 0 ? r : 0;
	}
	if (s->irqs_r < 0 && s->irqs_r != -ENODEV) {
		/* irq.policy's own problem names the same cause */
		if (kinds_key_enum_name(ctx->profile, "irq.policy"))
			return 0;
		return plan_add_problem(
		    ctx->plan, EXIT_ERROR, s->name, "check /proc/interrupts and the sysroot",
		    "link.xps: auto follows the completion IRQs, which cannot be read: %s",
		    sysroot_strerror(s->irqs_r));
	}
	if (s->irqs_r < 0 || !s->irqs || irq_list_count(s->irqs, IRQ_KIND_COMPLETION) == 0)
		return port_problem(ctx->plan, s, EXIT_UNSUPPORTED,
				    "give link.xps a CPU list for this port, or match only ports with a PCI "
				    "function (on a test host: a --sysroot that has it)",
				    "auto follows the completion IRQs, and the port has none");
	r = vector_cpus(ctx, s, &cpu, &n_vec, &spread);
	if (r == -ERANGE)
		return port_problem(
		    ctx->plan, s, EXIT_ERROR, "check /proc/interrupts (of the sysroot)",
		    "auto follows the completion IRQs, and one names a queue number out of range");
	if (r < 0)
		return r;
	if (cpuset_count(&spread) > 0) {
		_cleanup_free_ char *l = NULL;

		if (cpuset_format_list(&spread, &l) < 0)
			return -ENOMEM;
		return plan_add_problem(
		    ctx->plan, EXIT_PRECONDITION, s->name,
		    "pin the IRQs in the same profile (irq.policy), or give link.xps a CPU list",
		    "link.xps: auto: the completion IRQs of queues %s may run on several CPUs and the "
		    "kernel shows no one CPU they run on (no effective_affinity): no CPU to follow",
		    l);
	}
	r = xps_follow_irqs(cur->n_tx, cur->n_rx ? cur->n_rx : n_vec, cpu, n_vec, want);
	if (r < 0)
		return r;
	*ret_problem = false;
	return 0;
}

static int diff_port(struct plan_ctx *ctx, const struct iface_state *s)
{
	_cleanup_(xps_state_done) struct xps_state cur = {0};
	struct cpuset *want;
	bool problem;
	int r;

	r = xps_read(s->name, &cur);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || cur.n_tx == 0)
		return port_problem(ctx->plan, s, EXIT_UNSUPPORTED, "check /sys/class/net/DEV/queues",
				    "no transmit queues in sysfs");
	for (unsigned q = 0; q < cur.n_tx; q++)
		if (cur.tx_r[q] < 0)
			return queue_problem(ctx->plan, s, q, cur.tx_r[q]);
	want = calloc(cur.n_tx, sizeof(*want));
	if (!want)
		return -ENOMEM;
	r = wanted_masks(ctx, s, &cur, want, &problem);
	for (unsigned q = 0; r >= 0 && !problem && q < cur.n_tx; q++) {
		_cleanup_free_ char *old = NULL, *new = NULL;
		char key[32];

		if (cpuset_equal(&cur.tx[q], &want[q]))
			continue;
		snprintf(key, sizeof(key), KEY_PREFIX "%u", q);
		if (cpuset_format_list(&cur.tx[q], &old) < 0 || cpuset_format_list(&want[q], &new) < 0)
			r = -ENOMEM;
		else
			r = plan_add_change(ctx->plan, "xps", s->name, key, old, new);
	}
	for (unsigned q = 0; q < cur.n_tx; q++)
		cpuset_done(&want[q]);
	free(want);
	return r;
}

static int xps_diff(struct plan_ctx *ctx, const struct iface_state *port)
{
	int r;

	(void)port;
	if (!want_of(ctx->profile)->xps.set)
		return 0;
	for (char **n = ctx->plan->interfaces; n && *n; n++) {
		const struct iface_state *s = host_state_iface(ctx->host, *n);

		if (!s || !s->present) /* the port's own problem says why */
			continue;
		r = diff_port(ctx, s);
		if (r < 0)
			return r;
	}
	return 0;
}

static bool xps_manages(const struct profile *p)
{
	return want_of(p)->xps.set;
}

static char *xps_human(const char *value, const char *counterpart)
{
	(void)counterpart;
	return strdup(*value ? value : "none");
}

/* The queues and their masks are re-created with the channels: the map
 * would be planned from the queues before the change. */
static const struct kind_conflict xps_conflicts[] = {
    {"channels",
     "channels and link.xps in one run: changing channels re-creates the transmit queues and the IRQs, "
     "XPS would be planned from those before the change",
     "apply channels first, then XPS: two profiles or two runs"},
    {0},
};

/* "xps  8 9 10 ... (tx-0..tx-15)"; JSON {"status", "error", "rx_queues",
 * "tx": ["8", "9", ...]}. */
static void xps_show(const struct iface_state *s)
{
	_cleanup_(xps_state_done) struct xps_state x = {0};
	int r = s->has_nic || s->present ? xps_read(s->name, &x) : -ENODEV;

	if (r == -ENODEV) {
		out_json("xps", NULL);
		return;
	}
	out_open_object("xps");
	out_text("  %-8s", "xps");
	if (r >= 0 && x.n_tx == 0)
		r = -ENOENT;
	for (unsigned q = 0; r >= 0 && q < x.n_tx; q++)
		if (x.tx_r[q] < 0)
			r = x.tx_r[q];
	if (r < 0)
		out_text("  ");
	kind_show_status(r == -ENOENT ? -EOPNOTSUPP : r);
	if (r >= 0) {
		out_uint(OUT_JSON, "rx_queues", NULL, x.n_rx);
		out_open_array("tx");
		for (unsigned q = 0; q < x.n_tx; q++) {
			_cleanup_free_ char *l = NULL;

			if (cpuset_format_list(&x.tx[q], &l) < 0)
				break;
			out_string(OUT_JSON, NULL, NULL, l);
			out_text("  %s", *l ? l : "-");
		}
		out_close_array();
		out_text("  (tx-0..tx-%u)", x.n_tx - 1);
	}
	out_text("\n");
	out_close_object();
}

/* What show writes of it (kinds.h: show_schema; `make docs` puts it into
 * schemas/state.schema.json). */
static const char xps_show_schema[] =
    "{"
    " \"xps\": {"
    "  \"type\": [\"object\", \"null\"],"
    "  \"description\": \"The CPUs that send on each transmit queue "
    "(/sys/class/net/IFACE/queues/tx-N/xps_cpus under the sysroot). null when neither the kernel nor the "
    "sysroot has the interface.\","
    "  \"required\": [\"status\", \"error\"],"
    "  \"additionalProperties\": false,"
    "  \"x-cx5prof-status\": \"no transmit queues or no xps_cpus in sysfs (a kernel without XPS, or a port "
    "the sysroot does not describe)\","
    "  \"properties\": {"
    "   \"rx_queues\": {"
    "    \"type\": \"integer\","
    "    \"minimum\": 0,"
    "    \"description\": \"receive queues (queues/rx-N): one per channel on mlx5\""
    "   },"
    "   \"tx\": {"
    "    \"type\": \"array\","
    "    \"items\": {"
    "     \"type\": \"string\","
    "     \"pattern\": \"^([0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*)?$\""
    "    },"
    "    \"description\": \"each transmit queue's CPUs from tx-0 on, as a CPU list (\\\"\\\": none, no XPS "
    "for that queue)\""
    "   }"
    "  }"
    " }"
    "}";

const struct change_kind kind_xps = {
    .name = "xps",
    .rank = 55,
    .scope = KIND_SCOPE_HOST,
    .profile_section = "link",
    .keys = xps_keys,
    .want_size = sizeof(struct xps_want),
    .read = xps_kind_read,
    .write = xps_kind_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .write_reads_back = true,
    .diff = xps_diff,
    .manages = xps_manages,
    .conflicts = xps_conflicts,
    .human = xps_human,
    .show_port = xps_show,
    .show_schema = xps_show_schema,
};
