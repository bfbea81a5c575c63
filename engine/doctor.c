/* doctor.c: the pre-benchmark checklist (see doctor.h).
 *
 * Owns: the table of checks and the wording of every verdict and fix.
 * Facts come from probe.h/nicfacts.h (ports), topology.h (NUMA), the
 * sysroot (PCIe, kernel log), counters.h, netprobe.h. Must never: change
 * the host, or probe anything but the profile's peer. */
#define _GNU_SOURCE
#include "doctor.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdarg.h>

#include "base/cpuset.h"
#include "base/exitcode.h"
#include "base/output.h"
#include "base/version.h"
#include "bench/runner.h"
#include "os/counters.h"
#include "os/governor.h"
#include "os/ethflowhash.h"
#include "os/ethsysroot.h"
#include "os/kernlog.h"
#include "os/netcounters.h"
#include "os/netprobe.h"
#include "os/nicfacts.h"
#include "os/pcicfg.h"
#include "kinds/flowhash.h"
#include "kinds/irqbalance.h"
#include "kinds/kinds.h"
#include "kinds/sysctl.h"
#include "os/probe.h"
#include "os/snapshot.h"
#include "os/sysroot.h"
#include "os/topology.h"
#include "os/txqueues.h"
#include "peer/peercheck.h"
#include "profile.h"
#include "requires.h"
#include "verify.h"

/* Without a profile, doctor judges against the seed's host: a 25G port at
 * full duplex and firmware no older than the one udp-jumbo.yaml requires. */
#define DEFAULT_LINK_SPEED   25000
#define DEFAULT_FIRMWARE_MIN "16.26.1040"

static const char *const kernel_logs[] = {"/var/log/kern.log", "/var/log/dmesg", "/var/log/messages"};

/* mlx5 firmware command failures, by function name (reference section 5). */
static const struct {
	const char *function;
	const char *also; /* a second needle on the same line, or NULL */
} timeout_patterns[] = {
    {"wait_func", "timeout"},
    {"wait_func_handle_exec_timeout", NULL},
    {"mlx5_cmd_comp_handler", "after timeout"},
    {"mlx5_init_one failed with error code -110", NULL},
};

const char *doctor_status_to_string(enum doctor_status s)
{
	static const char *const names[] = {
	    [DOCTOR_PASS] = "pass",
	    [DOCTOR_WARN] = "warn",
	    [DOCTOR_FAIL] = "fail",
	    [DOCTOR_SKIP] = "skip",
	};
	return (unsigned)s < ARRAY_SIZE(names) ? names[s] : NULL;
}

struct ctx {
	const struct doctor_options *o;
	const struct profile *p;
	const struct host_state *host;
	struct topology *topo;
	char **ports;
	struct doctor_report *r;
};

static int add(struct ctx *c, const char *object, const char *name, enum doctor_status st, const char *fix,
	       const char *fmt, ...) _printf_(6, 7);

