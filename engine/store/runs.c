/* runs.c: benchmark rounds in the history database (see runs.h).
 *
 * Owns: the rows of the runs and artifacts tables (schema in history.h),
 * and a run's JSON shape (the mirror payload, `history show --json`,
 * `export`). A run, its artifacts and its outbox row are written in one
 * SQLite transaction. Must never: talk to the network, log above debug, or
 * write anything a run_record did not carry (no secrets pass through here).
 * SQLite result codes become -errno through history_errno() only. */
#define _GNU_SOURCE
#include "runs.h"

#include <ctype.h>
#include <math.h>
#include <sqlite3.h>

#include "base/log.h"
#include "history.h"

/* Artifacts that carry struct fields the runs table has no column for. */
#define ARTIFACT_COMMAND "command"
#define ARTIFACT_IRQ_MAP "irq_map"
#define ARTIFACT_PEER	 "peer_state.json"

bool run_artifact_name_valid(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (n == 0 || n > 64 || name[0] == '.' || name[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(islower((unsigned char)name[i]) || isdigit((unsigned char)name[i]) ||
		      strchr("_.-", name[i])))
			return false;
	return true;
}

const struct run_artifact *run_record_artifact(const struct run_record *r, const char *name)
{
	for (size_t i = 0; i < r->n_artifacts; i++)
		if (streq(r->artifacts[i].name, name))
			return &r->artifacts[i];
	return NULL;
}

void run_record_done(struct run_record *r)
{
	if (!r)
		return;
	free(r->runner);
	free(r->command_line);
	free(r->profile);
	free(r->profile_hash);
	free(r->test);
	free(r->ifname);
	free(r->peer);
	free(r->irq_policy);
	free(r->irq_map);
	free(r->driver);
	free(r->driver_version);
	free(r->firmware_version);
	free(r->verdict);
	free(r->limited_by);
	free(r->ledger);
	free(r->peer_driver);
	free(r->peer_driver_version);
	free(r->peer_firmware);
	for (size_t i = 0; i < r->n_artifacts; i++) {
		free(r->artifacts[i].name);
		free(r->artifacts[i].content);
	}
	free(r->artifacts);
	*r = (struct run_record){0};
}

void run_records_free(struct run_record *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		run_record_done(&v[i]);
	free(v);
}

/* ---- JSON ---- */

static void add_str(struct json_object *o, const char *key, const char *v)
{
	json_object_object_add(o, key, v ? json_object_new_string(v) : NULL);
}

static void add_opt_uint(struct json_object *o, const char *key, uint64_t v)
{
	json_object_object_add(o, key, v ? json_object_new_uint64(v) : NULL);
}

const char *run_record_outcome(const struct run_record *r)
{
	if (r->verdict && strncmp(r->verdict, "interrupted", 11) == 0)
		return "interrupted";
	if (r->sent == 0 || (r->verdict && strncmp(r->verdict, "error", 5) == 0))
		return "error";
	if (r->verdict && streq(r->verdict, "drift"))
		return "drift";
	/* Measured, with no threshold to judge it: not a pass. */
	if (r->verdict && strncmp(r->verdict, "recorded", 8) == 0)
		return "recorded";
	return r->passed ? "pass" : "fail";
}

char *run_record_tuning(const struct run_record *r, const char *key)
{
	const struct run_artifact *a = run_record_artifact(r, ARTIFACT_TUNING);
	size_t k = strlen(key);

	for (const char *line = a ? a->content : NULL; line && *line; line = strchr(line, '\n')) {
		line += *line == '\n';
		if (strncmp(line, key, k) == 0 && strncmp(line + k, ": ", 2) == 0) {
			return strndup(line + k + 2, strcspn(line + k + 2, "\n"));
		}
	}
	return NULL;
}

const char *run_record_outcome_label(const struct run_record *r)
{
	const char *o = run_record_outcome(r);
	return streq(o, "fail") ? "FAIL" : o;
}

struct json_object *run_record_to_json(const struct run_record *r, bool with_artifacts)
{
	struct json_object *o = json_object_new_object(), *p = json_object_new_object(),
			   *res = json_object_new_object();

	if (!o || !p || !res) {
		json_object_put(o);
		json_object_put(p);
		json_object_put(res);
		return NULL;
	}
	json_object_object_add(o, "id", json_object_new_int64(r->id));
	json_object_object_add(o, "transaction",
			       r->transaction_id ? json_object_new_int64(r->transaction_id) : NULL);
	json_object_object_add(o, "campaign", r->campaign_id ? json_object_new_int64(r->campaign_id) : NULL);
	json_object_object_add(o, "started_usec", json_object_new_int64(r->started_usec));
	json_object_object_add(o, "ended_usec", json_object_new_int64(r->ended_usec));
	add_str(o, "runner", r->runner);
	add_str(o, "command", r->command_line);
	add_str(o, "profile", r->profile);
	add_str(o, "profile_hash", r->profile_hash);
	add_str(o, "test", r->test);
	add_str(o, "interface", r->ifname);
	add_str(o, "peer", r->peer);

	add_opt_uint(p, "mtu", r->mtu);
	add_opt_uint(p, "message_size", r->message_size);
	add_opt_uint(p, "send_buffer", r->send_buffer);
	add_opt_uint(p, "recv_buffer", r->recv_buffer);
	add_opt_uint(p, "streams", r->streams);
	json_object_object_add(p, "duration_s",
			       r->duration_s > 0 ? json_object_new_double(r->duration_s) : NULL);
	add_str(p, "irq_policy", r->irq_policy);
	add_str(p, "irq_map", r->irq_map);
	add_str(p, "driver", r->driver);
	add_str(p, "driver_version", r->driver_version);
	add_str(p, "firmware_version", r->firmware_version);
	json_object_object_add(o, "parameters", p);

	json_object_object_add(res, "sent", json_object_new_uint64(r->sent));
	json_object_object_add(res, "received", json_object_new_uint64(r->received));
	json_object_object_add(res, "lost", json_object_new_uint64(r->lost));
	json_object_object_add(res, "send_mbps", json_object_new_double(r->send_mbps));
	json_object_object_add(res, "recv_mbps", json_object_new_double(r->recv_mbps));
	json_object_object_add(res, "loss_pct",
			       isfinite(r->loss_pct) ? json_object_new_double(r->loss_pct) : NULL);
	json_object_object_add(res, "pass", json_object_new_boolean(r->passed));
	json_object_object_add(res, "outcome", json_object_new_string(run_record_outcome(r)));
	add_str(res, "verdict", r->verdict);
	json_object_object_add(o, "results", res);
	add_str(o, "limited_by", r->limited_by);
	json_object_object_add(o, "ledger", r->ledger ? json_tokener_parse(r->ledger) : NULL);

	if (with_artifacts) {
		struct json_object *a = json_object_new_array();

		for (size_t i = 0; a && i < r->n_artifacts; i++) {
			struct json_object *e = json_object_new_object();

			if (!e)
				break;
			add_str(e, "name", r->artifacts[i].name);
			add_str(e, "content", r->artifacts[i].content);
			json_object_array_add(a, e);
		}
		json_object_object_add(o, "artifacts", a);
	}
	return o;
}

/* ---- write ---- */

static int bind_text(sqlite3_stmt *s, int i, const char *v)
{
	return history_errno(v ? sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(s, i));
}

static int bind_opt_u64(sqlite3_stmt *s, int i, uint64_t v)
{
	return history_errno(v ? sqlite3_bind_int64(s, i, (int64_t)v) : sqlite3_bind_null(s, i));
}

static int step_done(sqlite3 *db, sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);

	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		log_debug("runs: %s: %s", sqlite3_sql(s), sqlite3_errmsg(db));
		return history_errno(rc);
	}
	return 0;
}

