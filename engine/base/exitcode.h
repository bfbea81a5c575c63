/* exitcode.h: the process exit codes of cx5prof.
 *
 * These numbers are a public contract (the man page, EXIT STATUS,
 * the Ansible module). Never renumber; add new codes at unused values. */
#ifndef CX5_EXITCODE_H
#define CX5_EXITCODE_H

enum exit_code {
	EXIT_OK = 0,	     /* success; plan/apply: nothing to change */
	EXIT_ERROR = 1,	     /* runtime failure (kernel, I/O, database) */
	EXIT_CHANGES = 2,    /* plan, apply --check: changes pending */
	EXIT_DRIFT = 3,	     /* verify: host differs from the profile */
	EXIT_BENCH_FAIL = 4, /* verify: a benchmark threshold failed */
	EXIT_PRECONDITION =
	    5, /* plan/apply: a driver/firmware/link requirement unmet; doctor: a check failed */
	EXIT_ROLLED_BACK = 6,	  /* apply failed, or campaign interrupted; every change was undone */
	EXIT_ROLLBACK_FAILED = 7, /* apply or rollback failed and the host is NOT fully restored */
	EXIT_LOCKED = 8,	  /* another apply or rollback holds the lock */
	EXIT_OPEN_TXN = 9,	  /* an interrupted transaction must be rolled back first */
	EXIT_USAGE = 64,	  /* bad command line */
	EXIT_INVALID = 65,	  /* invalid input: profile, file contents, reply */
	EXIT_NOT_FOUND = 66,	  /* interface, file or record not found */
	EXIT_UNSUPPORTED = 69,	  /* the device or driver does not support a requested setting */
	EXIT_CANT_CREATE = 73,	  /* an output cannot be created (export's directory is not empty) */
	EXIT_PERMISSION = 77,	  /* permission denied (run as root) */
};

#endif
