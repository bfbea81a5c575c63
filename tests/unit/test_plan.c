/* test_plan.c: the change-kind table, plan ordering, and plan_build's
 * diff and preconditions over an in-memory host state (no host access:
 * IRQ planning is left out, it is exercised by the lab tests). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "base/exitcode.h"
#include "kinds/kinds.h"
#include "kinds/sysctl.h"
#include "os/ethfeatures.h"
#include "os/ethnl.h"
#include "os/irqaffinity.h"
#include "os/probe.h"
#include "os/sysroot.h"
#include "plan.h"
#include "profile.h"

static void test_kind_table(void **state)
{
	static const char *const order[] = {"sysctl",	"irqbalance", "irqbalance-ban", "channels", "rings",
					    "features", "coalesce",   "pause",		"mtu",	    "irq"};
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		const struct change_kind *k = change_kind_find(order[i]);
		assert_non_null(k);
		assert_string_equal(k->name, order[i]);
		assert_non_null(k->read);
		assert_non_null(k->write);
		assert_non_null(k->undo);
		assert_non_null(k->verify);
		if (i > 0)
			assert_true(change_kind_find(order[i - 1])->rank < k->rank);
	}
	assert_null(change_kind_find("mtuu"));
	assert_null(change_kind_find(NULL));
	assert_true(change_kind_find("channels")->resets_link);
	assert_true(change_kind_find("rings")->resets_link);
	assert_false(change_kind_find("mtu")->resets_link);
	assert_non_null(strstr(change_kind_find("channels")->order_note, "before IRQ affinity"));
	assert_non_null(strstr(change_kind_find("irqbalance-ban")->order_note, "before IRQ affinity"));
	assert_false(change_kind_find("irqbalance-ban")->resets_link);
	/* Every row of engine/kinds/kinds.c is complete: plan_build calls
	 * diff for every kind with a scope, and finds each by its name. */
	for (size_t i = 0; i < n_change_kinds; i++) {
		const struct change_kind *k = change_kinds[i];

		assert_ptr_equal(change_kind_find(k->name), k);
		assert_non_null(k->read);
		assert_non_null(k->write);
		assert_non_null(k->undo);
		assert_non_null(k->verify);
		assert_int_equal(k->diff != NULL, k->scope != KIND_SCOPE_NONE);
	}
	assert_int_equal(change_kind_find("boot")->scope, KIND_SCOPE_NONE);
}

static void test_order(void **state)
{
	struct plan *p = calloc(1, sizeof(*p));
	(void)state;

	assert_int_equal(plan_add_change(p, "irq", "irq ens1f0 q0", "smp_affinity_list 98", "0", "8"), 0);
	assert_int_equal(plan_add_change(p, "mtu", "ens1f0", "mtu", "1500", "9000"), 0);
	assert_int_equal(plan_add_change(p, "irq", "irq ens1f0 q1", "smp_affinity_list 99", "0", "10"), 0);
	assert_int_equal(plan_add_change(p, "channels", "ens1f0", "channels.combined", "16", "8"), 0);
	assert_int_equal(plan_add_change(p, "rings", "ens1f0", "rings.rx", "1024", "8192"), 0);
	assert_int_equal(plan_add_change(p, "sysctl", "sysctl", "net.core.rmem_max", "212992", "4194304"), 0);
	assert_int_equal(plan_add_change(p, "nosuchkind", "x", "y", "1", "2"), -EINVAL);
	plan_order(p);

	assert_int_equal(p->n_changes, 6);
	assert_string_equal(p->changes[0].kind->name, "sysctl");
	assert_string_equal(p->changes[1].kind->name, "channels");
	assert_string_equal(p->changes[2].kind->name, "rings");
	assert_string_equal(p->changes[3].kind->name, "mtu");
	/* Stable: IRQs keep their queue order. */
	assert_string_equal(p->changes[4].object, "irq ens1f0 q0");
	assert_string_equal(p->changes[5].object, "irq ens1f0 q1");
	assert_non_null(p->changes[1].note);
	assert_non_null(strstr(p->changes[1].note, "re-creates the IRQs"));
	assert_string_equal(p->changes[2].note, "briefly resets the link");
	assert_null(p->changes[3].note);
	assert_int_equal(plan_problems_exit_code(p), EXIT_OK);
	plan_free(p);
}

