/* sysctl.c: the managed net.core sysctls, read and written through the
 * sysroot (see sysctl.h).
 *
 * Owns: the name table and the name -> /proc/sys path mapping. Must never:
 * accept a name outside the table, or write without reading back. */
#define _GNU_SOURCE
#include "sysctl.h"

#include <inttypes.h>

#include "sysroot.h"

static const char *const sysctl_names[_SYSCTL_MAX] = {
	[SYSCTL_RMEM_MAX] = "net.core.rmem_max",
	[SYSCTL_WMEM_MAX] = "net.core.wmem_max",
	[SYSCTL_RMEM_DEFAULT] = "net.core.rmem_default",
	[SYSCTL_WMEM_DEFAULT] = "net.core.wmem_default",
	[SYSCTL_NETDEV_MAX_BACKLOG] = "net.core.netdev_max_backlog",
};

const char *sysctl_key_to_string(enum sysctl_key k)
{
	if ((unsigned)k >= _SYSCTL_MAX)
		return NULL;
	return sysctl_names[k];
}

int sysctl_key_from_string(const char *name, enum sysctl_key *ret)
{
	for (unsigned i = 0; i < _SYSCTL_MAX; i++)
		if (streq(sysctl_names[i], name)) {
			*ret = (enum sysctl_key)i;
			return 0;
		}
	return -EINVAL;
}

/* "net.core.rmem_max" -> "/proc/sys/net/core/rmem_max". */
static int sysctl_path(enum sysctl_key k, char **ret)
{
	const char *name = sysctl_key_to_string(k);
	char *p;

	if (!name)
		return -EINVAL;
	p = strprintf("/proc/sys/%s", name);
	if (!p)
		return -ENOMEM;
	for (char *c = p + strlen("/proc/sys/"); *c; c++)
		if (*c == '.')
			*c = '/';
	*ret = p;
	return 0;
}

int sysctl_read(enum sysctl_key k, uint64_t *ret)
{
	_cleanup_free_ char *path = NULL;
	uint64_t v;
	int r;

	r = sysctl_path(k, &path);
	if (r < 0)
		return r;
	r = sysroot_read_u64(path, &v);
	if (r < 0)
		return r;
	*ret = v;
	return 0;
}

int sysctl_write(enum sysctl_key k, uint64_t value)
{
	_cleanup_free_ char *path = NULL;
	char buf[32];
	int r;

	r = sysctl_path(k, &path);
	if (r < 0)
		return r;
	/* Compared whole, as the kernel prints it: "212992\n" followed by
	 * anything (a torn write in a sysroot copy) is not 212992. */
	snprintf(buf, sizeof(buf), "%" PRIu64 "\n", value);
	r = sysroot_read_is(path, buf);
	if (r != 0)
		return r < 0 ? r : 0;
	r = sysroot_write(path, buf);
	if (r < 0)
		return r;
	r = sysroot_read_is(path, buf);
	if (r < 0)
		return r;
	return r ? 1 : -EIO;
}

int sysctl_read_name(const char *name, uint64_t *ret)
{
	enum sysctl_key k;
	int r = sysctl_key_from_string(name, &k);

	if (r < 0)
		return r;
	return sysctl_read(k, ret);
}

int sysctl_write_name(const char *name, uint64_t value)
{
	enum sysctl_key k;
	int r = sysctl_key_from_string(name, &k);

	if (r < 0)
		return r;
	return sysctl_write(k, value);
}
