/* metrics_prom.h: the history's newest results in the Prometheus text
 * exposition format (version 0.0.4), for node_exporter's textfile collector.
 *
 * Owns: metric names, help texts, label escaping and the choice of "the
 * newest run per (interface, profile)". Must never: read the database or
 * print (the caller passes the runs and prints the text).
 *
 * Families (gauges, one sample per interface/profile pair; labels
 * interface="ens1f0", profile="lab-udp"; an ad-hoc bench has profile=""):
 *   cx5prof_run_timestamp_seconds          end of the newest run (Unix time)
 *   cx5prof_run_id                         its id (`cx5prof history show ID`)
 *   cx5prof_run_receive_bits_per_second    receiver throughput
 *   cx5prof_run_send_bits_per_second       sender throughput
 *   cx5prof_run_loss_ratio                 lost / sent, 0..1
 *   cx5prof_run_lost_datagrams             sent - received
 *   cx5prof_run_passed                     1 every threshold held, else 0 */
#ifndef CX5_METRICS_PROM_H
#define CX5_METRICS_PROM_H

#include <stddef.h>

#include "runs.h"

/* runs: newest first (as runs_list() returns them). *ret: a malloc'd text
 * ending in a newline; the HELP/TYPE lines are there even without runs. */
int metrics_prom_render(const struct run_record *runs, size_t n, char **ret);

#endif