static int insert_run(sqlite3 *db, const struct run_record *r, int64_t started, int64_t ended,
		      int64_t *ret_id)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	int i = 1, q = 0;

	q = history_prepare(
	    db,
	    "INSERT INTO runs (txn, profile_name, profile_hash, interface, runner, peer, test, duration_s,"
	    " mtu, message_size, send_buffer, recv_buffer, streams, irq_policy, driver, driver_version,"
	    " firmware_version, sent, received, lost, send_mbps, recv_mbps, loss_pct, pass, verdict,"
	    " started_usec, ended_usec, campaign, limited_by, ledger) VALUES "
	    "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	    &s);
	if (q < 0)
		return q;
	q = q
		?: history_errno(r->transaction_id ? sqlite3_bind_int64(s, i, r->transaction_id)
						   : sqlite3_bind_null(s, i));
	i++;
	q = q ?: bind_text(s, i++, r->profile);
	q = q ?: bind_text(s, i++, r->profile_hash);
	q = q ?: bind_text(s, i++, r->ifname);
	q = q ?: bind_text(s, i++, r->runner);
	q = q ?: bind_text(s, i++, r->peer);
	q = q ?: bind_text(s, i++, r->test);
	q = q
		?: history_errno(r->duration_s > 0 ? sqlite3_bind_double(s, i, r->duration_s)
						   : sqlite3_bind_null(s, i));
	i++;
	q = q ?: bind_opt_u64(s, i++, r->mtu);
	q = q ?: bind_opt_u64(s, i++, r->message_size);
	q = q ?: bind_opt_u64(s, i++, r->send_buffer);
	q = q ?: bind_opt_u64(s, i++, r->recv_buffer);
	q = q ?: bind_opt_u64(s, i++, r->streams);
	q = q ?: bind_text(s, i++, r->irq_policy);
	q = q ?: bind_text(s, i++, r->driver);
	q = q ?: bind_text(s, i++, r->driver_version);
	q = q ?: bind_text(s, i++, r->firmware_version);
	q = q ?: history_errno(sqlite3_bind_int64(s, i++, (int64_t)r->sent));
	q = q ?: history_errno(sqlite3_bind_int64(s, i++, (int64_t)r->received));
	q = q ?: history_errno(sqlite3_bind_int64(s, i++, (int64_t)r->lost));
	q = q ?: history_errno(sqlite3_bind_double(s, i++, r->send_mbps));
	q = q ?: history_errno(sqlite3_bind_double(s, i++, r->recv_mbps));
	q = q
		?: history_errno(r->sent > 0 && isfinite(r->loss_pct) ? sqlite3_bind_double(s, i, r->loss_pct)
								      : sqlite3_bind_null(s, i));
	i++;
	q = q ?: history_errno(sqlite3_bind_int(s, i++, r->passed ? 1 : 0));
	q = q ?: bind_text(s, i++, r->verdict);
	q = q ?: history_errno(sqlite3_bind_int64(s, i++, started));
	q = q ?: history_errno(sqlite3_bind_int64(s, i++, ended));
	q = q
		?: history_errno(r->campaign_id ? sqlite3_bind_int64(s, i, r->campaign_id)
						: sqlite3_bind_null(s, i));
	i++;
	q = q ?: bind_text(s, i++, r->limited_by);
	q = q ?: bind_text(s, i++, r->ledger);
	q = q ?: step_done(db, s);
	if (q < 0)
		return q;
	*ret_id = sqlite3_last_insert_rowid(db);
	return 0;
}