static int add(struct ctx *c, const char *object, const char *name, enum doctor_status st, const char *fix,
	       const char *fmt, ...)
{
	struct doctor_report *r = c->r;
	struct doctor_check *n, *k;
	va_list ap;
	char *detail = NULL;

	n = realloc(r->checks, (r->n_checks + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	r->checks = n;
	va_start(ap, fmt);
	detail = vstrprintf(fmt, ap);
	va_end(ap);
	k = &n[r->n_checks];
	*k = (struct doctor_check){
	    .object = strdup(object),
	    .name = name,
	    .status = st,
	    .detail = detail,
	    .fix = fix && (st == DOCTOR_WARN || st == DOCTOR_FAIL) ? strdup(fix) : NULL,
	};
	r->n_checks++;
	r->count[st]++;
	if (!k->object || !k->detail || (fix && (st == DOCTOR_WARN || st == DOCTOR_FAIL) && !k->fix))
		return -ENOMEM;
	return 0;
}

/* ---- per port ---- */

static int check_model(struct ctx *c, const struct iface_state *s)
{
	const struct nic_info *n = &s->nic;

	if (!s->has_nic || !n->has_pci_id)
		return add(c, s->name, "model", DOCTOR_FAIL,
			   "run doctor on the host with the ConnectX-5 (or pass --sysroot)",
			   "no PCI device behind %s (a virtual interface)", s->name);
	if (n->is_connectx5)
		return add(c, s->name, "model", DOCTOR_PASS, NULL, "%s (%04x:%04x) at %s", n->model,
			   n->vendor, n->device, strna(n->pci_bdf));
	return add(c, s->name, "model", DOCTOR_FAIL,
		   "cx5prof's advice and thresholds are for ConnectX-5: check match.interfaces/match.pci",
		   "not a ConnectX-5: %s %04x:%04x",
		   n->model	    ? n->model
		   : n->is_mellanox ? "Mellanox"
				    : "vendor",
		   n->vendor, n->device);
}

/* The profile's requirements behind one check, as plan judges them
 * (requires.h): 1 when one is not met (FAIL) or does not apply to this
 * driver (WARN), the check then reported; 0 when every one is met, with
 * *ret_met the last comparison (NULL when there was none); -errno. */
static int check_requires(struct ctx *c, const struct iface_state *s, const char *check, char **ret_met)
{
	_cleanup_(requires_findings_done) struct requires_findings f = {0};
	const struct requires_finding *na = NULL, *met = NULL;
	int r;

	*ret_met = NULL;
	if (!c->p)
		return 0;
	r = requires_evaluate(c->p, s, &f);
	if (r < 0)
		return r;
	for (size_t i = 0; i < f.n; i++) {
		const struct requires_finding *x = &f.v[i];

		if (!streq(x->check, check))
			continue;
		if (x->verdict == REQUIRES_NOT_MET)
			return add(c, s->name, check, DOCTOR_FAIL, x->remedy, "%s", x->message) < 0 ? -ENOMEM
												    : 1;
		if (x->verdict == REQUIRES_NOT_APPLICABLE)
			na = na ? na : x;
		else
			met = x;
	}
	if (na)
		return add(c, s->name, check, DOCTOR_WARN, na->remedy, "%s", na->message) < 0 ? -ENOMEM : 1;
	if (met && !(*ret_met = strdup(met->message)))
		return -ENOMEM;
	return 0;
}

static int check_link(struct ctx *c, const struct iface_state *s)
{
	_cleanup_free_ char *duplex = NULL, *met = NULL;
	uint64_t speed, want = c->p && c->p->requires.link_speed.set ? c->p->requires.link_speed.value
								     : DEFAULT_LINK_SPEED;
	const char *want_duplex = c->p && c->p->requires.link_duplex.set
				      ? profile_duplex_to_string(c->p->requires.link_duplex.value)
				      : "full";
	int r = check_requires(c, s, "link", &met);

	if (r != 0)
		return r < 0 ? r : 0;
	r = nicfacts_link(s, &speed, &duplex);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return add(c, s->name, "link", DOCTOR_FAIL,
			   "check the cable, the transceiver and the switch port",
			   "link speed and duplex unknown (no link?)");
	if (speed != want || !streq(duplex, want_duplex))
		return add(c, s->name, "link", DOCTOR_FAIL,
			   "check the cable, the transceiver, autonegotiation and the switch port",
			   "%" PRIu64 " Mb/s %s duplex, expected %" PRIu64 " Mb/s %s", speed, duplex, want,
			   want_duplex);
	return add(c, s->name, "link", DOCTOR_PASS, NULL, "%" PRIu64 " Mb/s %s duplex", speed, duplex);
}

static int check_driver(struct ctx *c, const struct iface_state *s)
{
	const char *driver = nicfacts_driver(s);
	_cleanup_free_ char *version = NULL, *met = NULL;
	int r;

	if (!driver)
		return add(c, s->name, "driver", DOCTOR_FAIL, "load mlx5_core (modprobe mlx5_core)",
			   "no driver bound");
	r = check_requires(c, s, "driver", &met);
	if (r != 0)
		return r < 0 ? r : 0;
	if (!(c->p && c->p->requires.driver_name.set) && !streq(driver, "mlx5_core"))
		return add(c, s->name, "driver", DOCTOR_FAIL,
			   "bind the port to mlx5_core, or change requires.driver.name",
			   "driver %s, expected mlx5_core", driver);
	r = nicfacts_driver_version(s, &version);
	if (r == -ENOMEM)
		return r;
	return add(c, s->name, "driver", DOCTOR_PASS, NULL, "driver %s %s%s%s", driver,
		   version ? version : "(version unknown)", met ? ": " : "", met ? met : "");
}

static int check_firmware(struct ctx *c, const struct iface_state *s)
{
	const char *fw = nicfacts_firmware(s);
	_cleanup_free_ char *met = NULL;
	int cmp, r;

	if (c->p && c->p->requires.firmware_min_version.set) {
		r = check_requires(c, s, "firmware", &met);
		if (r != 0)
			return r < 0 ? r : 0;
		return add(c, s->name, "firmware", DOCTOR_PASS, NULL, "%s", met);
	}
	if (!fw)
		return add(c, s->name, "firmware", DOCTOR_WARN,
			   "load mlx5_ib or read it with `ethtool -i`; compare with the release notes",
			   "firmware version unknown");
	if (version_compare(fw, DEFAULT_FIRMWARE_MIN, &cmp) < 0)
		return add(c, s->name, "firmware", DOCTOR_WARN, "compare it by hand with the release notes",
			   "firmware %s cannot be compared with %s", fw, DEFAULT_FIRMWARE_MIN);
	if (cmp < 0)
		return add(c, s->name, "firmware", DOCTOR_WARN, "update the NIC firmware (mlxup or mstflint)",
			   "firmware %s is older than %s (cx5prof's recommended minimum)", fw,
			   DEFAULT_FIRMWARE_MIN);
	return add(c, s->name, "firmware", DOCTOR_PASS, NULL, "firmware %s (>= %s)", fw,
		   DEFAULT_FIRMWARE_MIN);
}

static int check_numa(struct ctx *c, const struct iface_state *s)
{
	unsigned nodes = c->topo ? c->topo->nnodes : 0;

	if (!s->has_nic || !s->nic.has_device)
		return add(c, s->name, "numa", DOCTOR_SKIP, NULL, "no PCI device");
	if (s->nic.numa_node >= 0)
		return add(c, s->name, "numa", DOCTOR_PASS, NULL, "NUMA node %d, local CPUs %s",
			   s->nic.numa_node, strna(s->nic.local_cpulist));
	if (nodes > 1)
		return add(
		    c, s->name, "numa", DOCTOR_WARN,
		    "enable NUMA reporting (ACPI SRAT) in the BIOS; until then set irq.cpulist by hand",
		    "the device reports no NUMA node (-1) on a host with %u nodes", nodes);
	return add(c, s->name, "numa", DOCTOR_PASS, NULL, "a host without NUMA; local CPUs %s",
		   strna(s->nic.local_cpulist));
}

int doctor_parse_pcie_speed(const char *s, double *ret)
{
	char *end;
	double v;

	if (!s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !(v > 0) || strncmp(end, " GT/s", 5) != 0)
		return -EINVAL;
	*ret = v;
	return 0;
}

static int check_pcie(struct ctx *c, const struct iface_state *s)
{
	const struct nic_info *n = &s->nic;
	double cur, max;

	if (!s->has_nic || !n->has_pcie_width || doctor_parse_pcie_speed(n->pcie_speed, &cur) < 0 ||
	    doctor_parse_pcie_speed(n->pcie_max_speed, &max) < 0)
		return add(c, s->name, "pcie", DOCTOR_SKIP, NULL, "PCIe link speed/width not readable");
	if (cur < max || n->pcie_width < n->pcie_max_width)
		return add(c, s->name, "pcie", DOCTOR_FAIL,
			   "seat the card in a slot wired for its full width and speed; check BIOS "
			   "bifurcation and ASPM",
			   "PCIe link degraded: %.1f GT/s x%u, capable of %.1f GT/s x%u", cur, n->pcie_width,
			   max, n->pcie_max_width);
	return add(c, s->name, "pcie", DOCTOR_PASS, NULL, "PCIe %.1f GT/s x%u (its maximum)", cur,
		   n->pcie_width);
}

/* Max Read Request Size below this makes each transmitted frame cost more
 * PCIe read requests; ConnectX tuning guides set 4096. */
#define MRRS_RECOMMENDED 4096

static int check_pcie_mrrs(struct ctx *c, const struct iface_state *s)
{
	unsigned mrrs;
	int r;

	if (!s->has_nic || !s->nic.pci_bdf)
		return add(c, s->name, "pcie-mrrs", DOCTOR_SKIP, NULL, "no PCI function");
	r = pcicfg_read_max_read_request(s->nic.pci_bdf, &mrrs);
	if (r == -ENOMEM)
		return r;
	if (r == -ENODATA)
		return add(
		    c, s->name, "pcie-mrrs", DOCTOR_SKIP, NULL,
		    "only the first 64 bytes of the PCI config space are readable: run doctor as root");
	if (r == -ENXIO)
		return add(c, s->name, "pcie-mrrs", DOCTOR_SKIP, NULL, "no PCI Express capability");
	if (r < 0)
		return add(c, s->name, "pcie-mrrs", DOCTOR_SKIP, NULL, "PCI config space unreadable: %s",
			   strerror(-r));
	if (mrrs < MRRS_RECOMMENDED)
		return add(
		    c, s->name, "pcie-mrrs", DOCTOR_WARN,
		    "raise it to 4096 in the BIOS PCIe settings, or with setpci (Device Control of the "
		    "PCI Express capability, bits 14:12 = 5); mlnx_tune reports it too",
		    "PCIe MaxReadReq %u bytes, below %u: each transmitted frame takes more read "
		    "requests",
		    mrrs, MRRS_RECOMMENDED);
	return add(c, s->name, "pcie-mrrs", DOCTOR_PASS, NULL, "PCIe MaxReadReq %u bytes", mrrs);
}

/* The port's NUMA-local CPUs when it has a node; false without. */
static bool local_cpus(const struct iface_state *s, struct cpuset *ret)
{
	return s->has_nic && s->nic.numa_node >= 0 && s->nic.local_cpulist &&
	       cpuset_parse_list(s->nic.local_cpulist, ret) >= 0 && cpuset_count(ret) > 0;
}

static bool subset_of(const struct cpuset *a, const struct cpuset *b)
{
	CPUSET_FOREACH(cpu, a)
	if (!cpuset_has(b, (unsigned)cpu))
		return false;
	return true;
}

/* Completion IRQs on CPU0 (which also takes the timer and most other
 * interrupts) or off the NIC's node. */
static int check_irq_placement(struct ctx *c, const struct iface_state *s)
{
	_cleanup_cpuset_ struct cpuset local = CPUSET_INIT;
	_cleanup_free_ char *local_list = NULL;
	bool has_local = local_cpus(s, &local);
	bool one_cpu = c->topo && cpuset_count(&c->topo->online) < 2;
	unsigned n = 0, known = 0, on_cpu0 = 0, off = 0, bad = 0;

	if (!s->has_nic || s->irqs_r == -ENODEV || !s->irqs || (s->irqs_r >= 0 && !s->irqs->pci_bdf))
		return add(c, s->name, "irq-placement", DOCTOR_SKIP, NULL, "no device IRQs");
	if (s->irqs_r < 0)
		return add(c, s->name, "irq-placement", DOCTOR_SKIP, NULL, "the IRQs cannot be read: %s",
			   strerror(-s->irqs_r));
	for (size_t i = 0; i < s->irqs->n; i++) {
		const struct irq_vector *v = &s->irqs->v[i];
		bool cpu0, away;

		if (v->kind != IRQ_KIND_COMPLETION)
			continue;
		n++;
		if (!v->has_affinity)
			continue;
		known++;
		cpu0 = !one_cpu && cpuset_has(&v->affinity, 0);
		away = has_local && !subset_of(&v->affinity, &local);
		on_cpu0 += cpu0;
		off += away;
		bad += cpu0 || away;
	}
	if (n == 0 || known == 0)
		return add(c, s->name, "irq-placement", DOCTOR_SKIP, NULL,
			   n ? "the completion IRQs' affinity cannot be read" : "no completion IRQs");
	if (has_local && cpuset_format_list(&local, &local_list) < 0)
		return -ENOMEM;
	if (bad)
		return add(c, s->name, "irq-placement", DOCTOR_FAIL,
			   "pin them with irq.policy: numa-local (and irq.irqbalance: stop) in the profile, "
			   "then apply it",
			   "%u of %u completion IRQs misplaced: %u may run on CPU0, %u off node %d%s%s%s",
			   bad, known, on_cpu0, off, s->nic.numa_node, local_list ? " (" : "",
			   local_list ? local_list : "", local_list ? ")" : "");
	if (has_local)
		return add(c, s->name, "irq-placement", DOCTOR_PASS, NULL,
			   "%u completion IRQs on node %d (%s), none on CPU0", known, s->nic.numa_node,
			   local_list);
	return add(c, s->name, "irq-placement", DOCTOR_PASS, NULL,
		   "%u completion IRQs, none on CPU0 (the port has no NUMA node)", known);
}

/* Transmit queues whose XPS mask is not where mlx5 would put it from the
 * IRQ map as it is now (xps.h). */
static int check_xps(struct ctx *c, const struct iface_state *s)
{
	_cleanup_(xps_state_done) struct xps_state x = {0};
	_cleanup_free_ int *cpu = NULL;
	_cleanup_free_ char *example = NULL;
	struct cpuset *want = NULL;
	unsigned nvec = 0, stale = 0;
	int r;

	if (!s->has_nic || !s->irqs || s->irqs_r < 0 || irq_list_count(s->irqs, IRQ_KIND_COMPLETION) == 0)
		return add(c, s->name, "xps", DOCTOR_SKIP, NULL, "no completion IRQs to follow");
	r = xps_read(s->name, &x);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || x.n_tx == 0)
		return add(c, s->name, "xps", DOCTOR_SKIP, NULL, "no transmit queues in sysfs");
	for (unsigned q = 0; q < x.n_tx; q++)
		if (x.tx_r[q] < 0)
			return add(c, s->name, "xps", DOCTOR_SKIP, NULL, "tx-%u/xps_cpus: %s", q,
				   x.tx_r[q] == -ENOENT ? "absent (a kernel without XPS)"
							: strerror(-x.tx_r[q]));
	for (size_t i = 0; i < s->irqs->n; i++)
		if (s->irqs->v[i].kind == IRQ_KIND_COMPLETION && (unsigned)s->irqs->v[i].queue + 1 > nvec)
			nvec = (unsigned)s->irqs->v[i].queue + 1;
	cpu = malloc(nvec * sizeof(*cpu));
	want = calloc(x.n_tx, sizeof(*want));
	if (!cpu || !want) {
		free(want);
		return -ENOMEM;
	}
	for (unsigned v = 0; v < nvec; v++)
		cpu[v] = -1;
	for (size_t i = 0; i < s->irqs->n; i++) {
		const struct irq_vector *v = &s->irqs->v[i];

		if (v->kind != IRQ_KIND_COMPLETION)
			continue;
		r = irq_vector_cpu(v);
		if (r == -ENOMEM) {
			free(want);
			return r;
		}
		if (r == -EDOM) {
			free(want);
			return add(
			    c, s->name, "xps", DOCTOR_SKIP, NULL,
			    "the completion IRQ of queue %d may run on several CPUs and the kernel shows "
			    "no one CPU it runs on: no CPU for XPS to follow (pin the IRQs: irq.policy)",
			    v->queue);
		}
		cpu[v->queue] = r < 0 ? -1 : r;
	}
	r = xps_follow_irqs(x.n_tx, x.n_rx ? x.n_rx : nvec, cpu, nvec, want);
	for (unsigned q = 0; r >= 0 && q < x.n_tx; q++) {
		_cleanup_free_ char *have = NULL, *should = NULL;

		if (cpuset_equal(&x.tx[q], &want[q]))
			continue;
		if (stale++ == 0 &&
		    (cpuset_format_list(&x.tx[q], &have) < 0 || cpuset_format_list(&want[q], &should) < 0 ||
		     !(example =
			   strprintf("tx-%u on CPU %s, its IRQ on %s", q, *have ? have : "none", should))))
			r = -ENOMEM;
	}
	for (unsigned q = 0; q < x.n_tx; q++)
		cpuset_done(&want[q]);
	free(want);
	if (r < 0)
		return r;
	if (stale)
		return add(c, s->name, "xps", DOCTOR_WARN,
			   "set link.xps: auto in the profile and apply it: the queues then follow their "
			   "completion IRQs",
			   "%u of %u transmit queues send from other CPUs than their completion IRQ's "
			   "(stale XPS: %s)",
			   stale, x.n_tx, example);
	return add(c, s->name, "xps", DOCTOR_PASS, NULL,
		   "each of %u transmit queues sends from its completion IRQ's CPU", x.n_tx);
}

/* UDP over IPv4 hashed without the ports: every flow between two hosts
 * lands on one receive queue. */
static int check_flow_hash(struct ctx *c, const struct iface_state *s)
{
	_cleanup_free_ char *letters = NULL, *file = NULL;
	uint64_t v;
	int r;

	/* A port in the kernel (or a snapshot's record of it): what the probe
	 * read; one only the sysroot describes: its ethtool text, if any. */
	if (s->present)
		r = flow_hash_probed(s, ETH_FLOW_UDP4, &v);
	else {
		r = ethsysroot_file(s->name, "rx-flow-hash-udp4", &file);
		r = r < 0 ? r : r == 0 ? -ENODEV : ethtool_get_flow_hash(s->name, ETH_FLOW_UDP4, &v, NULL);
	}
	if (r == -EOPNOTSUPP || r == -ENODEV)
		return add(c, s->name, "flow-hash", DOCTOR_SKIP, NULL,
			   r == -ENODEV ? "not in this network namespace"
					: "the driver does not report its UDP flow hash");
	if (r < 0)
		return add(c, s->name, "flow-hash", DOCTOR_SKIP, NULL, "the UDP flow hash cannot be read: %s",
			   strerror(-r));
	letters = eth_flow_hash_format(v);
	if (!letters)
		return -ENOMEM;
	if (!eth_flow_hash_has_ports(v))
		return add(c, s->name, "flow-hash", DOCTOR_WARN,
			   "set link.flow_hash.udp4: sdfn in the profile and apply it (ethtool -N DEV "
			   "rx-flow-hash udp4 sdfn)",
			   "udp4 flows are hashed without the UDP ports (%s): every flow between two hosts "
			   "lands on one receive queue",
			   *letters ? letters : "none");
	return add(c, s->name, "flow-hash", DOCTOR_PASS, NULL,
		   "udp4 flows hashed on addresses and ports (%s)", letters);
}

static int check_counters(struct ctx *c, const struct iface_state *s)
{
	struct counter_snapshot a = {0}, b = {0};
	_cleanup_free_ struct counter_delta *d = NULL;
	_cleanup_free_ char *list = NULL;
	size_t n = 0, rising = 0;
	int r;

	if (!s->present)
		return add(c, s->name, "counters", DOCTOR_SKIP, NULL, "not in this network namespace");
	if (snapshot_active())
		return add(c, s->name, "counters", DOCTOR_SKIP, NULL,
			   "a snapshot: the counters move on the host itself");
	r = counters_snapshot(s->name, &a);
	if (r >= 0) {
		usleep(c->o->counter_interval_ms * 1000);
		r = counters_snapshot(s->name, &b);
	}
	if (r >= 0)
		r = counters_diff(&a, &b, &d, &n);
	counter_snapshot_done(&a);
	counter_snapshot_done(&b);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return add(c, s->name, "counters", DOCTOR_SKIP, NULL, "statistics unavailable: %s",
			   strerror(-r));
	if (n == 0)
		return add(c, s->name, "counters", DOCTOR_SKIP, NULL,
			   "the driver reports none of the watched drop counters");
	for (size_t i = 0; i < n; i++) {
		char *l;
		if (!d[i].rising)
			continue;
		l = strprintf("%s%s%s +%" PRIu64 " (%s)", list ? list : "", list ? "; " : "", d[i].def->name,
			      d[i].delta, d[i].def->meaning);
		if (!l)
			return -ENOMEM;
		free(list);
		list = l;
		rising++;
	}
	if (rising)
		return add(c, s->name, "counters", DOCTOR_WARN, d[0].def->remedy,
			   "drop counters rising while idle: %s", list);
	return add(c, s->name, "counters", DOCTOR_PASS, NULL, "no drop counter rose in %u ms",
		   c->o->counter_interval_ms);
}

/* The kernel's drop counters of the loss ledger (netcounters.h) that
 * should not rise while nothing runs, with what a rise means. */
static const struct {
	const char *name;
	const char *meaning;
} idle_drop_counters[] = {
    {"UdpRcvbufErrors", "a UDP socket's receive buffer overflowed"},
    {"UdpMemErrors", "UDP memory (net.ipv4.udp_mem) ran out"},
    {"UdpInCsumErrors", "UDP datagrams arrived with bad checksums"},
    {"Udp6RcvbufErrors", "a UDP6 socket's receive buffer overflowed"},
    {"Udp6InCsumErrors", "UDP6 datagrams arrived with bad checksums"},
    {"IpReasmFails", "IP reassembly failed"},
    {"IpInDiscards", "the IP layer discarded received packets"},
    {"softnet.dropped", "a CPU's receive backlog was full (host-wide)"},
    {"qdisc.drops", "the transmit queue dropped packets"},
    {"link.rx_dropped", "the device dropped received packets"},
    {"link.tx_dropped", "the device dropped packets to send"},
    {"link.rx_crc_errors", "frames arrived damaged"},
};

/* The same idle window for the kernel's counters: the port's device and
 * qdisc, this namespace's UDP and IP, the host's receive backlogs. */
int doctor_idle_drops(const struct netcounters *a, const struct netcounters *b, unsigned interval_ms,
		      char **ret_detail)
{
	_cleanup_free_ char *list = NULL;
	char *detail;

	for (size_t i = 0; i < ARRAY_SIZE(idle_drop_counters); i++) {
		const char *name = idle_drop_counters[i].name;
		uint64_t va, vb, d;
		char *l;

		if (!netcounters_get(a, name, &va) || !netcounters_get(b, name, &vb))
			continue;
		d = netcounter_rise(name, va, vb);
		if (d == 0)
			continue;
		l = strprintf("%s%s%s +%" PRIu64 " (%s)", list ? list : "", list ? "; " : "", name, d,
			      idle_drop_counters[i].meaning);
		if (!l)
			return -ENOMEM;
		free(list);
		list = l;
	}
	if (list)
		detail = strprintf("kernel drop counters rising while idle: %s", list);
	else if (b->unavailable)
		detail = strprintf("no kernel drop counter rose in %u ms (unread: %s)", interval_ms,
				   b->unavailable[0]);
	else
		detail = strprintf(
		    "no kernel drop counter rose in %u ms (UDP, IP, receive backlog, qdisc, device)",
		    interval_ms);
	if (!detail)
		return -ENOMEM;
	*ret_detail = detail;
	return list ? DOCTOR_WARN : DOCTOR_PASS;
}

static int check_idle_drops(struct ctx *c, const struct iface_state *s)
{
	_cleanup_(netcounters_done) struct netcounters a = {0}, b = {0};
	_cleanup_free_ char *detail = NULL;
	int r;

	if (!s->present)
		return add(c, s->name, "idle-drops", DOCTOR_SKIP, NULL, "not in this network namespace");
	r = netcounters_take(s->name, &a);
	if (r >= 0) {
		usleep(c->o->counter_interval_ms * 1000);
		r = netcounters_take(s->name, &b);
	}
	if (r >= 0)
		r = doctor_idle_drops(&a, &b, c->o->counter_interval_ms, &detail);
	if (r < 0)
		return r;
	return add(c, s->name, "idle-drops", r,
		   r == DOCTOR_WARN
		       ? "something else on this host drops packets: find it (ss -uanp, tc -s qdisc, "
			 "/proc/net/softnet_stat); the loss ledger subtracts the idle rate, but a "
			 "busy host measures less"
		       : NULL,
		   "%s", detail);
}

static const struct port_check {
	const char *name;
	int (*run)(struct ctx *c, const struct iface_state *s);
} port_checks[] = {
    {"model", check_model},
    {"link", check_link},
    {"driver", check_driver},
    {"firmware", check_firmware},
    {"numa", check_numa},
    {"pcie", check_pcie},
    {"pcie-mrrs", check_pcie_mrrs},
    {"irq-placement", check_irq_placement},
    {"xps", check_xps},
    {"flow-hash", check_flow_hash},
    {"counters", check_counters},
    {"idle-drops", check_idle_drops},
};

/* ---- host ---- */

/* The fix opens the benchmark's ports, never stops the firewall: with
 * firewalld, the services cx5prof ships (contrib/firewalld/); else the
 * ports themselves. The first row whose evidence matches wins. */
static const struct {
	const char *evidence; /* a part of firewall_state.evidence; NULL: any */
	const char *fix;
} firewall_fixes[] = {
    {"process firewalld",
     "open the benchmark's ports, keep firewalld running: firewall-cmd --permanent "
     "--add-service=cx5prof-serve --add-service=cx5prof-netserver && firewall-cmd --reload "
     "(on both hosts; the services come with the cx5prof packages, contrib/firewalld/); "
     "iperf3: --add-port=5201/tcp --add-port=5201/udp"},
    {NULL, "open the benchmark's ports from the peer, keep the filter: TCP 12866 (cx5prof serve), "
	   "TCP 12865 (netserver), TCP and UDP 5201 (iperf3), and UDP 32768-60999 (their data ports, "
	   "net.ipv4.ip_local_port_range)"},
};

static int check_firewall(struct ctx *c)
{
	const char *ev = c->host->firewall.evidence;

	if (!c->host->firewall.active)
		return add(c, "host", "firewall", DOCTOR_PASS, NULL, "no packet filter active");
	for (size_t i = 0; i < ARRAY_SIZE(firewall_fixes); i++)
		if (!firewall_fixes[i].evidence || (ev && strstr(ev, firewall_fixes[i].evidence)))
			return add(c, "host", "firewall", DOCTOR_WARN, firewall_fixes[i].fix,
				   "a packet filter is active (%s): the benchmark's ports may be blocked",
				   strna(ev));
	return -EINVAL; /* unreachable: the last row matches any evidence */
}

static int check_irqbalance(struct ctx *c)
{
	if (!irqbalance_probed(c->host)->running)
		return add(c, "host", "irqbalance", DOCTOR_PASS, NULL, "irqbalance is not running");
	const char *mode = c->p ? kinds_key_enum_name(c->p, "irq.irqbalance") : NULL;

	if (mode && !streq(mode, "leave"))
		return add(c, "host", "irqbalance", DOCTOR_WARN,
			   "apply the profile: it stops or bans irqbalance",
			   "irqbalance is running and may move the IRQ pins");
	return add(c, "host", "irqbalance", DOCTOR_WARN,
		   "set irq.irqbalance: stop (or ban) in the profile and apply it",
		   "irqbalance is running: it overwrites manual IRQ pins");
}

/* The socket buffer limits against the profile's verify.socket_buffer:
 * a request above net.core.rmem_max (wmem_max) is clamped silently, so
 * `netperf -S 4M` would measure with 208 KiB. */
static int check_buffers(struct ctx *c)
{
	static const struct {
		enum sysctl_key key;
		const char *name, *side;
		size_t want; /* offset of the struct profile_uint in struct profile */
	} limits[] = {
	    {SYSCTL_RMEM_MAX, "rmem_max", "receive", offsetof(struct profile, verify.socket_receive)},
	    {SYSCTL_WMEM_MAX, "wmem_max", "send", offsetof(struct profile, verify.socket_send)},
	};
	_cleanup_free_ char *low = NULL, *met = NULL;
	bool any = false;

	for (size_t i = 0; i < ARRAY_SIZE(limits); i++) {
		const struct profile_uint *w =
		    c->p ? (const struct profile_uint *)((const char *)c->p + limits[i].want) : NULL;
		const struct sysctl_state *st = sysctl_probed(c->host, limits[i].key);
		char **into;
		char *n;

		if (!w || !w->set)
			continue;
		any = true;
		if (st->r < 0)
			return add(c, "host", "buffers", DOCTOR_SKIP, NULL, "net.core.%s cannot be read: %s",
				   limits[i].name, strerror(-st->r));
		into = st->value.v[0] < w->value ? &low : &met;
		n = strprintf("%s%snet.core.%s %" PRIu64 " %s verify.socket_buffer.%s %" PRIu64,
			      *into ? *into : "", *into ? ", " : "", limits[i].name, st->value.v[0],
			      into == &low ? "<" : ">=", limits[i].side, w->value);
		if (!n)
			return -ENOMEM;
		free(*into);
		*into = n;
	}
	if (!any)
		return add(c, "host", "buffers", DOCTOR_SKIP, NULL,
			   "no verify.socket_buffer in the profile to compare net.core.rmem_max and wmem_max "
			   "with");
	if (low)
		return add(c, "host", "buffers", DOCTOR_WARN,
			   "raise them with sysctl floors (net.core.rmem_max: \">= 4M\") in the profile and "
			   "apply it",
			   "%s: the benchmark's socket buffers would be clamped silently (netperf -s/-S)",
			   low);
	return add(c, "host", "buffers", DOCTOR_PASS, NULL, "%s", met);
}

/* The governor of the CPUs that take the ports' interrupts: the matched
 * ports' NUMA-local CPUs (every online CPU without NUMA). */
static int check_cpufreq(struct ctx *c)
{
	_cleanup_cpuset_ struct cpuset cpus = CPUSET_INIT, slow = CPUSET_INIT, fast = CPUSET_INIT;
	_cleanup_free_ char *slow_list = NULL, *fast_list = NULL, *governor = NULL;
	unsigned none = 0;
	int r;

	for (char **n = c->ports; n && *n; n++) {
		_cleanup_cpuset_ struct cpuset local = CPUSET_INIT;

		if (local_cpus(host_state_iface(c->host, *n), &local) && (r = cpuset_or(&cpus, &local)) < 0)
			return r;
	}
	if (cpuset_count(&cpus) == 0 && c->topo && (r = cpuset_copy(&c->topo->online, &cpus)) < 0)
		return r;
	CPUSET_FOREACH(cpu, &cpus)
	{
		_cleanup_free_ char *g = NULL;
		bool performance;

		r = governor_read((unsigned)cpu, &g);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			none++;
			continue;
		}
		performance = streq(g, "performance");
		if (!performance && !governor)
			governor = TAKE_PTR(g); /* the first other one, to name */
		r = cpuset_add(performance ? &fast : &slow, (unsigned)cpu);
		if (r < 0)
			return r;
	}
	if (cpuset_count(&fast) + cpuset_count(&slow) == 0)
		return add(c, "host", "cpufreq", DOCTOR_SKIP, NULL,
			   "no cpufreq driver (a virtual machine, or the firmware sets the frequency)");
	if (cpuset_format_list(&slow, &slow_list) < 0 || cpuset_format_list(&fast, &fast_list) < 0)
		return -ENOMEM;
	if (cpuset_count(&slow))
		return add(
		    c, "host", "cpufreq", DOCTOR_WARN,
		    "set host.cpufreq.governor: performance in the profile and apply it (mlnx_tune and "
		    "tuned set it too)",
		    "the NIC-local CPUs %s run the %s governor%s: a core at a low frequency caps a "
		    "single UDP stream",
		    slow_list, governor, cpuset_count(&fast) ? " (others: performance)" : "");
	return add(c, "host", "cpufreq", DOCTOR_PASS, NULL,
		   "the performance governor on the NIC-local CPUs %s%s", fast_list,
		   none ? " (some CPUs have no cpufreq)" : "");
}

