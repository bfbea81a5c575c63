/* test_nic.c: NIC identity from the sysroot fixtures (nic.h), plus the
 * sysctl table and firewall detection that read the same fixtures. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <sys/stat.h>

#include "os/firewall.h"
#include "os/nic.h"
#include "os/procsys.h"
#include "os/sysroot.h"

/* Fixtures relative to this file, so the test runs from the top directory
 * (as make check does). */
#define FIXTURES "tests/fixtures/sysroot/"

static void use(const char *fixture)
{
	_cleanup_free_ char *dir = strprintf(FIXTURES "%s", fixture);
	assert_non_null(dir);
	assert_int_equal(sysroot_set(dir), 0);
}

static void test_models(void **state)
{
	(void)state;
	assert_string_equal(nic_model_name(0x15b3, 0x1017), "ConnectX-5");
	assert_string_equal(nic_model_name(0x15b3, 0x1018), "ConnectX-5 VF");
	assert_string_equal(nic_model_name(0x15b3, 0x1019), "ConnectX-5 Ex");
	assert_string_equal(nic_model_name(0x15b3, 0x101a), "ConnectX-5 Ex VF");
	assert_string_equal(nic_model_name(0x15b3, 0xa2d2), "BlueField ConnectX-5");
	assert_null(nic_model_name(0x15b3, 0x101b)); /* ConnectX-6 */
	assert_null(nic_model_name(0x8086, 0x1017)); /* same id, other vendor */
	assert_true(nic_is_connectx5(0x15b3, 0x1019));
	assert_false(nic_is_connectx5(0x15b3, 0x101d));
}

static void test_cx5_2port(void **state)
{
	struct nic_info n;
	static const unsigned irqs[] = {98,  99,  109, 110, 111, 112, 113, 114, 115,
					116, 117, 118, 119, 120, 121, 122, 123};

	(void)state;
	use("cx5-2port");
	assert_int_equal(nic_read("ens1f0", &n), 0);
	assert_string_equal(n.name, "ens1f0");
	assert_true(n.has_device);
	assert_string_equal(n.pci_bdf, "0000:af:00.0");
	assert_true(n.has_pci_id);
	assert_int_equal(n.vendor, 0x15b3);
	assert_int_equal(n.device, 0x1017);
	assert_string_equal(n.model, "ConnectX-5");
	assert_true(n.is_mellanox);
	assert_true(n.is_connectx5);
	assert_int_equal(n.numa_node, 1);
	assert_string_equal(n.local_cpulist, "8-15,24-31");
	assert_string_equal(n.driver, "mlx5_core");
	assert_null(n.driver_version); /* inbox: no /sys/module/mlx5_core/version */
	assert_string_equal(n.firmware, "16.29.1030");
	assert_string_equal(n.ib_device, "mlx5_0");
	assert_string_equal(n.pcie_speed, "8.0 GT/s PCIe");
	assert_string_equal(n.pcie_max_speed, "8.0 GT/s PCIe");
	assert_true(n.has_pcie_width);
	assert_int_equal(n.pcie_width, 8);
	assert_int_equal(n.pcie_max_width, 8);
	assert_int_equal(n.n_msi_irqs, ARRAY_SIZE(irqs));
	for (size_t i = 0; i < ARRAY_SIZE(irqs); i++)
		assert_int_equal(n.msi_irqs[i], irqs[i]); /* numeric order, not "109" < "98" */
	nic_info_done(&n);

	assert_int_equal(nic_read("ens1f1", &n), 0);
	assert_string_equal(n.pci_bdf, "0000:af:00.1");
	assert_string_equal(n.ib_device, "mlx5_1");
	assert_int_equal(n.n_msi_irqs, 17);
	assert_int_equal(n.msi_irqs[0], 126);
	nic_info_done(&n);

	/* loopback: an interface without a device */
	assert_int_equal(nic_read("lo", &n), 0);
	assert_false(n.has_device);
	assert_null(n.pci_bdf);
	assert_false(n.has_pci_id);
	assert_false(n.is_mellanox);
	assert_int_equal(n.numa_node, -1);
	assert_null(n.driver);
	assert_int_equal(n.n_msi_irqs, 0);
	nic_info_done(&n);
}