static int insert_artifact(sqlite3 *db, sqlite3_stmt *s, int64_t run, const char *name, const char *content)
{
	int q;

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	q = history_errno(sqlite3_bind_int64(s, 1, run));
	q = q ?: bind_text(s, 2, name);
	q = q
		?: history_errno(content
				     ? sqlite3_bind_blob64(s, 3, content, strlen(content), SQLITE_TRANSIENT)
				     : sqlite3_bind_null(s, 3));
	return q ?: step_done(db, s);
}

static int insert_artifacts(sqlite3 *db, const struct run_record *r, int64_t run)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	int q;

	q = history_prepare(db, "INSERT INTO artifacts (run, name, content) VALUES (?,?,?)", &s);
	if (q < 0)
		return q;
	/* The fields without a column travel as artifacts, unless the
	 * caller gave the same artifact explicitly. */
	if (r->command_line && !run_record_artifact(r, ARTIFACT_COMMAND)) {
		q = insert_artifact(db, s, run, ARTIFACT_COMMAND, r->command_line);
		if (q < 0)
			return q;
	}
	if (r->irq_map && !run_record_artifact(r, ARTIFACT_IRQ_MAP)) {
		q = insert_artifact(db, s, run, ARTIFACT_IRQ_MAP, r->irq_map);
		if (q < 0)
			return q;
	}
	for (size_t i = 0; i < r->n_artifacts; i++) {
		q = insert_artifact(db, s, run, r->artifacts[i].name, r->artifacts[i].content);
		if (q < 0)
			return q;
	}
	return 0;
}

