/* jsonget.h: reading a member of a JSON document that may be missing.
 *
 * Owns: the one rule for the documents cx5prof reads back (campaign, tune,
 * fleet): a member that is absent or JSON null reads as NULL or NAN. Must
 * never: allocate, or treat null as 0. */
#ifndef CX5_JSONGET_H
#define CX5_JSONGET_H

#include <json-c/json.h>

/* Member key of o (o may be NULL), or NULL when absent or null. */
struct json_object *jget(struct json_object *o, const char *key);
/* Its number, or NAN. */
double jnum(struct json_object *o, const char *key);
/* Its text (owned by o), or NULL. */
const char *jstr(struct json_object *o, const char *key);

#endif
