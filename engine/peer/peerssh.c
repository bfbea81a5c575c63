/* peerssh.c: the peer's cx5prof through the operator's OpenSSH (see
 * peerssh.h).
 *
 * Owns: building the ssh argv, feeding the flattened profile through a
 * memfd as stdin, and reading the peer's exit code and JSON answer; the
 * intent recorded before the peer's apply starts, and finding the
 * unfinished transaction an apply cut short left there. The
 * peer's diagnostics reach the operator's stderr as they are. Must never:
 * add options that weaken ssh (StrictHostKeyChecking, password prompts),
 * or wait without a deadline. */
#define _GNU_SOURCE
#include "peerssh.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/child.h"
#include "base/exitcode.h"
#include "profile.h"
#include "store/history.h"

/* How long the peer may take beyond its confirm window: planning and the
 * changes themselves, and the ssh connection. */
#define PEERSSH_SLACK_USEC (60 * 1000000ull)

/* A peer that accepts TCP but never speaks SSH, or goes silent mid-way,
 * fails within these instead of the whole slack: ConnectTimeout bounds the
 * connection and the server's banner, ServerAlive the silence after. */
#define PEERSSH_CONNECT_TIMEOUT_S "10"
#define PEERSSH_ALIVE_INTERVAL_S  "5"
#define PEERSSH_ALIVE_COUNT	  "3"

static bool allow_commands;

void peerssh_allow_commands(bool allow)
{
	allow_commands = allow;
}

/* Keywords of an ssh_config that run code on this host, as root here:
 * refused unless --allow-ssh-commands, with why. Include brings in files
 * this check does not read; XAuthLocation runs its program when X11 is
 * forwarded. */
static const struct {
	const char *keyword;
	const char *why;
} command_keywords[] = {
    {"ProxyCommand", "runs a command on this host"},
    {"LocalCommand", "runs a command on this host"},
    {"PermitLocalCommand", "runs a command on this host"},
    {"KnownHostsCommand", "runs a command on this host"},
    {"XAuthLocation", "runs a program on this host"},
    {"PKCS11Provider", "loads a library into ssh on this host"},
    {"SecurityKeyProvider", "loads a library into ssh on this host"},
    {"Include", "reads files not checked here"},
};

/* "Match ... exec ..." runs its command too. */
static bool match_exec(const char *rest)
{
	_cleanup_free_ char *copy = strdup(rest);
	char *save = NULL;

	if (!copy)
		return true;
	for (char *w = strtok_r(copy, " \t=,", &save); w; w = strtok_r(NULL, " \t=,", &save))
		if (strcasecmp(w, "exec") == 0 || strcasecmp(w, "!exec") == 0)
			return true;
	return false;
}

/* The file's owner and mode, as OpenSSH requires of its own configs. */
static int config_owner_ok(int fd, const char *path, char **ret_error)
{
	const char *sudo_uid = getenv("SUDO_UID");
	uint32_t invoker = 0;
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode)) {
		*ret_error = strprintf("peer.ssh_config %s: not a regular file", path);
		return -EINVAL;
	}
	if (!sudo_uid || safe_atou32(sudo_uid, &invoker) < 0)
		invoker = (uint32_t)getuid();
	if (st.st_uid != 0 && st.st_uid != getuid() && st.st_uid != invoker) {
		*ret_error = strprintf("peer.ssh_config %s: owned by uid %u, not by root or the invoking "
				       "user: refused (ssh would run what it says as this user)",
				       path, (unsigned)st.st_uid);
		return -EPERM;
	}
	if (st.st_mode & 022) {
		*ret_error = strprintf("peer.ssh_config %s: writable by %s (mode %04o): refused, as OpenSSH "
				       "refuses such a config; chmod go-w %s",
				       path, st.st_mode & 020 ? "its group" : "others",
				       (unsigned)(st.st_mode & 07777), path);
		return -EPERM;
	}
	return 0;
}

