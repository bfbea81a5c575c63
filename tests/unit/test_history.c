/* test_history.c: the SQLite history on real temporary files: schema,
 * durable undo log, unfinished-transaction detection, errors, lock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "apply.h"
#include "base/exitcode.h"
#include "store/history.h"
#include "store/lock.h"
#include "unit.h"

struct fixture {
	char *dir;
	char path[128];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	f->dir = unit_tmpdir_new("history");
	assert_non_null(f->dir);
	snprintf(f->path, sizeof(f->path), "%s/sub/history.db", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int r = unit_tmpdir_free(f->dir);
	free(f);
	return r;
}

static int64_t count_rows(struct history *h, const char *sql)
{
	sqlite3_stmt *s;
	int64_t n;

	assert_int_equal(sqlite3_prepare_v2(history_db(h), sql, -1, &s, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

static const struct change_record sample_changes[] = {
    {.seq = 1, .object = "ens1f0", .kind = "mtu", .key = "mtu", .old_value = "1500", .new_value = "9000"},
    {.seq = 2,
     .object = "irq ens1f0 q0",
     .kind = "irq",
     .key = "/proc/irq/98/smp_affinity_list",
     .old_value = "0-31",
     .new_value = "17"},
    {.seq = 3,
     .object = "sysctl",
     .kind = "sysctl",
     .key = "net.core.rmem_max",
     .old_value = "212992",
     .new_value = "4194304"},
};

static int64_t create_sample(struct history *h, enum txn_status status)
{
	struct txn_record t = {.kind = TXN_APPLY,
			       .profile_name = "udp-jumbo",
			       .profile_hash = "fnv1a64:00",
			       .profile_json = "{}",
			       .user = "root",
			       .host = "lab",
			       .status = status};
	int64_t id = 0;

	assert_int_equal(history_txn_create(h, &t, sample_changes, ARRAY_SIZE(sample_changes), &id), 0);
	assert_true(id > 0);
	return id;
}

static void test_schema(void **state)
{
	struct fixture *f = *state;
	_cleanup_history_ struct history *h = NULL;
	struct stat st;
	static const char *const tables[] = {"transactions", "changes", "runs", "artifacts", "outbox"};

	assert_int_equal(history_open(f->path, 0, &h), 0);
	assert_int_equal(history_schema_version(h), HISTORY_SCHEMA_VERSION);
	for (size_t i = 0; i < ARRAY_SIZE(tables); i++) {
		_cleanup_free_ char *sql = strprintf(
		    "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='%s'", tables[i]);
		assert_int_equal(count_rows(h, sql), 1);
	}
	assert_int_equal(count_rows(h, "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode='wal'"),
			 1);
	assert_int_equal(count_rows(h, "PRAGMA foreign_keys"), 1);
	assert_int_equal(count_rows(h, "PRAGMA synchronous"), 2); /* FULL */
	/* The directory was created private. */
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	{
		_cleanup_free_ char *dir = strprintf("%s/sub", f->dir);
		assert_int_equal(stat(dir, &st), 0);
		assert_int_equal(st.st_mode & 0777, 0700);
	}
	/* Reopening an up-to-date file changes nothing. */
	history_close(TAKE_PTR(h));
	assert_int_equal(history_open(f->path, 0, &h), 0);
	assert_int_equal(history_schema_version(h), HISTORY_SCHEMA_VERSION);
}

/* HISTORY_EXISTING never creates: not the file, not its directory. */
static void test_existing_only(void **state)
{
	struct fixture *f = *state;
	_cleanup_history_ struct history *h = NULL;
	_cleanup_free_ char *dir = strprintf("%s/sub", f->dir);
	struct stat st;

	assert_int_equal(history_open(f->path, HISTORY_EXISTING, &h), -ENOENT);
	assert_int_equal(stat(dir, &st), -1);
	assert_int_equal(history_open(f->path, 0, &h), 0);
	history_close(TAKE_PTR(h));
	assert_int_equal(history_open(f->path, HISTORY_EXISTING, &h), 0);
	assert_int_equal(history_schema_version(h), HISTORY_SCHEMA_VERSION);
}

