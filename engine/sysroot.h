/* sysroot.h: the only door to /proc and /sys.
 *
 * Owns: the root directory under which every /proc and /sys path is
 * resolved ("/" on a live host, a fixture directory with --sysroot, as
 * `lscpu --sysroot`). Paths are given absolute ("/sys/class/net/x/mtu") and
 * must not contain ".." components. Must never: create files (writes go to
 * existing kernel files only), follow a path out of the root through "..". */
#ifndef CX5_SYSROOT_H
#define CX5_SYSROOT_H

#include "util.h"

/* NULL or "/" means the live host. Returns -ENOTDIR if dir is not one. */
int sysroot_set(const char *dir);
const char *sysroot_get(void); /* "/" or the directory given */
bool sysroot_is_live(void);

/* Full path of an absolute host path under the sysroot (caller frees). */
int sysroot_path(const char *path, char **ret);

bool sysroot_exists(const char *path);
/* The file opened for reading (O_CLOEXEC): a descriptor for a reader that
 * takes a big file in pieces, or -errno. */
int sysroot_open_read(const char *path);
/* Whole file (at most 8 MiB; -EFBIG beyond). */
int sysroot_read_all(const char *path, char **ret, size_t *ret_len);
/* First line, trailing whitespace stripped. */
int sysroot_read_line(const char *path, char **ret);
int sysroot_read_u64(const char *path, uint64_t *ret);
int sysroot_read_int(const char *path, int *ret);
/* Basename of a symlink's target ("mlx5_core" for .../drivers/mlx5_core). */
int sysroot_readlink_base(const char *path, char **ret);
/* Entries of a directory, sorted, without "." and "..". */
int sysroot_listdir(const char *path, char ***ret);
/* Replace the contents of an existing file (never creates it); value is
 * written in one write(2), as the kernel expects for /proc/sys and /proc/irq.
 * Under a sysroot the write stays inside it: -ELOOP when the file itself is
 * a symlink, -EXDEV when its directory resolves outside the sysroot (on
 * Linux 5.6 and later an absolute symlink on the way counts as leaving it,
 * wherever it points). The live host ("/") follows links as the kernel's
 * own files need. */
int sysroot_write(const char *path, const char *value);
/* 0 when the directory of full (a path from sysroot_path()) resolves inside
 * the sysroot, -EXDEV when it escapes; always 0 on the live host. For
 * writers of files outside /proc and /sys that still live under the root. */
int sysroot_confine(const char *full);

/* printf-style path helpers for the common case. */
int sysroot_read_linef(char **ret, const char *fmt, ...) _printf_(2, 3);

#endif