int doctor_scan_kernel_log(const char *text, unsigned *ret_count, char **ret_first)
{
	unsigned count = 0;
	char *first = NULL;

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		_cleanup_free_ char *l = strndup(line, len);

		if (!l) {
			free(first);
			return -ENOMEM;
		}
		if (strstr(l, "mlx5_core"))
			for (size_t i = 0; i < ARRAY_SIZE(timeout_patterns); i++)
				if (strstr(l, timeout_patterns[i].function) &&
				    (!timeout_patterns[i].also || strstr(l, timeout_patterns[i].also))) {
					count++;
					if (!first)
						first = TAKE_PTR(l);
					break;
				}
		line = nl ? nl + 1 : NULL;
	}
	*ret_count = count;
	if (ret_first)
		*ret_first = first;
	else
		free(first);
	return 0;
}

static int judge_kernel_log(struct ctx *c, const char *text, const char *source)
{
	_cleanup_free_ char *first = NULL;
	unsigned n = 0;
	int r = doctor_scan_kernel_log(text, &n, &first);

	if (r < 0)
		return r;
	if (n > 0)
		return add(c, "host", "kernel-log", DOCTOR_FAIL,
			   "the firmware command interface is stuck: update the NIC firmware and the "
			   "driver; a "
			   "reboot or `mlxfwreset` recovers it",
			   "%u mlx5 firmware command timeout%s in %s, first: %s", n, n == 1 ? "" : "s",
			   source, first);
	return add(c, "host", "kernel-log", DOCTOR_PASS, NULL, "no mlx5 firmware command timeouts in %s",
		   source);
}

