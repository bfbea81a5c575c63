/* plan.c: the plan (see plan.h).
 *
 * Owns: the plan container, the preconditions (requires), which ports a
 * profile matches, the conflicts between kinds, the loop over the change
 * kinds (engine/kinds/: each diffs itself) and the rendering. Must never:
 * write anything while planning, or drop a key the profile manages (an
 * unsupported key is a problem). */
#define _GNU_SOURCE
#include "plan.h"

#include <inttypes.h>
#include <stdarg.h>

#include "base/exitcode.h"
#include "base/output.h"
#include "os/probe.h"
#include "profile.h"
#include "requires.h"

/* ---- preconditions ---- */

/* A requirement not met is a problem; a driver minimum for the other kind
 * of driver is a warning (requires.h). */
static int check_requires(struct plan *p, const struct profile *prof, const struct iface_state *s)
{
	_cleanup_(requires_findings_done) struct requires_findings f = {0};
	int r = requires_evaluate(prof, s, &f);

	for (size_t i = 0; r >= 0 && i < f.n; i++) {
		const struct requires_finding *x = &f.v[i];

		if (x->verdict == REQUIRES_NOT_MET)
			r = plan_add_problem(p, EXIT_PRECONDITION, s->name, x->remedy, "%s", x->message);
		else if (x->verdict == REQUIRES_NOT_APPLICABLE)
			r = strv_pushf(&p->warnings, "%s: %s", s->name, x->message);
	}
	return r;
}

/* The ports are needed by the kinds that act on them, and by the
 * requirements on them. */
static bool profile_manages_link(const struct profile *prof)
{
	return kinds_manage_ports(prof) || requires_set(prof);
}

static int plan_port(struct plan_ctx *ctx, const struct iface_state *s)
{
	struct plan *p = ctx->plan;
	int r;

	if (!s->present)
		return plan_add_problem(p, EXIT_NOT_FOUND, s->name,
					"check the interface name, or run in the namespace that has it",
					"no such interface in the kernel");
	r = check_requires(p, ctx->profile, s);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n_change_kinds; i++)
		if (change_kinds[i]->scope == KIND_SCOPE_PORT && (r = change_kinds[i]->diff(ctx, s)) < 0)
			return r;
	return 0;
}

/* Every change's old value is one its kind can write back (kinds.h:
 * old_writable): an undo that could only fail is refused before anything
 * is written. */
