/* nicfacts.h: one port's driver, firmware and link facts, from the source
 * that describes the port.
 *
 * Owns: the choice of source for plan's preconditions, verify's run record
 * and doctor's checks: the sysroot's files when --sysroot describes the
 * port (a fixture of a ConnectX-5 host seen from a veth lab), the kernel's
 * ethtool answers otherwise. Must never: read the
 * host except through the probe's state and the sysroot. */
#ifndef CX5_NICFACTS_H
#define CX5_NICFACTS_H

#include "probe.h"

/* "mlx5_core"; NULL unknown. Points into s. */
const char *nicfacts_driver(const struct iface_state *s);
/* OFED's module version, else (sysroot) the kernel release, else ethtool's
 * version. -ENODATA unknown. */
int nicfacts_driver_version(const struct iface_state *s, char **ret);
/* The driver's version and which kind of driver it is: MLNX_OFED's module
 * version (/sys/module/<driver>/version, which only OFED publishes;
 * *ret_ofed true), else the inbox driver's, which is the kernel release
 * (/proc/sys/kernel/osrelease under the sysroot; *ret_ofed false).
 * -ENODATA unknown. */
int nicfacts_driver_release(const struct iface_state *s, bool *ret_ofed, char **ret_version);
/* "16.29.1030 (MT_0000000080)"; NULL unknown. Points into s. */
const char *nicfacts_firmware(const struct iface_state *s);
/* Speed in Mb/s and duplex ("full", "half", "unknown"). -ENODATA unknown.
 * The one source of link speed for plan, verify, doctor and show. */
int nicfacts_link(const struct iface_state *s, uint64_t *ret_speed, char **ret_duplex);
/* Where nicfacts_link reads: "sysroot" (/sys/class/net/IFACE/speed and
 * duplex of the sysroot that describes the port) or "ethtool" (the
 * kernel's link settings). */
const char *nicfacts_link_source(const struct iface_state *s);

#endif
