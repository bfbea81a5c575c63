/* nic.c: device identity of an interface from sysfs (see nic.h).
 *
 * Owns: the PCI id -> model table and the layout of /sys/class/net/<if>
 * and its PCI function. Every path is built from a name that passed
 * ifname_valid(), and read through the sysroot. Must never: write, or
 * guess a fact that the files do not state (absent stays NULL / -1). */
#define _GNU_SOURCE
#include "nic.h"

#include <ctype.h>
#include <sys/stat.h>

#include "sysroot.h"

struct nic_model {
	uint16_t vendor, device;
	const char *name;
	bool connectx5;
};

static const struct nic_model nic_models[] = {
    {PCI_VENDOR_MELLANOX, 0x1017, "ConnectX-5", true},
    {PCI_VENDOR_MELLANOX, 0x1018, "ConnectX-5 VF", true},
    {PCI_VENDOR_MELLANOX, 0x1019, "ConnectX-5 Ex", true},
    {PCI_VENDOR_MELLANOX, 0x101a, "ConnectX-5 Ex VF", true},
    {PCI_VENDOR_MELLANOX, 0xa2d2, "BlueField ConnectX-5", true},
};

static const struct nic_model *nic_model_find(uint16_t vendor, uint16_t device)
{
	for (size_t i = 0; i < ARRAY_SIZE(nic_models); i++)
		if (nic_models[i].vendor == vendor && nic_models[i].device == device)
			return &nic_models[i];
	return NULL;
}

const char *nic_model_name(uint16_t vendor, uint16_t device)
{
	const struct nic_model *m = nic_model_find(vendor, device);
	return m ? m->name : NULL;
}

bool nic_is_connectx5(uint16_t vendor, uint16_t device)
{
	const struct nic_model *m = nic_model_find(vendor, device);
	return m && m->connectx5;
}

/* Optional one-line file: NULL when absent or empty. -ENOMEM only. */
static int read_opt(const char *dir, const char *file, char **ret)
{
	_cleanup_free_ char *p = strprintf("%s/%s", dir, file);
	char *s = NULL;
	int r;

	if (!p)
		return -ENOMEM;
	r = sysroot_read_line(p, &s);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || !*s) {
		free(s);
		s = NULL;
	}
	*ret = s;
	return 0;
}

/* "0x15b3" -> 0x15b3. */
static int read_hex16(const char *dir, const char *file, uint16_t *ret)
{
	_cleanup_free_ char *s = NULL;
	unsigned long v;
	char *end;
	int r;

	r = read_opt(dir, file, &s);
	if (r < 0)
		return r;
	if (!s)
		return -ENOENT;
	errno = 0;
	v = strtoul(s, &end, 16);
	if (errno || *end || end == s || v > 0xffff)
		return -EINVAL;
	*ret = (uint16_t)v;
	return 0;
}

static int read_msi_irqs(const char *dev, unsigned **ret, size_t *ret_n)
{
	_cleanup_free_ char *p = strprintf("%s/msi_irqs", dev);
	_cleanup_strv_free_ char **names = NULL;
	_cleanup_free_ unsigned *irqs = NULL;
	size_t n = 0;
	int r;

	if (!p)
		return -ENOMEM;
	r = sysroot_listdir(p, &names);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	irqs = calloc(strv_length(names) + 1, sizeof(unsigned));
	if (!irqs)
		return -ENOMEM;
	for (char **s = names; *s; s++) {
		uint32_t v;
		if (safe_atou32(*s, &v) >= 0)
			irqs[n++] = v;
	}
	qsort(irqs, n, sizeof(unsigned), cmp_unsigned);
	*ret = n ? TAKE_PTR(irqs) : NULL;
	*ret_n = n;
	return 0;
}

/* Firmware from device/infiniband/<ibdev>/fw_ver (present with mlx5_ib). */
static int read_firmware(const char *dev, char **ret_ibdev, char **ret_fw)
{
	_cleanup_free_ char *p = strprintf("%s/infiniband", dev);
	_cleanup_strv_free_ char **names = NULL;
	int r;

	*ret_ibdev = *ret_fw = NULL;
	if (!p)
		return -ENOMEM;
	r = sysroot_listdir(p, &names);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || !names[0])
		return 0;
	for (char **s = names; *s; s++) {
		_cleanup_free_ char *ib = strprintf("%s/%s", p, *s);
		char *fw = NULL;

		if (!ib)
			return -ENOMEM;
		r = read_opt(ib, "fw_ver", &fw);
		if (r < 0)
			return r;
		if (fw) {
			*ret_ibdev = strdup(*s);
			if (!*ret_ibdev) {
				free(fw);
				return -ENOMEM;
			}
			*ret_fw = fw;
			return 0;
		}
	}
	return 0;
}

