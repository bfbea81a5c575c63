/* history.c: the SQLite history database (see history.h).
 *
 * Owns: the database connection, schema migrations, the transactions and
 * changes tables (the undo log), and the translation of SQLite result codes
 * to -errno (history_errno()). Must never: touch the host, log above debug,
 * or return success for a write that is not yet durable (synchronous=FULL,
 * every write in an explicit SQLite transaction). */
#define _GNU_SOURCE
#include "history.h"

#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <libgen.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>

#include "base/exitcode.h"
#include "base/log.h"

#define HISTORY_BUSY_TIMEOUT_MS 5000
/* Progress marks are written in batches: at most this many, or this old. */
#define MARKS_BATCH	   128
#define MARKS_MAX_AGE_USEC 200000

struct mark {
	int64_t txn;
	int seq;
	enum change_state state;
	char *error;
};

struct history {
	sqlite3 *db;
	char *path;
	int depth;	    /* nesting of history_begin() */
	struct mark *marks; /* change states not yet written (history_change_set_state) */
	size_t n_marks;
	int64_t marks_since_usec;
};

/* ---- enum <-> string tables ---- */

static const char *const txn_kind_names[_TXN_KIND_MAX] = {
    [TXN_APPLY] = "apply",
    [TXN_ROLLBACK] = "rollback",
};
static const char *const txn_status_names[_TXN_STATUS_MAX] = {
    [TXN_OPEN] = "open",
    [TXN_COMMITTED] = "committed",
    [TXN_PENDING_CONFIRM] = "pending_confirm",
    [TXN_ROLLED_BACK] = "rolled_back",
    [TXN_FAILED] = "failed",
    [TXN_ROLLBACK_FAILED] = "rollback_failed",
};
static const char *const change_state_names[_CHANGE_STATE_MAX] = {
    [CHANGE_PLANNED] = "planned",
    [CHANGE_APPLIED] = "applied",
    [CHANGE_UNDONE] = "undone",
    [CHANGE_FAILED] = "failed",
};

static int lookup(const char *const *names, int n, const char *s)
{
	for (int i = 0; s && i < n; i++)
		if (streq(names[i], s))
			return i;
	return -EINVAL;
}

const char *txn_kind_to_string(enum txn_kind k)
{
	return (unsigned)k < _TXN_KIND_MAX ? txn_kind_names[k] : NULL;
}
int txn_kind_from_string(const char *s, enum txn_kind *ret)
{
	int i = lookup(txn_kind_names, _TXN_KIND_MAX, s);
	if (i < 0)
		return i;
	*ret = i;
	return 0;
}
const char *txn_status_to_string(enum txn_status s)
{
	return (unsigned)s < _TXN_STATUS_MAX ? txn_status_names[s] : NULL;
}
int txn_status_from_string(const char *s, enum txn_status *ret)
{
	int i = lookup(txn_status_names, _TXN_STATUS_MAX, s);
	if (i < 0)
		return i;
	*ret = i;
	return 0;
}
const char *change_state_to_string(enum change_state s)
{
	return (unsigned)s < _CHANGE_STATE_MAX ? change_state_names[s] : NULL;
}
int change_state_from_string(const char *s, enum change_state *ret)
{
	int i = lookup(change_state_names, _CHANGE_STATE_MAX, s);
	if (i < 0)
		return i;
	*ret = i;
	return 0;
}

/* ---- SQLite errors: the one translation ---- */

int history_errno(int rc)
{
	static const struct {
		int sqlite;
		int err;
	} map[] = {
	    {SQLITE_OK, 0},
	    {SQLITE_ROW, 0},
	    {SQLITE_DONE, 0},
	    {SQLITE_BUSY, EBUSY},
	    {SQLITE_LOCKED, EBUSY},
	    {SQLITE_NOMEM, ENOMEM},
	    {SQLITE_READONLY, EROFS},
	    {SQLITE_PERM, EACCES},
	    {SQLITE_AUTH, EACCES},
	    {SQLITE_CORRUPT, EBADMSG},
	    {SQLITE_NOTADB, EBADMSG},
	    {SQLITE_FULL, ENOSPC},
	    {SQLITE_CANTOPEN, EACCES},
	    {SQLITE_IOERR, EIO},
	    {SQLITE_CONSTRAINT, EEXIST},
	    {SQLITE_NOTFOUND, ENOENT},
	    {SQLITE_TOOBIG, E2BIG},
	    {SQLITE_MISMATCH, EINVAL},
	    {SQLITE_RANGE, EINVAL},
	    {SQLITE_MISUSE, EINVAL},
	    {SQLITE_PROTOCOL, EIO},
	};
	int primary = rc & 0xff;

	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (map[i].sqlite == primary)
			return -map[i].err;
	return -EIO;
}

int history_open_exit_code(int r)
{
	switch (-r) {
	case ENOENT:
	case ENODATA: /* an empty file is no history either */
		return EXIT_NOT_FOUND;
	case EISDIR:
	case ENXIO:
		return EXIT_INVALID;
	case EACCES:
	case EPERM:
		return EXIT_PERMISSION;
	default:
		return EXIT_ERROR;
	}
}

const char *history_remedy(int r)
{
	static const struct {
		int err;
		const char *remedy;
	} map[] = {
	    {ENOENT, "no history yet: run `cx5prof apply` first, or check --db"},
	    {ENODATA, "the file is empty or not started: check --db (apply, verify, bench, campaign and tune "
		      "create one)"},
	    {EISDIR, "--db must name a regular file (or one to create), not a directory"},
	    {ENXIO, "it is a FIFO, a socket or a device: --db must name a regular file (or one to create)"},
	    {EROFS, "the file or its file system is read-only: make it writable (its mode, or remount the "
		    "file system read-write) or choose another file with --db"},
	    {EBADMSG, "check --db: the file is not a cx5prof history, or it is corrupt"},
	    {EBUSY, "another process holds the database: wait for it to finish and retry"},
	    {ENOSPC, "the disk is full: free space and retry"},
	    {EPROTONOSUPPORT, "the database was written by a newer cx5prof: use that version"},
	    {ENOTDIR, "a component of the path is not a directory: check --db"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (map[i].err == -r)
			return map[i].remedy;
	if (r == -EACCES || r == -EPERM)
		return geteuid() == 0
			   ? "denied even to root: check the file's attributes (lsattr), its mount "
			     "and any security policy, or choose another file with --db"
			   : "permission denied: run as root, or choose another file with --db";
	return "check the file and its directory, or choose another file with --db";
}

static int db_error(struct history *h, int rc, const char *what)
{
	log_debug("history %s: %s: %s", h->path, what, sqlite3_errmsg(h->db));
	return history_errno(rc);
}

/* ---- statements ---- */

int history_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **ret)
{
	int rc = sqlite3_prepare_v2(db, sql, -1, ret, NULL);

	if (rc != SQLITE_OK) {
		log_debug("history: %s: %s", sql, sqlite3_errmsg(db));
		return history_errno(rc);
	}
	return 0;
}

static int stmt_prepare(struct history *h, const char *sql, sqlite3_stmt **ret)
{
	return history_prepare(h->db, sql, ret);
}

static int stmt_bind_text(sqlite3_stmt *s, int i, const char *v)
{
	int rc = v ? sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(s, i);
	return history_errno(rc);
}

static int stmt_bind_int(sqlite3_stmt *s, int i, int64_t v)
{
	return history_errno(sqlite3_bind_int64(s, i, v));
}

/* Bind "0 means NULL" integers (optional references and times). */
static int stmt_bind_opt_int(sqlite3_stmt *s, int i, int64_t v)
{
	return history_errno(v ? sqlite3_bind_int64(s, i, v) : sqlite3_bind_null(s, i));
}

static int stmt_run(struct history *h, sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return db_error(h, rc, sqlite3_sql(s));
	return 0;
}

static int bind_fmt(sqlite3_stmt *s, const char *fmt, va_list ap)
{
	int r = 0;
	for (int i = 0; fmt && fmt[i] && r >= 0; i++) {
		switch (fmt[i]) {
		case 's':
			r = stmt_bind_text(s, i + 1, va_arg(ap, const char *));
			break;
		case 'i':
			r = stmt_bind_int(s, i + 1, va_arg(ap, int64_t));
			break;
		case 'n':
			r = history_errno(sqlite3_bind_null(s, i + 1));
			break;
		default:
			r = -EINVAL;
		}
	}
	return r;
}

int history_exec(struct history *h, const char *sql, const char *fmt, ...)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	va_list ap;
	int r;

	r = stmt_prepare(h, sql, &s);
	if (r < 0)
		return r;
	va_start(ap, fmt);
	r = bind_fmt(s, fmt, ap);
	va_end(ap);
	if (r < 0)
		return r;
	return stmt_run(h, s);
}

