/* verb_serve.c: `cx5prof serve`: the receiving end of the built-in UDP
 * benchmark (`cx5prof bench`, runner `builtin`).
 *
 * Owns: its options, the listening socket and signal handling; the
 * connections are serveloop.h's (many waiting at once, one test at a
 * time, a hostile or slow client closed with a log line while the others
 * are served). Must never: send UDP, exit because of what a client sent. */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/socket.h>

#include "base/log.h"
#include "base/output.h"
#include "bench/serveloop.h"
#include "bench/udpsink.h"
#include "verbs.h"

enum { OPT_BIND = 'b', OPT_PORT = 'p', OPT_ONCE = 1000, OPT_CPUS = 1001 };

const struct cli_option serve_options[] = {
    {"bind", CLI_ARG_REQUIRED, OPT_BIND, "ADDR", "listen on this numeric address (default 0.0.0.0)"},
    {"port", CLI_ARG_REQUIRED, OPT_PORT, "PORT", "TCP control port (default 12866)"},
    {"once", CLI_ARG_NONE, OPT_ONCE, NULL, "serve one test, then exit (0 if it completed)"},
    {"cpus", CLI_ARG_REQUIRED, OPT_CPUS, "LIST",
     "pin the sink of stream i to the i-th CPU of LIST (default: not pinned)"},
    {0},
};

struct serve_args {
	const char *bind;
	uint16_t port;
	bool once;
	struct cpuset cpus;
};

static void serve_args_done(struct serve_args *a)
{
	cpuset_done(&a->cpus);
}

static volatile sig_atomic_t quit;

static void on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

static int parse_opt(int id, const char *arg, void *userdata)
{
	struct serve_args *a = userdata;
	uint32_t v;

	switch (id) {
	case OPT_BIND:
		a->bind = arg;
		return 0;
	case OPT_PORT:
		if (safe_atou32(arg, &v) < 0 || v < 1 || v > 65535) {
			log_error("serve: invalid port '%s': expected 1..65535", arg);
			return EXIT_USAGE;
		}
		a->port = (uint16_t)v;
		return 0;
	case OPT_ONCE:
		a->once = true;
		return 0;
	case OPT_CPUS:
		cpuset_done(&a->cpus);
		if (cpuset_parse_list(arg, &a->cpus) < 0 || cpuset_count(&a->cpus) == 0) {
			log_error("serve: invalid --cpus '%s': expected a CPU list such as 0-3,8", arg);
			return EXIT_USAGE;
		}
		return 0;
	}
	return EXIT_USAGE;
}

int verb_serve(struct cli *cli, int argc, char **argv)
{
	_cleanup_(serve_args_done) struct serve_args a = {
	    .bind = "0.0.0.0", .port = UDPB_DEFAULT_PORT, .cpus = CPUSET_INIT};
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_close_ int lfd = -1;
	struct sigaction sa = {.sa_handler = on_signal};
	int r, last;

	r = cli_parse(cli, cli_verb("serve"), argc, argv, parse_opt, &a, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	if (args[0]) {
		log_error("serve: unexpected argument '%s'", args[0]);
		return EXIT_USAGE;
	}
	r = udpsink_listen(a.bind, a.port, &lfd);
	if (r == -EINVAL) {
		log_error("serve: '%s' is not a numeric IPv4 or IPv6 address", a.bind);
		return EXIT_USAGE;
	}
	if (r < 0) {
		log_error_errno(
		    r,
		    "serve: cannot listen on %s port %u: %m (is another server using the port? try --port)",
		    a.bind, a.port);
		return r == -EACCES ? EXIT_PERMISSION : EXIT_ERROR;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* Announced on stderr, so scripts can wait for it; results are per client. */
	log_notice("serve: listening on %s port %u (one test at a time)", a.bind, a.port);

	r = serveloop_run(
	    &(struct serveloop_config){.lfd = lfd, .cpus = &a.cpus, .once = a.once, .quit = &quit}, &last);
	if (r < 0) {
		log_error_errno(r, "serve: cannot serve: %m");
		return EXIT_ERROR;
	}
	return last < 0 && a.once ? EXIT_ERROR : EXIT_OK;
}
