/* tune.c: `cx5prof tune`: diagnose, change one thing, measure, keep or
 * revert, until the goal.
 *
 * Owns: the session. Diagnose (doctor once; the loss ledger of baseline
 * rounds), the candidates of the rule table (rules.h) ordered by their
 * weight, each tested against the current best as a campaign of two
 * groups (engine/campaign/rounds.c: interleaved rounds, the sequential
 * decision with its equivalence margin), kept when throughput is clearly
 * better and loss not clearly worse, or loss clearly lower and throughput
 * not clearly worse, else reverted; the ledger of the new best decides the
 * next candidate. At the end each kept change is left out once: one whose
 * removal makes no meaningful difference is dropped. The answer: the
 * minimal profile (the starting one extended by the kept changes, each
 * with its measured effect; written once, to --out or for --keep), the
 * steps, and the session's record in the
 * history (tunes.h) with each candidate's campaign tagged with it.
 * The profiles of the rounds are small files in a private directory
 * (removed at the end): the groups of each campaign. Must never: keep a
 * change the measurements do not support, change the host between
 * rounds (every round is a campaign round: applied, measured, rolled
 * back), or leave anything applied but --keep's one transaction. */
#define _GNU_SOURCE
#include "tune.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply.h"
#include "base/exitcode.h"
#include "base/jsonget.h"
#include "base/output.h"
#include "base/util.h"
#include "campaign/campaignfile.h"
#include "campaign/rounds.h"
#include "doctor.h"
#include "kinds/kinds.h"
#include "ledger/ledger.h"
#include "os/probe.h"
#include "peer/peerssh.h"
#include "plan.h"
#include "profile.h"
#include "rules.h"
#include "store/history.h"
#include "store/tunes.h"

/* What a round costs beyond its benchmark, for the estimate (as the
 * campaign runner's). */
#define TUNE_ROUND_OVERHEAD_S 2

struct kept {
	const struct tune_rule *rule;
	struct tune_fragment frag; /* its keys (a ladder's last size) */
	char *effect;		   /* "+480% [400..560]" */
	int step;
	bool provisional; /* kept with its loss clearly worse, for a follow-up to fix */
};

struct session {
	struct tune_options *o;
	char dir[PATH_MAX];
	char start[PATH_MAX];
	char **files; /* written into dir, removed at the end */
	struct profile *start_profile;
	struct doctor_report *doctor;
	int64_t id;
	int64_t started_usec;
	unsigned step;
	unsigned rounds; /* counted and not, every campaign */
	struct tune_fragment best;
	struct kept kept[TUNE_MAX_KEYS];
	size_t n_kept;
	struct json_object *measured; /* the best's group of its last campaign */
	struct json_object *baseline; /* the baseline's group */
	struct json_object *steps;    /* array */
	bool tried[32];
	unsigned tried_gen[32]; /* the generation it was last tried in */
	unsigned generation;	/* kept changes so far (the best's version) */
	bool peer_down;
	char *stop_note; /* why the loop ended, for people */
	const char *stopped;
	int code;
	unsigned mtu, max_mtu;
};

int tune_parse_families(const char *s, char ***ret, char **ret_bad)
{
	_cleanup_strv_free_ char **v = NULL;
	_cleanup_free_ char *copy = strdup(s);
	char *save = NULL;

	if (!copy)
		return -ENOMEM;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!tune_rule_find(t)) {
			*ret_bad = strdup(t);
			return -EINVAL;
		}
		if (strv_push(&v, strdup(t)) < 0)
			return -ENOMEM;
	}
	if (!v)
		return *ret_bad = strdup(""), -EINVAL;
	*ret = TAKE_PTR(v);
	return 0;
}

static bool family_wanted(const struct tune_options *o, const char *family)
{
	if (o->only && !strv_contains(o->only, family))
		return false;
	return !(o->skip && strv_contains(o->skip, family));
}

static size_t rule_index(const struct tune_rule *r)
{
	return (size_t)(r - tune_rules);
}

/* ---- the profiles of the rounds ---- */

static int cmp_key(const void *a, const void *b)
{
	return strcmp(((const struct tune_key *)a)->section, ((const struct tune_key *)b)->section);
}

/* The fragment as YAML under its sections (nested: "link.rings" under
 * "link"), each key with its comment (comments[i] for keys[i], may be
 * NULL). */
static void write_fragment(FILE *f, const struct tune_fragment *frag, char *const *comments)
{
	struct tune_key sorted[TUNE_MAX_KEYS];
	const char *cmt[TUNE_MAX_KEYS];
	char open[4][32] = {{0}};
	size_t depth = 0;

	memcpy(sorted, frag->keys, frag->n * sizeof(*sorted));
	qsort(sorted, frag->n, sizeof(*sorted), cmp_key);
	for (size_t i = 0; i < frag->n; i++) {
		cmt[i] = NULL;
		for (size_t j = 0; comments && j < frag->n; j++)
			if (streq(frag->keys[j].section, sorted[i].section) &&
			    streq(frag->keys[j].key, sorted[i].key))
				cmt[i] = comments[j];
	}
	for (size_t i = 0; i < frag->n; i++) {
		char parts[4][32] = {{0}}, copy[32], *save = NULL;
		size_t n = 0, common = 0;

		memcpy(copy, sorted[i].section, sizeof(copy));
		for (char *t = strtok_r(copy, ".", &save); t && n < 4; t = strtok_r(NULL, ".", &save))
			snprintf(parts[n++], sizeof(parts[0]), "%.31s", t);
		while (common < n && common < depth && streq(parts[common], open[common]))
			common++;
		for (size_t d = common; d < n; d++) {
			fprintf(f, "%*s%s:\n", (int)(2 * d), "", parts[d]);
			memcpy(open[d], parts[d], sizeof(open[d]));
		}
		depth = n;
		fprintf(f, "%*s%s: %s%s%s\n", (int)(2 * n), "", sorted[i].key, sorted[i].value,
			cmt[i] ? "  # " : "", cmt[i] ? cmt[i] : "");
	}
}

/* s as a YAML double-quoted scalar's inside: backslash and quote escaped,
 * control characters dropped (a doctor detail read from a sysroot may
 * hold anything). Caller frees. */
static char *yaml_inner(const char *s)
{
	char *out = malloc(2 * strlen(strempty(s)) + 1), *w = out;

	for (const char *p = strempty(s); out && *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			continue;
		if (*p == '"' || *p == '\\')
			*w++ = '\\';
		*w++ = *p;
	}
	if (w)
		*w = 0;
	return out;
}

/* A profile: the start extended by frag, into the session's directory
 * (or to path when given). */
