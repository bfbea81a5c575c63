/* verbkit.c: what several verbs share (see verbkit.h): planning with its
 * one report, the history's and the lock's doors, a transaction's outcome
 * in the operator's words. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <libgen.h>

#include "verbkit.h"
#include "txn.h"
#include "base/log.h"
#include "kinds/kinds.h"
#include "os/probe.h"
#include "peer/peerssh.h"
#include "profile.h"
#include "store/runs.h"
#include "store/lock.h"

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

/* history_open's error r on path, said once; the exit code. */
static int history_failed(const char *path, int r)
{
	if (r == -ENOENT)
		log_error("no history database at %s: check --db (apply, verify, bench, campaign and tune "
			  "create one)",
			  path);
	else if (r == -ENODATA)
		log_error(
		    "no history in %s (the file is empty or not started): check --db (apply, verify, bench, "
		    "campaign and tune create one)",
		    path);
	else
		log_error_errno(r, "history %s: %m: %s", path, history_remedy(r));
	return history_open_exit_code(r);
}

int txn_verb_open_history(const struct cli *cli, unsigned flags, struct history **ret)
{
	int r = history_open(cli->db_path, flags & (HISTORY_READ_ONLY | HISTORY_EXISTING), ret);

	if (r >= 0)
		return EXIT_OK;
	*ret = NULL;
	if (r == -ENOENT && (flags & VERB_HISTORY_MAY_BE_MISSING))
		return EXIT_OK;
	/* A --db that is no file (a FIFO, a directory) is refused whatever the
	 * verb would do with it. */
	if ((flags & VERB_HISTORY_OPTIONAL) && r != -ENXIO && r != -EISDIR) {
		if (!(flags & HISTORY_READ_ONLY))
			log_warn("history %s: %s: %s; this run will not be recorded", cli->db_path,
				 strerror(-r), history_remedy(r));
		return EXIT_OK;
	}
	if (r == -ENOENT && !(flags & (HISTORY_READ_ONLY | HISTORY_EXISTING))) {
		/* Read-write: the file is created, so its directory is missing. */
		_cleanup_free_ char *dir = strdup(cli->db_path);
		log_error("history %s: the directory %s does not exist: check --db", cli->db_path,
			  dir ? dirname(dir) : "of the file");
		return EXIT_ERROR;
	}
	return history_failed(cli->db_path, r);
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

/* ---- a transaction's outcome ---- */

int txn_verb_check_peer_config(const struct profile *prof)
{
	_cleanup_free_ char *err = NULL;
	int r;

	if (!peerssh_wanted(prof))
		return EXIT_OK;
	r = peerssh_check_config(prof, &err);
	if (r >= 0)
		return EXIT_OK;
	log_error("%s; nothing was changed", err ? err : strerror(-r));
	return r == -EPERM    ? EXIT_PERMISSION
	       : r == -ENOENT ? EXIT_NOT_FOUND
	       : r == -EINVAL ? EXIT_INVALID
			      : EXIT_ERROR;
}

void txn_verb_say(enum log_level level, const char *text)
{
	log_full(level, 0, "%s", text);
}

void txn_verb_report_left(char **left)
{
	for (char **l = left; l && *l; l++)
		log_error("NOT restored: %s", *l);
}

/* "apply failed at step 3: ...", "apply failed after its last change:
 * cannot start the --confirm watchdog: ...", or "apply interrupted by
 * SIGINT before step 3" (no step failed). */
static void report_apply_failure(const struct txn_outcome *o)
{
	if (o->apply.failed_seq > 0)
		log_error("apply failed at step %d: %s", o->apply.failed_seq, strna(o->apply.failure));
	else if (o->after_last)
		log_error("apply failed after its last change: %s", strna(o->apply.failure));
	else
		log_error("apply %s", strna(o->apply.failure));
}

/* The peer failed (txn_run said how, on stderr): what was undone. */
static int render_peer_failure(const struct txn_outcome *o, char *msg, size_t msg_size)
{
	const char *why = o->interrupted ? "interrupted" : "the peer failed";

	if (o->end == TXN_END_PEER_FAILED) {
		snprintf(msg, msg_size, "%s (nothing was changed on this host)", strna(o->peer_error));
		log_error("%s", msg);
		return o->peer_left ? EXIT_ROLLBACK_FAILED : EXIT_ERROR;
	}
	if (o->end == TXN_END_NOT_RESTORED) {
		txn_verb_report_left(o->apply.left);
		if (strv_length(o->apply.left) > 0)
			snprintf(msg, msg_size,
				 "%s and this host is NOT fully restored (transaction %" PRId64 "): fix the "
				 "above, then run `cx5prof rollback %" PRId64 "`",
				 why, o->txn, o->txn);
		else if (o->peer_left == HISTORY_PEER_TXN_UNKNOWN)
			snprintf(
			    msg, msg_size,
			    "%s: every change was undone here (transaction %" PRId64
			    " rolled back), but the peer's state is unknown (its apply was cut short): run "
			    "`cx5prof rollback`",
			    why, o->txn);
		else if (o->peer_left)
			snprintf(msg, msg_size,
				 "%s: every change was undone here (transaction %" PRId64
				 " rolled back), but NOT the peer's transaction %" PRId64 " (see above)",
				 why, o->txn, o->peer_left);
		else
			snprintf(msg, msg_size,
				 "%s and the rollback of transaction %" PRId64 " could not be recorded (see "
				 "above): run `cx5prof rollback %" PRId64 "`",
				 why, o->txn, o->txn);
		log_error("%s", msg);
		return EXIT_ROLLBACK_FAILED;
	}
	snprintf(msg, msg_size, "%s: every change was undone here (transaction %" PRId64 " rolled back)", why,
		 o->txn);
	log_error("%s", msg);
	return EXIT_ROLLED_BACK;
}

int txn_verb_outcome(const struct txn_outcome *o, unsigned confirm, char *msg, size_t msg_size)
{
	switch (o->end) {
	case TXN_END_DONE:
		if (o->n == 0 && confirm)
			snprintf(msg, msg_size,
				 "nothing to change here; the peer applied its transaction %" PRId64
				 " (transaction %" PRId64 "): run `cx5prof commit` within %u s to keep it, "
				 "else it is rolled back",
				 o->peer_txn, o->txn, confirm);
		else if (o->n == 0)
			snprintf(msg, msg_size,
				 "nothing to change here; the peer applied its transaction %" PRId64
				 " (transaction %" PRId64 ")",
				 o->peer_txn, o->txn);
		else if (confirm)
			snprintf(msg, msg_size,
				 "applied %zu change%s (transaction %" PRId64
				 "): run `cx5prof commit` within %u s to keep them, "
				 "else they are rolled back (watchdog pid %d)",
				 o->n, o->n == 1 ? "" : "s", o->txn, confirm, o->watchdog_pid);
		else
			snprintf(msg, msg_size, "applied %zu change%s (transaction %" PRId64 ")", o->n,
				 o->n == 1 ? "" : "s", o->txn);
		return EXIT_OK;
	case TXN_END_NOTHING:
		return EXIT_OK;
	case TXN_END_NOT_RECORDED: /* said by txn_run */
		return EXIT_ERROR;
	case TXN_END_PEER_FAILED:
		return render_peer_failure(o, msg, msg_size);
	case TXN_END_UNFINISHED: /* the host is changed: never 1, which says it is as before */
		snprintf(msg, msg_size,
			 "transaction %" PRId64 " applied %zu change%s but %s; run `cx5prof rollback` to "
			 "undo it",
			 o->txn, o->n, o->n == 1 ? "" : "s", strna(o->why));
		log_error("%s", msg);
		return EXIT_ROLLBACK_FAILED;
	case TXN_END_UNDONE:
	case TXN_END_NOT_RESTORED:
		break;
	}
	if (o->peer_error)
		return render_peer_failure(o, msg, msg_size);
	report_apply_failure(o);
	if (o->end == TXN_END_UNDONE) {
		if (o->apply.unrecorded < 0)
			snprintf(msg, msg_size,
				 "every change was undone: the host is back as it was, but the history "
				 "could not record it (%s): transaction %" PRId64
				 " stays open there until `cx5prof rollback` closes it",
				 strerror(-o->apply.unrecorded), o->txn);
		else
			snprintf(msg, msg_size,
				 "every change was undone: the host is back as it was (transaction %" PRId64
				 " rolled back)",
				 o->txn);
		log_error("%s", msg);
		return EXIT_ROLLED_BACK;
	}
	txn_verb_report_left(o->apply.left);
	if (strv_length(o->apply.left) == 0 && o->peer_left)
		snprintf(msg, msg_size,
			 "every change was undone: the host is back as it was (transaction %" PRId64
			 " rolled back), but NOT the peer's (see above)",
			 o->txn);
	else
		snprintf(msg, msg_size,
			 "the host is NOT fully restored (transaction %" PRId64 "): fix the above, "
			 "then run `cx5prof rollback %" PRId64 "`",
			 o->txn, o->txn);
	log_error("%s", msg);
	return EXIT_ROLLBACK_FAILED;
}

/* ---- reports ---- */

int report_dir_failed(const char *verb, const char *dir, int r)
{
	log_error_errno(r, "%s: cannot write the report into %s: %m%s", verb, dir,
			r == -ENOTEMPTY ? ": choose a new or empty directory" : "");
	return r == -ENOTEMPTY ? EXIT_CANT_CREATE : EXIT_ERROR;
}

/* ---- runs ---- */

int verbkit_parse_run_id(const char *s, int64_t *ret)
{
	if (safe_atoi64(s, ret) < 0 || *ret <= 0) {
		log_error("'%s' is not a run id (a positive number, as listed by 'cx5prof history')", s);
		return EXIT_USAGE;
	}
	return 0;
}

int verbkit_load_run(struct history *h, int64_t id, struct run_record *ret)
{
	int r = runs_get(h, id, ret);

	if (r == -ENOENT) {
		log_error("run %" PRId64 " not found in %s: see 'cx5prof history'", id, history_path(h));
		return EXIT_NOT_FOUND;
	}
	if (r < 0) {
		log_error_errno(r, "history %s: cannot read run %" PRId64 ": %m: %s", history_path(h), id,
				history_remedy(r));
		return EXIT_ERROR;
	}
	return 0;
}
