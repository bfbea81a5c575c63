/* jsonget.c: see jsonget.h. */
#include "jsonget.h"

#include <math.h>

struct json_object *jget(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

double jnum(struct json_object *o, const char *key)
{
	struct json_object *v = jget(o, key);

	return v ? json_object_get_double(v) : NAN;
}

const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v = jget(o, key);

	return v ? json_object_get_string(v) : NULL;
}
