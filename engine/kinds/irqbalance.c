/* kinds/irqbalance.c: the kinds of irq.irqbalance, a thin layer over
 * irqbalanced.h: "irqbalance" (stop: object "irqbalance", key "service",
 * "active=A,enabled=E" -> "stopped") and "irqbalance-ban" (ban: object
 * "irqbalance", key "banirq", the config file's undo record (JSON) -> the
 * IRQs to ban, "99,109-123"). Their coupling lives here: with ban the
 * service keeps running and the IRQs banned are those the irq kind pins
 * (plan_ctx), so ban is planned after irq; stop and ban are alternatives of
 * one key. Both come before the IRQ pins in apply order. */
#include "kinds.h"
#include "irqbalance.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/exitcode.h"
#include "base/output.h"
#include "irqnumbers.h"
#include "irqplan.h"
#include "os/irqbalanced.h"
#include "os/probe.h"
#include "os/procscan.h"
#include "os/service.h"
#include "os/sysroot.h"
#include "changes.h"
#include "profile.h"

enum irqbalance_mode {
	MODE_STOP,
	MODE_BAN,
	MODE_LEAVE,
};

static const char *const irqbalance_names[] = {
    [MODE_STOP] = "stop", [MODE_BAN] = "ban", [MODE_LEAVE] = "leave", NULL};

struct irqbalance_want {
	struct profile_enum mode; /* enum irqbalance_mode */
};

static const struct profile_key irqbalance_keys[] = {
    PROFILE_KEY_ENUM(
	"irqbalance", offsetof(struct irqbalance_want, mode), irqbalance_names,
	"stop (and disable) irqbalance, ban the pinned IRQs from it (it keeps running), or leave it "
	"(the pins may be overwritten)"),
    {0},
};

extern const struct change_kind kind_irqbalance;

static const struct profile_enum *mode_of(const struct profile *p)
{
	return &((const struct irqbalance_want *)kind_want(p, &kind_irqbalance))->mode;
}

/* ---- the probe: irqbalance's process and service, host-wide ---- */

static int irqbalance_probe(void *ret)
{
	struct irqbalance_state *st = ret;
	int r = irqbalance_detect(st);

	if (r == -ENOMEM)
		return r;
	if (r < 0) /* a broken config file: still say whether it runs */
		*st = (struct irqbalance_state){
		    .running = procscan_find("irqbalance") > 0, .enabled = -1, .active = -1};
	return 0;
}

static void irqbalance_probe_done(void *value)
{
	irqbalance_state_done(value);
}

static const struct probe_host_fact irqbalance_fact = {
    .name = "irqbalance",
    .size = sizeof(struct irqbalance_state),
    .read = irqbalance_probe,
    .done = irqbalance_probe_done,
};

const struct irqbalance_state *irqbalance_probed(const struct host_state *h)
{
	static const struct irqbalance_state unknown = {.enabled = -1, .active = -1};
	const struct host_fact *f = kind_host_fact(h, &kind_irqbalance);

	return f->r < 0 ? &unknown : f->value;
}

/* ---- irqbalance (irq.irqbalance: stop) ----
 * Values: "stopped", or the service state to restore, "active=A,enabled=E"
 * (1 yes, 0 no), which becomes irqbalanced.h's undo record. */

#define IRQBALANCE_STOPPED "stopped"

static int irqbalance_kind_read(const char *object, const char *key, char **ret, char **kmsg _unused_)
{
	struct irqbalance_state st;
	int r;

	(void)object;
	(void)key;
	r = irqbalance_detect(&st);
	if (r < 0)
		return r;
	if (st.active < 0 || st.enabled < 0)
		r = -EOPNOTSUPP;
	else if (st.active == 0 && st.enabled == 0 && !st.running)
		*ret = strdup(IRQBALANCE_STOPPED);
	else
		*ret = strprintf("active=%d,enabled=%d", st.active, st.enabled);
	irqbalance_state_done(&st);
	if (r < 0)
		return r;
	return *ret ? 0 : -ENOMEM;
}

static int irqbalance_kind_write(const char *object, const char *key, const char *value, char **kmsg)
{
	_cleanup_free_ char *undo = NULL;
	int active, enabled;

	(void)object;
	(void)key;
	if (streq(value, IRQBALANCE_STOPPED))
		return irqbalance_stop(&undo, kmsg);
	if (sscanf(value, "active=%d,enabled=%d", &active, &enabled) != 2)
		return -EINVAL;
	undo = strprintf("{\"action\":\"stop\",\"active\":%d,\"enabled\":%d}", active, enabled);
	if (!undo)
		return -ENOMEM;
	return irqbalance_restore(undo);
}

