/* nicfacts.c: driver, firmware and link facts of a port (see nicfacts.h).
 *
 * Owns: nothing but the choice of source. Must never: write anything. */
#define _GNU_SOURCE
#include "nicfacts.h"

#include "linkfacts.h"
#include "sysroot.h"

/* The sysroot describes the port while the kernel's links are another
 * host's (a lab's veths); on the host itself, or in a snapshot of it, the
 * port's own ethtool answers are the source. */
static bool use_sysroot(const struct iface_state *s)
{
	return s->has_nic && !linkfacts_of_this_host();
}

const char *nicfacts_driver(const struct iface_state *s)
{
	if (s->has_nic && s->nic.driver)
		return s->nic.driver;
	return s->present && s->drvinfo_r == 0 && s->drvinfo.driver[0] ? s->drvinfo.driver : NULL;
}

int nicfacts_driver_version(const struct iface_state *s, char **ret)
{
	if (s->has_nic && s->nic.driver_version) {
		*ret = strdup(s->nic.driver_version);
		return *ret ? 0 : -ENOMEM;
	}
	if (use_sysroot(s)) /* an inbox driver's version is the kernel's */
		return sysroot_read_line("/proc/sys/kernel/osrelease", ret);
	if (s->present && s->drvinfo_r == 0 && s->drvinfo.version[0]) {
		*ret = strdup(s->drvinfo.version);
		return *ret ? 0 : -ENOMEM;
	}
	return -ENODATA;
}

int nicfacts_driver_release(const struct iface_state *s, bool *ret_ofed, char **ret_version)
{
	int r;

	if (s->has_nic && s->nic.driver_version) {
		*ret_version = strdup(s->nic.driver_version);
		if (!*ret_version)
			return -ENOMEM;
		*ret_ofed = true;
		return 0;
	}
	r = sysroot_read_line("/proc/sys/kernel/osrelease", ret_version);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return -ENODATA;
	*ret_ofed = false;
	return 0;
}

const char *nicfacts_firmware(const struct iface_state *s)
{
	if (s->has_nic && s->nic.firmware)
		return s->nic.firmware;
	return s->present && s->drvinfo_r == 0 && s->drvinfo.fw_version[0] ? s->drvinfo.fw_version : NULL;
}

const char *nicfacts_link_source(const struct iface_state *s)
{
	return use_sysroot(s) ? "sysroot" : "ethtool";
}

int nicfacts_link(const struct iface_state *s, uint64_t *ret_speed, char **ret_duplex)
{
	if (use_sysroot(s)) {
		_cleanup_free_ char *speed = NULL, *duplex = NULL;
		uint64_t v;

		if (sysroot_read_linef(&speed, "/sys/class/net/%s/speed", s->name) < 0 ||
		    sysroot_read_linef(&duplex, "/sys/class/net/%s/duplex", s->name) < 0 ||
		    safe_atou64(speed, &v) < 0)
			return -ENODATA;
		*ret_speed = v;
		*ret_duplex = TAKE_PTR(duplex);
		return 0;
	}
	if (!s->present || s->ethlink_r < 0 || !s->ethlink.speed_known)
		return -ENODATA;
	*ret_duplex = strdup(eth_duplex_to_string(s->ethlink.duplex));
	if (!*ret_duplex)
		return -ENOMEM;
	*ret_speed = s->ethlink.speed;
	return 0;
}