static int write_profile(struct session *s, const char *file, const char *name, const char *description,
			 const struct tune_fragment *frag, char *const *comments, const char *header,
			 char **ret_path)
{
	_cleanup_free_ char *path = strprintf("%s/%s", s->dir, file);
	FILE *f;
	int r;

	if (!path)
		return -ENOMEM;
	f = fopen(path, "we");
	if (!f)
		return -errno;
	if (header)
		fprintf(f, "%s", header);
	_cleanup_free_ char *desc = yaml_inner(description), *start = yaml_inner(s->start);

	if (!desc || !start) {
		fclose(f);
		return -ENOMEM;
	}
	fprintf(f, "version: 1\nname: %s\ndescription: \"%s\"\nextends: \"%s\"\n", name, desc, start);
	write_fragment(f, frag, comments);
	r = fclose(f) == 0 ? 0 : -errno;
	if (r < 0)
		return r;
	if (!strv_contains(s->files, path) && strv_push(&s->files, strdup(path)) < 0)
		return -ENOMEM;
	if (ret_path)
		*ret_path = TAKE_PTR(path);
	return 0;
}

/* ---- one campaign ---- */

static double elapsed(const struct session *s)
{
	return (double)(history_now_usec() - s->started_usec) / 1e6;
}

/* The campaign of groups (paths), repeat N (0: auto up to max_rounds);
 * *ret_doc its document. An exit code (the runner's). */
static int run_campaign(struct session *s, const char *label, char **groups, size_t n, unsigned repeat,
			struct json_object **ret_doc)
{
	struct tune_options *o = s->o;
	_cleanup_free_ char *cfile = strprintf("%s/campaign-%u.yaml", s->dir, s->step);
	_cleanup_campaign_ struct campaign *c = NULL;
	struct profile_error err = {0};
	struct campaign_run x = {
	    .peer = o->peer, .db_path = o->db_path, .h = o->h, .say = o->say, .outcome = o->outcome};
	FILE *f;
	int r, code;

	*ret_doc = NULL;
	if (!cfile || !(f = fopen(cfile, "we")))
		return log_error("tune: cannot write its campaign in %s: %m", s->dir), EXIT_ERROR;
	fprintf(f, "version: 1\nname: tune-%" PRId64 "-%s\ngroups:\n", s->id, label);
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *g = yaml_inner(groups[i]);
		fprintf(f, "  - \"%s\"\n", strempty(g));
	}
	if (repeat)
		fprintf(f, "repeat: %u\n", repeat);
	else
		fprintf(f, "repeat: auto\nmax_rounds: %u\n", o->max_rounds);
	if (fclose(f) != 0)
		return log_error("tune: cannot write %s: %m", cfile), EXIT_ERROR;
	if (strv_push(&s->files, strdup(cfile)) < 0)
		return log_error("out of memory"), EXIT_ERROR;
	r = campaign_load(cfile, &c, &err);
	if (r < 0) {
		_cleanup_free_ char *msg = profile_error_format(&err);
		log_error("tune: %s", msg ? msg : err.message);
		return profile_load_exit_code(r);
	}
	if (o->min_effect >= 0)
		c->min_effect_recv = o->min_effect;
	if (o->min_effect_loss >= 0)
		c->min_effect_loss = o->min_effect_loss;
	if (o->budget_s) {
		double left = o->budget_s - elapsed(s);
		if (left < 1)
			return EXIT_OK; /* the caller sees no document: the budget */
		c->budget_s = (unsigned)left;
	}
	x.c = c;
	r = campaign_run_start(&x);
	if (r >= 0)
		r = tunes_tag_campaign(x.h, s->id, x.id);
	if (r >= 0)
		r = campaign_run_prepare(&x);
	if (r < 0) {
		log_error_errno(r, "history %s: cannot record the campaign: %m", o->db_path);
		campaign_run_done(&x);
		return EXIT_ERROR;
	}
	code = campaign_run_rounds(&x);
	s->rounds += (unsigned)x.rounds_run;
	code = campaign_run_finish(&x, code, CAMPAIGN_KEEP_NONE, ret_doc);
	o->h = x.h; /* a transaction may have reopened it */
	campaign_run_done(&x);
	return code;
}

static struct json_object *doc_group(struct json_object *doc, size_t i)
{
	struct json_object *g;

	if (!doc || !json_object_object_get_ex(doc, "groups", &g) || i >= json_object_array_length(g))
		return NULL;
	return json_object_array_get_idx(g, i);
}

/* The comparison of group 1 against group 0 ("group" names it). */
static struct json_object *doc_comparison(struct json_object *doc)
{
	struct json_object *cmps, *g1 = doc_group(doc, 1);
	const char *name = jstr(g1, "group");

	if (!name || !json_object_object_get_ex(doc, "comparisons", &cmps))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(cmps); i++) {
		struct json_object *c = json_object_array_get_idx(cmps, i);
		if (streq_ptr(jstr(c, "group"), name) && streq_ptr(jstr(c, "kind"), "baseline"))
			return c;
	}
	return NULL;
}

static const char *measure_word(struct json_object *cmp, const char *which)
{
	struct json_object *m;
	return cmp && json_object_object_get_ex(cmp, which, &m) ? jstr(m, "verdict") : NULL;
}

static char *measure_text(struct json_object *cmp, const char *which)
{
	struct json_object *m;
	const char *t;

	if (!cmp || !json_object_object_get_ex(cmp, which, &m))
		return strdup("no rounds");
	t = jstr(m, "text");
	return strprintf("%s %s", t ? t : "?", strna(jstr(m, "words")));
}

static unsigned doc_rounds(struct json_object *doc)
{
	unsigned n = 0;

	for (size_t i = 0; doc_group(doc, i); i++)
		n += (unsigned)json_object_get_int(
		    json_object_object_get(doc_group(doc, i), "rounds_counted"));
	return n;
}

/* ---- the facts ---- */

/* The ports' MTU and the largest every one takes, from the ports the
 * starting profile manages. */
static void port_mtus(struct session *s)
{
	_cleanup_host_state_ struct host_state *host = NULL;
	_cleanup_plan_ struct plan *p = NULL;

	if (kinds_probe_host(NULL, 0, &host) < 0 || plan_build(s->start_profile, host, &p) < 0)
		return;
	for (char **i = p->interfaces; i && *i; i++) {
		const struct iface_state *st = host_state_iface(host, *i);
		if (!st || !st->present)
			continue;
		if (!s->mtu || st->link.mtu < s->mtu)
			s->mtu = st->link.mtu;
		if (st->link.has_mtu_range && (!s->max_mtu || st->link.max_mtu < s->max_mtu))
			s->max_mtu = st->link.max_mtu;
	}
}

