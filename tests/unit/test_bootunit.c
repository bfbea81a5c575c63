/* test_bootunit.c: which profile files the boot-time unit can name, and
 * the same-file rule, against a private sysroot. The service manager is a
 * fake `systemctl` (CX5PROF_SYSTEMCTL) printing what is-enabled would. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <sys/stat.h>

#include "os/bootunit.h"
#include "os/sysroot.h"
#include "unit.h"

static char *root;

static char *put(const char *rel)
{
	char *p = strprintf("%s%s", root, rel);

	assert_non_null(p);
	assert_int_equal(unit_write(root, rel, "version: 1\n"), 0);
	return p;
}

static int setup(void **state)
{
	(void)state;
	root = unit_tmpdir_new("bootunit");
	assert_non_null(root);
	assert_int_equal(sysroot_set(root), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sysroot_set(NULL);
	return unit_tmpdir_free(TAKE_PTR(root));
}

static void names_the_instance(void **state)
{
	_cleanup_free_ char *p = put("/etc/cx5prof/profiles/udp-jumbo_2.v1.yaml");
	_cleanup_free_ char *unit = NULL, *why = NULL;

	(void)state;
	assert_int_equal(bootunit_for_profile(p, &unit, &why), 0);
	assert_string_equal(unit, "cx5prof-apply@udp-jumbo_2.v1.service");
	assert_null(why);
}

static void same_file_through_another_path(void **state)
{
	_cleanup_free_ char *p = put("/etc/cx5prof/profiles/lab.yaml");
	_cleanup_free_ char *dir = strprintf("%s/srv", root);
	_cleanup_free_ char *link = strprintf("%s/srv/lab.yaml", root);
	_cleanup_free_ char *other = strprintf("%s/lab-link.yaml", root);
	_cleanup_free_ char *unit = NULL, *why = NULL, *why2 = NULL;

	(void)state;
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(symlink(p, link), 0);
	/* the file the unit reads, reached through a symlink: it persists */
	assert_int_equal(bootunit_for_profile(link, &unit, &why), 0);
	assert_string_equal(unit, "cx5prof-apply@lab.service");
	/* the same file under another name: the unit would read lab-link.yaml */
	assert_int_equal(symlink(p, other), 0);
	free(unit);
	unit = NULL;
	assert_int_equal(bootunit_for_profile(other, &unit, &why2), -EXDEV);
	assert_non_null(strstr(why2, "the boot-time unit applies /etc/cx5prof/profiles/lab-link.yaml"));
}

static void elsewhere_is_not_persistent(void **state)
{
	_cleanup_free_ char *p = put("/srv/profiles/lab.yaml");
	_cleanup_free_ char *also = put("/etc/cx5prof/profiles/lab.yaml");
	_cleanup_free_ char *unit = NULL, *why = NULL;

	(void)state;
	/* a copy with the same name is not the same file: it may differ */
	assert_int_equal(bootunit_for_profile(p, &unit, &why), -EXDEV);
	assert_null(unit);
	assert_non_null(strstr(why, "is not that file: write it there as one file"));
	/* a copy of the file alone would break a relative extends */
	assert_non_null(strstr(why, "cx5prof validate --flatten"));
}

static void names_systemd_would_escape(void **state)
{
	static const char *const bad[] = {
	    "/etc/cx5prof/profiles/.hidden.yaml", "/etc/cx5prof/profiles/-lead.yaml",
	    "/etc/cx5prof/profiles/a b.yaml",	  "/etc/cx5prof/profiles/a@b.yaml",
	    "/etc/cx5prof/profiles/x.yml",	  "/etc/cx5prof/profiles/.yaml",
	    "/etc/cx5prof/profiles/a\\x2db.yaml",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		_cleanup_free_ char *p = put(bad[i]);
		_cleanup_free_ char *unit = NULL, *why = NULL;

		assert_int_equal(bootunit_for_profile(p, &unit, &why), -EXDEV);
		assert_null(unit);
		assert_non_null(strstr(why, "the boot-time unit cannot name it; rename it"));
	}
}

static void read_maps_the_states(void **state)
{
	static const struct {
		const char *answer;
		int r;
		const char *value;
	} cases[] = {
	    {"enabled", 0, BOOTUNIT_ENABLED},	{"enabled-runtime", 0, BOOTUNIT_ENABLED},
	    {"disabled", 0, BOOTUNIT_DISABLED}, {"masked", -EPERM, NULL},
	    {"static", -EPERM, NULL},
	};
	_cleanup_free_ char *fake = strprintf("%s/systemctl", root);
	_cleanup_free_ char *answer = strprintf("%s/answer", root);

	(void)state;
	FILE *f = fopen(fake, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\ncat '%s'\n", answer);
	fclose(f);
	assert_int_equal(chmod(fake, 0755), 0);
	setenv("CX5PROF_SYSTEMCTL", fake, 1);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *v = NULL, *st = NULL;

		f = fopen(answer, "w");
		assert_non_null(f);
		fprintf(f, "%s\n", cases[i].answer);
		fclose(f);
		assert_int_equal(bootunit_read("cx5prof-apply@x.service", &v, &st), cases[i].r);
		if (cases[i].value)
			assert_string_equal(v, cases[i].value);
		else
			assert_string_equal(st, cases[i].answer);
	}
	assert_int_equal(bootunit_write("cx5prof-apply@x.service", "maybe"), -EINVAL);
	unsetenv("CX5PROF_SYSTEMCTL");
	/* a sysroot without CX5PROF_SYSTEMCTL never reaches the host's systemctl */
	_cleanup_free_ char *v = NULL;
	assert_int_equal(bootunit_read("cx5prof-apply@x.service", &v, NULL), -EOPNOTSUPP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(names_the_instance, setup, teardown),
	    cmocka_unit_test_setup_teardown(same_file_through_another_path, setup, teardown),
	    cmocka_unit_test_setup_teardown(elsewhere_is_not_persistent, setup, teardown),
	    cmocka_unit_test_setup_teardown(names_systemd_would_escape, setup, teardown),
	    cmocka_unit_test_setup_teardown(read_maps_the_states, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