int peerssh_check_config(const struct profile *p, char **ret_error)
{
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *line = NULL;
	const char *path;
	size_t cap = 0;
	unsigned no = 0;
	int r;

	*ret_error = NULL;
	if (!p->peer.ssh_config.set)
		return 0;
	path = p->peer.ssh_config.value;
	f = fopen(path, "re");
	if (!f) {
		r = -errno;
		*ret_error = strprintf("peer.ssh_config %s: %s", path, strerror(-r));
		return r;
	}
	r = config_owner_ok(fileno(f), path, ret_error);
	if (r < 0 || allow_commands)
		return r;
	while (getline(&line, &cap, f) > 0) {
		const char *k = line + strspn(line, " \t");
		size_t n = strcspn(k, " \t=\r\n");

		no++;
		if (*k == '#' || n == 0)
			continue;
		for (size_t c = 0; c < ARRAY_SIZE(command_keywords); c++)
			if (strlen(command_keywords[c].keyword) == n &&
			    strncasecmp(k, command_keywords[c].keyword, n) == 0) {
				*ret_error =
				    strprintf("peer.ssh_config %s:%u: %s %s: refused (pass "
					      "--allow-ssh-commands to allow it)",
					      path, no, command_keywords[c].keyword, command_keywords[c].why);
				return -EINVAL;
			}
		if (n == 5 && strncasecmp(k, "Match", 5) == 0 && match_exec(k + 5)) {
			*ret_error =
			    strprintf("peer.ssh_config %s:%u: Match exec runs a command on this host: "
				      "refused (pass --allow-ssh-commands to allow it)",
				      path, no);
			return -EINVAL;
		}
	}
	return 0;
}

bool peerssh_wanted(const struct profile *p)
{
	return p && p->peer.ssh.set;
}

const char *peerssh_target(const struct profile *p)
{
	return p->peer.ssh.value;
}

unsigned peerssh_confirm_seconds(const struct profile *p)
{
	return p->peer.confirm.set ? (unsigned)p->peer.confirm.value : PEERSSH_CONFIRM_DEFAULT;
}

/* ssh -o BatchMode=yes -o StrictHostKeyChecking=yes [-F CONFIG] -- TARGET
 * COMMAND ARGS...: options on the command line win over any ssh_config,
 * so a "StrictHostKeyChecking no" or "accept-new" there cannot let an
 * unknown host key through. */
static int ssh_argv(const struct profile *p, char *const *args, char ***ret)
{
	_cleanup_strv_free_ char **v = NULL;
	int r = 0;

	r |= strv_extend(&v, "ssh");
	r |= strv_extend(&v, "-o");
	r |= strv_extend(&v, "BatchMode=yes");
	r |= strv_extend(&v, "-o");
	r |= strv_extend(&v, "StrictHostKeyChecking=yes");
	r |= strv_extend(&v, "-o");
	r |= strv_extend(&v, "ConnectTimeout=" PEERSSH_CONNECT_TIMEOUT_S);
	r |= strv_extend(&v, "-o");
	r |= strv_extend(&v, "ServerAliveInterval=" PEERSSH_ALIVE_INTERVAL_S);
	r |= strv_extend(&v, "-o");
	r |= strv_extend(&v, "ServerAliveCountMax=" PEERSSH_ALIVE_COUNT);
	if (p->peer.ssh_config.set) {
		r |= strv_extend(&v, "-F");
		r |= strv_extend(&v, p->peer.ssh_config.value);
	}
	r |= strv_extend(&v, "--");
	r |= strv_extend(&v, p->peer.ssh.value);
	r |= strv_extend(&v, p->peer.command.set ? p->peer.command.value : "cx5prof");
	for (char *const *a = args; *a; a++)
		r |= strv_extend(&v, *a);
	if (r < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(v);
	return 0;
}

/* The profile as the peer applies it: effective (extends resolved here),
 * without the peer section. */
static int flattened(const struct profile *p, int *ret_fd)
{
	_cleanup_close_ int fd = -1;
	struct json_object *o = NULL;
	const char *text;
	size_t len;
	int r;

	r = profile_to_json(p, &o);
	if (r < 0)
		return r;
	json_object_object_del(o, "peer");
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY);
	fd = memfd_create("cx5prof-peer-profile", MFD_CLOEXEC);
	len = text ? strlen(text) : 0;
	if (!text)
		r = -ENOMEM;
	else if (fd < 0)
		r = -errno;
	else if (write(fd, text, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET) < 0)
		r = -EIO;
	json_object_put(o);
	if (r < 0)
		return r;
	*ret_fd = TAKE_FD(fd);
	return 0;
}