/* ---- irqbalance ban (irq.irqbalance: ban) ----
 * Object "irqbalance", key "banirq". New value: the IRQs to ban, a list
 * ("99,109-123"). Old value: irqbalanced.h's undo record of the config file
 * (its path, content or absence, and mode: a JSON object), so the undo log
 * alone restores the file byte for byte; the plan line shows instead which
 * of the IRQs were banned already (irqban_human). */

#define IRQBALANCE_BAN_KEY "banirq"

static bool is_undo_record(const char *value)
{
	return value[0] == '{';
}

/* Of the IRQs in want (sorted), those banned in the config as `undo`
 * describes it (NULL: as it is now), formatted; "-" when none. */
static int ban_intersection(const char *undo, const unsigned *want, size_t nwant, char **ret)
{
	_cleanup_free_ unsigned *have = NULL, *both = NULL;
	size_t nhave = 0, nboth = 0;
	int r;

	r = irqbalance_ban_list(undo, &have, &nhave);
	if (r < 0)
		return r;
	nhave = irq_numbers_normalize(have, nhave);
	both = calloc(nwant ? nwant : 1, sizeof(*both));
	if (!both)
		return -ENOMEM;
	for (size_t i = 0; nhave > 0 && i < nwant; i++)
		if (bsearch(&want[i], have, nhave, sizeof(*have), cmp_unsigned))
			both[nboth++] = want[i];
	return irq_numbers_format(both, nboth, ret);
}

static int irqban_read(const char *object, const char *key, char **ret, char **kmsg _unused_)
{
	(void)object;
	(void)key;
	return irqbalance_ban_snapshot(ret);
}

static int irqban_write(const char *object, const char *key, const char *value, char **kmsg)
{
	_cleanup_free_ unsigned *irqs = NULL;
	_cleanup_free_ char *undo = NULL;
	size_t n = 0;
	int r;

	(void)object;
	(void)key;
	(void)kmsg;
	r = irq_numbers_parse(value, &irqs, &n);
	return r < 0 ? r : irqbalance_ban(irqs, n, &undo);
}

/* The old value is an undo record (apply, rollback); a list only when a
 * rollback is itself rolled back. */
static int irqban_undo(const struct change_kind *k, const char *object, const char *key,
		       const char *old_value, char **kmsg)
{
	int r;

	if (is_undo_record(old_value)) {
		r = irqbalance_restore(old_value);
		if (r == -ESTALE) {
			_cleanup_free_ char *path = irqbalance_ban_record_path(old_value);
			*kmsg = strprintf("%s changed since the ban was written (edited, removed or "
					  "replaced by a symlink): nothing written; remove the --banirq "
					  "options by hand",
					  strna(path));
		}
		return r;
	}
	r = k->write(object, key, old_value, kmsg);
	return r < 0 ? r : 0;
}

static int irqban_verify(const struct change_kind *k, const char *object, const char *key, const char *value,
			 char **kmsg _unused_)
{
	_cleanup_free_ unsigned *want = NULL;
	_cleanup_free_ char *banned = NULL, *all = NULL;
	size_t n = 0;
	int r;

	(void)k;
	(void)object;
	(void)key;
	if (is_undo_record(value)) {
		r = irqbalance_ban_matches(value);
		return r < 0 ? r : r ? 0 : -EIO;
	}
	r = irq_numbers_parse(value, &want, &n);
	if (r < 0)
		return r;
	if ((r = ban_intersection(NULL, want, n, &banned)) < 0 || (r = irq_numbers_format(want, n, &all)) < 0)
		return r;
	return streq(banned, all) ? 0 : -EIO;
}

static int plan_irqbalance_stop(struct plan *p)
{
	_cleanup_free_ char *cur = NULL;
	int r = irqbalance_kind_read("irqbalance", "service", &cur, NULL);

	if (r == -EOPNOTSUPP)
		return plan_add_problem(p, EXIT_UNSUPPORTED, "irqbalance",
					"stop it by hand, or with --sysroot set CX5PROF_SYSTEMCTL",
					"irq.irqbalance: stop: no service manager to stop it with");
	if (r < 0)
		return plan_add_problem(p, EXIT_ERROR, "irqbalance", "check the irqbalance service",
					"cannot read the irqbalance state: %s", sysroot_strerror(r));
	if (streq(cur, IRQBALANCE_STOPPED))
		return 0;
	return plan_add_change(p, "irqbalance", "irqbalance", "service", cur, IRQBALANCE_STOPPED);
}

