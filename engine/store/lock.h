/* lock.h: the exclusive locks that serialise apply, rollback and commit.
 *
 * Owns: two lock files, held with flock(2) for as long as the returned fd
 * is open (lock_release), each holding the holder's pid as text for the
 * "locked by pid N" message (written right after the flock, emptied before
 * it is let go; a loser waits up to a second for a live pid to appear, so
 * it never names pid 0 or a dead one): one next to the history database
 * ("<db>.lock": one history, one writer), and one per host, that is per
 * sysroot root ("/run/lock/cx5prof-host-<dev>-<ino>.lock", the root
 * directory's device and inode, "/" for the live host): two applies with
 * different --db paths on one host never run at once. Tests with their own
 * --db and sysroot copy therefore never contend with each other. The host
 * lock file is removed by its holder when it lets go, and one nobody holds
 * (its holder was killed, its sysroot deleted) by the next acquire; a
 * process that locked a file checks that its name still leads to it, so a
 * removal never lets two hold one lock. flock locks belong to the open
 * file: a forked child must close the fds (the watchdog closes every
 * inherited descriptor) or it keeps the locks. Must never: wait without a
 * bound, or remove a lock file it does not hold. */
#ifndef CX5_LOCK_H
#define CX5_LOCK_H

#include <sys/types.h>

#include "base/util.h"

/* Take both locks (the database's, then the host's) without waiting.
 * Returns the lock fd (>= 0; lock_release frees both), or -EBUSY when
 * another process holds either (*ret_holder: its pid, 0 when it never
 * wrote it;
 * lock_busy_path() names the file), or another -errno. */
int lock_acquire(const char *db_path, pid_t *ret_holder);
/* The same, retrying for up to timeout_ms; -EBUSY after that. */
int lock_acquire_wait(const char *db_path, unsigned timeout_ms, pid_t *ret_holder);
/* Let go of both locks (emptying their files, removing the host's); in a
 * forked child, only close its copies: the locks stay its parent's. */
void lock_release(int fd);
/* The lock file found held by the last lock_acquire that returned -EBUSY
 * ("" before any). */
const char *lock_busy_path(void);

#endif
