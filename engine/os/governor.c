/* governor.c: CPU frequency governors through the sysroot (see
 * governor.h). */
#define _GNU_SOURCE
#include "governor.h"

#include <ctype.h>
#include <sys/stat.h>

#include "sysroot.h"

#define CPUFREQ_DIR "/sys/devices/system/cpu/cpu%u/cpufreq/"

bool governor_name_valid(const char *s)
{
	if (!*s || strlen(s) > 15)
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

int governor_driver_present(void)
{
	_cleanup_strv_free_ char **entries = NULL;
	int r = sysroot_listdir("/sys/devices/system/cpu/cpufreq", &entries);

	if (r == -ENOENT || r == -ENOTDIR)
		return 0;
	if (r < 0)
		return r;
	for (char **e = entries; *e; e++)
		if (strncmp(*e, "policy", 6) == 0)
			return 1;
	return 0;
}

int governor_read(unsigned cpu, char **ret)
{
	return sysroot_read_linef(ret, CPUFREQ_DIR "scaling_governor", cpu);
}

int governor_available(unsigned cpu, char ***ret)
{
	_cleanup_strv_free_ char **v = NULL;
	_cleanup_free_ char *line = NULL;
	char *save = NULL;
	int r;

	r = sysroot_read_linef(&line, CPUFREQ_DIR "scaling_available_governors", cpu);
	if (r < 0)
		return r;
	for (char *t = strtok_r(line, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
		if ((r = strv_extend(&v, t)) < 0)
			return r;
	if (!v && (r = strv_extend(&v, "")) < 0) /* an empty list is still a list */
		return r;
	*ret = TAKE_PTR(v);
	return 0;
}

/* The governor is the file's: its first line on the live host; under a
 * sysroot the whole file, so that a torn write ("powersave\ne\n") is
 * never taken for the value and is written again. */
static int holds(const char *path, const char *governor, const char *line)
{
	_cleanup_free_ char *cur = NULL;
	int r;

	if (!sysroot_is_live())
		return sysroot_read_is(path, line);
	r = sysroot_read_line(path, &cur);
	return r < 0 ? r : streq(cur, governor);
}

/* value written to path unless it holds it already, then read back:
 * 1 written, 0 already so, -EIO when the read-back differs. */
static int write_verified(const char *path, const char *value)
{
	_cleanup_free_ char *line = strprintf("%s\n", value);
	int r;

	if (!line)
		return -ENOMEM;
	r = holds(path, value, line);
	if (r != 0)
		return r < 0 ? r : 0;
	r = sysroot_write(path, line);
	if (r < 0)
		return r;
	r = holds(path, value, line);
	if (r < 0)
		return r;
	return r ? 1 : -EIO;
}

int governor_write(unsigned cpu, const char *governor)
{
	_cleanup_free_ char *path = NULL;

	if (!governor_name_valid(governor))
		return -EINVAL;
	path = strprintf(CPUFREQ_DIR "scaling_governor", cpu);
	if (!path)
		return -ENOMEM;
	return write_verified(path, governor);
}

/* ---- tunables ---- */

bool governor_tunable_valid(const char *t)
{
	const char *eq = strchr(t, '=');
	size_t n;

	if (!eq || eq == t || eq - t > 64)
		return false;
	for (const char *p = t; p < eq; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_')
			return false;
	n = strlen(eq + 1);
	if (n == 0 || n > 20)
		return false;
	for (const char *p = eq + 1; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

/* Where tunable name of gov lives for cpu: userspace's scaling_setspeed,
 * else the policy's own directory, else the shared one; -ENOENT. */
static int tunable_path(unsigned cpu, const char *gov, const char *name, char **ret)
{
	char *p;

	if (streq(gov, "userspace")) {
		if (!streq(name, "scaling_setspeed"))
			return -ENOENT;
		p = strprintf(CPUFREQ_DIR "scaling_setspeed", cpu);
	} else {
		p = strprintf(CPUFREQ_DIR "%s/%s", cpu, gov, name);
		if (p && !sysroot_exists(p)) {
			free(p);
			p = strprintf("/sys/devices/system/cpu/cpufreq/%s/%s", gov, name);
		}
	}
	if (!p)
		return -ENOMEM;
	if (!sysroot_exists(p)) {
		free(p);
		return -ENOENT;
	}
	*ret = p;
	return 0;
}

/* The tunable at path, "name=VALUE", when it is a regular writable file
 * (whatever it holds: governor_tunable_valid judges it); NULL (0) when it
 * is not one. */
static int tunable_read(const char *path, const char *name, char **ret)
{
	_cleanup_free_ char *v = NULL, *t = NULL;
	struct stat st;
	int r;

	if (sysroot_stat(path, true, &st) < 0 || !S_ISREG(st.st_mode) || !(st.st_mode & 0222))
		return 0;
	r = sysroot_read_line(path, &v);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return 0;
	t = strprintf("%s=%s", name, v);
	if (!t)
		return -ENOMEM;
	*ret = TAKE_PTR(t);
	return 0;
}

int governor_tunables_read(unsigned cpu, const char *gov, char ***ret)
{
	_cleanup_strv_free_ char **names = NULL, **v = NULL;
	_cleanup_free_ char *dir = NULL;
	int r;

	if (!governor_name_valid(gov))
		return -EINVAL;
	if (streq(gov, "userspace")) {
		r = strv_extend(&names, "scaling_setspeed");
	} else {
		dir = strprintf(CPUFREQ_DIR "%s", cpu, gov);
		if (!dir)
			return -ENOMEM;
		r = sysroot_listdir(dir, &names);
		if (r == -ENOENT || r == -ENOTDIR) {
			free(dir);
			dir = strprintf("/sys/devices/system/cpu/cpufreq/%s", gov);
			r = dir ? sysroot_listdir(dir, &names) : -ENOMEM;
		}
		if (r == -ENOENT || r == -ENOTDIR)
			r = 0;
	}
	if (r < 0)
		return r;
	for (char **n = names; n && *n; n++) {
		_cleanup_free_ char *path = NULL, *t = NULL;

		r = tunable_path(cpu, gov, *n, &path);
		if (r == -ENOENT)
			continue;
		if (r >= 0)
			r = tunable_read(path, *n, &t);
		if (r < 0)
			return r;
		if (t && (r = strv_push(&v, TAKE_PTR(t))) < 0)
			return r;
	}
	*ret = TAKE_PTR(v);
	return 0;
}

int governor_tunable_write(unsigned cpu, const char *gov, const char *name, const char *value)
{
	_cleanup_free_ char *path = NULL, *t = strprintf("%s=%s", name, value);
	int r;

	if (!t)
		return -ENOMEM;
	if (!governor_name_valid(gov) || !governor_tunable_valid(t))
		return -EINVAL;
	r = tunable_path(cpu, gov, name, &path);
	if (r < 0)
		return r;
	return write_verified(path, value);
}
