/* lock.c: the apply/rollback lock file (see lock.h).
 *
 * Owns: "<db>.lock" and its flock. Must never: delete the file, or block
 * forever. */
#define _GNU_SOURCE
#include "lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <time.h>

static int lock_path(const char *db_path, char **ret)
{
	char *p = strprintf("%s.lock", db_path);
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

int lock_acquire(const char *db_path, pid_t *ret_holder)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -1;
	int r;

	r = lock_path(db_path, &path);
	if (r < 0)
		return r;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		if (r == -EBUSY && ret_holder)
			*ret_holder = read_holder(fd);
		return r;
	}
	r = write_holder(fd);
	if (r < 0)
		return r;
	return TAKE_FD(fd);
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
	if (fd >= 0)
		close(fd);
}
