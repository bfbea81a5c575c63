/* runner.c: the table of benchmark runners, first-available selection, the
 * result's life cycle, and the helpers shared by the runners that drive an
 * external tool (netperf, iperf3; their processes are child.h's).
 *
 * Owns: the one table of runners. Must never: log above debug, or run a
 * tool through a shell (argv only, so a peer name is never interpreted). */
#define _GNU_SOURCE
#include "runner.h"

#include <inttypes.h>
#include <stdarg.h>
#include <sys/stat.h>

#include "base/log.h"
#include "os/procsys.h"

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

int runner_select_after(char *const *names, const struct runner *after, const struct runner_params *p,
			const struct runner **ret, char **ret_why)
{
	size_t i = 0;

	while (names && names[i] && !streq(names[i], after->name))
		i++;
	if (!names || !names[i] || !names[i + 1]) {
		if (ret_why)
			*ret_why = NULL;
		return -ENOENT;
	}
	return runner_select(names + i + 1, p, ret, ret_why);
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
	json_object_put(res->peer_state);
	netcounters_done(&res->peer_before);
	netcounters_done(&res->peer_after);
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

int runner_warn_clamped(const struct runner_params *p, uint64_t send_actual, uint64_t recv_actual,
			struct runner_result *res)
{
	static const struct {
		enum sysctl_key key;
		const char *what;
		const char *flag;
		const char *where; /* where the socket is: -S is the peer's */
	} limits[] = {
	    {SYSCTL_WMEM_MAX, "send", "-s", "on this host"},
	    {SYSCTL_RMEM_MAX, "receive", "-S", "on the peer"},
	};
	const uint64_t want[] = {p->send_buffer, p->recv_buffer};
	const uint64_t actual[] = {send_actual, recv_actual};
	const char *name;
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(limits); i++) {
		uint64_t max;

		if (want[i] == 0)
			continue;
		name = sysctl_key_to_string(limits[i].key);
		/* The tool's figure is the kernel's answer (Linux doubles a
		 * request: 2 * min(request, limit)); the sysctl is only read
		 * when there is none. */
		if (actual[i]) {
			if (actual[i] >= 2 * want[i])
				continue;
			r = runner_warn(res,
					"%s reports a %s socket buffer of %" PRIu64 " bytes for %s %" PRIu64
					" (the kernel doubles a request: %" PRIu64
					" was due): it was clamped to "
					"%s %" PRIu64 " %s; raise %s to at least %" PRIu64,
					res->runner, limits[i].what, actual[i], limits[i].flag, want[i],
					2 * want[i], name, actual[i] / 2, limits[i].where, name, want[i]);
		} else {
			if (sysctl_read(limits[i].key, &max) < 0 || want[i] <= max)
				continue;
			r = runner_warn(
			    res,
			    "requested %s socket buffer %" PRIu64 " (%s) exceeds %s %" PRIu64
			    " on this host: the kernel clamps it silently; raise %s to at least %" PRIu64,
			    limits[i].what, want[i], limits[i].flag, name, max, name, want[i]);
		}
		if (r < 0)
			return r;
	}
	return 0;
}
