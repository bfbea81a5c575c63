/* doctor.h: the checklist an operator runs before trusting a UDP
 * benchmark on a ConnectX-5 host: each item pass, warn, fail or skip, with
 * the fix.
 *
 * Owns: the ONE table of checks, their verdicts and fixes, the kernel-log
 * scan for mlx5 firmware command timeouts, and the comparison with the
 * peer's `show --json` (model, driver and firmware must match for results
 * to be comparable). Keys of the report: schemas/doctor.schema.json.
 * Must never: change the host. The only traffic it sends is bounded: one
 * TCP connect to the peer's benchmark port, at most two ICMP echoes (DF
 * probe) and one STATE request to a `cx5prof serve` there (peercheck.h),
 * to the peer only (--peer, else the profile's verify.peer).
 *
 * Kernel log: this boot's ring buffer (kernlog.h: /dev/kmsg under the
 * sysroot, else on a live host `journalctl -k -b`), as `dmesg | grep mlx5`
 * reads it; where it cannot be read, the first of /var/log/kern.log,
 * /var/log/dmesg (the boot dmesg Debian and RHEL write) and
 * /var/log/messages found under the sysroot. Lines of mlx5_core are
 * matched on the firmware command
 * functions (wait_func, wait_func_handle_exec_timeout, mlx5_cmd_comp_handler
 * "after timeout", mlx5_init_one failed with -110), never on line numbers. */
#ifndef CX5_DOCTOR_H
#define CX5_DOCTOR_H

#include "base/util.h"

struct profile;

enum doctor_status { DOCTOR_PASS, DOCTOR_WARN, DOCTOR_FAIL, DOCTOR_SKIP, _DOCTOR_STATUS_MAX };
const char *doctor_status_to_string(enum doctor_status s); /* "pass", "warn", "fail", "skip" */

struct doctor_check {
	char *object;	  /* interface name, "host" or the peer address */
	const char *name; /* "model", "link", ... (static) */
	enum doctor_status status;
	char *detail; /* what was found, one line */
	char *fix;    /* what to do; NULL on pass/skip */
};

struct doctor_options {
	const struct profile *profile; /* may be NULL: every ConnectX-5 port, defaults */
	const char *peer;	       /* --peer: the peer to check (else the profile's verify.peer) */
	const char *peer_state;	       /* the peer's `cx5prof show --json` file, or NULL */
	unsigned counter_interval_ms;  /* between the two drop counter readings */
	unsigned probe_timeout_ms;     /* TCP and DF probes */
};

struct doctor_report {
	char *profile_name; /* NULL without a profile */
	struct doctor_check *checks;
	size_t n_checks;
	unsigned count[_DOCTOR_STATUS_MAX];
};

/* Run every check. -errno only when the checks themselves cannot run
 * (memory, the interface list unreadable); a bad --peer-state file is a
 * failed check, not an error. */
int doctor_run(const struct doctor_options *o, struct doctor_report **ret);
void doctor_report_free(struct doctor_report *r);
static inline void doctor_report_freep(struct doctor_report **r)
{
	if (*r)
		doctor_report_free(*r);
}
#define _cleanup_doctor_report_ _cleanup_(doctor_report_freep)

/* EXIT_OK when no check failed, EXIT_PRECONDITION when one did. */
int doctor_exit_code(const struct doctor_report *r);
void doctor_render(const struct doctor_report *r);

/* Kernel log scan (exposed for tests): count the mlx5 firmware command
 * timeout lines of text; *ret_first (may be NULL; caller frees) gets the
 * first such line. */
int doctor_scan_kernel_log(const char *text, unsigned *ret_count, char **ret_first);

/* The idle-drops check (exposed for tests) over two snapshots of the loss
 * ledger's kernel counters taken interval_ms apart: DOCTOR_WARN when a
 * watched counter rose (*ret_detail lists each with its rise and meaning),
 * else DOCTOR_PASS; caller frees *ret_detail; -ENOMEM. */
struct netcounters;
int doctor_idle_drops(const struct netcounters *a, const struct netcounters *b, unsigned interval_ms,
		      char **ret_detail);

/* PCIe link speed "8.0 GT/s PCIe" -> 8.0; -EINVAL when unparsable. */
int doctor_parse_pcie_speed(const char *s, double *ret);

#endif
