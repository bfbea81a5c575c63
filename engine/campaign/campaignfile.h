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

#include "ablation.h"
#include "profile.h"

#define CAMPAIGN_FORMAT_VERSION 1
#define CAMPAIGN_MAX_GROUPS	16
#define CAMPAIGN_MAX_REPEAT	100
#define CAMPAIGN_MAX_SWEEP	16 /* values of the swept key */
#define CAMPAIGN_MAX_ROUNDS	10 /* repeat: auto: rounds per group at most, by default */
#define CAMPAIGN_MAX_WARMUP	100
#define CAMPAIGN_MAX_BUDGET_S	(7 * 24 * 3600)

struct ynode;

struct campaign_group {
	char *path;		/* resolved against the campaign file's directory (ablation: the profile) */
	const char *written;	/* as written in the file (points into the tree) */
	struct profile_mark at; /* where it is written */
	char *name;		/* the group profile's name */
	char *description;	/* its own description, or NULL */
	int role;		/* enum verdict_role: ROLE_GROUP, or its part in the ablation */
	unsigned families;	/* ablation: the families it applies (ablation.h) */
};

struct campaign {
	char *file; /* as given */
	char *name;
	struct campaign_group *groups;
	size_t n_groups;
	unsigned repeat; /* >= 1; repeat: auto: the most rounds per group (max_rounds) */
	bool repeat_auto;
	unsigned warmup;   /* rounds run first and not counted */
	unsigned budget_s; /* stop before a round would end after it; 0: none */
	unsigned duration; /* every round's verify.duration (--duration); 0: the groups' own */
	/* min_effect: the margins below which a difference does not matter
	 * (verdict.h); VERDICT_MIN_EFFECT_* unless the file says. */
	double min_effect_recv; /* percent */
	double min_effect_loss; /* percentage points */
	int order;		/* enum seq_order (sequential.h) */
	uint64_t seed;		/* order: shuffle: its seed (0: drawn at the start and recorded) */
	bool seed_set;
	const char *keep_sweep; /* --keep best=VALUE: the sweep value it chooses among, or NULL */
	/* ablate: the profile the groups are derived from (resolved), NULL
	 * when the file names its groups. */
	char *ablate;
	struct ablation ablation;
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
 * each group). Same error contract as profile_load(); a group file or an
 * ablated profile that does not exist is -ENOENT. */
int campaign_load(const char *path, struct campaign **ret, struct profile_error *err);

/* A campaign of one profile's ablation without a file (`campaign --ablate
 * PROFILE`): named "ablate-NAME", the profile's own verify block,
 * repeat: auto. */
int campaign_new_ablation(const char *profile, struct campaign **ret, struct profile_error *err);

/* Replace the campaign's groups with the ablation of profile (--ablate
 * over a campaign file: the file's verify, peer, repeat and sweep stay).
 * Same error contract as campaign_load(). */
int campaign_set_ablate(struct campaign *c, const char *profile, struct profile_error *err);

/* "3%", "3" (percent, points false) or "1pp", "0.5" (percentage points):
 * a min_effect margin, 0 .. below 1000% or 100 pp. 0, -EINVAL. */
int campaign_parse_margin(const char *s, bool points, double *ret);

/* "90", "90s", "15m", "2h" -> seconds (1 .. CAMPAIGN_MAX_BUDGET_S):
 * --budget and `budget:`. -EINVAL otherwise. */
int campaign_parse_duration(const char *s, unsigned *ret);
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