static bool peer_tunable(const struct session *s)
{
	return s->start_profile && peerssh_wanted(s->start_profile);
}

static void facts_of(const struct session *s, struct tune_facts *f)
{
	const char *mtu = tune_fragment_get(&s->best, "link", "mtu");
	const struct profile_uint *want =
	    s->start_profile ? profile_key_value(s->start_profile, "link.mtu", NULL) : NULL;
	unsigned now = mtu ? (unsigned)atoi(mtu) : want && want->set ? (unsigned)want->value : s->mtu;
	int64_t pm = -1;
	struct json_object *v;

	if (s->measured && json_object_object_get_ex(s->measured, "peer_mtu", &v) && v)
		pm = json_object_get_int64(v);
	*f = (struct tune_facts){
	    .doctor = s->doctor,
	    .measured = s->measured,
	    .best = &s->best,
	    .start = s->start_profile,
	    .mtu = now,
	    .max_mtu = s->max_mtu,
	    .peer_tunable = peer_tunable(s),
	    .peer_mtu = pm,
	};
}

struct candidate {
	const struct tune_rule *rule;
	char *why;
	double weight;
	struct tune_fragment frag;
	char *skip; /* why it cannot be tried, or NULL */
};

static void candidates_free(struct candidate *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].why);
		free(c[i].skip);
	}
}

/* Whether every key of frag already holds in best. */
static bool already(const struct tune_fragment *best, const struct tune_fragment *frag)
{
	for (size_t i = 0; i < frag->n; i++) {
		const char *v = tune_fragment_get(best, frag->keys[i].section, frag->keys[i].key);
		if (!v || !streq(v, frag->keys[i].value))
			return false;
	}
	return true;
}

/* Whether the loss of the best's rounds could make a meaningful
 * difference: a rule on the ledger's counters addresses at most that loss,
 * so when it lies inside both margins (the loss margin in points, the
 * throughput margin in percent) its candidate could never be kept and is
 * not tried. */
static bool loss_matters(const struct session *s)
{
	double loss = jnum(s->measured, "median_loss_percent");
	double ml = s->o->min_effect_loss >= 0 ? s->o->min_effect_loss : VERDICT_MIN_EFFECT_LOSS;
	double mr = s->o->min_effect >= 0 ? s->o->min_effect : VERDICT_MIN_EFFECT_RECV;

	return isnan(loss) || loss >= ml || loss >= mr;
}

/* The rules that fire now, in rule order (each once: a family tried and
 * not kept, or not a ladder, is not tried again). */
static int candidates(struct session *s, bool dry, struct candidate *ret, size_t *ret_n)
{
	struct tune_facts f;
	size_t n = 0;

	facts_of(s, &f);
	for (size_t i = 0; i < tune_n_rules; i++) {
		const struct tune_rule *rule = &tune_rules[i];
		struct candidate c = {.rule = rule};
		int r;

		if (!family_wanted(s->o, rule->family))
			continue;
		/* once each; a rule on the rounds' evidence again after each kept
		 * change (the bottleneck moves) */
		if (s->tried[i] && !(rule->measured && s->tried_gen[i] < s->generation))
			continue;
		r = rule->fire(&f, &c.why, &c.weight, &c.frag);
		if (r < 0)
			return r;
		if (r == 0 || already(&s->best, &c.frag) || (rule->measured && !loss_matters(s))) {
			free(c.why);
			continue;
		}
		if (rule->needs_peer && !f.peer_tunable && f.peer_mtu < 9000)
			c.skip =
			    strdup("needs the peer changed too, and the profile does not tune the peer (no "
				   "peer.ssh)");
		else if (rule->needs_peer && s->peer_down)
			c.skip = strdup("needs the peer changed too, and the peer could not be reached");
		(void)dry;
		ret[n++] = c;
	}
	*ret_n = n;
	return 0;
}

/* The candidate to try next: the heaviest, the first of equals in rule
 * order; with o->reverse (a test facility) the lightest, the last of
 * equals: the whole order reversed. -1 when none can be tried. */
static int pick(const struct session *s, const struct candidate *c, size_t n)
{
	int best = -1;

	for (size_t i = 0; i < n; i++) {
		size_t k = s->o->reverse ? n - 1 - i : i;
		if (c[k].skip)
			continue;
		if (best < 0 || (s->o->reverse ? c[k].weight < c[best].weight : c[k].weight > c[best].weight))
			best = (int)k;
	}
	return best;
}

/* ---- the steps ---- */

static struct json_object *step_json(const struct session *s, const char *kind, const struct tune_rule *rule,
				     const char *evidence, const struct tune_fragment *frag)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "step", json_object_new_int((int)s->step));
	json_object_object_add(o, "kind", json_object_new_string(kind));
	json_object_object_add(o, "family", json_object_new_string(rule->family));
	json_object_object_add(o, "evidence", evidence ? json_object_new_string(evidence) : NULL);
	json_object_object_add(o, "change", tune_fragment_json(frag));
	json_object_object_add(o, "needs_peer", json_object_new_boolean(rule->needs_peer));
	json_object_object_add(o, "link_down", json_object_new_boolean(rule->link_down));
	return o;
}

static void step_result(struct json_object *st, struct json_object *doc, const char *outcome, const char *why)
{
	struct json_object *cmp = doc_comparison(doc);
	_cleanup_free_ char *rt = measure_text(cmp, "recv"), *lt = measure_text(cmp, "loss");

	json_object_object_add(st, "campaign",
			       doc ? json_object_get(json_object_object_get(doc, "campaign")) : NULL);
	json_object_object_add(st, "rounds", json_object_new_int((int)doc_rounds(doc)));
	json_object_object_add(st, "recv", cmp ? json_object_get(json_object_object_get(cmp, "recv")) : NULL);
	json_object_object_add(st, "loss", cmp ? json_object_get(json_object_object_get(cmp, "loss")) : NULL);
	json_object_object_add(st, "recv_text", json_object_new_string(cmp ? strna(rt) : "-"));
	json_object_object_add(st, "loss_text", json_object_new_string(cmp ? strna(lt) : "-"));
	json_object_object_add(
	    st, "median_recv_mbps",
	    json_object_get(json_object_object_get(doc_group(doc, 1), "median_recv_mbps")));
	json_object_object_add(
	    st, "median_loss_percent",
	    json_object_get(json_object_object_get(doc_group(doc, 1), "median_loss_percent")));
	json_object_object_add(st, "outcome", json_object_new_string(outcome));
	json_object_object_add(st, "why", why ? json_object_new_string(why) : NULL);
}