/* The peer's JSON answer: its whole stdout, one JSON object and nothing
 * else. A login that prints (a .bashrc or motd line before the document)
 * makes the answer unreadable: NULL. */
static struct json_object *reply_parse(const char *out)
{
	struct json_tokener *tok;
	struct json_object *doc;
	size_t len = out ? strlen(out) : 0;

	if (!out)
		return NULL;
	tok = json_tokener_new();
	if (!tok)
		return NULL;
	doc = json_tokener_parse_ex(tok, out, (int)len);
	if (doc && (json_tokener_get_error(tok) != json_tokener_success ||
		    strspn(out + json_tokener_get_parse_end(tok), " \t\r\n") !=
			len - json_tokener_get_parse_end(tok) ||
		    !json_object_is_type(doc, json_type_object))) {
		json_object_put(doc);
		doc = NULL;
	}
	json_tokener_free(tok);
	return doc;
}

/* The transaction an unreadable apply answer names: its last line that
 * opens a JSON object holding "txn" (the document cx5prof prints after
 * whatever the login printed). 0 when there is none: only the peer's
 * --confirm watchdog then undoes what it changed. */
static int64_t reply_salvage_txn(const char *out)
{
	int64_t txn = 0;

	for (const char *l = out; l && *l;) {
		const char *nl = strchr(l, '\n');
		struct json_object *doc, *v;

		if (*l == '{') {
			doc = json_tokener_parse(l);
			if (doc && json_object_object_get_ex(doc, "txn", &v) &&
			    json_object_is_type(v, json_type_int))
				txn = json_object_get_int64(v);
			json_object_put(doc);
		}
		l = nl ? nl + 1 : NULL;
	}
	return txn;
}

/* "'Welcome to peer...'": the start of an unreadable answer, one line. */
static char *reply_excerpt(const char *out)
{
	size_t n = out ? strcspn(out, "\n") : 0;

	return strprintf("'%.*s%s'", (int)(n > 60 ? 60 : n), out ? out : "", n > 60 ? "..." : "");
}

/* Run the peer's cx5prof with args, until it ends, timeout_usec passes or
 * stop (may be NULL) returns a signal; *ret_doc: its stdout as JSON (NULL
 * when it is not); *ret_out (may be NULL): its stdout as it came. 0, or
 * -errno with *ret_error. */
static int run_peer(const struct profile *p, char *const *args, int stdin_fd, uint64_t timeout_usec,
		    int (*stop)(void), struct json_object **ret_doc, char **ret_out, char **ret_error)
{
	_cleanup_strv_free_ char **argv = NULL;
	/* The apply's ssh ignores a signal sent to the whole process group
	 * (Ctrl-C, `kill -- -PGID`): only stop() ends it, so that the
	 * peer's answer, and the transaction it names, is not lost to a
	 * signal this host is still handling. */
	struct child_options o = {
	    .stderr_keep = true, .stdin_fd = stdin_fd, .ignore_stop_signals = streq(args[0], "apply")};
	struct child c = {.pid = 0, .out_fd = -1};
	int r;

	*ret_error = NULL;
	*ret_doc = NULL;
	r = peerssh_check_config(p, ret_error);
	if (r < 0)
		return r;
	r = ssh_argv(p, args, &argv);
	if (r < 0)
		return r;
	r = child_spawn("ssh", argv, &o, &c);
	if (r >= 0)
		r = child_wait_until(&c, 1, now_usec() + timeout_usec, stop);
	if (r < 0) {
		*ret_error = strprintf("peer %s: cannot run ssh: %s", p->peer.ssh.value, strerror(-r));
		child_done(&c);
		return r;
	}
	*ret_doc = reply_parse(c.output);
	if (stop && stop()) {
		r = -EINTR;
		*ret_error =
		    strprintf("peer %s: `cx5prof %s` interrupted by SIG%s: ssh ended", p->peer.ssh.value,
			      args[0], sigabbrev_np(stop()) ? sigabbrev_np(stop()) : "?");
	} else if (c.timed_out) {
		r = -ETIMEDOUT;
		*ret_error = strprintf("peer %s: `cx5prof %s` did not finish in %llu s", p->peer.ssh.value,
				       args[0], (unsigned long long)(timeout_usec / 1000000));
	} else if (c.exit_status == 255) {
		r = -EHOSTUNREACH;
		*ret_error =
		    strprintf("peer %s: ssh failed (exit 255): see its message above", p->peer.ssh.value);
	} else if (c.exit_status != 0) {
		r = -EPROTO;
		*ret_error =
		    strprintf("peer %s: `cx5prof %s` exited %d", p->peer.ssh.value, args[0], c.exit_status);
	}
	if (ret_out)
		*ret_out = TAKE_PTR(c.output);
	child_done(&c);
	if (r < 0 && !*ret_error)
		return -ENOMEM;
	return r;
}