static int exec_script(struct history *h, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(h->db, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		log_debug("history %s: %s", h->path, msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return history_errno(rc);
	}
	return 0;
}

static int marks_write(struct history *h);

/* Pending progress marks ride along with the next write transaction. */
int history_begin(struct history *h)
{
	int r = 0;
	if (h->depth == 0) {
		r = exec_script(h, "BEGIN IMMEDIATE");
		if (r >= 0 && h->n_marks > 0 && (r = marks_write(h)) < 0)
			(void)exec_script(h, "ROLLBACK");
	}
	if (r >= 0)
		h->depth++;
	return r;
}

int history_end(struct history *h, int r)
{
	int q;
	if (h->depth <= 0)
		return r < 0 ? r : -EINVAL;
	if (--h->depth > 0)
		return r;
	if (r < 0) {
		(void)exec_script(h, "ROLLBACK");
		return r;
	}
	q = exec_script(h, "COMMIT");
	if (q < 0) {
		(void)exec_script(h, "ROLLBACK");
		return q;
	}
	return r;
}

/* ---- schema and migrations ---- */

/* Step N takes the schema from version N to N+1. Version 0 is an empty
 * file; append steps, never edit one that has been released. */
static const char *const migrations[] = {
    /* 0 -> 1 */
    "CREATE TABLE transactions ("
    " id INTEGER PRIMARY KEY,"
    " kind TEXT NOT NULL CHECK (kind IN ('apply','rollback')),"
    " profile_name TEXT, profile_hash TEXT, profile_json TEXT,"
    " user TEXT NOT NULL, host TEXT NOT NULL,"
    " started_usec INTEGER NOT NULL, ended_usec INTEGER,"
    " status TEXT NOT NULL CHECK (status IN ('open','committed','pending_confirm',"
    "  'rolled_back','failed','rollback_failed')),"
    " confirm_deadline_usec INTEGER,"
    " rolls_back_txn INTEGER REFERENCES transactions(id),"
    " error TEXT);"
    "CREATE INDEX transactions_by_status ON transactions(status);"
    "CREATE TABLE changes ("
    " txn INTEGER NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,"
    " seq INTEGER NOT NULL,"
    " object TEXT NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL,"
    " old_value TEXT, new_value TEXT,"
    " state TEXT NOT NULL CHECK (state IN ('planned','applied','undone','failed')),"
    " error TEXT,"
    " PRIMARY KEY (txn, seq));"
    "CREATE INDEX changes_by_key ON changes(object, key);"
    "CREATE TABLE runs ("
    " id INTEGER PRIMARY KEY,"
    " txn INTEGER REFERENCES transactions(id),"
    " profile_name TEXT, profile_hash TEXT, interface TEXT,"
    " runner TEXT NOT NULL, peer TEXT, test TEXT, duration_s REAL,"
    " mtu INTEGER, message_size INTEGER, send_buffer INTEGER, recv_buffer INTEGER,"
    " streams INTEGER, irq_policy TEXT,"
    " driver TEXT, driver_version TEXT, firmware_version TEXT,"
    " sent INTEGER, received INTEGER, lost INTEGER,"
    " send_mbps REAL, recv_mbps REAL, loss_pct REAL,"
    " pass INTEGER CHECK (pass IN (0,1)), verdict TEXT,"
    " started_usec INTEGER NOT NULL, ended_usec INTEGER);"
    "CREATE TABLE artifacts ("
    " run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    " name TEXT NOT NULL, content BLOB,"
    " PRIMARY KEY (run, name));"
    "CREATE TABLE outbox ("
    " id INTEGER PRIMARY KEY,"
    " source_kind TEXT NOT NULL CHECK (source_kind IN ('txn','run')),"
    " source_id INTEGER NOT NULL, payload TEXT NOT NULL,"
    " status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','sent','failed_permanent')),"
    " attempts INTEGER NOT NULL DEFAULT 0, next_attempt_usec INTEGER NOT NULL DEFAULT 0,"
    " last_error TEXT, reply_id TEXT, reply_content TEXT, reply_usage TEXT,"
    " created_usec INTEGER NOT NULL, sent_usec INTEGER);"
    "CREATE INDEX outbox_by_status ON outbox(status, next_attempt_usec);",
    /* 1 -> 2: the kernel's boot id at the start of each transaction */
    "ALTER TABLE transactions ADD COLUMN boot_id TEXT;",
    /* 2 -> 3: campaigns (campaigns.h); runs tagged with theirs; the
     * outbox takes campaign records (a CHECK changes only by rebuilding) */
    "CREATE TABLE campaigns ("
    " id INTEGER PRIMARY KEY,"
    " name TEXT NOT NULL, file TEXT NOT NULL,"
    " status TEXT NOT NULL CHECK (status IN ('running','done','interrupted','failed')),"
    " started_usec INTEGER NOT NULL, ended_usec INTEGER,"
    " summary TEXT);"
    "ALTER TABLE runs ADD COLUMN campaign INTEGER REFERENCES campaigns(id);"
    "CREATE TABLE outbox_v3 ("
    " id INTEGER PRIMARY KEY,"
    " source_kind TEXT NOT NULL CHECK (source_kind IN ('txn','run','campaign')),"
    " source_id INTEGER NOT NULL, payload TEXT NOT NULL,"
    " status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','sent','failed_permanent')),"
    " attempts INTEGER NOT NULL DEFAULT 0, next_attempt_usec INTEGER NOT NULL DEFAULT 0,"
    " last_error TEXT, reply_id TEXT, reply_content TEXT, reply_usage TEXT,"
    " created_usec INTEGER NOT NULL, sent_usec INTEGER);"
    "INSERT INTO outbox_v3 SELECT * FROM outbox;"
    "DROP TABLE outbox;"
    "ALTER TABLE outbox_v3 RENAME TO outbox;"
    "CREATE INDEX outbox_by_status ON outbox(status, next_attempt_usec);",
    /* 3 -> 4: the peer's transaction applied with each one (peer.ssh) */
    "ALTER TABLE transactions ADD COLUMN peer_txn INTEGER;",
    /* 4 -> 5: the peer's rollback still to do (peer_txn not restored):
     * why the last attempt failed; NULL when none is pending */
    "ALTER TABLE transactions ADD COLUMN peer_undo_pending TEXT;",
    /* 5 -> 6: each run's loss ledger (ledger.h): what limited it, and the
     * document */
    "ALTER TABLE runs ADD COLUMN limited_by TEXT; ALTER TABLE runs ADD COLUMN ledger TEXT;",
    /* 6 -> 7: tune sessions (tunes.h); each candidate's campaign tagged
     * with its session; the outbox takes tune records */
    "CREATE TABLE tunes ("
    " id INTEGER PRIMARY KEY,"
    " name TEXT NOT NULL, profile TEXT NOT NULL,"
    " status TEXT NOT NULL CHECK (status IN ('running','done','interrupted','failed')),"
    " started_usec INTEGER NOT NULL, ended_usec INTEGER,"
    " summary TEXT);"
    "ALTER TABLE campaigns ADD COLUMN tune INTEGER REFERENCES tunes(id);"
    "CREATE TABLE outbox_v7 ("
    " id INTEGER PRIMARY KEY,"
    " source_kind TEXT NOT NULL CHECK (source_kind IN ('txn','run','campaign','tune')),"
    " source_id INTEGER NOT NULL, payload TEXT NOT NULL,"
    " status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','sent','failed_permanent')),"
    " attempts INTEGER NOT NULL DEFAULT 0, next_attempt_usec INTEGER NOT NULL DEFAULT 0,"
    " last_error TEXT, reply_id TEXT, reply_content TEXT, reply_usage TEXT,"
    " created_usec INTEGER NOT NULL, sent_usec INTEGER);"
    "INSERT INTO outbox_v7 SELECT * FROM outbox;"
    "DROP TABLE outbox;"
    "ALTER TABLE outbox_v7 RENAME TO outbox;"
    "CREATE INDEX outbox_by_status ON outbox(status, next_attempt_usec);",
    /* 7 -> 8: the origin token of a peer's apply (sent with it by the
     * host that drives it: peer_origin there, origin here) and the
     * tokens given up by their host (fences: an apply carrying one is
     * refused) */
    "ALTER TABLE transactions ADD COLUMN origin TEXT;"
    "ALTER TABLE transactions ADD COLUMN peer_origin TEXT;"
    "CREATE INDEX transactions_by_origin ON transactions(origin);"
    "CREATE TABLE fences (origin TEXT PRIMARY KEY, fenced_usec INTEGER NOT NULL);",
};

_Static_assert(ARRAY_SIZE(migrations) == HISTORY_SCHEMA_VERSION, "one migration step per schema version");

/* A read-only open never migrates (a reader must not write): an older file
 * is read through temporary views that add what its version lacks, with
 * the defaults its rows would get. SQLite resolves an unqualified name in
 * the temp schema first, so the views shadow the old tables. Entry N-1:
 * from version N to the current one. */
#define COMPAT_TUNES                                                                                         \
	"CREATE TEMP TABLE tunes (id INTEGER PRIMARY KEY, name TEXT, profile TEXT, status TEXT,"             \
	" started_usec INTEGER, ended_usec INTEGER, summary TEXT);"
#define COMPAT_FENCES "CREATE TEMP TABLE fences (origin TEXT PRIMARY KEY, fenced_usec INTEGER);"
#define COMPAT_V7                                                                                            \
	"CREATE TEMP VIEW transactions AS SELECT *, NULL AS origin, NULL AS peer_origin FROM "               \
	"main.transactions;" COMPAT_FENCES
#define COMPAT_V6 "CREATE TEMP VIEW campaigns AS SELECT *, NULL AS tune FROM main.campaigns;" COMPAT_TUNES
#define COMPAT_V2                                                                                            \
	"CREATE TEMP VIEW runs AS SELECT *, NULL AS campaign, NULL AS limited_by, NULL AS ledger FROM "      \
	"main.runs;"                                                                                         \
	"CREATE TEMP TABLE campaigns (id INTEGER PRIMARY KEY, name TEXT, file TEXT, status TEXT,"            \
	" started_usec INTEGER, ended_usec INTEGER, summary TEXT, tune INTEGER);" COMPAT_TUNES
#define COMPAT_V3                                                                                            \
	"CREATE TEMP VIEW transactions AS SELECT *, NULL AS peer_txn, NULL AS peer_undo_pending,"            \
	" NULL AS origin, NULL AS peer_origin FROM main.transactions;" COMPAT_FENCES
#define COMPAT_V4                                                                                            \
	"CREATE TEMP VIEW transactions AS SELECT *, NULL AS peer_undo_pending, NULL AS origin,"              \
	" NULL AS peer_origin FROM main.transactions;" COMPAT_FENCES
#define COMPAT_V5 "CREATE TEMP VIEW runs AS SELECT *, NULL AS limited_by, NULL AS ledger FROM main.runs;"
static const char *const readonly_compat[] = {
    /* 1 */
    "CREATE TEMP VIEW transactions AS SELECT *, NULL AS boot_id, NULL AS peer_txn,"
    " NULL AS peer_undo_pending, NULL AS origin, NULL AS peer_origin FROM main.transactions;" COMPAT_FENCES
	COMPAT_V2,
    /* 2 */
    COMPAT_V3 COMPAT_V2,
    /* 3 */
    COMPAT_V3 COMPAT_V5 COMPAT_V6,
    /* 4 */
    COMPAT_V4 COMPAT_V5 COMPAT_V6,
    /* 5 */
    COMPAT_V5 COMPAT_V6 COMPAT_V7,
    /* 6 */
    COMPAT_V6 COMPAT_V7,
    /* 7 */
    COMPAT_V7,
};

_Static_assert(ARRAY_SIZE(readonly_compat) == HISTORY_SCHEMA_VERSION - 1, "one view set per older version");

static int read_user_version(struct history *h, int *ret)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	int r, rc;

	r = stmt_prepare(h, "PRAGMA user_version", &s);
	if (r < 0)
		return r;
	rc = sqlite3_step(s);
	if (rc != SQLITE_ROW)
		return db_error(h, rc, "PRAGMA user_version");
	*ret = sqlite3_column_int(s, 0);
	return 0;
}

