/* reportdir.h: writing a report directory whole or not at all (see
 * reportdir.c). Each function returns 0 or -errno (-ENOTEMPTY: DIR holds
 * something; -ENOTDIR: DIR is a file). */
#ifndef CX5_REPORTDIR_H
#define CX5_REPORTDIR_H

#include <json-c/json.h>

struct history;

/* Before anything runs: DIR is a new path whose parent takes it, or an
 * empty directory. */
int report_dir_check(const char *dir);
/* The document doc (as json_name), its runs' bundles (read from h) and the
 * pages (report.html, report.svg), into a temporary sibling renamed to dir. */
int report_dir_write(const char *dir, struct history *h, struct json_object *doc, const char *json_name);
/* A page html as report.html and doc as json_name into dir (created, or
 * empty): the fleet's report and tune's. */
int report_dir_write_page(const char *dir, const char *html, struct json_object *doc, const char *json_name);
/* The fleet's report.html and hosts.json into dir (created, or empty). */
int report_dir_write_hosts(const char *dir, struct json_object *doc);

#endif
