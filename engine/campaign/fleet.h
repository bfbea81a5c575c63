/* fleet.h: the hosts of a rollout, one row each, from the directory each
 * host's results were written to: `cx5prof export`'s bundle (run.json,
 * the host's verify run) and the fleet playbook's row (host.json:
 * contrib/ansible/playbooks/tasks/summary-row.yml).
 *
 * Owns: a host row's fields and which file each comes from, and the
 * fleet's verdict in the words a campaign uses for its runs (pass, fail,
 * drift, error, interrupted) and "not run". Must never: write anything, read anything
 * but those two files, or name a cause the rows do not state. */
#ifndef CX5_FLEET_H
#define CX5_FLEET_H

#include <json-c/json.h>

/* The row of the host whose files are in dir: {"host", "dir", "profile",
 * "transaction", "changed", "outcome", "recv_mbps", "loss_percent",
 * "drift", "exit_code", "reason", "run"} (schemas/hosts-report.schema.json).
 * -ENOENT when dir holds neither file, -EINVAL when one is not what it
 * should be; *ret_why says which file and what (caller frees). */
int fleet_host_row(const char *dir, struct json_object **ret, char **ret_why);

/* The fleet summary's summary.json at path (cx5prof-summary.yml: an array
 * of host.json rows, the hosts never reached included): appends to rows
 * the row of each host that rows does not have yet (dir: path). -EINVAL
 * with *ret_why naming the file and field when it is not that. */
int fleet_summary_rows(const char *path, struct json_object *rows, char **ret_why);

/* "3 pass; 1 fail: h1; 1 not run: h5 (exit 66)": the count of each
 * outcome in rows, with the hosts that did not pass (caller frees). */
char *fleet_verdict(struct json_object *rows);

/* The fleet's document, {"verdict", "hosts": [a row per dir, in order]}
 * (schemas/hosts-report.schema.json): fleet_host_row's errors, with its
 * *ret_why (caller frees), or -ENOMEM. */
int fleet_report_doc(char **dirs, struct json_object **ret, char **ret_why);

#endif
