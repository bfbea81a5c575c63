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

int governor_write(unsigned cpu, const char *governor)
{
	_cleanup_free_ char *cur = NULL, *path = NULL, *line = NULL;
	int r;

	if (!governor_name_valid(governor))
		return -EINVAL;
	r = governor_read(cpu, &cur);
	if (r < 0)
		return r;
	if (streq(cur, governor))
		return 0;
	path = strprintf(CPUFREQ_DIR "scaling_governor", cpu);
	line = strprintf("%s\n", governor);
	if (!path || !line)
		return -ENOMEM;
	r = sysroot_write(path, line);
	if (r < 0)
		return r;
	free(cur);
	cur = NULL;
	r = governor_read(cpu, &cur);
	if (r < 0)
		return r;
	return streq(cur, governor) ? 1 : -EIO;
}
