/* tunereport.h: the report.html of `cx5prof tune --report DIR` (see
 * tunereport.c). */
#ifndef CX5_TUNEREPORT_H
#define CX5_TUNEREPORT_H

#include <json-c/json.h>

/* The page of a session document (schemas/tune.schema.json): *ret
 * (caller frees). 0, -ENOMEM. */
int tune_report_html(struct json_object *doc, char **ret);

#endif
