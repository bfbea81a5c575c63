/* sysroot.h: the only door to /proc and /sys.
 *
 * Owns: the root directory under which every /proc and /sys path is
 * resolved ("/" on a live host, a fixture directory with --sysroot, as
 * `lscpu --sysroot`). Paths are given absolute ("/sys/class/net/x/mtu") and
 * must not contain ".." components. Must never: create files (writes go to
 * existing kernel files only), follow a path out of the root, for a read
 * or a write. */
#ifndef CX5_SYSROOT_H
#define CX5_SYSROOT_H

#include <sys/stat.h>

#include "base/util.h"

/* NULL or "/" means the live host. Returns -ENOTDIR if dir is not one. */
int sysroot_set(const char *dir);
const char *sysroot_get(void); /* "/" or the directory given */
bool sysroot_is_live(void);

/* Full path of an absolute host path under the sysroot (caller frees). */
int sysroot_path(const char *path, char **ret);

bool sysroot_exists(const char *path);
/* stat(2) of path (follow: of what its last symlink points to, else of the
 * link itself), confined to the sysroot like a read. */
int sysroot_stat(const char *path, bool follow, struct stat *ret);
/* Every read below opens without blocking (O_NONBLOCK) and reads only a
 * regular file: -EISDIR for a directory, -EBADFD for anything else (a
 * FIFO, socket or device: sysroot_strerror says so), never waiting on a
 * FIFO. A directory's reader (sysroot_listdir) gets -ENOTDIR for a file.
 * The text of a read's -errno for people: sysroot_strerror. */
const char *sysroot_strerror(int r);
/* The file opened for reading (O_CLOEXEC): a descriptor for a reader that
 * takes a big file in pieces, or -errno. */
int sysroot_open_read(const char *path);
/* The same, but on the live host (no --sysroot) a character device is
 * accepted too (/dev/kmsg; O_NONBLOCK, so a read at its end says EAGAIN);
 * under --sysroot only a regular file, as for sysroot_open_read(). */
int sysroot_open_read_device(const char *path);
/* Whole file (at most 8 MiB; -EFBIG beyond). */
int sysroot_read_all(const char *path, char **ret, size_t *ret_len);
/* First line, trailing whitespace stripped. */
int sysroot_read_line(const char *path, char **ret);
int sysroot_read_u64(const char *path, uint64_t *ret);
/* A symlink's target as it is written ("../../devices/pci0000:00/..."). */
int sysroot_readlink(const char *path, char **ret);
/* Basename of a symlink's target ("mlx5_core" for .../drivers/mlx5_core). */
int sysroot_readlink_base(const char *path, char **ret);
/* Entries of a directory, sorted, without "." and "..". */
int sysroot_listdir(const char *path, char ***ret);
/* Every read (and sysroot_exists, _listdir, _readlink_base) stays inside
 * the sysroot too: a path whose ".." or symlink (absolute, on Linux 5.6
 * and later) leads out of it fails with -EXDEV; the live host ("/")
 * follows links as the kernel's own files need. */
/* Replace the contents of an existing file (never creates it); value is
 * written in one write(2), as the kernel expects for /proc/sys and /proc/irq.
 * Under a sysroot the file is written in place and cut to length (a kill
 * between the two leaves it torn: read it back with sysroot_read_is), and
 * the write stays inside the sysroot: -ELOOP when the file itself is a
 * symlink, -EXDEV when its path resolves outside the sysroot, -EBADFD
 * when it is not a regular file. A sysroot file that does not end in a
 * newline (a copied or hand-made tree) keeps none: value's final newline
 * is left out, so a value written back restores the file byte for byte. */
int sysroot_write(const char *path, const char *value);
/* 1 when the whole file is exactly want (byte for byte: a value followed
 * by anything, even a newline more, is not; a sysroot file without a
 * final newline is want without its own, as sysroot_write writes it), 0
 * when not, -errno. The read-back of a write. */
int sysroot_read_is(const char *path, const char *want);
/* 0 when the directory of full (a path from sysroot_path()) resolves inside
 * the sysroot, -EXDEV when it escapes; always 0 on the live host. For
 * writers of files outside /proc and /sys that still live under the root. */
int sysroot_confine(const char *full);

/* The kernel's network counters of this process's network namespace
 * (/proc/net/snmp, /proc/net/snmp6) and the host-wide /proc/net/softnet_stat
 * are never a fixture: they are read from the live /proc even under a
 * sysroot, so that a sysroot (hardware facts) combined with the lab's
 * namespaces measures real counters. Only those files: -EPERM for any
 * other path. Whole file, as sysroot_read_all. */
int sysroot_read_live_counters(const char *path, char **ret, size_t *ret_len);

/* Every read, as it happens: the path and what was asked of it (a file's
 * contents, a directory's entries, a link's target, or only that the node
 * is there). `snapshot` records a probe's reads this way to copy what it
 * read; NULL stops it. Writes are never observed. */
enum sysroot_access { SYSROOT_READ, SYSROOT_LIST, SYSROOT_LINK, SYSROOT_NODE };
typedef void (*sysroot_observer_fn)(const char *path, enum sysroot_access access, void *userdata);
void sysroot_observe(sysroot_observer_fn fn, void *userdata);
/* A read-only sysroot (a snapshot): every write fails with -EROFS. */
void sysroot_set_read_only(bool read_only);

/* printf-style path helpers for the common case. */
int sysroot_read_linef(char **ret, const char *fmt, ...) _printf_(2, 3);

#endif