static int migrate_step(struct history *h, int from)
{
	_cleanup_free_ char *bump = strprintf("PRAGMA user_version = %d", from + 1);
	int r;

	if (!bump)
		return -ENOMEM;
	r = history_begin(h);
	if (r < 0)
		return r;
	r = exec_script(h, migrations[from]);
	if (r >= 0)
		r = exec_script(h, bump);
	return history_end(h, r);
}

static int migrate(struct history *h, bool read_only)
{
	int version, r;

	r = read_user_version(h, &version);
	if (r < 0)
		return r;
	if (version > HISTORY_SCHEMA_VERSION)
		return -EPROTONOSUPPORT;
	if (version < HISTORY_SCHEMA_VERSION && read_only)
		return exec_script(h, readonly_compat[version - 1]);
	for (; version < HISTORY_SCHEMA_VERSION; version++) {
		r = migrate_step(h, version);
		if (r < 0)
			return r;
		log_debug("history %s: migrated schema to version %d", h->path, version + 1);
	}
	return 0;
}

int history_schema_version(struct history *h)
{
	int v, r = read_user_version(h, &v);
	return r < 0 ? r : v;
}

/* ---- open/close ---- */

/* SQLite says "cannot open" (EACCES) for a database it cannot write next
 * to (its -wal and -shm files): on a read-only file system, say so rather
 * than "permission denied". */
