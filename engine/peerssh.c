/* peerssh.c: the peer's cx5prof through the operator's OpenSSH (see
 * peerssh.h).
 *
 * Owns: building the ssh argv, feeding the flattened profile through a
 * memfd as stdin, and reading the peer's exit code and JSON answer. The
 * peer's diagnostics reach the operator's stderr as they are. Must never:
 * add options that weaken ssh (StrictHostKeyChecking, password prompts),
 * or wait without a deadline. */
#define _GNU_SOURCE
#include "peerssh.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <sys/mman.h>

#include "base/child.h"
#include "profile.h"
#include "store/history.h"

/* How long the peer may take beyond its confirm window: planning and the
 * changes themselves, and the ssh connection. */
#define PEERSSH_SLACK_USEC (60 * 1000000ull)

bool peerssh_wanted(const struct profile *p)
{
	return p && p->peer.ssh.set;
}

const char *peerssh_target(const struct profile *p)
{
	return p->peer.ssh.value;
}

static unsigned confirm_seconds(const struct profile *p)
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

/* Run the peer's cx5prof with args, until it ends, timeout_usec passes or
 * stop (may be NULL) returns a signal; *ret_doc: its stdout as JSON (NULL
 * when it is not). 0, or -errno with *ret_error. */
static int run_peer(const struct profile *p, char *const *args, int stdin_fd, uint64_t timeout_usec,
		    int (*stop)(void), struct json_object **ret_doc, char **ret_error)
{
	_cleanup_strv_free_ char **argv = NULL;
	struct child_options o = {.stderr_keep = true, .stdin_fd = stdin_fd};
	struct child c = {.pid = 0, .out_fd = -1};
	int r;

	*ret_error = NULL;
	*ret_doc = NULL;
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
	if (c.output)
		*ret_doc = json_tokener_parse(c.output);
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
	child_done(&c);
	if (r < 0 && !*ret_error)
		return -ENOMEM;
	return r;
}

int peerssh_apply(const struct profile *p, unsigned confirm_s, int (*stop)(void), int64_t *ret_txn,
		  char **ret_error)
{
	_cleanup_close_ int fd = -1;
	struct json_object *doc = NULL, *txn;
	unsigned seconds = confirm_s ? confirm_s : confirm_seconds(p);
	char confirm[16];
	int r;

	snprintf(confirm, sizeof(confirm), "%u", seconds);
	r = flattened(p, &fd);
	if (r < 0) {
		*ret_error =
		    strprintf("peer %s: cannot prepare the profile: %s", p->peer.ssh.value, strerror(-r));
		return r;
	}
	r = run_peer(p, (char *[]){"apply", "--confirm", confirm, "--json", "-", NULL}, fd,
		     (uint64_t)seconds * 1000000 + PEERSSH_SLACK_USEC, stop, &doc, ret_error);
	if (r >= 0)
		*ret_txn =
		    doc && json_object_object_get_ex(doc, "txn", &txn) ? json_object_get_int64(txn) : 0;
	json_object_put(doc);
	return r;
}

/* args: the verb, its arguments and --json. */
static int run_verb(const struct profile *p, char *const *args, char **ret_error)
{
	struct json_object *doc = NULL;
	int r = run_peer(p, args, 0, PEERSSH_SLACK_USEC, NULL, &doc, ret_error);

	json_object_put(doc);
	return r;
}

int peerssh_apply_recorded(struct history *h, int64_t txn, const struct profile *p, unsigned confirm_s,
			   int (*stop)(void), int64_t *ret_txn, char **ret_error)
{
	int64_t peer_txn = 0;
	int r = peerssh_apply(p, confirm_s, stop, &peer_txn, ret_error);

	if (r < 0)
		return r;
	*ret_txn = peer_txn;
	if (txn > 0 && peer_txn > 0) {
		r = history_txn_set_peer_txn(h, txn, peer_txn);
		if (r < 0) {
			*ret_error = strprintf("history %s: cannot record the peer's transaction %" PRId64
					       " with transaction %" PRId64 ": %s",
					       history_path(h), peer_txn, txn, strerror(-r));
			return r;
		}
	}
	return 0;
}

int peerssh_commit(const struct profile *p, char **ret_error)
{
	return run_verb(p, (char *[]){"commit", "--json", NULL}, ret_error);
}

int peerssh_rollback(const struct profile *p, int64_t txn, char **ret_error)
{
	char id[24];

	snprintf(id, sizeof(id), "%" PRId64, txn);
	return run_verb(p, (char *[]){"rollback", id, "--json", NULL}, ret_error);
}

/* How long a counters reading may take through ssh. */
#define PEERSSH_COUNTERS_USEC (10 * 1000000ull)

int peerssh_counters(const struct profile *p, const char *address, struct netcounters *ret, char **ret_error)
{
	struct json_object *doc = NULL, *counters, *unavailable;
	struct netcounters s = {0};
	int r;

	r = run_peer(p, (char *[]){"counters", "--address", (char *)address, "--json", NULL}, 0,
		     PEERSSH_COUNTERS_USEC, NULL, &doc, ret_error);
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
