/* verb_show.c: `cx5prof show [IFACE...]`: print the observed host state.
 *
 * Owns: the layout of the state for people (one short block per interface,
 * then host-wide facts) and for machines (schemas/state.schema.json), both
 * through output.h. Must never: change the host, or read it except through
 * probe.h (whose IRQ lists come from irqaffinity.h). */
#define _GNU_SOURCE
#include <inttypes.h>

#include "base/log.h"
#include "base/output.h"
#include "os/nicfacts.h"
#include "os/probe.h"
#include "os/sysroot.h"
#include "verbs.h"

/* JSON "status" of one ethtool fact: "ok", "unsupported" (the driver does
 * not implement it), "failed" (with "error"). */
static const char *fact_status(int r)
{
	if (r >= 0)
		return "ok";
	return r == -EOPNOTSUPP ? "unsupported" : "failed";
}

static void print_fact_status(int r)
{
	out_string(OUT_JSON, "status", NULL, fact_status(r));
	out_string(OUT_JSON, "error", NULL, r < 0 && r != -EOPNOTSUPP ? strerror(-r) : NULL);
	if (r < 0)
		out_text("%s", r == -EOPNOTSUPP ? "unsupported" : strerror(-r));
}

/* A channel count is "n/a" (JSON null) when the device has none of that
 * type (max 0): veth has no combined channels. */
static void print_channel(const char *name, uint32_t cur, uint32_t max)
{
	char key[24];

	snprintf(key, sizeof(key), "max_%s", name);
	if (max == 0) {
		out_string(OUT_JSON, name, NULL, NULL);
		out_string(OUT_JSON, key, NULL, NULL);
		out_text("  %s n/a", name);
		return;
	}
	out_uint(OUT_JSON, name, NULL, cur);
	out_uint(OUT_JSON, key, NULL, max);
	out_text("  %s %" PRIu32 "/%" PRIu32, name, cur, max);
}

static const char *hex16(uint16_t v, char buf[static 8])
{
	snprintf(buf, 8, "0x%04x", v);
	return buf;
}

static void print_identity(const struct iface_state *s)
{
	const struct nic_info *n = &s->nic;

	out_text("%s", s->name);
	out_bool(OUT_JSON, "present", NULL, s->present);
	out_bool(OUT_JSON, "mellanox", NULL, s->has_nic && n->is_mellanox);
	out_bool(OUT_JSON, "connectx5", NULL, s->has_nic && n->is_connectx5);
	out_string(OUT_JSON, "model", NULL, s->has_nic ? n->model : NULL);
	if (!s->present)
		out_text("  [not in this network namespace]");
	if (!s->has_nic) {
		out_text("  [no sysfs facts]\n");
		return;
	}
	if (n->model)
		out_text("  %s", n->model);
	else if (!n->is_mellanox)
		out_text("  [not Mellanox]");
	else
		out_text("  [Mellanox, not ConnectX-5]");
	if (n->has_pci_id)
		out_text(" %04x:%04x", n->vendor, n->device);
	if (n->pci_bdf)
		out_text("  pci %s", n->pci_bdf);
	if (n->has_device && n->numa_node >= 0)
		out_text("  numa %d", n->numa_node);
	else if (n->has_device)
		out_text("  numa none");
	if (n->local_cpulist)
		out_text("  cpus %s", n->local_cpulist);
	if (!n->has_device)
		out_text("  [virtual]");
	out_text("\n");
}

