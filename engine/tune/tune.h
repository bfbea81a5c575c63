/* tune.h: `cx5prof tune`, the operator's loop closed (see tune.c). */
#ifndef CX5_TUNE_H
#define CX5_TUNE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/log.h"
#include "txn.h"

struct history;

#define TUNE_DEFAULT_MAX_ROUNDS	     10 /* per group and candidate */
#define TUNE_DEFAULT_BASELINE_ROUNDS 3

struct tune_options {
	const char *profile;		    /* the starting point, or NULL (then peer is required) */
	const char *peer;		    /* --peer, or NULL */
	double goal_mbps;		    /* 0: none */
	double max_loss;		    /* -1: none */
	unsigned budget_s;		    /* 0: none */
	double min_effect, min_effect_loss; /* -1: the campaigns' defaults */
	unsigned max_rounds;		    /* per group and candidate */
	char **only, **skip;		    /* families (strv), or NULL */
	bool keep;
	const char *out;     /* where the profile is written (for --keep's boot unit), or NULL */
	bool reverse;	     /* candidates of equal standing in reverse rule order (tests) */
	const char *db_path; /* the history's file */
	struct history *h;   /* open and locked by the caller; a transaction may reopen it */
	void (*say)(enum log_level level, const char *text);
	int (*outcome)(const struct txn_outcome *o, unsigned confirm, char *msg, size_t msg_size);
};

/* Family names, comma-separated, into a strv; -EINVAL with *ret_bad (a
 * pointer into s's copy, caller frees the strv) naming an unknown one. */
int tune_parse_families(const char *s, char ***ret, char **ret_bad);

/* --dry-run: doctor, the facts read without traffic and the candidates in
 * rule order with their evidence and an estimate of the time. Changes
 * nothing. *ret_doc (schemas/tune.schema.json, "dry_run": true). An exit
 * code. */
int tune_dry_run(const struct tune_options *o, struct json_object **ret_doc);

/* The session: diagnose, test each candidate against the current best
 * (a campaign of two groups), keep or revert, re-diagnose, leave each
 * kept change out once, stop at the goal, the budget, a signal or when
 * nothing is left; with keep, apply the minimal profile. *ret_doc: the
 * session document (also on failure when it could be built), recorded in
 * o->h; its "profile_yaml" is the minimal profile. An exit code: 0, 6
 * (interrupted or failed, both hosts restored), 7 (not fully restored). */
int tune_run(struct tune_options *o, struct json_object **ret_doc);

#endif
