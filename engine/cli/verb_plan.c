/* verb_plan.c: `cx5prof plan PROFILE`, and the planning steps that apply
 * shares (verb_txn.h).
 *
 * Owns: the report of profile, plan, history and lock errors for the
 * transaction verbs. Must never: change the host. Exit codes as terraform
 * plan -detailed-exitcode: 0 nothing to do, 2 changes pending, 1 error,
 * plus 5, 65, 66, 69 for the plan's problems. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <libgen.h>

#include "base/log.h"
#include "base/output.h"
#include "kinds/kinds.h"
#include "os/probe.h"
#include "profile.h"
#include "store/lock.h"
#include "verb_txn.h"
#include "verbs.h"

/* "-": the profile is read from stdin (a peer's apply through ssh gets
 * the flattened profile that way, peerssh.h). */
#define STDIN_PROFILE_MAX (1024 * 1024)

static int load_stdin(struct profile **ret, struct profile_error *err)
{
	_cleanup_free_ char *data = malloc(STDIN_PROFILE_MAX);
	size_t n = 0;

	if (!data)
		return -ENOMEM;
	while (n < STDIN_PROFILE_MAX) {
		ssize_t k = read(STDIN_FILENO, data + n, STDIN_PROFILE_MAX - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int r = -errno;
			snprintf(err->file, sizeof(err->file), "<stdin>");
			snprintf(err->message, sizeof(err->message), "cannot read the profile: %s",
				 strerror(-r));
			return r;
		}
		if (k == 0)
			return profile_load_string(data, n, "<stdin>", ret, err);
		n += (size_t)k;
	}
	snprintf(err->file, sizeof(err->file), "<stdin>");
	snprintf(err->message, sizeof(err->message), "the profile is larger than %d bytes",
		 STDIN_PROFILE_MAX);
	return -EINVAL;
}

int txn_verb_plan(const char *path, bool runtime_only, struct profile **ret_profile, struct plan **ret_plan)
{
	_cleanup_profile_ struct profile *prof = NULL;
	_cleanup_host_state_ struct host_state *host = NULL;
	struct profile_error err = {0};
	struct plan *p = NULL;
	int r;

	r = streq(path, "-") ? load_stdin(&prof, &err) : profile_load(path, &prof, &err);
	if (r < 0) {
		_cleanup_free_ char *msg = profile_error_format(&err);
		log_error("%s", msg ? msg : path);
		return profile_load_exit_code(r);
	}
	r = kinds_probe_host(NULL, 0, &host);
	if (r < 0) {
		log_error_errno(r, "cannot read the network interfaces: %m");
		return EXIT_ERROR;
	}
	r = plan_build(prof, host, &p);
	if (r >= 0 && !runtime_only)
		r = plan_boot_unit(p, path);
	if (r < 0) {
		plan_free(p);
		log_error_errno(r, "cannot plan %s: %m", path);
		return EXIT_ERROR;
	}
	*ret_profile = TAKE_PTR(prof);
	*ret_plan = p;
	return EXIT_OK;
}

void txn_verb_report_problems(const struct plan *p)
{
	for (size_t i = 0; i < p->n_problems; i++)
		log_error("%s: %s: %s", p->problems[i].object, p->problems[i].message, p->problems[i].remedy);
	for (char **w = p->warnings; w && *w; w++)
		log_warn("%s", *w);
}

int txn_verb_history_failed(const char *path, int r)
{
	if (r == -ENOENT)
		log_error(
		    "no history database at %s: check --db (apply, verify, bench and campaign create one)",
		    path);
	else if (r == -ENODATA)
		log_error(
		    "no history in %s (the file is empty or not started): check --db (apply, verify, bench "
		    "and campaign create one)",
		    path);
	else
		log_error_errno(r, "history %s: %m: %s", path, history_remedy(r));
	return history_open_exit_code(r);
}

int txn_verb_open_history(const struct cli *cli, unsigned flags, struct history **ret)
{
	int r = history_open(cli->db_path, flags, ret);

	if (r == -ENOENT && (flags & HISTORY_READ_ONLY)) {
		*ret = NULL;
		return EXIT_OK;
	}
	if (r == -ENOENT && !(flags & HISTORY_EXISTING)) {
		/* Read-write: the file is created, so its directory is missing. */
		_cleanup_free_ char *dir = strdup(cli->db_path);
		log_error("history %s: the directory %s does not exist: check --db", cli->db_path,
			  dir ? dirname(dir) : "of the file");
		return EXIT_ERROR;
	}
	return r < 0 ? txn_verb_history_failed(cli->db_path, r) : EXIT_OK;
}

