/* util.c: string, vector and number helpers (see util.h). */
#define _GNU_SOURCE
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>

void strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

char *strstrip_trailing(char *s)
{
	size_t n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

char *str_make_printable(char *s)
{
	for (unsigned char *p = (unsigned char *)s; p && *p; p++) {
		if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			p[0] = '?';
			p[1] = '?';
			p++;
		} else if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
			*p = '?';
	}
	return s;
}

/* The code point of a C1 or bidirectional control at p (UTF-8), and its
 * length in *ret_len; 0 when p starts none. */
static unsigned invisible_control(const unsigned char *p, size_t *ret_len)
{
	unsigned cp;

	if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
		*ret_len = 2;
		return p[1];
	}
	if (p[0] == 0xd8 && p[1] == 0x9c) {
		*ret_len = 2;
		return 0x061c;
	}
	if (p[0] != 0xe2 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80)
		return 0;
	cp = 0x2000 | (unsigned)(p[1] & 0x3f) << 6 | (unsigned)(p[2] & 0x3f);
	if (cp != 0x200e && cp != 0x200f && (cp < 0x202a || cp > 0x202e) && (cp < 0x2066 || cp > 0x2069))
		return 0;
	*ret_len = 3;
	return cp;
}

char *str_escape_line(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)s; p && *p;) {
		size_t n = 1;
		unsigned cp = invisible_control(p, &n);

		if (cp)
			fprintf(f, "\\u%04x", cp);
		else if (*p == '\\')
			fputs("\\\\", f);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p == '\r')
			fputs("\\r", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
		p += n;
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *vstrprintf(const char *fmt, va_list ap)
{
	char *s;
	return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

char *strprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vstrprintf(fmt, ap);
	va_end(ap);
	return s;
}

int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return (x > y) - (x < y);
}

size_t strv_length(char *const *v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	return n;
}

int strv_push(char ***v, char *s)
{
	size_t n = strv_length(*v);
	char **nv;

	if (!s)
		return -ENOMEM;
	nv = realloc(*v, (n + 2) * sizeof(char *));
	if (!nv) {
		free(s);
		return -ENOMEM;
	}
	nv[n] = s;
	nv[n + 1] = NULL;
	*v = nv;
	return 0;
}

int strv_extend(char ***v, const char *s)
{
	return strv_push(v, strdup(s));
}

int strv_pushf(char ***v, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vstrprintf(fmt, ap);
	va_end(ap);
	return strv_push(v, s);
}

bool strv_contains(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (streq(v[i], s))
			return true;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void strv_sort(char **v)
{
	qsort(v, strv_length(v), sizeof(char *), cmp_str);
}

int safe_atou64(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*ret = v;
	return 0;
}

int safe_atoi64(const char *s, int64_t *ret)
{
	char *end;
	long long v;

	if (!s || !(isdigit((unsigned char)s[0]) || (s[0] == '-' && isdigit((unsigned char)s[1]))))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*ret = v;
	return 0;
}

int safe_atou32(const char *s, uint32_t *ret)
{
	uint64_t v;
	int r = safe_atou64(s, &v);

	if (r < 0)
		return r;
	if (v > UINT32_MAX)
		return -ERANGE;
	*ret = (uint32_t)v;
	return 0;
}

int safe_atoi(const char *s, int *ret)
{
	int64_t v;
	int r = safe_atoi64(s, &v);

	if (r < 0)
		return r;
	if (v < INT32_MIN || v > INT32_MAX)
		return -ERANGE;
	*ret = (int)v;
	return 0;
}

int parse_size(const char *s, uint64_t *ret)
{
	static const struct {
		char suffix;
		unsigned shift;
	} units[] = {{'K', 10}, {'M', 20}, {'G', 30}};
	_cleanup_free_ char *num = NULL;
	size_t n;
	uint64_t v;
	int r;

	if (!s || !*s)
		return -EINVAL;
	n = strlen(s);
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (toupper((unsigned char)s[n - 1]) != units[i].suffix)
			continue;
		num = strndup(s, n - 1);
		if (!num)
			return -ENOMEM;
		r = safe_atou64(num, &v);
		if (r < 0)
			return r;
		if (v > (UINT64_MAX >> units[i].shift))
			return -ERANGE;
		*ret = v << units[i].shift;
		return 0;
	}
	r = safe_atou64(s, &v);
	if (r < 0)
		return r;
	*ret = v;
	return 0;
}

bool ifname_valid(const char *name)
{
	size_t n;

	if (!name)
		return false;
	n = strlen(name);
	if (n == 0 || n > 15)
		return false;
	if (streq(name, ".") || streq(name, ".."))
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];
		if (c == '/' || c == ':' || isspace(c) || !isprint(c))
			return false;
	}
	return true;
}

uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

int mkdir_parent(const char *path)
{
	_cleanup_free_ char *copy = strdup(path);
	const char *dir;
	struct stat st;

	if (!copy)
		return -ENOMEM;
	dir = dirname(copy);
	if (stat(dir, &st) == 0)
		return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	if (errno != ENOENT)
		return -errno;
	/* One level only: /var/lib exists on any host; a missing deeper tree
	 * usually means a mistyped --db. */
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

size_t edit_distance(const char *s, const char *t)
{
	size_t n = strlen(s), m = strlen(t), prev[72], cur[72];

	if (n >= ARRAY_SIZE(prev) || m >= ARRAY_SIZE(prev))
		return SIZE_MAX;
	for (size_t j = 0; j <= m; j++)
		prev[j] = j;
	for (size_t a = 1; a <= n; a++) {
		cur[0] = a;
		for (size_t b = 1; b <= m; b++) {
			size_t del = prev[b] + 1, ins = cur[b - 1] + 1,
			       sub = prev[b - 1] + (s[a - 1] != t[b - 1]);
			cur[b] = del < ins ? (del < sub ? del : sub) : (ins < sub ? ins : sub);
		}
		memcpy(prev, cur, sizeof(prev));
	}
	return prev[m];
}

void table_names_join(const void *rows, size_t stride, size_t n, char *buf, size_t size)
{
	size_t len = 0;

	if (size == 0)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++) {
		const char *name = *(const char *const *)((const char *)rows + i * stride);
		int w = snprintf(buf + len, size - len, "%s%s", i ? ", " : "", name);

		if (w < 0)
			return;
		len += (size_t)w;
	}
}

void pause_point(const char *point)
{
	const char *env = getenv("CX5PROF_TEST_PAUSE");
	size_t n = strlen(point);
	char buf[64];
	int fd;

	if (!env || strncmp(env, point, n) != 0 || env[n] != ':' || !env[n + 1])
		return;
	fd = open(env + n + 1, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	(void)!dprintf(fd, "%s %d\n", point, (int)getpid());
	close(fd);
	fd = open(env + n + 1, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

bool failpoint(const char *name, int k)
{
	const char *env = getenv("CX5PROF_FAILPOINT");
	_cleanup_free_ char *want = strprintf("%s:%d", name, k);
	size_t n;

	if (!env || !want)
		return false;
	n = strlen(want);
	for (const char *p = env; (p = strstr(p, want)); p += n)
		if ((p == env || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
			return true;
	return false;
}

int write_file_at(int dirfd, const char *name, const char *content)
{
	_cleanup_close_ int fd =
	    openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	size_t len = strlen(content), done = 0;

	if (fd < 0)
		return -errno;
	while (done < len) {
		ssize_t w = write(fd, content + done, len - done);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (size_t)w;
	}
	return fsync(fd) < 0 ? -errno : 0;
}

int dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
			n++;
	closedir(d);
	return n == 0;
}
