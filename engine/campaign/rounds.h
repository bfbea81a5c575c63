/* rounds.h: running a campaign's rounds (see rounds.c): the engine entry
 * points of `cx5prof campaign` and of `cx5prof tune`, which runs one
 * campaign per candidate. The caller loads the campaign (campaignfile.h),
 * opens the history and takes the lock; the runner plans, applies,
 * verifies and rolls back each round, computes the statistics and builds
 * the campaign document (schemas/campaign.schema.json) that the verbs
 * render. */
#ifndef CX5_ROUNDS_H
#define CX5_ROUNDS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/log.h"
#include "campaignfile.h"
#include "sequential.h"
#include "verdict.h"
#include "store/campaigns.h"
#include "txn.h"

struct history;
struct plan;

/* --keep: which group stays applied at the end. */
enum campaign_keep { CAMPAIGN_KEEP_NONE, CAMPAIGN_KEEP_FIRST, CAMPAIGN_KEEP_LAST, CAMPAIGN_KEEP_BEST };
extern const char *const campaign_keep_names[]; /* "none", "first", "last", "best", NULL */

/* What a round costs beyond its benchmark (plan, apply, probe, undo), for
 * the estimate: a real port takes a second or two to come back after an
 * MTU change. */
#define ROUND_OVERHEAD_S 2

/* One group with one sweep value: a row of the table. */
struct campaign_cell {
	size_t group, sweep;
	char *skipped; /* why it could not apply (or why its other rounds were not run), or NULL */
	int skipped_code;
	double *recv, *loss;	     /* the counted rounds' figures */
	size_t n;		     /* counted rounds */
	unsigned threshold_failures; /* counted rounds that failed a threshold */
	unsigned excluded;	     /* rounds run and not counted (interrupted, failed) */
	char *last_failure;	     /* the previous round's failure, when it failed */
	unsigned duration;	     /* its benchmark's seconds */
	struct json_object *rounds;  /* array */
	struct json_object *drops;   /* counter -> summed delta over the rounds; NULL: no counters */
	struct json_object *profile;
	double max_cpu_percent; /* the worst round's largest single-CPU share; -1 unknown */
	int max_cpu;
	uint64_t interrupts;
	bool spread_known;
	bool failed_round;  /* a round could not measure */
	int64_t peer_mtu;   /* the peer's MTU in the last round it answered STATE; -1 none */
	int64_t peer_drops; /* its drop counters' rise summed over the rounds; -1 unknown */
};

/* Why the rounds ended (the document's "stopped"). */
enum campaign_stop {
	RUN_STOP_COMPLETE,    /* every repetition of a fixed repeat */
	RUN_STOP_DECIDED,     /* repeat: auto: every comparison decided */
	RUN_STOP_MAX_ROUNDS,  /* repeat: auto: max_rounds reached */
	RUN_STOP_BUDGET,      /* the next round would have ended after the budget */
	RUN_STOP_INTERRUPTED, /* a signal, or the output was closed */
	RUN_STOP_FAILED,      /* an error the host must not carry on from */
	_RUN_STOP_MAX,
};

struct campaign_run {
	/* Set by the caller before campaign_run_prepare(). */
	struct campaign *c;
	const char *peer;    /* --peer, or NULL */
	const char *db_path; /* the history's file, for the transactions' locks */
	struct history *h;   /* open; a transaction may reopen it (read it back after) */
	/* How a transaction's steps are said (the peer's, the undo's). */
	void (*say)(enum log_level level, const char *text);
	/* --keep's transaction outcome: its exit code and message (the
	 * verb's words for an apply). */
	int (*outcome)(const struct txn_outcome *o, unsigned confirm, char *msg, size_t msg_size);
	bool quiet; /* no progress line per round (the caller prints its own) */
	/* The run's state. */
	int64_t id;
	struct campaign_cell *cells;
	size_t n_cells;
	size_t runs;
	int signal;
	char *peer_down;     /* the peer's ssh failed in a round: why; its later rounds are not tried */
	char **not_restored; /* what a failed undo left, on either host: one line each */
	bool output_closed;  /* stdout went away (EPIPE): stop as at a signal */
	int64_t started_usec;
	double round_seconds; /* wall time of the rounds run so far */
	size_t rounds_run;    /* warm-up included */
	size_t rounds_planned;
	unsigned repetitions;	  /* repetitions (partly) run */
	unsigned looks;		  /* how many times repeat: auto may look (1: fixed) */
	struct seq_design design; /* repeat: auto: its looks and their levels */
	double level;		  /* the level of the last look (the verdict's) */
	unsigned estimate_s;
	enum campaign_stop stopped;
	/* The statistics of the counted rounds (stats_compute). */
	struct verdict_group *vgroups;
	struct verdict_family *vfamilies;
	struct verdict_input vin;
	struct verdict v;
};

/* A round's limited_by (an entry of a group's "rounds" in the document)
 * when it counts (warm-up and excluded rounds do not), else NULL. */
const char *campaign_round_limited_by(struct json_object *round);

/* Rows per group: the sweep's values, or 1. */
size_t campaign_sweeps(const struct campaign *c);

/* Before the first round: every cell (group x sweep value) with its
 * profile, the rounds and time it may take (x->rounds_planned,
 * x->estimate_s, x->design), and a warning when a fixed repeat can never
 * decide. Nothing is changed; no history needed. 0, -ENOMEM. */
int campaign_run_prepare(struct campaign_run *x);

/* Record the campaign as started in x->h (campaigns left running by a
 * cx5prof that died first recorded as interrupted): x->id. 0, -errno. */
int campaign_run_start(struct campaign_run *x);

/* The rounds, interleaved in the campaign's order, until the campaign's
 * repeat, its decision (repeat: auto), its budget, a caught signal or a
 * failure. An exit code (engine/base/exitcode.h): EXIT_ROLLED_BACK when a
 * signal or a closed output stopped it. */
int campaign_run_rounds(struct campaign_run *x);

/* After the rounds (code: campaign_run_rounds's): the statistics at the
 * verdict's level, the status, --keep (only when the rounds ended
 * normally), the document (*ret_doc, also on failure when it could be
 * built) recorded as the campaign's summary. The campaign's exit code. */
int campaign_run_finish(struct campaign_run *x, int code, enum campaign_keep keep,
			struct json_object **ret_doc);

/* What stopped the campaign: "SIGINT", or "a closed output (EPIPE)". */
const char *campaign_run_interruption(const struct campaign_run *x);

void campaign_run_done(struct campaign_run *x);

/* The profile of group g's rounds with sweep value s: the campaign's,
 * with --peer. */
int campaign_run_profile(const struct campaign_run *x, size_t g, size_t s, struct profile **ret,
			 struct profile_error *err);

/* Plan profile p against this host now: *ret_why NULL when it would
 * apply, else why not (and *ret_code). An exit code. */
int campaign_check_group(const struct profile *p, char **ret_why, int *ret_code);

/* Apply profile prof (read from path) as one committed transaction, here
 * and on the peer it tunes, as `apply` would: the boot-time unit planned
 * for path unless not_persistent says why not (a warning). Only x's
 * history, db_path, say and outcome are used. An exit code; *ret_txn. */
int campaign_apply_committed(struct campaign_run *x, const struct profile *prof, const char *path,
			     const char *not_persistent, int64_t *ret_txn);

/* Plan a profile against the host now. EXIT_OK with *ret_plan. */
int campaign_plan_round(const struct profile *prof, struct plan **ret_plan);

#endif
