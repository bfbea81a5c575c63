/* apply.c: the transaction engine (see apply.h).
 *
 * Owns: the apply step loop, undo in reverse, rollback from the undo log,
 * signal handling during a transaction, the --confirm watchdog process and
 * the failpoints. Every change goes through its row in the change-kind
 * table (plan.h). Must never: change the host before the undo log is
 * durable; stop undoing at the first undo failure (restore all it can). */
#define _GNU_SOURCE
#include "apply.h"

#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "base/log.h"
#include "os/sysroot.h"
#include "plan.h"
#include "store/lock.h"

#define WATCHDOG_POLL_MS      100
#define WATCHDOG_LOCK_WAIT_MS 30000

static volatile sig_atomic_t interrupted_by;
static volatile sig_atomic_t signals_caught;

static void on_signal(int sig)
{
	interrupted_by = sig;
	signals_caught++;
}

void apply_signals_install(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa = {.sa_handler = on_signal};

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
}

int apply_interrupted(void)
{
	return interrupted_by;
}

unsigned apply_signals_caught(void)
{
	return (unsigned)signals_caught;
}

static void failpoint_pause(const char *name, int k)
{
	if (!failpoint(name, k))
		return;
	fprintf(stderr, "cx5prof: failpoint: %s: paused before step %d (pid %d)\n", name, k, (int)getpid());
	/* Until killed, or until a caught signal (SIGINT...) interrupts the
	 * transaction as it would between two real steps. */
	while (!interrupted_by)
		pause();
}

void apply_outcome_done(struct apply_outcome *o)
{
	free(o->failure);
	strv_free(o->left);
	*o = (struct apply_outcome){0};
}

/* "ens1f0 mtu 1500 -> 9000: Invalid argument (kernel: mtu greater than
 * device maximum)" */
static char *describe_failure(const struct change_record *c, const char *from, const char *to, int r,
			      const char *kmsg)
{
	_cleanup_free_ char *f = change_value_human(c->kind, from, to);
	_cleanup_free_ char *t = change_value_human(c->kind, to, from);

	/* -ESTALE and -EBUSY carry cx5prof's own explanation (the IRQ or the
	 * config file changed since the transaction, a later change undid an
	 * earlier one; the process irqbalance stop left running); other
	 * messages are the kernel's extack text. */
	if ((r == -ESTALE || r == -EBUSY) && kmsg)
		return strprintf("%s %s %s -> %s: %s", c->object, c->key, f ? f : strna(from),
				 t ? t : strna(to), kmsg);
	return strprintf("%s %s %s -> %s: %s%s%s%s", c->object, c->key, f ? f : strna(from),
			 t ? t : strna(to),
			 r == -EIO	   ? "read back differs or write failed (EIO)"
			 : r == -ETIMEDOUT ? "timed out (ETIMEDOUT)"
					   : strerror(-r),
			 kmsg ? " (kernel: " : "", kmsg ? kmsg : "", kmsg ? ")" : "");
}

/* Write one value through the change's kind, then verify it (unless the
 * write's own read-back did: a second read of each of 500 IRQs tells
 * nothing new). */
static int change_write(const struct change_record *c, const char *value, bool undo, char **kmsg)
{
	const struct change_kind *k = change_kind_find(c->kind);
	int r;

	if (!k)
		return -EPROTO; /* an undo log from a newer cx5prof */
	r = undo ? k->undo(k, c->object, c->key, value, kmsg) : k->write(c->object, c->key, value, kmsg);
	if (r < 0 || k->write_reads_back)
		return r < 0 ? r : 0;
	if (kmsg) { /* a message of the write, which succeeded, no longer applies */
		free(*kmsg);
		*kmsg = NULL;
	}
	return k->verify(k, c->object, c->key, value, kmsg);
}

/* Undo steps n-1..0 (reverse); each restore is idempotent. A failed step
 * is restored too (it may have half-landed) but keeps its 'failed' mark and
 * error in the history. Never stops early: every step is tried, whatever
 * failed before (an undo, or memory for the report). */
