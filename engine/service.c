/* service.c: the service-control command (see service.h).
 *
 * Owns: choosing the command and running it without a shell. Must never:
 * run the live host's systemctl while a sysroot is set, or read more than
 * the first line of its answer. */
#define _GNU_SOURCE
#include "service.h"

#include <fcntl.h>
#include <sys/wait.h>

#include "sysroot.h"

const char *service_command(void)
{
	const char *env = getenv("CX5PROF_SYSTEMCTL");

	if (env && *env)
		return env;
	return sysroot_is_live() ? "systemctl" : NULL;
}

/* Read the child's stdout to the end (a long answer is drained, not kept
 * beyond the buffer) so it never blocks on a full pipe. */
static void read_answer(int fd, char *buf, size_t size)
{
	size_t len = 0;

	for (;;) {
		ssize_t n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == size - 1) {
			char drain[256];
			while (read(fd, drain, sizeof(drain)) > 0)
				;
			break;
		}
	}
	buf[len] = '\0';
}

int service_run(const char *verb, const char *unit, const char *const *extra, char **ret_out)
{
	const char *cmd = service_command();
	const char *argv[8] = {cmd, verb, unit};
	size_t argc = 3;
	char buf[256];
	int pipefd[2], status;
	pid_t pid;

	if (!cmd)
		return -EOPNOTSUPP;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int r = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return r;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
		dup2(pipefd[1], STDOUT_FILENO);
		if (devnull >= 0) {
			dup2(devnull, STDIN_FILENO);
			dup2(devnull, STDERR_FILENO);
		}
		if (!sysroot_is_live())
			setenv("CX5PROF_SYSROOT", sysroot_get(), 1);
		for (; extra && *extra && argc < ARRAY_SIZE(argv) - 1; extra++)
			argv[argc++] = *extra;
		argv[argc] = NULL;
		execvp(cmd, (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	read_answer(pipefd[0], buf, sizeof(buf));
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status))
		return -ECHILD;
	if (WEXITSTATUS(status) == 127)
		return -ENOENT; /* the command could not be run */
	if (ret_out) {
		char *nl = strchr(buf, '\n');
		char *s;
		if (nl)
			*nl = '\0';
		s = strdup(strstrip_trailing(buf));
		if (!s)
			return -ENOMEM;
		*ret_out = s;
	}
	return WEXITSTATUS(status);
}

bool service_unit_missing(const char *unit)
{
	static const char *const extra[] = {"--property=LoadState", "--value", NULL};
	_cleanup_free_ char *out = NULL;
	int r = service_run("show", unit, extra, &out);

	return r == 0 && out && streq(out, "not-found");
}

/* systemctl is-enabled prints nothing on stdout (only an error on stderr)
 * for a unit that does not exist: that is "no", asked for explicitly, not
 * "unknown". */
static int service_query(const char *verb, const char *unit, const char *yes, const char *yes_too)
{
	_cleanup_free_ char *out = NULL;
	int r = service_run(verb, unit, NULL, &out);

	if (r < 0)
		return -1;
	if (!out || !*out || streq(out, "not-found"))
		return service_unit_missing(unit) ? 0 : -1;
	return streq(out, yes) || (yes_too && streq(out, yes_too));
}

int service_is_enabled(const char *unit)
{
	return service_query("is-enabled", unit, "enabled", "enabled-runtime");
}

int service_is_active(const char *unit)
{
	return service_query("is-active", unit, "active", NULL);
}