static bool on_read_only_fs(const char *path)
{
	struct statvfs sv;

	return statvfs(path, &sv) == 0 && (sv.f_flag & ST_RDONLY);
}

/* A new database is created private (0600) before SQLite opens it; an
 * existing file is never chmod'ed: a mistyped --db naming some other file
 * must leave it exactly as it was (configure() then refuses it). */
static int create_private(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);

	if (fd < 0)
		return errno == EEXIST ? 0 : -errno;
	close(fd);
	return 1;
}

static int configure(struct history *h, bool read_only, bool existing)
{
	int version, r;

	sqlite3_busy_timeout(h->db, HISTORY_BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(h->db, 1);
	/* A readable check first: a corrupt or foreign file fails here. */
	r = exec_script(h, "SELECT count(*) FROM sqlite_master");
	if (r < 0)
		return r;
	/* Before anything is written: an empty file is not started as a history. */
	if (read_only || existing) {
		r = read_user_version(h, &version);
		if (r < 0)
			return r;
		if (version == 0)
			return -ENODATA;
	}
	if (!read_only) {
		r = exec_script(h, "PRAGMA journal_mode = WAL");
		if (r < 0)
			return r;
	}
	r = exec_script(h, "PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL");
	if (r < 0)
		return r;
	return migrate(h, read_only);
}

/* Does path's write-ahead log hold frames not yet in the database file? */
static bool wal_has_frames(const char *path)
{
	_cleanup_free_ char *wal = strprintf("%s-wal", path);
	struct stat st;

	return !wal || (stat(wal, &st) == 0 && st.st_size > 0);
}

/* "file:PATH?immutable=1", PATH percent-encoded where a URI needs it. */
static char *immutable_uri(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	char *uri = malloc(strlen("file:") + 3 * strlen(path) + strlen("?immutable=1") + 1), *o = uri;

	if (!uri)
		return NULL;
	o += sprintf(o, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (isalnum(*p) || strchr("/._-~", *p))
			*o++ = (char)*p;
		else {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		}
	strcpy(o, "?immutable=1");
	return uri;
}

/* A history on a read-only file system, in WAL mode (as cx5prof writes
 * it): SQLite cannot create the shared-memory file a reader needs, so the
 * reading verbs open it as immutable, which is what it is there (nothing
 * can write it; its log, checked by the caller, holds nothing). */
static int reopen_immutable(struct history *h, bool existing)
{
	_cleanup_free_ char *uri = immutable_uri(h->path);
	int rc;

	if (!uri)
		return -ENOMEM;
	sqlite3_close_v2(h->db);
	h->db = NULL;
	rc = sqlite3_open_v2(uri, &h->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	if (rc != SQLITE_OK) {
		int sys = h->db ? sqlite3_system_errno(h->db) : 0;
		return sys > 0 ? -sys : history_errno(rc);
	}
	return configure(h, true, existing);
}

int history_path_check(const char *path)
{
	struct stat st;

	/* A FIFO, socket, device or directory is refused before anything
	 * opens it (opening a FIFO blocks until a writer comes). */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -ENXIO;
	return 0;
}

int history_open(const char *path, unsigned flags, struct history **ret)
{
	bool read_only = flags & HISTORY_READ_ONLY, existing = flags & HISTORY_EXISTING;
	_cleanup_history_ struct history *h = NULL;
	int r, rc;

	if (!path || !*path)
		return -EINVAL;
	r = history_path_check(path);
	if (r < 0)
		return r;
	if ((read_only || existing) && access(path, F_OK) < 0)
		return -errno;
	/* The file is opened once: created private first only when missing
	 * (SQLite then opens it without creating, so a file removed in
	 * between is not created with its default mode). */
	if (!read_only && !existing && access(path, F_OK) < 0) {
		if (errno != ENOENT)
			return -errno;
		r = mkdir_parent(path);
		if (r >= 0)
			r = create_private(path);
		if (r < 0)
			return r;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->path = strdup(path);
	if (!h->path)
		return -ENOMEM;
	rc = sqlite3_open_v2(path, &h->db, read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE, NULL);
	if (rc != SQLITE_OK) {
		int sys = h->db ? sqlite3_system_errno(h->db) : 0;
		return sys > 0 ? -sys : history_errno(rc);
	}
	r = configure(h, read_only, existing);
	if (r < 0 && read_only && on_read_only_fs(path) && !wal_has_frames(path))
		r = reopen_immutable(h, existing);
	if (r < 0)
		return r == -EACCES && on_read_only_fs(path) ? -EROFS : r;
	*ret = TAKE_PTR(h);
	return 0;
}

static void marks_clear(struct history *h)
{
	for (size_t i = 0; i < h->n_marks; i++)
		free(h->marks[i].error);
	h->n_marks = 0;
}

static int marks_flush(struct history *h);

void history_close(struct history *h)
{
	if (!h)
		return;
	if (h->db) {
		(void)marks_flush(h);
		sqlite3_close_v2(h->db);
	}
	marks_clear(h);
	free(h->marks);
	free(h->path);
	free(h);
}

sqlite3 *history_db(struct history *h)
{
	return h->db;
}
const char *history_path(struct history *h)
{
	return h->path;
}

/* ---- records ---- */

int64_t history_now_usec(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

void txn_record_done(struct txn_record *t)
{
	if (!t)
		return;
	free(t->profile_name);
	free(t->profile_hash);
	free(t->profile_json);
	free(t->user);
	free(t->host);
	free(t->error);
	free(t->boot_id);
	free(t->peer_undo_pending);
	free(t->origin);
	free(t->peer_origin);
	*t = (struct txn_record){0};
}

void change_records_free(struct change_record *c, size_t n)
{
	for (size_t i = 0; c && i < n; i++) {
		free(c[i].object);
		free(c[i].kind);
		free(c[i].key);
		free(c[i].old_value);
		free(c[i].new_value);
		free(c[i].error);
	}
	free(c);
}

static int column_strdup(sqlite3_stmt *s, int col, char **ret)
{
	const unsigned char *v = sqlite3_column_text(s, col);
	*ret = NULL;
	if (!v)
		return 0;
	*ret = strdup((const char *)v);
	return *ret ? 0 : -ENOMEM;
}

static int insert_txn(struct history *h, const struct txn_record *t, int64_t *ret_id)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	int r;

	r = stmt_prepare(
	    h,
	    "INSERT INTO transactions (kind, profile_name, profile_hash, profile_json, user, host,"
	    " started_usec, status, confirm_deadline_usec, rolls_back_txn, error, boot_id, origin)"
	    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
	    &s);
	if (r < 0)
		return r;
	if (t->origin) {
		/* Under the same SQLite transaction as the insert (and the
		 * apply lock): a fence written before is seen, one written
		 * after finds this transaction. */
		r = history_fenced(h, t->origin);
		if (r != 0)
			return r > 0 ? -ECANCELED : r;
	}
	if ((r = stmt_bind_text(s, 1, txn_kind_to_string(t->kind))) < 0 ||
	    (r = stmt_bind_text(s, 2, t->profile_name)) < 0 ||
	    (r = stmt_bind_text(s, 3, t->profile_hash)) < 0 ||
	    (r = stmt_bind_text(s, 4, t->profile_json)) < 0 ||
	    (r = stmt_bind_text(s, 5, strna(t->user))) < 0 ||
	    (r = stmt_bind_text(s, 6, strna(t->host))) < 0 ||
	    (r = stmt_bind_int(s, 7, t->started_usec ? t->started_usec : history_now_usec())) < 0 ||
	    (r = stmt_bind_text(s, 8, txn_status_to_string(t->status))) < 0 ||
	    (r = stmt_bind_opt_int(s, 9, t->confirm_deadline_usec)) < 0 ||
	    (r = stmt_bind_opt_int(s, 10, t->rolls_back_txn)) < 0 ||
	    (r = stmt_bind_text(s, 11, t->error)) < 0 || (r = stmt_bind_text(s, 12, t->boot_id)) < 0 ||
	    (r = stmt_bind_text(s, 13, t->origin)) < 0)
		return r;
	r = stmt_run(h, s);
	if (r < 0)
		return r;
	*ret_id = sqlite3_last_insert_rowid(h->db);
	return 0;
}

static int insert_change(struct history *h, sqlite3_stmt *s, int64_t txn, const struct change_record *c)
{
	int r;

	sqlite3_reset(s);
	if ((r = stmt_bind_int(s, 1, txn)) < 0 || (r = stmt_bind_int(s, 2, c->seq)) < 0 ||
	    (r = stmt_bind_text(s, 3, c->object)) < 0 || (r = stmt_bind_text(s, 4, c->kind)) < 0 ||
	    (r = stmt_bind_text(s, 5, c->key)) < 0 || (r = stmt_bind_text(s, 6, c->old_value)) < 0 ||
	    (r = stmt_bind_text(s, 7, c->new_value)) < 0)
		return r;
	return stmt_run(h, s);
}

static int insert_changes(struct history *h, int64_t txn, const struct change_record *c, size_t n)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	int r;

	r = stmt_prepare(h,
			 "INSERT INTO changes (txn, seq, object, kind, key, old_value, new_value, state)"
			 " VALUES (?,?,?,?,?,?,?,'planned')",
			 &s);
	for (size_t i = 0; r >= 0 && i < n; i++)
		r = insert_change(h, s, txn, &c[i]);
	return r;
}

/* The mirror payload of a transaction follows its status: one outbox row
 * per transaction, rewritten while it has not been sent. */
static int outbox_refresh_txn(struct history *h, int64_t txn)
{
	_cleanup_free_ char *payload = NULL;
	int r;

	r = history_txn_to_json(h, txn, &payload);
	if (r < 0)
		return r;
	r = history_exec(h,
			 "UPDATE outbox SET payload = ? WHERE source_kind = 'txn' AND source_id = ?"
			 " AND status = 'pending'",
			 "si", payload, txn);
	if (r < 0)
		return r;
	if (sqlite3_changes(h->db) > 0)
		return 0;
	return history_exec(h,
			    "INSERT INTO outbox (source_kind, source_id, payload, created_usec)"
			    " SELECT 'txn', ?, ?, ? WHERE NOT EXISTS"
			    " (SELECT 1 FROM outbox WHERE source_kind = 'txn' AND source_id = ?"
			    "  AND status = 'pending')",
			    "isii", txn, payload, history_now_usec(), txn);
}

int history_outbox_enqueue(struct history *h, const char *source_kind, int64_t source_id, const char *payload)
{
	return history_exec(
	    h, "INSERT INTO outbox (source_kind, source_id, payload, created_usec) VALUES (?,?,?,?)", "sisi",
	    source_kind, source_id, payload, history_now_usec());
}

int history_txn_create(struct history *h, const struct txn_record *t, const struct change_record *changes,
		       size_t n_changes, int64_t *ret_id)
{
	int64_t id = 0;
	int r;

	r = history_begin(h);
	if (r < 0)
		return r;
	r = insert_txn(h, t, &id);
	if (r >= 0)
		r = insert_changes(h, id, changes, n_changes);
	if (r >= 0)
		r = outbox_refresh_txn(h, id);
	r = history_end(h, r);
	if (r < 0)
		return r;
	*ret_id = id;
	return 0;
}

/* A change's state is a progress mark, not the undo log: rollback restores
 * every change of a transaction whatever its state says. So the marks are
 * queued in memory and written in batches (MARKS_BATCH, MARKS_MAX_AGE_USEC)
 * without an fsync of their own (synchronous=NORMAL), or with the next
 * durable write (history_begin()), which makes them durable too. A process
 * killed meanwhile loses its last marks, never the undo log. This keeps a
 * 500-IRQ apply and its rollback fast. */
static int marks_write(struct history *h)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	int r;

	r = stmt_prepare(h, "UPDATE changes SET state = ?, error = ? WHERE txn = ? AND seq = ?", &s);
	for (size_t i = 0; r >= 0 && i < h->n_marks; i++) {
		const struct mark *m = &h->marks[i];

		sqlite3_reset(s);
		if ((r = stmt_bind_text(s, 1, change_state_to_string(m->state))) < 0 ||
		    (r = stmt_bind_text(s, 2, m->error)) < 0 || (r = stmt_bind_int(s, 3, m->txn)) < 0 ||
		    (r = stmt_bind_int(s, 4, m->seq)) < 0)
			break;
		r = stmt_run(h, s);
	}
	if (r >= 0)
		marks_clear(h);
	return r;
}

static int marks_flush(struct history *h)
{
	int r;

	if (h->n_marks == 0 || h->depth > 0)
		return 0;
	(void)exec_script(h, "PRAGMA synchronous = NORMAL");
	r = history_begin(h);
	r = r < 0 ? r : history_end(h, 0);
	(void)exec_script(h, "PRAGMA synchronous = FULL");
	return r;
}

int history_change_set_state(struct history *h, int64_t txn, int seq, enum change_state state,
			     const char *error)
{
	char *e = NULL;

	if ((unsigned)state >= _CHANGE_STATE_MAX || seq <= 0)
		return -EINVAL;
	if (h->n_marks % MARKS_BATCH == 0) {
		struct mark *nm = realloc(h->marks, (h->n_marks + MARKS_BATCH) * sizeof(*nm));
		if (!nm)
			return -ENOMEM;
		h->marks = nm;
	}
	if (error && !(e = strdup(error)))
		return -ENOMEM;
	if (h->n_marks == 0)
		h->marks_since_usec = history_now_usec();
	h->marks[h->n_marks++] = (struct mark){.txn = txn, .seq = seq, .state = state, .error = e};
	if (h->n_marks >= MARKS_BATCH || history_now_usec() - h->marks_since_usec >= MARKS_MAX_AGE_USEC)
		return marks_flush(h);
	return 0;
}

static bool txn_status_is_terminal(enum txn_status s)
{
	return s != TXN_OPEN && s != TXN_PENDING_CONFIRM;
}

int history_txn_set_status(struct history *h, int64_t txn, enum txn_status status, const char *error)
{
	int r = history_begin(h);
	if (r < 0)
		return r;
	r = history_exec(h, "UPDATE transactions SET status = ?, error = ?, ended_usec = ? WHERE id = ?",
			 "ssii", txn_status_to_string(status), error,
			 txn_status_is_terminal(status) ? history_now_usec() : (int64_t)0, txn);
	if (r >= 0 && sqlite3_changes(h->db) == 0)
		r = -ENOENT;
	if (r >= 0 && !txn_status_is_terminal(status))
		r = history_exec(h, "UPDATE transactions SET ended_usec = NULL WHERE id = ?", "i", txn);
	if (r >= 0)
		r = outbox_refresh_txn(h, txn);
	return history_end(h, r);
}

/* Other rollbacks of target that never finished (killed, or failed) are
 * settled by the one that just succeeded: without this they would stay
 * "unfinished" forever and block every apply. */
static int supersede_rollbacks(struct history *h, int64_t rollback, int64_t target)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	_cleanup_free_ char *why = strprintf("superseded by rollback %" PRId64, rollback);
	_cleanup_free_ int64_t *ids = NULL;
	size_t n = 0;
	int r, rc = SQLITE_DONE;

	if (!why)
		return -ENOMEM;
	r = stmt_prepare(
	    h,
	    "SELECT id FROM transactions WHERE kind = 'rollback' AND rolls_back_txn = ? AND id != ?"
	    " AND status IN ('open','rollback_failed') ORDER BY id",
	    &s);
	if (r >= 0 && (r = stmt_bind_int(s, 1, target)) >= 0)
		r = stmt_bind_int(s, 2, rollback);
	while (r >= 0 && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t *nv = realloc(ids, (n + 1) * sizeof(*ids));
		if (!nv)
			return -ENOMEM;
		ids = nv;
		ids[n++] = sqlite3_column_int64(s, 0);
	}
	if (r >= 0 && rc != SQLITE_DONE)
		r = db_error(h, rc, "find rollbacks to supersede");
	for (size_t i = 0; r >= 0 && i < n; i++)
		r = history_txn_set_status(h, ids[i], TXN_FAILED, why);
	return r;
}

int history_rollback_finish(struct history *h, int64_t rollback, int64_t target, bool ok, const char *reason)
{
	int r = history_begin(h);
	if (r < 0)
		return r;
	r = history_txn_set_status(h, rollback, ok ? TXN_COMMITTED : TXN_ROLLBACK_FAILED,
				   ok ? NULL : "incomplete");
	if (r >= 0)
		r = history_txn_set_status(h, target, ok ? TXN_ROLLED_BACK : TXN_ROLLBACK_FAILED, reason);
	if (r >= 0 && ok)
		r = supersede_rollbacks(h, rollback, target);
	return history_end(h, r);
}

int history_abandon_finish(struct history *h, int64_t abandon, int64_t target, const char *why)
{
	_cleanup_free_ char *a = strprintf("abandoned transaction %" PRId64 ": %s", target, why);
	int r;

	if (!a)
		return -ENOMEM;
	r = history_begin(h);
	if (r < 0)
		return r;
	r = history_txn_set_status(h, abandon, TXN_FAILED, a);
	if (r >= 0)
		r = history_txn_set_status(h, target, TXN_FAILED, why);
	if (r >= 0)
		r = supersede_rollbacks(h, abandon, target);
	return history_end(h, r);
}

/* The end of an UPDATE of transaction txn begun with history_begin (r:
 * its result): -ENOENT when no row changed, else the mirror's payload
 * refreshed, and the SQLite transaction ended. */
static int txn_update_end(struct history *h, int64_t txn, int r)
{
	if (r >= 0 && sqlite3_changes(h->db) == 0)
		r = -ENOENT;
	if (r >= 0)
		r = outbox_refresh_txn(h, txn);
	return history_end(h, r);
}

int history_txn_set_pending_confirm(struct history *h, int64_t txn, int64_t deadline_usec)
{
	int r = history_begin(h);
	if (r < 0)
		return r;
	r = history_exec(h,
			 "UPDATE transactions SET status = 'pending_confirm', confirm_deadline_usec = ?,"
			 " ended_usec = NULL WHERE id = ?",
			 "ii", deadline_usec, txn);
	return txn_update_end(h, txn, r);
}

int history_txn_set_peer_undo(struct history *h, int64_t txn, const char *pending)
{
	int r =
	    history_exec(h, "UPDATE transactions SET peer_undo_pending = ? WHERE id = ?", "si", pending, txn);

	if (r >= 0 && sqlite3_changes(h->db) == 0)
		r = -ENOENT;
	return r;
}

int history_txn_discard(struct history *h, int64_t txn)
{
	int r = history_begin(h);

	if (r < 0)
		return r;
	r = history_exec(
	    h,
	    "DELETE FROM transactions WHERE id = ? AND kind = 'apply' AND status = 'open'"
	    " AND coalesce(peer_txn, 0) = 0 AND NOT EXISTS (SELECT 1 FROM changes WHERE txn = id)",
	    "i", txn);
	if (r >= 0 && sqlite3_changes(h->db) == 0)
		r = -ENOENT;
	if (r >= 0)
		r = history_exec(
		    h,
		    "DELETE FROM outbox WHERE source_kind = 'txn' AND source_id = ? AND status = 'pending'",
		    "i", txn);
	return history_end(h, r);
}

int history_txn_abandon_peer_undo(struct history *h, int64_t txn, const char *note)
{
	int r = history_begin(h);

	if (r < 0)
		return r;
	r = history_exec(h,
			 "UPDATE transactions SET peer_undo_pending = NULL,"
			 " error = CASE WHEN error IS NULL THEN ?1 ELSE error || '; ' || ?1 END"
			 " WHERE id = ?2 AND peer_undo_pending IS NOT NULL",
			 "si", note, txn);
	return txn_update_end(h, txn, r);
}

int history_txn_set_peer_txn(struct history *h, int64_t txn, int64_t peer_txn)
{
	int r = history_exec(h, "UPDATE transactions SET peer_txn = ? WHERE id = ?", "ii", peer_txn, txn);

	if (r >= 0 && sqlite3_changes(h->db) == 0)
		r = -ENOENT;
	return r;
}

int history_txn_set_peer_intent(struct history *h, int64_t txn, const char *origin)
{
	int r = history_exec(h, "UPDATE transactions SET peer_txn = ?, peer_origin = ? WHERE id = ?", "isi",
			     (int64_t)HISTORY_PEER_TXN_UNKNOWN, origin, txn);

	if (r >= 0 && sqlite3_changes(h->db) == 0)
		r = -ENOENT;
	return r;
}

/* Prepare sql into *s, bind text arg to its one parameter and step once:
 * 1 a row (read it from *s), 0 none, -errno. */
static int step_with_text(struct history *h, const char *sql, const char *arg, sqlite3_stmt **s)
{
	int r = stmt_prepare(h, sql, s), rc;

	if (r >= 0)
		r = stmt_bind_text(*s, 1, arg);
	if (r < 0)
		return r;
	rc = sqlite3_step(*s);
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		return rc == SQLITE_ROW;
	return db_error(h, rc, sql);
}

int history_fenced(struct history *h, const char *origin)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;

	return step_with_text(h, "SELECT 1 FROM fences WHERE origin = ?", origin, &s);
}

