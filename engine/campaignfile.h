/* campaignfile.h: the campaign file format v1 (YAML): comparison rounds.
 *
 * Owns: reading a campaign file (groups of profiles, one benchmark block
 * for all of them, a peer to tune with each, a repeat count, an optional sweep of one verify key)
 * with the profile loader's rules (file:line:col messages, unknown keys
 * refused, the same YAML limits), and building the effective profile of
 * each round from it. schemas/campaign.schema.json documents the same keys.
 * Must never: touch the host (it reads the named files only), or accept a
 * group or a value the profile loader would refuse.
 *
 * A round's profile: the group's profile (with its extends chain), then
 * the campaign's `verify:` on top of what the group inherited (a key
 * written in the group's own file wins), then the sweep value on top of
 * everything. A campaign's `peer:` (the host to tune too) is applied like
 * its `verify:`. */
#ifndef CX5_CAMPAIGNFILE_H
#define CX5_CAMPAIGNFILE_H

#include "profile.h"

#define CAMPAIGN_FORMAT_VERSION 1
#define CAMPAIGN_MAX_GROUPS	16
#define CAMPAIGN_MAX_REPEAT	100
#define CAMPAIGN_MAX_SWEEP	16 /* values of the swept key */

struct ynode;

struct campaign_group {
	char *path;		/* resolved against the campaign file's directory */
	const char *written;	/* as written in the file (points into the tree) */
	struct profile_mark at; /* where it is written */
	char *name;		/* the group profile's name */
	char *description;	/* its own description, or NULL */
};

struct campaign {
	char *file; /* as given */
	char *name;
	struct campaign_group *groups;
	size_t n_groups;
	unsigned repeat; /* >= 1 */
	/* sweep: one key under verify, a round per value; NULL when none. */
	char *sweep_key;		    /* "verify.message_size" */
	const struct ynode *sweep_key_node; /* for messages */
	const struct ynode **sweep_values;  /* n_sweep scalars */
	size_t n_sweep;			    /* 0 when no sweep */
	const struct ynode *verify;	    /* the verify mapping, or NULL */
	const struct ynode *peer;	    /* the peer mapping, or NULL */
	struct ynode *tree;		    /* owns the nodes above */
};

/* Load and check a campaign file: its keys, every group (loaded as
 * `validate` would), the verify block and every sweep value (applied to
 * each group). Same error contract as profile_load(). */
int campaign_load(const char *path, struct campaign **ret, struct profile_error *err);
void campaign_free(struct campaign *c);
static inline void campaign_freep(struct campaign **c)
{
	if (*c)
		campaign_free(*c);
}
#define _cleanup_campaign_ _cleanup_(campaign_freep)

/* The effective profile of group g with sweep value s (ignored when there
 * is no sweep). */
int campaign_group_profile(const struct campaign *c, size_t g, size_t s, struct profile **ret,
			   struct profile_error *err);

/* The sweep value s as written ("1400"), or NULL when there is no sweep. */
const char *campaign_sweep_value(const struct campaign *c, size_t s);

#endif