/* A fresh origin token: 32 lowercase hex digits from the kernel's
 * random source. */
static int origin_new(char ret[static PEERSSH_ORIGIN_LEN + 1])
{
	uint8_t b[PEERSSH_ORIGIN_LEN / 2];

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
		return -errno ? -errno : -EIO;
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(ret + 2 * i, 3, "%02x", b[i]);
	return 0;
}

int peerssh_apply(const struct profile *p, unsigned confirm_s, const char *origin, int (*stop)(void),
		  int64_t *ret_txn, char **ret_error)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *out = NULL, *excerpt = NULL;
	struct json_object *doc = NULL, *txn, *changed;
	unsigned seconds = confirm_s ? confirm_s : peerssh_confirm_seconds(p);
	char confirm[16];
	off_t sent;
	int r;

	*ret_txn = 0;
	snprintf(confirm, sizeof(confirm), "%u", seconds);
	r = flattened(p, &fd);
	if (r < 0) {
		*ret_error =
		    strprintf("peer %s: cannot prepare the profile: %s", p->peer.ssh.value, strerror(-r));
		return r;
	}
	r = run_peer(p,
		     origin ? (char *[]){"apply", "--confirm", confirm, "--origin", (char *)origin, "--json",
					 "-", NULL}
			    : (char *[]){"apply", "--confirm", confirm, "--json", "-", NULL},
		     fd, (uint64_t)seconds * 1000000 + PEERSSH_SLACK_USEC, stop, &doc, &out, ret_error);
	/* What ssh read of the profile (the memfd's offset is shared with
	 * it): the peer's apply reads its profile from that stdin, so while
	 * ssh has read nothing, nothing can have been applied there. */
	sent = lseek(fd, 0, SEEK_CUR);
	if (doc && json_object_object_get_ex(doc, "txn", &txn) && json_object_is_type(txn, json_type_int))
		*ret_txn = json_object_get_int64(txn);
	else if (r < 0) {
		/* A failed apply names its transaction too (exit 7: not fully
		 * undone there, and no watchdog started): it must be recorded
		 * and rolled back like one that succeeded. With no answer at
		 * all (ssh ended by a signal, its deadline, a dropped
		 * connection) after ssh sent the profile, the peer's apply may
		 * be going on there: unknown. */
		*ret_txn = reply_salvage_txn(out);
		if (*ret_txn == 0 && !doc && sent != 0)
			*ret_txn = HISTORY_PEER_TXN_UNKNOWN;
	} else if (doc && json_object_object_get_ex(doc, "changed", &changed) &&
		   json_object_is_type(changed, json_type_boolean) && !json_object_get_boolean(changed))
		*ret_txn = 0; /* nothing to change there */
	else {
		/* Exit 0 but no answer we can read: what the peer changed is
		 * not known for sure; the step fails. */
		*ret_txn = reply_salvage_txn(out);
		excerpt = reply_excerpt(out);
		*ret_error = strprintf("peer %s: the answer of `cx5prof apply` is not its JSON document "
				       "(a login script or motd printing to stdout?), it begins %s",
				       p->peer.ssh.value, strna(excerpt));
		r = *ret_error ? -EBADMSG : -ENOMEM;
	}
	json_object_put(doc);
	return r;
}

