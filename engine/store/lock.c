/* lock.c: the apply/rollback lock files (see lock.h).
 *
 * Owns: "<db>.lock", the per-host lock file, their flocks, and which host
 * lock goes with which database lock fd. Must never: delete a file, or
 * block forever. */
#define _GNU_SOURCE
#include "lock.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

#include "os/sysroot.h"

#define HOST_LOCK_DIR "/run/lock"
#define MAX_HELD      4

/* A process holds one lock pair at a time (a verb, or the watchdog); a
 * few slots for safety. */
static struct {
	int db_fd;
	int host_fd;
} held[MAX_HELD] = {[0 ... MAX_HELD - 1] = {-1, -1}};
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

static int lock_file(const char *path, pid_t *ret_holder)
{
	_cleanup_close_ int fd = -1;
	int r;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		if (r == -EBUSY) {
			snprintf(busy_path, sizeof(busy_path), "%s", path);
			if (ret_holder)
				*ret_holder = read_holder(fd);
		}
		return r;
	}
	r = write_holder(fd);
	if (r < 0)
		return r;
	return TAKE_FD(fd);
}

int lock_acquire(const char *db_path, pid_t *ret_holder)
{
	_cleanup_free_ char *db_lock = strprintf("%s.lock", db_path), *host_lock = NULL;
	_cleanup_close_ int db_fd = -1, host_fd = -1;
	int r;

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
	if (host_fd < 0)
		return host_fd;
	for (size_t i = 0; i < MAX_HELD; i++)
		if (held[i].db_fd < 0) {
			held[i].db_fd = db_fd;
			held[i].host_fd = TAKE_FD(host_fd);
			return TAKE_FD(db_fd);
		}
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
	if (fd < 0)
		return;
	for (size_t i = 0; i < MAX_HELD; i++)
		if (held[i].db_fd == fd) {
			close(held[i].host_fd);
			held[i].db_fd = held[i].host_fd = -1;
		}
	close(fd);
}
