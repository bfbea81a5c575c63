/* irqbalanced.h: detecting irqbalance and keeping it off our IRQs.
 *
 * Owns: whether irqbalance runs (a process named "irqbalance" in
 * /proc/<pid>/comm, through the sysroot), its service state (enabled,
 * active), and the three profile actions: stop (stop + disable the service),
 * ban (keep it running, exclude our IRQs with --banirq in IRQBALANCE_ARGS of
 * /etc/default/irqbalance or /etc/sysconfig/irqbalance), leave (a warning).
 * Each action returns an undo record (a JSON string) that restores exactly
 * the old state.
 *
 * Service control goes through service.h: `systemctl` on the live host;
 * with a --sysroot, $CX5PROF_SYSTEMCTL or nothing (-EOPNOTSUPP, the state
 * "unknown"). Config files are
 * resolved under the sysroot root like /proc and /sys.
 * Must never: reach the live host's service manager while a sysroot is set,
 * kill processes, or edit anything but the IRQBALANCE_ARGS line. */
#ifndef CX5_IRQBALANCED_H
#define CX5_IRQBALANCED_H

#include "base/util.h"

#define IRQBALANCE_SERVICE "irqbalance.service"

enum irqbalance_action {
	IRQBALANCE_LEAVE,
	IRQBALANCE_STOP,
	IRQBALANCE_BAN,
	_IRQBALANCE_ACTION_MAX,
};
const char *irqbalance_action_to_string(enum irqbalance_action a); /* "leave", "stop", "ban" */
int irqbalance_action_from_string(const char *s);

/* -1 = unknown. Without a service manager to ask (a sysroot without
 * CX5PROF_SYSTEMCTL) the files decide what they can prove: no irqbalance
 * process and no enablement link in /etc/systemd/system/ *.wants/ is
 * "disabled, inactive" (0, 0); anything else is unknown (-1, -1). */
struct irqbalance_state {
	bool running;	   /* a process named irqbalance exists */
	int pid;	   /* its pid (the smallest), 0 when not running */
	int enabled;	   /* service enabled at boot: 1, 0, -1 */
	int active;	   /* service active now: 1, 0, -1 */
	char *config_path; /* host path of the config file holding IRQBALANCE_ARGS, NULL when none exists */
	char *args;	   /* current IRQBALANCE_ARGS value, NULL when unset */
};

int irqbalance_detect(struct irqbalance_state *ret);
void irqbalance_state_done(struct irqbalance_state *s);

/* stop: stop and disable the service. *ret_undo records the old active and
 * enabled states. Returns 1 when something changed, 0 when it was already
 * stopped and disabled. -EOPNOTSUPP without service control; -EBUSY when an
 * irqbalance process is still running afterwards (one the service did not
 * start): the service is then put back as it was, and *ret_why (when
 * ret_why is not NULL; caller frees) names that process (pid, command
 * line), the command that did not stop it, and what to do. */
int irqbalance_stop(char **ret_undo, char **ret_why);
/* ban: add --banirq=<n> for each IRQ not banned yet to IRQBALANCE_ARGS
 * (everything else in the file is kept), creating the file in /etc/default
 * or /etc/sysconfig if none exists, and try-restart the service so it reads
 * them. *ret_undo records the file's old content (or its absence). Returns
 * 1 when changed, 0 when already so. IRQ numbers change across reboots and
 * driver reloads: a ban is re-applied with the profile, never kept. */
int irqbalance_ban(const unsigned *irqs, size_t n, char **ret_undo);
/* (irqbalance_ban and irqbalance_ban_snapshot return -ELOOP when the config
 * file is a symlink: it would be replaced by a regular file. A non-zero
 * try-restart is -EIO, with the file already written.) */
/* The undo record irqbalance_ban would return now (the config file's path,
 * its content or absence, its mode), without changing anything: the plan
 * stores it as the ban's old value. -ENOENT when there is no config file
 * and no directory to create one in; -EINVAL when IRQBALANCE_ARGS holds a
 * value irqbalance_ban would refuse to rewrite ($, quotes, backslashes). */
int irqbalance_ban_snapshot(char **ret_undo);
/* The IRQs banned (--banirq=N, --banirq N, -i N, -iN) in IRQBALANCE_ARGS
 * of the config file as the ban undo record `undo` describes it, or as it
 * is now when undo is NULL; an empty list without a file. */
int irqbalance_ban_list(const char *undo, unsigned **ret_irqs, size_t *ret_n);
/* 1 when the config file is now exactly as the ban undo record says
 * (content byte for byte and mode, or absent), 0 when not, -EINVAL for a
 * record that is not a ban of this module's files. */
int irqbalance_ban_matches(const char *undo);
/* Restore what an undo record of stop or ban says; idempotent. A ban is
 * undone only while the config file is as the ban left it (or already as
 * the record says): -ESTALE when it was edited, removed or replaced by a
 * symlink since, and nothing is written. try-restart exiting non-zero is
 * -EIO. */
int irqbalance_restore(const char *undo);
/* The config file path a ban undo record names, NULL when none (caller
 * frees): for the caller's message when irqbalance_restore refuses. */
char *irqbalance_ban_record_path(const char *undo);

#endif