static void print_device(const struct iface_state *s)
{
	const struct nic_info *n = &s->nic;
	char v[8];

	if (!s->has_nic) {
		out_json("device", NULL);
		return;
	}
	out_open_object("device");
	out_string(OUT_JSON, "pci", NULL, n->pci_bdf);
	out_string(OUT_JSON, "vendor", NULL, n->has_pci_id ? hex16(n->vendor, v) : NULL);
	out_string(OUT_JSON, "device", NULL, n->has_pci_id ? hex16(n->device, v) : NULL);
	if (n->numa_node >= 0)
		out_int(OUT_JSON, "numa_node", NULL, n->numa_node);
	else
		out_string(OUT_JSON, "numa_node", NULL, NULL);
	out_string(OUT_JSON, "local_cpulist", NULL, n->local_cpulist);
	out_string(OUT_ANY, "driver", "  driver    %s", n->driver);
	out_string(OUT_JSON, "driver_version", NULL, n->driver_version);
	if (n->driver_version)
		out_text(" %s", n->driver_version);
	out_string(OUT_ANY, "firmware", "  firmware %s", n->firmware);
	out_string(OUT_JSON, "ib_device", NULL, n->ib_device);
	out_text("\n");

	out_open_object("pcie");
	out_string(OUT_JSON, "speed", NULL, n->pcie_speed);
	out_string(OUT_JSON, "max_speed", NULL, n->pcie_max_speed);
	if (n->has_pcie_width) {
		out_uint(OUT_JSON, "width", NULL, n->pcie_width);
		out_uint(OUT_JSON, "max_width", NULL, n->pcie_max_width);
	} else {
		out_string(OUT_JSON, "width", NULL, NULL);
		out_string(OUT_JSON, "max_width", NULL, NULL);
	}
	if (n->pcie_speed || n->has_pcie_width) {
		bool degraded =
		    (n->has_pcie_width && n->pcie_width < n->pcie_max_width) ||
		    (n->pcie_speed && n->pcie_max_speed && !streq(n->pcie_speed, n->pcie_max_speed));
		out_bool(OUT_JSON, "degraded", NULL, degraded);
		out_text("  pcie      %s x%" PRIu32 " (max %s x%" PRIu32 ")%s\n", strna(n->pcie_speed),
			 n->pcie_width, strna(n->pcie_max_speed), n->pcie_max_width,
			 degraded ? "  [below capability]" : "");
	} else
		out_string(OUT_JSON, "degraded", NULL, NULL);
	out_close_object();

	out_open_array("msi_irqs");
	for (size_t i = 0; i < n->n_msi_irqs; i++)
		out_uint(OUT_JSON, NULL, NULL, n->msi_irqs[i]);
	out_close_array();
	out_close_object();
}

static void print_link(const struct iface_state *s)
{
	const struct link_info *l = &s->link;
	_cleanup_free_ char *duplex = NULL;
	uint64_t speed = 0;

	if (!s->present) {
		out_json("link", NULL);
		return;
	}
	out_open_object("link");
	out_int(OUT_JSON, "ifindex", NULL, l->ifindex);
	out_string(OUT_JSON, "kind", NULL, *l->kind ? l->kind : NULL);
	out_string(OUT_ANY, "operstate", "  link      %s", link_operstate_to_string(l->operstate));
	out_bool(OUT_JSON, "admin_up", NULL, l->admin_up);
	out_bool(OUT_JSON, "carrier", NULL, l->lower_up);
	out_uint(OUT_ANY, "mtu", "  mtu %" PRIu64, l->mtu);
	if (l->has_mtu_range) {
		out_uint(OUT_JSON, "min_mtu", NULL, l->min_mtu);
		out_uint(OUT_JSON, "max_mtu", NULL, l->max_mtu);
		out_text(" (%" PRIu32 "-%" PRIu32 ")", l->min_mtu, l->max_mtu);
	} else {
		out_string(OUT_JSON, "min_mtu", NULL, NULL);
		out_string(OUT_JSON, "max_mtu", NULL, NULL);
	}
	/* The speed plan, verify and doctor judge (nicfacts.h), and its source. */
	if (nicfacts_link(s, &speed, &duplex) >= 0) {
		out_uint(OUT_ANY, "speed", "  %" PRIu64 "Mb/s", speed);
		out_string(OUT_JSON, "duplex", NULL, duplex);
		if (!streq(duplex, "unknown"))
			out_text(" %s", duplex);
	} else {
		out_string(OUT_JSON, "speed", NULL, NULL);
		out_string(OUT_JSON, "duplex", NULL, NULL);
		out_text("  speed unknown");
	}
	out_string(OUT_JSON, "speed_source", NULL, nicfacts_link_source(s));
	if (streq(nicfacts_link_source(s), "sysroot"))
		out_text(" (sysroot)");
	if (*l->kind)
		out_text("  [%s]", l->kind);
	out_text("\n");
	out_close_object();
}