int history_fence(struct history *h, const char *origin)
{
	int r = history_begin(h);

	if (r < 0)
		return r;
	r = history_exec(h, "INSERT OR IGNORE INTO fences (origin, fenced_usec) VALUES (?, ?)", "si", origin,
			 (int64_t)history_now_usec());
	return history_end(h, r);
}

#define TXN_COLUMNS                                                                                          \
	"id, kind, profile_name, profile_hash, profile_json, user, host, started_usec,"                      \
	" coalesce(ended_usec, 0), status, coalesce(confirm_deadline_usec, 0), coalesce(rolls_back_txn, 0)," \
	" error, boot_id, coalesce(peer_txn, 0), peer_undo_pending, origin, peer_origin"

static int txn_from_row(sqlite3_stmt *s, struct txn_record *ret)
{
	struct txn_record t = {0};
	int r;

	t.id = sqlite3_column_int64(s, 0);
	r = txn_kind_from_string((const char *)sqlite3_column_text(s, 1), &t.kind);
	if (r >= 0)
		r = txn_status_from_string((const char *)sqlite3_column_text(s, 9), &t.status);
	if (r < 0)
		return -EBADMSG;
	t.started_usec = sqlite3_column_int64(s, 7);
	t.ended_usec = sqlite3_column_int64(s, 8);
	t.confirm_deadline_usec = sqlite3_column_int64(s, 10);
	t.rolls_back_txn = sqlite3_column_int64(s, 11);
	t.peer_txn = sqlite3_column_int64(s, 14);
	if ((r = column_strdup(s, 2, &t.profile_name)) < 0 ||
	    (r = column_strdup(s, 3, &t.profile_hash)) < 0 ||
	    (r = column_strdup(s, 4, &t.profile_json)) < 0 || (r = column_strdup(s, 5, &t.user)) < 0 ||
	    (r = column_strdup(s, 6, &t.host)) < 0 || (r = column_strdup(s, 12, &t.error)) < 0 ||
	    (r = column_strdup(s, 13, &t.boot_id)) < 0 ||
	    (r = column_strdup(s, 15, &t.peer_undo_pending)) < 0 ||
	    (r = column_strdup(s, 16, &t.origin)) < 0 || (r = column_strdup(s, 17, &t.peer_origin)) < 0) {
		txn_record_done(&t);
		return r;
	}
	*ret = t;
	return 0;
}

