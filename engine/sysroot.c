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

static char *root;	 /* NULL: live host */
static char *real_root; /* realpath(root), resolved on first use */

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

const char *sysroot_get(void) { return root ? root : "/"; }
bool sysroot_is_live(void) { return root == NULL; }

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

bool sysroot_exists(const char *path)
{
	_cleanup_free_ char *full = NULL;

	if (sysroot_path(path, &full) < 0)
		return false;
	return access(full, F_OK) == 0;
}

int sysroot_open_read(const char *path)
{
	char full[PATH_MAX];
	int fd, r;

	r = path_in(path, full);
	if (r < 0)
		return r;
	fd = open(full, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	return fd >= 0 ? fd : -errno;
}

/* The file's contents; with first_line, reading stops once a line is
 * complete (one read(2) for a sysfs or procfs attribute, not two). */
static int read_file(const char *path, bool first_line, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = -1;
	size_t len = 0, cap = 4096;
	struct stat st;

	fd = sysroot_open_read(path);
	if (fd < 0)
		return fd;
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

int sysroot_read_int(const char *path, int *ret)
{
	_cleanup_free_ char *s = NULL;
	int r = sysroot_read_line(path, &s);

	if (r < 0)
		return r;
	return safe_atoi(s, ret);
}

int sysroot_readlink_base(const char *path, char **ret)
{
	_cleanup_free_ char *full = NULL;
	char buf[4096];
	ssize_t n;
	char *slash, *s;
	int r;

	r = sysroot_path(path, &full);
	if (r < 0)
		return r;
	n = readlink(full, buf, sizeof(buf) - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	slash = strrchr(buf, '/');
	s = strdup(slash ? slash + 1 : buf);
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

int sysroot_confine(const char *full)
{
	_cleanup_free_ char *dir = NULL, *real_dir = NULL;
	size_t n;

	if (!root)
		return 0;
	dir = strdup(full);
	if (!dir)
		return -ENOMEM;
	real_dir = realpath(dirname(dir), NULL);
	if (!real_dir)
		return -errno;
	/* The root's own real path is resolved once per sysroot_set(). */
	if (!real_root) {
		real_root = realpath(root, NULL);
		if (!real_root)
			return -errno;
	}
	n = strlen(real_root);
	if (streq(real_root, "/"))
		return 0;
	if (strncmp(real_dir, real_root, n) != 0 || (real_dir[n] != '\0' && real_dir[n] != '/'))
		return -EXDEV;
	return 0;
}

/* An existing file under the sysroot, opened for writing without leaving
 * it: openat2() resolves the path beneath the root (-EXDEV when a ".." or
 * an absolute symlink would lead out): three system calls with opening and
 * closing the root, where realpath() of the directory and open() took six.
 * Kernels (or kernel headers at build time) before 5.6, or a seccomp
 * filter that refuses the call (EPERM), get that realpath() check instead. The root is opened per call:
 * a cached descriptor would not survive the --confirm watchdog, which
 * closes every inherited descriptor. The file itself must not be a symlink
 * (O_NOFOLLOW: -ELOOP): a copied tree must not redirect a write to a host
 * file. */
static int openat2_beneath(int dir, const char *rel, int flags)
{
#if defined(SYS_openat2) && defined(RESOLVE_BENEATH)
	struct open_how how = {.flags = (uint64_t)flags, .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS};

	return (int)syscall(SYS_openat2, dir, rel, &how, sizeof(how));
#else
	(void)dir;
	(void)rel;
	(void)flags;
	errno = ENOSYS;
	return -1;
#endif
}

static int open_confined(const char *path, const char *full)
{
	const int flags = O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW;
	_cleanup_close_ int dir = -1;
	int fd, r;

	dir = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	fd = openat2_beneath(dir, path + 1, flags);
	if (fd >= 0)
		return fd;
	if (errno != ENOSYS && errno != EPERM)
		return -errno;
	r = sysroot_confine(full);
	if (r < 0)
		return r;
	fd = open(full, flags);
	return fd >= 0 ? fd : -errno;
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
	if (!root) {
		/* O_TRUNC is ignored by procfs and sysfs, kept for any other file. */
		fd = open(full, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			return -errno;
		n = write(fd, value, len);
	} else {
		fd = open_confined(path, full);
		if (fd < 0)
			return fd;
		/* A plain file: written in place, then cut to length. Not
		 * O_TRUNC: ext4 starts writing back a file truncated to zero
		 * when it is closed (auto_da_alloc), and the next truncation
		 * of it waits for that I/O: 0.2 ms per IRQ of an 8-port apply
		 * or rollback. */
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
