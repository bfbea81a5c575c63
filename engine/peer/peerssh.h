/* peerssh.h: tune both ends: the peer's own cx5prof, run through the
 * operator's OpenSSH.
 *
 * Owns: the ssh command line (`ssh -o BatchMode=yes -o
 * StrictHostKeyChecking=yes -o ConnectTimeout=10 -o ServerAliveInterval=5
 * -o ServerAliveCountMax=3 [-F peer.ssh_config] -- peer.ssh COMMAND VERB
 * ...`: the user's keys and known_hosts, never a password prompt, host
 * keys always checked whatever an ssh_config says, a silent peer given
 * up in seconds), the flattened profile sent
 * on stdin to `apply --confirm N --json -` (extends resolved here, the
 * `peer` section left out so the peer does not recurse), and the peer's
 * answer (exit code, JSON document). Must never: turn host key checking
 * off, speak any protocol but ssh, or pass the peer anything its shell
 * would interpret (peer.ssh and peer.command are checked by the loader). */
#ifndef CX5_PEERSSH_H
#define CX5_PEERSSH_H

#include "base/util.h"
#include "os/netcounters.h"

struct history;
struct profile;

#define PEERSSH_CONFIRM_DEFAULT 120 /* seconds, when peer.confirm is unset */

/* Does the profile name a peer to tune (peer.ssh)? */
bool peerssh_wanted(const struct profile *p);
/* Its peer.ssh target ("root@198.18.0.2"), for messages. */
const char *peerssh_target(const struct profile *p);
/* `--allow-ssh-commands`: peer.ssh_config may hold ProxyCommand,
 * LocalCommand, PermitLocalCommand, KnownHostsCommand, Include and Match
 * exec (they run commands on this host, as root). Off by default. */
void peerssh_allow_commands(bool allow);
/* peer.ssh_config as every ssh run here needs it: owned by root or the
 * invoking user, not writable by group or others (as OpenSSH requires of
 * its own configs), and, unless allowed, without a keyword that runs a
 * command. 0 (also without one), or -errno with *ret_error: -EPERM owner
 * or mode, -EINVAL a refused keyword, -ENOENT and others opening it. */
int peerssh_check_config(const struct profile *p, char **ret_error);
/* peer.confirm, else PEERSSH_CONFIRM_DEFAULT. */
unsigned peerssh_confirm_seconds(const struct profile *p);

/* Apply p on the peer under its own --confirm watchdog: confirm_s
 * seconds (this host's --confirm, so one `commit` within it keeps both),
 * or 0 for peer.confirm. 0 with *ret_txn (the peer's transaction, 0 when
 * nothing changed there); -errno with *ret_error (caller frees) naming the
 * peer and what failed ("ssh failed (exit 255)", "`cx5prof apply` exited
 * 7"), and *ret_txn the transaction its answer names, if any (an apply
 * that failed there, exit 6 or 7, still names it: exit 7 left changes
 * there that no watchdog undoes); -EINTR when stop() returned a signal
 * (ssh is ended, the peer's watchdog covers what it may have changed);
 * -EBADMSG when it exited 0 but its answer is not one JSON document (a
 * login printing to stdout): then *ret_txn is the transaction its answer
 * names after what the login printed, if any, to roll back. */
int peerssh_apply(const struct profile *p, unsigned confirm_s, const char *origin, int (*stop)(void),
		  int64_t *ret_txn, char **ret_error);

/* peerssh_apply, with the peer's transaction recorded with this host's
 * transaction txn (transactions.peer_txn) before anything commits it, so
 * that the rollback of txn, also after a kill -9, undoes exactly that one
 * on the peer (recorded also when the answer was unreadable but named it).
 * Before ssh starts, HISTORY_PEER_TXN_UNKNOWN is recorded durably with
 * txn (the intent: a failure to record it is a failure, nothing changed
 * there); the answer then replaces it. interrupted() (may be NULL) says a
 * signal was caught before ssh starts: then it is not started (-EINTR,
 * the intent cleared). The apply's ssh ignores SIGINT, SIGTERM, SIGHUP
 * and SIGQUIT (a signal to the process group does not cut the answer
 * short): only stop() ends it. Ended by stop() or by its deadline with no
 * answer, the intent stays and *ret_txn is HISTORY_PEER_TXN_UNKNOWN: the
 * peer's apply may have gone on without ssh. Pause points (tests):
 * peer-apply-start (intent recorded, ssh not started), peer-apply-answer
 * (ssh ended, its answer not recorded yet). txn 0: nothing to record it
 * with. A recording failure is a failure (-errno, *ret_error says so,
 * *ret_txn set): the peer's apply is left uncommitted, to its --confirm
 * watchdog. */
int peerssh_apply_recorded(struct history *h, int64_t txn, const struct profile *p, unsigned confirm_s,
			   int (*interrupted)(void), int (*stop)(void), int64_t *ret_txn, char **ret_error);

/* The peer's unfinished apply transaction (open, pending_confirm or
 * rollback_failed there) of profile p's name, among its newest history
 * entries (`cx5prof history --json` there): the one an apply cut short
 * here left, if any (the peer refuses a second apply while one is
 * unfinished). 0 with *ret_txn (0: none there); -errno with *ret_error. */
int peerssh_find_unfinished(const struct profile *p, int64_t *ret_txn, char **ret_error);

/* The length of an origin token (hex digits): a fresh random one goes
 * with each apply of the peer (`apply --origin`), recorded here first. */
#define PEERSSH_ORIGIN_LEN 32

/* `rollback --origin ORIGIN` on the peer: the apply started with that
 * token is rolled back there (*ret_txn: its transaction, *ret_changed:
 * whether it was still to roll back), or, when the peer has none, the
 * token is fenced there (*ret_txn 0: an apply carrying it is refused
 * from then on, so nothing it could still do is left unknown). -EBUSY
 * with *ret_error when the peer's lock is held (the cut-short apply may
 * still be running there); other -errno as peerssh_rollback. */
int peerssh_rollback_origin(const struct profile *p, const char *origin, int (*stop)(void), int64_t *ret_txn,
			    bool *ret_changed, char **ret_error);

/* The peer's kernel counters of the loss ledger (`cx5prof counters
 * --address ADDR --json` there: the interface that owns address, the
 * address verify sends to), stamped with this host's clock when the
 * answer came. -errno with *ret_error (caller frees) as for apply. */
int peerssh_counters(const struct profile *p, const char *address, struct netcounters *ret, char **ret_error);

/* `commit` on the peer. */
int peerssh_commit(const struct profile *p, char **ret_error);
/* `rollback TXN` of the peer's transaction txn, until it ends or stop (may
 * be NULL) returns a signal (-EINTR: ssh ended, the rollback may or may not
 * have happened there). *ret_changed (may be NULL): false when the peer
 * had nothing to roll back (its watchdog, or someone, did it before). */
int peerssh_rollback(const struct profile *p, int64_t txn, int (*stop)(void), bool *ret_changed,
		     char **ret_error);

#endif