int peerssh_apply_recorded(struct history *h, int64_t txn, const struct profile *p, unsigned confirm_s,
			   int (*interrupted)(void), int (*stop)(void), int64_t *ret_txn, char **ret_error)
{
	char origin[PEERSSH_ORIGIN_LEN + 1] = "";
	int64_t peer_txn = 0;
	int r, q;

	*ret_txn = 0;
	*ret_error = NULL;
	r = origin_new(origin);
	if (r < 0) {
		*ret_error = strprintf("cannot make an origin token for the peer %s's apply: %s; nothing was "
				       "changed there",
				       p->peer.ssh.value, strerror(-r));
		return *ret_error ? r : -ENOMEM;
	}
	/* The intent first, durably, with the token the peer's apply
	 * carries: whatever ends this process from here on, the record of
	 * txn says the peer may have been changed, and `rollback --origin`
	 * there finds that apply (or refuses it, if it has not started). */
	if (txn > 0) {
		q = history_txn_set_peer_intent(h, txn, origin);
		if (q < 0) {
			*ret_error =
			    strprintf("history %s: cannot record with transaction %" PRId64
				      " that the peer %s is being tuned: %s; nothing was changed there",
				      history_path(h), txn, p->peer.ssh.value, strerror(-q));
			return *ret_error ? q : -ENOMEM;
		}
	}
	pause_point("peer-apply-start");
	if (interrupted && interrupted()) {
		r = -EINTR;
		*ret_error = strprintf("interrupted by SIG%s before the peer %s was tuned",
				       sigabbrev_np(interrupted()) ? sigabbrev_np(interrupted()) : "?",
				       p->peer.ssh.value);
	} else
		r = peerssh_apply(p, confirm_s, txn > 0 ? origin : NULL, stop, &peer_txn, ret_error);
	pause_point("peer-apply-answer");
	/* The answer says which transaction, or that there is none; cut
	 * short with no answer after the profile was sent, the intent stays
	 * (HISTORY_PEER_TXN_UNKNOWN). */
	*ret_txn = peer_txn;
	if (txn > 0) {
		/* Before anything commits it, and also when the answer was
		 * unreadable: the rollback of txn must know it. */
		q = history_txn_set_peer_txn(h, txn, peer_txn);
		if (q < 0 && r >= 0) {
			*ret_error = strprintf("history %s: cannot record the peer's transaction %" PRId64
					       " with transaction %" PRId64 ": %s",
					       history_path(h), peer_txn, txn, strerror(-q));
			return q;
		}
	}
	return r;
}

int peerssh_rollback_origin(const struct profile *p, const char *origin, int (*stop)(void), int64_t *ret_txn,
			    bool *ret_changed, char **ret_error)
{
	struct json_object *doc = NULL, *v;
	int r;

	*ret_txn = 0;
	*ret_changed = false;
	r = run_peer(p, (char *[]){"rollback", "--origin", (char *)origin, "--json", NULL}, 0,
		     PEERSSH_SLACK_USEC, stop, &doc, NULL, ret_error);
	if (r == -EPROTO && doc && json_object_object_get_ex(doc, "exit_code", &v) &&
	    json_object_get_int(v) == EXIT_LOCKED) {
		free(*ret_error);
		*ret_error = strprintf("peer %s: another apply or rollback is running there (the apply that "
				       "was cut short, or someone else's): try again when it has ended",
				       p->peer.ssh.value);
		r = *ret_error ? -EBUSY : -ENOMEM;
	}
	if (r >= 0 && doc && json_object_object_get_ex(doc, "origin_txn", &v) &&
	    json_object_is_type(v, json_type_int))
		*ret_txn = json_object_get_int64(v);
	else if (r >= 0 &&
		 !(doc && json_object_object_get_ex(doc, "fenced", &v) && json_object_get_boolean(v))) {
		*ret_error = strprintf("peer %s: the answer of `cx5prof rollback --origin` names no "
				       "transaction and no fence",
				       p->peer.ssh.value);
		r = *ret_error ? -EBADMSG : -ENOMEM;
	}
	if (r >= 0)
		*ret_changed =
		    doc && json_object_object_get_ex(doc, "changed", &v) && json_object_get_boolean(v);
	json_object_put(doc);
	return r;
}

/* Statuses of a transaction the peer has not finished. */
static bool unfinished_status(const char *s)
{
	return s && (streq(s, "open") || streq(s, "pending_confirm") || streq(s, "rollback_failed"));
}

/* How many of the peer's newest history entries are searched. */
#define PEERSSH_HISTORY_ENTRIES "50"

