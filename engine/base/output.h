/* output.h: the one printer for results, for people and for machines.
 *
 * Owns: stdout. Every result goes through these calls, iproute2-style:
 *   out_uint(OUT_ANY, "mtu", "mtu %" PRIu64 " ", mtu);
 * prints "mtu 9000 " for people and adds "mtu": 9000 to the JSON document,
 * so human and JSON output cannot drift apart. OUT_HUMAN / OUT_JSON limit a
 * call to one mode. In JSON mode nothing reaches stdout until out_finish().
 * JSON keys are documented under schemas/. Human output shows control
 * characters other than newline and tab as '?' (str_make_printable);
 * JSON carries them escaped. Must never: print diagnostics (those go to
 * stderr through log.h). */
#ifndef CX5_OUTPUT_H
#define CX5_OUTPUT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "util.h"

enum out_mode { OUT_ANY, OUT_HUMAN, OUT_JSON };

void out_init(bool json);
bool out_is_json(void);

/* Containers; key is NULL at the top level and inside arrays. */
void out_open_object(const char *key);
void out_close_object(void);
void out_open_array(const char *key);
void out_close_array(void);

/* fmt is the human format (may be NULL: JSON only); val NULL prints JSON
 * null and, for people, "-" through fmt's %s. */
void out_string(enum out_mode m, const char *key, const char *fmt, const char *val);
void out_uint(enum out_mode m, const char *key, const char *fmt, uint64_t v);
void out_int(enum out_mode m, const char *key, const char *fmt, int64_t v);
void out_double(enum out_mode m, const char *key, const char *fmt, double v);
void out_bool(enum out_mode m, const char *key, const char *fmt, bool v);
/* JSON only: add an already built json-c value (ownership taken). */
void out_json(const char *key, struct json_object *v);
/* Human only: free text. */
void out_text(const char *fmt, ...) _printf_(1, 2);

/* Push what people were shown so far to stdout now (a campaign's rounds
 * as they end). 0, or -errno: -EPIPE once the reader has gone. */
int out_flush(void);

/* Print the JSON document (JSON mode) and release it. Returns 0 or -errno. */
int out_finish(void);

/* JSON mode, when no document was printed yet: print the one error
 * document, {"changed": false, "failed": true, "exit_code", "msg"}
 * (schemas/error.schema.json), in place of any unfinished one. Every verb
 * that fails prints exactly one document with --json. Returns 0 or -errno. */
int out_error(int exit_code, const char *msg);

#endif
