/* lock.c: the apply/rollback lock files (see lock.h).
 *
 * Owns: "<db>.lock", the per-host lock file, their flocks, which host lock
 * goes with which database lock fd, and removing host lock files safely:
 * a file is removed only by a process that holds its flock, and a process
 * that locked a file checks that its name still leads to it (else the
 * file was removed meanwhile: it opens the name again). The host lock
 * files live in /run/lock, which every user may write: run as root, a
 * file there that root does not own is never trusted (another user could
 * hold it forever): it is removed and made afresh. Must never: remove a
 * file of its own it does not hold locked, or block forever. */
#define _GNU_SOURCE
#include "lock.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

#include "base/log.h"
#include "os/sysroot.h"

#define HOST_LOCK_DIR	 "/run/lock"
#define HOST_LOCK_PREFIX "cx5prof-host-"
#define MAX_HELD	 4
#define LOCK_OPEN_TRIES	 8
#define HOLDER_WAIT_USEC (1000 * 1000ull) /* a new holder writes its pid at once */
#define HOLDER_POLL_USEC (5 * 1000)
#define SWEEP_MAX	 64 /* stale host lock files removed per acquire, at most */

/* A process holds one lock pair at a time (a verb, or the watchdog); a
 * few slots for safety. */
static struct {
	int db_fd;
	int host_fd;
	char *host_path;
	pid_t owner; /* who took it: in a forked child the entry is its parent's */
} held[MAX_HELD] = {[0 ... MAX_HELD - 1] = {-1, -1, NULL, 0}};
static char busy_path[PATH_MAX];

const char *lock_busy_path(void)
{
	return busy_path;
}

/* One lock per host: per sysroot root, named by the root directory's
 * device and inode (the same directory under any path or symlink). */
static int host_lock_path(char **ret)
{
	struct stat st;
	char *p;

	if (stat(sysroot_get(), &st) < 0)
		return -errno;
	p = strprintf(HOST_LOCK_DIR "/cx5prof-host-%ju-%ju.lock", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino);
	if (!p)
		return -ENOMEM;
	*ret = p;
	return 0;
}

static pid_t read_holder(int fd)
{
	char buf[32] = "";
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	int pid;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	strstrip_trailing(buf);
	return safe_atoi(buf, &pid) >= 0 && pid > 0 ? pid : 0;
}

/* The holder of the lock on fd, as it wrote itself: it writes its pid
 * right after it took the flock, so an empty file (or the pid of a
 * process that is gone, left by a kill -9) means it has not yet: read
 * again, for a bounded time. 0 when it never says (or the file was
 * removed: its holder let go). */
static pid_t wait_holder(int fd)
{
	const struct timespec pause = {0, HOLDER_POLL_USEC * 1000};
	uint64_t deadline = now_usec() + HOLDER_WAIT_USEC;
	struct stat st;

	for (;;) {
		pid_t pid = read_holder(fd);

		if (pid > 0 && (kill(pid, 0) == 0 || errno == EPERM))
			return pid;
		if (fstat(fd, &st) < 0 || st.st_nlink == 0 || now_usec() >= deadline)
			return 0;
		nanosleep(&pause, NULL);
	}
}

static int write_holder(int fd)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());

	if (ftruncate(fd, 0) < 0)
		return -errno;
	if (pwrite(fd, buf, n, 0) != n)
		return -EIO;
	return 0;
}

/* Is the locked fd still the file path names? Its previous holder may
 * have removed it between our open and our flock. */
static bool still_named(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && a.st_nlink > 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* Run as root, is the host lock file at path another user's? (Such a
 * file in the world-writable HOST_LOCK_DIR cannot be root's lock: someone
 * planted it.) */
static bool foreign(int fd, const char *path)
{
	struct stat st;

	if (geteuid() != 0 || strncmp(path, HOST_LOCK_DIR "/", strlen(HOST_LOCK_DIR "/")) != 0)
		return false;
	if (fd >= 0 ? fstat(fd, &st) < 0 : lstat(path, &st) < 0)
		return false;
	return st.st_uid != 0;
}

