/* keyread.h: reading one key's value from a YAML tree (base/yamltree.h),
 * with the place it was written and the exact error a bad one gets
 * ("file:line:col: PATH: expected ..., got ...").
 *
 * Owns: the reader's state (struct profile_loader: which file, where the
 * error goes), the scalar forms the format accepts (decimal integers,
 * sizes like 4M, on | off), a mapping's keys (strings, no repeats) and the
 * "did you mean" hint. profile.c reads its own keys with it, a change kind
 * the values of a key of its own shape (KT_OWN: struct key_codec, keys.h).
 * Must never: read a file or know a key of the format. */
#ifndef CX5_KEYREAD_H
#define CX5_KEYREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"
#include "base/yamltree.h"
#include "keys.h"

/* Room for a key's dotted path in messages ("sysctl.net.core.rmem_max"). */
#define KEY_PATH_BUF 256

struct profile_loader {
	const char *file; /* stable name of the file being applied (marks point here) */
	struct profile_error *err;
	/* Overlays (profile_overlay): a value written in this file is kept. */
	const char *keep_from;
};

/* Fill l->err (when set) with the message at file:line:column, or at node
 * `at` of l->file; -EINVAL. */
int key_fail_at(struct profile_loader *l, const char *file, unsigned line, unsigned column, const char *fmt,
		...) _printf_(5, 6);
int key_fail(struct profile_loader *l, const struct ynode *at, const char *fmt, ...) _printf_(3, 4);
/* "out of memory" with no place in file; -ENOMEM. */
int key_fail_oom(struct profile_loader *l, const char *file);
/* "PATH: expected WHAT, got DESCRIPTION OF v"; -EINVAL. */
int key_expect(struct profile_loader *l, const struct ynode *v, const char *path, const char *what);
/* Where node n of the file being read was written. */
struct profile_mark key_mark(const struct profile_loader *l, const struct ynode *n);
/* The closest of n names (stride bytes apart, a NULL name ends them) to s,
 * for "did you mean": within 2 edits, or a quarter of a long name, or a
 * name s is a prefix of (at least 4 characters); NULL: none. */
const char *key_closest(const char *s, const void *names, size_t stride, size_t n);
/* A plain decimal integer (optional sign, no leading zeros): 0, -EINVAL
 * not one, -ERANGE beyond int64. */
int key_scalar_integer(const struct ynode *v, int64_t *ret);
/* An integer or a size ("4M", K, M, G: 1024-based), quoted or not. */
int key_scalar_size(const struct ynode *v, int64_t *ret);
/* Key i of mapping map is a string that no earlier key repeats; else the
 * error, -EINVAL. */
int key_check_name(struct profile_loader *l, const struct ynode *map, size_t i);
/* v is YAML null (`~`, `null`, nothing): `key: ~` removes what a parent set. */
bool key_is_null(const struct ynode *v);
/* on | off (true | false too), plain scalars only; "PATH.NAME: expected on
 * or off, got ..." otherwise. */
int key_on_off(struct profile_loader *l, const struct ynode *v, const char *path, const char *name,
	       bool *ret);

#endif
