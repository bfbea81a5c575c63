/* kinds/boot.c: the "boot" kind: object "cx5prof-apply@NAME.service", key
 * "enabled", "disabled" -> "enabled" (bootunit.h). Not diffed by
 * plan_build: plan_boot_unit (kinds.h) plans it last, for the profile file
 * apply was given, once the plan has no problems. */
#include "kinds.h"

#include "base/log.h"
#include "os/bootunit.h"
#include "os/service.h"
#include "os/sysroot.h"
#include "changes.h"

static int boot_read(const char *object, const char *key, char **ret, char **kmsg _unused_)
{
	(void)key;
	return bootunit_read(object, ret, NULL);
}

static int boot_write(const char *object, const char *key, const char *value, char **kmsg)
{
	(void)key;
	(void)kmsg;
	return bootunit_write(object, value);
}

static int plan_warn_not_persistent(struct plan *p, char *why)
{
	int r;

	if (!why)
		return -ENOMEM;
	r = strv_pushf(&p->warnings, "not persistent: %s; the changes last until the next reboot", why);
	free(why);
	return r;
}

int plan_boot_unit(struct plan *p, const char *path)
{
	_cleanup_free_ char *unit = NULL, *why = NULL, *now = NULL, *state = NULL;
	int r;

	if (p->n_problems > 0)
		return 0;
	if (!service_command()) {
		log_debug("no service manager with --sysroot (CX5PROF_SYSTEMCTL unset): runtime only");
		return 0;
	}
	r = bootunit_for_profile(path, &unit, &why);
	if (r == -EXDEV)
		return plan_warn_not_persistent(p, TAKE_PTR(why));
	if (r < 0)
		return r;
	r = bootunit_read(unit, &now, &state);
	if (r == -ENOENT)
		return plan_warn_not_persistent(
		    p, strprintf("%s is not installed (`make install` installs cx5prof-apply@.service; then "
				 "`systemctl daemon-reload`)",
				 unit));
	if (r == -EPERM)
		return plan_warn_not_persistent(
		    p, strprintf("%s is %s, which enable cannot change (`systemctl unmask` it if masked)",
				 unit, state));
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return plan_warn_not_persistent(
		    p, strprintf("the service manager (%s) gives no state for %s: %s", service_command(),
				 unit, sysroot_strerror(r)));
	if (!streq(now, BOOTUNIT_ENABLED)) {
		r = plan_add_change(p, "boot", unit, "enabled", now, BOOTUNIT_ENABLED);
		if (r < 0)
			return r;
		plan_order(p);
	}
	p->boot_unit = TAKE_PTR(unit);
	return 0;
}

const struct change_kind kind_boot = {
    .name = "boot",
    .rank = 90,
    .persists = true,
    .order_note = "last: re-applied at boot only once all of it has landed",
    .read = boot_read,
    .write = boot_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
};