static int lock_file(const char *path, pid_t *ret_holder)
{
	for (unsigned i = 0; i < LOCK_OPEN_TRIES; i++) {
		_cleanup_close_ int fd = -1;
		int r;

		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		/* fs.protected_regular refuses root's O_CREAT of another
		 * user's file in a sticky directory (EACCES). */
		if (fd < 0 && !(errno == EACCES && foreign(-1, path)))
			return -errno;
		if (fd < 0 || foreign(fd, path)) {
			log_debug("%s: not root's: removed, made again", path);
			if (unlink(path) < 0 && errno != ENOENT)
				return -errno;
			continue;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			r = errno == EWOULDBLOCK ? -EBUSY : -errno;
			/* Its holder removed it between our open and our
			 * flock (a release, or a sweep): open the name again. */
			if (r == -EBUSY && !still_named(fd, path))
				continue;
			if (r == -EBUSY) {
				snprintf(busy_path, sizeof(busy_path), "%s", path);
				if (ret_holder)
					*ret_holder = wait_holder(fd);
			}
			return r;
		}
		if (!still_named(fd, path))
			continue;
		r = write_holder(fd);
		if (r < 0)
			return r;
		return TAKE_FD(fd);
	}
	/* Removed under us again and again: someone else keeps taking it. */
	snprintf(busy_path, sizeof(busy_path), "%s", path);
	if (ret_holder)
		*ret_holder = 0;
	return -EBUSY;
}

/* Let go of a lock file: with remove, unlink it while still holding it
 * (a loser that opened it before reads the pid of its live holder); else
 * empty it first, so that nobody reads a pid that no longer holds it. */
static void unlock_file(int fd, const char *path, bool remove)
{
	if (fd < 0)
		return;
	if (remove && path && still_named(fd, path))
		(void)unlink(path);
	else
		(void)!ftruncate(fd, 0);
	close(fd);
}

/* Host lock files that nobody holds (a holder killed by kill -9 cannot
 * remove its own; a sysroot copy deleted since): taken, then removed while
 * held, like a release does. One held by a live process is left alone. */
static void sweep_host_locks(const char *keep)
{
	DIR *d = opendir(HOST_LOCK_DIR);
	unsigned removed = 0;
	struct dirent *e;

	while (d && removed < SWEEP_MAX && (e = readdir(d))) {
		_cleanup_free_ char *path = NULL;
		size_t n = strlen(e->d_name);
		int fd;

		if (strncmp(e->d_name, HOST_LOCK_PREFIX, strlen(HOST_LOCK_PREFIX)) != 0 || n < 5 ||
		    !streq(e->d_name + n - 5, ".lock"))
			continue;
		path = strprintf(HOST_LOCK_DIR "/%s", e->d_name);
		if (!path || streq(path, keep))
			continue;
		fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0 && still_named(fd, path)) {
			unlock_file(fd, path, true);
			removed++;
		} else
			close(fd);
	}
	if (d)
		closedir(d);
}

int lock_acquire(const char *db_path, pid_t *ret_holder)
{
	_cleanup_free_ char *db_lock = strprintf("%s.lock", db_path), *host_lock = NULL;
	int db_fd, host_fd, r;

	if (!db_lock)
		return -ENOMEM;
	r = host_lock_path(&host_lock);
	if (r >= 0)
		r = mkdir_parent(host_lock);
	if (r < 0)
		return r;
	db_fd = lock_file(db_lock, ret_holder);
	if (db_fd < 0)
		return db_fd;
	host_fd = lock_file(host_lock, ret_holder);
	if (host_fd < 0) {
		unlock_file(db_fd, db_lock, false);
		return host_fd;
	}
	sweep_host_locks(host_lock);
	for (size_t i = 0; i < MAX_HELD; i++)
		if (held[i].db_fd < 0 || held[i].owner != getpid()) {
			/* A parent's entry, inherited by fork: its fds are
			 * the parent's copies (closed by the child, or not),
			 * never ours to let go. */
			free(held[i].host_path);
			held[i].db_fd = db_fd;
			held[i].host_fd = host_fd;
			held[i].host_path = TAKE_PTR(host_lock);
			held[i].owner = getpid();
			return db_fd;
		}
	unlock_file(host_fd, host_lock, true);
	unlock_file(db_fd, db_lock, false);
	return -EMFILE;
}

int lock_acquire_wait(const char *db_path, unsigned timeout_ms, pid_t *ret_holder)
{
	uint64_t deadline = now_usec() + (uint64_t)timeout_ms * 1000;
	const struct timespec pause = {0, 50 * 1000 * 1000};
	int r;

	for (;;) {
		r = lock_acquire(db_path, ret_holder);
		if (r != -EBUSY || now_usec() >= deadline)
			return r;
		nanosleep(&pause, NULL);
	}
}

void lock_release(int fd)
{
	bool mine = false;

	if (fd < 0)
		return;
	for (size_t i = 0; i < MAX_HELD; i++)
		if (held[i].db_fd == fd && held[i].owner == getpid()) {
			mine = true;
			unlock_file(held[i].host_fd, held[i].host_path, true);
			free(held[i].host_path);
			held[i].host_path = NULL;
			held[i].db_fd = held[i].host_fd = -1;
		}
	if (mine)
		unlock_file(fd, NULL, false);
	else /* a forked child's copy of its parent's lock: only closed */
		close(fd);
}