int txn_verb_lock(const struct cli *cli, unsigned wait_ms, int *ret_fd)
{
	pid_t holder = 0;
	int fd =
	    wait_ms ? lock_acquire_wait(cli->db_path, wait_ms, &holder) : lock_acquire(cli->db_path, &holder);

	if (fd == -EBUSY && holder > 0)
		log_error(
		    "another apply or rollback is running: locked by pid %d (%s): wait for it to finish",
		    (int)holder, lock_busy_path());
	else if (fd == -EBUSY)
		log_error("another apply or rollback is running: locked by a process that did not say "
			  "its pid (%s): wait for it to finish",
			  lock_busy_path());
	if (fd == -EBUSY)
		return EXIT_LOCKED;
	if (fd < 0) {
		log_error_errno(fd, "cannot lock %s.lock or the host's lock: %m: %s", cli->db_path,
				history_remedy(fd));
		return fd == -EACCES || fd == -EPERM ? EXIT_PERMISSION : EXIT_ERROR;
	}
	*ret_fd = fd;
	return EXIT_OK;
}

int txn_verb_refuse_unfinished(struct history *h)
{
	_cleanup_(txn_record_done) struct txn_record t = {0};
	int r = h ? history_txn_find_unfinished(h, &t) : 0;

	if (r < 0) {
		log_error_errno(r, "history %s: %m: %s", history_path(h), history_remedy(r));
		return EXIT_ERROR;
	}
	if (r == 0)
		return EXIT_OK;
	if (t.kind == TXN_ROLLBACK && t.status == TXN_ROLLBACK_FAILED)
		log_error("transaction %" PRId64 " (rollback of transaction %" PRId64
			  ") failed: the host is NOT as before: fix the cause reported then, "
			  "and run `cx5prof rollback` to finish it",
			  t.id, t.rolls_back_txn);
	else if (t.kind == TXN_ROLLBACK)
		log_error("transaction %" PRId64 " (rollback of transaction %" PRId64 ") was interrupted: "
			  "run `cx5prof rollback` to finish it",
			  t.id, t.rolls_back_txn);
	else if (t.status == TXN_ROLLBACK_FAILED)
		log_error("transaction %" PRId64
			  " (%s %s) could not be fully undone: fix the cause reported then, "
			  "and run `cx5prof rollback %" PRId64 "`",
			  t.id, txn_kind_to_string(t.kind), strna(t.profile_name), t.id);
	else if (t.status == TXN_PENDING_CONFIRM)
		log_error("transaction %" PRId64
			  " (%s %s) waits for confirmation: run `cx5prof commit` to keep it "
			  "or `cx5prof rollback` to undo it",
			  t.id, txn_kind_to_string(t.kind), strna(t.profile_name));
	else
		log_error("transaction %" PRId64
			  " (%s %s) was interrupted and may have left changes on the host: "
			  "run `cx5prof rollback` first",
			  t.id, txn_kind_to_string(t.kind), strna(t.profile_name));
	return EXIT_OPEN_TXN;
}

static const char *plan_message(const struct plan *p, char *buf, size_t size)
{
	if (p->n_problems > 0)
		snprintf(buf, size, "cannot apply: %zu problem%s", p->n_problems,
			 p->n_problems == 1 ? "" : "s");
	else if (p->n_changes == 0)
		snprintf(buf, size, "nothing to change");
	else
		snprintf(buf, size, "%zu change%s pending", p->n_changes, p->n_changes == 1 ? "" : "s");
	return buf;
}

enum { OPT_RUNTIME_ONLY = 1000 };

const struct cli_option plan_options[] = {
    {"runtime-only", CLI_ARG_NONE, OPT_RUNTIME_ONLY, NULL,
     "plan as `apply --runtime-only` would: without enabling the boot-time unit"},
    {0},
};

static int plan_option(int id, const char *arg, void *userdata)
{
	(void)arg;
	if (id != OPT_RUNTIME_ONLY)
		return EXIT_USAGE;
	*(bool *)userdata = true;
	return 0;
}

int verb_plan(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_profile_ struct profile *prof = NULL;
	_cleanup_plan_ struct plan *p = NULL;
	bool runtime_only = false;
	char msg[128];
	int r;

	r = cli_parse(cli, cli->verb, argc, argv, plan_option, &runtime_only, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	if (strv_length(args) != 1) {
		log_error("plan: expected one PROFILE");
		return EXIT_USAGE;
	}
	r = txn_verb_plan(args[0], runtime_only, &prof, &p);
	if (r != EXIT_OK)
		return r;
	txn_verb_report_problems(p);
	out_open_object(NULL);
	plan_render(p, plan_message(p, msg, sizeof(msg)));
	out_close_object();
	(void)out_finish();
	if (p->n_problems > 0)
		return plan_problems_exit_code(p);
	return p->n_changes > 0 ? EXIT_CHANGES : EXIT_OK;
}
