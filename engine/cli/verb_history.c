/* verb_history.c: `history`, `history show RUN`, `export`, `mirror` and
 * `analyze`: what cx5prof remembers, and its TaoToken mirror.
 *
 * Owns: the presentation of the history (human and JSON through output.h,
 * keys in schemas/history.schema.json), the export bundle's layout, and the
 * one report of a mirror failure (object + cause + remedy) with its exit
 * code. Must never: print, store or export the API key (only its
 * fingerprint appears, inside messages), change the host, or write to the
 * database from history/compare/export (they open it read-only). */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>

#include "base/log.h"
#include "base/output.h"
#include "campaign/bundle.h"
#include "ledger/ledger.h"
#include "mirror/mirror.h"
#include "os/procsys.h"
#include "plan.h"
#include "profile.h"
#include "store/campaigns.h"
#include "store/timeline.h"
#include "store/history.h"
#include "store/metrics_prom.h"
#include "store/outbox.h"
#include "store/runs.h"
#include "verbkit.h"
#include "verbs.h"

#define ANALYZE_MAX_TOKENS   200
#define ANALYZE_EVIDENCE_MAX 6000 /* bytes per artifact in the question */
#define ARTIFACT_ANALYSIS    "analysis.json"

enum {
	OPT_LIMIT = 3000,
	OPT_DIR,
	OPT_CONFIG,
	OPT_PROFILE,
	OPT_NOW,
	OPT_LIST,
	OPT_TIMEOUT,
	OPT_FORMAT,
	OPT_RETRY_FAILED,
};

const struct cli_option history_options[] = {
    {"limit", CLI_ARG_REQUIRED, OPT_LIMIT, "N", "show the newest N entries (default 20; 0: all)"},
    {"format", CLI_ARG_REQUIRED, OPT_FORMAT, "FMT",
     "text (default), or prometheus: node_exporter textfile metrics"},
    {0},
};

const struct cli_option export_options[] = {
    {"dir", CLI_ARG_REQUIRED, OPT_DIR, "DIR", "write the bundle into DIR (created; must be empty)"},
    {0},
};

const struct cli_option mirror_verb_options[] = {
    {"config", CLI_ARG_REQUIRED, OPT_CONFIG, "FILE",
     "mirror file (default $" MIRROR_CONFIG_ENV ", else " MIRROR_CONFIG_DEFAULT_PATH ")"},
    {"profile", CLI_ARG_REQUIRED, OPT_PROFILE, "FILE", "use this profile's mirror.taotoken section"},
    {"now", CLI_ARG_NONE, OPT_NOW, NULL, "retry failed records now, ignoring the backoff schedule"},
    {"list", CLI_ARG_NONE, OPT_LIST, NULL, "show the outbox; send nothing"},
    {"retry-failed", CLI_ARG_NONE, OPT_RETRY_FAILED, NULL,
     "requeue records set aside as failed_permanent and send them now"},
    {"timeout", CLI_ARG_REQUIRED, OPT_TIMEOUT, "SEC", "total time budget (default 30)"},
    {0},
};

const struct cli_option analyze_options[] = {
    {"config", CLI_ARG_REQUIRED, OPT_CONFIG, "FILE",
     "mirror file (default $" MIRROR_CONFIG_ENV ", else " MIRROR_CONFIG_DEFAULT_PATH ")"},
    {"profile", CLI_ARG_REQUIRED, OPT_PROFILE, "FILE", "use this profile's mirror.taotoken section"},
    {"timeout", CLI_ARG_REQUIRED, OPT_TIMEOUT, "SEC", "wait at most SEC for the answer (default 60)"},
    {0},
};

struct args {
	uint64_t limit;
	const char *dir;
	const char *config;
	const char *profile;
	bool now;
	bool list;
	bool retry_failed;
	uint64_t timeout_s;
	bool prometheus;
};