/* irq.irqbalance: ban. irqbalance is kept running but told (--banirq in
 * IRQBALANCE_ARGS) to leave the IRQs the plan pins alone. Where irqbalance
 * is neither installed (no config file) nor running there is nothing to
 * ban: creating its config file would only surprise the package manager
 * later, so the plan says so and changes nothing. Installed but stopped:
 * the ban is written, and a later start honours it. */
static int irqban_diff(struct plan_ctx *ctx, const struct iface_state *port)
{
	struct plan *p = ctx->plan;
	const struct profile_enum *mode = mode_of(ctx->profile);
	const struct irqbalance_state *st = irqbalance_probed(ctx->host);
	bool running = st->running || st->active == 1;
	_cleanup_free_ char *old = NULL, *want = NULL, *banned = NULL;
	_cleanup_free_ unsigned *pinned = NULL;
	size_t n_pins, n_pinned = 0;
	const struct plan_irq_cpu *pins = plan_ctx_lookup(ctx, IRQPLAN_PINS, &n_pins);
	int r;

	(void)port;
	if (!mode->set || mode->value != MODE_BAN)
		return 0;
	if (!kinds_key_enum_name(ctx->profile, "irq.policy"))
		return strv_extend(&p->warnings, "irq.irqbalance: ban: the profile pins no IRQ "
						 "(no irq.policy): nothing to ban");
	if (n_pins == 0)
		return 0;
	/* The completion IRQs the irq kind pins, sorted and unique. */
	pinned = malloc(n_pins * sizeof(*pinned));
	if (!pinned)
		return -ENOMEM;
	for (size_t i = 0; i < n_pins; i++)
		pinned[n_pinned++] = pins[i].irq;
	n_pinned = irq_numbers_normalize(pinned, n_pinned);
	if (!st->config_path && !running)
		return strv_extend(
		    &p->warnings,
		    "irq.irqbalance: ban: irqbalance is neither running nor configured here "
		    "(no /etc/default/irqbalance or /etc/sysconfig/irqbalance): nothing to ban");
	r = irqbalance_ban_snapshot(&old);
	if (r == -ENOENT)
		return plan_add_problem(p, EXIT_UNSUPPORTED, "irqbalance", "use irq.irqbalance: stop",
					"irq.irqbalance: ban: no /etc/default or /etc/sysconfig to write "
					"IRQBALANCE_ARGS in");
	if (r == -ELOOP)
		return plan_add_problem(p, EXIT_UNSUPPORTED, "irqbalance",
					"add the --banirq options to the link's target by hand, or use "
					"irq.irqbalance: stop",
					"irq.irqbalance: ban: %s is a symlink: cx5prof would replace it by a "
					"regular file",
					strna(st->config_path));
	if (r == -EINVAL)
		return plan_add_problem(
		    p, EXIT_UNSUPPORTED, "irqbalance",
		    "add the --banirq options by hand, or use irq.irqbalance: stop",
		    "irq.irqbalance: ban: IRQBALANCE_ARGS in %s uses $, quotes or backslashes: "
		    "cx5prof does not rewrite it",
		    strna(st->config_path));
	if (r < 0)
		return plan_add_problem(p, EXIT_ERROR, "irqbalance", "check the irqbalance config file",
					"cannot read the irqbalance configuration: %s", sysroot_strerror(r));
	if ((r = irq_numbers_format(pinned, n_pinned, &want)) < 0 ||
	    (r = ban_intersection(old, pinned, n_pinned, &banned)) < 0)
		return r;
	if (streq(banned, want))
		return 0;
	if (running && !service_command())
		return plan_add_problem(p, EXIT_UNSUPPORTED, "irqbalance",
					"ban the IRQs by hand, or with --sysroot set CX5PROF_SYSTEMCTL",
					"irq.irqbalance: ban: no service manager to restart irqbalance with");
	if (st->running && st->active == 0 &&
	    (r = strv_extend(&p->warnings, "irq.irqbalance: ban: irqbalance runs outside its service: it "
					   "reads the ban only when the service starts it")) < 0)
		return r;
	return plan_add_change(p, "irqbalance-ban", "irqbalance", IRQBALANCE_BAN_KEY, old, want);
}

static int irqbalance_diff(struct plan_ctx *ctx, const struct iface_state *port)
{
	const struct profile_enum *mode = mode_of(ctx->profile);
	struct plan *p = ctx->plan;

	(void)port;
	if (!mode->set)
		return 0;
	if (mode->value == MODE_STOP)
		return plan_irqbalance_stop(p);
	if (mode->value == MODE_BAN)
		return 0; /* after the IRQ plan: irqban_diff */
	if (!irqbalance_probed(ctx->host)->running)
		return 0;
	return strv_extend(&p->warnings,
			   "irqbalance is running and left alone: it may overwrite the IRQ pins");
}

