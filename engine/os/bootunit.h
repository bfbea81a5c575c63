/* bootunit.h: what makes an apply survive a reboot: the boot-time unit.
 *
 * Everything else apply changes is runtime state (MTU, channels, rings,
 * IRQ pins, sysctls vanish at reboot). The template unit
 * cx5prof-apply@.service (contrib/systemd/) applies
 * /etc/cx5prof/profiles/NAME.yaml at every boot; a profile persists when
 * its instance cx5prof-apply@NAME.service is enabled. `apply` (unless
 * --runtime-only) plans enabling it as a change of kind "boot", so
 * `rollback` disables it again.
 *
 * Owns: the instance name of a profile file, whether that file is the one
 * the unit reads (the same file: device and inode, under the sysroot), and
 * the unit's enabled state through service.h. Must never: enable a unit
 * for a profile file the unit would not read, or copy profiles anywhere. */
#ifndef CX5_BOOTUNIT_H
#define CX5_BOOTUNIT_H

#include "base/util.h"

#define BOOTUNIT_PROFILE_DIR "/etc/cx5prof/profiles"
#define BOOTUNIT_ENABLED     "enabled"
#define BOOTUNIT_DISABLED    "disabled"

/* The unit that applies profile file `path` at boot,
 * "cx5prof-apply@NAME.service", when path is BOOTUNIT_PROFILE_DIR/NAME.yaml
 * (under the sysroot) and NAME is a plain instance name (letters, digits,
 * '_', '.', '-'; not starting with '.' or '-'). Otherwise -EXDEV and, in
 * *ret_why, why the profile cannot persist and what to do. */
int bootunit_for_profile(const char *path, char **ret_unit, char **ret_why);

/* BOOTUNIT_ENABLED or BOOTUNIT_DISABLED (strdup'ed). -EOPNOTSUPP without
 * service control, -ENOENT when the unit is not installed, -EPERM when it
 * is in a state enable cannot change (masked, static, ...: *ret_state,
 * when asked, says which), -EIO when the service manager answered
 * nothing. */
int bootunit_read(const char *unit, char **ret, char **ret_state);
/* Enable or disable (value BOOTUNIT_ENABLED/DISABLED): 1 changed, 0
 * already so, -EIO when systemctl failed, -EINVAL for another value. */
int bootunit_write(const char *unit, const char *value);

#endif
