/* runner.c: the table of benchmark runners, first-available selection, the
 * result's life cycle, and the process helpers shared by the runners that
 * drive an external tool (netperf, iperf3).
 *
 * Owns: the one table of runners and child processes it starts for them.
 * Must never: log above debug, run a tool through a shell (argv only, so a
 * peer name is never interpreted), or leave a child running past its
 * deadline. */
#define _GNU_SOURCE
#include "runner.h"

#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "log.h"
#include "sysctl.h"

#define CHILD_OUTPUT_MAX (4u << 20)

/* Preference order when a profile names no runner: the operators' tool
 * first, then iperf3, then cx5prof's own. */
static const struct runner *const runners[] = {
    &runner_netperf,
    &runner_iperf3,
    &runner_builtin,
};

const struct runner *runner_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(runners); i++)
		if (streq(runners[i]->name, name))
			return runners[i];
	return NULL;
}

static int append_line(char **buf, const char *line)
{
	char *n = *buf ? strprintf("%s\n%s", *buf, line) : strdup(line);

	if (!n)
		return -ENOMEM;
	free(*buf);
	*buf = n;
	return 0;
}

int runner_select(char *const *names, const struct runner_params *p, const struct runner **ret,
		  char **ret_why)
{
	_cleanup_free_ char *why = NULL;
	int r;

	for (size_t i = 0; names && names[i]; i++) {
		const struct runner *rn = runner_find(names[i]);
		_cleanup_free_ char *reason = NULL, *line = NULL;

		if (!rn) {
			line = strprintf("%s: unknown runner (known: netperf, iperf3, builtin)", names[i]);
			if (!line)
				return -ENOMEM;
			if (ret_why)
				*ret_why = TAKE_PTR(line);
			return -EINVAL;
		}
		r = rn->available(p, &reason);
		if (r < 0)
			return r;
		if (r > 0) {
			*ret = rn;
			if (ret_why)
				*ret_why = TAKE_PTR(why);
			return 0;
		}
		line = strprintf("%s: %s", rn->name, reason ? reason : "not available");
		if (!line || append_line(&why, line) < 0)
			return -ENOMEM;
	}
	if (ret_why)
		*ret_why = TAKE_PTR(why);
	return -ENOENT;
}

int runner_available_names(const struct runner_params *p, char **ret)
{
	_cleanup_free_ char *list = strdup("");

	if (!list)
		return -ENOMEM;
	for (size_t i = 0; i < ARRAY_SIZE(runners); i++) {
		_cleanup_free_ char *reason = NULL;
		char *n;

		if (runners[i]->available(p, &reason) <= 0)
			continue;
		n = strprintf("%s%s%s", list, *list ? ", " : "", runners[i]->name);
		if (!n)
			return -ENOMEM;
		free(list);
		list = n;
	}
	*ret = TAKE_PTR(list);
	return 0;
}

void runner_result_init(struct runner_result *res, const char *runner_name)
{
	*res = (struct runner_result){.sender_cpu_percent = -1};
	snprintf(res->runner, sizeof(res->runner), "%s", runner_name ? runner_name : "");
}

void runner_result_done(struct runner_result *res)
{
	free(res->command);
	free(res->raw_output);
	free(res->streams);
	strv_free(res->warnings);
	free(res->error);
	*res = (struct runner_result){.sender_cpu_percent = -1};
}

void runner_result_compute_loss(struct runner_result *res)
{
	for (size_t i = 0; i < res->n_streams; i++) {
		struct runner_stream *s = &res->streams[i];
		s->lost = s->sent > s->received ? s->sent - s->received : 0;
	}
	res->lost = res->sent > res->received ? res->sent - res->received : 0;
	/* Nothing sent: nothing arrived either; never a 0% that passes a
	 * ceiling (runner_check_sent() also refuses such a run). */
	res->loss_percent = res->sent ? 100.0 * (double)res->lost / (double)res->sent : 100.0;
}

int runner_check_sent(const struct runner_params *p, struct runner_result *res)
{
	const char *column = streq(res->runner, "netperf") ? ", netperf's Errors column" : "";

	if (res->sent == 0)
		return runner_fail(res, -EIO,
				   "%s sent no datagram to %s (%" PRIu64 " failed sends%s): nothing was "
				   "measured; check the route to the peer and the send buffer (ENOBUFS: "
				   "raise net.core.wmem_max), then run again",
				   res->runner, p->peer ? p->peer : "the peer", res->send_errors, column);
	if (res->send_errors == 0)
		return 0;
	return runner_warn(
	    res,
	    "%" PRIu64 " sends failed during the run%s: the local socket refused them "
	    "(ENOBUFS: the send buffer overflowed); raise net.core.wmem_max and the send buffer",
	    res->send_errors, column);
}

