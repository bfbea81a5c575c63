/* unit.h: what the unit tests share: a private temporary directory and
 * the one rule for skipping a test.
 *
 * Owns: making and removing /tmp/cx5t-NAME-XXXXXX trees, writing a file
 * in one, running a check as an unprivileged user, and unit_skip (skip()
 * off CI; a failure with the reason under CX5PROF_REQUIRE_PRIVILEGED=1,
 * and a line in $CX5PROF_SKIP_LOG, as the integration tests' lib.sh
 * does). Must never: touch anything outside the trees it made. */
#ifndef CX5_TEST_UNIT_H
#define CX5_TEST_UNIT_H

/* A new empty directory /tmp/cx5t-NAME-XXXXXX (malloc'd path), or NULL
 * with errno set. */
char *unit_tmpdir_new(const char *name);

/* Remove DIR and everything under it (never following a symlink out of
 * it) and free DIR. 0, or -errno of the first failure. NULL is 0. */
int unit_tmpdir_free(char *dir);

/* cmocka group setup and teardown for tests that write their files in the
 * working directory: a new temporary directory (named after the program)
 * becomes the working directory, and *state its path; the teardown leaves
 * it for / and removes it. */
int unit_enter_tmpdir(void **state);
int unit_leave_tmpdir(void **state);

/* Write TEXT to DIR/REL (REL may start with "/"), making its parent
 * directories. 0 or -errno. */
int unit_write(const char *dir, const char *rel, const char *text);

/* Skip the running test, saying why; under CX5PROF_REQUIRE_PRIVILEGED=1
 * (CI) fail it instead with the same reason. Does not return. */
#define unit_skip(why)                                                                                       \
	do {                                                                                                 \
		unit_skip_note(why);                                                                         \
		skip();                                                                                      \
	} while (0)
/* (unit_skip's first half: fails the test in CI, else records the skip.) */
void unit_skip_note(const char *why);

/* Run fn(arg) in a child process as the user `nobody` (setresgid,
 * setgroups, setresuid): a non-root view of a file, for a test that runs as
 * root. Returns fn's return value (0 = the check held), or -1 when the
 * child could not drop its privileges or died. The caller must be root. */
int unit_as_nobody(int (*fn)(void *arg), void *arg);

#endif