static int undo_steps(struct history *h, const struct change_record *c, size_t n, struct apply_outcome *o)
{
	int ret = 0;

	for (size_t i = n; i-- > 0;) {
		_cleanup_free_ char *kmsg = NULL, *why = NULL;
		int r = failpoint("undo-step", c[i].seq) ? -EIO
							 : change_write(&c[i], c[i].old_value, true, &kmsg);

		if (r >= 0) {
			if (c[i].seq != o->failed_seq)
				(void)history_change_set_state(h, c[i].txn, c[i].seq, CHANGE_UNDONE, NULL);
			continue;
		}
		why = describe_failure(&c[i], c[i].new_value, c[i].old_value, r, kmsg);
		log_debug("undo failed: %s", strna(why));
		(void)history_change_set_state(h, c[i].txn, c[i].seq, CHANGE_FAILED, why);
		if (strv_push(&o->left, TAKE_PTR(why)) < 0)
			ret = -ENOMEM;
		else if (ret == 0)
			ret = -ENOTRECOVERABLE;
	}
	return ret;
}

/* The earlier changes of c[i]'s kind and object still read back: writing
 * one setting can take another of the same port with it (sg off turns gso
 * off). -EIO with *ret_why naming the one that no longer does. */
static int verify_earlier(const struct change_record *c, size_t i, char **ret_why)
{
	const struct change_kind *k = change_kind_find(c[i].kind);

	for (size_t j = 0; k && j < i; j++) {
		int r;

		if (!streq(c[j].kind, c[i].kind) || !streq(c[j].object, c[i].object))
			continue;
		r = k->verify(k, c[j].object, c[j].key, c[j].new_value, NULL);
		if (r == -EIO) {
			_cleanup_free_ char *f =
			    change_value_human(c[j].kind, c[j].old_value, c[j].new_value);
			_cleanup_free_ char *t =
			    change_value_human(c[j].kind, c[j].new_value, c[j].old_value);

			*ret_why =
			    strprintf("the earlier change %s %s %s -> %s no longer reads back (the settings "
				      "depend on each other)",
				      c[j].object, c[j].key, f ? f : strna(c[j].old_value),
				      t ? t : strna(c[j].new_value));
			return *ret_why ? -EIO : -ENOMEM;
		}
		if (r < 0)
			return r;
	}
	return 0;
}

static int apply_step(struct history *h, const struct change_record *changes, size_t i,
		      struct apply_outcome *o)
{
	const struct change_record *c = &changes[i];
	_cleanup_free_ char *kmsg = NULL, *why = NULL;
	int r;

	if (interrupted_by)
		return -EINTR;
	failpoint_pause("apply-pause", c->seq);
	if (interrupted_by)
		return -EINTR;
	r = failpoint("apply-step", c->seq) ? -EIO : change_write(c, c->new_value, false, &kmsg);
	if (r >= 0)
		r = verify_earlier(changes, i, &why);
	if (r >= 0)
		r = history_change_set_state(h, c->txn, c->seq, CHANGE_APPLIED, NULL);
	if (r < 0) {
		o->failed_seq = c->seq;
		/* -ESTALE: describe_failure prints why as cx5prof's own text */
		o->failure =
		    describe_failure(c, c->old_value, c->new_value, why ? -ESTALE : r, why ? why : kmsg);
		(void)history_change_set_state(h, c->txn, c->seq, CHANGE_FAILED, o->failure);
	}
	return r;
}

/* A write that failed this way never reached its target: the file or
 * device is not there (ENOENT, ENOTDIR, ENODEV), the path leaves the
 * sysroot or is a symlink (EXDEV, ELOOP), or the IRQ is no longer the
 * queue's (ESTALE). The step changed nothing: there is nothing to undo,
 * and its undo (which could not reach it either) must not be reported as
 * "NOT restored". */
static bool never_written(int r)
{
	return r == -ENOENT || r == -ENOTDIR || r == -ENODEV || r == -EXDEV || r == -ELOOP || r == -ESTALE;
}

int apply_changes(struct history *h, int64_t txn, const struct change_record *c, size_t n,
		  struct apply_outcome *o)
{
	size_t i;
	int r = 0, u;