/* A host with one port, as probe_host would describe a driver at
 * `version`, firmware 16.29.1030, 25G full, MTU 1500 (68..9978), 8 of 63
 * combined channels, rings as given by rings_r. */
/* Kind `name`'s fact of port s as the probe leaves it: r, and a zeroed
 * value of `size` bytes to fill. */
static void *fact_set(struct iface_state *s, const char *name, int r, size_t size)
{
	struct iface_fact *f = &s->facts[change_kind_index(change_kind_find(name))];

	f->r = r;
	f->value = calloc(1, size);
	return f->value;
}

/* The host-wide fact of kind `name`, read with result r, its value zero. */
static void *host_fact_set(struct host_state *h, const char *name, int r)
{
	const struct probe_host_fact *def = change_kind_find(name)->host_probe;
	struct host_fact *f = &h->facts[h->n_facts++];

	f->def = def;
	f->r = r;
	f->value = calloc(1, def->size);
	return f->value;
}

static struct host_state *host_new(int rings_r)
{
	struct host_state *h = calloc(1, sizeof(*h));
	struct iface_state *s = calloc(1, sizeof(*s));

	s->name = strdup("ens1f0");
	s->present = true;
	strcpy(s->link.name, "ens1f0");
	s->link.mtu = 1500;
	s->link.has_mtu_range = true;
	s->link.min_mtu = 68;
	s->link.max_mtu = 9978;
	strcpy(s->drvinfo.driver, "mlx5_core");
	strcpy(s->drvinfo.version, "5.8-1.0.1");
	strcpy(s->drvinfo.fw_version, "16.29.1030 (MT_0000000080)");
	s->ethlink = (struct eth_link){.speed_known = true, .speed = 25000, .duplex = ETH_DUPLEX_FULL};
	s->n_facts = n_change_kinds;
	s->facts = calloc(n_change_kinds, sizeof(*s->facts));
	for (size_t i = 0; i < n_change_kinds; i++)
		s->facts[i].r = -ENOENT;
	/* ethnl_channels: rx tx other combined; ethnl_rings: rx tx */
	*(struct ethnl_values *)fact_set(s, "channels", 0, sizeof(struct ethnl_values)) =
	    (struct ethnl_values){
		.v = {0, 0, 0, 8}, .present = {false, false, false, true}, .max = {0, 0, 0, 63}};
	*(struct ethnl_values *)fact_set(s, "rings", rings_r, sizeof(struct ethnl_values)) =
	    (struct ethnl_values){.v = {1024, 1024}, .present = {true, true}, .max = {8192, 8192}};
	h->ifaces = s;
	h->n_ifaces = 1;
	h->facts = calloc(2, sizeof(*h->facts));
	struct sysctl_state *sysctl = host_fact_set(h, "sysctl", 0);
	for (int k = 0; k < _SYSCTL_MAX; k++)
		sysctl[k] = (struct sysctl_state){.value = {.n = 1, .v = {212992}}};
	sysctl[SYSCTL_WMEM_MAX].value.v[0] = 8388608;
	sysctl[SYSCTL_UDP_MEM].value = (struct sysctl_value){.n = 3, .v = {188010, 250681, 376020}};
	/* irqbalance neither running nor a service */
	host_fact_set(h, "irqbalance", 0);
	/* veth-like offloads: gro changeable and on, lro fixed off; no
	 * coalescing; pause without autoneg reported */
	struct eth_features *features = fact_set(s, "features", 0, sizeof(struct eth_features));
	features->f[ETH_FEATURE_GRO] = (struct eth_feature_state){.changeable = true, .active = true};
	features->f[ETH_FEATURE_UDP_GRO_FORWARDING] = (struct eth_feature_state){.changeable = true};
	fact_set(s, "coalesce", -EOPNOTSUPP, sizeof(struct ethnl_values));
	*(struct ethnl_values *)fact_set(s, "pause", 0, sizeof(struct ethnl_values)) =
	    (struct ethnl_values){.v = {0, 1, 1}, .present = {false, true, true}};
	return h;
}