static void test_cx5_8node(void **state)
{
	struct nic_info n;

	(void)state;
	use("cx5-8node");
	assert_int_equal(nic_read("enp216s0f0np0", &n), 0);
	assert_string_equal(n.pci_bdf, "0000:d8:00.0");
	assert_int_equal(n.device, 0x1019);
	assert_string_equal(n.model, "ConnectX-5 Ex");
	assert_true(n.is_connectx5);
	assert_int_equal(n.numa_node, 5);
	assert_string_equal(n.local_cpulist, "30-35,78-83");
	assert_string_equal(n.driver, "mlx5_core");	    /* through a 4-deep PCI path */
	assert_string_equal(n.driver_version, "5.2-2.0.7"); /* OFED */
	assert_string_equal(n.firmware, "16.21.0106");
	assert_string_equal(n.pcie_speed, "16.0 GT/s PCIe");
	assert_int_equal(n.pcie_width, 8);
	assert_int_equal(n.pcie_max_width, 16); /* degraded: x8 of x16 */
	assert_int_equal(n.n_msi_irqs, 66);
	nic_info_done(&n);

	/* a non-Mellanox port is read, and marked */
	assert_int_equal(nic_read("eno1", &n), 0);
	assert_string_equal(n.pci_bdf, "0000:02:00.0");
	assert_int_equal(n.vendor, 0x8086);
	assert_int_equal(n.device, 0x1521);
	assert_null(n.model);
	assert_false(n.is_mellanox);
	assert_false(n.is_connectx5);
	assert_string_equal(n.driver, "igb");
	assert_null(n.driver_version);
	assert_null(n.firmware);
	assert_null(n.ib_device);
	assert_int_equal(n.numa_node, 0);
	nic_info_done(&n);
}

static void test_cx5_nonuma(void **state)
{
	struct nic_info n;

	(void)state;
	use("cx5-nonuma");
	assert_int_equal(nic_read("ens1f0", &n), 0);
	assert_int_equal(n.numa_node, -1); /* "-1" in sysfs */
	assert_string_equal(n.local_cpulist, "0-3");
	assert_string_equal(n.driver_version, "5.8-3.0.7");
	assert_string_equal(n.firmware, "16.35.2000");
	nic_info_done(&n);
}

static void test_names(void **state)
{
	struct nic_info n = {0};
	_cleanup_strv_free_ char **list = NULL;

	(void)state;
	use("cx5-2port");
	/* invalid names never become paths */
	assert_int_equal(nic_read("../../etc", &n), -EINVAL);
	assert_int_equal(nic_read("ens1f0/../lo", &n), -EINVAL);
	assert_int_equal(nic_read("..", &n), -EINVAL);
	assert_int_equal(nic_read("", &n), -EINVAL);
	assert_int_equal(nic_read("0123456789abcdef", &n), -EINVAL);
	assert_int_equal(nic_read(NULL, &n), -EINVAL);
	assert_int_equal(nic_read("ens9f9", &n), -ENODEV);
	assert_null(n.name); /* untouched on failure */

	assert_int_equal(nic_list(&list), 0);
	assert_int_equal(strv_length(list), 3);
	assert_string_equal(list[0], "ens1f0");
	assert_string_equal(list[1], "ens1f1");
	assert_string_equal(list[2], "lo");
}

/* A hand-made sysroot: a virtio NIC (device link not a PCI BDF), broken
 * vendor file, no numa_node, no msi_irqs. */