	for (i = 0; i < n; i++) {
		r = apply_step(h, c, i, o);
		if (r < 0)
			break;
		o->done++;
	}
	if (r >= 0)
		return 0;
	if (r == -EINTR) {
		/* Step i never started: undo the steps before it only. */
		free(o->failure);
		o->failure =
		    strprintf("interrupted by SIG%s before step %zu",
			      sigabbrev_np(interrupted_by) ? sigabbrev_np(interrupted_by) : "?", i + 1);
		u = undo_steps(h, c, i, o);
	} else if (never_written(r))
		u = undo_steps(h, c, i, o);
	else
		/* The failed step may have half-landed: undo it too. */
		u = undo_steps(h, c, i + 1, o);
	(void)history_txn_set_status(h, txn, u < 0 ? TXN_ROLLBACK_FAILED : TXN_ROLLED_BACK, o->failure);
	return u < 0 ? u : -ECANCELED;
}

int apply_undo_all(struct history *h, int64_t txn, const struct change_record *c, size_t n, const char *why,
		   struct apply_outcome *o)
{
	int u, r;

	free(o->failure);
	o->failure = strdup(why);
	o->failed_seq = 0;
	u = undo_steps(h, c, n, o);
	r = history_txn_set_status(h, txn, u < 0 ? TXN_ROLLBACK_FAILED : TXN_ROLLED_BACK, why);
	if (r < 0)
		o->unrecorded = r;
	return u < 0 ? u : -ECANCELED;
}

/* ---- boots ---- */

int apply_boot_id(char **ret)
{
	int r = sysroot_read_line("/proc/sys/kernel/random/boot_id", ret);

	if (r == -ENOENT) {
		*ret = NULL;
		return 0;
	}
	return r;
}

bool txn_from_earlier_boot(const struct txn_record *t)
{
	_cleanup_free_ char *now = NULL;

	if (!t->boot_id || apply_boot_id(&now) < 0 || !now)
		return false;
	return !streq(now, t->boot_id);
}

/* Who started it: the operator behind sudo, else the account. */
static const char *current_user(void)
{
	const char *u = getenv("SUDO_USER");
	struct passwd *pw;

	if (u && *u)
		return u;
	pw = getpwuid(getuid());
	return pw ? pw->pw_name : "unknown";
}

int apply_txn_create(struct history *h, struct txn_record *t, const struct change_record *c, size_t n,
		     int64_t *ret_id)
{
	_cleanup_free_ char *boot_id = NULL;
	char host[256] = "";
	int r;

	r = apply_boot_id(&boot_id);
	if (r < 0)
		return r;
	gethostname(host, sizeof(host) - 1);
	t->user = (char *)current_user();
	t->host = host;
	t->boot_id = boot_id;
	r = history_txn_create(h, t, c, n, ret_id);
	t->user = t->host = t->boot_id = NULL; /* borrowed for the call */
	return r;
}

/* ---- rollback from the undo log ---- */

static int rollback_record(struct history *h, int64_t target, const struct change_record *c, size_t n,
			   bool read_live, int64_t *ret_id)
{
	struct change_record *rc = calloc(n ? n : 1, sizeof(*rc));
	char **live = calloc(n ? n : 1, sizeof(*live));
	struct txn_record t = {.kind = TXN_ROLLBACK, .status = TXN_OPEN, .rolls_back_txn = target};
	int r;

	if (!rc || !live) {
		free(rc);
		free(live);
		return -ENOMEM;
	}
	/* Reverse order; what is there now -> the old value. "Now" is read
	 * live (what the rollback really changes from, whatever happened
	 * since) unless read_live is off (an earlier boot's objects may name
	 * other things now); the recorded new value when it cannot be read. */
	for (size_t i = 0; i < n; i++) {
		const struct change_record *src = &c[n - 1 - i];
		const struct change_kind *k = change_kind_find(src->kind);

		if (read_live && k && k->read && k->read(src->object, src->key, &live[i], NULL) < 0)
			live[i] = NULL;
		rc[i] = (struct change_record){.seq = (int)i + 1,
					       .object = src->object,
					       .kind = src->kind,
					       .key = src->key,
					       .old_value = live[i] ? live[i] : src->new_value,
					       .new_value = src->old_value};
	}
	r = apply_txn_create(h, &t, rc, n, ret_id);
	for (size_t i = 0; i < n; i++)
		free(live[i]);
	free(live);
	free(rc);
	return r;
}

