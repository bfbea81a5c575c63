/* sysroot.c: /proc and /sys access under a root directory (see sysroot.h). */
#define _GNU_SOURCE
#include "sysroot.h"

#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/syscall.h>
/* Kernel headers before 5.6 lack it: then writes take the realpath() check. */
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif

#define SYSROOT_MAX_FILE (8u << 20)
#define OPENAT2_RETRIES	 64

static char *root;	/* NULL: live host */
static char *real_root; /* realpath(root), resolved on first use */
static bool read_only;
static sysroot_observer_fn observer;
static void *observer_data;

void sysroot_observe(sysroot_observer_fn fn, void *userdata)
{
	observer = fn;
	observer_data = userdata;
}

void sysroot_set_read_only(bool on)
{
	read_only = on;
}

static void observe(const char *path, enum sysroot_access access)
{
	if (observer)
		observer(path, access, observer_data);
}

int sysroot_set(const char *dir)
{
	struct stat st;
	char *copy;
	size_t n;

	if (!dir || streq(dir, "/")) {
		free(root);
		free(real_root);
		real_root = NULL;
		root = NULL;
		return 0;
	}
	if (stat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	copy = strdup(dir);
	if (!copy)
		return -ENOMEM;
	n = strlen(copy);
	while (n > 1 && copy[n - 1] == '/')
		copy[--n] = '\0';
	free(root);
	free(real_root);
	real_root = NULL;
	root = copy;
	return 0;
}

const char *sysroot_get(void)
{
	return root ? root : "/";
}
bool sysroot_is_live(void)
{
	return root == NULL;
}

static bool path_safe(const char *path)
{
	const char *p = path;

	if (path[0] != '/')
		return false;
	while ((p = strstr(p, "..")) != NULL) {
		bool start = p == path || p[-1] == '/';
		bool end = p[2] == '\0' || p[2] == '/';
		if (start && end)
			return false;
		p += 2;
	}
	return true;
}

/* The full path in buf, without an allocation: a probe opens 1,500 files. */
static int path_in(const char *path, char buf[static PATH_MAX])
{
	size_t nroot = root ? strlen(root) : 0, npath = strlen(path);

	if (!path_safe(path))
		return -EINVAL;
	if (nroot + npath >= PATH_MAX)
		return -ENAMETOOLONG;
	if (root)
		memcpy(buf, root, nroot);
	memcpy(buf + nroot, path, npath + 1);
	return 0;
}

int sysroot_path(const char *path, char **ret)
{
	char buf[PATH_MAX], *s;
	int r;

	r = path_in(path, buf);
	if (r < 0)
		return r;
	s = strdup(buf);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

static int open_beneath(const char *path, const char *full, int flags);

bool sysroot_exists(const char *path)
{
	char full[PATH_MAX];
	int fd;

	if (path_in(path, full) < 0)
		return false;
	observe(path, SYSROOT_NODE);
	if (!root)
		return access(full, F_OK) == 0;
	/* A path that leads out of the sysroot is there, out of reach: the
	 * caller's read or write then says so (-EXDEV), rather than that it
	 * is missing. */
	fd = open_beneath(path, full, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return fd == -EXDEV;
	close(fd);
	return true;
}

int sysroot_stat(const char *path, bool follow, struct stat *ret)
{
	_cleanup_close_ int fd = -1;
	char full[PATH_MAX];
	int r;

	r = path_in(path, full);
	if (r < 0)
		return r;
	observe(path, SYSROOT_NODE);
	if (!root)
		return (follow ? stat(full, ret) : lstat(full, ret)) < 0 ? -errno : 0;
	fd = open_beneath(path, full, O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (fd < 0)
		return fd;
	return fstat(fd, ret) < 0 ? -errno : 0;
}

/* fd when it is a regular file (every /proc and /sys attribute is one,
 * and so is each file of a copied tree), or a character device where
 * chr_ok says so; else closed and -EISDIR or -EBADFD: a FIFO would block
 * its reader, a device or socket is no copy. */
static int regular_or_close(int fd_in, bool chr_ok)
{
	_cleanup_close_ int fd = fd_in;
	struct stat st;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode) && !(chr_ok && S_ISCHR(st.st_mode)))
		return -EBADFD;
	return TAKE_FD(fd);
}

static int open_read(const char *path, bool chr_ok)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer (it is
	 * refused after the open); no effect on a regular file. */
	const int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
	char full[PATH_MAX];
	int fd, r;

	r = path_in(path, full);
	if (r < 0)
		return r;
	observe(path, SYSROOT_READ);
	if (root)
		return regular_or_close(open_beneath(path, full, flags), false);
	fd = open(full, flags);
	return regular_or_close(fd >= 0 ? fd : -errno, chr_ok);
}

int sysroot_open_read(const char *path)
{
	return open_read(path, false);
}

int sysroot_open_read_device(const char *path)
{
	return open_read(path, true);
}

const char *sysroot_strerror(int r)
{
	return r == -EBADFD ? "not a regular file (a FIFO, socket or device)" : strerror(-r);
}

/* The contents of fd (closed here); with first_line, reading stops once a
 * line is complete (one read(2) for a sysfs or procfs attribute, not two). */
static int read_fd(int fd_in, bool first_line, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = fd_in;
	size_t len = 0, cap = 4096;
	struct stat st;

	/* A sysroot's copy of /proc/interrupts is 1.5 MB on a 256-CPU host:
	 * one buffer of its size, not a dozen reallocations that copy it
	 * (procfs says 0 and keeps the default). */
	if (!first_line && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		cap = st.st_size < SYSROOT_MAX_FILE ? (size_t)st.st_size + 2 : SYSROOT_MAX_FILE;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (cap - len < 2) {
			char *nb;
			if (cap >= SYSROOT_MAX_FILE)
				return -EFBIG;
			cap *= 2;
			nb = realloc(buf, cap);
			if (!nb)
				return -ENOMEM;
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (first_line && memchr(buf + len - n, '\n', (size_t)n))
			break;
	}
	buf[len] = '\0';
	if (ret_len)
		*ret_len = len;
	*ret = TAKE_PTR(buf);
	return 0;
}

static int read_file(const char *path, bool first_line, char **ret, size_t *ret_len)
{
	int fd = sysroot_open_read(path);

	if (fd < 0)
		return fd;
	return read_fd(fd, first_line, ret, ret_len);
}

int sysroot_read_live_counters(const char *path, char **ret, size_t *ret_len)
{
	static const char *const live[] = {"/proc/net/snmp", "/proc/net/snmp6", "/proc/net/softnet_stat"};
	int fd;

	for (size_t i = 0; i < ARRAY_SIZE(live); i++)
		if (streq(path, live[i])) {
			/* The path as it is, not under the root: these files
			 * describe the namespace the process runs in, not the
			 * host a sysroot describes. */
			fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
			fd = regular_or_close(fd >= 0 ? fd : -errno, false);
			if (fd < 0)
				return fd;
			return read_fd(fd, false, ret, ret_len);
		}
	return -EPERM;
}

int sysroot_read_all(const char *path, char **ret, size_t *ret_len)
{
	return read_file(path, false, ret, ret_len);
}

int sysroot_read_line(const char *path, char **ret)
{
	_cleanup_free_ char *s = NULL;
	char *nl;
	int r;

	r = read_file(path, true, &s, NULL);
	if (r < 0)
		return r;
	nl = strchr(s, '\n');
	if (nl)
		*nl = '\0';
	strstrip_trailing(s);
	*ret = TAKE_PTR(s);
	return 0;
}

int sysroot_read_linef(char **ret, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (r < 0)
		return -EINVAL;
	if ((size_t)r >= sizeof(path))
		return -ENAMETOOLONG;
	return sysroot_read_line(path, ret);
}

int sysroot_read_u64(const char *path, uint64_t *ret)
{
	_cleanup_free_ char *s = NULL;
	int r = sysroot_read_line(path, &s);

	if (r < 0)
		return r;
	return safe_atou64(s, ret);
}

int sysroot_readlink(const char *path, char **ret)
{
	_cleanup_free_ char *full = NULL;
	char buf[4096];
	ssize_t n;
	int r;

	r = sysroot_path(path, &full);
	if (r < 0)
		return r;
	observe(path, SYSROOT_LINK);
	if (root) {
		/* The link itself (O_PATH | O_NOFOLLOW), reached beneath the root. */
		_cleanup_close_ int fd = open_beneath(path, full, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return fd;
		n = readlinkat(fd, "", buf, sizeof(buf) - 1);
	} else
		n = readlink(full, buf, sizeof(buf) - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	*ret = strdup(buf);
	return *ret ? 0 : -ENOMEM;
}

int sysroot_readlink_base(const char *path, char **ret)
{
	_cleanup_free_ char *target = NULL;
	char *slash, *s;
	size_t n;
	int r;

	r = sysroot_readlink(path, &target);
	if (r < 0)
		return r;
	n = strlen(target);
	while (n > 1 && target[n - 1] == '/')
		target[--n] = '\0';
	slash = strrchr(target, '/');
	s = strdup(slash ? slash + 1 : target);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

int sysroot_listdir(const char *path, char ***ret)
{
	_cleanup_free_ char *full = NULL;
	_cleanup_strv_free_ char **v = NULL;
	DIR *d;
	struct dirent *de;
	int r;

	r = sysroot_path(path, &full);
	if (r < 0)
		return r;
	observe(path, SYSROOT_LIST);
	if (root) {
		int fd = open_beneath(path, full, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return fd;
		d = fdopendir(fd);
		if (!d) {
			r = -errno;
			close(fd);
			return r;
		}
	} else
		d = opendir(full);
	if (!d)
		return -errno;
	while ((errno = 0, de = readdir(d)) != NULL) {
		if (streq(de->d_name, ".") || streq(de->d_name, ".."))
			continue;
		r = strv_extend(&v, de->d_name);
		if (r < 0) {
			closedir(d);
			return r;
		}
	}
	r = errno ? -errno : 0;
	closedir(d);
	if (r < 0)
		return r;
	if (!v) {
		v = calloc(1, sizeof(char *));
		if (!v)
			return -ENOMEM;
	}
	strv_sort(v);
	*ret = TAKE_PTR(v);
	return 0;
}

/* 0 when real (a resolved path) is the root's real path or under it,
 * -EXDEV when not. The root's own real path is resolved once per
 * sysroot_set(). */
static int under_real_root(const char *real)
{
	size_t n;

	if (!real_root) {
		real_root = realpath(root, NULL);
		if (!real_root)
			return -errno;
	}
	n = strlen(real_root);
	if (streq(real_root, "/"))
		return 0;
	if (strncmp(real, real_root, n) != 0 || (real[n] != '\0' && real[n] != '/'))
		return -EXDEV;
	return 0;
}

int sysroot_confine(const char *full)
{
	_cleanup_free_ char *dir = NULL, *real_dir = NULL;

	if (!root)
		return 0;
	dir = strdup(full);
	if (!dir)
		return -ENOMEM;
	real_dir = realpath(dirname(dir), NULL);
	if (!real_dir)
		return -errno;
	return under_real_root(real_dir);
}

/* A path under the sysroot, opened without leaving it: openat2() resolves
 * it beneath the root (-EXDEV when a ".." or an absolute symlink would lead
 * out), for reads as for writes, so a copied tree cannot make cx5prof read
 * or write a host file. Kernels (or kernel headers at build time) before
 * 5.6, or a seccomp filter that refuses the call (EPERM), get a realpath()
 * check instead. The root is opened per call: a cached descriptor would not
 * survive the --confirm watchdog, which closes every inherited descriptor. */
static int openat2_beneath(int dir, const char *rel, int flags)
{
#if defined(SYS_openat2) && defined(RESOLVE_BENEATH)
	struct open_how how = {.flags = (uint64_t)flags, .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS};
	int fd;

	/* EAGAIN: a rename anywhere on the system (our own writes rename)
	 * raced with a lookup through ".." (sysfs links are relative): the
	 * kernel asks to retry. */
	for (int i = 0; i < OPENAT2_RETRIES; i++) {
		fd = (int)syscall(SYS_openat2, dir, rel, &how, sizeof(how));
		if (fd >= 0 || errno != EAGAIN)
			break;
	}
	return fd;
#else
	(void)dir;
	(void)rel;
	(void)flags;
	errno = ENOSYS;
	return -1;
#endif
}

/* The fallback: the real path of full (of its directory when the last
 * component is not followed) must lie under the root's. */
static int confine_realpath(const char *full, bool follow_last)
{
	_cleanup_free_ char *real = NULL;

	if (!follow_last)
		return sysroot_confine(full);
	real = realpath(full, NULL);
	if (!real)
		return -errno;
	return under_real_root(real);
}

static int open_beneath(const char *path, const char *full, int flags)
{
	_cleanup_close_ int dir = -1;
	int fd, r;

	dir = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	fd = path[1] ? openat2_beneath(dir, path + 1, flags) : openat2_beneath(dir, ".", flags);
	if (fd >= 0)
		return fd;
	if (errno != ENOSYS && errno != EPERM)
		return -errno;
	r = confine_realpath(full, !(flags & O_NOFOLLOW));
	if (r < 0)
		return r;
	fd = open(full, flags);
	return fd >= 0 ? fd : -errno;
}

/* A copied file's own line ending: value's length without its final
 * newline when the file is not empty and does not end in one ("212992",
 * not "212992\n": a hand-made or copied tree), so that a value written
 * back is the file byte for byte; else len. */
static size_t as_file_ends(int fd, const char *value, size_t len)
{
	struct stat st;
	char last;

	if (len == 0 || value[len - 1] != '\n' || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size == 0 || pread(fd, &last, 1, st.st_size - 1) != 1 || last == '\n')
		return len;
	return len - 1;
}

int sysroot_write(const char *path, const char *value)
{
	_cleanup_close_ int fd = -1;
	size_t len = strlen(value);
	char full[PATH_MAX];
	ssize_t n;
	int r;

	r = path_in(path, full);
	if (r < 0)
		return r;
	if (read_only)
		return -EROFS;
	if (!root) {
		/* One write(2), as the kernel expects for /proc/sys and /proc/irq;
		 * O_TRUNC is ignored by procfs and sysfs, kept for any other file. */
		fd = open(full, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			return -errno;
		n = write(fd, value, len);
	} else {
		/* A plain file: written in place, then cut to length. Not
		 * O_TRUNC: ext4 starts writing back a file truncated to zero
		 * when it is closed (auto_da_alloc), and the next truncation
		 * of it waits for that I/O: 0.2 ms per IRQ of an 8-port apply
		 * or rollback; a temporary file renamed over it costs three
		 * times the whole apply. A kill or an error between the write
		 * and the cut leaves the file torn ("212992\n\n"): every
		 * read-back compares the whole file (sysroot_read_is), so the
		 * step counts as failed and is written again by its undo or
		 * the next rollback. The file itself must not be a symlink
		 * (O_NOFOLLOW: -ELOOP): a copied tree must not redirect a
		 * write to a host file. */
		fd = open_beneath(path, full, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
		if (fd < 0)
			return fd;
		fd = regular_or_close(TAKE_FD(fd), false);
		if (fd < 0)
			return fd;
		len = as_file_ends(fd, value, len);
		n = pwrite(fd, value, len, 0);
		if (n >= 0 && (size_t)n == len && ftruncate(fd, (off_t)len) < 0)
			return -errno;
	}
	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	if (close(TAKE_FD(fd)) < 0)
		return -errno;
	return 0;
}

int sysroot_read_is(const char *path, const char *want)
{
	_cleanup_free_ char *have = NULL;
	size_t len = 0, n = strlen(want);
	int r = sysroot_read_all(path, &have, &len);

	if (r < 0)
		return r;
	/* As sysroot_write wrote it: a copied file without its final
	 * newline keeps none. */
	if (root && len > 0 && have[len - 1] != '\n' && n > 0 && want[n - 1] == '\n')
		n--;
	return len == n && memcmp(have, want, len) == 0;
}
