/* keys.h: a profile key: its row (name, type, range, help), the value
 * types its field holds, and where each value was written.
 *
 * Owns: the vocabulary profile.c's own tables and the change kinds' key
 * rows (kinds/kinds.h) are written in, and the error a bad value gets
 * ("file:line:col: message"). Must never: know a section of the format
 * (profile.h) or a kind. */
#ifndef CX5_KEYS_H
#define CX5_KEYS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

/* Where a value was written. file points into profile->files (or is the
 * mirror config path); line and column are 1-based, 0 when unknown. */
struct profile_mark {
	const char *file;
	unsigned line;
	unsigned column;
};

struct profile_uint {
	bool set;
	uint64_t value;
	struct profile_mark at;
};

struct profile_double {
	bool set;
	double value;
	struct profile_mark at;
};

struct profile_bool {
	bool set;
	bool value;
	struct profile_mark at;
};

/* For enums: value is one of the enum types below. */
struct profile_enum {
	bool set;
	int value;
	struct profile_mark at;
};

struct profile_string {
	bool set;
	char *value; /* never NULL when set */
	struct profile_mark at;
};

struct profile_strv {
	bool set;
	char **value; /* NULL-terminated, at least one entry when set */
	struct profile_mark at;
};

/* A list of integers (KT_UINTS). */
struct profile_uints {
	bool set;
	uint64_t *value;
	size_t n; /* >= 1 when set */
	struct profile_mark at;
};

struct profile_pci_id {
	uint16_t vendor;
	uint16_t device;
};

struct profile_pci_list {
	bool set;
	struct profile_pci_id *ids;
	size_t n_ids; /* >= 1 when set */
	struct profile_mark at;
};

/* A load failure. line/column are 1-based; 0 when the problem has no place
 * in the file (missing file, file too large). file is the file at fault,
 * which may be a parent in the extends chain. */
struct profile_error {
	char file[1024];
	unsigned line;
	unsigned column;
	char message[512];
};

/* ---- key tables ----
 * Every key of the format is one row: its name, its type, its range, where
 * its value goes and one line of help. profile.c holds the rows of the
 * profile's own sections (match, requires, verify, peer, mirror); each
 * change kind holds the rows of the keys it manages (kinds/kinds.h), which
 * the loader places under their section, in change_kinds[] order. The JSON
 * Schema's key section and the man page's key table are generated from
 * these rows (`make docs`). */

enum profile_key_type {
	KT_SECTION,	   /* a mapping with its own table (children) */
	KT_FORMAT_VERSION, /* version: 1 */
	KT_UINT,	   /* decimal integer min..max: struct profile_uint */
	KT_SIZE,	   /* integer or "4M" (K, M, G: 1024-based), min..max bytes: struct profile_uint */
	KT_NUMBER,	   /* integer or decimal fraction, dmin..dmax: struct profile_double */
	KT_BOOL,	   /* true | false: struct profile_bool */
	KT_ENUM,	   /* one of names[]: struct profile_enum */
	KT_TEXT,	   /* a string of min..max characters that the row's check accepts (any without one):
			    * struct profile_string (so are the next ones) */
	KT_NAME,	   /* profile name */
	KT_EXTENDS,	   /* path of a parent profile, or a list of them: struct profile_strv */
	KT_VERSION,	   /* version.h syntax */
	KT_DRIVER,	   /* kernel driver name */
	KT_CPULIST,	   /* "8-15,24-31" (min 1: must not be empty) */
	KT_PEER,	   /* IP literal or host name */
	KT_URL,		   /* http:// or https:// */
	KT_ABSPATH,	   /* absolute path */
	KT_ENVNAME,	   /* environment variable name */
	KT_SSH_TARGET,	   /* [user@]host for ssh */
	KT_COMMAND,	   /* absolute path of a program, no shell characters */
	KT_IFNAMES,	   /* list of interface names: struct profile_strv */
	KT_PCI,		   /* list of vendor:device: struct profile_pci_list */
	KT_RUNNERS,	   /* runner name or list of them: struct profile_strv */
	KT_UINTS,	   /* a list of integers, each min..max: struct profile_uints */
	KT_OWN,		   /* a value of its owner's shape, read by the row's codec (struct key_codec) */
	KT_FORBIDDEN,	   /* a key that is always an error (why says why) */
	KT_KINDS,	   /* where the change kinds' keys of this name go (profile.c's own tables) */
	_KT_MAX,
};