static void say_step(const struct json_object *st)
{
	if (out_is_json())
		return;
	out_text("step %-3d %-10s %-8s %s: %s\n", json_object_get_int(json_object_object_get(st, "step")),
		 json_object_get_string(json_object_object_get(st, "family")),
		 json_object_get_string(json_object_object_get(st, "outcome")),
		 strna(json_object_get_string(json_object_object_get(st, "recv_text"))),
		 strna(json_object_get_string(json_object_object_get(st, "why"))));
	out_flush();
}

/* The keep rule: throughput clearly better and loss not clearly worse,
 * or loss clearly lower and throughput not clearly worse. */
static bool supports_keeping(struct json_object *cmp, const char **ret_why)
{
	const char *rw = measure_word(cmp, "recv"), *lw = measure_word(cmp, "loss");

	if (!rw || !lw) {
		*ret_why = "no comparison (a group had no counted rounds)";
		return false;
	}
	if (streq(rw, "better") && !streq(lw, "worse"))
		return *ret_why = "throughput clearly better, loss not clearly worse", true;
	if (streq(lw, "better") && !streq(rw, "worse"))
		return *ret_why = "loss clearly lower, throughput not clearly worse", true;
	if (streq(rw, "worse") || streq(lw, "worse"))
		*ret_why = streq(rw, "worse") ? "throughput clearly worse" : "loss clearly worse";
	else if (streq(rw, "no meaningful difference"))
		*ret_why = "no meaningful difference";
	else
		*ret_why = "no clear difference";
	return false;
}

/* The code of a campaign that did not end normally: the session stops. */
static bool campaign_stops(struct session *s, int code, struct json_object *doc)
{
	if (code == EXIT_OK && doc && streq_ptr(jstr(doc, "stopped"), "budget")) {
		/* its rounds ended at the budget, undecided: the session too */
		s->stopped = "budget";
		return true;
	}
	if (code == EXIT_OK && doc)
		return false;
	if (code == EXIT_OK) {
		s->stopped = "budget";
		return true;
	}
	s->code = code == EXIT_ROLLBACK_FAILED ? EXIT_ROLLBACK_FAILED : EXIT_ROLLED_BACK;
	s->stopped = code == EXIT_ROLLED_BACK || apply_interrupted() ? "interrupted" : "failed";
	return true;
}

/* A skipped group: why (the runner's words), or NULL. */
static const char *group_skipped(struct json_object *doc, size_t i)
{
	return jstr(doc_group(doc, i), "skipped");
}

/* Throughput clearly better and loss clearly worse, where the candidate's
 * own ledger names a receiving or sending stage that a rule not yet tried
 * addresses (a larger receive buffer after MTU 9000 raised the datagram
 * rate): the bottleneck moved, and that rule may fire on the new best's
 * rounds. Kept provisionally (*ret_note says so); the
 * leave-one-out at the end keeps it only when the whole without it is
 * clearly worse by the keep rule. */
static bool provisional_keep(struct session *s, struct json_object *doc, struct json_object *cmp,
			     char **ret_note)
{
	const char *rw = measure_word(cmp, "recv"), *lw = measure_word(cmp, "loss");
	const char *stage = jstr(doc_group(doc, 1), "limited_by");
	static const struct {
		const char *stage, *family;
	} fixes[] = {{"receiver-socket-buffer", "rcvbuf"},
		     {"sender-socket", "sndbuf"},
		     {"receiver-backlog", "backlog"},
		     {"sender-qdisc", "txqueuelen"},
		     {"receiver-nic", "rings"}};

	if (!rw || !lw || !streq(rw, "better") || !streq(lw, "worse") || !stage)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(fixes); i++) {
		const struct tune_rule *r = tune_rule_find(fixes[i].family);
		if (!streq(stage, fixes[i].stage) || !r || !family_wanted(s->o, r->family) || !r->measured)
			continue;
		*ret_note =
		    strprintf("throughput clearly better; loss clearly worse in the %s, which %s addresses "
			      "next: kept provisionally, until the leave-one-out",
			      stage, r->family);
		return *ret_note != NULL;
	}
	return false;
}

/* Plan a candidate's profile against the host now: *ret_why when it
 * cannot apply here (a plan problem), so no round is spent on it. */
static int plan_check(struct session *s, const char *path, char **ret_why)
{
	_cleanup_profile_ struct profile *p = NULL;
	struct profile_error err = {0};
	int r, code;

	*ret_why = NULL;
	r = profile_load(path, &p, &err);
	if (r >= 0 && s->o->peer)
		r = profile_set_peer(p, s->o->peer);
	if (r < 0) {
		log_error("tune: %s: %s", path, err.message);
		return EXIT_ERROR;
	}
	return campaign_check_group(p, ret_why, &code);
}