static bool irqbalance_manages(const struct profile *p)
{
	return mode_of(p)->set;
}

/* 1 true, 0 false, -1 unknown (JSON null). */
static void show_tristate(const char *key, int v)
{
	if (v < 0)
		out_string(OUT_JSON, key, NULL, NULL);
	else
		out_bool(OUT_JSON, key, NULL, v > 0);
}

static void irqbalance_show(const struct host_state *h)
{
	const struct irqbalance_state *st = irqbalance_probed(h);

	out_open_object("irqbalance");
	out_bool(OUT_JSON, "running", NULL, st->running);
	if (st->running)
		out_int(OUT_JSON, "pid", NULL, st->pid);
	else
		out_string(OUT_JSON, "pid", NULL, NULL);
	show_tristate("service_enabled", st->enabled);
	show_tristate("service_active", st->active);
	if (st->running)
		out_text("irqbalance  running (pid %d)", st->pid);
	else
		out_text("irqbalance  not running");
	if (st->enabled < 0 && st->active < 0)
		out_text(", service state unknown\n");
	else
		out_text(", service %s, %s\n",
			 st->enabled < 0 ? "enabled?"
			 : st->enabled	 ? "enabled"
					 : "disabled",
			 st->active < 0 ? "active?"
			 : st->active	? "active"
					: "inactive");
	out_close_object();
}

/* The ban's old value is an undo record (the whole config file): people
 * see which of the IRQs were banned already. Lists and numbers print as
 * they are. */
static char *irqban_human(const char *value, const char *counterpart)
{
	_cleanup_free_ unsigned *want = NULL;
	char *s = NULL;
	size_t n = 0;

	if (!is_undo_record(value))
		return strdup(value);
	if (irq_numbers_parse(counterpart, &want, &n) < 0 || ban_intersection(value, want, n, &s) < 0)
		return strdup("(config file as before)");
	return s;
}

/* What show writes of it (kinds.h: show_schema; `make docs` puts it into
 * schemas/state.schema.json). */
static const char irqbalance_show_schema[] =
    "{"
    " \"irqbalance\": {"
    "  \"type\": \"object\","
    "  \"required\": [\"running\", \"pid\", \"service_enabled\", \"service_active\"],"
    "  \"additionalProperties\": false,"
    "  \"description\": \"The irqbalance daemon, which may overwrite manual IRQ pins "
    "(engine/os/irqbalanced.h).\","
    "  \"properties\": {"
    "   \"running\": {"
    "    \"type\": \"boolean\","
    "    \"description\": \"a process named irqbalance is in /proc/<pid>/comm\""
    "   },"
    "   \"pid\": {"
    "    \"type\": [\"integer\", \"null\"],"
    "    \"minimum\": 1,"
    "    \"description\": \"its pid (the smallest when several); null when not running\""
    "   },"
    "   \"service_enabled\": {"
    "    \"type\": [\"boolean\", \"null\"],"
    "    \"description\": \"irqbalance.service enabled at boot; null when no service manager can be asked "
    "(always with --sysroot unless CX5PROF_SYSTEMCTL is set)\""
    "   },"
    "   \"service_active\": {"
    "    \"type\": [\"boolean\", \"null\"],"
    "    \"description\": \"irqbalance.service active now; null when unknown\""
    "   }"
    "  }"
    " }"
    "}";

const struct change_kind kind_irqbalance = {
    .name = "irqbalance",
    .rank = 15,
    .persists = true,
    .order_note = "before IRQ affinity: irqbalance would move the pins again",
    .scope = KIND_SCOPE_HOST,
    .profile_section = "irq",
    .keys = irqbalance_keys,
    .want_size = sizeof(struct irqbalance_want),
    .host_probe = &irqbalance_fact,
    .read = irqbalance_kind_read,
    .write = irqbalance_kind_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .diff = irqbalance_diff,
    .manages = irqbalance_manages,
    .show_host = irqbalance_show,
    .show_schema = irqbalance_show_schema,
};

const struct change_kind kind_irqbalance_ban = {
    .name = "irqbalance-ban",
    .rank = 16,
    .persists = true,
    .order_note = "before IRQ affinity: irqbalance would move the pins again",
    .scope = KIND_SCOPE_HOST,
    .read = irqban_read,
    .write = irqban_write,
    .undo = irqban_undo,
    .verify = irqban_verify,
    .diff = irqban_diff,
    .human = irqban_human,
};