static void print_driver(const struct iface_state *s)
{
	const struct eth_drvinfo *d = &s->drvinfo;
	bool ok = s->drvinfo_r >= 0;

	if (!s->present) {
		out_json("ethtool_driver", NULL);
		return;
	}
	out_open_object("ethtool_driver");
	out_text("  kernel    ");
	print_fact_status(s->drvinfo_r);
	out_string(OUT_ANY, "driver", "%s", ok ? d->driver : NULL);
	out_string(OUT_ANY, "version", " %s", ok && *d->version ? d->version : NULL);
	out_string(OUT_ANY, "firmware", "  firmware %s", ok && *d->fw_version ? d->fw_version : NULL);
	out_string(OUT_ANY, "bus_info", "  bus %s", ok && *d->bus_info ? d->bus_info : NULL);
	out_text("\n");
	out_close_object();
}

static void print_channels(const struct iface_state *s)
{
	const struct eth_channels *c = &s->channels;

	if (!s->present) {
		out_json("channels", NULL);
		return;
	}
	out_open_object("channels");
	out_text("  channels");
	if (s->channels_r < 0)
		out_text("  ");
	print_fact_status(s->channels_r);
	if (s->channels_r >= 0) {
		print_channel("rx", c->rx, c->max_rx);
		print_channel("tx", c->tx, c->max_tx);
		print_channel("other", c->other, c->max_other);
		print_channel("combined", c->combined, c->max_combined);
	}
	out_text("\n");
	out_close_object();
}

static void print_rings(const struct iface_state *s)
{
	const struct eth_rings *g = &s->rings;

	if (!s->present) {
		out_json("rings", NULL);
		return;
	}
	out_open_object("rings");
	out_text("  rings   ");
	if (s->rings_r < 0)
		out_text("  ");
	print_fact_status(s->rings_r);
	if (s->rings_r >= 0) {
		print_channel("rx", g->rx, g->max_rx);
		print_channel("tx", g->tx, g->max_tx);
	}
	out_text("\n");
	out_close_object();
}

/* Offload features, as `ethtool -k` shows them: on/off, [fixed] when the
 * device does not let them change. */
static void print_features(const struct iface_state *s)
{
	if (!s->present) {
		out_json("features", NULL);
		return;
	}
	out_open_object("features");
	out_text("  features");
	if (s->features_r < 0)
		out_text("  ");
	print_fact_status(s->features_r);
	if (s->features_r >= 0) {
		out_open_object("active");
		for (unsigned i = 0; i < _ETH_FEATURE_MAX; i++) {
			const struct eth_feature_state *f = &s->features.f[i];
			const char *name = eth_feature_def((enum eth_feature)i)->name;

			out_string(OUT_JSON, name, NULL, f->active ? "on" : "off");
			out_text("  %s %s%s", name, f->active ? "on" : "off",
				 f->changeable ? "" : " [fixed]");
		}
		out_close_object();
		out_open_array("fixed");
		for (unsigned i = 0; i < _ETH_FEATURE_MAX; i++)
			if (!s->features.f[i].changeable)
				out_string(OUT_JSON, NULL, NULL, eth_feature_def((enum eth_feature)i)->name);
		out_close_array();
	}
	out_text("\n");
	out_close_object();
}

/* Coalescing and pause (ethnl.h groups): each parameter the driver
 * reports; "unsupported" with the kernel's message when it has none. */