static int try_candidate(struct session *s, struct candidate *c)
{
	_cleanup_free_ char *best_path = NULL, *cand_path = NULL, *label = NULL;
	struct tune_fragment cand = s->best;
	struct json_object *doc = NULL, *st, *cmp;
	const char *why = NULL, *skipped;
	_cleanup_free_ char *skip_why = NULL, *note = NULL;
	bool provisional;
	char name[64];
	int code, r;

	s->step++;
	s->tried[rule_index(c->rule)] = true;
	s->tried_gen[rule_index(c->rule)] = s->generation;
	st = step_json(s, "candidate", c->rule, c->why, &c->frag);
	json_object_array_add(s->steps, st);
	r = tune_fragment_merge(&cand, &c->frag);
	snprintf(name, sizeof(name), "best-%u", s->step);
	if (r >= 0)
		r = write_profile(s, "best.yaml", name, "the changes kept so far", &s->best, NULL, NULL,
				  &best_path);
	snprintf(name, sizeof(name), "%s-%u", c->rule->family, s->step);
	if (r >= 0)
		r = write_profile(s, "candidate.yaml", name, c->why, &cand, NULL, NULL, &cand_path);
	label = strprintf("step-%u-%s", s->step, c->rule->family);
	if (r < 0 || !label)
		return log_error_errno(r < 0 ? r : -ENOMEM, "tune: cannot write the step's profiles: %m"),
		       EXIT_ERROR;
	code = plan_check(s, cand_path, &skip_why);
	if (code != EXIT_OK)
		return code;
	if (skip_why) {
		step_result(st, NULL, "skipped", skip_why);
		say_step(st);
		return EXIT_OK;
	}
	if (!out_is_json()) {
		_cleanup_free_ char *tries = tune_fragment_text(&c->frag);

		out_text("step %-3u %-10s trying %s (%s)\n", s->step, c->rule->family, strna(tries), c->why);
	}
	code = run_campaign(s, label, (char *[]){best_path, cand_path}, 2, 0, &doc);
	if (campaign_stops(s, code, doc)) {
		step_result(st, doc, streq(s->stopped, "budget") ? "skipped" : "interrupted", s->stopped);
		json_object_put(doc);
		return EXIT_OK;
	}
	if ((skipped = group_skipped(doc, 0))) {
		step_result(st, doc, "skipped", skipped);
		s->code = EXIT_ROLLED_BACK;
		s->stopped = "failed";
		json_object_put(doc);
		return EXIT_OK;
	}
	if ((skipped = group_skipped(doc, 1))) {
		step_result(st, doc, "skipped", skipped);
		if (c->rule->needs_peer && strstr(skipped, "ssh"))
			s->peer_down = true;
		say_step(st);
		json_object_put(doc);
		return EXIT_OK;
	}
	cmp = doc_comparison(doc);
	provisional = !supports_keeping(cmp, &why) && provisional_keep(s, doc, cmp, &note);
	if (provisional || supports_keeping(cmp, &why)) {
		struct kept *k = NULL;
		for (size_t i = 0; i < s->n_kept; i++)
			if (s->kept[i].rule == c->rule)
				k = &s->kept[i];
		if (!k && s->n_kept < ARRAY_SIZE(s->kept))
			k = &s->kept[s->n_kept++];
		if (k) {
			free(k->effect);
			*k = (struct kept){.rule = c->rule,
					   .frag = c->frag,
					   .step = (int)s->step,
					   .provisional = provisional};
			_cleanup_free_ char *rt = measure_text(cmp, "recv"), *lt = measure_text(cmp, "loss");
			k->effect = strprintf("throughput %s; loss %s", strna(rt), strna(lt));
		}
		s->best = cand;
		s->generation++;
		json_object_put(s->measured);
		s->measured = json_object_get(doc_group(doc, 1));
		step_result(st, doc, "kept", provisional ? note : why);
	} else {
		json_object_put(s->measured);
		s->measured = json_object_get(doc_group(doc, 0));
		step_result(st, doc, "reverted", why);
	}
	say_step(st);
	json_object_put(doc);
	return EXIT_OK;
}

/* Leave each kept change out once against the whole: dropped when its
 * removal makes no meaningful difference to throughput and loss is not
 * clearly lower without it. */
static int leave_one_out(struct session *s)
{
	bool any_provisional = false;

	for (size_t i = 0; i < s->n_kept; i++)
		any_provisional |= s->kept[i].provisional;
	for (size_t i = 0; (s->n_kept > 1 || any_provisional) && i < s->n_kept;) {
		struct kept *k = &s->kept[i];
		struct tune_fragment without = s->best;
		_cleanup_free_ char *best_path = NULL, *wo_path = NULL, *label = NULL, *t = NULL;
		struct json_object *doc = NULL, *st, *cmp;
		const char *rw, *lw;
		char name[64];
		int r, code;

		s->step++;
		tune_fragment_remove(&without, &k->frag);
		st = step_json(s, "leave-one-out", k->rule, NULL, &k->frag);
		json_object_array_add(s->steps, st);
		snprintf(name, sizeof(name), "all-%u", s->step);
		r = write_profile(s, "best.yaml", name, "every kept change", &s->best, NULL, NULL,
				  &best_path);
		snprintf(name, sizeof(name), "without-%s-%u", k->rule->family, s->step);
		if (r >= 0)
			r = write_profile(s, "without.yaml", name, "every kept change but one", &without,
					  NULL, NULL, &wo_path);
		label = strprintf("step-%u-without-%s", s->step, k->rule->family);
		if (r < 0 || !label)
			return log_error("tune: cannot write the step's profiles"), EXIT_ERROR;
		if (!out_is_json())
			out_text("step %-3u %-10s leaving out %s\n", s->step, k->rule->family,
				 strna(t = tune_fragment_text(&k->frag)));
		code = run_campaign(s, label, (char *[]){best_path, wo_path}, 2, 0, &doc);
		if (campaign_stops(s, code, doc)) {
			/* the budget, a signal or a failure: the kept changes stay as they are */
			step_result(st, doc, streq(s->stopped, "budget") ? "skipped" : "interrupted",
				    s->stopped);
			json_object_put(doc);
			break;
		}
		cmp = doc_comparison(doc);
		rw = measure_word(cmp, "recv");
		lw = measure_word(cmp, "loss");
		/* cmp: the whole without k against the whole; a provisional k must
		 * pass the keep rule the other way round (without it: throughput
		 * clearly worse and loss not clearly lower, or loss clearly higher
		 * and throughput not clearly better). */
		bool drop = k->provisional
				? !(rw && lw &&
				    ((streq(rw, "worse") && !streq(lw, "worse")) ||
				     (streq(lw, "better") && !streq(rw, "better"))))
				: rw && lw && streq(rw, "no meaningful difference") && !streq(lw, "worse");
		if (drop) {
			step_result(st, doc, "dropped",
				    k->provisional
					? "kept provisionally, and the whole without it is not clearly worse"
					: "its removal makes no meaningful difference");
			s->best = without;
			free(k->effect);
			memmove(k, k + 1, (s->n_kept - i - 1) * sizeof(*k));
			s->n_kept--;
		} else {
			step_result(st, doc, "kept",
				    rw && streq(rw, "worse") ? "without it throughput is clearly worse"
				    : lw && streq(lw, "worse")
					? "without it loss is clearly higher"
					: "its removal is not shown to make no difference");
			i++;
		}
		json_object_put(s->measured);
		s->measured = json_object_get(doc_group(doc, 0));
		say_step(st);
		json_object_put(doc);
	}
	return EXIT_OK;
}

/* ---- the answer ---- */