/* The port's driver is MLNX_OFED's: its module publishes `version`. */
static void host_ofed(struct host_state *h, const char *version)
{
	h->ifaces[0].has_nic = true;
	h->ifaces[0].nic.driver_version = strdup(version);
}

static struct plan *plan_of(const char *yaml, struct host_state *h)
{
	struct profile *prof = NULL;
	struct profile_error err;
	struct plan *p = NULL;

	if (profile_load_string(yaml, strlen(yaml), "t.yaml", &prof, &err) < 0)
		fail_msg("profile: %d:%d: %s", err.line, err.column, err.message);
	assert_int_equal(plan_build(prof, h, &p), 0);
	profile_free(prof);
	return p;
}

static void test_build_diff(void **state)
{
	struct host_state *h = host_new(0);
	struct plan *p;
	(void)state;

	host_ofed(h, "5.8-1.0.1");
	p = plan_of(
	    "version: 1\nname: t\nmatch:\n  interfaces: [ens1f0]\n"
	    "requires:\n  driver:\n    name: mlx5_core\n    min_version: \"5.0-0\"\n"
	    "  firmware:\n    min_version: \"16.26.1040\"\n  link:\n    speed: 25000\n    duplex: full\n"
	    "link:\n  mtu: 9000\n  channels:\n    combined: 16\n  rings:\n    rx: 8192\n    tx: 1024\n"
	    "sysctl:\n  net.core.rmem_max: \">= 4M\"\n  net.core.wmem_max: \">= 4M\"\n"
	    "  net.core.netdev_max_backlog: 212992\n",
	    h);
	assert_int_equal(p->n_problems, 0);
	/* wmem_max is already above its floor, the backlog already exact, rings.tx equal. */
	assert_int_equal(p->n_changes, 4);
	assert_string_equal(p->changes[0].key, "net.core.rmem_max");
	assert_string_equal(p->changes[0].new_value, "4194304");
	assert_string_equal(p->changes[1].key, "channels.combined");
	assert_string_equal(p->changes[1].old_value, "8");
	assert_string_equal(p->changes[1].new_value, "16");
	assert_string_equal(p->changes[2].key, "rings.rx");
	assert_string_equal(p->changes[3].object, "ens1f0");
	assert_string_equal(p->changes[3].key, "mtu");
	assert_string_equal(p->changes[3].old_value, "1500");
	assert_string_equal(p->changes[3].new_value, "9000");
	plan_free(p);
	host_state_free(h);
}

/* The kinds added as kinds/ modules: features, coalesce, pause, and the
 * three-value sysctl. */
static void test_build_offloads(void **state)
{
	struct host_state *h = host_new(0);
	struct plan *p;
	(void)state;

	p = plan_of(
	    "version: 1\nname: t\nmatch:\n  interfaces: [ens1f0]\n"
	    "link:\n  features: {gro: off, rx-udp-gro-forwarding: on, lro: off}\n  pause: {tx: false}\n"
	    "sysctl:\n  net.ipv4.udp_mem: [200000, 300000, 400000]\n  net.core.busy_poll: 50\n",
	    h);
	assert_int_equal(p->n_problems, 0);
	assert_int_equal(p->n_changes, 5);
	assert_string_equal(p->changes[0].key, "net.ipv4.udp_mem");
	assert_string_equal(p->changes[0].old_value, "188010 250681 376020");
	assert_string_equal(p->changes[0].new_value, "200000 300000 400000");
	assert_string_equal(p->changes[1].key, "net.core.busy_poll");
	assert_string_equal(p->changes[1].old_value, "212992");
	assert_string_equal(p->changes[1].new_value, "50");
	assert_string_equal(p->changes[2].kind->name, "features");
	assert_string_equal(p->changes[2].key, "features.gro"); /* lro: already off, fixed or not */
	assert_string_equal(p->changes[2].old_value, "on");
	assert_string_equal(p->changes[2].new_value, "off");
	assert_string_equal(p->changes[3].key, "features.rx-udp-gro-forwarding");
	assert_string_equal(p->changes[4].kind->name, "pause");
	assert_string_equal(p->changes[4].key, "pause.tx");
	assert_string_equal(p->changes[4].old_value, "on");
	assert_string_equal(p->changes[4].new_value, "off");
	plan_free(p);

	p = plan_of("version: 1\nname: t\nmatch:\n  interfaces: [ens1f0]\n"
		    "link:\n  features: {lro: on}\n  coalesce: {rx_usecs: 8}\n  pause: {autoneg: true}\n",
		    h);
	assert_int_equal(p->n_changes, 0);
	assert_int_equal(p->n_problems, 3);
	assert_string_equal(p->problems[0].message,
			    "link.features.lro: fixed off on this device (ethtool -k shows "
			    "it [fixed]): it cannot be turned on");
	assert_string_equal(p->problems[1].message,
			    "link.coalesce: not supported by the driver: Operation not supported");
	assert_string_equal(p->problems[2].message, "link.pause.autoneg: the driver does not support it");
	for (size_t i = 0; i < p->n_problems; i++)
		assert_int_equal(p->problems[i].exit_code, EXIT_UNSUPPORTED);
	plan_free(p);
	host_state_free(h);
}

