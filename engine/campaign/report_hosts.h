/* report_hosts.h: report.html of a fleet (`cx5prof report --hosts`): one
 * row per host, from fleet.h's rows.
 *
 * Owns: the fleet page's layout; its escaping, page frame and chart are
 * base/html.h's and base/chart.h's, as report.html's.
 * Must never: write files, read anything but the document, or emit a URL. */
#ifndef CX5_REPORT_HOSTS_H
#define CX5_REPORT_HOSTS_H

#include <json-c/json.h>

/* The page of doc ({"verdict", "hosts": [fleet_host_row's rows]}). */
int report_hosts_html(struct json_object *doc, char **ret);

#endif