/* Run a query returning transaction rows; the first row into *ret.
 * 1 found, 0 none. */
static int txn_query_one(struct history *h, const char *sql, int64_t arg, struct txn_record *ret)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	int r, rc;

	r = stmt_prepare(h, sql, &s);
	if (r < 0)
		return r;
	if (strchr(sql, '?') && (r = stmt_bind_int(s, 1, arg)) < 0)
		return r;
	rc = sqlite3_step(s);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return db_error(h, rc, sql);
	r = txn_from_row(s, ret);
	return r < 0 ? r : 1;
}

int history_txn_find_origin(struct history *h, const char *origin, struct txn_record *ret)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	int r = step_with_text(
	    h, "SELECT " TXN_COLUMNS " FROM transactions WHERE origin = ? ORDER BY id DESC LIMIT 1", origin,
	    &s);

	if (r <= 0)
		return r;
	r = txn_from_row(s, ret);
	return r < 0 ? r : 1;
}

int history_txn_list_newest(struct history *h, size_t limit, struct txn_record **ret, size_t *ret_n)
{
	sqlite3_stmt *s = NULL;
	struct txn_record *v = NULL;
	size_t n = 0;
	int rc, r = 0;

	rc = sqlite3_prepare_v2(
	    h->db, "SELECT id FROM transactions ORDER BY started_usec DESC, id DESC LIMIT ?", -1, &s, NULL);
	if (rc != SQLITE_OK)
		return history_errno(rc);
	sqlite3_bind_int64(s, 1, limit ? (int64_t)limit : -1);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct txn_record *nv = reallocarray(v, n + 1, sizeof(*v));

		if (!nv) {
			r = -ENOMEM;
			break;
		}
		v = nv;
		v[n] = (struct txn_record){0};
		r = history_txn_get(h, sqlite3_column_int64(s, 0), &v[n]);
		if (r < 0)
			break;
		n++;
	}
	if (r >= 0 && rc != SQLITE_DONE)
		r = history_errno(rc);
	sqlite3_finalize(s);
	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			txn_record_done(&v[i]);
		free(v);
		return r;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