static void print_param_group(const char *label, const struct ethnl_group *g, int r,
			      const struct ethnl_values *v, const char *kmsg)
{
	out_open_object(g->name);
	out_text("  %-8s", label);
	if (r < 0)
		out_text("  ");
	print_fact_status(r);
	out_string(OUT_JSON, "kernel_message", NULL, kmsg);
	if (r < 0 && kmsg)
		out_text(" (kernel: %s)", kmsg);
	for (size_t i = 0; r >= 0 && i < g->n_params; i++) {
		const struct ethnl_param *p = &g->params[i];

		if (!v->present[i])
			out_string(OUT_JSON, p->name, NULL, NULL);
		else if (p->is_bool)
			out_bool(OUT_JSON, p->name, NULL, v->v[i]);
		else
			out_uint(OUT_JSON, p->name, NULL, v->v[i]);
		if (!v->present[i])
			out_text("  %s n/a", p->name);
		else if (p->is_bool)
			out_text("  %s %s", p->name, v->v[i] ? "on" : "off");
		else
			out_text("  %s %" PRIu32, p->name, v->v[i]);
	}
	out_text("\n");
	out_close_object();
}

static void print_coalesce_pause(const struct iface_state *s)
{
	if (!s->present) {
		out_json("coalesce", NULL);
		out_json("pause", NULL);
		return;
	}
	print_param_group("coalesce", &ethnl_coalesce, s->coalesce_r, &s->coalesce, s->coalesce_kmsg);
	print_param_group("pause", &ethnl_pause, s->pause_r, &s->pause, s->pause_kmsg);
}

/* The CPUs an IRQ is delivered to now: the effective affinity when the
 * kernel reports one, else the affinity when it names a single CPU. */
static const struct cpuset *irq_landing(const struct irq_vector *v)
{
	if (v->has_effective && cpuset_count(&v->effective) > 0)
		return &v->effective;
	if (v->has_affinity && cpuset_count(&v->affinity) == 1)
		return &v->affinity;
	return NULL;
}

static bool cpuset_subset(const struct cpuset *a, const struct cpuset *b)
{
	CPUSET_FOREACH(cpu, a)
	if (!cpuset_has(b, (unsigned)cpu))
		return false;
	return true;
}

static char *format_set(bool has, const struct cpuset *c)
{
	char *s = NULL;

	if (!has || cpuset_format_list(c, &s) < 0)
		return NULL;
	return s;
}

/* Per-CPU counts, nonzero only: JSON {"<cpu>": n}; people see the first
 * three as "cpu:n" and how many more. */
static void print_irq_counts(const struct irq_vector *v)
{
	char buf[64] = "";
	size_t len = 0;
	unsigned shown = 0, more = 0;

	out_open_object("counts");
	for (unsigned c = 0; c < v->ncounts; c++) {
		char key[16];

		if (!v->counts[c])
			continue;
		snprintf(key, sizeof(key), "%u", c);
		out_uint(OUT_JSON, key, NULL, v->counts[c]);
		if (shown < 3 && len < sizeof(buf)) {
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%u:%" PRIu64,
						shown ? "," : "", c, v->counts[c]);
			shown++;
		} else
			more++;
	}
	out_close_object();
	if (more)
		out_text("%-20s+%u ", buf, more);
	else
		out_text("%-23s ", shown ? buf : "-");
}

