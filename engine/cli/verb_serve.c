/* verb_serve.c: `cx5prof serve`: the receiving end of the built-in UDP
 * benchmark (`cx5prof bench`, runner `builtin`).
 *
 * Owns: its options (the address and port to listen on, from --bind and
 * --port or from a PROFILE's verify.peer and port; what STATE gives), the
 * listening socket and signal handling; the
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
#include "peer/peercheck.h"
#include "profile.h"
#include "verbs.h"

enum {
	OPT_BIND = 'b',
	OPT_PORT = 'p',
	OPT_ONCE = 1000,
	OPT_CPUS,
	OPT_STATE,
	OPT_STATE_REFRESH,
};

const struct cli_option serve_options[] = {
    {"bind", CLI_ARG_REQUIRED, OPT_BIND, "ADDR",
     "listen on this numeric address (default: PROFILE's verify.peer, else 0.0.0.0)"},
    {"port", CLI_ARG_REQUIRED, OPT_PORT, "PORT",
     "TCP control port (default: PROFILE's verify.port for builtin, else 12866)"},
    {"state", CLI_ARG_REQUIRED, OPT_STATE, "LEVEL",
     "what a STATE request gets: full (default), minimal (MTU, rmem, drop counters) or off"},
    {"state-refresh", CLI_ARG_REQUIRED, OPT_STATE_REFRESH, "MS",
     "read the state for STATE answers at most every MS milliseconds (default 250)"},
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
	enum peerstate_level state;
	uint32_t state_refresh_ms;
	bool bind_from_profile;
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
	case OPT_STATE:
		if (peerstate_level_from_string(arg, &a->state) < 0) {
			log_error("serve: invalid --state '%s': expected full, minimal or off", arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_STATE_REFRESH:
		if (safe_atou32(arg, &v) < 0 || v > SERVE_STATE_REFRESH_MS_MAX) {
			log_error("serve: invalid --state-refresh '%s': expected 0..%d milliseconds", arg,
				  SERVE_STATE_REFRESH_MS_MAX);
			return EXIT_USAGE;
		}
		a->state_refresh_ms = v;
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

/* The address and port a profile names for its benchmark peer: where
 * this host, that peer, listens. --bind and --port win. */
static int listen_from_profile(const char *path, struct serve_args *a, bool port_given, struct profile **ret)
{
	struct profile_error err = {0};
	struct profile *p = NULL;
	uint16_t port;
	int r;

	r = profile_load(path, &p, &err);
	if (r < 0) {
		_cleanup_free_ char *msg = profile_error_format(&err);
		log_error("%s", msg ? msg : path);
		return profile_load_exit_code(r);
	}
	*ret = p;
	if (!a->bind) {
		if (!p->verify.peer.set) {
			log_error("serve: %s has no verify.peer to listen on: give --bind ADDR", path);
			return EXIT_INVALID;
		}
		a->bind = p->verify.peer.value;
		a->bind_from_profile = true;
	}
	port = peercheck_serve_port(p);
	if (!port_given && port)
		a->port = port;
	return 0;
}

static bool wildcard(const char *addr)
{
	return streq(addr, "0.0.0.0") || streq(addr, "::");
}

int verb_serve(struct cli *cli, int argc, char **argv)
{
	_cleanup_(serve_args_done) struct serve_args a = {
	    .state = PEERSTATE_FULL, .state_refresh_ms = SERVE_STATE_REFRESH_MS_DEFAULT, .cpus = CPUSET_INIT};
	_cleanup_profile_ struct profile *prof = NULL;
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_close_ int lfd = -1;
	struct sigaction sa = {.sa_handler = on_signal};
	int r, last;

	r = cli_parse(cli, cli->verb, argc, argv, parse_opt, &a, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	if (strv_length(args) > 1) {
		log_error("serve: unexpected argument '%s': one PROFILE at most", args[1]);
		return EXIT_USAGE;
	}
	if (args[0]) {
		r = listen_from_profile(args[0], &a, a.port != 0, &prof);
		if (r != 0)
			return r;
	}
	if (!a.bind)
		a.bind = "0.0.0.0";
	if (a.port == 0)
		a.port = UDPB_DEFAULT_PORT;
	r = udpsink_listen(a.bind, a.port, &lfd);
	if (r == -EINVAL && a.bind_from_profile) {
		log_error("serve: %s: verify.peer '%s' is not a numeric IPv4 or IPv6 address: give --bind "
			  "ADDR",
			  args[0], a.bind);
		return EXIT_INVALID;
	}
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
	if (a.state == PEERSTATE_FULL && wildcard(a.bind))
		log_notice("serve: every address of this host gives its NIC's facts to whoever connects "
			   "(--state full): --bind ADDR, a PROFILE or --state minimal narrows that");

	r = serveloop_run(&(struct serveloop_config){.lfd = lfd,
						     .cpus = &a.cpus,
						     .once = a.once,
						     .state = a.state,
						     .state_refresh_ms = a.state_refresh_ms,
						     .quit = &quit},
			  &last);
	if (r < 0) {
		log_error_errno(r, "serve: cannot serve: %m");
		return EXIT_ERROR;
	}
	return last < 0 && a.once ? EXIT_ERROR : EXIT_OK;
}
