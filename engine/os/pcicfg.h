/* pcicfg.h: what cx5prof reads from a PCI function's configuration space
 * (/sys/bus/pci/devices/BDF/config): the PCI Express capability's Max
 * Read Request Size, which `lspci -vv` prints as "MaxReadReq 4096 bytes"
 * and mlnx_tune reports.
 *
 * Owns: walking the capability list (from the pointer at 0x34, when the
 * status register says there is one) and the Device Control register
 * (capability + 0x08, bits 14:12: 128 << n bytes). Must never: write the
 * configuration space, log above debug. */
#ifndef CX5_PCICFG_H
#define CX5_PCICFG_H

#include "base/util.h"

#define PCI_CAP_ID_EXP_ 0x10 /* PCI Express */

/* The offset of capability id in config (len bytes), -ENXIO when the
 * list does not have it, -EBADMSG for a list that loops or leaves the
 * first 256 bytes. */
int pcicfg_find_capability(const uint8_t *config, size_t len, uint8_t id);

/* Max Read Request Size in bytes (128..4096) of a config space dump.
 * -ENXIO no PCI Express capability, -ENODATA the dump is too short (the
 * first 64 bytes are all an unprivileged reader gets). */
int pcicfg_max_read_request(const uint8_t *config, size_t len, unsigned *ret);

/* The same from /sys/bus/pci/devices/BDF/config under the sysroot
 * (-ENOENT: no such file). */
int pcicfg_read_max_read_request(const char *bdf, unsigned *ret);

#endif
