/* child.h: starting a program and collecting what it prints, with a
 * deadline: the benchmark tools (netperf, iperf3: runner.h) and the
 * service manager (service.h).
 *
 * Owns: fork/exec (argv only, never a shell; a name without '/' is looked
 * up in $PATH), stdin from /dev/null (or a given fd), the C locale, the output pipe, and
 * killing what outlives its deadline. Must never: log, or leave a child
 * running past its deadline. */
#ifndef CX5_CHILD_H
#define CX5_CHILD_H

#include <sys/types.h>

#include "util.h"

struct child {
	pid_t pid;
	int out_fd;   /* read end: the child's stdout (and stderr unless discarded) */
	char *output; /* collected output, NUL-terminated */
	size_t output_len;
	int exit_status; /* exit code; 128+signal when killed; 127: could not be run */
	double cpu_sec;	 /* user + system CPU time of the child (wait4) */
	bool timed_out;
};

struct child_options {
	bool stderr_discard;	  /* stderr to /dev/null instead of the output */
	bool stderr_keep;	  /* stderr stays this process's (the operator sees it) */
	int stdin_fd;		  /* > 0: the child's stdin; 0: /dev/null */
	char *const *env;	  /* "NAME=value" set in the child, NULL-terminated, or NULL */
	bool ignore_stop_signals; /* SIGINT, SIGTERM, SIGHUP, SIGQUIT ignored in the child: a
				   * signal to the process group (Ctrl-C) reaches only the
				   * caller, which decides when the child ends */
};

/* Start `path` with argv (argv[0] as the operator types it, "netperf");
 * o NULL: stderr merged into the output, no extra environment. */
int child_spawn(const char *path, char *const *argv, const struct child_options *o, struct child *ret);
/* Collect output of all children until they exit or until deadline_usec
 * (now_usec() clock); past the deadline they get SIGTERM, then SIGKILL
 * after one second, and timed_out is set. Once all have exited, their
 * pipes are drained for at most one second more (a grandchild may hold
 * them open), then closed. Output beyond 4 MiB per child is dropped. */
int child_wait_all(struct child *children, size_t n, uint64_t deadline_usec);
/* child_wait_all that also ends the children as at the deadline once
 * stop() returns non-zero (a signal caught by the caller); the caller
 * asks stop() again to tell it from a timeout. */
int child_wait_until(struct child *children, size_t n, uint64_t deadline_usec, int (*stop)(void));
/* Kill (when still running), reap and free. */
void child_done(struct child *c);

#endif