static int abandon_record(struct history *h, int64_t target, const char *why, int64_t *ret_id)
{
	_cleanup_free_ struct change_record *left = NULL;
	_cleanup_free_ char *target_why = NULL;
	struct change_record *c = NULL;
	size_t n = 0, n_left = 0;
	int64_t id = 0;
	int r;

	r = history_changes_load(h, target, &c, &n);
	if (r < 0)
		return r;
	left = calloc(n ? n : 1, sizeof(*left));
	if (!left) {
		change_records_free(c, n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (c[i].state != CHANGE_UNDONE)
			left[n_left++] = c[i];
	r = rollback_record(h, target, left, n_left, false, &id);
	change_records_free(c, n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n_left; i++)
		(void)history_change_set_state(h, id, (int)i + 1, CHANGE_FAILED,
					       "abandoned: left as it is on the host, not restored");
	target_why = strprintf("abandoned by %s (`cx5prof rollback --abandon`, transaction %" PRId64 "): %s",
			       current_user(), id, why);
	if (!target_why)
		return -ENOMEM;
	r = history_abandon_finish(h, id, target, target_why);
	if (r < 0)
		return r;
	*ret_id = id;
	return 0;
}

int abandon_peer_undo(struct history *h, int64_t target, int64_t peer_txn, const char *why)
{
	_cleanup_free_ char *note =
	    peer_txn == HISTORY_PEER_TXN_UNKNOWN
		? strprintf("the rollback of the peer's apply that was cut short (its transaction unknown) "
			    "abandoned by %s (`cx5prof rollback --abandon`): %s",
			    current_user(), why)
		: strprintf("the rollback of the peer's transaction %" PRId64
			    " abandoned by %s (`cx5prof rollback --abandon`): %s",
			    peer_txn, current_user(), why);

	return note ? history_txn_abandon_peer_undo(h, target, note) : -ENOMEM;
}

int abandon_txn(struct history *h, int64_t target, bool peer_pending, int64_t peer_txn, const char *why,
		int64_t *ret_id)
{
	int64_t id = 0;
	int r = history_begin(h);

	if (r < 0)
		return r;
	/* one SQLite transaction: an abandon recorded without its peer's
	 * would leave the next rollback retrying the peer */
	r = abandon_record(h, target, why, &id);
	if (r >= 0 && peer_pending)
		r = abandon_peer_undo(h, target, peer_txn, why);
	r = history_end(h, r);
	if (r >= 0)
		*ret_id = id;
	return r;
}

/* A change a reboot has reset: a runtime kind, in a transaction of an
 * earlier boot. */
static bool reset_by_reboot(const struct change_record *c, bool earlier_boot)
{
	const struct change_kind *k = change_kind_find(c->kind);
	return earlier_boot && k && !k->persists;
}

int rollback_txn(struct history *h, int64_t target, const char *reason, struct apply_outcome *o)
{
	_cleanup_(txn_record_done) struct txn_record t = {0};
	_cleanup_free_ char *reboot_note = NULL;
	struct change_record *c = NULL;
	bool earlier_boot;
	int64_t id = 0;
	size_t n = 0;
	int r, ret = 0;

	r = history_txn_get(h, target, &t);
	if (r < 0)
		return r;
	earlier_boot = txn_from_earlier_boot(&t);
	reboot_note = strprintf("not written: reset by the reboot since transaction %" PRId64, target);
	if (!reboot_note)
		return -ENOMEM;
	r = history_changes_load(h, target, &c, &n);
	if (r < 0)
		return r;
	r = failpoint("rollback-record", 1) ? -EIO : rollback_record(h, target, c, n, !earlier_boot, &id);
	if (r < 0) {
		change_records_free(c, n);
		return r;
	}
	o->rollback_txn = id;
	for (size_t i = n; i-- > 0;) {
		_cleanup_free_ char *kmsg = NULL;
		int seq = (int)(n - i);

		failpoint_pause("rollback-pause", seq);
		if (reset_by_reboot(&c[i], earlier_boot)) {
			(void)history_change_set_state(h, id, seq, CHANGE_PLANNED, reboot_note);
			(void)history_change_set_state(h, target, c[i].seq, CHANGE_UNDONE, reboot_note);
			o->reset_by_reboot++;
			continue;
		}
		r = change_write(&c[i], c[i].old_value, true, &kmsg);
		if (r >= 0) {
			(void)history_change_set_state(h, id, seq, CHANGE_APPLIED, NULL);
			(void)history_change_set_state(h, target, c[i].seq, CHANGE_UNDONE, NULL);
			o->done++;
			continue;
		}
		char *why = describe_failure(&c[i], c[i].new_value, c[i].old_value, r, kmsg);
		(void)history_change_set_state(h, id, seq, CHANGE_FAILED, why);
		if (strv_push(&o->left, why) < 0)
			ret = -ENOMEM;
		ret = ret < 0 ? ret : -ENOTRECOVERABLE;
	}
	change_records_free(c, n);
	r = history_rollback_finish(h, id, target, ret >= 0, reason);
	return ret < 0 ? ret : r;
}

/* ---- the --confirm watchdog ---- */

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static void detach_stdio(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
	}
	/* Everything else, the apply's lock fd included (flock follows the
	 * open file: keeping it would keep the lock). */
	for (int i = 3; i < 1024; i++)
		close(i);
}

static bool txn_still_pending(struct history *h, int64_t txn)
{
	_cleanup_(txn_record_done) struct txn_record t = {0};
	return history_txn_get(h, txn, &t) >= 0 && t.status == TXN_PENDING_CONFIRM;
}

/* The deadline passed: under the lock, roll txn back unless it was
 * committed meanwhile, through the watchdog's one connection *hp (opened
 * here when the polling could not). */
static int watchdog_fire(struct history **hp, const char *db_path, int64_t txn)
{
	struct apply_outcome o = {0};
	int lock_fd, r = 0;

	lock_fd = lock_acquire_wait(db_path, WATCHDOG_LOCK_WAIT_MS, NULL);
	if (lock_fd < 0)
		return lock_fd;
	if (!*hp)
		r = history_open(db_path, 0, hp);
	if (r >= 0 && txn_still_pending(*hp, txn))
		r = rollback_txn(*hp, txn, "not confirmed in time (--confirm): rolled back by the watchdog",
				 &o);
	apply_outcome_done(&o);
	lock_release(lock_fd);
	return r;
}

static _Noreturn void watchdog_main(const char *db_path, int64_t txn, int64_t deadline_usec)
{
	struct history *h = NULL;
	int r;

	pause_point("watchdog");
	for (;;) {
		if (!h && history_open(db_path, 0, &h) < 0)
			h = NULL;
		if (h && !txn_still_pending(h, txn)) {
			history_close(h);
			_exit(0);
		}
		if (history_now_usec() >= deadline_usec)
			break;
		sleep_ms(WATCHDOG_POLL_MS);
	}
	r = watchdog_fire(&h, db_path, txn);
	history_close(h);
	_exit(r < 0 ? 1 : 0);
}

int watchdog_spawn(const char *db_path, int64_t txn, int64_t deadline_usec)
{
	int pipefd[2], status;
	pid_t child, grandchild = 0;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	fflush(NULL);
	child = fork();
	if (child < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -errno;
	}
	if (child == 0) {
		pid_t gc;
		setsid();
		signal(SIGHUP, SIG_IGN);
		gc = fork();
		if (gc == 0) {
			signal(SIGINT, SIG_IGN);
			signal(SIGTERM, SIG_DFL);
			detach_stdio(); /* closes the pipe too: the parent has the pid */
			watchdog_main(db_path, txn, deadline_usec);
		}
		(void)!write(pipefd[1], &gc, sizeof(gc));
		_exit(gc < 0 ? 1 : 0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &grandchild, sizeof(grandchild)) != sizeof(grandchild))
		grandchild = -1;
	close(pipefd[0]);
	waitpid(child, &status, 0);
	return grandchild > 0 ? grandchild : -ECHILD;
}
