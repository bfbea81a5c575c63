/* ethsysroot.c: ethtool settings kept in a sysroot (see ethsysroot.h).
 *
 * Owns: the path rule only; the formats belong to the modules of each
 * setting (ethprivflags.c, ethrss.c, ethflowhash.c). */
#define _GNU_SOURCE
#include "ethsysroot.h"

#include "sysroot.h"

int ethsysroot_file(const char *ifname, const char *what, char **ret_path)
{
	char *path;

	if (sysroot_is_live() || !ifname_valid(ifname))
		return 0;
	path = strprintf("/ethtool/%s/%s", ifname, what);
	if (!path)
		return -ENOMEM;
	if (!sysroot_exists(path)) {
		free(path);
		return 0;
	}
	*ret_path = path;
	return 1;
}

int ethsysroot_read(const char *ifname, const char *what, char **ret)
{
	_cleanup_free_ char *path = NULL;
	int r;

	*ret = NULL;
	r = ethsysroot_file(ifname, what, &path);
	if (r <= 0)
		return r;
	return sysroot_read_all(path, ret, NULL);
}

int ethsysroot_write(const char *ifname, const char *what, const char *text)
{
	_cleanup_free_ char *path = NULL;
	int r;

	r = ethsysroot_file(ifname, what, &path);
	if (r == 0)
		return -ENOENT;
	if (r < 0)
		return r;
	r = sysroot_write(path, text);
	if (r < 0)
		return r;
	r = sysroot_read_is(path, text);
	return r < 0 ? r : r ? 0 : -EIO;
}

char *ethsysroot_absent_note(const char *ifname, const char *what)
{
	_cleanup_free_ char *path = NULL;
	int r;

	if (sysroot_is_live())
		return strdup("");
	r = ethsysroot_file(ifname, what, &path);
	if (r == -ENOMEM)
		return NULL;
	if (r > 0)
		return strdup("");
	return strprintf(" (the sysroot has no %s/ethtool/%s/%s: the kernel's %s answered)", sysroot_get(),
			 ifname, what, ifname);
}
