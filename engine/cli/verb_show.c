/* verb_show.c: `cx5prof show [IFACE...]`: print the observed host state.
 *
 * Owns: the layout of the state for people (one short block per interface,
 * then host-wide facts) and for machines (schemas/state.schema.json), both
 * through output.h: a port's identity, device, driver and link, then each
 * change kind's own block (kinds.h: show_link, show_port, show_host), in
 * the kinds' order. Must never: change the host, read it except through
 * probe.h, or render a kind's state itself. */
#define _GNU_SOURCE
#include <inttypes.h>

#include "base/log.h"
#include "base/output.h"
#include "kinds/kinds.h"
#include "os/nicfacts.h"
#include "os/probe.h"
#include "os/sysroot.h"
#include "verbs.h"

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
	for (size_t i = 0; i < n_change_kinds; i++)
		if (change_kinds[i]->show_link)
			change_kinds[i]->show_link(s);
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
	kind_show_status(s->drvinfo_r);
	out_string(OUT_ANY, "driver", "%s", ok ? d->driver : NULL);
	out_string(OUT_ANY, "version", " %s", ok && *d->version ? d->version : NULL);
	out_string(OUT_ANY, "firmware", "  firmware %s", ok && *d->fw_version ? d->fw_version : NULL);
	out_string(OUT_ANY, "bus_info", "  bus %s", ok && *d->bus_info ? d->bus_info : NULL);
	out_text("\n");
	out_close_object();
}

static void print_iface(const struct iface_state *s)
{
	out_open_object(NULL);
	out_string(OUT_JSON, "name", NULL, s->name);
	print_identity(s);
	print_device(s);
	print_driver(s);
	print_link(s);
	for (size_t i = 0; i < n_change_kinds; i++)
		if (change_kinds[i]->show_port)
			change_kinds[i]->show_port(s);
	out_close_object();
}

static void print_host(const struct host_state *h)
{
	for (size_t i = 0; i < n_change_kinds; i++)
		if (change_kinds[i]->show_host)
			change_kinds[i]->show_host(h);

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

	r = cli_parse(cli, cli->verb, argc, argv, NULL, NULL, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	for (char **a = args; *a; a++)
		if (!ifname_valid(*a)) {
			log_error("show: invalid interface name '%s': 1-15 bytes without '/', whitespace, "
				  "'.' or '..'",
				  *a);
			return EXIT_USAGE;
		}
	r = kinds_probe_host(args[0] ? args : NULL, PROBE_IRQ_DETAILS, &h);
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