static char *profile_yaml(struct session *s)
{
	_cleanup_free_ char *start = NULL;
	char *buf = NULL, **comments = calloc(TUNE_MAX_KEYS, sizeof(char *));
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f || !comments) {
		if (f)
			fclose(f);
		free(comments);
		return NULL;
	}
	for (size_t i = 0; i < s->best.n; i++)
		for (size_t k = 0; k < s->n_kept; k++)
			if (tune_fragment_get(&s->kept[k].frag, s->best.keys[i].section, s->best.keys[i].key))
				comments[i] =
				    strprintf("step %d: %s", s->kept[k].step, strna(s->kept[k].effect));
	fprintf(f,
		"# The minimal profile of cx5prof tune session %" PRId64
		": %zu change%s kept, each with its\n"
		"# measured effect against the profile before it (interval at the campaign's level).\n",
		s->id, s->n_kept, s->n_kept == 1 ? "" : "s");
	if (tune_fragment_get(&s->best, "verify.socket_buffer", "receive") ||
	    tune_fragment_get(&s->best, "verify.socket_buffer", "send"))
		fprintf(
		    f,
		    "# The socket buffers stand for the application's SO_RCVBUF/SO_SNDBUF: the application\n"
		    "# must request the same sizes.\n");
	fprintf(f,
		"version: 1\nname: tuned\ndescription: \"cx5prof tune session %" PRId64
		": %zu change%s kept\"\n",
		s->id, s->n_kept, s->n_kept == 1 ? "" : "s");
	start = yaml_inner(s->start);
	fprintf(f, "extends: \"%s\"\n", strempty(start));
	write_fragment(f, &s->best, comments);
	for (size_t i = 0; i < TUNE_MAX_KEYS; i++)
		free(comments[i]);
	free(comments);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static const char *still_limits(struct session *s)
{
	const char *l = jstr(s->measured, "limited_by");
	return l ? l : "unknown";
}

static struct json_object *figures(struct json_object *g)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "median_recv_mbps",
			       json_object_get(json_object_object_get(g, "median_recv_mbps")));
	json_object_object_add(o, "median_loss_percent",
			       json_object_get(json_object_object_get(g, "median_loss_percent")));
	json_object_object_add(o, "limited_by", json_object_get(json_object_object_get(g, "limited_by")));
	return o;
}

static struct json_object *session_doc(struct session *s, const char *status, int64_t kept_txn)
{
	struct json_object *o = json_object_new_object(), *kept = json_object_new_array(), *goal, *margin;
	_cleanup_free_ char *yaml = profile_yaml(s);

	goal = json_object_new_object();
	json_object_object_add(goal, "recv_mbps",
			       s->o->goal_mbps > 0 ? json_object_new_double(s->o->goal_mbps) : NULL);
	json_object_object_add(goal, "max_loss_percent",
			       s->o->max_loss >= 0 ? json_object_new_double(s->o->max_loss) : NULL);
	margin = json_object_new_object();
	json_object_object_add(
	    margin, "throughput_percent",
	    json_object_new_double(s->o->min_effect >= 0 ? s->o->min_effect : VERDICT_MIN_EFFECT_RECV));
	json_object_object_add(margin, "loss_points",
			       json_object_new_double(s->o->min_effect_loss >= 0 ? s->o->min_effect_loss
										 : VERDICT_MIN_EFFECT_LOSS));
	for (size_t i = 0; i < s->n_kept; i++) {
		struct json_object *k = json_object_new_object();
		json_object_object_add(k, "family", json_object_new_string(s->kept[i].rule->family));
		json_object_object_add(k, "change", tune_fragment_json(&s->kept[i].frag));
		json_object_object_add(k, "step", json_object_new_int(s->kept[i].step));
		json_object_object_add(k, "effect", json_object_new_string(strna(s->kept[i].effect)));
		json_object_array_add(kept, k);
	}
	json_object_object_add(o, "tune", json_object_new_int64(s->id));
	json_object_object_add(o, "dry_run", json_object_new_boolean(false));
	json_object_object_add(o, "profile", json_object_new_string(s->start));
	json_object_object_add(o, "status", json_object_new_string(status));
	json_object_object_add(o, "exit_code", json_object_new_int(s->code));
	json_object_object_add(o, "stopped", json_object_new_string(strna(s->stopped)));
	json_object_object_add(o, "stop_note", s->stop_note ? json_object_new_string(s->stop_note) : NULL);
	json_object_object_add(o, "goal", goal);
	json_object_object_add(o, "min_effect", margin);
	json_object_object_add(o, "max_rounds", json_object_new_int((int)s->o->max_rounds));
	json_object_object_add(o, "baseline", s->baseline ? figures(s->baseline) : NULL);
	json_object_object_add(o, "final", s->measured ? figures(s->measured) : NULL);
	json_object_object_add(o, "still_limited_by", json_object_new_string(still_limits(s)));
	json_object_object_add(o, "steps", json_object_get(s->steps));
	json_object_object_add(o, "kept", kept);
	json_object_object_add(o, "profile_yaml", yaml ? json_object_new_string(yaml) : NULL);
	json_object_object_add(
	    o, "application_note",
	    tune_fragment_get(&s->best, "verify.socket_buffer", "receive") ||
		    tune_fragment_get(&s->best, "verify.socket_buffer", "send")
		? json_object_new_string(
		      "the socket buffers stand for the application's: it must request the same "
		      "SO_RCVBUF/SO_SNDBUF sizes")
		: NULL);
	json_object_object_add(o, "kept_transaction", kept_txn ? json_object_new_int64(kept_txn) : NULL);
	json_object_object_add(o, "rounds", json_object_new_int((int)s->rounds));
	json_object_object_add(o, "elapsed_s", json_object_new_double(elapsed(s)));
	return o;
}

/* Why nothing is left, from the final rounds' ledger: the sender limits
 * (say what would help), or the loss that is left lies inside the
 * margins, or no rule addresses the stage it names. NULL: nothing to add. */
static char *what_is_left(const struct session *s)
{
	const char *l = jstr(s->measured, "limited_by");
	double loss = jnum(s->measured, "median_loss_percent");

	if (!l || streq(l, "unknown"))
		return NULL;
	if (streq(l, "sender"))
		return strdup("the sender limits (no loss to speak of): more streams (verify.streams) or GSO "
			      "(verify.gso) would help, no receive-side setting can");
	if (!loss_matters(s))
		return strprintf(
		    "the loss left (%.2f%%, the ledger names the %s) lies inside the margins: no "
		    "change could make a meaningful difference to it",
		    loss, strna(ledger_stage_label(l)));
	return strprintf("the ledger names the %s, and no rule left to try addresses it",
			 strna(ledger_stage_label(l)));
}

/* yaml into path, whole or not at all (a temporary sibling renamed). */
static int write_answer(const char *path, const char *yaml)
{
	_cleanup_free_ char *tmp = strprintf("%s.tmp", path);
	FILE *f = tmp ? fopen(tmp, "we") : NULL;
	int r = 0;

	if (!f)
		return tmp ? -errno : -ENOMEM;
	if (fputs(yaml, f) < 0)
		r = -EIO;
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		(void)unlink(tmp);
	return r;
}

/* --keep: the minimal profile at path applied as one committed
 * transaction (persistent when --out names the file). An exit code. */