/* This boot's ring buffer first, as `dmesg | grep mlx5` reads it; the log
 * files where it cannot be read. */
static int check_kernel_log(struct ctx *c)
{
	_cleanup_free_ char *ring = NULL;
	const char *source = NULL;
	int r = kernlog_read(&ring, &source);

	if (r == -ENOMEM)
		return r;
	if (r >= 0)
		return judge_kernel_log(c, ring, source);
	for (size_t i = 0; i < ARRAY_SIZE(kernel_logs); i++) {
		_cleanup_free_ char *text = NULL;

		r = sysroot_read_all(kernel_logs[i], &text, NULL);
		if (r == -ENOENT)
			continue;
		if (r < 0)
			return add(c, "host", "kernel-log", DOCTOR_SKIP, NULL, "%s unreadable: %s",
				   kernel_logs[i], strerror(-r));
		return judge_kernel_log(c, text, kernel_logs[i]);
	}
	return add(c, "host", "kernel-log", DOCTOR_SKIP, NULL,
		   "no kernel ring buffer (/dev/kmsg%s) and no kernel log file (/var/log/kern.log, "
		   "/var/log/dmesg, /var/log/messages)",
		   sysroot_is_live() ? ", journalctl -k" : "");
}

static const struct host_check {
	const char *name;
	int (*run)(struct ctx *c);
} host_checks[] = {
    {"firewall", check_firewall}, {"irqbalance", check_irqbalance}, {"buffers", check_buffers},
    {"cpufreq", check_cpufreq},	  {"kernel-log", check_kernel_log},
};