struct profile_loader;
struct ynode;
struct json_object;
struct profile_key;

/* How a KT_OWN key's value is read, kept and written back: a change
 * kind's value of its own shape (sysctl's NAME: VALUE map, link.features,
 * link.private_flags), read with keyread.h's helpers into the field. */
struct key_codec {
	/* What `make docs` calls the value ("sysctls", "features", "flags"). */
	const char *doc_type;
	/* A map of entries that a campaign's sweep (profile_overlay_key)
	 * cannot set as one value. */
	bool not_one_value;
	/* Read v (the YAML value at path) over what field holds: a child
	 * file's entries replace its parent's, `NAME: ~` removes one. 0, or
	 * the error in l (keyread.h) and -EINVAL / -ENOMEM. */
	int (*parse)(struct profile_loader *l, const struct profile_key *k, const struct ynode *v,
		     void *field, const char *path);
	/* Anything set. */
	bool (*is_set)(const void *field);
	/* Free what field holds and leave it as never set. */
	void (*unset)(void *field);
	/* Its JSON in the effective profile (loaded back by parse); NULL
	 * when nothing is set. */
	struct json_object *(*json)(const void *field);
};

struct profile_key {
	const char *name;
	enum profile_key_type type;
	size_t offset; /* field of the base; for sections: shift of the base for children */
	int64_t min, max;
	double dmin, dmax;
	bool dmin_exclusive;
	const char *const *names; /* KT_ENUM, KT_RUNNERS: NULL-terminated */
	const struct profile_key *children;
	void (*enter)(struct profile_loader *l, void *field, const struct ynode *key);
	const char *why;  /* KT_FORBIDDEN */
	const char *help; /* one line for the man page and the JSON Schema */
	/* KT_TEXT: NULL when value is acceptable, else the end of the message
	 * "PATH: "VALUE" is not ..."; KT_OWN: what its codec makes of it (private_flags: of each NAME). NULL:
	 * any. */
	const char *(*check)(const char *value);
	bool int_ok;		       /* KT_TEXT: a plain integer is its text too ("equal: 8") */
	const struct key_codec *codec; /* KT_OWN */
	const char *pattern; /* KT_TEXT, private_flags' names: what check accepts, as a JSON Schema pattern */
};

#define PROFILE_KEY_UINT(n, o, lo, hi, h)                                                                    \
	{                                                                                                    \
		.name = n, .type = KT_UINT, .offset = o, .min = lo, .max = hi, .help = h                     \
	}
#define PROFILE_KEY_BOOL(n, o, h)                                                                            \
	{                                                                                                    \
		.name = n, .type = KT_BOOL, .offset = o, .help = h                                           \
	}
#define PROFILE_KEY_ENUM(n, o, list, h)                                                                      \
	{                                                                                                    \
		.name = n, .type = KT_ENUM, .offset = o, .names = list, .help = h                            \
	}
#define PROFILE_KEY_SECTION(n, table, h)                                                                     \
	{                                                                                                    \
		.name = n, .type = KT_SECTION, .children = table, .help = h                                  \
	}

/* A failure of a check that spans keys, placed at `at`: fills err (may be
 * NULL) and returns -EINVAL. */
int profile_fail_at(struct profile_error *err, const struct profile_mark *at, const char *fmt, ...)
    _printf_(3, 4);
/* The same at file:line:column with a va_list (keyread.h's failures). */
int profile_vfail_at(struct profile_error *err, const char *file, unsigned line, unsigned column,
		     const char *fmt, va_list ap) _printf_(5, 0);

/* The row at a dotted path ("verify.socket_buffer.send") among rows, its
 * sections' rows below them, and its field under base: 0, -ENOENT no such
 * row, -EISDIR a section. The one walk of a key path, for profile.c's own
 * tables and a kind's rows. */
int keys_row_at(const struct profile_key *rows, const char *path, const void *base,
		const struct profile_key **ret_key, const void **ret_field);
/* The row named by the first len characters of name, NULL when none. */
const struct profile_key *keys_row_named(const struct profile_key *rows, const char *name, size_t len);

#endif