static void print_irq_vector(const struct irq_vector *v, const struct cpuset *local)
{
	_cleanup_free_ char *aff = format_set(v->has_affinity, &v->affinity);
	_cleanup_free_ char *eff = format_set(v->has_effective, &v->effective);
	const struct cpuset *landing = irq_landing(v);
	char queue[16] = "-";

	out_open_object(NULL);
	out_uint(OUT_JSON, "irq", NULL, v->irq);
	out_string(OUT_JSON, "name", NULL, v->name);
	out_string(OUT_JSON, "kind", NULL, irq_kind_to_string(v->kind));
	if (v->queue >= 0) {
		out_int(OUT_JSON, "queue", NULL, v->queue);
		snprintf(queue, sizeof(queue), "%d", v->queue);
	} else
		out_string(OUT_JSON, "queue", NULL, NULL);
	out_text("            %-6s%-6u", queue, v->irq);
	out_string(OUT_ANY, "affinity", "%-12s", aff);
	out_string(OUT_ANY, "effective", "%-10s", eff);
	if (local && (landing || v->has_affinity)) {
		bool off = !cpuset_subset(landing ? landing : &v->affinity, local);
		out_bool(OUT_JSON, "off_node", NULL, off);
		out_text("%-9s", off ? "off-node" : "");
	} else {
		out_string(OUT_JSON, "off_node", NULL, NULL);
		out_text("%-9s", "");
	}
	out_uint(OUT_ANY, "total", "%-12" PRIu64, v->total);
	print_irq_counts(v);
	out_text("%s\n", strna(v->name));
	out_close_object();
}

/* CPUs that carry more than one busy (interrupt count > 0) completion queue
 * of this interface: the "single core at 100%" shape. */
static void print_busy_shared(const struct irq_list *l)
{
	unsigned max = 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct cpuset *c = irq_landing(&l->v[i]);
		int last = -1;

		if (!c)
			continue;
		CPUSET_FOREACH(cpu, c)
		last = cpu;
		if (last >= 0 && (unsigned)last + 1 > max)
			max = (unsigned)last + 1;
	}
	_cleanup_free_ unsigned *busy = calloc(max + 1, sizeof(unsigned));

	out_open_array("busy_shared_cpus");
	if (!busy) {
		out_close_array();
		return;
	}
	for (size_t i = 0; i < l->n; i++) {
		const struct irq_vector *v = &l->v[i];
		const struct cpuset *c = irq_landing(v);

		if (v->kind != IRQ_KIND_COMPLETION || v->total == 0 || !c)
			continue;
		CPUSET_FOREACH(cpu, c)
		busy[cpu]++;
	}
	for (unsigned cpu = 0; cpu < max; cpu++) {
		if (busy[cpu] < 2)
			continue;
		out_open_object(NULL);
		out_uint(OUT_JSON, "cpu", NULL, cpu);
		out_uint(OUT_JSON, "queues", NULL, busy[cpu]);
		out_text("            cpu %u carries %u busy queues\n", cpu, busy[cpu]);
		out_close_object();
	}
	out_close_array();
}

static void print_irqs(const struct iface_state *s)
{
	_cleanup_cpuset_ struct cpuset local = CPUSET_INIT;
	bool has_local = false;

	if (s->irqs_r == -ENODEV || (!s->irqs && s->irqs_r >= 0)) {
		out_json("irqs", NULL);
		out_string(OUT_JSON, "irqs_error", NULL, NULL);
		out_json("busy_shared_cpus", NULL);
		return;
	}
	if (s->irqs_r < 0) {
		out_json("irqs", NULL);
		out_string(OUT_JSON, "irqs_error", NULL, strerror(-s->irqs_r));
		out_json("busy_shared_cpus", NULL);
		out_text("  irqs      %s\n", strerror(-s->irqs_r));
		return;
	}
	if (s->nic.numa_node >= 0 && s->nic.local_cpulist)
		has_local = cpuset_parse_list(s->nic.local_cpulist, &local) >= 0;
	out_open_array("irqs");
	if (s->irqs->n == 0)
		out_text("  irqs      none\n");
	else
		out_text("  irqs      %-6s%-6s%-12s%-10s%-9s%-12s%-24s%s\n", "queue", "irq", "affinity",
			 "effective", "numa", "total", "per-cpu", "name");
	for (size_t i = 0; i < s->irqs->n; i++)
		print_irq_vector(&s->irqs->v[i], has_local ? &local : NULL);
	out_close_array();
	out_string(OUT_JSON, "irqs_error", NULL, NULL);
	print_busy_shared(s->irqs);
}

