/* test_service.c: running the service-control command. A fake `systemctl`
 * (CX5PROF_SYSTEMCTL, with a private sysroot so the host's is never run)
 * that answers, fails, hangs, or leaves a process holding its stdout. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/stat.h>

#include "os/service.h"
#include "os/sysroot.h"
#include "unit.h"

static char *root;
static char fake[128];

static int setup(void **state)
{
	(void)state;
	root = unit_tmpdir_new("service");
	assert_non_null(root);
	assert_int_equal(sysroot_set(root), 0);
	snprintf(fake, sizeof(fake), "%s/systemctl", root);
	setenv("CX5PROF_SYSTEMCTL", fake, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unsetenv("CX5PROF_SYSTEMCTL");
	unsetenv("CX5PROF_SERVICE_TIMEOUT");
	sysroot_set(NULL);
	return unit_tmpdir_free(TAKE_PTR(root));
}

static void script(const char *body)
{
	FILE *f = fopen(fake, "w");

	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	assert_int_equal(chmod(fake, 0755), 0);
}

static void answer_and_status(void **state)
{
	_cleanup_free_ char *out = NULL, *args = NULL;

	(void)state;
	script("echo \"$1 $2 $3 $4 $CX5PROF_SYSROOT\"; echo second line; exit 3");
	static const char *const extra[] = {"--property=LoadState", "--value", NULL};
	assert_int_equal(service_run("show", "x.service", extra, &out), 3);
	args = strprintf("show x.service --property=LoadState --value %s", root);
	assert_string_equal(out, args); /* the first line, the sysroot in the environment */
}

static void missing_command(void **state)
{
	(void)state;
	setenv("CX5PROF_SYSTEMCTL", "/nonexistent/systemctl", 1);
	assert_int_equal(service_run("is-active", "x.service", NULL, NULL), -ENOENT);
	unsetenv("CX5PROF_SYSTEMCTL");
	/* a sysroot without CX5PROF_SYSTEMCTL: no service manager at all */
	assert_null(service_command());
	assert_int_equal(service_run("is-active", "x.service", NULL, NULL), -EOPNOTSUPP);
	assert_int_equal(service_is_active("x.service"), -1);
}

static void hung_command_times_out(void **state)
{
	(void)state;
	script("echo started; exec sleep 60");
	setenv("CX5PROF_SERVICE_TIMEOUT", "1", 1);
	/* killed at its 1 s: -ETIMEDOUT, not the answer after 60 s */
	assert_int_equal(service_run("stop", "x.service", NULL, NULL), -ETIMEDOUT);
	assert_int_equal(service_is_enabled("x.service"), -1);
}

static void leftover_process_does_not_hold_it(void **state)
{
	_cleanup_free_ char *out = NULL, *pidfile = strprintf("%s/leftover.pid", root), *comm = NULL;
	_cleanup_fclose_ FILE *f = NULL;
	char name[32];
	int pid = 0;

	(void)state;
	/* the background sleep inherits stdout and keeps the pipe open: the
	 * answer comes while it still runs */
	script("sleep 60 & echo $! >\"$CX5PROF_SYSROOT/leftover.pid\"; echo enabled");
	assert_int_equal(service_run("is-enabled", "x.service", NULL, &out), 0);
	assert_string_equal(out, "enabled");
	assert_non_null(f = fopen(pidfile, "re"));
	assert_int_equal(fscanf(f, "%d", &pid), 1);
	assert_true(pid > 1);
	comm = strprintf("/proc/%d/comm", pid);
	fclose(TAKE_PTR(f));
	assert_non_null(f = fopen(comm, "re")); /* still running */
	assert_int_equal(fscanf(f, "%31s", name), 1);
	assert_string_equal(name, "sleep");
	assert_int_equal(kill(pid, SIGKILL), 0);
}

static void long_answer_drained(void **state)
{
	_cleanup_free_ char *out = NULL;

	(void)state;
	/* far more than the kept 255 bytes: the child must not block */
	script("printf 'active\\n'; head -c 1000000 /dev/zero | tr '\\0' x");
	assert_int_equal(service_run("is-active", "x.service", NULL, &out), 0);
	assert_string_equal(out, "active");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(answer_and_status, setup, teardown),
	    cmocka_unit_test_setup_teardown(missing_command, setup, teardown),
	    cmocka_unit_test_setup_teardown(hung_command_times_out, setup, teardown),
	    cmocka_unit_test_setup_teardown(leftover_process_does_not_hold_it, setup, teardown),
	    cmocka_unit_test_setup_teardown(long_answer_drained, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
