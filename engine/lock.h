/* lock.h: the exclusive lock that serialises apply, rollback and commit.
 *
 * Owns: one lock file next to the history database ("<db>.lock"), held
 * with flock(2) for as long as the returned fd is open, holding the
 * holder's pid as text for the "locked by pid N" message. Tests with their
 * own --db therefore never contend with each other. flock locks belong to
 * the open file: a forked child must close the fd (lock_release) or it
 * keeps the lock. Must never: wait without a bound, or remove the file (a
 * waiter may have it open). */
#ifndef CX5_LOCK_H
#define CX5_LOCK_H

#include <sys/types.h>

#include "util.h"

/* Take the lock without waiting. Returns the lock fd (>= 0), or -EBUSY
 * when another process holds it (*ret_holder: its pid, 0 when unknown),
 * or another -errno. */
int lock_acquire(const char *db_path, pid_t *ret_holder);
/* The same, retrying for up to timeout_ms; -EBUSY after that. */
int lock_acquire_wait(const char *db_path, unsigned timeout_ms, pid_t *ret_holder);
void lock_release(int fd);

#endif
