/* verb_doctor.c: `cx5prof doctor [PROFILE] [--peer ADDR] [--peer-state FILE]`.
 *
 * Owns: loading the optional profile, the one error report, the exit code
 * (0 no check failed, 5 a check failed, 1 error). Must never: change the
 * host. */
#define _GNU_SOURCE
#include "base/log.h"
#include "base/output.h"
#include "doctor.h"
#include "profile.h"
#include "verbs.h"

enum { OPT_PEER_STATE = 1000, OPT_PEER };

const struct cli_option doctor_cli_options[] = {
    {"peer-state", CLI_ARG_REQUIRED, OPT_PEER_STATE, "FILE",
     "the peer's `cx5prof show --json`: model, driver and firmware must match"},
    {"peer", CLI_ARG_REQUIRED, OPT_PEER, "ADDR", "probe ADDR instead of the profile's verify.peer"},
    {0},
};

struct doctor_args {
	struct doctor_options o;
	const char *peer;
};

static int handle(int id, const char *arg, void *userdata)
{
	struct doctor_args *a = userdata;

	switch (id) {
	case OPT_PEER_STATE:
		a->o.peer_state = arg;
		return 0;
	case OPT_PEER:
		a->peer = arg;
		return 0;
	}
	return EXIT_USAGE;
}

int verb_doctor(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_profile_ struct profile *prof = NULL;
	_cleanup_doctor_report_ struct doctor_report *rep = NULL;
	struct doctor_args a = {.o = {.counter_interval_ms = 1000, .probe_timeout_ms = 1000}};
	struct doctor_options *o = &a.o;
	int r;

	r = cli_parse(cli, cli->verb, argc, argv, handle, &a, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	if (strv_length(args) > 1) {
		log_error("doctor: one PROFILE at most");
		return EXIT_USAGE;
	}
	if (a.peer && !profile_peer_valid(a.peer)) {
		log_error("doctor: --peer '%s' is not an IP address or a host name", a.peer);
		return EXIT_USAGE;
	}
	if (args[0]) {
		struct profile_error err = {0};
		r = profile_load(args[0], &prof, &err);
		if (r < 0) {
			_cleanup_free_ char *msg = profile_error_format(&err);
			log_error("%s", msg ? msg : args[0]);
			return profile_load_exit_code(r);
		}
		if (a.peer && (r = profile_set_peer(prof, a.peer)) < 0) {
			log_error_errno(r, "doctor: --peer: %m");
			return EXIT_ERROR;
		}
	}
	o->profile = prof;
	o->peer = a.peer;
	r = doctor_run(o, &rep);
	if (r < 0) {
		log_error_errno(r, "doctor: cannot run the checks: %m");
		return EXIT_ERROR;
	}
	doctor_render(rep);
	if (out_finish() < 0)
		return EXIT_ERROR;
	return doctor_exit_code(rep);
}