static int record_in_txn(struct history *h, const struct run_record *r, int64_t *ret_id)
{
	sqlite3 *db = history_db(h);
	struct run_record copy = *r;
	struct json_object *j;
	int64_t id;
	int q;

	if (!copy.started_usec)
		copy.started_usec = history_now_usec();
	if (!copy.ended_usec)
		copy.ended_usec = copy.started_usec;
	q = insert_run(db, &copy, copy.started_usec, copy.ended_usec, &id);
	if (q < 0)
		return q;
	q = insert_artifacts(db, &copy, id);
	if (q < 0)
		return q;
	/* The mirror gets the round without its bulky artifacts (tokens cost
	 * money); the command line and parameters are in it. */
	copy.id = id;
	copy.n_artifacts = 0;
	j = run_record_to_json(&copy, false);
	if (!j)
		return -ENOMEM;
	q = history_outbox_enqueue(h, "run", id, json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	json_object_put(j);
	if (q < 0)
		return q;
	*ret_id = id;
	return 0;
}

int runs_record(struct history *h, const struct run_record *r, int64_t *ret_id)
{
	int64_t id = 0;
	int q;

	if (!r || !r->runner || !*r->runner)
		return -EINVAL;
	for (size_t i = 0; i < r->n_artifacts; i++) {
		if (!run_artifact_name_valid(r->artifacts[i].name))
			return -EINVAL;
		for (size_t j = 0; j < i; j++)
			if (streq(r->artifacts[i].name, r->artifacts[j].name))
				return -EINVAL;
	}
	q = history_begin(h);
	if (q < 0)
		return q;
	q = history_end(h, record_in_txn(h, r, &id));
	if (q < 0)
		return q;
	if (ret_id)
		*ret_id = id;
	return 0;
}

/* ---- read ---- */

#define RUN_COLUMNS                                                                                          \
	"id, txn, profile_name, profile_hash, interface, runner, peer, test, duration_s, mtu, message_size," \
	" send_buffer, recv_buffer, streams, irq_policy, driver, driver_version, firmware_version, sent,"    \
	" received, lost, send_mbps, recv_mbps, loss_pct, pass, verdict, started_usec, ended_usec, "         \
	"campaign,"                                                                                          \
	" limited_by, ledger"

static int col_str(sqlite3_stmt *s, int col, char **ret)
{
	const unsigned char *v = sqlite3_column_text(s, col);

	*ret = NULL;
	if (!v)
		return 0;
	*ret = strdup((const char *)v);
	return *ret ? 0 : -ENOMEM;
}

static int run_from_row(sqlite3_stmt *s, struct run_record *ret)
{
	struct run_record r = {0};
	int c = 0, q = 0;

	r.id = sqlite3_column_int64(s, c++);
	r.transaction_id = sqlite3_column_int64(s, c++);
	q = q ?: col_str(s, c++, &r.profile);
	q = q ?: col_str(s, c++, &r.profile_hash);
	q = q ?: col_str(s, c++, &r.ifname);
	q = q ?: col_str(s, c++, &r.runner);
	q = q ?: col_str(s, c++, &r.peer);
	q = q ?: col_str(s, c++, &r.test);
	r.duration_s = sqlite3_column_double(s, c++);
	r.mtu = (uint32_t)sqlite3_column_int64(s, c++);
	r.message_size = (uint64_t)sqlite3_column_int64(s, c++);
	r.send_buffer = (uint64_t)sqlite3_column_int64(s, c++);
	r.recv_buffer = (uint64_t)sqlite3_column_int64(s, c++);
	r.streams = (uint32_t)sqlite3_column_int64(s, c++);
	q = q ?: col_str(s, c++, &r.irq_policy);
	q = q ?: col_str(s, c++, &r.driver);
	q = q ?: col_str(s, c++, &r.driver_version);
	q = q ?: col_str(s, c++, &r.firmware_version);
	r.sent = (uint64_t)sqlite3_column_int64(s, c++);
	r.received = (uint64_t)sqlite3_column_int64(s, c++);
	r.lost = (uint64_t)sqlite3_column_int64(s, c++);
	r.send_mbps = sqlite3_column_double(s, c++);
	r.recv_mbps = sqlite3_column_double(s, c++);
	r.loss_pct = sqlite3_column_type(s, c) == SQLITE_NULL ? NAN : sqlite3_column_double(s, c);
	c++;
	r.passed = sqlite3_column_int(s, c++) == 1;
	q = q ?: col_str(s, c++, &r.verdict);
	r.started_usec = sqlite3_column_int64(s, c++);
	r.ended_usec = sqlite3_column_int64(s, c++);
	r.campaign_id = sqlite3_column_int64(s, c++);
	q = q ?: col_str(s, c++, &r.limited_by);
	q = q ?: col_str(s, c++, &r.ledger);
	if (q < 0) {
		run_record_done(&r);
		return q;
	}
	*ret = r;
	return 0;
}

static char *doc_strdup(struct json_object *doc, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(doc, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return strdup(json_object_get_string(v));
}

static uint64_t doc_u64(struct json_object *doc, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(doc, key, &v) || !json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) < 0)
		return 0;
	return (uint64_t)json_object_get_int64(v);
}

/* The peer's facts for compare and history show; a document that does
 * not parse leaves them unknown (the artifact itself is still shown). */
static void peer_facts(const char *content, struct run_record *r)
{
	struct json_object *doc = json_tokener_parse(content);

	if (!doc)
		return;
	if (json_object_is_type(doc, json_type_object)) {
		r->peer_driver = doc_strdup(doc, "driver");
		r->peer_driver_version = doc_strdup(doc, "driver_version");
		r->peer_firmware = doc_strdup(doc, "firmware");
		r->peer_mtu = doc_u64(doc, "mtu");
		r->peer_rmem_max = doc_u64(doc, "rmem_max");
	}
	json_object_put(doc);
}