int history_txn_get(struct history *h, int64_t id, struct txn_record *ret)
{
	int r = txn_query_one(h, "SELECT " TXN_COLUMNS " FROM transactions WHERE id = ?", id, ret);
	return r == 0 ? -ENOENT : r < 0 ? r : 0;
}

int history_txn_find_unfinished(struct history *h, struct txn_record *ret)
{
	return txn_query_one(
	    h,
	    "SELECT " TXN_COLUMNS " FROM transactions"
	    " WHERE status IN ('open','pending_confirm','rollback_failed') ORDER BY id DESC LIMIT 1",
	    0, ret);
}

int history_txn_find_last_apply(struct history *h, struct txn_record *ret)
{
	return txn_query_one(h,
			     "SELECT " TXN_COLUMNS " FROM transactions WHERE kind = 'apply'"
			     " AND status IN ('open','pending_confirm','committed','rollback_failed')"
			     " ORDER BY id DESC LIMIT 1",
			     0, ret);
}

int history_txn_find_peer_undo(struct history *h, struct txn_record *ret)
{
	return txn_query_one(h,
			     "SELECT " TXN_COLUMNS " FROM transactions WHERE peer_undo_pending IS NOT NULL"
			     " AND peer_txn <> 0 ORDER BY id DESC LIMIT 1",
			     0, ret);
}

