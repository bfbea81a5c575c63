/* keys.c: a profile key's error and the walk of a key path (see keys.h). */
#include "keys.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int profile_vfail_at(struct profile_error *err, const char *file, unsigned line, unsigned column,
		     const char *fmt, va_list ap)
{
	if (err) {
		snprintf(err->file, sizeof(err->file), "%s", file);
		err->line = line;
		err->column = column;
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
	}
	return -EINVAL;
}

int profile_fail_at(struct profile_error *err, const struct profile_mark *at, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = profile_vfail_at(err, at->file, at->line, at->column, fmt, ap);
	va_end(ap);
	return r;
}

const struct profile_key *keys_row_named(const struct profile_key *rows, const char *name, size_t len)
{
	for (const struct profile_key *k = rows; k->name; k++)
		if (strlen(k->name) == len && strncmp(k->name, name, len) == 0)
			return k;
	return NULL;
}

int keys_row_at(const struct profile_key *rows, const char *path, const void *base,
		const struct profile_key **ret_key, const void **ret_field)
{
	for (;;) {
		size_t n = strcspn(path, ".");
		const struct profile_key *k = keys_row_named(rows, path, n);

		if (!k)
			return -ENOENT;
		base = (const char *)base + k->offset;
		if (!path[n]) {
			if (k->type == KT_SECTION)
				return -EISDIR;
			*ret_key = k;
			*ret_field = base;
			return 0;
		}
		if (k->type != KT_SECTION)
			return -ENOENT;
		rows = k->children;
		path += n + 1;
	}
}