static void test_odd_device(void **state)
{
	char tmpl[] = "/tmp/cx5-test-nic-XXXXXX";
	char *dir = mkdtemp(tmpl);
	_cleanup_free_ char *cmd = NULL;
	struct nic_info n;

	(void)state;
	assert_non_null(dir);
	cmd = strprintf("set -e; cd %s; mkdir -p sys/devices/pci0000:00/0000:00:03.0/virtio2/net/eth0 "
			"sys/class/net sys/bus/virtio/drivers/virtio_net; "
			"ln -s ../../devices/pci0000:00/0000:00:03.0/virtio2/net/eth0 sys/class/net/eth0; "
			"ln -s ../../../virtio2 sys/devices/pci0000:00/0000:00:03.0/virtio2/net/eth0/device; "
			"ln -s ../../../bus/virtio/drivers/virtio_net "
			"sys/devices/pci0000:00/0000:00:03.0/virtio2/driver; "
			"echo 0x1af4x > sys/devices/pci0000:00/0000:00:03.0/virtio2/vendor; "
			"echo 0x0001 > sys/devices/pci0000:00/0000:00:03.0/virtio2/device",
			dir);
	assert_non_null(cmd);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(sysroot_set(dir), 0);
	assert_int_equal(nic_read("eth0", &n), 0);
	assert_true(n.has_device);
	assert_null(n.pci_bdf);	    /* "virtio2" is not a PCI function */
	assert_false(n.has_pci_id); /* "0x1af4x" rejected, not half-parsed */
	assert_null(n.model);
	assert_int_equal(n.numa_node, -1);
	assert_string_equal(n.driver, "virtio_net");
	assert_null(n.local_cpulist);
	assert_false(n.has_pcie_width);
	assert_int_equal(n.n_msi_irqs, 0);
	nic_info_done(&n);
	free(cmd);
	cmd = strprintf("rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_sysctl(void **state)
{
	char tmpl[] = "/tmp/cx5-test-sysctl-XXXXXX";
	char *dir = mkdtemp(tmpl);
	_cleanup_free_ char *cmd = NULL, *text = NULL, *s = NULL;
	struct sysctl_value sv, three = {.n = 3, .v = {1000, 2000, 3000}}, one = {.n = 1, .v = {4194304}};
	enum sysctl_key k;
	uint64_t v;

	(void)state;
	assert_string_equal(sysctl_key_to_string(SYSCTL_RMEM_MAX), "net.core.rmem_max");
	assert_string_equal(sysctl_key_to_string(SYSCTL_NETDEV_MAX_BACKLOG), "net.core.netdev_max_backlog");
	assert_string_equal(sysctl_key_to_string(SYSCTL_UDP_MEM), "net.ipv4.udp_mem");
	assert_null(sysctl_key_to_string(_SYSCTL_MAX));
	assert_null(sysctl_def(_SYSCTL_MAX));
	assert_int_equal(sysctl_def(SYSCTL_UDP_MEM)->n_values, 3);
	assert_int_equal(sysctl_def(SYSCTL_BUSY_POLL)->min, 0);
	assert_int_equal(sysctl_def(SYSCTL_UDP_RMEM_MIN)->min, 1);
	assert_int_equal(sysctl_key_from_string("net.core.wmem_default", &k), 0);
	assert_int_equal(k, SYSCTL_WMEM_DEFAULT);
	/* only table names: never an arbitrary /proc/sys path */
	assert_int_equal(sysctl_key_from_string("net.core.somaxconn", &k), -EINVAL);
	assert_int_equal(sysctl_key_from_string("net/core/rmem_max", &k), -EINVAL);
	assert_int_equal(sysctl_key_from_string("net.core.rmem_max/../../../x", &k), -EINVAL);
	assert_string_equal(
	    sysctl_names(),
	    "net.core.rmem_max, net.core.wmem_max, net.core.rmem_default, net.core.wmem_default, "
	    "net.core.netdev_max_backlog, net.core.netdev_budget, net.core.netdev_budget_usecs, "
	    "net.core.busy_read, net.core.busy_poll, net.ipv4.udp_mem, net.ipv4.udp_rmem_min, "
	    "net.ipv4.ipfrag_high_thresh");

	/* values: the kernel's text (tabs) in, one space between values out */
	assert_int_equal(sysctl_value_parse(SYSCTL_UDP_MEM, "188010\t250681\t376020\n", &sv), 0);
	assert_int_equal(sv.n, 3);
	assert_int_equal(sv.v[2], 376020);
	assert_int_equal(sysctl_value_format(&sv, &s), 0);
	assert_string_equal(s, "188010 250681 376020");
	assert_int_equal(sysctl_value_parse(SYSCTL_UDP_MEM, "1 2", &sv), -EINVAL);
	assert_int_equal(sysctl_value_parse(SYSCTL_UDP_MEM, "1 2 3 4", &sv), -EINVAL);
	assert_int_equal(sysctl_value_parse(SYSCTL_RMEM_MAX, "1 2", &sv), -EINVAL);
	assert_int_equal(sysctl_value_parse(SYSCTL_RMEM_MAX, "-1", &sv), -EINVAL);
	assert_int_equal(sysctl_value_parse(SYSCTL_RMEM_MAX, "", &sv), -EINVAL);

	use("cx5-8node");
	assert_int_equal(sysctl_read(SYSCTL_RMEM_MAX, &v), 0);
	assert_int_equal(v, 8388608);
	assert_int_equal(sysctl_read(SYSCTL_NETDEV_BUDGET, &v), 0);
	assert_int_equal(v, 300);
	assert_int_equal(sysctl_read(SYSCTL_UDP_MEM, &v), -EINVAL); /* three values */
	assert_int_equal(sysctl_read_value(SYSCTL_UDP_MEM, &sv), 0);
	assert_true(sv.n == 3 && sv.v[0] == 188010 && sv.v[1] == 250681 && sv.v[2] == 376020);

	/* writes go to a private copy */
	assert_non_null(dir);
	cmd = strprintf("cp -a " FIXTURES "cx5-2port/. %s/", dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(sysroot_set(dir), 0);
	one.v[0] = 212992;
	assert_int_equal(sysctl_write_value(SYSCTL_RMEM_MAX, &one), 0); /* already so: nothing written */
	one.v[0] = 4194304;
	assert_int_equal(sysctl_write_value(SYSCTL_RMEM_MAX, &one), 1);
	assert_int_equal(sysctl_read(SYSCTL_RMEM_MAX, &v), 0);
	assert_int_equal(v, 4194304);
	assert_int_equal(sysroot_read_all("/proc/sys/net/core/rmem_max", &text, NULL), 0);
	assert_string_equal(text, "4194304\n");
	free(TAKE_PTR(text));
	assert_int_equal(sysctl_write_value(SYSCTL_UDP_MEM, &three), 1);
	assert_int_equal(sysroot_read_all("/proc/sys/net/ipv4/udp_mem", &text, NULL), 0);
	assert_string_equal(text, "1000\t2000\t3000\n");
	assert_int_equal(sysctl_write_value(SYSCTL_UDP_MEM, &three), 0);
	assert_int_equal(sysctl_write_value(SYSCTL_UDP_MEM, &one), -EINVAL); /* one value for three */
	/* an absent file is -ENOENT (non-initial namespaces lack some) */
	free(cmd);
	cmd = strprintf("rm %s/proc/sys/net/core/netdev_max_backlog", dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(sysctl_read(SYSCTL_NETDEV_MAX_BACKLOG, &v), -ENOENT);
	assert_int_equal(sysctl_write_value(SYSCTL_NETDEV_MAX_BACKLOG, &one), -ENOENT);
	free(cmd);
	cmd = strprintf("rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_firewall(void **state)
{
	struct firewall_state f;

	(void)state;
	use("cx5-2port"); /* empty ip_tables_names, no nf_tables, no firewalld */
	assert_int_equal(firewall_detect(&f), 0);
	assert_false(f.active);
	assert_null(f.evidence);
	firewall_state_done(&f);

	use("cx5-8node"); /* iptables filter table */
	assert_int_equal(firewall_detect(&f), 0);
	assert_true(f.active);
	assert_string_equal(f.evidence, "ip_tables: filter");
	firewall_state_done(&f);
}

static void test_firewall_all_sources(void **state)
{
	char tmpl[] = "/tmp/cx5-test-fw-XXXXXX";
	char *dir = mkdtemp(tmpl);
	_cleanup_free_ char *cmd = NULL;
	struct firewall_state f;

	(void)state;
	assert_non_null(dir);
	cmd = strprintf("set -e; cd %s; mkdir -p proc/net proc/77 proc/78; "
			"printf 'filter\\nnat\\n' > proc/net/ip_tables_names; "
			"printf 'filter\\n' > proc/net/ip6_tables_names; "
			"printf 'nf_tables 356352 3 nft_chain_nat, Live 0x0\\nnf_conntrack 1 0 - Live "
			"0x0\\n' > proc/modules; "
			"echo firewalld > proc/78/comm; echo bash > proc/77/comm",
			dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(sysroot_set(dir), 0);
	assert_int_equal(firewall_detect(&f), 0);
	assert_true(f.active);
	assert_string_equal(
	    f.evidence,
	    "ip_tables: filter, nat; ip6_tables: filter; nf_tables in use (3); process firewalld");
	firewall_state_done(&f);

	/* nf_tables loaded but unused is not a firewall */
	free(cmd);
	cmd = strprintf(
	    "set -e; cd %s; : > proc/net/ip_tables_names; rm proc/net/ip6_tables_names proc/78/comm; "
	    "printf 'nf_tables 356352 0 - Live 0x0\\n' > proc/modules",
	    dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(firewall_detect(&f), 0);
	assert_false(f.active);
	firewall_state_done(&f);
	free(cmd);
	cmd = strprintf("rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_models),
	    cmocka_unit_test(test_cx5_2port),
	    cmocka_unit_test(test_cx5_8node),
	    cmocka_unit_test(test_cx5_nonuma),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_odd_device),
	    cmocka_unit_test(test_sysctl),
	    cmocka_unit_test(test_firewall),
	    cmocka_unit_test(test_firewall_all_sources),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
