/* verb_verify.c: `cx5prof verify [PROFILE] [--no-bench | --bench-anyway] [--peer ADDR]`.
 *
 * Owns: choosing the profile (the one named, else the last applied one in
 * the history), the one report of what went wrong, and the exit code.
 * Must never: change the host (verify.c only reads and measures). */
#define _GNU_SOURCE
#include <inttypes.h>

#include "base/log.h"
#include "base/output.h"
#include "mirror/mirror.h"
#include "profile.h"
#include "store/history.h"
#include "verbkit.h"
#include "verbs.h"
#include "verify.h"

enum { OPT_NO_BENCH = 1000, OPT_PEER, OPT_BENCH_ANYWAY };

const struct cli_option verify_cli_options[] = {
    {"no-bench", CLI_ARG_NONE, OPT_NO_BENCH, NULL, "check the state only, run no benchmark"},
    {"peer", CLI_ARG_REQUIRED, OPT_PEER, "ADDR",
     "benchmark against ADDR instead of the profile's verify.peer"},
    {"bench-anyway", CLI_ARG_NONE, OPT_BENCH_ANYWAY, NULL,
     "benchmark even when the host differs from the profile"},
    {0},
};

struct verify_args {
	bool no_bench;
	bool bench_anyway;
	const char *peer;
};

static int handle(int id, const char *arg, void *userdata)
{
	struct verify_args *a = userdata;

	switch (id) {
	case OPT_NO_BENCH:
		a->no_bench = true;
		return 0;
	case OPT_PEER:
		a->peer = arg;
		return 0;
	case OPT_BENCH_ANYWAY:
		a->bench_anyway = true;
		return 0;
	}
	return EXIT_USAGE;
}

static int load_named(const char *path, struct profile **ret)
{
	struct profile_error err = {0};
	int r = profile_load(path, ret, &err);

	if (r < 0) {
		_cleanup_free_ char *msg = profile_error_format(&err);
		log_error("%s", msg ? msg : path);
		return profile_load_exit_code(r);
	}
	return EXIT_OK;
}

/* The effective profile recorded with the last apply. */
static int load_last_applied(const struct cli *cli, struct history *h, struct profile **ret, int64_t *ret_txn)
{
	struct txn_record t = {0};
	struct profile_error err = {0};
	_cleanup_free_ char *label = NULL;
	int r;

	r = h ? history_txn_find_last_apply(h, &t) : 0;
	if (r < 0) {
		log_error_errno(r, "history %s: %m: %s", cli->db_path, history_remedy(r));
		return EXIT_ERROR;
	}
	if (r == 0) {
		log_error("no PROFILE given and no applied profile in the history (%s): "
			  "name one, e.g. `cx5prof verify profiles/udp-jumbo.yaml`",
			  cli->db_path);
		return EXIT_USAGE;
	}
	if (t.status == TXN_OPEN) {
		/* A round of a running campaign, an apply under way, or one that
		 * died: its host state is not the profile's yet, or not any more. */
		log_error("transaction %" PRId64 " is still open: an apply or a campaign round is running, "
			  "or one was interrupted (then `cx5prof rollback`); verify once it has finished, "
			  "or name a PROFILE",
			  t.id);
		txn_record_done(&t);
		return EXIT_OPEN_TXN;
	}
	label = strprintf("history transaction %" PRId64, t.id);
	r = t.profile_json && label
		? profile_load_string(t.profile_json, strlen(t.profile_json), label, ret, &err)
		: -ENOMEM;
	if (r < 0) {
		_cleanup_free_ char *msg = r == -ENOMEM ? NULL : profile_error_format(&err);
		log_error("cannot load the profile of %s (%s): %s: name a PROFILE instead",
			  label ? label : "the last apply", strna(t.profile_name), msg ? msg : strerror(-r));
		txn_record_done(&t);
		return EXIT_ERROR;
	}
	*ret_txn = t.id;
	txn_record_done(&t);
	return EXIT_OK;
}

/* A named profile verifies the last apply when it is the same profile. */
static int64_t matching_txn(struct history *h, const struct profile *p)
{
	struct txn_record t = {0};
	_cleanup_free_ char *hash = NULL;
	int64_t id = 0;

	if (!h || history_txn_find_last_apply(h, &t) <= 0)
		return 0;
	if (profile_hash(p, &hash) >= 0 && streq_ptr(hash, t.profile_hash))
		id = t.id;
	txn_record_done(&t);
	return id;
}

int verb_verify(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_profile_ struct profile *prof = NULL;
	_cleanup_history_ struct history *h = NULL;
	_cleanup_verify_report_ struct verify_report *rep = NULL;
	struct verify_args a = {0};
	struct verify_options o = {0};
	int r, code;

	r = cli_parse(cli, cli->verb, argc, argv, handle, &a, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	if (strv_length(args) > 1) {
		log_error("verify: one PROFILE at most");
		return EXIT_USAGE;
	}
	if (a.no_bench && a.bench_anyway) {
		log_error("verify: --no-bench and --bench-anyway contradict each other: choose one");
		return EXIT_USAGE;
	}
	if (a.peer && !profile_peer_valid(a.peer)) {
		log_error("verify: --peer '%s' is not an IP address or a host name", a.peer);
		return EXIT_USAGE;
	}

	/* The history: the default profile comes from it, runs go into it. A
	 * --db that is no file (a FIFO, a directory) is refused whatever the
	 * verify would do with it, as by every verb. */
	code = txn_verb_open_history(cli,
				     (a.no_bench ? HISTORY_READ_ONLY : 0) |
					 (args[0] ? VERB_HISTORY_OPTIONAL : VERB_HISTORY_MAY_BE_MISSING),
				     &h);
	if (code != EXIT_OK)
		return code;

	if (args[0]) {
		code = load_named(args[0], &prof);
		o.transaction_id = code == EXIT_OK ? matching_txn(h, prof) : 0;
		o.source = args[0];
	} else {
		code = load_last_applied(cli, h, &prof, &o.transaction_id);
		o.source = "last applied";
	}
	if (code != EXIT_OK)
		return code;
	if (a.peer && (r = profile_set_peer(prof, a.peer)) < 0) {
		log_error_errno(r, "verify: --peer: %m");
		return EXIT_ERROR;
	}

	o.profile = prof;
	o.bench = !a.no_bench;
	o.bench_anyway = a.bench_anyway;
	o.progress = isatty(STDERR_FILENO);
	o.history = a.no_bench ? NULL : h;
	r = verify_run(&o, &rep);
	if (r < 0) {
		log_error_errno(r, "verify %s: %m", o.source);
		return EXIT_ERROR;
	}
	verify_render(rep);
	r = out_finish();
	if (rep->result.error)
		log_error("benchmark: %s", rep->result.error);
	if (rep->record_error)
		log_warn("history %s: the run was not recorded: %s", cli->db_path, rep->record_error);
	else if (o.history)
		mirror_opportunistic(o.history, &prof->mirror); /* never fails the verify */
	if (r < 0)
		return EXIT_ERROR;
	return verify_exit_code(rep);
}
