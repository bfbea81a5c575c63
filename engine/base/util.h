/* util.h: small helpers shared by every engine module.
 *
 * Owns: resource-cleanup attributes (_cleanup_*), TAKE_PTR, string and
 * number helpers. Must never: log, exit, or touch the host. Every function
 * returns >= 0 on success and -errno on failure; ret_* outputs are written
 * only on success. */
#ifndef CX5_UTIL_H
#define CX5_UTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define _cleanup_(f)   __attribute__((cleanup(f)))
#define _unused_       __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _warn_unused_  __attribute__((warn_unused_result))

static inline void freep(void *p)
{
	free(*(void **)p);
}
static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}
static inline void closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}
void strv_free(char **v);
static inline void strv_freep(char ***v)
{
	strv_free(*v);
}

#define _cleanup_free_	    _cleanup_(freep)
#define _cleanup_fclose_    _cleanup_(fclosep)
#define _cleanup_close_	    _cleanup_(closep)
#define _cleanup_strv_free_ _cleanup_(strv_freep)

/* Hand ownership out of a _cleanup_ variable. */
#define TAKE_PTR(p)                                                                                          \
	({                                                                                                   \
		__typeof__(p) _p_ = (p);                                                                     \
		(p) = NULL;                                                                                  \
		_p_;                                                                                         \
	})
#define TAKE_FD(fd)                                                                                          \
	({                                                                                                   \
		int _fd_ = (fd);                                                                             \
		(fd) = -1;                                                                                   \
		_fd_;                                                                                        \
	})

static inline bool streq(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}
static inline bool streq_ptr(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}
static inline const char *strna(const char *s)
{
	return s ? s : "n/a";
}
static inline const char *strempty(const char *s)
{
	return s ? s : "";
}

/* Remove trailing whitespace (newlines from sysfs) in place. */
char *strstrip_trailing(char *s);

/* Text for a terminal, in place: control characters other than newline
 * and tab (escape sequences, carriage return, bell, DEL, and the C1
 * controls U+0080..U+009F in UTF-8) become '?', so text from a file, a
 * database, a peer or a server cannot drive the operator's terminal. */
char *str_make_printable(char *s);

/* One line for a terminal, in a new string (NULL: out of memory): a
 * backslash, control characters and DEL as C escapes (\\, \n, \t, \r,
 * \xHH), the C1 controls and the bidirectional controls (U+061C, U+200E,
 * U+200F, U+202A..U+202E, U+2066..U+2069) as \uHHHH, so text from a file
 * can neither add a line nor reorder what the operator reads. */
char *str_escape_line(const char *s);

/* asprintf that returns NULL on failure. */
char *strprintf(const char *fmt, ...) _printf_(1, 2);
char *vstrprintf(const char *fmt, va_list ap) _printf_(1, 0);

/* qsort/bsearch comparator for unsigned int. */
int cmp_unsigned(const void *a, const void *b);

/* NULL-terminated string vectors. */
size_t strv_length(char *const *v);
int strv_push(char ***v, char *s); /* takes ownership of s, even on failure */
int strv_extend(char ***v, const char *s);
/* strv_push of a formatted string. */
int strv_pushf(char ***v, const char *fmt, ...) _printf_(2, 3);
bool strv_contains(char *const *v, const char *s);
void strv_sort(char **v);

/* The names of a table, for messages that list what is known: the first
 * field (a const char *) of each of n rows `stride` bytes apart, joined
 * with ", " into buf (cut at size). */
void table_names_join(const void *rows, size_t stride, size_t n, char *buf, size_t size);

/* Strict decimal parsing: whole string, no sign for unsigned, no overflow. */
int safe_atou64(const char *s, uint64_t *ret);
int safe_atoi64(const char *s, int64_t *ret);
int safe_atou32(const char *s, uint32_t *ret);
int safe_atoi(const char *s, int *ret);

/* Sizes with binary suffixes K, M, G (1024-based, as netperf -s): "4M". */
int parse_size(const char *s, uint64_t *ret);

/* Interface names: 1..15 bytes, no '/', no whitespace, not "." or "..".
 * Checked before a name becomes part of a path. */
bool ifname_valid(const char *name);

/* Tests only: is the failpoint name:k set in CX5PROF_FAILPOINT
 * ("name:K[,name:K...]")? The failpoints are listed in apply.h. */
bool failpoint(const char *name, int k);

/* Tests only: CX5PROF_TEST_PAUSE="POINT:FIFO" holds the program at POINT
 * each time it gets there, so a test acts at a known point instead of
 * after a guessed time. At the point the program writes "POINT PID\n" to
 * FIFO (a named pipe the test made; the open waits for the test to read
 * it), then reads FIFO to its end (the open waits for the test to open it
 * for writing: the release). A caught signal ends the wait. Inert when
 * the variable is unset or names another point. The points: `watchdog`
 * (the --confirm watchdog, before it first looks at its deadline),
 * `bench-running` (the netperf and iperf3 runners, once their benchmark
 * processes are started, before they are waited for) and `bench-done`
 * (verify, after the benchmark, before the counters are read again). */
void pause_point(const char *point);

/* Monotonic clock in microseconds. */
uint64_t now_usec(void);

/* Create the directory of path when it is missing, one level only, mode
 * 0700 (a missing deeper tree usually means a mistyped path). 0 when it
 * exists or was made; -ENOTDIR when it is not a directory. */
int mkdir_parent(const char *path);

/* A new file name in dirfd with content, fsync'ed; -EEXIST when there. */
int write_file_at(int dirfd, const char *name, const char *content);
/* 1 when the directory has no entries, 0 when it has, -errno. */
int dir_is_empty(const char *path);

/* Levenshtein distance between s and t, for "did you mean"; SIZE_MAX for
 * strings of 72 characters or more (not compared). */
size_t edit_distance(const char *s, const char *t);

#endif
