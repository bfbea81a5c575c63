/* output.c: human and JSON result printer (see output.h). */
#define _GNU_SOURCE
#include "output.h"

#include <stdarg.h>

#define OUT_MAX_DEPTH 32

static bool json_mode;
static struct json_object *stack[OUT_MAX_DEPTH];
static int depth; /* number of open containers */
static struct json_object *root;
static bool printed; /* a JSON document reached stdout */

void out_init(bool json)
{
	json_mode = json;
	depth = 0;
	root = NULL;
}

bool out_is_json(void)
{
	return json_mode;
}

static bool wants_human(enum out_mode m)
{
	return !json_mode && m != OUT_JSON;
}
static bool wants_json(enum out_mode m)
{
	return json_mode && m != OUT_HUMAN;
}

/* Attach v under key to the innermost open container (or make it the root). */
static void attach(const char *key, struct json_object *v)
{
	struct json_object *top;

	if (depth == 0) {
		json_object_put(root);
		root = v;
		return;
	}
	top = stack[depth - 1];
	if (json_object_is_type(top, json_type_array))
		json_object_array_add(top, v);
	else
		json_object_object_add(top, key ? key : "", v);
}

static void open_container(const char *key, struct json_object *c)
{
	if (!json_mode)
		return;
	if (depth >= OUT_MAX_DEPTH) {
		json_object_put(c);
		abort(); /* programming error: unbalanced or runaway nesting */
	}
	attach(key, c);
	stack[depth++] = c;
}

void out_open_object(const char *key)
{
	open_container(key, json_mode ? json_object_new_object() : NULL);
}
void out_open_array(const char *key)
{
	open_container(key, json_mode ? json_object_new_array() : NULL);
}

void out_close_object(void)
{
	if (json_mode && depth > 0)
		depth--;
}

void out_close_array(void)
{
	out_close_object();
}

/* Every human line: whatever a value holds (a profile's description, a
 * file name, a peer's or a server's text), no control character but
 * newline and tab reaches the terminal (str_make_printable). */
static void human_v(const char *fmt, va_list ap)
{
	_cleanup_free_ char *s = vstrprintf(fmt, ap);

	fputs(s ? str_make_printable(s) : "(out of memory)", stdout);
}

static void human(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	human_v(fmt, ap);
	va_end(ap);
}

void out_string(enum out_mode m, const char *key, const char *fmt, const char *val)
{
	if (wants_json(m))
		attach(key, val ? json_object_new_string(val) : NULL);
	else if (wants_human(m) && fmt)
		human(fmt, val ? val : "-");
}

void out_uint(enum out_mode m, const char *key, const char *fmt, uint64_t v)
{
	if (wants_json(m))
		attach(key, json_object_new_uint64(v));
	else if (wants_human(m) && fmt)
		human(fmt, v);
}

void out_int(enum out_mode m, const char *key, const char *fmt, int64_t v)
{
	if (wants_json(m))
		attach(key, json_object_new_int64(v));
	else if (wants_human(m) && fmt)
		human(fmt, v);
}

void out_double(enum out_mode m, const char *key, const char *fmt, double v)
{
	if (wants_json(m))
		attach(key, json_object_new_double(v));
	else if (wants_human(m) && fmt)
		human(fmt, v);
}

void out_bool(enum out_mode m, const char *key, const char *fmt, bool v)
{
	if (wants_json(m))
		attach(key, json_object_new_boolean(v));
	else if (wants_human(m) && fmt)
		human(fmt, v ? "yes" : "no");
}

void out_json(const char *key, struct json_object *v)
{
	if (json_mode)
		attach(key, v);
	else
		json_object_put(v);
}

void out_text(const char *fmt, ...)
{
	va_list ap;

	if (json_mode)
		return;
	va_start(ap, fmt);
	human_v(fmt, ap);
	va_end(ap);
}

int out_flush(void)
{
	return fflush(stdout) != 0 ? -errno : 0;
}

int out_finish(void)
{
	int r = 0;

	if (json_mode && root) {
		const char *s = json_object_to_json_string_ext(
		    root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
		if (puts(s) < 0)
			r = -EIO;
		printed = true;
	}
	json_object_put(root);
	root = NULL;
	depth = 0;
	if (fflush(stdout) != 0)
		r = -errno;
	return r;
}

int out_error(int exit_code, const char *msg)
{
	if (!json_mode || printed)
		return 0;
	json_object_put(root); /* a document the verb could not finish */
	root = NULL;
	depth = 0;
	out_open_object(NULL);
	out_bool(OUT_JSON, "changed", NULL, false);
	out_bool(OUT_JSON, "failed", NULL, true);
	out_int(OUT_JSON, "exit_code", NULL, exit_code);
	out_string(OUT_JSON, "msg", NULL, msg);
	out_close_object();
	return out_finish();
}