static void print_iface(const struct iface_state *s)
{
	out_open_object(NULL);
	out_string(OUT_JSON, "name", NULL, s->name);
	print_identity(s);
	print_device(s);
	print_driver(s);
	print_link(s);
	print_channels(s);
	print_rings(s);
	print_features(s);
	print_coalesce_pause(s);
	print_irqs(s);
	out_close_object();
}

/* 1 true, 0 false, -1 unknown (JSON null). */
static void print_tristate(const char *key, int v)
{
	if (v < 0)
		out_string(OUT_JSON, key, NULL, NULL);
	else
		out_bool(OUT_JSON, key, NULL, v > 0);
}

static void print_host(const struct host_state *h)
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
				 h->sysctl[k].r == -ENOENT ? "absent" : strerror(-h->sysctl[k].r));
	}
	out_close_object();

	out_open_object("irqbalance");
	out_bool(OUT_JSON, "running", NULL, h->irqbalance.running);
	if (h->irqbalance.running)
		out_int(OUT_JSON, "pid", NULL, h->irqbalance.pid);
	else
		out_string(OUT_JSON, "pid", NULL, NULL);
	print_tristate("service_enabled", h->irqbalance.enabled);
	print_tristate("service_active", h->irqbalance.active);
	if (h->irqbalance.running)
		out_text("irqbalance  running (pid %d)", h->irqbalance.pid);
	else
		out_text("irqbalance  not running");
	if (h->irqbalance.enabled < 0 && h->irqbalance.active < 0)
		out_text(", service state unknown\n");
	else
		out_text(", service %s, %s\n",
			 h->irqbalance.enabled < 0 ? "enabled?"
			 : h->irqbalance.enabled   ? "enabled"
						   : "disabled",
			 h->irqbalance.active < 0 ? "active?"
			 : h->irqbalance.active	  ? "active"
						  : "inactive");
	out_close_object();

	out_open_object("firewall");
	out_bool(OUT_JSON, "active", NULL, h->firewall.active);
	out_string(OUT_JSON, "evidence", NULL, h->firewall.evidence);
	if (h->firewall.active)
		out_text("firewall    active (%s)\n", h->firewall.evidence);
	else
		out_text("firewall    not active\n");
	out_close_object();
}

int verb_show(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_host_state_ struct host_state *h = NULL;
	int r;

	r = cli_parse(cli, cli_verb("show"), argc, argv, NULL, NULL, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	for (char **a = args; *a; a++)
		if (!ifname_valid(*a)) {
			log_error("show: invalid interface name '%s': 1-15 bytes without '/', whitespace, "
				  "'.' or '..'",
				  *a);
			return EXIT_USAGE;
		}
	r = probe_host(args[0] ? args : NULL, PROBE_IRQ_DETAILS, &h);
	if (r < 0) {
		log_error_errno(r, "show: cannot list the network interfaces through netlink: %m");
		return r == -EPERM || r == -EACCES ? EXIT_PERMISSION : EXIT_ERROR;
	}
	for (char **a = args; *a; a++)
		if (!host_state_iface(h, *a)) {
			log_error("show: no interface '%s' in this network namespace%s%s; "
				  "run 'cx5prof show' for the list",
				  *a, sysroot_is_live() ? "" : " nor under the sysroot ",
				  sysroot_is_live() ? "" : sysroot_get());
			return EXIT_NOT_FOUND;
		}

	out_open_object(NULL);
	out_open_array("interfaces");
	for (size_t i = 0; i < h->n_ifaces; i++) {
		if (i > 0)
			out_text("\n");
		print_iface(&h->ifaces[i]);
	}
	out_close_array();
	if (h->n_ifaces > 0)
		out_text("\n");
	print_host(h);
	out_close_object();
	r = out_finish();
	if (r < 0) {
		log_error_errno(r, "show: cannot write the result: %m");
		return EXIT_ERROR;
	}
	return EXIT_OK;
}