/* ---- peer ---- */

/* The peer: --peer, else the profile's verify.peer; NULL with the reason. */
static const char *peer_of(const struct ctx *c, const char **ret_why)
{
	*ret_why =
	    c->p ? "no verify.peer in the profile" : "no profile and no --peer: the peer is not checked";
	if (snapshot_active()) {
		*ret_why = "a snapshot: the path to the peer is checked on the host itself";
		return NULL;
	}
	if (c->o->peer)
		return c->o->peer;
	return c->p && c->p->verify.peer.set ? c->p->verify.peer.value : NULL;
}

/* The port of the runner verify would use: the first available of the
 * profile's list (without a profile, verify's defaults), with verify's own
 * parameters (verify_bench_params). */
static int check_peer_port(struct ctx *c)
{
	static const struct profile no_profile; /* every key unset: the defaults */
	_cleanup_free_ char *skipped = NULL, *via = NULL;
	const char *why, *peer = peer_of(c, &why);
	const struct runner *rn = NULL;
	struct runner_params params;
	char *const *runners;
	uint16_t port;
	int r;

	if (!peer)
		return add(c, "peer", "peer-port", DOCTOR_SKIP, NULL, "%s", why);
	verify_bench_params(c->p ? c->p : &no_profile, &params, &runners);
	params.peer = peer;
	r = runner_select(runners, &params, &rn, &skipped);
	if (r == -ENOMEM)
		return r;
	for (char *n = skipped; n && *n; n++)
		if (*n == '\n')
			*n = ';';
	if (r < 0)
		return add(
		    c, peer, "peer-port", DOCTOR_FAIL,
		    "install netperf or iperf3 (contrib/install-deps.sh), or add builtin to verify.runner",
		    "no runner of the profile can run: %s", strna(skipped));
	port = params.port ? params.port : rn->default_port;
	/* Say why verify would not use the first runner listed. */
	if (skipped && !(via = strprintf(" (%s; %s)", rn->name, skipped)))
		return -ENOMEM;
	r = netprobe_tcp(peer, port, c->o->probe_timeout_ms);
	if (r == 0)
		return add(c, peer, "peer-port", DOCTOR_PASS, NULL, "%s:%u accepts connections%s", peer, port,
			   via ? via : "");
	if (r == -ECONNREFUSED)
		return add(c, peer, "peer-port", DOCTOR_FAIL,
			   "start the benchmark server on the peer (`netserver -p 12865`, `iperf3 -s`, "
			   "`cx5prof serve`) "
			   "and check its firewall",
			   "nothing listens on %s:%u%s", peer, port, via ? via : "");
	return add(c, peer, "peer-port", DOCTOR_FAIL,
		   "check the route to the peer and any firewall in between", "%s:%u unreachable: %s%s", peer,
		   port, r == -EINVAL ? "cannot resolve the address" : strerror(-r), via ? via : "");
}

