/* unit.c: the unit tests' shared helpers (unit.h). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <libgen.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "unit.h"

char *unit_tmpdir_new(const char *name)
{
	char *dir = strprintf("/tmp/cx5t-%s-XXXXXX", name);

	if (!dir)
		return NULL;
	if (!mkdtemp(dir)) {
		int e = errno;
		free(dir);
		errno = e;
		return NULL;
	}
	return dir;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((type == FTW_DP ? rmdir(path) : unlink(path)) < 0)
		return errno;
	return 0;
}

int unit_tmpdir_free(char *dir)
{
	int r;

	if (!dir)
		return 0;
	r = nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
	return r == 0 ? 0 : r > 0 ? -r : -errno;
}

int unit_enter_tmpdir(void **state)
{
	char *dir = unit_tmpdir_new(program_invocation_short_name);

	if (!dir || chdir(dir) < 0) {
		unit_tmpdir_free(dir);
		return -1;
	}
	*state = dir;
	return 0;
}

int unit_leave_tmpdir(void **state)
{
	if (chdir("/") < 0)
		return -1;
	return unit_tmpdir_free(TAKE_PTR(*state));
}

static int mkdir_parents(char *path)
{
	char *slash;

	for (slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			*slash = '/';
			return -errno;
		}
		*slash = '/';
	}
	return 0;
}

int unit_write(const char *dir, const char *rel, const char *text)
{
	_cleanup_free_ char *path = strprintf("%s%s%s", dir, rel[0] == '/' ? "" : "/", rel);
	_cleanup_fclose_ FILE *f = NULL;
	int r;

	if (!path)
		return -ENOMEM;
	r = mkdir_parents(path);
	if (r < 0)
		return r;
	f = fopen(path, "we");
	if (!f)
		return -errno;
	if (fputs(text, f) < 0 || fflush(f) != 0)
		return -EIO;
	return 0;
}

void unit_skip_note(const char *why)
{
	const char *log = getenv("CX5PROF_SKIP_LOG");
	const char *ci = getenv("CX5PROF_REQUIRE_PRIVILEGED");

	if (ci && streq(ci, "1"))
		fail_msg("cannot run: %s (CX5PROF_REQUIRE_PRIVILEGED=1: no skips)", why);
	fprintf(stderr, "# SKIP %s\n", why);
	if (log && log[0]) {
		_cleanup_fclose_ FILE *f = fopen(log, "ae");
		char self[4096];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (f) {
			self[n > 0 ? n : 0] = '\0';
			fprintf(f, "%s: %s\n", n > 0 ? basename(self) : "unit", why);
		}
	}
}

int unit_as_nobody(int (*fn)(void *arg), void *arg)
{
	struct passwd *pw = getpwnam("nobody");
	int status;
	pid_t pid;

	if (!pw)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) < 0 ||
		    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) < 0 || geteuid() == 0)
			_exit(125);
		_exit(fn(arg) == 0 ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) == 125)
		return -1;
	return WEXITSTATUS(status);
}
