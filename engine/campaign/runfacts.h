/* runfacts.h: what a report shows of one run, as JSON, from the verify
 * report or read back from the run's recorded evidence.
 *
 * Owns: a round's thresholds (each with its pass/fail/n-a, the shape of
 * verify --json's "thresholds") and the rise of its drop counters (name ->
 * rise summed over the ports), for a campaign's rounds from the verify
 * report and for `report RUN` from the artifacts verify recorded
 * (verify_summary, counters_before, counters_after: verify.c writes them).
 * Must never: read the host, or guess a value the evidence does not hold
 * (absent stays absent). */
#ifndef CX5_RUNFACTS_H
#define CX5_RUNFACTS_H

#include <json-c/json.h>

#include "store/runs.h"
#include "verify.h"

/* The thresholds of a verification (an empty array: none set). */
struct json_object *runfacts_thresholds(const struct verify_report *r);
/* Its drop counters' rise, or NULL when its ports have none. */
struct json_object *runfacts_drops(const struct verify_report *r);

/* The same read back from a recorded run (NULL: its evidence lacks it). */
struct json_object *runfacts_run_thresholds(const struct run_record *run);
struct json_object *runfacts_run_drops(const struct run_record *run);

#endif