static void test_build_problems(void **state)
{
	struct host_state *h = host_new(-EOPNOTSUPP);
	struct plan *p;
	(void)state;

	host_ofed(h, "5.8-1.0.1");
	p = plan_of("version: 1\nname: t\nmatch:\n  interfaces: [ens1f0]\n"
		    "requires:\n  driver:\n    name: mlx5_core\n    min_version: \"23.10-1.1.9\"\n"
		    "  firmware:\n    min_version: \"16.35.2000\"\n  link:\n    speed: 100000\n"
		    "link:\n  mtu: 9999\n  channels:\n    combined: 64\n    rx: 2\n  rings:\n    rx: 2048\n",
		    h);
	assert_int_equal(p->n_changes, 0);
	assert_int_equal(p->n_problems, 7);
	assert_string_equal(p->problems[0].message,
			    "MLNX_OFED driver 5.8-1.0.1 is older than the required 23.10-1.1.9 "
			    "(requires.driver.min_version)");
	assert_string_equal(p->problems[0].remedy, "install a newer MLNX_OFED");
	assert_string_equal(p->problems[1].message,
			    "firmware version 16.29.1030 (MT_0000000080) is older than "
			    "the required 16.35.2000 (requires.firmware.min_version)");
	assert_string_equal(p->problems[2].message, "link speed is 25000 Mb/s, the profile requires 100000");
	assert_string_equal(p->problems[3].message, "channels.combined 64 exceeds the device maximum 63");
	assert_string_equal(p->problems[4].message, "channels.rx: the device has no such setting");
	assert_int_equal(p->problems[4].exit_code, EXIT_UNSUPPORTED);
	assert_string_equal(p->problems[5].message, "rings: not supported by the driver");
	assert_string_equal(p->problems[6].message, "MTU 9999 is outside the device's range 68..9978");
	assert_int_equal(p->problems[6].exit_code, EXIT_PRECONDITION);
	/* Unsupported outranks precondition. */
	assert_int_equal(plan_problems_exit_code(p), EXIT_UNSUPPORTED);
	plan_free(p);

	p = plan_of("version: 1\nname: t\nmatch:\n  interfaces: [ens1f0, ens9]\nlink:\n  mtu: 9000\n", h);
	assert_int_equal(p->n_problems, 1);
	assert_string_equal(p->problems[0].object, "ens9");
	assert_int_equal(plan_problems_exit_code(p), EXIT_NOT_FOUND);
	plan_free(p);
	host_state_free(h);
}

/* A profile with only requirements or irq.irqbalance still manages ports:
 * matching none of them is a problem, not an empty plan. */
