/* sysroot.c: /proc and /sys access under a root directory (see sysroot.h). */
#define _GNU_SOURCE
#include "sysroot.h"

#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <sys/stat.h>

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

int sysroot_path(const char *path, char **ret)
{
	char *s;

	if (!path_safe(path))
		return -EINVAL;
	s = root ? strprintf("%s%s", root, path) : strdup(path);
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

int sysroot_read_all(const char *path, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *full = NULL, *buf = NULL;
	_cleanup_close_ int fd = -1;
	size_t len = 0, cap = 4096;
	int r;

	r = sysroot_path(path, &full);
	if (r < 0)
		return r;
	fd = open(full, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
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
	}
	buf[len] = '\0';
	if (ret_len)
		*ret_len = len;
	*ret = TAKE_PTR(buf);
	return 0;
}

int sysroot_read_line(const char *path, char **ret)
{
	_cleanup_free_ char *s = NULL;
	char *nl;
	int r;

	r = sysroot_read_all(path, &s, NULL);
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
	_cleanup_free_ char *path = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&path, fmt, ap);
	va_end(ap);
	if (r < 0) {
		path = NULL;
		return -ENOMEM;
	}
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

int sysroot_write(const char *path, const char *value)
{
	_cleanup_free_ char *full = NULL;
	_cleanup_close_ int fd = -1;
	size_t len = strlen(value);
	ssize_t n;
	int r;

	r = sysroot_path(path, &full);
	if (r < 0)
		return r;
	r = sysroot_confine(full);
	if (r < 0)
		return r;
	/* O_TRUNC is ignored by procfs and needed for a sysroot's plain files.
	 * Under a sysroot, O_NOFOLLOW refuses a final-component symlink (ELOOP):
	 * a copied tree must not redirect a write to a host file. */
	fd = open(full, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY | (root ? O_NOFOLLOW : 0));
	if (fd < 0)
		return -errno;
	n = write(fd, value, len);
	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	if (close(TAKE_FD(fd)) < 0)
		return -errno;
	return 0;
}