static void test_migration_from_v0(void **state)
{
	struct fixture *f = *state;
	_cleanup_history_ struct history *h = NULL;
	sqlite3 *db;

	/* A version-0 file: a SQLite database without our tables. */
	{
		_cleanup_free_ char *sub = strprintf("%s/sub", f->dir);
		assert_int_equal(mkdir(sub, 0700), 0);
	}
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE unrelated(x)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	/* Read-only users never migrate, nor do the verbs that need an
	 * existing history: the file holds none (-ENODATA, not -ENOENT: it
	 * exists). */
	assert_int_equal(history_open(f->path, HISTORY_READ_ONLY, &h), -ENODATA);
	assert_int_equal(history_open(f->path, HISTORY_EXISTING, &h), -ENODATA);
	assert_int_equal(history_open(f->path, 0, &h), 0);
	assert_int_equal(history_schema_version(h), HISTORY_SCHEMA_VERSION);
	assert_int_equal(
	    count_rows(h, "SELECT count(*) FROM pragma_table_info('transactions') WHERE name = 'boot_id'"),
	    1);
	assert_int_equal(count_rows(h, "SELECT count(*) FROM unrelated"), 0);
}

static void test_newer_schema_refused(void **state)
{
	struct fixture *f = *state;
	_cleanup_history_ struct history *h = NULL;

	assert_int_equal(history_open(f->path, 0, &h), 0);
	assert_int_equal(history_exec(h, "PRAGMA user_version = 99", NULL), 0);
	history_close(TAKE_PTR(h));
	assert_int_equal(history_open(f->path, 0, &h), -EPROTONOSUPPORT);
	assert_null(h);
}

