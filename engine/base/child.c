/* child.c: child processes of cx5prof (see child.h).
 *
 * Owns: fork/exec without a shell, collecting a child's output, and the
 * deadline after which it is killed. Must never: run anything through a
 * shell, or leave a child running past its deadline. */
#define _GNU_SOURCE
#include "child.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#define CHILD_OUTPUT_MAX   (4u << 20)
#define CHILD_REAP_POLL_MS 5

int child_spawn(const char *path, char *const *argv, const struct child_options *o, struct child *ret)
{
	int pipefd[2];
	pid_t pid;

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
		int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (o && o->stdin_fd > 0)
			dup2(o->stdin_fd, STDIN_FILENO);
		else if (devnull >= 0)
			dup2(devnull, STDIN_FILENO);
		dup2(pipefd[1], STDOUT_FILENO);
		if (o && o->stderr_discard && devnull >= 0)
			dup2(devnull, STDERR_FILENO);
		else if (!o || !o->stderr_keep)
			dup2(pipefd[1], STDERR_FILENO);
		/* cx5prof ignores SIGPIPE (a closed output is an interruption
		 * it handles); an ignored signal survives exec, the tools
		 * expect the default. */
		signal(SIGPIPE, SIG_DFL);
		/* Ignored signals stay ignored across exec (OpenSSH keeps
		 * them so); the caller still ends the child by SIGKILL. */
		if (o && o->ignore_stop_signals) {
			signal(SIGINT, SIG_IGN);
			signal(SIGTERM, SIG_IGN);
			signal(SIGHUP, SIG_IGN);
			signal(SIGQUIT, SIG_IGN);
		}
		/* The tools' output is parsed: keep it in the C locale. */
		setenv("LC_ALL", "C", 1);
		for (char *const *e = o ? o->env : NULL; e && *e; e++)
			putenv(*e);
		execvp(path, argv);
		fprintf(stderr, "cannot execute %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	*ret = (struct child){.pid = pid, .out_fd = pipefd[0], .exit_status = -1};
	return 0;
}

static void child_read(struct child *c)
{
	char buf[16384];
	ssize_t n = read(c->out_fd, buf, sizeof(buf));

	if (n <= 0) {
		if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
			close(c->out_fd);
			c->out_fd = -1;
		}
		return;
	}
	if (c->output_len + (size_t)n > CHILD_OUTPUT_MAX)
		return; /* keep reading so the child never blocks, drop the excess */
	char *nb = realloc(c->output, c->output_len + (size_t)n + 1);
	if (!nb)
		return;
	memcpy(nb + c->output_len, buf, (size_t)n);
	c->output = nb;
	c->output_len += (size_t)n;
	c->output[c->output_len] = '\0';
}

static void child_reap(struct child *c, int flags)
{
	struct rusage ru;
	int status;
	pid_t p;

	if (c->pid <= 0)
		return;
	p = wait4(c->pid, &status, flags, &ru);
	if (p != c->pid)
		return;
	c->pid = 0;
	c->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	c->cpu_sec = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		     (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* After the last child exited, its pipes are read until EOF, but a
 * grandchild that inherited them (a daemonised helper) may keep them open
 * and keep writing: the drain ends DRAIN_MAX_USEC after the exit. */
#define DRAIN_MAX_USEC 1000000

static void close_pipes(struct child *children, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (children[i].out_fd >= 0) {
			close(children[i].out_fd);
			children[i].out_fd = -1;
		}
}

int child_wait_all(struct child *children, size_t n, uint64_t deadline_usec)
{
	return child_wait_until(children, n, deadline_usec, NULL);
}

int child_wait_until(struct child *children, size_t n, uint64_t deadline_usec, int (*stop)(void))
{
	uint64_t kill_at = 0, drain_end = 0;

	for (;;) {
		struct pollfd pfd[n ? n : 1];
		size_t np = 0, running = 0;
		uint64_t now = now_usec();
		int timeout_ms;

		for (size_t i = 0; i < n; i++) {
			if (children[i].out_fd >= 0)
				pfd[np++] = (struct pollfd){.fd = children[i].out_fd, .events = POLLIN};
			child_reap(&children[i], WNOHANG);
			if (children[i].pid > 0)
				running++;
		}
		if (running == 0 && np == 0)
			return 0;
		if (stop && stop() && now < deadline_usec)
			deadline_usec = now;
		if (running == 0) {
			if (!drain_end)
				drain_end = now + DRAIN_MAX_USEC;
			if (now >= drain_end) {
				close_pipes(children, n);
				return 0;
			}
		}
		if (now >= deadline_usec && running > 0) {
			for (size_t i = 0; i < n; i++)
				if (children[i].pid > 0) {
					kill(children[i].pid, kill_at && now >= kill_at ? SIGKILL : SIGTERM);
					children[i].timed_out = true;
				}
			if (!kill_at)
				kill_at = now + 1000000;
		}
		/* At most 100 ms: also notice exits that print nothing. */
		timeout_ms = 100;
		if (running == 0 && (drain_end - now) / 1000 + 1 < 100)
			timeout_ms = (int)((drain_end - now) / 1000) + 1;
		else if (running > 0 && now < deadline_usec && (deadline_usec - now) / 1000 + 1 < 100)
			timeout_ms = (int)((deadline_usec - now) / 1000) + 1;
		if (np == 0) {
			/* every output closed: what still runs is exiting */
			poll(NULL, 0, timeout_ms < CHILD_REAP_POLL_MS ? timeout_ms : CHILD_REAP_POLL_MS);
			continue;
		}
		if (poll(pfd, np, timeout_ms) < 0 && errno != EINTR)
			return -errno;
		for (size_t i = 0; i < n; i++)
			for (size_t k = 0; k < np; k++)
				if (children[i].out_fd == pfd[k].fd && pfd[k].revents)
					child_read(&children[i]);
	}
}

void child_done(struct child *c)
{
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		child_reap(c, 0);
	}
	if (c->out_fd >= 0)
		close(c->out_fd);
	free(c->output);
	*c = (struct child){.pid = 0, .out_fd = -1, .exit_status = -1};
}