static int keep_answer(struct session *s, const char *path, int64_t *ret_txn)
{
	_cleanup_profile_ struct profile *p = NULL;
	struct profile_error err = {0};
	struct campaign_run x = {
	    .db_path = s->o->db_path, .h = s->o->h, .say = s->o->say, .outcome = s->o->outcome};
	int code;

	if (profile_load(path, &p, &err) < 0 || (s->o->peer && profile_set_peer(p, s->o->peer) < 0)) {
		log_error("tune: --keep: %s: %s", path, err.message);
		return EXIT_ERROR;
	}
	code = campaign_apply_committed(
	    &x, p, path,
	    s->o->out ? NULL
		      : "not persistent: write the profile with --out FILE to have it re-applied at boot",
	    ret_txn);
	s->o->h = x.h;
	return code;
}

/* ---- the session ---- */

static int session_open(struct session *s, struct tune_options *o)
{
	struct profile_error err = {0};
	const char *tmp = getenv("TMPDIR");
	int r;

	s->o = o;
	s->code = EXIT_OK;
	s->steps = json_object_new_array();
	snprintf(s->dir, sizeof(s->dir), "%s/cx5prof-tune.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!s->steps || !mkdtemp(s->dir))
		return log_error("tune: cannot make its working directory %s: %m", s->dir), EXIT_CANT_CREATE;
	if (o->profile) {
		if (!realpath(o->profile, s->start))
			return log_error("tune: %s: %m", o->profile), EXIT_NOT_FOUND;
	} else {
		_cleanup_free_ char *p = strprintf("%s/start.yaml", s->dir);
		FILE *f = p ? fopen(p, "we") : NULL;
		if (!f)
			return log_error("tune: cannot write %s: %m", strna(p)), EXIT_CANT_CREATE;
		fprintf(f,
			"version: 1\nname: tune-start\ndescription: \"the host as found\"\nverify:\n  peer: "
			"\"%s\"\n"
			"  runner: [netperf, builtin]\n  duration: 10\n  message_size: 8000\n",
			o->peer);
		if (fclose(f) != 0 || strv_push(&s->files, strdup(p)) < 0)
			return log_error("tune: cannot write %s", p), EXIT_CANT_CREATE;
		snprintf(s->start, sizeof(s->start), "%s", p);
	}
	r = profile_load(s->start, &s->start_profile, &err);
	if (r >= 0 && o->peer)
		r = profile_set_peer(s->start_profile, o->peer);
	if (r < 0) {
		_cleanup_free_ char *msg = profile_error_format(&err);
		log_error("%s", msg ? msg : err.message);
		return profile_load_exit_code(r);
	}
	port_mtus(s);
	return EXIT_OK;
}

static void session_close(struct session *s)
{
	for (char **f = s->files; f && *f; f++)
		(void)unlink(*f);
	if (s->dir[0] && !strstr(s->dir, "XXXXXX"))
		(void)rmdir(s->dir);
	strv_free(s->files);
	profile_free(s->start_profile);
	doctor_report_free(s->doctor);
	for (size_t i = 0; i < s->n_kept; i++)
		free(s->kept[i].effect);
	json_object_put(s->measured);
	json_object_put(s->baseline);
	json_object_put(s->steps);
	free(s->stop_note);
}

static int diagnose(struct session *s)
{
	struct doctor_options d = {.profile = s->start_profile,
				   .peer = s->o->peer,
				   .counter_interval_ms = 1000,
				   .probe_timeout_ms = 1000};
	int r = doctor_run(&d, &s->doctor);

	if (r < 0)
		return log_error_errno(r, "tune: doctor: %m"), EXIT_ERROR;
	return EXIT_OK;
}

static bool goal_reached(const struct session *s)
{
	double recv = jnum(s->measured, "median_recv_mbps"), loss = jnum(s->measured, "median_loss_percent");

	if (s->o->goal_mbps <= 0 && s->o->max_loss < 0)
		return false;
	if (s->o->goal_mbps > 0 && !(recv >= s->o->goal_mbps))
		return false;
	return !(s->o->max_loss >= 0 && !(loss <= s->o->max_loss));
}

static struct json_object *candidates_json(const struct candidate *c, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "family", json_object_new_string(c[i].rule->family));
		json_object_object_add(o, "evidence", json_object_new_string(strna(c[i].why)));
		json_object_object_add(o, "weight", json_object_new_double(c[i].weight));
		json_object_object_add(o, "change", tune_fragment_json(&c[i].frag));
		json_object_object_add(o, "needs_peer", json_object_new_boolean(c[i].rule->needs_peer));
		json_object_object_add(o, "link_down", json_object_new_boolean(c[i].rule->link_down));
		json_object_object_add(o, "skipped", c[i].skip ? json_object_new_string(c[i].skip) : NULL);
		json_object_array_add(a, o);
	}
	return a;
}

static struct json_object *doctor_json(const struct doctor_report *d)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; d && i < d->n_checks; i++) {
		const struct doctor_check *c = &d->checks[i];
		struct json_object *o;
		if (c->status != DOCTOR_WARN && c->status != DOCTOR_FAIL)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "object", json_object_new_string(c->object));
		json_object_object_add(o, "check", json_object_new_string(c->name));
		json_object_object_add(o, "status",
				       json_object_new_string(doctor_status_to_string(c->status)));
		json_object_object_add(o, "detail", json_object_new_string(strna(c->detail)));
		json_object_array_add(a, o);
	}
	return a;
}

int tune_dry_run(const struct tune_options *o, struct json_object **ret_doc)
{
	struct session s = {0};
	struct candidate c[32];
	size_t n = 0, tried = 0;
	struct json_object *doc, *ledger = json_object_new_array();
	unsigned duration;
	int code;

	code = session_open(&s, (struct tune_options *)o);
	if (code == EXIT_OK)
		code = diagnose(&s);
	if (code == EXIT_OK && candidates(&s, true, c, &n) < 0)
		code = EXIT_ERROR;
	if (code != EXIT_OK) {
		json_object_put(ledger);
		session_close(&s);
		return code;
	}
	for (size_t i = 0; i < n; i++)
		tried += !c[i].skip;
	for (size_t i = 0; i < tune_n_rules; i++) {
		bool listed = false;
		for (size_t k = 0; k < n; k++)
			listed |= c[k].rule == &tune_rules[i];
		if (!listed && family_wanted(o, tune_rules[i].family) && tune_rules[i].measured)
			json_object_array_add(ledger, json_object_new_string(tune_rules[i].family));
	}
	duration =
	    s.start_profile->verify.duration.set ? (unsigned)s.start_profile->verify.duration.value : 30;
	doc = json_object_new_object();
	json_object_object_add(doc, "dry_run", json_object_new_boolean(true));
	json_object_object_add(doc, "profile", json_object_new_string(s.start));
	json_object_object_add(doc, "diagnosis", doctor_json(s.doctor));
	json_object_object_add(doc, "mtu", s.mtu ? json_object_new_int((int)s.mtu) : NULL);
	json_object_object_add(doc, "max_mtu", s.max_mtu ? json_object_new_int((int)s.max_mtu) : NULL);
	json_object_object_add(doc, "peer_tunable", json_object_new_boolean(peer_tunable(&s)));
	json_object_object_add(doc, "candidates", candidates_json(c, n));
	json_object_object_add(doc, "after_baseline", ledger);
	json_object_object_add(doc, "max_rounds", json_object_new_int((int)o->max_rounds));
	json_object_object_add(
	    doc, "estimate_s",
	    json_object_new_int((int)((TUNE_DEFAULT_BASELINE_ROUNDS + tried * 2 * o->max_rounds) *
				      (duration + TUNE_ROUND_OVERHEAD_S))));
	candidates_free(c, n);
	session_close(&s);
	*ret_doc = doc;
	return EXIT_OK;
}