int history_txn_find_last(struct history *h, enum txn_kind k, struct txn_record *ret)
{
	if (k == TXN_APPLY)
		return txn_query_one(h,
				     "SELECT " TXN_COLUMNS " FROM transactions WHERE kind = 'apply'"
				     " ORDER BY id DESC LIMIT 1",
				     0, ret);
	return txn_query_one(h,
			     "SELECT " TXN_COLUMNS " FROM transactions WHERE kind = 'rollback'"
			     " ORDER BY id DESC LIMIT 1",
			     0, ret);
}

static int change_from_row(sqlite3_stmt *s, struct change_record *c)
{
	int r;

	c->txn = sqlite3_column_int64(s, 0);
	c->seq = sqlite3_column_int(s, 1);
	if (change_state_from_string((const char *)sqlite3_column_text(s, 7), &c->state) < 0)
		return -EBADMSG;
	if ((r = column_strdup(s, 2, &c->object)) < 0 || (r = column_strdup(s, 3, &c->kind)) < 0 ||
	    (r = column_strdup(s, 4, &c->key)) < 0 || (r = column_strdup(s, 5, &c->old_value)) < 0 ||
	    (r = column_strdup(s, 6, &c->new_value)) < 0 || (r = column_strdup(s, 8, &c->error)) < 0)
		return r;
	return 0;
}

int history_changes_load(struct history *h, int64_t txn, struct change_record **ret, size_t *ret_n)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	struct change_record *v = NULL;
	size_t n = 0;
	int r, rc;

	r = marks_flush(h);
	if (r >= 0)
		r = stmt_prepare(h,
				 "SELECT txn, seq, object, kind, key, old_value, new_value, state, error"
				 " FROM changes WHERE txn = ? ORDER BY seq",
				 &s);
	if (r >= 0)
		r = stmt_bind_int(s, 1, txn);
	while (r >= 0 && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct change_record *nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			r = -ENOMEM;
			break;
		}
		v = nv;
		v[n] = (struct change_record){0};
		r = change_from_row(s, &v[n++]);
	}
	if (r >= 0 && rc != SQLITE_DONE)
		r = db_error(h, rc, "load changes");
	if (r < 0) {
		change_records_free(v, n);
		return r;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

/* The first id a query with one integer parameter returns: 1 and *ret_id,
 * 0 when it returns none. */
static int find_one_id(struct history *h, const char *sql, int64_t arg, const char *what, int64_t *ret_id)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	int r, rc;

	r = stmt_prepare(h, sql, &s);
	if (r >= 0)
		r = stmt_bind_int(s, 1, arg);
	if (r < 0)
		return r;
	rc = sqlite3_step(s);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return db_error(h, rc, what);
	*ret_id = sqlite3_column_int64(s, 0);
	return 1;
}

int history_txn_find_later_overlap(struct history *h, int64_t txn, int64_t *ret_id)
{
	return find_one_id(h,
			   "SELECT t.id FROM transactions t JOIN changes c ON c.txn = t.id"
			   " WHERE t.id > ?1 AND t.kind = 'apply'"
			   " AND t.status IN ('committed','pending_confirm','open')"
			   " AND EXISTS (SELECT 1 FROM changes o WHERE o.txn = ?1"
			   "  AND o.object = c.object AND o.key = c.key)"
			   " ORDER BY t.id LIMIT 1",
			   txn, "later overlap", ret_id);
}

int history_txn_find_later_overlap_newest(struct history *h, int64_t txn, int64_t *ret_id)
{
	return find_one_id(h,
			   "SELECT t.id FROM transactions t JOIN changes c ON c.txn = t.id"
			   " WHERE t.id > ?1 AND t.kind = 'apply'"
			   " AND t.status IN ('committed','pending_confirm','open','rollback_failed')"
			   " AND EXISTS (SELECT 1 FROM changes o WHERE o.txn = ?1"
			   "  AND o.object = c.object AND o.key = c.key)"
			   " ORDER BY t.id DESC LIMIT 1",
			   txn, "later overlap", ret_id);
}

int history_txn_find_rollback_of(struct history *h, int64_t target, int64_t *ret_id)
{
	return find_one_id(h,
			   "SELECT id FROM transactions WHERE kind = 'rollback' AND rolls_back_txn = ?"
			   " AND status = 'committed' ORDER BY id DESC LIMIT 1",
			   target, "find the rollback of a transaction", ret_id);
}

/* ---- JSON ---- */

static void json_add_string(struct json_object *o, const char *key, const char *v)
{
	json_object_object_add(o, key, v ? json_object_new_string(v) : NULL);
}

static void json_add_opt_int(struct json_object *o, const char *key, int64_t v)
{
	json_object_object_add(o, key, v ? json_object_new_int64(v) : NULL);
}

static struct json_object *change_to_json(const struct change_record *c)
{
	struct json_object *o = json_object_new_object();
	if (!o)
		return NULL;
	json_object_object_add(o, "seq", json_object_new_int(c->seq));
	json_add_string(o, "object", c->object);
	json_add_string(o, "kind", c->kind);
	json_add_string(o, "key", c->key);
	json_add_string(o, "old", c->old_value);
	json_add_string(o, "new", c->new_value);
	json_add_string(o, "state", change_state_to_string(c->state));
	json_add_string(o, "error", c->error);
	return o;
}

static struct json_object *txn_to_json_object(const struct txn_record *t, const struct change_record *c,
					      size_t n)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	if (!o || !a) {
		json_object_put(o);
		json_object_put(a);
		return NULL;
	}
	json_object_object_add(o, "id", json_object_new_int64(t->id));
	json_add_string(o, "kind", txn_kind_to_string(t->kind));
	json_add_string(o, "status", txn_status_to_string(t->status));
	json_add_string(o, "profile", t->profile_name);
	json_add_string(o, "profile_hash", t->profile_hash);
	json_add_string(o, "user", t->user);
	json_add_string(o, "host", t->host);
	json_add_string(o, "boot_id", t->boot_id);
	json_object_object_add(o, "started_usec", json_object_new_int64(t->started_usec));
	json_add_opt_int(o, "ended_usec", t->ended_usec);
	json_add_opt_int(o, "confirm_deadline_usec", t->confirm_deadline_usec);
	json_add_opt_int(o, "rolls_back", t->rolls_back_txn);
	json_add_string(o, "error", t->error);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, change_to_json(&c[i]));
	json_object_object_add(o, "changes", a);
	return o;
}

int history_txn_to_json(struct history *h, int64_t txn, char **ret)
{
	_cleanup_(txn_record_done) struct txn_record t = {0};
	struct change_record *c = NULL;
	struct json_object *o;
	size_t n = 0;
	char *s;
	int r;

	r = history_txn_get(h, txn, &t);
	if (r < 0)
		return r;
	r = history_changes_load(h, txn, &c, &n);
	if (r < 0)
		return r;
	o = txn_to_json_object(&t, c, n);
	change_records_free(c, n);
	if (!o)
		return -ENOMEM;
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}