/* "0000:af:00.0": domain:bus:device.function in lower-case hex. */
static bool pci_bdf_valid(const char *s)
{
	static const char shape[] = "hhhh:hh:hh.h";

	if (!s || strlen(s) != sizeof(shape) - 1)
		return false;
	for (size_t i = 0; shape[i]; i++)
		if (shape[i] == 'h' ? !isxdigit((unsigned char)s[i]) : s[i] != shape[i])
			return false;
	return true;
}

static int nic_read_device(const char *dev, struct nic_info *n)
{
	_cleanup_free_ char *numa = NULL, *width = NULL, *max_width = NULL, *drv = NULL;
	int r;

	r = sysroot_readlink_base(dev, &n->pci_bdf);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || !pci_bdf_valid(n->pci_bdf)) {
		/* Not a PCI function (virtio2, a platform device). */
		free(n->pci_bdf);
		n->pci_bdf = NULL;
	}

	if (read_hex16(dev, "vendor", &n->vendor) >= 0 && read_hex16(dev, "device", &n->device) >= 0) {
		n->has_pci_id = true;
		n->model = nic_model_name(n->vendor, n->device);
		n->is_mellanox = n->vendor == PCI_VENDOR_MELLANOX;
		n->is_connectx5 = nic_is_connectx5(n->vendor, n->device);
	}

	r = read_opt(dev, "numa_node", &numa);
	if (r < 0)
		return r;
	if (!numa || safe_atoi(numa, &n->numa_node) < 0 || n->numa_node < 0)
		n->numa_node = -1;

	r = read_opt(dev, "local_cpulist", &n->local_cpulist);
	if (r < 0)
		return r;

	drv = strprintf("%s/driver", dev);
	if (!drv)
		return -ENOMEM;
	r = sysroot_readlink_base(drv, &n->driver);
	if (r == -ENOMEM)
		return r;
	if (n->driver && ifname_valid(n->driver)) {
		_cleanup_free_ char *mod = strprintf("/sys/module/%s", n->driver);
		if (!mod)
			return -ENOMEM;
		r = read_opt(mod, "version", &n->driver_version);
		if (r < 0)
			return r;
	}

	r = read_firmware(dev, &n->ib_device, &n->firmware);
	if (r < 0)
		return r;

	r = read_opt(dev, "current_link_speed", &n->pcie_speed);
	if (r >= 0)
		r = read_opt(dev, "max_link_speed", &n->pcie_max_speed);
	if (r >= 0)
		r = read_opt(dev, "current_link_width", &width);
	if (r >= 0)
		r = read_opt(dev, "max_link_width", &max_width);
	if (r < 0)
		return r;
	if (width && max_width && safe_atou32(width, &n->pcie_width) >= 0 &&
	    safe_atou32(max_width, &n->pcie_max_width) >= 0)
		n->has_pcie_width = true;
	else
		n->pcie_width = n->pcie_max_width = 0;

	return read_msi_irqs(dev, &n->msi_irqs, &n->n_msi_irqs);
}

int nic_read(const char *ifname, struct nic_info *ret)
{
	_cleanup_free_ char *base = NULL, *dev = NULL;
	struct nic_info n = {.numa_node = -1};
	int r;

	if (!ifname || !ifname_valid(ifname))
		return -EINVAL;
	base = strprintf("/sys/class/net/%s", ifname);
	dev = strprintf("/sys/class/net/%s/device", ifname);
	if (!base || !dev)
		return -ENOMEM;
	if (!sysroot_exists(base))
		return -ENODEV;
	n.name = strdup(ifname);
	if (!n.name)
		return -ENOMEM;
	if (sysroot_exists(dev)) {
		n.has_device = true;
		r = nic_read_device(dev, &n);
		if (r < 0) {
			nic_info_done(&n);
			return r;
		}
	}
	*ret = n;
	return 0;
}

void nic_info_done(struct nic_info *n)
{
	free(n->name);
	free(n->pci_bdf);
	free(n->local_cpulist);
	free(n->driver);
	free(n->driver_version);
	free(n->firmware);
	free(n->ib_device);
	free(n->pcie_speed);
	free(n->pcie_max_speed);
	free(n->msi_irqs);
	*n = (struct nic_info){.numa_node = -1};
}

int nic_list(char ***ret)
{
	_cleanup_strv_free_ char **names = NULL, **valid = NULL;
	int r;

	r = sysroot_listdir("/sys/class/net", &names);
	if (r < 0)
		return r;
	valid = calloc(1, sizeof(char *));
	if (!valid)
		return -ENOMEM;
	for (char **s = names; *s; s++) {
		_cleanup_free_ char *p = NULL;
		struct stat st;

		if (!ifname_valid(*s))
			continue;
		p = strprintf("/sys/class/net/%s", *s);
		if (!p)
			return -ENOMEM;
		/* Interfaces are directories (or symlinks to them); skip plain
		 * files such as bonding_masters. */
		if (sysroot_stat(p, true, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		r = strv_extend(&valid, *s);
		if (r < 0)
			return r;
	}
	*ret = TAKE_PTR(valid);
	return 0;
}