int runner_fail(struct runner_result *res, int err, const char *fmt, ...)
{
	va_list ap;

	free(res->error);
	va_start(ap, fmt);
	res->error = vstrprintf(fmt, ap);
	va_end(ap);
	return err < 0 ? err : -err;
}

int runner_warn(struct runner_result *res, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vstrprintf(fmt, ap);
	va_end(ap);
	return strv_push(&res->warnings, s);
}

int runner_find_binary(const char *name, char **ret)
{
	const char *path = getenv("PATH");
	_cleanup_free_ char *copy = NULL;
	char *save = NULL;

	if (!name || !*name || strchr(name, '/'))
		return -EINVAL;
	copy = strdup(path && *path ? path : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	if (!copy)
		return -ENOMEM;
	for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		_cleanup_free_ char *full = strprintf("%s/%s", *dir ? dir : ".", name);
		struct stat st;

		if (!full)
			return -ENOMEM;
		if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0) {
			*ret = TAKE_PTR(full);
			return 0;
		}
	}
	return -ENOENT;
}

static bool word_needs_quotes(const char *w)
{
	if (!*w)
		return true;
	for (; *w; w++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:,=+@%^", *w))
			return true;
	return false;
}

int runner_argv_to_string(char *const *argv, char **ret)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return -ENOMEM;
	for (size_t i = 0; argv[i]; i++) {
		if (i > 0)
			fputc(' ', f);
		if (!word_needs_quotes(argv[i])) {
			fputs(argv[i], f);
			continue;
		}
		fputc('\'', f);
		for (const char *c = argv[i]; *c; c++) {
			if (*c == '\'')
				fputs("'\\''", f);
			else
				fputc(*c, f);
		}
		fputc('\'', f);
	}
	if (fclose(f) != 0)
		return -ENOMEM;
	*ret = TAKE_PTR(buf);
	return 0;
}

int runner_spawn(const char *path, char *const *argv, int cpu, struct runner_child *ret)
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

		if (devnull >= 0)
			dup2(devnull, STDIN_FILENO);
		dup2(pipefd[1], STDOUT_FILENO);
		dup2(pipefd[1], STDERR_FILENO);
		if (cpu >= 0) {
			cpu_set_t set;
			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			(void)sched_setaffinity(0, sizeof(set), &set);
		}
		/* The tools' output is parsed: keep it in the C locale. */
		setenv("LC_ALL", "C", 1);
		execv(path, argv);
		fprintf(stderr, "cannot execute %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	*ret = (struct runner_child){.pid = pid, .out_fd = pipefd[0], .exit_status = -1};
	return 0;
}

static void child_read(struct runner_child *c)
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

static void child_reap(struct runner_child *c, int flags)
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

static void close_pipes(struct runner_child *children, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (children[i].out_fd >= 0) {
			close(children[i].out_fd);
			children[i].out_fd = -1;
		}
}

int runner_wait_all(struct runner_child *children, size_t n, uint64_t deadline_usec)
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
			poll(NULL, 0, timeout_ms);
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

void runner_child_done(struct runner_child *c)
{
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		child_reap(c, 0);
	}
	if (c->out_fd >= 0)
		close(c->out_fd);
	free(c->output);
	*c = (struct runner_child){.pid = 0, .out_fd = -1, .exit_status = -1};
}

int runner_format_size(uint64_t bytes, char **ret)
{
	char *s;

	if (bytes && bytes % (1024 * 1024) == 0)
		s = strprintf("%" PRIu64 "M", bytes / (1024 * 1024));
	else if (bytes && bytes % 1024 == 0)
		s = strprintf("%" PRIu64 "K", bytes / 1024);
	else
		s = strprintf("%" PRIu64, bytes);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

int runner_warn_clamped(const struct runner_params *p, struct runner_result *res)
{
	static const struct {
		enum sysctl_key key;
		const char *what;
		const char *flag;
	} limits[] = {
	    {SYSCTL_WMEM_MAX, "send", "-s"},
	    {SYSCTL_RMEM_MAX, "receive", "-S"},
	};
	const uint64_t want[] = {p->send_buffer, p->recv_buffer};
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(limits); i++) {
		uint64_t max;

		if (want[i] == 0 || sysctl_read(limits[i].key, &max) < 0 || want[i] <= max)
			continue;
		r = runner_warn(res,
				"requested %s socket buffer %" PRIu64 " (%s) exceeds %s %" PRIu64
				" on this host: the kernel clamps it silently; raise %s to at least %" PRIu64,
				limits[i].what, want[i], limits[i].flag, sysctl_key_to_string(limits[i].key),
				max, sysctl_key_to_string(limits[i].key), want[i]);
		if (r < 0)
			return r;
	}
	return 0;
}
