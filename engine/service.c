/* service.c: the service-control command (see service.h).
 *
 * Owns: choosing the command and running it without a shell. Must never:
 * run the live host's systemctl while a sysroot is set, or read more than
 * the first line of its answer. */
#define _GNU_SOURCE
#include "service.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <sys/wait.h>

#include "sysroot.h"

const char *service_command(void)
{
	const char *env = getenv("CX5PROF_SYSTEMCTL");

	if (env && *env)
		return env;
	return sysroot_is_live() ? "systemctl" : NULL;
}

/* How long one systemctl call may take: `stop` waits for the service's
 * own stop timeout (90 s by default). A service manager that does not
 * answer must not hold the apply lock forever. */
#define SERVICE_TIMEOUT_SEC_DEFAULT 120
#define SERVICE_TIMEOUT_SEC_MAX	    3600
#define SERVICE_POLL_MS		    100
#define SERVICE_REAP_POLL_MS	    2

static unsigned timeout_ms(void)
{
	const char *env = getenv("CX5PROF_SERVICE_TIMEOUT");
	uint32_t v;

	if (env && safe_atou32(env, &v) >= 0 && v > 0 && v <= SERVICE_TIMEOUT_SEC_MAX)
		return v * 1000;
	return SERVICE_TIMEOUT_SEC_DEFAULT * 1000;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void keep(char *buf, size_t size, size_t *len, const char *data, size_t n)
{
	if (n > size - 1 - *len)
		n = size - 1 - *len; /* the rest is drained, not kept */
	memcpy(buf + *len, data, n);
	*len += n;
	buf[*len] = '\0';
}

/* Read the child's stdout (its first size-1 bytes kept, the rest drained
 * so it never blocks on a full pipe) until the child has exited: its
 * status in *ret_status. A process it left behind may hold the pipe open,
 * so the pipe's end is not waited for. -ETIMEDOUT at the deadline. */
static int collect(pid_t pid, int fd, char *buf, size_t size, int64_t deadline, int *ret_status)
{
	char chunk[256];
	size_t len = 0;
	bool eof = false;

	for (;;) {
		int64_t left = deadline - now_ms();
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int64_t wait_ms;
		pid_t p;
		int n;

		p = waitpid(pid, ret_status, WNOHANG);
		if (p == pid)
			break;
		if (p < 0 && errno != EINTR)
			return -errno;
		if (left <= 0)
			return -ETIMEDOUT;
		/* at EOF the child is exiting: poll() on no descriptor is a
		 * short sleep until it can be reaped */
		wait_ms = eof ? SERVICE_REAP_POLL_MS : SERVICE_POLL_MS;
		n = poll(&pfd, eof ? 0 : 1, (int)(left < wait_ms ? left : wait_ms));
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0) {
			ssize_t k = read(fd, chunk, sizeof(chunk));
			if (k > 0)
				keep(buf, size, &len, chunk, (size_t)k);
			else if (k == 0 || (errno != EINTR && errno != EAGAIN))
				eof = true;
		}
	}
	/* What it wrote just before exiting; never block on a pipe another
	 * process still holds. */
	if (!eof && fcntl(fd, F_SETFL, O_NONBLOCK) == 0)
		for (ssize_t k; (k = read(fd, chunk, sizeof(chunk))) > 0;)
			keep(buf, size, &len, chunk, (size_t)k);
	return 0;
}

int service_run(const char *verb, const char *unit, const char *const *extra, char **ret_out)
{
	const char *cmd = service_command();
	const char *argv[8] = {cmd, verb, unit};
	int64_t deadline = now_ms() + timeout_ms();
	size_t argc = 3;
	char buf[256] = "";
	int pipefd[2], status, r;
	pid_t pid;

	if (!cmd)
		return -EOPNOTSUPP;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		r = -errno;
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
	r = collect(pid, pipefd[0], buf, sizeof(buf), deadline, &status);
	close(pipefd[0]);
	if (r == -ETIMEDOUT) {
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	if (r < 0)
		return r;
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
 * for a unit that does not exist: that is a unit asked about explicitly,
 * not an unknown state. */
int service_state(const char *verb, const char *unit, char **ret)
{
	_cleanup_free_ char *out = NULL;
	int r = service_run(verb, unit, NULL, &out);

	if (r < 0)
		return r;
	if (!out || !*out || streq(out, "not-found"))
		return service_unit_missing(unit) ? -ENOENT : -EIO;
	*ret = TAKE_PTR(out);
	return 0;
}

bool service_state_enabled(const char *state)
{
	return streq(state, "enabled") || streq(state, "enabled-runtime");
}

/* 1, 0 (also: no such unit), -1 unknown. */
int service_is_enabled(const char *unit)
{
	_cleanup_free_ char *state = NULL;
	int r = service_state("is-enabled", unit, &state);

	return r == -ENOENT ? 0 : r < 0 ? -1 : service_state_enabled(state);
}

int service_is_active(const char *unit)
{
	_cleanup_free_ char *state = NULL;
	int r = service_state("is-active", unit, &state);

	return r == -ENOENT ? 0 : r < 0 ? -1 : streq(state, "active");
}