static int check_jumbo(struct ctx *c)
{
	const struct iface_state *s = c->ports ? host_state_iface(c->host, c->ports[0]) : NULL;
	const char *why, *peer = peer_of(c, &why);
	uint32_t mtu = 0, path_mtu = 0;
	enum df_result res;
	int r;

	if (!peer)
		return add(c, "peer", "jumbo-path", DOCTOR_SKIP, NULL, "%s", why);
	if (c->p && kinds_key_uint(c->p, "link.mtu"))
		mtu = (uint32_t)kinds_key_uint(c->p, "link.mtu")->value;
	else if (s && s->present)
		mtu = s->link.mtu;
	if (mtu <= 1500)
		return add(c, peer, "jumbo-path", DOCTOR_SKIP, NULL, "MTU %u: no jumbo frames to test", mtu);
	r = netprobe_df(peer, mtu, c->o->probe_timeout_ms, &res, &path_mtu);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return add(c, peer, "jumbo-path", DOCTOR_SKIP, NULL, "cannot probe (%s): run doctor as root",
			   strerror(-r));
	switch (res) {
	case DF_PASSED:
		return add(c, peer, "jumbo-path", DOCTOR_PASS, NULL, "%u-byte frames with DF set reach %s",
			   mtu, peer);
	case DF_LOCAL_TOO_SMALL:
		return add(c, peer, "jumbo-path", DOCTOR_FAIL,
			   "apply the profile's MTU to the port (and the route)",
			   "the route to %s has MTU %u, smaller than %u", peer, path_mtu, mtu);
	case DF_DROPPED:
		return add(c, peer, "jumbo-path", DOCTOR_FAIL,
			   "raise the MTU on every switch port on the path and on the peer's NIC",
			   "%s answers small pings but not %u-byte ones with DF set: a switch in between (or "
			   "the peer) "
			   "drops jumbo frames",
			   peer, mtu - 28);
	default:
		return add(c, peer, "jumbo-path", DOCTOR_WARN, "allow ICMP echo on the peer to test the path",
			   "%s answers no ICMP echo: the jumbo path is not tested", peer);
	}
}