static void test_undo_log_durable(void **state)
{
	struct fixture *f = *state;
	_cleanup_history_ struct history *h = NULL;
	struct change_record *c = NULL;
	size_t n = 0;
	int64_t id;
	pid_t pid;
	int status;

	assert_int_equal(history_open(f->path, 0, &h), 0);
	/* A child records the transaction and dies without closing anything:
	 * the undo log must be there for the next process. Its progress mark
	 * was only queued (marks are batched): it is lost, which rollback
	 * does not mind (it restores every change). */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct history *child = NULL;
		if (history_open(f->path, 0, &child) < 0)
			_exit(1);
		create_sample(child, TXN_OPEN);
		_exit(history_change_set_state(child, 1, 1, CHANGE_APPLIED, NULL) < 0 ? 2 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);

	id = 1;
	assert_int_equal(history_changes_load(h, id, &c, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(c[0].object, "ens1f0");
	assert_string_equal(c[0].old_value, "1500");
	assert_int_equal(c[0].state, CHANGE_PLANNED);
	assert_int_equal(c[1].state, CHANGE_PLANNED);
	assert_string_equal(c[2].key, "net.core.rmem_max");
	assert_string_equal(c[2].new_value, "4194304");
	change_records_free(c, n);
	/* The mirror outbox got the transaction in the same SQLite transaction. */
	assert_int_equal(count_rows(h, "SELECT count(*) FROM outbox WHERE source_kind='txn' AND source_id=1"),
			 1);
}

static void test_unfinished_detection(void **state)
{
	struct fixture *f = *state;
	_cleanup_history_ struct history *h = NULL;
	_cleanup_(txn_record_done) struct txn_record t = {0};
	int64_t a, b;

	assert_int_equal(history_open(f->path, 0, &h), 0);
	assert_int_equal(history_txn_find_unfinished(h, &t), 0);
	assert_int_equal(history_txn_find_last_apply(h, &t), 0);

	a = create_sample(h, TXN_OPEN);
	assert_int_equal(history_txn_find_unfinished(h, &t), 1);
	assert_int_equal(t.id, a);
	assert_int_equal(t.status, TXN_OPEN);
	assert_string_equal(t.profile_name, "udp-jumbo");
	txn_record_done(&t);

	assert_int_equal(history_txn_set_status(h, a, TXN_COMMITTED, NULL), 0);
	assert_int_equal(history_txn_find_unfinished(h, &t), 0);
	assert_int_equal(history_txn_get(h, a, &t), 0);
	assert_int_equal(t.status, TXN_COMMITTED);
	assert_true(t.ended_usec >= t.started_usec);
	txn_record_done(&t);

	b = create_sample(h, TXN_OPEN);
	assert_int_equal(history_txn_set_pending_confirm(h, b, 1234), 0);
	assert_int_equal(history_txn_find_unfinished(h, &t), 1);
	assert_int_equal(t.id, b);
	assert_int_equal(t.status, TXN_PENDING_CONFIRM);
	assert_int_equal(t.confirm_deadline_usec, 1234);
	txn_record_done(&t);

	/* b touched the same keys after a: rolling back a must be refused. */
	{
		int64_t later = 0;
		assert_int_equal(history_txn_find_later_overlap(h, a, &later), 1);
		assert_int_equal(later, b);
		assert_int_equal(history_txn_find_later_overlap(h, b, &later), 0);
	}
	assert_int_equal(history_txn_set_status(h, b, TXN_ROLLED_BACK, "confirm timeout"), 0);
	assert_int_equal(history_txn_find_last_apply(h, &t), 1);
	assert_int_equal(t.id, a);
	txn_record_done(&t);
	assert_int_equal(history_txn_get(h, 999, &t), -ENOENT);
	assert_int_equal(history_change_set_state(h, a, 0, CHANGE_UNDONE, NULL), -EINVAL);
	/* One outbox row per transaction, following its status. */
	assert_int_equal(count_rows(h, "SELECT count(*) FROM outbox"), 2);
	assert_int_equal(count_rows(h, "SELECT count(*) FROM outbox WHERE payload LIKE '%\"rolled_back\"%'"),
			 1);
}

static void test_json(void **state)
{
	struct fixture *f = *state;
	_cleanup_history_ struct history *h = NULL;
	_cleanup_free_ char *js = NULL;
	int64_t id;

	assert_int_equal(history_open(f->path, 0, &h), 0);
	id = create_sample(h, TXN_OPEN);
	assert_int_equal(history_txn_to_json(h, id, &js), 0);
	assert_non_null(strstr(js, "\"kind\":\"apply\",\"status\":\"open\",\"profile\":\"udp-jumbo\""));
	assert_non_null(strstr(js,
			       "{\"seq\":1,\"object\":\"ens1f0\",\"kind\":\"mtu\",\"key\":\"mtu\","
			       "\"old\":\"1500\",\"new\":\"9000\",\"state\":\"planned\",\"error\":null}"));
}

static void write_file(const char *path, const char *data)
{
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(data, fp);
	fclose(fp);
}

/* As the owner of the file, not root (root writes a file whatever its
 * mode): a history made read-only refuses a write with -EROFS. 0 when it
 * held. */
static int read_only_refused(void *arg)
{
	const char *path = arg;
	struct history *h = NULL;
	struct txn_record t = {.kind = TXN_APPLY, .user = "u", .host = "h", .status = TXN_OPEN};
	int64_t id;
	int r;

	if (history_open(path, 0, &h) < 0)
		return 1;
	history_close(TAKE_PTR(h));
	if (chmod(path, 0400) < 0)
		return 2;
	r = history_open(path, 0, &h);
	if (r >= 0)
		r = history_txn_create(h, &t, NULL, 0, &id);
	history_close(h);
	return r == -EROFS ? 0 : 3;
}

static void test_errors(void **state)
{
	struct fixture *f = *state;
	_cleanup_history_ struct history *h = NULL;
	_cleanup_free_ char *garbage = strprintf("%s/garbage.db", f->dir);
	_cleanup_free_ char *missing = strprintf("%s/missing.db", f->dir);
	_cleanup_free_ char *notdir = strprintf("%s/garbage.db/x.db", f->dir);

	write_file(garbage, "this is not a SQLite database, just some text that is long enough.........."
			    "..............................................................................");
	assert_int_equal(history_open(garbage, 0, &h), -EBADMSG);
	assert_null(h);
	assert_string_equal(history_remedy(-EBADMSG),
			    "check --db: the file is not a cx5prof history, or it is corrupt");
	assert_int_equal(history_open(missing, HISTORY_READ_ONLY, &h), -ENOENT);
	/* rollback, commit, mirror, analyze: never create the file */
	assert_int_equal(history_open(missing, HISTORY_EXISTING, &h), -ENOENT);
	assert_int_equal(access(missing, F_OK), -1);
	assert_int_equal(history_open(notdir, 0, &h), -ENOTDIR);
	assert_int_equal(history_errno(SQLITE_BUSY), -EBUSY);
	assert_int_equal(history_errno(SQLITE_IOERR_FSYNC), -EIO);
	assert_int_equal(history_errno(SQLITE_READONLY), -EROFS);
	assert_int_equal(history_errno(SQLITE_DONE), 0);

	/* A read-only file refuses writes with -EROFS, naming no partial state:
	 * checked as its owner, and as root through `nobody` owning it. */
	if (geteuid() != 0) {
		assert_int_equal(read_only_refused(f->path), 0);
	} else {
		struct passwd *pw = getpwnam("nobody");

		if (!pw)
			unit_skip("no user nobody to own a read-only history");
		assert_int_equal(chown(f->dir, pw->pw_uid, pw->pw_gid), 0);
		assert_int_equal(unit_as_nobody(read_only_refused, f->path), 0);
	}
}

static void test_read_only_open(void **state)
{
	struct fixture *f = *state;
	_cleanup_history_ struct history *h = NULL;
	struct txn_record t = {.kind = TXN_APPLY, .user = "u", .host = "h", .status = TXN_OPEN};
	int64_t id;

	assert_int_equal(history_open(f->path, 0, &h), 0);
	create_sample(h, TXN_COMMITTED);
	history_close(TAKE_PTR(h));
	assert_int_equal(history_open(f->path, HISTORY_READ_ONLY, &h), 0);
	assert_int_equal(history_txn_create(h, &t, NULL, 0, &id), -EROFS);
}

/* An empty file is no history: read-only and existing-only opens refuse it
 * with -ENODATA, which maps to exit 66 like a missing file (the one
 * mapping every verb uses). */
static void test_empty_file(void **state)
{
	struct fixture *f = *state;
	_cleanup_history_ struct history *h = NULL;
	_cleanup_free_ char *sub = strprintf("%s/sub", f->dir);
	_cleanup_close_ int fd = -1;
	struct stat st;

	assert_int_equal(mkdir(sub, 0700), 0);
	fd = open(f->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(history_open(f->path, HISTORY_READ_ONLY, &h), -ENODATA);
	assert_int_equal(history_open(f->path, HISTORY_EXISTING, &h), -ENODATA);
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(history_open_exit_code(-ENODATA), EXIT_NOT_FOUND);
	assert_int_equal(history_open_exit_code(-ENOENT), EXIT_NOT_FOUND);
	assert_int_equal(history_open_exit_code(-EISDIR), EXIT_INVALID);
	assert_int_equal(history_open_exit_code(-EACCES), EXIT_PERMISSION);
	assert_int_equal(history_open_exit_code(-EBADMSG), EXIT_ERROR);
}

/* Marks are queued; a durable write, history_changes_load and
 * history_close write them, whatever their number. */
static void test_marks_batched(void **state)
{
	struct fixture *f = *state;
	_cleanup_history_ struct history *h = NULL, *other = NULL;
	struct change_record many[300], *c = NULL;
	struct txn_record t = {.kind = TXN_APPLY, .user = "u", .host = "h", .status = TXN_OPEN};
	char keys[300][16];
	size_t n = 0;
	int64_t id;

	for (int i = 0; i < 300; i++) {
		snprintf(keys[i], sizeof(keys[i]), "k%d", i);
		many[i] = (struct change_record){.seq = i + 1,
						 .object = "o",
						 .kind = "sysctl",
						 .key = keys[i],
						 .old_value = "1",
						 .new_value = "2"};
	}
	assert_int_equal(history_open(f->path, 0, &h), 0);
	assert_int_equal(history_open(f->path, 0, &other), 0);
	assert_int_equal(history_txn_create(h, &t, many, 300, &id), 0);
	for (int i = 1; i <= 300; i++)
		assert_int_equal(history_change_set_state(h, id, i, CHANGE_APPLIED, NULL), 0);
	assert_int_equal(history_change_set_state(h, id, 300, CHANGE_FAILED, "boom"), 0);
	/* Full batches are written already; the rest with the status. */
	assert_true(count_rows(other, "SELECT count(*) FROM changes WHERE state = 'applied'") >= 256);
	assert_int_equal(history_txn_set_status(h, id, TXN_ROLLED_BACK, NULL), 0);
	assert_int_equal(count_rows(other, "SELECT count(*) FROM changes WHERE state = 'applied'"), 299);
	assert_int_equal(count_rows(other, "SELECT count(*) FROM changes WHERE state = 'failed' AND seq = 300"
					   " AND error = 'boom'"),
			 1);
	assert_int_equal(history_change_set_state(h, id, 1, CHANGE_UNDONE, NULL), 0);
	assert_int_equal(history_changes_load(h, id, &c, &n), 0);
	assert_int_equal(n, 300);
	assert_int_equal(c[0].state, CHANGE_UNDONE);
	change_records_free(c, n);
	assert_int_equal(history_change_set_state(h, id, 2, CHANGE_UNDONE, NULL), 0);
	history_close(TAKE_PTR(h));
	assert_int_equal(count_rows(other, "SELECT count(*) FROM changes WHERE state = 'undone'"), 2);
}

static int64_t create_rollback(struct history *h, int64_t target)
{
	struct txn_record t = {
	    .kind = TXN_ROLLBACK, .user = "u", .host = "h", .status = TXN_OPEN, .rolls_back_txn = target};
	int64_t id = 0;

	assert_int_equal(history_txn_create(h, &t, sample_changes, ARRAY_SIZE(sample_changes), &id), 0);
	return id;
}

static enum txn_status status_of(struct history *h, int64_t id, char **ret_error)
{
	_cleanup_(txn_record_done) struct txn_record t = {0};

	assert_int_equal(history_txn_get(h, id, &t), 0);
	if (ret_error)
		*ret_error = t.error ? strdup(t.error) : NULL;
	return t.status;
}

/* A successful rollback of T settles the rollbacks of T that never
 * finished (killed: open; failed: rollback_failed), and only those. */
static void test_rollback_finish(void **state)
{
	struct fixture *f = *state;
	_cleanup_history_ struct history *h = NULL;
	_cleanup_(txn_record_done) struct txn_record t = {0};
	int64_t a, b, killed, failed, other, ok;
	char *e = NULL;

	assert_int_equal(history_open(f->path, 0, &h), 0);
	a = create_sample(h, TXN_COMMITTED);
	b = create_sample(h, TXN_COMMITTED);
	other = create_rollback(h, a); /* a rollback of another target: untouched */
	assert_int_equal(history_rollback_finish(h, other, a, false, "r"), 0);
	killed = create_rollback(h, b);
	failed = create_rollback(h, b);
	assert_int_equal(history_rollback_finish(h, failed, b, false, "by test"), 0);
	assert_int_equal(status_of(h, failed, &e), TXN_ROLLBACK_FAILED);
	assert_string_equal(e, "incomplete");
	free(e);
	assert_int_equal(status_of(h, b, NULL), TXN_ROLLBACK_FAILED);
	assert_int_equal(history_txn_find_unfinished(h, &t), 1);
	assert_int_equal(t.id, failed);
	txn_record_done(&t);

	ok = create_rollback(h, b);
	assert_int_equal(history_rollback_finish(h, ok, b, true, "by test"), 0);
	assert_int_equal(status_of(h, ok, NULL), TXN_COMMITTED);
	assert_int_equal(status_of(h, b, &e), TXN_ROLLED_BACK);
	assert_string_equal(e, "by test");
	free(e);
	_cleanup_free_ char *want = strprintf("superseded by rollback %" PRId64, ok);
	assert_int_equal(status_of(h, killed, &e), TXN_FAILED);
	assert_string_equal(e, want);
	free(e);
	assert_int_equal(status_of(h, failed, &e), TXN_FAILED);
	assert_string_equal(e, want);
	free(e);
	assert_int_equal(status_of(h, other, NULL), TXN_ROLLBACK_FAILED);
	assert_int_equal(history_txn_find_unfinished(h, &t), 1);
	assert_int_equal(t.id, other);
}

/* rollback --abandon with the peer's rollback pending records both in one
 * SQLite transaction: when the second write fails, neither is there. */
static void test_abandon_atomic(void **state)
{
	struct fixture *f = *state;
	_cleanup_history_ struct history *h = NULL;
	int64_t a, id = 0;

	assert_int_equal(history_open(f->path, 0, &h), 0);
	a = create_sample(h, TXN_ROLLBACK_FAILED);
	assert_int_equal(
	    history_exec(h,
			 "UPDATE transactions SET peer_txn = 7, peer_undo_pending = 'ssh: exit 255'"
			 " WHERE id = ?",
			 "i", a),
	    0);
	assert_int_equal(
	    sqlite3_exec(history_db(h),
			 "CREATE TEMP TRIGGER peer_full BEFORE UPDATE OF peer_undo_pending ON transactions"
			 " WHEN NEW.peer_undo_pending IS NULL BEGIN SELECT RAISE(ABORT, 'full'); END",
			 NULL, NULL, NULL),
	    SQLITE_OK);
	assert_true(abandon_txn(h, a, true, 7, "by test", &id) < 0);
	assert_int_equal(id, 0);
	assert_int_equal(status_of(h, a, NULL), TXN_ROLLBACK_FAILED);
	assert_int_equal(count_rows(h, "SELECT count(*) FROM transactions WHERE kind = 'rollback'"), 0);
	assert_int_equal(sqlite3_exec(history_db(h), "DROP TRIGGER peer_full", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(abandon_txn(h, a, true, 7, "by test", &id), 0);
	assert_true(id > a);
	assert_int_equal(status_of(h, a, NULL), TXN_FAILED);
	assert_int_equal(
	    count_rows(h, "SELECT count(*) FROM transactions WHERE peer_undo_pending IS NOT NULL"), 0);
}

/* --db naming an existing file that is no history: refused, and the file
 * keeps its mode and content. A new file is created 0600. A missing
 * directory above the file's: -ENOENT. */
static void test_foreign_file_untouched(void **state)
{
	struct fixture *f = *state;
	_cleanup_history_ struct history *h = NULL;
	_cleanup_free_ char *hosts = strprintf("%s/hosts", f->dir);
	_cleanup_free_ char *deep = strprintf("%s/x/typo/h.db", f->dir);
	const char *text = "127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n"
			   "# a text file that is long enough to be looked at by SQLite ..................\n";
	char buf[512] = "";
	struct stat st;
	int fd;

	write_file(hosts, text);
	assert_int_equal(chmod(hosts, 0644), 0);
	assert_int_equal(history_open(hosts, 0, &h), -EBADMSG);
	assert_int_equal(stat(hosts, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	fd = open(hosts, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf) - 1), (ssize_t)strlen(text));
	close(fd);
	assert_string_equal(buf, text);

	assert_int_equal(history_open(f->path, 0, &h), 0);
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	history_close(TAKE_PTR(h));
	/* An existing history keeps the mode its owner gave it. */
	assert_int_equal(chmod(f->path, 0640), 0);
	assert_int_equal(history_open(f->path, 0, &h), 0);
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	history_close(TAKE_PTR(h));

	assert_int_equal(history_open(deep, 0, &h), -ENOENT);
	assert_null(h);
}

static void test_lock(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *db = strprintf("%s/l.db", f->dir);
	int fd, fd2;
	pid_t holder = 0, pid;
	int status;

	fd = lock_acquire(db, &holder);
	assert_true(fd >= 0);
	pid = fork();
	if (pid == 0) {
		pid_t h2 = 0;
		lock_release(fd); /* the child's copy of the open file */
		int r = lock_acquire(db, &h2);
		_exit(r == -EBUSY && h2 == getppid() ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(WEXITSTATUS(status), 0);
	/* Same process, second open file: also refused (flock is per open file). */
	assert_int_equal(lock_acquire(db, &holder), -EBUSY);
	assert_int_equal(holder, getpid());
	lock_release(fd);
	fd2 = lock_acquire_wait(db, 100, &holder);
	assert_true(fd2 >= 0);
	lock_release(fd2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_schema, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_existing_only, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_migration_from_v0, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_newer_schema_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_undo_log_durable, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unfinished_detection, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_json, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_empty_file, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_read_only_open, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_marks_batched, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rollback_finish, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_abandon_atomic, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_foreign_file_untouched, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lock, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