static int parse_opt(int id, const char *arg, void *userdata)
{
	struct args *a = userdata;

	switch (id) {
	case OPT_LIMIT:
		if (safe_atou64(arg, &a->limit) < 0) {
			log_error(
			    "--limit: '%s' is not a number of entries: give 0 (all) or a positive count",
			    arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_TIMEOUT:
		if (safe_atou64(arg, &a->timeout_s) < 0 || a->timeout_s == 0 || a->timeout_s > 3600) {
			log_error("--timeout: '%s' is not a number of seconds between 1 and 3600", arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_DIR:
		a->dir = arg;
		return 0;
	case OPT_CONFIG:
		a->config = arg;
		return 0;
	case OPT_PROFILE:
		a->profile = arg;
		return 0;
	case OPT_NOW:
		a->now = true;
		return 0;
	case OPT_LIST:
		a->list = true;
		return 0;
	case OPT_RETRY_FAILED:
		a->retry_failed = true;
		a->now = true;
		return 0;
	case OPT_FORMAT:
		if (!streq(arg, "text") && !streq(arg, "prometheus")) {
			log_error("--format: '%s' is not a format (text, prometheus)", arg);
			return EXIT_USAGE;
		}
		a->prometheus = streq(arg, "prometheus");
		return 0;
	}
	return EXIT_USAGE;
}

/* ---- shared ---- */

static int parse_txn_id(const char *s, int64_t *ret)
{
	if (safe_atoi64(s, ret) < 0 || *ret <= 0) {
		log_error("'%s' is not a transaction id (a positive number, as listed by 'cx5prof history')",
			  s);
		return EXIT_USAGE;
	}
	return 0;
}

static const char *fmt_time(int64_t usec, char buf[static 32])
{
	time_t t = (time_t)(usec / 1000000);
	struct tm tm;

	if (usec <= 0 || !localtime_r(&t, &tm) || strftime(buf, 32, "%Y-%m-%d %H:%M:%S", &tm) == 0)
		return "-";
	return buf;
}

/* ---- history ---- */

/* One undo-log row: JSON always; for people (human) a table line. */
static void print_change(const struct change_record *c, bool human)
{
	_cleanup_free_ char *before = change_value_human(c->kind, c->old_value, c->new_value);
	_cleanup_free_ char *after = change_value_human(c->kind, c->new_value, c->old_value);

	out_open_object(NULL);
	out_int(OUT_JSON, "seq", NULL, c->seq);
	out_string(OUT_JSON, "object", NULL, c->object);
	out_string(OUT_JSON, "kind", NULL, c->kind);
	out_string(OUT_JSON, "key", NULL, c->key);
	out_string(OUT_JSON, "old", NULL, c->old_value);
	out_string(OUT_JSON, "new", NULL, c->new_value);
	out_string(OUT_JSON, "state", NULL, change_state_to_string(c->state));
	out_string(OUT_JSON, "error", NULL, c->error);
	if (human) {
		out_text("  %-4d %-16s %-28s %s -> %s  %s", c->seq, c->object, c->key,
			 before ? before : strna(c->old_value), after ? after : strna(c->new_value),
			 change_state_to_string(c->state));
		if (c->error)
			out_text(": %s", c->error);
		out_text("\n");
	}
	out_close_object();
}

/* "undid txn 4 (37 changes)": a rollback row says what it undid and how
 * much of it was restored (its own changes in state applied). */
static void print_undid(const struct txn_record *t, const struct change_record *c, size_t n)
{
	size_t restored = 0;

	for (size_t i = 0; i < n; i++)
		restored += c[i].state == CHANGE_APPLIED;
	out_text("undid txn %" PRId64 " (", t->rolls_back_txn);
	if (restored == n)
		out_text("%zu change%s) ", n, n == 1 ? "" : "s");
	else
		out_text("%zu of %zu changes restored) ", restored, n);
}

/* The start of a list entry that may be unfinished (ended 0: null). */
static void print_entry_head(const char *type, const char *label, int64_t id, int64_t started, int64_t ended)
{
	char tb[32];

	out_string(OUT_JSON, "type", NULL, type);
	out_int(OUT_JSON, "id", NULL, id);
	out_string(OUT_HUMAN, NULL, "%-19s  ", fmt_time(started, tb));
	out_text("%s %-5" PRId64 " ", label, id);
	out_int(OUT_JSON, "started_usec", NULL, started);
	if (ended)
		out_int(OUT_JSON, "ended_usec", NULL, ended);
	else
		out_string(OUT_JSON, "ended_usec", NULL, NULL);
}

static int print_txn_entry(struct history *h, const struct txn_record *t)
{
	struct change_record *c = NULL;
	size_t n = 0;
	int r = history_changes_load(h, t->id, &c, &n);

	if (r < 0)
		return r;
	print_entry_head("transaction", "txn", t->id, t->started_usec, t->ended_usec);
	out_string(OUT_ANY, "kind", "%-8s ", txn_kind_to_string(t->kind));
	out_string(OUT_JSON, "profile", NULL, t->profile_name);
	if (t->kind == TXN_ROLLBACK && t->rolls_back_txn)
		print_undid(t, c, n);
	else
		out_string(OUT_HUMAN, NULL, "%s ", t->profile_name);
	if (t->rolls_back_txn)
		out_int(OUT_JSON, "rolls_back", NULL, t->rolls_back_txn);
	else
		out_string(OUT_JSON, "rolls_back", NULL, NULL);
	out_string(OUT_ANY, "status", "%s", txn_status_to_string(t->status));
	out_string(OUT_JSON, "user", NULL, t->user);
	out_string(OUT_JSON, "error", NULL, t->error);
	if (t->error)
		out_text(": %s", t->error);
	out_text("\n");
	out_open_array("changes");
	for (size_t i = 0; i < n; i++)
		print_change(&c[i], false);
	out_close_array();
	change_records_free(c, n);
	return 0;
}

/* A count that is 0 when unknown: JSON null, "-" for people (fmt has %s). */
static void out_opt_uint(const char *key, const char *fmt, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	out_string(OUT_HUMAN, NULL, fmt, v ? buf : NULL);
	if (v)
		out_uint(OUT_JSON, key, NULL, v);
	else
		out_json(key, NULL);
}

static void print_run_summary(const struct run_record *r)
{
	char tb[32];

	out_string(OUT_JSON, "type", NULL, "run");
	out_int(OUT_JSON, "id", NULL, r->id);
	out_string(OUT_HUMAN, NULL, "%-19s  ", fmt_time(r->started_usec, tb));
	out_text("run %-5" PRId64 " ", r->id);
	out_int(OUT_JSON, "started_usec", NULL, r->started_usec);
	out_int(OUT_JSON, "ended_usec", NULL, r->ended_usec);
	out_string(OUT_ANY, "runner", "%-8s ", r->runner);
	out_string(OUT_ANY, "profile", "%s ", r->profile);
	out_string(OUT_ANY, "interface", "%s ", r->ifname);
	out_opt_uint("mtu", "mtu %s ", r->mtu);
	out_opt_uint("message_size", "msg %s: ", r->message_size);
	out_double(OUT_ANY, "recv_mbps", "%.1f Mbps, ", r->recv_mbps);
	if (isfinite(r->loss_pct))
		out_double(OUT_ANY, "loss_pct", "loss %.2f%%, ", r->loss_pct);
	else
		out_string(OUT_ANY, "loss_pct", "loss n/a (nothing sent), ", NULL);
	out_bool(OUT_JSON, "pass", NULL, r->passed);
	out_string(OUT_JSON, "outcome", NULL, run_record_outcome(r));
	out_text("%s\n", run_record_outcome_label(r));
}

static void print_campaign_entry(const struct campaign_record *c)
{
	print_entry_head("campaign", "campaign", c->id, c->started_usec, c->ended_usec);
	out_string(OUT_ANY, "name", "%s ", c->name);
	out_string(OUT_ANY, "status", "%s, ", c->status);
	out_int(OUT_ANY, "runs", "%" PRId64 " runs", c->runs);
	out_string(OUT_JSON, "file", NULL, c->file);
	out_string(OUT_JSON, "verdict", NULL, c->verdict);
	if (c->verdict)
		out_text(": %s", c->verdict);
	out_text("\n");
}

static int history_list(struct cli *cli, struct history *h, size_t limit)
{
	_cleanup_(history_timeline_done) struct history_timeline tl = {0};
	int r;

	r = history_timeline_load(h, limit, &tl);
	if (r < 0) {
		log_error_errno(r, "history %s: %m: %s", cli->db_path, history_remedy(r));
		return EXIT_ERROR;
	}
	if (!out_is_json()) { /* for people: stored text without control characters */
		for (size_t i = 0; i < tl.n_txns; i++) {
			str_make_printable(tl.txns[i].profile_name);
			str_make_printable(tl.txns[i].error);
		}
		for (size_t i = 0; i < tl.n_runs; i++) {
			str_make_printable(tl.runs[i].runner);
			str_make_printable(tl.runs[i].profile);
			str_make_printable(tl.runs[i].ifname);
		}
		for (size_t i = 0; i < tl.n_campaigns; i++)
			str_make_printable(tl.campaigns[i].verdict);
	}

	out_open_object(NULL);
	out_open_array("history");
	if (tl.n == 0)
		out_text("no transactions or runs recorded in %s yet\n", cli->db_path);
	for (size_t i = 0; i < tl.n && r >= 0; i++) {
		const struct history_entry *e = &tl.entries[i];

		out_open_object(NULL);
		if (e->txn)
			r = print_txn_entry(h, e->txn);
		else if (e->campaign)
			print_campaign_entry(e->campaign);
		else
			print_run_summary(e->run);
		out_close_object();
	}
	if (r < 0) {
		log_error_errno(r, "history %s: %m: %s", cli->db_path, history_remedy(r));
		return EXIT_ERROR;
	}
	out_close_array();
	out_close_object();
	return out_finish() < 0 ? EXIT_ERROR : EXIT_OK;
}

/* Text from the database or a server for a terminal (str_make_printable);
 * NULL stays NULL; on out of memory, a fixed placeholder. JSON needs no
 * such care: json-c escapes control characters. */
static char *printable(const char *s)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		return strdup("(out of memory)");
	str_make_printable(d);
	return d;
}

static void print_mirror_state(const struct outbox_row *o, bool found)
{
	_cleanup_free_ char *reply_id = printable(o->reply_id), *last_error = printable(o->last_error);

	char tb[32];

	out_open_object("mirror");
	if (!found) {
		out_string(OUT_ANY, "status", "mirror: %s\n", "not queued");
		out_close_object();
		return;
	}
	out_string(OUT_ANY, "status", "mirror: %s", o->status);
	out_int(OUT_ANY, "attempts", ", %" PRId64 " attempt(s)", o->attempts);
	if (o->sent_usec)
		out_string(OUT_HUMAN, NULL, ", sent %s", fmt_time(o->sent_usec, tb));
	out_string(OUT_JSON, "reply_id", NULL, o->reply_id);
	out_string(OUT_HUMAN, NULL, ", reply %s", reply_id);
	out_string(OUT_JSON, "last_error", NULL, o->last_error);
	if (last_error)
		out_text(", last error: %s", last_error);
	out_text("\n");
	out_close_object();
}

/* "n/a" for an unknown (0) count, else the number in buf. */
static const char *opt_u64(uint64_t v, char buf[static 24])
{
	if (!v)
		return "n/a";
	snprintf(buf, 24, "%" PRIu64, v);
	return buf;
}

/* A value that may hold several lines (one command per stream): every
 * line after the first under the first, at the label's width. */
static void print_indented(const char *label, const char *text)
{
	const char *line = text ? text : "n/a";

	out_text("%s", label);
	for (const char *nl; (nl = strchr(line, '\n')) && nl[1]; line = nl + 1)
		out_text("%.*s\n%*s", (int)(nl - line), line, (int)strlen(label), "");
	out_text("%s%s", line, line[0] && line[strlen(line) - 1] == '\n' ? "" : "\n");
}

/* "limited by   receiver socket buffer: ...": the bottleneck of the run's
 * loss ledger (the whole ledger is its loss_ledger artifact). */
static void print_limited_by(const struct run_record *run)
{
	struct json_object *doc = run->ledger ? json_tokener_parse(run->ledger) : NULL;
	_cleanup_free_ char *line = printable(ledger_doc_bottleneck(doc));

	if (line)
		out_text("limited by   %s\n", line);
	json_object_put(doc);
}

static int history_show(struct cli *cli, struct history *h, int64_t id)
{
	_cleanup_(run_record_done) struct run_record run = {0};
	_cleanup_(outbox_row_done) struct outbox_row o = {0};
	char tb[32], n[6][24];
	const char *verdict;
	size_t outcome_len;
	int r, found;

	r = verbkit_load_run(h, id, &run);
	if (r != 0)
		return r;
	found = outbox_find_source(h, "run", id, &o);
	if (found < 0) {
		log_error_errno(found, "history %s: %m: %s", cli->db_path, history_remedy(found));
		return EXIT_ERROR;
	}
	if (out_is_json()) {
		out_open_object(NULL);
		out_json("run", run_record_to_json(&run, true));
		print_mirror_state(&o, found > 0);
		out_close_object();
		return out_finish() < 0 ? EXIT_ERROR : EXIT_OK;
	}
	/* for people: the record's text without control characters */
	{
		char *fields[] = {run.command_line, run.runner,		run.profile,
				  run.profile_hash, run.ifname,		run.peer,
				  run.test,	    run.irq_policy,	run.irq_map,
				  run.driver,	    run.driver_version, run.firmware_version,
				  run.verdict,	    run.peer_driver,	run.peer_driver_version,
				  run.peer_firmware};

		for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
			str_make_printable(fields[i]);
	}
	out_text("run %" PRId64 "  %s", run.id, fmt_time(run.started_usec, tb));
	out_text("  (%.1f s)\n", (double)(run.ended_usec - run.started_usec) / 1e6);
	if (run.transaction_id)
		out_text("transaction  %" PRId64 "\n", run.transaction_id);
	if (run.campaign_id)
		out_text("campaign     %" PRId64 "\n", run.campaign_id);
	out_text("runner       %s\n", strna(run.runner));
	print_indented("command      ", run.command_line);
	out_text("profile      %s%s%s%s\n", strna(run.profile), run.profile_hash ? " (" : "",
		 run.profile_hash ? run.profile_hash : "", run.profile_hash ? ")" : "");
	out_text("interface    %s  peer %s  test %s\n", strna(run.ifname), strna(run.peer), strna(run.test));
	out_text("parameters   mtu %s  message %s  sndbuf %s  rcvbuf %s  streams %s  duration %s\n",
		 opt_u64(run.mtu, n[0]), opt_u64(run.message_size, n[1]), opt_u64(run.send_buffer, n[2]),
		 opt_u64(run.recv_buffer, n[3]), opt_u64(run.streams, n[4]),
		 run.duration_s > 0 ? (snprintf(n[5], sizeof(n[5]), "%.1f s", run.duration_s), n[5]) : "n/a");
	out_text("irq          policy %s  map %s\n", strna(run.irq_policy), strna(run.irq_map));
	out_text("driver       %s %s  firmware %s\n", strna(run.driver), strna(run.driver_version),
		 strna(run.firmware_version));
	if (run_record_artifact(&run, "peer_state.json"))
		out_text("peer state   driver %s %s  firmware %s  mtu %" PRIu64 "  rmem_max %" PRIu64 "\n",
			 strna(run.peer_driver), strna(run.peer_driver_version), strna(run.peer_firmware),
			 run.peer_mtu, run.peer_rmem_max);
	if (isfinite(run.loss_pct))
		snprintf(n[0], sizeof(n[0]), "%.2f%%", run.loss_pct);
	out_text("results      sent %" PRIu64 "  received %" PRIu64 "  lost %" PRIu64 " (%s)\n", run.sent,
		 run.received, run.lost, isfinite(run.loss_pct) ? n[0] : "loss n/a: nothing sent");
	/* The verdict only for what it says beyond the outcome (not "pass:
	 * pass", nor "error: error: ..."). */
	verdict = run.verdict;
	outcome_len = strlen(run_record_outcome(&run));
	if (verdict && strncmp(verdict, run_record_outcome(&run), outcome_len) == 0 &&
	    (verdict[outcome_len] == '\0' || strncmp(verdict + outcome_len, ": ", 2) == 0))
		verdict = verdict[outcome_len] ? verdict + outcome_len + 2 : NULL;
	out_text("             send %.1f Mbps  recv %.1f Mbps  %s%s%s\n", run.send_mbps, run.recv_mbps,
		 run_record_outcome_label(&run), verdict ? ": " : "", verdict ? verdict : "");
	print_limited_by(&run);
	print_mirror_state(&o, found > 0);
	for (size_t i = 0; i < run.n_artifacts; i++) {
		_cleanup_free_ char *c = printable(run.artifacts[i].content);
		size_t len = strlen(c);

		out_text("\n--- %s (%zu bytes) ---\n%s%s", run.artifacts[i].name, len, c,
			 len && c[len - 1] != '\n' ? "\n" : "");
	}
	return out_finish() < 0 ? EXIT_ERROR : EXIT_OK;
}

/* `history show txn N`: one transaction and its undo log. */
static int history_show_txn(struct cli *cli, struct history *h, int64_t id)
{
	_cleanup_(txn_record_done) struct txn_record t = {0};
	_cleanup_(outbox_row_done) struct outbox_row o = {0};
	struct change_record *c = NULL;
	int64_t undone_by = 0;
	size_t n = 0;
	char tb[32], te[32];
	int r, found;

	r = history_txn_get(h, id, &t);
	if (r == -ENOENT) {
		log_error("transaction %" PRId64 " not found in %s: see 'cx5prof history'", id, cli->db_path);
		return EXIT_NOT_FOUND;
	}
	if (r >= 0)
		r = history_changes_load(h, id, &c, &n);
	if (r >= 0 && t.kind == TXN_APPLY)
		r = history_txn_find_rollback_of(h, id, &undone_by);
	found = r < 0 ? r : outbox_find_source(h, "txn", id, &o);
	if (found < 0) {
		change_records_free(c, n);
		log_error_errno(found, "history %s: %m: %s", cli->db_path, history_remedy(found));
		return EXIT_ERROR;
	}
	if (!out_is_json()) { /* for people: stored text without control characters */
		char *fields[] = {t.profile_name, t.user, t.host, t.error, t.peer_undo_pending};

		for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
			str_make_printable(fields[i]);
		for (size_t i = 0; i < n; i++) {
			str_make_printable(c[i].object);
			str_make_printable(c[i].key);
			str_make_printable(c[i].old_value);
			str_make_printable(c[i].new_value);
			str_make_printable(c[i].error);
		}
	}
	out_open_object(NULL);
	out_open_object("transaction");
	out_int(OUT_ANY, "id", "txn %" PRId64, t.id);
	out_string(OUT_ANY, "kind", "  %s", txn_kind_to_string(t.kind));
	out_string(OUT_ANY, "profile", "  %s", t.profile_name);
	out_string(OUT_ANY, "status", "  %s\n", txn_status_to_string(t.status));
	out_int(OUT_JSON, "started_usec", NULL, t.started_usec);
	if (t.ended_usec)
		out_int(OUT_JSON, "ended_usec", NULL, t.ended_usec);
	else
		out_string(OUT_JSON, "ended_usec", NULL, NULL);
	out_text("time         %s -> %s\n", fmt_time(t.started_usec, tb),
		 t.ended_usec ? fmt_time(t.ended_usec, te) : "(not finished)");
	out_string(OUT_ANY, "user", "user         %s", t.user);
	out_string(OUT_ANY, "host", "  host %s\n", t.host);
	out_string(OUT_JSON, "boot_id", NULL, t.boot_id);
	if (t.rolls_back_txn)
		out_int(OUT_ANY, "rolls_back", "undid        txn %" PRId64 "\n", t.rolls_back_txn);
	else
		out_string(OUT_JSON, "rolls_back", NULL, NULL);
	if (undone_by)
		out_int(OUT_ANY, "rolled_back_by", "undone by    txn %" PRId64 "\n", undone_by);
	else
		out_string(OUT_JSON, "rolled_back_by", NULL, NULL);
	out_string(OUT_JSON, "error", NULL, t.error);
	if (t.error)
		out_text("error        %s\n", t.error);
	if (t.peer_txn == HISTORY_PEER_TXN_UNKNOWN) {
		out_string(OUT_JSON, "peer_txn", NULL, NULL);
		out_text("peer         txn unknown (the peer's apply with it was cut short)");
	} else if (t.peer_txn)
		out_int(OUT_ANY, "peer_txn", "peer         txn %" PRId64 " (the peer's, applied with it)",
			t.peer_txn);
	else
		out_string(OUT_JSON, "peer_txn", NULL, NULL);
	out_string(OUT_JSON, "peer_undo_pending", NULL, t.peer_undo_pending);
	if (t.peer_undo_pending)
		out_text("; its rollback is PENDING: %s (`cx5prof rollback` tries again)",
			 t.peer_undo_pending);
	if (t.peer_txn)
		out_text("\n");
	out_text("changes      %zu\n", n);
	if (n)
		out_text("  %-4s %-16s %-28s %s  %s\n", "seq", "object", "key", "old -> new", "state");
	out_open_array("changes");
	for (size_t i = 0; i < n; i++)
		print_change(&c[i], true);
	out_close_array();
	out_close_object();
	print_mirror_state(&o, found > 0);
	out_close_object();
	change_records_free(c, n);
	return out_finish() < 0 ? EXIT_ERROR : EXIT_OK;
}

/* Text exposition format for node_exporter's textfile collector (metrics_prom.h). */
static int history_prometheus(struct cli *cli, struct history *h)
{
	struct run_record *runs = NULL;
	_cleanup_free_ char *text = NULL;
	size_t nr = 0;
	int r;

	r = runs_list(h, 0, &runs, &nr);
	if (r >= 0)
		r = metrics_prom_render(runs, nr, &text);
	run_records_free(runs, nr);
	if (r < 0) {
		log_error_errno(r, "history %s: %m: %s", cli->db_path, history_remedy(r));
		return EXIT_ERROR;
	}
	out_text("%s", text);
	return out_finish() < 0 ? EXIT_ERROR : EXIT_OK;
}

int verb_history(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_history_ struct history *h = NULL;
	struct args a = {.limit = 20};
	bool show_txn = false;
	size_t args_id = 1;
	int64_t id = 0;
	int r;

	r = cli_parse(cli, cli->verb, argc, argv, parse_opt, &a, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	if (args[0] && !streq(args[0], "show")) {
		log_error("history: unknown subcommand '%s' (expected 'show RUN' or 'show txn TXN')",
			  args[0]);
		return EXIT_USAGE;
	}
	if (args[0] && args[1] && (streq(args[1], "txn") || streq(args[1], "run"))) {
		show_txn = streq(args[1], "txn");
		args_id = 2;
	}
	if (args[0] && (!args[args_id] || args[args_id + 1])) {
		log_error("history show: expected exactly one %s", show_txn ? "transaction id" : "run id");
		return EXIT_USAGE;
	}
	if (a.prometheus && (args[0] || out_is_json())) {
		log_error("history: --format prometheus lists the newest runs; "
			  "it takes no 'show' and no --json");
		return EXIT_USAGE;
	}
	if (args[0]) {
		r = show_txn ? parse_txn_id(args[args_id], &id) : verbkit_parse_run_id(args[args_id], &id);
		if (r != 0)
			return r;
	}
	r = txn_verb_open_history(cli, HISTORY_READ_ONLY, &h);
	if (r != 0)
		return r;
	if (show_txn)
		return history_show_txn(cli, h, id);
	if (args[0])
		return history_show(cli, h, id);
	if (a.prometheus)
		return history_prometheus(cli, h);
	return history_list(cli, h, a.limit);
}

/* ---- export ---- */

int verb_export(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_history_ struct history *h = NULL;
	_cleanup_(run_record_done) struct run_record run = {0};
	struct args a = {0};
	int64_t id;
	int r;

	r = cli_parse(cli, cli->verb, argc, argv, parse_opt, &a, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	if (!args[0] || args[1] || !a.dir) {
		log_error("export: expected one run id and --dir DIR");
		return EXIT_USAGE;
	}
	r = verbkit_parse_run_id(args[0], &id);
	if (r == 0)
		r = txn_verb_open_history(cli, HISTORY_READ_ONLY, &h);
	if (r == 0)
		r = verbkit_load_run(h, id, &run);
	if (r != 0)
		return r;
	r = bundle_export(h, &run, a.dir);
	if (r == -ENOTEMPTY) {
		log_error("export: directory %s is not empty: choose a new or empty directory", a.dir);
		return EXIT_CANT_CREATE;
	}
	if (r < 0) {
		log_error_errno(r, "export: cannot write the bundle of run %" PRId64 " to %s: %m", id, a.dir);
		return r == -EACCES || r == -EPERM ? EXIT_PERMISSION : EXIT_ERROR;
	}
	out_open_object(NULL);
	out_int(OUT_ANY, "run", "exported run %" PRId64, id);
	out_string(OUT_ANY, "dir", " to %s\n", a.dir);
	out_uint(OUT_JSON, "artifacts", NULL, run.n_artifacts);
	out_close_object();
	return out_finish() < 0 ? EXIT_ERROR : EXIT_OK;
}

/* ---- mirror configuration for the verbs ---- */

struct mirror_source {
	struct mirror_config file;
	struct profile *profile;
	char *label;
	struct taotoken_config cfg;
};

static void mirror_source_done(struct mirror_source *m)
{
	mirror_config_done(&m->file);
	profile_free(m->profile);
	free(m->label);
}

static int mirror_source_load(const struct args *a, struct mirror_source *m)
{
	struct profile_error perr = {0};
	const char *path;
	int r;

	if (a->profile) {
		r = profile_load(a->profile, &m->profile, &perr);
		if (r >= 0 && !m->profile->mirror.present) {
			log_error("%s: no mirror.taotoken section: add base_url, api_key_file and model_id",
				  a->profile);
			return EXIT_INVALID;
		}
		m->label = strprintf("%s mirror.taotoken", a->profile);
		if (r >= 0 && m->label)
			taotoken_config_from_mirror(&m->profile->mirror, m->label, &m->cfg);
	} else {
		path = mirror_config_path(a->config);
		r = mirror_config_resolve(path, &m->file, &m->cfg, &perr);
		if (r == -ENOENT) {
			log_error(
			    "mirror config %s does not exist: create it (taotoken: base_url, api_key_file, "
			    "model_id), or name one with --config or $" MIRROR_CONFIG_ENV,
			    path);
			return EXIT_NOT_FOUND;
		}
	}
	if (r < 0) {
		_cleanup_free_ char *msg = profile_error_format(&perr);

		log_error("%s", msg ? msg : perr.message);
		return profile_load_exit_code(r);
	}
	return 0;
}

/* The exit code of a mirror failure, by kind (a key that cannot be read:
 * by cause). */
static int exit_code_of(enum taotoken_error_kind k, int r)
{
	static const int map[_TT_KIND_MAX] = {
	    [TT_OK] = EXIT_OK,
	    [TT_CONFIG] = EXIT_INVALID,
	    [TT_KEY] = EXIT_PERMISSION,
	    [TT_KEY_REJECTED] = EXIT_PERMISSION,
	    [TT_NOT_FOUND] = EXIT_NOT_FOUND,
	    [TT_QUOTA] = EXIT_ERROR,
	    [TT_RATE_LIMITED] = EXIT_ERROR,
	    [TT_SERVER] = EXIT_ERROR,
	    [TT_TIMEOUT] = EXIT_ERROR,
	    [TT_PROXY] = EXIT_ERROR,
	    [TT_CONNECT] = EXIT_ERROR,
	    [TT_TLS] = EXIT_ERROR,
	    [TT_CHOICES] = EXIT_INVALID,
	    [TT_HTTP] = EXIT_ERROR,
	};
	if (k == TT_KEY)
		return r == -EACCES || r == -EPERM ? EXIT_PERMISSION
		       : r == -ENOENT		   ? EXIT_NOT_FOUND
						   : EXIT_INVALID;
	return k < _TT_KIND_MAX ? map[k] : EXIT_ERROR;
}

/* ---- mirror ---- */

static int mirror_list(struct cli *cli, struct history *h)
{
	struct outbox_row *rows = NULL;
	size_t n = 0;
	int r;

	r = outbox_list(h, false, &rows, &n);
	if (r < 0) {
		log_error_errno(r, "history %s: %m: %s", cli->db_path, history_remedy(r));
		return EXIT_ERROR;
	}
	out_open_object(NULL);
	out_open_array("outbox");
	for (size_t i = 0; i < n; i++) {
		const struct outbox_row *o = &rows[i];
		_cleanup_free_ char *reply_id = printable(o->reply_id),
				    *last_error = printable(o->last_error);

		out_open_object(NULL);
		out_int(OUT_ANY, "id", "%" PRId64, o->id);
		out_string(OUT_ANY, "source_kind", " %s", o->source_kind);
		out_int(OUT_ANY, "source_id", " %" PRId64, o->source_id);
		out_string(OUT_ANY, "status", " %s", o->status);
		out_int(OUT_ANY, "attempts", " attempts=%" PRId64, o->attempts);
		out_int(OUT_JSON, "next_attempt_usec", NULL, o->next_attempt_usec);
		out_string(OUT_JSON, "reply_id", NULL, o->reply_id);
		out_string(OUT_HUMAN, NULL, " reply=%s", reply_id);
		out_string(OUT_JSON, "reply_content", NULL, o->reply_content);
		out_string(OUT_JSON, "reply_usage", NULL, o->reply_usage);
		out_string(OUT_JSON, "last_error", NULL, o->last_error);
		out_string(OUT_HUMAN, NULL, " error=%s", last_error);
		out_text("\n");
		out_close_object();
	}
	out_close_array();
	out_close_object();
	outbox_rows_free(rows, n);
	return out_finish() < 0 ? EXIT_ERROR : EXIT_OK;
}

int verb_mirror(struct cli *cli, int argc, char **argv)
{
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_history_ struct history *h = NULL;
	_cleanup_(mirror_source_done) struct mirror_source m = {0};
	struct args a = {.timeout_s = 30};
	struct mirror_options o;
	struct mirror_result res;
	int r;

	r = cli_parse(cli, cli->verb, argc, argv, parse_opt, &a, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	if (args[0]) {
		log_error("mirror: unexpected argument '%s'", args[0]);
		return EXIT_USAGE;
	}
	r = txn_verb_open_history(cli, a.list ? HISTORY_READ_ONLY : HISTORY_EXISTING,
				  &h); /* --list only reads: a read-only history will do */
	if (r != 0)
		return r;
	if (a.list)
		return mirror_list(cli, h);
	r = mirror_source_load(&a, &m);
	if (r != 0)
		return r;
	if (a.retry_failed) {
		size_t n = 0;

		r = outbox_requeue_failed(h, &n);
		if (r < 0) {
			log_error_errno(r, "history %s: %m: %s", cli->db_path, history_remedy(r));
			return EXIT_ERROR;
		}
		log_debug("mirror: %zu failed_permanent record(s) requeued", n);
	}
	o = (struct mirror_options){.budget_ms = (long)a.timeout_s * 1000,
				    .request_timeout_ms =
					(long)a.timeout_s * 1000 < 20000 ? (long)a.timeout_s * 1000 : 20000,
				    .force = a.now};
	r = mirror_drain(h, &m.cfg, &o, &res);
	if (r < 0 && res.error.kind == TT_OK) {
		log_error_errno(r, "history %s: %m: %s", cli->db_path, history_remedy(r));
		return EXIT_ERROR;
	}
	if (r < 0)
		log_error("mirror: %s", res.error.message);
	out_open_object(NULL);
	out_uint(OUT_ANY, "sent", "sent %" PRIu64, res.sent);
	out_uint(OUT_ANY, "pending", ", pending %" PRIu64, res.pending);
	if (res.failed)
		out_uint(OUT_ANY, "failed", ", failed %" PRIu64, res.failed);
	else
		out_uint(OUT_JSON, "failed", NULL, 0);
	out_string(OUT_JSON, "error", NULL, r < 0 ? res.error.message : NULL);
	out_string(OUT_JSON, "error_kind", NULL,
		   r < 0 ? taotoken_error_kind_to_string(res.error.kind) : NULL);
	if (!res.pending || !res.next_attempt_usec)
		out_string(OUT_JSON, "next_attempt_s", NULL, NULL);
	else if (res.next_attempt_usec == MIRROR_NEVER) {
		out_string(OUT_JSON, "next_attempt_s", NULL, NULL);
		out_text(", next attempt only with 'cx5prof mirror --now'");
	} else {
		int64_t now = history_now_usec(), wait_s;

		wait_s = res.next_attempt_usec > now ? (res.next_attempt_usec - now + 999999) / 1000000 : 0;
		out_int(OUT_ANY, "next_attempt_s", ", next attempt in %" PRId64 " s", wait_s);
	}
	out_text("\n");
	out_close_object();
	if (out_finish() < 0)
		return EXIT_ERROR;
	if (r < 0)
		return exit_code_of(res.error.kind, r);
	if (res.out_of_time) {
		log_warn("mirror: time budget of %" PRIu64
			 " s used up; %zu record(s) still pending: run 'cx5prof "
			 "mirror' again",
			 a.timeout_s, res.pending);
	}
	return EXIT_OK;
}

/* ---- analyze ---- */

static const char *const analyze_evidence[] = {
    "command",		 "runner_output",    "ethtool_i", "counters_before", "counters_after",
    "interrupts_before", "interrupts_after", "softirq",	  "irq_map",	     "loss_ledger",
};

static char *analyze_question(const struct run_record *run)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json_object *j = run_record_to_json(run, false);

	if (!f || !j) {
		if (f)
			fclose(f);
		json_object_put(j);
		return NULL;
	}
	fprintf(f, "UDP benchmark round (cx5prof run %" PRId64 "):\n%s\n", run->id,
		json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	json_object_put(j);
	for (size_t i = 0; i < ARRAY_SIZE(analyze_evidence); i++) {
		const struct run_artifact *a = run_record_artifact(run, analyze_evidence[i]);
		size_t n;

		if (!a)
			continue;
		n = strlen(a->content);
		fprintf(f, "\n--- %s%s ---\n%.*s\n", a->name, n > ANALYZE_EVIDENCE_MAX ? " (truncated)" : "",
			(int)(n > ANALYZE_EVIDENCE_MAX ? ANALYZE_EVIDENCE_MAX : n), a->content);
	}
	if (fclose(f) != 0)
		return NULL;
	return TAKE_PTR(buf);
}

static const char *const bottleneck_words[] = {"sender", "receiver", "unclear"};

/* The bottleneck word s starts with (case-insensitive, a whole word), or NULL. */
static const char *bottleneck_word_at(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(bottleneck_words); i++) {
		size_t n = strlen(bottleneck_words[i]);

		if (strncasecmp(s, bottleneck_words[i], n) == 0 && !isalpha((unsigned char)s[n]))
			return bottleneck_words[i];
	}
	return NULL;
}

/* SENDER / RECEIVER / UNCLEAR, however the model put it: its first word
 * (as asked), else "the bottleneck is [the] X" / "bottleneck: X" / "X is
 * the bottleneck", else the one of sender and receiver the answer names
 * alone; NULL when it names both or neither. */
static const char *bottleneck_of(const char *answer)
{
	const char *found = NULL, *w;

	while (*answer == ' ' || *answer == '*' || *answer == '\n')
		answer++;
	w = bottleneck_word_at(answer);
	if (w)
		return w;
	for (const char *p = strcasestr(answer, "bottleneck"); p; p = strcasestr(p + 1, "bottleneck")) {
		p += strlen("bottleneck");
		p += strspn(p, " :*");
		if (strncasecmp(p, "is ", 3) == 0 || strncasecmp(p, "was ", 4) == 0)
			p = strchr(p, ' ') + 1;
		if (strncasecmp(p, "the ", 4) == 0)
			p += 4;
		p += strspn(p, "*");
		w = bottleneck_word_at(p);
		if (w)
			return w;
	}
	for (const char *p = answer; *p; p++) {
		if (p > answer && isalpha((unsigned char)p[-1]))
			continue;
		w = bottleneck_word_at(p);
		if (!w || w == bottleneck_words[2])
			continue;
		if (strncasecmp(p + strlen(w), " is the bottleneck", 18) == 0)
			return w;
		if (found && found != w)
			return NULL;
		found = w;
	}
	return found;
}

int verb_analyze(struct cli *cli, int argc, char **argv)
{
	static const char system_prompt[] =
	    "You are a Linux network performance engineer. Given a UDP_STREAM benchmark round between two "
	    "hosts with Mellanox ConnectX-5 NICs (parameters, results, drop counters, /proc/interrupts), "
	    "say whether the bottleneck is the SENDER or the RECEIVER. Start with exactly one word: SENDER, "
	    "RECEIVER or UNCLEAR; then at most three short sentences citing the evidence.";
	_cleanup_strv_free_ char **args = NULL;
	_cleanup_history_ struct history *h = NULL;
	_cleanup_(mirror_source_done) struct mirror_source m = {0};
	_cleanup_(run_record_done) struct run_record run = {0};
	_cleanup_free_ char *question = NULL, *stored = NULL;
	_cleanup_key_ char *key = NULL;
	struct taotoken_reply rep = {0};
	struct taotoken_error err = {0};
	struct json_object *j;
	struct args a = {.timeout_s = 60};
	const char *bottleneck;
	int64_t id;
	int r;

	r = cli_parse(cli, cli->verb, argc, argv, parse_opt, &a, &args);
	if (r != 0)
		return r < 0 ? EXIT_OK : r;
	if (!args[0] || args[1]) {
		log_error("analyze: expected exactly one run id");
		return EXIT_USAGE;
	}
	r = verbkit_parse_run_id(args[0], &id);
	if (r == 0)
		r = txn_verb_open_history(cli, HISTORY_EXISTING, &h);
	if (r == 0)
		r = verbkit_load_run(h, id, &run);
	if (r == 0)
		r = mirror_source_load(&a, &m);
	if (r != 0)
		return r;
	r = taotoken_config_check(&m.cfg, &err);
	if (r >= 0)
		r = taotoken_key_load(&m.cfg, &key, &err);
	if (r < 0) {
		log_error("analyze: %s", err.message);
		return exit_code_of(err.kind, r);
	}
	question = analyze_question(&run);
	if (!question)
		return log_error("out of memory"), EXIT_ERROR;
	r = taotoken_chat(&m.cfg, key, system_prompt, question, ANALYZE_MAX_TOKENS, (long)a.timeout_s * 1000,
			  &rep, &err);
	if (r < 0) {
		log_error("analyze run %" PRId64 ": %s", id, err.message);
		return exit_code_of(err.kind, r);
	}
	bottleneck = bottleneck_of(rep.content);
	j = json_object_new_object();
	if (j) {
		json_object_object_add(j, "model", json_object_new_string(m.cfg.model_id));
		json_object_object_add(j, "reply_id", rep.id ? json_object_new_string(rep.id) : NULL);
		json_object_object_add(j, "bottleneck",
				       bottleneck ? json_object_new_string(bottleneck) : NULL);
		json_object_object_add(j, "answer", json_object_new_string(rep.content));
		json_object_object_add(j, "usage", rep.usage ? json_tokener_parse(rep.usage) : NULL);
		stored = strdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
								      JSON_C_TO_STRING_NOSLASHESCAPE));
	}
	if (!stored) {
		json_object_put(j);
		taotoken_reply_done(&rep);
		return log_error("out of memory"), EXIT_ERROR;
	}
	r = runs_set_artifact(h, id, ARTIFACT_ANALYSIS, stored);
	if (r < 0) {
		log_error_errno(r, "history %s: cannot store the analysis of run %" PRId64 ": %m: %s",
				cli->db_path, id, history_remedy(r));
		json_object_put(j);
		taotoken_reply_done(&rep);
		return EXIT_ERROR;
	}
	out_open_object(NULL);
	out_int(OUT_ANY, "run", "run %" PRId64, id);
	out_string(OUT_ANY, "bottleneck", ": bottleneck %s\n", bottleneck);
	out_string(OUT_JSON, "answer", NULL, rep.content);
	if (!out_is_json()) {
		_cleanup_free_ char *answer = printable(rep.content);

		out_text("%s\n", answer);
	}
	out_string(OUT_JSON, "model", NULL, m.cfg.model_id);
	out_string(OUT_JSON, "reply_id", NULL, rep.id);
	{
		struct json_object *u = NULL;
		json_object_object_get_ex(j, "usage", &u);
		out_json("usage", json_object_get(u));
	}
	out_close_object();
	json_object_put(j);
	taotoken_reply_done(&rep);
	r = out_finish() < 0 ? EXIT_ERROR : EXIT_OK;
	/* Opportunistic: send what the outbox has due, within a short budget. */
	{
		struct mirror_options mo = {.budget_ms = MIRROR_OPPORTUNISTIC_BUDGET_MS,
					    .request_timeout_ms = 2000};
		struct mirror_result mr;

		(void)mirror_drain(h, &m.cfg, &mo, &mr);
	}
	return r;
}