static void test_manages_link_keys(void **state)
{
	static const char *const keys[] = {
	    "requires:\n  driver:\n    min_version: \"5.0-0\"\n",
	    "requires:\n  firmware:\n    min_version: \"16.26.1040\"\n",
	    "requires:\n  link:\n    duplex: full\n",
	    "irq:\n  irqbalance: leave\n",
	};
	struct host_state *h = host_new(0);
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		_cleanup_free_ char *yaml =
		    strprintf("version: 1\nname: t\nmatch:\n  pci: [\"15b3:1017\"]\n%s", keys[i]);
		struct plan *p = plan_of(yaml, h);

		assert_int_equal(p->n_problems, 1);
		assert_string_equal(p->problems[0].object, "profile");
		assert_string_equal(p->problems[0].message, "no interface on this host matches the profile");
		assert_int_equal(plan_problems_exit_code(p), EXIT_NOT_FOUND);
		plan_free(p);
	}
	host_state_free(h);
}

/* irq.policy on a matched port without device IRQs is a problem, never a
 * port silently left out of the IRQ map. */
static void test_irq_policy_without_device_irqs(void **state)
{
	struct host_state *h = host_new(0);
	struct plan *p;
	(void)state;

	/* no sysfs facts at all (not in the sysroot) */
	h->ifaces[0].has_nic = false;
	h->ifaces[0].irqs_r = -ENODEV;
	p = plan_of("version: 1\nname: t\nmatch:\n  interfaces: [ens1f0]\nirq:\n  policy: numa-local\n", h);
	assert_int_equal(p->n_changes, 0);
	assert_int_equal(p->n_problems, 1);
	assert_string_equal(p->problems[0].object, "ens1f0");
	assert_string_equal(p->problems[0].message, "no device IRQs (no PCI function in the sysroot)");
	assert_string_equal(p->problems[0].remedy, "remove irq.policy, or match only ports with a PCI "
						   "function (on a test host: a --sysroot that has it)");
	assert_int_equal(plan_problems_exit_code(p), EXIT_UNSUPPORTED);
	plan_free(p);

	/* in the sysroot but virtual (a veth: no PCI function, empty list);
	 * channels already as wanted: no channel problem */
	h->ifaces[0].has_nic = true;
	h->ifaces[0].irqs_r = 0;
	assert_int_equal(irq_list_new("ens1f0", NULL, &h->ifaces[0].irqs), 0);
	p = plan_of("version: 1\nname: t\nmatch:\n  interfaces: [ens1f0]\nlink:\n  channels:\n"
		    "    combined: 8\nirq:\n  policy: numa-local\n",
		    h);
	assert_int_equal(p->n_problems, 1);
	assert_string_equal(p->problems[0].message, "no device IRQs (no PCI function in the sysroot)");
	assert_int_equal(p->problems[0].exit_code, EXIT_UNSUPPORTED);
	plan_free(p);
	host_state_free(h);
}

/* Channels re-create the IRQs: planning both in one run would pin the
 * IRQs of before the change. Refused, with the way out. */
static void test_channels_and_irq_policy(void **state)
{
	struct host_state *h = host_new(0);
	struct plan *p;
	(void)state;

	p = plan_of("version: 1\nname: t\nmatch:\n  interfaces: [ens1f0]\nlink:\n  channels:\n"
		    "    combined: 16\nirq:\n  policy: numa-local\n",
		    h);
	assert_int_equal(p->n_problems, 1);
	assert_string_equal(p->problems[0].object, "ens1f0");
	assert_string_equal(p->problems[0].message,
			    "channels and irq.policy in one run: changing channels re-creates the IRQs, the "
			    "IRQ map would be planned from the IRQs before the change");
	assert_string_equal(p->problems[0].remedy,
			    "apply channels first, then the IRQ map: two profiles or two runs");
	assert_int_equal(plan_problems_exit_code(p), EXIT_UNSUPPORTED);
	plan_free(p);
	host_state_free(h);
}

/* link.xps: auto without irq.policy follows the one CPU each completion
 * IRQ runs on: its affinity, else its effective affinity (the fixture's
 * IRQs 110 and 111: CPU 0); an IRQ allowed on several CPUs with no
 * effective CPU known (no such IRQ in the fixture) is a problem, never
 * the first CPU of its affinity. */