static int check_restorable(struct plan *p)
{
	for (size_t i = 0; i < p->n_changes; i++) {
		const struct plan_change *c = &p->changes[i];
		_cleanup_free_ char *why = NULL, *shown = NULL;
		int r;

		if (!c->kind->old_writable)
			continue;
		r = c->kind->old_writable(c->object, c->key, c->old_value, &why);
		if (r == -ENOMEM)
			return r;
		if (r >= 0)
			continue;
		shown = str_escape_line(c->old_value);
		if (!shown)
			return -ENOMEM;
		r = plan_add_problem(
		    p, EXIT_PRECONDITION, c->object,
		    "set it by hand to a value cx5prof can write back, or leave it out of the profile",
		    "%s is \"%s\" now, which %s could not write back (%s)", c->key, shown, c->kind->name,
		    why ? why : strerror(-r));
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- which ports ---- */

static void iface_pci_id(const struct iface_state *s, uint16_t *vendor, uint16_t *device)
{
	*vendor = s->has_nic && s->nic.has_pci_id ? s->nic.vendor : 0;
	*device = s->has_nic && s->nic.has_pci_id ? s->nic.device : 0;
}

static int select_ports(struct plan *p, const struct profile *prof, const struct host_state *host)
{
	int r;

	for (size_t i = 0; i < host->n_ifaces; i++) {
		const struct iface_state *s = &host->ifaces[i];
		uint16_t vendor, device;

		if (s->present && s->link.loopback)
			continue;
		iface_pci_id(s, &vendor, &device);
		if (profile_match(prof, s->name, vendor, device) &&
		    (r = strv_extend(&p->interfaces, s->name)) < 0)
			return r;
	}
	for (char **n = prof->match.interfaces.set ? prof->match.interfaces.value : NULL; n && *n; n++)
		if (!host_state_iface(host, *n) &&
		    (r = plan_add_problem(p, EXIT_NOT_FOUND, *n,
					  "check the interface name in match.interfaces",
					  "no such interface")) < 0)
			return r;
	if (!p->interfaces && profile_manages_link(prof) && p->n_problems == 0)
		return plan_add_problem(p, EXIT_NOT_FOUND, "profile", "check match.interfaces and match.pci",
					"no interface on this host matches the profile");
	return 0;
}

/* ---- conflicts between kinds ---- */

static bool plan_changes_object(const struct plan *p, size_t before, const char *kind, const char *object)
{
	for (size_t i = 0; i < before; i++)
		if (streq(p->changes[i].kind->name, kind) && streq(p->changes[i].object, object))
			return true;
	return false;
}

/* 1 when kind k is blocked by a change already planned of a kind its
 * conflicts name (the problems are added), 0 when it may be planned,
 * -errno. */
static int kind_blocked(struct plan_ctx *ctx, const struct change_kind *k)
{
	struct plan *p = ctx->plan;
	bool blocked = false;
	int r;

	if (!k->manages || !k->manages(ctx->profile))
		return 0;
	for (const struct kind_conflict *x = k->conflicts; x && x->changed; x++) {
		for (size_t i = 0; i < p->n_changes; i++) {
			const struct plan_change *ch = &p->changes[i];

			if (!streq(ch->kind->name, x->changed) ||
			    plan_changes_object(p, i, x->changed, ch->object))
				continue;
			r = plan_add_problem(p, EXIT_UNSUPPORTED, ch->object, x->remedy, "%s", x->message);
			if (r < 0)
				return r;
			blocked = true;
		}
	}
	return blocked;
}

/* ---- building ---- */

int plan_build(const struct profile *prof, const struct host_state *host, struct plan **ret)
{
	struct plan_ctx ctx = {.profile = prof, .host = host};
	int r;

	ctx.plan = calloc(1, sizeof(*ctx.plan));
	if (!ctx.plan)
		return -ENOMEM;
	r = select_ports(ctx.plan, prof, host);
	for (char **n = ctx.plan->interfaces; r >= 0 && n && *n; n++)
		r = plan_port(&ctx, host_state_iface(host, *n));
	for (size_t i = 0; r >= 0 && i < n_change_kinds; i++)
		if (change_kinds[i]->scope == KIND_SCOPE_HOST &&
		    (r = kind_blocked(&ctx, change_kinds[i])) == 0)
			r = change_kinds[i]->diff(&ctx, NULL);
	if (r >= 0)
		r = check_restorable(ctx.plan);
	plan_ctx_done(&ctx);
	if (r < 0) {
		plan_free(ctx.plan);
		return r;
	}
	plan_order(ctx.plan);
	*ret = ctx.plan;
	return 0;
}

/* ---- rendering ---- */

static struct json_object *diff_side(const struct plan *p, bool after)
{
	struct json_object *side = json_object_new_object();

	for (size_t i = 0; side && i < p->n_changes; i++) {
		const struct plan_change *c = &p->changes[i];
		struct json_object *obj = NULL;

		if (!json_object_object_get_ex(side, c->object, &obj)) {
			obj = json_object_new_object();
			json_object_object_add(side, c->object, obj);
		}
		json_object_object_add(obj, c->key,
				       json_object_new_string(after ? c->new_value : c->old_value));
	}
	return side;
}

char *change_value_human(const char *kind, const char *value, const char *counterpart)
{
	const struct change_kind *k = change_kind_find(kind);

	if (!k || !k->human || !value || !counterpart)
		return strdup(value ? value : "-");
	return k->human(value, counterpart);
}

static void render_change(const struct plan_change *c)
{
	_cleanup_free_ char *before = change_value_human(c->kind->name, c->old_value, c->new_value);

	out_open_object(NULL);
	out_string(OUT_ANY, "object", "%s  ", c->object);
	out_string(OUT_JSON, "kind", NULL, c->kind->name);
	out_string(OUT_ANY, "key", "%s  ", c->key);
	out_string(OUT_JSON, "before", NULL, c->old_value);
	out_string(OUT_HUMAN, NULL, "%s -> ", before ? before : c->old_value);
	out_string(OUT_ANY, "after", "%s", c->new_value);
	out_bool(OUT_JSON, "resets_link", NULL, c->kind->resets_link);
	if (c->note)
		out_string(OUT_ANY, "note", "  (%s)", c->note);
	else
		out_string(OUT_JSON, "note", NULL, NULL);
	out_text("\n");
	out_close_object();
}

static void render_problems(const struct plan *p)
{
	out_open_array("problems");
	for (size_t i = 0; i < p->n_problems; i++) {
		const struct plan_problem *q = &p->problems[i];
		out_open_object(NULL);
		out_string(OUT_JSON, "object", NULL, q->object);
		out_string(OUT_JSON, "message", NULL, q->message);
		out_string(OUT_JSON, "remedy", NULL, q->remedy);
		out_int(OUT_JSON, "exit_code", NULL, q->exit_code);
		out_close_object();
	}
	out_close_array();
}

void plan_render(const struct plan *p, const char *msg)
{
	out_bool(OUT_JSON, "changed", NULL, p->n_changes > 0 && p->n_problems == 0);
	if (out_is_json()) { /* people never see it: do not build it for them */
		struct json_object *diff = json_object_new_object();
		json_object_object_add(diff, "before", diff_side(p, false));
		json_object_object_add(diff, "after", diff_side(p, true));
		out_json("diff", diff);
	}
	out_open_array("changes");
	for (size_t i = 0; i < p->n_changes; i++)
		render_change(&p->changes[i]);
	out_close_array();
	render_problems(p);
	out_bool(OUT_JSON, "persistent", NULL, p->boot_unit != NULL);
	out_string(OUT_JSON, "boot_unit", NULL, p->boot_unit);
	out_open_array("warnings");
	for (char **w = p->warnings; w && *w; w++)
		out_string(OUT_JSON, NULL, NULL, *w);
	out_close_array();
	out_string(OUT_ANY, "msg", "%s\n", msg);
}
