/* log.c: diagnostics to stderr (see log.h). */
#define _GNU_SOURCE
#include "log.h"

#include <stdarg.h>

static enum log_level max_level = LOG_NOTICE;
static char first_error[512];

void log_set_level(enum log_level level)
{
	max_level = level;
}
const char *log_first_error(void)
{
	return first_error[0] ? first_error : NULL;
}

int log_full(enum log_level level, int err, const char *fmt, ...)
{
	static const char *const prefix[] = {
	    [LOG_ERR] = "error: ", [LOG_WARN] = "warning: ", [LOG_NOTICE] = "",
	    [LOG_INFO] = "",	   [LOG_DEBUG] = "debug: ",
	};
	int saved = errno;
	va_list ap;

	if (err < 0)
		err = -err;
	if (level == LOG_ERR && !first_error[0]) {
		errno = err; /* for %m */
		va_start(ap, fmt);
		vsnprintf(first_error, sizeof(first_error), fmt, ap);
		va_end(ap);
	}
	if (level <= max_level) {
		_cleanup_free_ char *msg = NULL;

		errno = err; /* for %m */
		va_start(ap, fmt);
		msg = vstrprintf(fmt, ap);
		va_end(ap);
		/* A message may quote a file name, a profile's text or a
		 * peer's answer: no terminal control reaches stderr. */
		fprintf(stderr, "cx5prof: %s%s\n", prefix[level], msg ? str_make_printable(msg) : fmt);
	}
	errno = saved;
	return -err;
}
