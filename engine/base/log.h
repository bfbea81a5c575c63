/* log.h: diagnostics to stderr.
 *
 * Owns: the verbosity level and the one format of diagnostic lines
 * ("cx5prof: error: ..."). Library modules log at debug level only; the
 * command layer reports a failure once, with the object and the remedy.
 * Control characters other than newline and tab in a message are printed
 * as '?' (str_make_printable). Must never: write to stdout (results go
 * through output.h). */
#ifndef CX5_LOG_H
#define CX5_LOG_H

#include "util.h"

/* LOG_NOTICE: normal progress a long-running verb reports by default
 * (serve), printed without a "warning:" prefix. */
enum log_level { LOG_ERR, LOG_WARN, LOG_NOTICE, LOG_INFO, LOG_DEBUG };

void log_set_level(enum log_level level);
/* The first error reported by this process (without the "cx5prof: error: "
 * prefix), for the --json error document; NULL when none was. */
const char *log_first_error(void);

/* Returns -abs(err) so callers can `return log_error_errno(r, ...)`. */
int log_full(enum log_level level, int err, const char *fmt, ...) _printf_(3, 4);

#define log_error(...)	log_full(LOG_ERR, 0, __VA_ARGS__)
#define log_warn(...)	log_full(LOG_WARN, 0, __VA_ARGS__)
#define log_notice(...) log_full(LOG_NOTICE, 0, __VA_ARGS__)
#define log_info(...)	log_full(LOG_INFO, 0, __VA_ARGS__)
#define log_debug(...)	log_full(LOG_DEBUG, 0, __VA_ARGS__)
/* %m in fmt expands to strerror(err). */
#define log_error_errno(err, ...) log_full(LOG_ERR, (err), __VA_ARGS__)
#define log_warn_errno(err, ...)  log_full(LOG_WARN, (err), __VA_ARGS__)
#define log_debug_errno(err, ...) log_full(LOG_DEBUG, (err), __VA_ARGS__)

#endif
