/* rules.h: what `cx5prof tune` may try, and when (see rules.c).
 *
 * A rule reads the evidence (doctor's checks, the loss ledger of the
 * current best's rounds, the effective profile) and, when it fires, says
 * why in one line and gives the profile fragment it tries: keys with
 * policies (numa-local, auto), never this host's CPU lists, so that the
 * tuned profile rolls out to a fleet. The table is listed in docs/tune.md
 * and the man page (`make docs`). */
#ifndef CX5_TUNE_RULES_H
#define CX5_TUNE_RULES_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

struct doctor_report;
struct profile;

/* One key of a fragment: its section ("link", "sysctl",
 * "verify.socket_buffer"), its key below it ("mtu", "net.core.rmem_max")
 * and its value as YAML writes it ("9000", "\">= 4M\"", "numa-local"). */
struct tune_key {
	char section[32];
	char key[48];
	char value[48];
};

#define TUNE_MAX_KEYS 16 /* a fragment, or every kept change together */

struct tune_fragment {
	struct tune_key keys[TUNE_MAX_KEYS];
	size_t n;
};

/* What the rules read. */
struct tune_facts {
	const struct doctor_report *doctor; /* NULL: not run */
	/* The current best's group of its last campaign (a group of
	 * schemas/campaign.schema.json: drops, limited_by, medians); NULL
	 * before any round (--dry-run). */
	struct json_object *measured;
	const struct tune_fragment *best; /* the changes kept so far (merged) */
	const struct profile *start;	  /* the starting profile (effective) */
	unsigned mtu;			  /* the ports' MTU now (the best's when it sets one); 0 unknown */
	unsigned max_mtu;		  /* the largest MTU every matched port takes; 0 unknown */
	bool peer_tunable;		  /* the profile tunes the peer (peer.ssh) */
	int64_t peer_mtu;		  /* the peer's MTU when serve said it, else -1 */
};

struct tune_rule {
	const char *family;   /* "mtu", "rcvbuf", ... (--only, --skip) */
	const char *evidence; /* for the docs: what makes it fire */
	const char *tries;    /* for the docs: the fragment */
	bool needs_peer;      /* the peer must take the same change */
	bool link_down;	      /* applying it briefly takes the link down */
	bool ladder;	      /* once kept, its next try is the next size */
	bool measured;	      /* its evidence comes from the rounds (the loss ledger): after each
			       * kept change it may fire again on the new best's rounds */
	/* 1 with *ret_why (caller frees), *ret_weight (the share of the loss
	 * in percent, or the deficit it addresses) and *ret_frag when it
	 * fires; 0 when not; -ENOMEM. */
	int (*fire)(const struct tune_facts *f, char **ret_why, double *ret_weight,
		    struct tune_fragment *ret_frag);
};

extern const struct tune_rule tune_rules[];
extern const size_t tune_n_rules;

/* The rule of family name, or NULL. */
const struct tune_rule *tune_rule_find(const char *family);

/* dst with src's keys on top (a key of src replaces dst's). -E2BIG when
 * it would hold more than it can. */
int tune_fragment_merge(struct tune_fragment *dst, const struct tune_fragment *src);
/* dst without the keys of src. */
void tune_fragment_remove(struct tune_fragment *dst, const struct tune_fragment *src);
/* The value of section.key in f, or NULL. */
const char *tune_fragment_get(const struct tune_fragment *f, const char *section, const char *key);
/* "link.mtu: 9000, irq.policy: numa-local". Caller frees. */
char *tune_fragment_text(const struct tune_fragment *f);
/* {"link.mtu": "9000", ...} */
struct json_object *tune_fragment_json(const struct tune_fragment *f);

/* "1M" for 1048576: the receive buffer ladder's sizes as a profile
 * writes them. */
void tune_size_text(unsigned long long bytes, char *buf, size_t size);

#define TUNE_BUFFER_CAP (64ull << 20) /* socket buffers: at most 64M */

#endif
