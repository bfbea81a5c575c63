/* procscan.c: finding a running process by name (see procscan.h). */

#include "procscan.h"

#include <ctype.h>

#include "base/util.h"
#include "sysroot.h"

int procscan_find(const char *comm)
{
	_cleanup_strv_free_ char **pids = NULL;
	int best = 0;

	if (sysroot_listdir("/proc", &pids) < 0)
		return 0;
	for (char **p = pids; *p; p++) {
		_cleanup_free_ char *c = NULL;
		int pid;

		if (!isdigit((unsigned char)**p) || safe_atoi(*p, &pid) < 0 || pid <= 0)
			continue;
		if (sysroot_read_linef(&c, "/proc/%d/comm", pid) < 0)
			continue; /* the process exited meanwhile */
		if (streq(c, comm) && (best == 0 || pid < best))
			best = pid;
	}
	return best;
}