/* Model, driver and firmware of a port as `show --json` writes them. */
struct port_id {
	const char *model, *driver, *driver_version, *firmware;
};

static const char *json_str(struct json_object *o, const char *a, const char *b)
{
	struct json_object *v = NULL;

	if (!o || !json_object_object_get_ex(o, a, &v) || !v)
		return NULL;
	if (b && (!json_object_is_type(v, json_type_object) || !json_object_object_get_ex(v, b, &v) || !v))
		return NULL;
	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static void peer_port_id(struct json_object *iface, struct port_id *id)
{
	id->model = json_str(iface, "model", NULL);
	id->driver = json_str(iface, "device", "driver") ?: json_str(iface, "ethtool_driver", "driver");
	id->driver_version =
	    json_str(iface, "device", "driver_version") ?: json_str(iface, "ethtool_driver", "version");
	id->firmware = json_str(iface, "device", "firmware") ?: json_str(iface, "ethtool_driver", "firmware");
}

static void local_port_id(const struct iface_state *s, struct port_id *id)
{
	bool kernel = s->present && s->drvinfo_r == 0;

	id->model = s->has_nic ? s->nic.model : NULL;
	id->driver = nicfacts_driver(s);
	id->driver_version = s->has_nic && s->nic.driver_version ? s->nic.driver_version
			     : kernel && *s->drvinfo.version	 ? s->drvinfo.version
								 : NULL;
	id->firmware = nicfacts_firmware(s);
}

static int check_peer_state(struct ctx *c)
{
	const char *path = c->o->peer_state;
	const struct iface_state *s = c->ports ? host_state_iface(c->host, c->ports[0]) : NULL;
	struct json_object *root, *ifs = NULL, *peer_if = NULL;
	struct port_id mine = {0}, theirs = {0};
	_cleanup_free_ char *diff = NULL, *same = NULL;
	int r = 0;
	const struct {
		const char *what;
		const char **a, **b;
		bool version;
	} fields[] = {
	    {"model", &mine.model, &theirs.model, false},
	    {"driver", &mine.driver, &theirs.driver, false},
	    {"driver version", &mine.driver_version, &theirs.driver_version, true},
	    {"firmware", &mine.firmware, &theirs.firmware, true},
	};

	if (!path)
		return 0;
	root = json_object_from_file(path);
	if (!root)
		return add(c, path, "peer-state", DOCTOR_FAIL,
			   "write it on the peer with `cx5prof show --json > FILE`",
			   "cannot read %s as JSON: %s", path, json_util_get_last_err() ?: "unreadable");
	if (json_object_object_get_ex(root, "interfaces", &ifs) && json_object_is_type(ifs, json_type_array))
		for (size_t i = 0; i < json_object_array_length(ifs) && !peer_if; i++) {
			struct json_object *e = json_object_array_get_idx(ifs, i), *cx = NULL;
			if (json_object_object_get_ex(e, "connectx5", &cx) && json_object_get_boolean(cx))
				peer_if = e;
		}
	if (!peer_if || !s) {
		r = add(c, path, "peer-state", DOCTOR_FAIL,
			"compare with a `cx5prof show --json` of the peer's ConnectX-5 host", "%s",
			!peer_if ? "the peer's state lists no ConnectX-5 port" : "no local port to compare");
		json_object_put(root);
		return r;
	}
	peer_port_id(peer_if, &theirs);
	local_port_id(s, &mine);
	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(fields); i++) {
		const char *a = *fields[i].a, *b = *fields[i].b;
		char **into;
		char *n;

		if (!a || !b)
			continue; /* unknown on one side: nothing to compare */
		if (fields[i].version ? version_same(a, b) : streq(a, b)) {
			into = &same;
			n = strprintf("%s%s%s %s", same ? same : "", same ? ", " : "", fields[i].what, a);
		} else {
			into = &diff;
			n = strprintf("%s%s%s: %s here, %s on the peer", diff ? diff : "", diff ? "; " : "",
				      fields[i].what, a, b);
		}
		if (!n)
			r = -ENOMEM;
		else {
			free(*into);
			*into = n;
		}
	}
	json_object_put(root);
	if (r < 0)
		return r;
	if (diff)
		return add(c, s->name, "peer-state", DOCTOR_FAIL,
			   "run both ends with the same NIC model, driver and firmware, or compare results "
			   "only between "
			   "like hosts",
			   "results are not comparable: %s", diff);
	return add(c, s->name, "peer-state", DOCTOR_PASS, NULL, "same as the peer: %s",
		   same ? same : "nothing known");
}

