/* pcicfg.c: PCI configuration space reads (see pcicfg.h). */
#define _GNU_SOURCE
#include "pcicfg.h"

#include "sysroot.h"

#define PCI_STATUS	    0x06
#define PCI_STATUS_CAP_LIST 0x10
#define PCI_CAP_PTR	    0x34
#define PCI_EXP_DEVCTL	    0x08
#define PCI_EXP_DEVCTL_MRRS 0x7000

int pcicfg_find_capability(const uint8_t *c, size_t len, uint8_t id)
{
	unsigned pos, hops = 0;

	if (len < 64)
		return -ENODATA;
	if (!(c[PCI_STATUS] & PCI_STATUS_CAP_LIST))
		return -ENXIO;
	pos = c[PCI_CAP_PTR] & ~3u;
	while (pos) {
		/* 48 capabilities at most fit in 192 bytes: more is a loop */
		if (pos < 0x40 || pos + 2 > 256 || ++hops > 48)
			return -EBADMSG;
		if (pos + 2 > len)
			return -ENODATA;
		if (c[pos] == id)
			return (int)pos;
		pos = c[pos + 1] & ~3u;
	}
	return -ENXIO;
}

int pcicfg_max_read_request(const uint8_t *c, size_t len, unsigned *ret)
{
	int pos = pcicfg_find_capability(c, len, PCI_CAP_ID_EXP_);
	unsigned v;

	if (pos < 0)
		return pos;
	if ((size_t)pos + PCI_EXP_DEVCTL + 2 > len)
		return -ENODATA;
	v = (unsigned)c[pos + PCI_EXP_DEVCTL] | (unsigned)c[pos + PCI_EXP_DEVCTL + 1] << 8;
	v = (v & PCI_EXP_DEVCTL_MRRS) >> 12;
	if (v > 5)
		return -EBADMSG; /* reserved encodings */
	*ret = 128u << v;
	return 0;
}

int pcicfg_read_max_read_request(const char *bdf, unsigned *ret)
{
	_cleanup_free_ char *data = NULL, *path = NULL;
	size_t len = 0;
	int r;

	if (!bdf || strchr(bdf, '/') || strstr(bdf, ".."))
		return -EINVAL;
	path = strprintf("/sys/bus/pci/devices/%s/config", bdf);
	if (!path)
		return -ENOMEM;
	r = sysroot_read_all(path, &data, &len);
	if (r < 0)
		return r;
	return pcicfg_max_read_request((const uint8_t *)data, len, ret);
}
