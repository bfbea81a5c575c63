/* nic.h: identity of a network interface's device, from sysfs.
 *
 * Owns: reading /sys/class/net/<if> and its PCI function through the
 * sysroot: PCI BDF, vendor/device and the ConnectX-5 model table, NUMA node
 * and local CPUs, driver and its module version, firmware, PCIe link, MSI
 * vectors. Must never: build a path from an interface name that
 * ifname_valid() rejects, write anything, or ask the kernel through other
 * channels (link state is link.h / ethtool.h). */
#ifndef CX5_NIC_H
#define CX5_NIC_H

#include "base/util.h"

#define PCI_VENDOR_MELLANOX 0x15b3

struct nic_info {
	char *name;
	bool has_device; /* /sys/class/net/<if>/device exists (not virtual) */
	char *pci_bdf;	 /* "0000:af:00.0"; NULL without a device */
	bool has_pci_id;
	uint16_t vendor;      /* 0x15b3 */
	uint16_t device;      /* 0x1017 */
	const char *model;    /* "ConnectX-5", ...; static; NULL when not in the table */
	bool is_mellanox;     /* vendor 0x15b3 */
	bool is_connectx5;    /* a device id of the ConnectX-5 table */
	int numa_node;	      /* -1: none or unknown */
	char *local_cpulist;  /* "0-7,16-23"; NULL when absent */
	char *driver;	      /* "mlx5_core" (basename of device/driver) */
	char *driver_version; /* /sys/module/<driver>/version (OFED only), else NULL */
	char *firmware;	      /* device/infiniband/<ibdev>/fw_ver, else NULL */
	char *ib_device;      /* "mlx5_0", else NULL */
	char *pcie_speed;     /* current_link_speed "8.0 GT/s PCIe" */
	char *pcie_max_speed; /* max_link_speed */
	bool has_pcie_width;
	uint32_t pcie_width;	 /* current_link_width */
	uint32_t pcie_max_width; /* max_link_width */
	unsigned *msi_irqs;	 /* device/msi_irqs/<n>, sorted ascending */
	size_t n_msi_irqs;
};

/* Read the facts of interface `ifname` under the sysroot. Missing optional
 * files leave their field NULL / -1 / false. -EINVAL invalid name, -ENODEV
 * when /sys/class/net/<ifname> does not exist. */
int nic_read(const char *ifname, struct nic_info *ret);
void nic_info_done(struct nic_info *n);

/* Model name of a PCI id ("ConnectX-5 Ex"), NULL when not in the table. */
const char *nic_model_name(uint16_t vendor, uint16_t device);
bool nic_is_connectx5(uint16_t vendor, uint16_t device);

/* Interface names under /sys/class/net of the sysroot, sorted. */
int nic_list(char ***ret);

#endif
