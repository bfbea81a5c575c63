/* bootunit.c: the boot-time unit of a profile (see bootunit.h).
 *
 * Owns: the profile file -> instance name rule and enable/disable through
 * service.h. Must never: run a shell, or name an instance systemd would
 * unescape into something else (only plain names are accepted). */
#define _GNU_SOURCE
#include "bootunit.h"

#include <ctype.h>
#include <sys/stat.h>

#include "service.h"
#include "sysroot.h"

#define UNIT_PREFIX "cx5prof-apply@"
#define UNIT_SUFFIX ".service"
#define PROFILE_EXT ".yaml"

/* Characters that mean themselves in an instance name: no '\' escapes,
 * no '@', and no leading '-' or '.', which systemd-escape would encode. */
static bool instance_name_plain(const char *s, size_t n)
{
	if (n == 0 || s[0] == '.' || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.-", s[i]))
			return false;
	return true;
}

int bootunit_for_profile(const char *path, char **ret_unit, char **ret_why)
{
	_cleanup_free_ char *want = NULL;
	const char *base = strrchr(path, '/');
	struct stat a, b;
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n <= strlen(PROFILE_EXT) || !streq(base + n - strlen(PROFILE_EXT), PROFILE_EXT) ||
	    !instance_name_plain(base, n - strlen(PROFILE_EXT))) {
		*ret_why = strprintf("%s is not named NAME.yaml with NAME of letters, digits, '_', '.' and "
				     "'-': the boot-time unit cannot name it; rename it",
				     path);
		return *ret_why ? -EXDEV : -ENOMEM;
	}
	want = strprintf("%s/%s", BOOTUNIT_PROFILE_DIR, base);
	if (!want)
		return -ENOMEM;
	if (stat(path, &a) < 0 || sysroot_stat(want, true, &b) < 0 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino) {
		/* A copy of the file alone would break a relative extends: the
		 * flattened profile stands alone. */
		*ret_why = strprintf("the boot-time unit applies %s, and %s is not that file: write it "
				     "there as one file (mkdir -p %s && cx5prof validate --flatten %s > %s) "
				     "and apply that file, or pass --runtime-only",
				     want, path, BOOTUNIT_PROFILE_DIR, path, want);
		return *ret_why ? -EXDEV : -ENOMEM;
	}
	*ret_unit = strprintf("%s%.*s%s", UNIT_PREFIX, (int)(n - strlen(PROFILE_EXT)), base, UNIT_SUFFIX);
	return *ret_unit ? 0 : -ENOMEM;
}

int bootunit_read(const char *unit, char **ret, char **ret_state)
{
	_cleanup_free_ char *out = NULL;
	const char *v = NULL;
	int r;

	r = service_state("is-enabled", unit, &out);
	if (r < 0)
		return r;
	if (service_state_enabled(out))
		v = BOOTUNIT_ENABLED;
	else if (streq(out, "disabled"))
		v = BOOTUNIT_DISABLED;
	else {
		if (ret_state)
			*ret_state = TAKE_PTR(out);
		return -EPERM;
	}
	*ret = strdup(v);
	return *ret ? 0 : -ENOMEM;
}

int bootunit_write(const char *unit, const char *value)
{
	_cleanup_free_ char *now = NULL;
	bool enable;
	int r;

	if (!streq(value, BOOTUNIT_ENABLED) && !streq(value, BOOTUNIT_DISABLED))
		return -EINVAL;
	enable = streq(value, BOOTUNIT_ENABLED);
	r = bootunit_read(unit, &now, NULL);
	if (r >= 0 && streq(now, value))
		return 0;
	/* Not installed any more: disabling it is done; enabling it fails. */
	if (r == -ENOENT && !enable)
		return 0;
	r = service_run(enable ? "enable" : "disable", unit, NULL, NULL);
	if (r < 0)
		return r;
	return r == 0 ? 1 : -EIO;
}