static void test_xps_auto_unpinned_irqs(void **state)
{
	static const struct {
		unsigned irq0, irq1;
		const char *problem; /* NULL: tx-3 goes to CPU 0 */
	} cases[] = {
	    {110, 111, NULL},
	    {900, 901,
	     "link.xps: auto: the completion IRQs of queues 0-1 may run on several CPUs and the kernel shows "
	     "no one CPU they run on (no effective_affinity): no CPU to follow"},
	};
	(void)state;

	assert_int_equal(sysroot_set("tests/fixtures/sysroot/cx5-2port"), 0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct host_state *h = host_new(0);
		struct iface_state *s = &h->ifaces[0];
		struct plan *p;

		s->has_nic = true;
		s->irqs_r = 0;
		assert_int_equal(irq_list_new("ens1f0", "0000:af:00.0", &s->irqs), 0);
		assert_int_equal(irq_list_add(s->irqs, cases[i].irq0, "mlx5_comp0@pci:0000:af:00.0", "0-31"),
				 0);
		assert_int_equal(irq_list_add(s->irqs, cases[i].irq1, "mlx5_comp1@pci:0000:af:00.0", "0-31"),
				 0);
		p = plan_of("version: 1\nname: t\nmatch:\n  interfaces: [ens1f0]\nlink:\n  xps: auto\n", h);
		if (cases[i].problem) {
			assert_int_equal(p->n_problems, 1);
			assert_string_equal(p->problems[0].object, "ens1f0");
			assert_string_equal(p->problems[0].message, cases[i].problem);
			assert_string_equal(p->problems[0].remedy,
					    "pin the IRQs in the same profile (irq.policy), "
					    "or give link.xps a CPU list");
			assert_int_equal(plan_problems_exit_code(p), EXIT_PRECONDITION);
		} else {
			assert_int_equal(p->n_problems, 0);
			assert_int_equal(p->n_changes, 16);
			assert_string_equal(p->changes[3].key, "xps tx-3");
			assert_string_equal(p->changes[3].old_value, "11");
			assert_string_equal(p->changes[3].new_value, "0");
		}
		plan_free(p);
		host_state_free(h);
	}
	assert_int_equal(sysroot_set(NULL), 0);
}

/* requires.driver.min_version is compared with MLNX_OFED's version only,
 * requires.driver.min_kernel with the kernel release of an inbox driver
 * only (the fixture's 6.12.12-amd64); a minimum for the other kind of
 * driver is a warning, a version that cannot be compared a problem. */
static void test_driver_minimums(void **state)
{
	static const struct {
		const char *ofed;     /* the module's version, NULL: inbox */
		const char *requires; /* under requires.driver */
		const char *problem;  /* NULL: none */
		const char *warning;  /* NULL: none */
	} cases[] = {
	    {NULL, "min_version: \"5.0-0\"", NULL,
	     "ens1f0: requires.driver.min_version is for MLNX_OFED: inbox driver of kernel 6.12.12-amd64 not "
	     "compared with 5.0-0"},
	    {NULL, "min_kernel: \"4.18.0\"", NULL, NULL},
	    {NULL, "min_version: \"5.0-0\"\n    min_kernel: \"4.18.0\"", NULL, NULL},
	    {NULL, "min_kernel: \"6.13\"",
	     "inbox driver of kernel 6.12.12-amd64 is older than the required 6.13 "
	     "(requires.driver.min_kernel)",
	     NULL},
	    {"5.8-1.0.1", "min_version: \"5.0-0\"\n    min_kernel: \"7.0\"", NULL, NULL},
	    {"5.8-1.0.1", "min_kernel: \"7.0\"", NULL,
	     "ens1f0: requires.driver.min_kernel is for inbox drivers: MLNX_OFED driver 5.8-1.0.1 not "
	     "compared "
	     "with 7.0"},
	    {"internal", "min_version: \"5.0-0\"",
	     "MLNX_OFED driver \"internal\" cannot be compared with 5.0-0 (requires.driver.min_version)",
	     NULL},
	};
	(void)state;

	assert_int_equal(sysroot_set("tests/fixtures/sysroot/cx5-2port"), 0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *yaml = strprintf(
		    "version: 1\nname: t\nmatch:\n  interfaces: [ens1f0]\nrequires:\n  driver:\n    %s\n",
		    cases[i].requires);
		struct host_state *h = host_new(0);
		struct plan *p;

		if (cases[i].ofed)
			host_ofed(h, cases[i].ofed);
		p = plan_of(yaml, h);
		assert_int_equal(p->n_problems, cases[i].problem ? 1 : 0);
		if (cases[i].problem)
			assert_string_equal(p->problems[0].message, cases[i].problem);
		assert_int_equal(strv_length(p->warnings), cases[i].warning ? 1 : 0);
		if (cases[i].warning)
			assert_string_equal(p->warnings[0], cases[i].warning);
		plan_free(p);
		host_state_free(h);
	}
	assert_int_equal(sysroot_set(NULL), 0);
}

