/* keys.c: a profile key's error (see keys.h). */
#include "keys.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

int profile_fail_at(struct profile_error *err, const struct profile_mark *at, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		snprintf(err->file, sizeof(err->file), "%s", at->file);
		err->line = at->line;
		err->column = at->column;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}