static int load_artifacts(sqlite3 *db, struct run_record *r)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	int q, rc;

	q = history_prepare(
	    db, "SELECT name, CAST(content AS TEXT) FROM artifacts WHERE run = ? ORDER BY rowid", &s);
	if (q < 0)
		return q;
	q = history_errno(sqlite3_bind_int64(s, 1, r->id));
	if (q < 0)
		return q;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct run_artifact *a = reallocarray(r->artifacts, r->n_artifacts + 1, sizeof(*a));

		if (!a)
			return -ENOMEM;
		r->artifacts = a;
		a = &r->artifacts[r->n_artifacts];
		*a = (struct run_artifact){0};
		r->n_artifacts++;
		q = col_str(s, 0, &a->name);
		q = q ?: col_str(s, 1, &a->content);
		if (q < 0)
			return q;
		if (!a->content) {
			a->content = strdup("");
			if (!a->content)
				return -ENOMEM;
		}
		if (streq(a->name, ARTIFACT_COMMAND) && !r->command_line)
			r->command_line = strdup(a->content);
		else if (streq(a->name, ARTIFACT_IRQ_MAP) && !r->irq_map)
			r->irq_map = strdup(a->content);
		else if (streq(a->name, ARTIFACT_PEER))
			peer_facts(a->content, r);
	}
	if (rc != SQLITE_DONE)
		return history_errno(rc);
	return 0;
}

int runs_get(struct history *h, int64_t id, struct run_record *ret)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	struct run_record r = {0};
	sqlite3 *db = history_db(h);
	int q, rc;

	q = history_prepare(db, "SELECT " RUN_COLUMNS " FROM runs WHERE id = ?", &s);
	if (q < 0)
		return q;
	q = history_errno(sqlite3_bind_int64(s, 1, id));
	if (q < 0)
		return q;
	rc = sqlite3_step(s);
	if (rc == SQLITE_DONE)
		return -ENOENT;
	if (rc != SQLITE_ROW)
		return history_errno(rc);
	q = run_from_row(s, &r);
	if (q < 0)
		return q;
	q = load_artifacts(db, &r);
	if (q < 0) {
		run_record_done(&r);
		return q;
	}
	*ret = r;
	return 0;
}

int runs_list(struct history *h, size_t limit, struct run_record **ret, size_t *ret_n)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	struct run_record *v = NULL;
	sqlite3 *db = history_db(h);
	size_t n = 0;
	int q, rc;

	q = history_prepare(
	    db, "SELECT " RUN_COLUMNS " FROM runs ORDER BY started_usec DESC, id DESC LIMIT ?", &s);
	if (q < 0)
		return q;
	q = history_errno(sqlite3_bind_int64(s, 1, limit ? (int64_t)limit : -1));
	if (q < 0)
		return q;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct run_record *nv = reallocarray(v, n + 1, sizeof(*v));

		if (!nv) {
			run_records_free(v, n);
			return -ENOMEM;
		}
		v = nv;
		q = run_from_row(s, &v[n]);
		if (q < 0) {
			run_records_free(v, n);
			return q;
		}
		n++;
	}
	if (rc != SQLITE_DONE) {
		run_records_free(v, n);
		return history_errno(rc);
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

static int set_artifact_in_txn(struct history *h, int64_t run, const char *name, const char *content)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	sqlite3 *db = history_db(h);
	int q, rc;

	q = history_prepare(db, "SELECT 1 FROM runs WHERE id = ?", &s);
	if (q < 0)
		return q;
	q = history_errno(sqlite3_bind_int64(s, 1, run));
	if (q < 0)
		return q;
	rc = sqlite3_step(s);
	if (rc == SQLITE_DONE)
		return -ENOENT;
	if (rc != SQLITE_ROW)
		return history_errno(rc);
	sqlite3_finalize(TAKE_PTR(s));
	q = history_prepare(db, "INSERT OR REPLACE INTO artifacts (run, name, content) VALUES (?,?,?)", &s);
	if (q < 0)
		return q;
	return insert_artifact(db, s, run, name, content);
}

int runs_set_artifact(struct history *h, int64_t run, const char *name, const char *content)
{
	int q;

	if (!run_artifact_name_valid(name))
		return -EINVAL;
	q = history_begin(h);
	if (q < 0)
		return q;
	return history_end(h, set_artifact_in_txn(h, run, name, content));
}