int peerssh_find_unfinished(const struct profile *p, int64_t *ret_txn, char **ret_error)
{
	struct json_object *doc = NULL, *list, *v;
	int64_t found = 0;
	int r;

	r = run_peer(p, (char *[]){"history", "--limit", PEERSSH_HISTORY_ENTRIES, "--json", NULL}, 0,
		     PEERSSH_SLACK_USEC, NULL, &doc, NULL, ret_error);
	if (r >= 0 && (!doc || !json_object_object_get_ex(doc, "history", &list) ||
		       !json_object_is_type(list, json_type_array))) {
		r = -EBADMSG;
		*ret_error = strprintf("peer %s: `cx5prof history` gave no history", p->peer.ssh.value);
	}
	/* The peer refuses an apply while one is unfinished there: an
	 * unfinished apply of this profile is the one that was cut short. */
	for (size_t i = 0; r >= 0 && found == 0 && i < json_object_array_length(list); i++) {
		struct json_object *e = json_object_array_get_idx(list, i), *id, *name;

		if (json_object_object_get_ex(e, "type", &v) &&
		    streq(strempty(json_object_get_string(v)), "transaction") &&
		    json_object_object_get_ex(e, "kind", &v) &&
		    streq(strempty(json_object_get_string(v)), "apply") &&
		    json_object_object_get_ex(e, "status", &v) &&
		    unfinished_status(json_object_get_string(v)) &&
		    json_object_object_get_ex(e, "profile", &name) &&
		    streq(strempty(json_object_get_string(name)), strempty(p->name.value)) &&
		    json_object_object_get_ex(e, "id", &id) && json_object_is_type(id, json_type_int))
			found = json_object_get_int64(id);
	}
	json_object_put(doc);
	if (r < 0)
		return r;
	*ret_txn = found > 0 ? found : 0;
	return 0;
}

int peerssh_commit(const struct profile *p, char **ret_error)
{
	struct json_object *doc = NULL;
	int r = run_peer(p, (char *[]){"commit", "--json", NULL}, 0, PEERSSH_SLACK_USEC, NULL, &doc, NULL,
			 ret_error);

	json_object_put(doc);
	return r;
}

int peerssh_rollback(const struct profile *p, int64_t txn, int (*stop)(void), bool *ret_changed,
		     char **ret_error)
{
	struct json_object *doc = NULL, *v;
	char id[24];
	int r;

	snprintf(id, sizeof(id), "%" PRId64, txn);
	r = run_peer(p, (char *[]){"rollback", id, "--json", NULL}, 0, PEERSSH_SLACK_USEC, stop, &doc, NULL,
		     ret_error);
	/* An unreadable answer of a rollback that exited 0: it did roll back. */
	if (r >= 0 && ret_changed)
		*ret_changed =
		    !doc || !json_object_object_get_ex(doc, "changed", &v) || json_object_get_boolean(v);
	json_object_put(doc);
	return r;
}

/* How long a counters reading may take through ssh. */
#define PEERSSH_COUNTERS_USEC (10 * 1000000ull)

int peerssh_counters(const struct profile *p, const char *address, struct netcounters *ret, char **ret_error)
{
	struct json_object *doc = NULL, *counters, *unavailable;
	struct netcounters s = {0};
	int r;

	r = run_peer(p, (char *[]){"counters", "--address", (char *)address, "--json", NULL}, 0,
		     PEERSSH_COUNTERS_USEC, NULL, &doc, NULL, ret_error);
	s.taken_usec = now_usec();
	if (r >= 0 && (!doc || !json_object_object_get_ex(doc, "counters", &counters) ||
		       !json_object_is_type(counters, json_type_object))) {
		r = -EBADMSG;
		*ret_error = strprintf("peer %s: `cx5prof counters` gave no counters", p->peer.ssh.value);
	}
	if (r >= 0) {
		json_object_object_foreach(counters, name, v)
		{
			if (!netcounter_name_known(name) || !json_object_is_type(v, json_type_int) ||
			    json_object_get_int64(v) < 0)
				continue;
			r = netcounters_set(&s, name, (uint64_t)json_object_get_int64(v));
			if (r < 0)
				break;
		}
		if (json_object_object_get_ex(doc, "unavailable", &unavailable) &&
		    json_object_is_type(unavailable, json_type_array))
			for (size_t i = 0; r >= 0 && i < json_object_array_length(unavailable); i++)
				r = strv_extend(
				    &s.unavailable,
				    json_object_get_string(json_object_array_get_idx(unavailable, i)));
	}
	json_object_put(doc);
	if (r < 0) {
		netcounters_done(&s);
		return r;
	}
	*ret = s;
	return 0;
}
