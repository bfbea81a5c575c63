/* governor.c: CPU frequency governors through the sysroot (see
 * governor.h). */
#define _GNU_SOURCE
#include "governor.h"

#include <ctype.h>

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

int governor_write(unsigned cpu, const char *governor)
{
	_cleanup_free_ char *path = NULL, *line = NULL;
	int r;

	if (!governor_name_valid(governor))
		return -EINVAL;
	path = strprintf(CPUFREQ_DIR "scaling_governor", cpu);
	line = strprintf("%s\n", governor);
	if (!path || !line)
		return -ENOMEM;
	r = holds(path, governor, line);
	if (r != 0)
		return r < 0 ? r : 0;
	r = sysroot_write(path, line);
	if (r < 0)
		return r;
	r = holds(path, governor, line);
	if (r < 0)
		return r;
	return r ? 1 : -EIO;
}