/* xps auto over a /proc/interrupts whose completion vector has queue
 * number -1 ("mlx5_comp4294967295@pci:..."): refused, never indexed. */
static void test_xps_vector_out_of_range(void **state)
{
	static const int queues[] = {-1, 4096};
	(void)state;

	assert_int_equal(sysroot_set("tests/fixtures/sysroot/cx5-2port"), 0);
	for (size_t i = 0; i < ARRAY_SIZE(queues); i++) {
		struct host_state *h = host_new(0);
		struct iface_state *s = &h->ifaces[0];
		struct plan *p;

		s->irqs = calloc(1, sizeof(*s->irqs));
		assert_non_null(s->irqs);
		s->irqs->v = calloc(1, sizeof(*s->irqs->v));
		assert_non_null(s->irqs->v);
		s->irqs->n = 1;
		s->irqs->v[0] = (struct irq_vector){.irq = 98,
						    .name = strdup("mlx5_comp4294967295@pci:0000:af:00.0"),
						    .kind = IRQ_KIND_COMPLETION,
						    .queue = queues[i],
						    .affinity = CPUSET_INIT,
						    .effective = CPUSET_INIT};
		s->irqs_r = 0;
		p = plan_of("version: 1\nname: t\nmatch:\n  interfaces: [ens1f0]\nlink:\n  xps: auto\n", h);
		assert_int_equal(p->n_problems, 1);
		assert_string_equal(
		    p->problems[0].message,
		    "link.xps: auto follows the completion IRQs, and one names a queue number out "
		    "of range");
		plan_free(p);
		host_state_free(h);
	}
	assert_int_equal(sysroot_set(NULL), 0);
}

/* A sysroot's `ethtool -x` text whose entries the rings do not have
 * (the probe's -ERANGE): the problem names the file. */
static void test_rss_bad_text_named(void **state)
{
	struct host_state *h;
	struct plan *p;
	(void)state;

	assert_int_equal(sysroot_set("tests/fixtures/sysroot/cx5-2port"), 0);
	h = host_new(0);
	fact_set(&h->ifaces[0], "rss", -ERANGE, 64);
	p = plan_of("version: 1\nname: t\nmatch:\n  interfaces: [ens1f0]\nlink:\n  rss:\n    equal: 2\n", h);
	assert_int_equal(p->n_problems, 1);
	assert_string_equal(
	    p->problems[0].message,
	    "link.rss: tests/fixtures/sysroot/cx5-2port/ethtool/ens1f0/show-rxfh: an entry names a "
	    "receive queue beyond the table's RX rings");
	plan_free(p);
	host_state_free(h);
	assert_int_equal(sysroot_set(NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kind_table),
	    cmocka_unit_test(test_order),
	    cmocka_unit_test(test_build_diff),
	    cmocka_unit_test(test_build_offloads),
	    cmocka_unit_test(test_build_problems),
	    cmocka_unit_test(test_manages_link_keys),
	    cmocka_unit_test(test_irq_policy_without_device_irqs),
	    cmocka_unit_test(test_channels_and_irq_policy),
	    cmocka_unit_test(test_driver_minimums),
	    cmocka_unit_test(test_xps_vector_out_of_range),
	    cmocka_unit_test(test_rss_bad_text_named),
	    cmocka_unit_test(test_xps_auto_unpinned_irqs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