int tune_run(struct tune_options *o, struct json_object **ret_doc)
{
	struct session s = {0};
	struct json_object *doc = NULL;
	const char *status;
	int64_t kept_txn = 0;
	int code, r;

	*ret_doc = NULL;
	code = session_open(&s, o);
	if (code == EXIT_OK)
		code = diagnose(&s);
	if (code != EXIT_OK) {
		session_close(&s);
		return code;
	}
	s.started_usec = history_now_usec();
	r = tunes_start(o->h, s.start_profile->name.value, s.start, &s.id);
	if (r < 0) {
		log_error_errno(r, "history %s: cannot record the session: %m", o->db_path);
		session_close(&s);
		return EXIT_ERROR;
	}
	/* The baseline: the start's rounds, for the ledger. */
	{
		_cleanup_free_ char *path = NULL;
		r = write_profile(&s, "best.yaml", "baseline", "the starting point", &s.best, NULL, NULL,
				  &path);
		if (r < 0) {
			s.code = EXIT_ERROR;
			s.stopped = "failed";
		} else {
			if (!out_is_json())
				out_text("baseline    %u rounds of the starting point\n",
					 TUNE_DEFAULT_BASELINE_ROUNDS);
			code = run_campaign(&s, "baseline", (char *[]){path}, 1, TUNE_DEFAULT_BASELINE_ROUNDS,
					    &doc);
			if (!campaign_stops(&s, code, doc) && group_skipped(doc, 0)) {
				s.code = EXIT_ROLLED_BACK;
				s.stopped = "failed";
				s.stop_note = strprintf("the starting point cannot be measured: %s",
							group_skipped(doc, 0));
			}
			/* what it measured, also when the budget ended it early */
			if (doc_group(doc, 0)) {
				s.baseline = json_object_get(doc_group(doc, 0));
				s.measured = json_object_get(doc_group(doc, 0));
			}
			json_object_put(doc);
		}
	}
	while (!s.stopped) {
		struct candidate c[32];
		size_t n = 0;
		int k;

		if (goal_reached(&s)) {
			s.stopped = "goal";
			break;
		}
		if (apply_interrupted()) {
			s.code = EXIT_ROLLED_BACK;
			s.stopped = "interrupted";
			break;
		}
		if (o->budget_s && elapsed(&s) >= o->budget_s) {
			s.stopped = "budget";
			break;
		}
		if (candidates(&s, false, c, &n) < 0) {
			s.code = EXIT_ERROR;
			s.stopped = "failed";
			break;
		}
		/* Candidates that cannot be tried are steps once, with the reason. */
		for (size_t i = 0; i < n; i++)
			if (c[i].skip) {
				struct json_object *st;
				s.step++;
				s.tried[rule_index(c[i].rule)] = true;
				st = step_json(&s, "candidate", c[i].rule, c[i].why, &c[i].frag);
				step_result(st, NULL, "skipped", c[i].skip);
				json_object_array_add(s.steps, st);
				say_step(st);
			}
		k = pick(&s, c, n);
		if (k < 0) {
			s.stopped = "nothing-left";
			candidates_free(c, n);
			break;
		}
		code = try_candidate(&s, &c[k]);
		candidates_free(c, n);
		if (code != EXIT_OK) {
			s.code = code;
			s.stopped = "failed";
		}
	}
	if (streq(s.stopped, "goal") || streq(s.stopped, "nothing-left") ||
	    (streq(s.stopped, "budget") && (!o->budget_s || elapsed(&s) < o->budget_s)))
		(void)leave_one_out(&s);
	if (streq_ptr(s.stopped, "nothing-left"))
		s.stop_note = what_is_left(&s);
	status = s.code == EXIT_OK ? "done" : streq_ptr(s.stopped, "interrupted") ? "interrupted" : "failed";
	/* The answer, written once: to --out, or for --keep alone into the
	 * session's directory (the file the transaction records). */
	if (o->out || (s.code == EXIT_OK && o->keep && s.n_kept > 0)) {
		_cleanup_free_ char *yaml = profile_yaml(&s);
		_cleanup_free_ char *path = o->out ? strdup(o->out) : strprintf("%s/tuned.yaml", s.dir);

		r = yaml && path ? write_answer(path, yaml) : -ENOMEM;
		if (r < 0) {
			log_error_errno(r, "tune: %s %s: %m", o->out ? "--out" : "--keep", strna(path));
			if (s.code == EXIT_OK)
				s.code = EXIT_CANT_CREATE;
		} else if (!o->out)
			(void)strv_push(&s.files, strdup(path));
		if (r >= 0 && s.code == EXIT_OK && o->keep && s.n_kept > 0)
			s.code = keep_answer(&s, path, &kept_txn);
	}
	doc = session_doc(&s, status, kept_txn);
	r = doc ? tunes_finish(o->h, s.id,
			       streq(status, "done")	      ? CAMPAIGN_DONE
			       : streq(status, "interrupted") ? CAMPAIGN_INTERRUPTED
							      : CAMPAIGN_FAILED,
			       json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
								       JSON_C_TO_STRING_NOSLASHESCAPE))
		: -ENOMEM;
	if (r < 0) {
		log_error("history %s: the session's summary was not recorded: %s", o->db_path, strerror(-r));
		if (s.code == EXIT_OK)
			s.code = EXIT_ERROR;
		json_object_object_add(doc, "exit_code", json_object_new_int(s.code));
	}
	code = s.code;
	session_close(&s);
	*ret_doc = doc;
	return code;
}