/* What a `cx5prof serve` on the peer says (peercheck.h): its MTU, rmem_max,
 * driver and firmware against this host's first port. The path itself is
 * jumbo-path's. */
static int check_peer_serve(struct ctx *c)
{
	static const enum doctor_status status[_PEERCHECK_MAX] = {[PEERCHECK_PASS] = DOCTOR_PASS,
								  [PEERCHECK_WARN] = DOCTOR_WARN,
								  [PEERCHECK_FAIL] = DOCTOR_FAIL,
								  [PEERCHECK_SKIP] = DOCTOR_SKIP};
	const char *why, *peer = peer_of(c, &why);
	_cleanup_(peercheck_done) struct peercheck pc = {0};
	const struct profile *p = c->p;
	struct peercheck_input in = {
	    .peer = peer,
	    .serve_port = peercheck_serve_port(p),
	    .timeout_ms = c->o->probe_timeout_ms,
	    .local = c->ports ? host_state_iface(c->host, c->ports[0]) : NULL,
	    .recv_buffer = p && p->verify.socket_receive.set ? p->verify.socket_receive.value : 0,
	    .must_match = p && p->verify.peer_must_match.set && p->verify.peer_must_match.value,
	};
	int r;

	if (!peer)
		return 0; /* peer-port said why */
	r = peercheck_run(&in, &pc);
	for (size_t i = 0; r >= 0 && i < pc.n; i++)
		r = add(c, peer, pc.f[i].name, status[pc.f[i].status], pc.f[i].fix, "%s", pc.f[i].detail);
	return r;
}

static const struct host_check peer_checks[] = {
    {"peer-port", check_peer_port},
    {"jumbo-path", check_jumbo},
    {"peer-serve", check_peer_serve},
    {"peer-state", check_peer_state},
};

/* ---- the whole ---- */

static int select_ports(struct ctx *c)
{
	for (size_t i = 0; i < c->host->n_ifaces; i++) {
		const struct iface_state *s = &c->host->ifaces[i];
		bool pick;

		if (c->p)
			pick =
			    profile_match(c->p, s->name, s->has_nic && s->nic.has_pci_id ? s->nic.vendor : 0,
					  s->has_nic && s->nic.has_pci_id ? s->nic.device : 0);
		else
			pick = s->has_nic && s->nic.is_connectx5;
		if (pick && strv_extend(&c->ports, s->name) < 0)
			return -ENOMEM;
	}
	return 0;
}

int doctor_run(const struct doctor_options *o, struct doctor_report **ret)
{
	_cleanup_host_state_ struct host_state *host = NULL;
	_cleanup_topology_ struct topology *topo = NULL;
	_cleanup_strv_free_ char **ports = NULL;
	struct doctor_report *r = calloc(1, sizeof(*r));
	struct ctx c = {.o = o, .p = o->profile, .r = r};
	int rr;

	if (!r)
		return -ENOMEM;
	if (o->profile && o->profile->name.set && !(r->profile_name = strdup(o->profile->name.value))) {
		doctor_report_free(r);
		return -ENOMEM;
	}
	rr = kinds_probe_host(NULL, 0, &host);
	if (rr < 0) {
		doctor_report_free(r);
		return rr;
	}
	if (topology_read(&topo) < 0)
		topo = NULL;
	c.host = host;
	c.topo = topo;
	rr = select_ports(&c);
	ports = c.ports;
	if (rr >= 0 && !c.ports)
		rr = add(&c, "host", "model", DOCTOR_FAIL,
			 c.p ? "check match.interfaces and match.pci in the profile"
			     : "run doctor on the ConnectX-5 host (or pass --sysroot)",
			 "%s", c.p ? "no interface matches the profile" : "no ConnectX-5 port found");
	for (char **n = c.ports; rr >= 0 && n && *n; n++)
		for (size_t k = 0; rr >= 0 && k < ARRAY_SIZE(port_checks); k++)
			rr = port_checks[k].run(&c, host_state_iface(host, *n));
	for (size_t k = 0; rr >= 0 && k < ARRAY_SIZE(host_checks); k++)
		rr = host_checks[k].run(&c);
	for (size_t k = 0; rr >= 0 && k < ARRAY_SIZE(peer_checks); k++)
		rr = peer_checks[k].run(&c);
	if (rr < 0) {
		doctor_report_free(r);
		return rr;
	}
	*ret = r;
	return 0;
}

void doctor_report_free(struct doctor_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_checks; i++) {
		free(r->checks[i].object);
		free(r->checks[i].detail);
		free(r->checks[i].fix);
	}
	free(r->checks);
	free(r->profile_name);
	free(r);
}

int doctor_exit_code(const struct doctor_report *r)
{
	return r->count[DOCTOR_FAIL] ? EXIT_PRECONDITION : EXIT_OK;
}

void doctor_render(const struct doctor_report *r)
{
	out_open_object(NULL);
	out_string(OUT_JSON, "profile", NULL, r->profile_name);
	out_open_array("checks");
	for (size_t i = 0; i < r->n_checks; i++) {
		const struct doctor_check *k = &r->checks[i];
		char status[8];

		snprintf(status, sizeof(status), "%s", doctor_status_to_string(k->status));
		for (char *p = status; *p; p++)
			*p = (char)(*p - 'a' + 'A');
		out_open_object(NULL);
		out_string(OUT_JSON, "object", NULL, k->object);
		out_string(OUT_JSON, "check", NULL, k->name);
		out_string(OUT_JSON, "status", NULL, doctor_status_to_string(k->status));
		out_string(OUT_JSON, "detail", NULL, k->detail);
		out_string(OUT_JSON, "fix", NULL, k->fix);
		out_close_object();
		out_text("%-5s %-15s %-11s %s\n", status, k->object, k->name, k->detail);
		if (k->fix)
			out_text("%-33s fix: %s\n", "", k->fix);
	}
	out_close_array();
	out_open_object("summary");
	out_uint(OUT_ANY, "pass", "%" PRIu64 " pass", r->count[DOCTOR_PASS]);
	out_uint(OUT_ANY, "warn", ", %" PRIu64 " warn", r->count[DOCTOR_WARN]);
	out_uint(OUT_ANY, "fail", ", %" PRIu64 " fail", r->count[DOCTOR_FAIL]);
	out_uint(OUT_ANY, "skip", ", %" PRIu64 " skipped\n", r->count[DOCTOR_SKIP]);
	out_close_object();
	out_int(OUT_JSON, "exit_code", NULL, doctor_exit_code(r));
	out_close_object();
}
