/* test_irqbalance.c: irqbalance detection and stop/ban/restore against a
 * private sysroot. The service manager is a fake `systemctl` written by the
 * test (CX5PROF_SYSTEMCTL) that keeps the service state in files under the
 * sysroot: the real code path (fork/exec, exit codes, stdout) runs, and the
 * host's irqbalance is never touched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <sys/stat.h>

#include "os/irqbalanced.h"
#include "os/service.h"
#include "os/sysroot.h"
#include "unit.h"

static const char fake_systemctl[] =
    "#!/bin/sh\n"
    "# fake service manager: state under $CX5PROF_SYSROOT/run/fake-systemd\n"
    "s=\"$CX5PROF_SYSROOT/run/fake-systemd\"\n"
    "echo \"$*\" >> \"$s/calls\"\n"
    "[ \"$2\" = irqbalance.service ] || exit 5\n"
    "# no irqbalance unit: systemctl's answers for a unit that does not exist\n"
    "if [ -e \"$s/missing\" ]; then case \"$1\" in\n"
    "  is-enabled) echo 'Failed to get unit file state for irqbalance.service' >&2; exit 1 ;;\n"
    "  is-active) echo inactive; exit 3 ;;\n"
    "  show) echo not-found; exit 0 ;;\n"
    "esac; fi\n"
    "# a service manager that answers nothing useful\n"
    "if [ -e \"$s/silent\" ]; then exit 1; fi\n"
    "case \"$1\" in\n"
    "is-enabled) cat \"$s/enabled\"; [ \"$(cat \"$s/enabled\")\" = enabled ] ;;\n"
    "is-active) cat \"$s/active\"; [ \"$(cat \"$s/active\")\" = active ] ;;\n"
    "stop) echo inactive > \"$s/active\"; rm -rf \"$CX5PROF_SYSROOT/proc/812\" ;;\n"
    "start) echo active > \"$s/active\"; mkdir -p \"$CX5PROF_SYSROOT/proc/812\";"
    " echo irqbalance > \"$CX5PROF_SYSROOT/proc/812/comm\" ;;\n"
    "enable) echo enabled > \"$s/enabled\" ;;\n"
    "disable) echo disabled > \"$s/enabled\" ;;\n"
    "try-restart) [ ! -e \"$s/fail-restart\" ] || exit 1;"
    " if [ \"$(cat \"$s/active\")\" = active ]; then echo restart >> \"$s/restarts\"; fi ;;\n"
    "*) exit 1 ;;\n"
    "esac\n";

static const char debian_default[] = "# irqbalance configuration\n"
				     "#IRQBALANCE_ONESHOT=\n"
				     "IRQBALANCE_ARGS=\"--hintpolicy=ignore\"\n"
				     "#IRQBALANCE_BANNED_CPUS=\n";

static char *root;

static char *path_of(const char *rel)
{
	return strprintf("%s%s", root, rel);
}

static void put(const char *rel, const char *content)
{
	assert_int_equal(unit_write(root, rel, content), 0);
}

static char *get(const char *rel)
{
	_cleanup_free_ char *p = path_of(rel);
	char *s = NULL;
	FILE *f = fopen(p, "r");
	size_t n = 0;

	if (!f)
		return NULL;
	assert_true(getdelim(&s, &n, '\0', f) >= 0 || feof(f));
	fclose(f);
	return s ? s : strdup("");
}

static bool exists(const char *rel)
{
	_cleanup_free_ char *p = path_of(rel);
	return access(p, F_OK) == 0;
}

static int setup(void **state)
{
	(void)state;
	root = unit_tmpdir_new("irqb");
	assert_non_null(root);
	put("/proc/self/.keep", "");
	put("/proc/812/comm", "irqbalance\n");
	put("/proc/1/comm", "systemd\n");
	put("/etc/default/irqbalance", debian_default);
	put("/run/fake-systemd/enabled", "enabled\n");
	put("/run/fake-systemd/active", "active\n");
	put("/bin/systemctl", fake_systemctl);
	{
		_cleanup_free_ char *p = path_of("/bin/systemctl");
		assert_int_equal(chmod(p, 0755), 0);
		assert_int_equal(setenv("CX5PROF_SYSTEMCTL", p, 1), 0);
	}
	assert_int_equal(sysroot_set(root), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sysroot_set(NULL);
	unsetenv("CX5PROF_SYSTEMCTL");
	return unit_tmpdir_free(TAKE_PTR(root));
}

static void test_detect(void **state)
{
	struct irqbalance_state s;

	(void)state;
	assert_int_equal(irqbalance_detect(&s), 0);
	assert_true(s.running);
	assert_int_equal(s.pid, 812);
	assert_int_equal(s.enabled, 1);
	assert_int_equal(s.active, 1);
	assert_string_equal(s.config_path, "/etc/default/irqbalance");
	assert_string_equal(s.args, "--hintpolicy=ignore");
	irqbalance_state_done(&s);
}

static void test_no_service_manager_in_sysroot(void **state)
{
	struct irqbalance_state s;
	_cleanup_free_ char *undo = NULL, *calls = NULL;
	unsigned irq = 99;

	(void)state;
	unsetenv("CX5PROF_SYSTEMCTL");
	/* a sysroot never reaches the host's systemctl */
	assert_null(service_command());
	assert_int_equal(irqbalance_detect(&s), 0);
	assert_true(s.running);
	assert_int_equal(s.enabled, -1);
	assert_int_equal(s.active, -1);
	assert_int_equal(irqbalance_stop(&undo, NULL), -EOPNOTSUPP);
	assert_null(undo);
	assert_int_equal(irqbalance_restore("{\"action\":\"stop\",\"active\":1,\"enabled\":1}"), -EOPNOTSUPP);
	/* the config edit itself needs no service manager */
	assert_int_equal(irqbalance_ban(&irq, 1, &undo), 1);
	assert_int_equal(irqbalance_restore(undo), 0);
	calls = get("/run/fake-systemd/calls");
	assert_null(calls); /* never ran */
	irqbalance_state_done(&s);
}

/* No service manager: an irqbalance the files prove off is off (stop is
 * nothing to do); an enablement link keeps it unknown. */
static void test_no_service_manager_not_running(void **state)
{
	struct irqbalance_state s;
	_cleanup_free_ char *undo = NULL;
	_cleanup_free_ char *cmd = strprintf(
	    "rm -rf %s/proc/812 && mkdir -p %s/etc/systemd/system/multi-user.target.wants", root, root);

	(void)state;
	unsetenv("CX5PROF_SYSTEMCTL");
	assert_int_equal(system(cmd), 0);
	assert_int_equal(irqbalance_detect(&s), 0);
	assert_false(s.running);
	assert_int_equal(s.active, 0);
	assert_int_equal(s.enabled, 0);
	irqbalance_state_done(&s);
	/* a dangling link counts: its target is a host path */
	{
		_cleanup_free_ char *link =
		    path_of("/etc/systemd/system/multi-user.target.wants/irqbalance.service");
		assert_int_equal(symlink("/lib/systemd/system/irqbalance.service.nowhere", link), 0);
	}
	assert_int_equal(irqbalance_detect(&s), 0);
	assert_int_equal(s.active, -1);
	assert_int_equal(s.enabled, -1);
	irqbalance_state_done(&s);
	assert_int_equal(irqbalance_stop(&undo, NULL), -EOPNOTSUPP);
}

static void test_stop_and_restore(void **state)
{
	struct irqbalance_state s;
	_cleanup_free_ char *undo = NULL, *undo2 = NULL, *calls = NULL;

	(void)state;
	assert_int_equal(irqbalance_stop(&undo, NULL), 1);
	assert_string_equal(undo, "{\"action\":\"stop\",\"active\":1,\"enabled\":1}");
	assert_int_equal(irqbalance_detect(&s), 0);
	assert_false(s.running);
	assert_int_equal(s.enabled, 0);
	assert_int_equal(s.active, 0);
	irqbalance_state_done(&s);
	calls = get("/run/fake-systemd/calls");
	assert_string_equal(calls, "is-active irqbalance.service\nis-enabled irqbalance.service\n"
				   "stop irqbalance.service\ndisable irqbalance.service\n"
				   "is-enabled irqbalance.service\nis-active irqbalance.service\n");

	/* already stopped: nothing to do, the undo says so */
	assert_int_equal(irqbalance_stop(&undo2, NULL), 0);
	assert_string_equal(undo2, "{\"action\":\"stop\",\"active\":0,\"enabled\":0}");
	assert_int_equal(irqbalance_restore(undo2), 0);
	assert_false(exists("/proc/812/comm"));

	/* rollback restores both states; twice is the same */
	assert_int_equal(irqbalance_restore(undo), 0);
	assert_int_equal(irqbalance_restore(undo), 0);
	assert_int_equal(irqbalance_detect(&s), 0);
	assert_true(s.running);
	assert_int_equal(s.enabled, 1);
	assert_int_equal(s.active, 1);
	irqbalance_state_done(&s);
}

static void test_stop_leaves_foreign_process(void **state)
{
	_cleanup_free_ char *undo = NULL, *why = NULL, *why2 = NULL;
	_cleanup_free_ char *cmd = strprintf("mkdir -p %s/proc/4242", root);
	_cleanup_free_ char *want = NULL;

	(void)state;
	/* an irqbalance started by hand, not by the service */
	assert_int_equal(system(cmd), 0);
	put("/proc/4242/comm", "irqbalance\n");
	assert_int_equal(irqbalance_stop(&undo, &why), -EBUSY);
	assert_null(undo);
	want = strprintf("irqbalance pid 4242 still runs after `%s stop irqbalance.service`: the service did "
			 "not start it (or did not stop it), and cx5prof kills no process; the service was "
			 "put back as it was: end 4242 by hand, or stop what started it, then apply again",
			 service_command());
	assert_string_equal(why, want);
	/* its command line, when /proc has one (NUL-separated) */
	{
		_cleanup_free_ char *p = path_of("/proc/4242/cmdline");
		FILE *f = fopen(p, "w");
		assert_non_null(f);
		fwrite("/usr/sbin/irqbalance\0--foreground\0", 1, 35, f);
		fclose(f);
	}
	assert_int_equal(irqbalance_stop(&undo, &why2), -EBUSY);
	assert_non_null(strstr(why2, "irqbalance pid 4242 (/usr/sbin/irqbalance --foreground) still runs"));
	/* and the service is back as it was */
	{
		struct irqbalance_state s;
		assert_int_equal(irqbalance_detect(&s), 0);
		assert_int_equal(s.enabled, 1);
		assert_int_equal(s.active, 1);
		irqbalance_state_done(&s);
	}
}

static void test_ban_and_restore(void **state)
{
	static const unsigned irqs[] = {99, 109, 99};
	_cleanup_free_ char *undo = NULL, *undo2 = NULL, *text = NULL, *restarts = NULL;
	struct irqbalance_state s;

	(void)state;
	assert_int_equal(irqbalance_ban(irqs, ARRAY_SIZE(irqs), &undo), 1);
	text = get("/etc/default/irqbalance");
	assert_string_equal(text, "# irqbalance configuration\n"
				  "#IRQBALANCE_ONESHOT=\n"
				  "IRQBALANCE_ARGS=\"--hintpolicy=ignore --banirq=99 --banirq=109\"\n"
				  "#IRQBALANCE_BANNED_CPUS=\n");
	restarts = get("/run/fake-systemd/restarts");
	assert_string_equal(restarts, "restart\n");
	assert_int_equal(irqbalance_detect(&s), 0);
	assert_true(s.running); /* ban keeps it running */
	assert_string_equal(s.args, "--hintpolicy=ignore --banirq=99 --banirq=109");
	irqbalance_state_done(&s);

	/* the same bans again: nothing changes */
	assert_int_equal(irqbalance_ban(irqs, 2, &undo2), 0);
	assert_false(exists("/etc/default/irqbalance.cx5prof-new"));

	assert_int_equal(irqbalance_restore(undo), 0);
	free(text);
	text = get("/etc/default/irqbalance");
	assert_string_equal(text, debian_default);
	assert_int_equal(irqbalance_restore(undo), 0);
	free(text);
	text = get("/etc/default/irqbalance");
	assert_string_equal(text, debian_default);
}

static void test_ban_creates_and_removes(void **state)
{
	_cleanup_free_ char *undo = NULL, *text = NULL, *p = path_of("/etc/default/irqbalance");
	unsigned irq = 7;

	(void)state;
	assert_int_equal(unlink(p), 0);
	assert_int_equal(irqbalance_ban(&irq, 1, &undo), 1);
	text = get("/etc/default/irqbalance");
	assert_string_equal(text, "# added by cx5prof: keep irqbalance off the NIC's pinned IRQs\n"
				  "IRQBALANCE_ARGS=\"--banirq=7\"\n");
	assert_int_equal(irqbalance_restore(undo), 0);
	assert_false(exists("/etc/default/irqbalance"));
	put("/etc/default/irqbalance", debian_default);
}

static void test_ban_existing_forms(void **state)
{
	_cleanup_free_ char *undo = NULL, *text = NULL;
	static const unsigned irqs[] = {5, 6, 8};

	(void)state;
	/* already banned in both spellings; single quotes; no final newline */
	put("/etc/default/irqbalance", "IRQBALANCE_ARGS='--banirq 5 -i 6'");
	assert_int_equal(irqbalance_ban(irqs, 3, &undo), 1);
	text = get("/etc/default/irqbalance");
	assert_string_equal(text, "IRQBALANCE_ARGS=\"--banirq 5 -i 6 --banirq=8\"");
	assert_int_equal(irqbalance_restore(undo), 0);
	free(text);
	text = get("/etc/default/irqbalance");
	assert_string_equal(text, "IRQBALANCE_ARGS='--banirq 5 -i 6'");
	free(undo);
	undo = NULL;

	/* a value we cannot write back faithfully is left alone */
	put("/etc/default/irqbalance", "IRQBALANCE_ARGS=\"$EXTRA --foo\"\n");
	assert_int_equal(irqbalance_ban(irqs, 1, &undo), -EINVAL);
	assert_null(undo);
	put("/etc/default/irqbalance", debian_default);
}

static void test_ban_snapshot_list_matches(void **state)
{
	_cleanup_free_ char *snap = NULL, *undo = NULL, *absent = NULL,
			    *p = path_of("/etc/default/irqbalance");
	_cleanup_free_ unsigned *v = NULL;
	static const unsigned irqs[] = {99, 109};
	mode_t old_umask;
	struct stat st;
	size_t n = 0;

	(void)state;
	/* the snapshot is what ban records, before anything changes */
	assert_int_equal(chmod(p, 0664), 0);
	assert_int_equal(irqbalance_ban_snapshot(&snap), 0);
	assert_string_equal(snap,
			    "{\"action\":\"ban\",\"path\":\"/etc/default/irqbalance\",\"content\":"
			    "\"# irqbalance configuration\\n#IRQBALANCE_ONESHOT=\\n"
			    "IRQBALANCE_ARGS=\\\"--hintpolicy=ignore\\\"\\n#IRQBALANCE_BANNED_CPUS=\\n\","
			    "\"mode\":436}");
	assert_int_equal(irqbalance_ban_matches(snap), 1);
	assert_int_equal(irqbalance_ban_list(NULL, &v, &n), 0);
	assert_int_equal(n, 0);
	free(v);
	v = NULL;

	/* ban under a strict umask: the mode stays as it was */
	old_umask = umask(077);
	assert_int_equal(irqbalance_ban(irqs, ARRAY_SIZE(irqs), &undo), 1);
	assert_string_equal(undo, snap);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0664);
	assert_int_equal(irqbalance_ban_matches(snap), 0);
	assert_int_equal(irqbalance_ban_list(NULL, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0], 99);
	assert_int_equal(v[1], 109);
	free(v);
	v = NULL;
	/* the recorded file had none */
	assert_int_equal(irqbalance_ban_list(snap, &v, &n), 0);
	assert_int_equal(n, 0);
	free(v);
	v = NULL;
	assert_int_equal(irqbalance_restore(undo), 0);
	umask(old_umask);
	assert_int_equal(irqbalance_ban_matches(snap), 1);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0664);
	/* a different mode is a difference */
	assert_int_equal(chmod(p, 0644), 0);
	assert_int_equal(irqbalance_ban_matches(snap), 0);

	/* every spelling irqbalance takes */
	put("/etc/default/irqbalance", "IRQBALANCE_ARGS=\"--banirq=5 --banirq 6 -i 7 -i8 --foo=9 -i x\"\n");
	assert_int_equal(irqbalance_ban_list(NULL, &v, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(v[0], 5);
	assert_int_equal(v[1], 6);
	assert_int_equal(v[2], 7);
	assert_int_equal(v[3], 8);

	/* no file: the snapshot records its absence where ban would create it */
	assert_int_equal(unlink(p), 0);
	assert_int_equal(irqbalance_ban_snapshot(&absent), 0);
	assert_string_equal(absent,
			    "{\"action\":\"ban\",\"path\":\"/etc/default/irqbalance\",\"content\":null,"
			    "\"mode\":420}");
	assert_int_equal(irqbalance_ban_matches(absent), 1);
	put("/etc/default/irqbalance", debian_default);
	assert_int_equal(irqbalance_ban_matches(absent), 0);

	/* what ban would refuse, the snapshot refuses too */
	put("/etc/default/irqbalance", "IRQBALANCE_ARGS=\"$EXTRA --foo\"\n");
	free(snap);
	snap = NULL;
	assert_int_equal(irqbalance_ban_snapshot(&snap), -EINVAL);
	assert_null(snap);
	assert_int_equal(irqbalance_ban_matches("{\"action\":\"ban\",\"path\":\"/etc/passwd\"}"), -EINVAL);
	put("/etc/default/irqbalance", debian_default);
}

/* No irqbalance unit on this host: not installed means stopped, not
 * "unknown" (which would make the plan ask for a service manager). */
static void test_missing_unit(void **state)
{
	_cleanup_free_ char *undo = NULL, *calls = NULL, *cmd = strprintf("rm -rf %s/proc/812", root);
	struct irqbalance_state s;

	(void)state;
	assert_int_equal(system(cmd), 0);
	put("/run/fake-systemd/missing", "");
	assert_int_equal(irqbalance_detect(&s), 0);
	assert_false(s.running);
	assert_int_equal(s.enabled, 0);
	assert_int_equal(s.active, 0);
	irqbalance_state_done(&s);
	calls = get("/run/fake-systemd/calls");
	assert_string_equal(calls, "is-enabled irqbalance.service\n"
				   "show irqbalance.service --property=LoadState --value\n"
				   "is-active irqbalance.service\n");
	assert_int_equal(irqbalance_stop(&undo, NULL), 0);
	assert_string_equal(undo, "{\"action\":\"stop\",\"active\":0,\"enabled\":0}");

	/* a service manager that says nothing (and knows no LoadState) is
	 * still "unknown" */
	{
		_cleanup_free_ char *flag = path_of("/run/fake-systemd/missing");
		assert_int_equal(unlink(flag), 0);
	}
	put("/run/fake-systemd/silent", "");
	assert_int_equal(irqbalance_detect(&s), 0);
	assert_int_equal(s.enabled, -1);
	assert_int_equal(s.active, -1);
	irqbalance_state_done(&s);
}

/* try-restart exiting non-zero (irqbalance did not come back) is a
 * failure of the ban and of its undo, not a detail. */
static void test_try_restart_fails(void **state)
{
	_cleanup_free_ char *undo = NULL, *text = NULL;
	unsigned irq = 99;

	(void)state;
	put("/run/fake-systemd/fail-restart", "");
	assert_int_equal(irqbalance_ban(&irq, 1, &undo), -EIO);
	/* the file was written (the caller's undo puts it back) */
	text = get("/etc/default/irqbalance");
	assert_non_null(strstr(text, "--banirq=99"));
	assert_non_null(undo);
	assert_int_equal(irqbalance_restore(undo), -EIO);
	free(text);
	text = get("/etc/default/irqbalance");
	assert_string_equal(text, debian_default);
	{
		_cleanup_free_ char *flag = path_of("/run/fake-systemd/fail-restart");
		assert_int_equal(unlink(flag), 0);
	}
	assert_int_equal(irqbalance_restore(undo), 0);
}

/* The undo of a ban writes the old file back only while the file is what
 * the ban wrote: edits made since, a symlink put in its place, or its
 * removal are not overwritten (-ESTALE, nothing written). */
static void test_ban_restore_refuses_changed_file(void **state)
{
	static const char edited[] = "# irqbalance configuration\n"
				     "#IRQBALANCE_ONESHOT=\n"
				     "IRQBALANCE_ARGS=\"--hintpolicy=ignore --banirq=99\"\n"
				     "#IRQBALANCE_BANNED_CPUS=\n"
				     "IRQBALANCE_EXTRA=1\n";
	_cleanup_free_ char *undo = NULL, *text = NULL, *p = path_of("/etc/default/irqbalance"),
			    *elsewhere = path_of("/etc/irqbalance.real");
	unsigned irq = 99;

	(void)state;
	assert_int_equal(irqbalance_ban(&irq, 1, &undo), 1);
	/* edited since the ban */
	put("/etc/default/irqbalance", edited);
	assert_int_equal(irqbalance_restore(undo), -ESTALE);
	text = get("/etc/default/irqbalance");
	assert_string_equal(text, edited);
	/* another IRQ banned by hand, not as --banirq=N: also an edit */
	put("/etc/default/irqbalance", "# irqbalance configuration\n#IRQBALANCE_ONESHOT=\n"
				       "IRQBALANCE_ARGS=\"--hintpolicy=ignore --banirq=99 -i 7\"\n"
				       "#IRQBALANCE_BANNED_CPUS=\n");
	assert_int_equal(irqbalance_restore(undo), -ESTALE);
	/* removed */
	assert_int_equal(unlink(p), 0);
	assert_int_equal(irqbalance_restore(undo), -ESTALE);
	assert_false(exists("/etc/default/irqbalance"));
	/* replaced by a symlink to a file with the banned content */
	put("/etc/irqbalance.real", "# irqbalance configuration\n#IRQBALANCE_ONESHOT=\n"
				    "IRQBALANCE_ARGS=\"--hintpolicy=ignore --banirq=99\"\n"
				    "#IRQBALANCE_BANNED_CPUS=\n");
	assert_int_equal(symlink(elsewhere, p), 0);
	assert_int_equal(irqbalance_restore(undo), -ESTALE);
	{
		_cleanup_free_ char *path = irqbalance_ban_record_path(undo);
		assert_string_equal(path, "/etc/default/irqbalance");
	}
	assert_int_equal(unlink(p), 0);
	/* as the ban left it: restored; already restored: fine again */
	put("/etc/default/irqbalance", "# irqbalance configuration\n#IRQBALANCE_ONESHOT=\n"
				       "IRQBALANCE_ARGS=\"--hintpolicy=ignore --banirq=99\"\n"
				       "#IRQBALANCE_BANNED_CPUS=\n");
	assert_int_equal(irqbalance_restore(undo), 0);
	assert_int_equal(irqbalance_restore(undo), 0);
	free(text);
	text = get("/etc/default/irqbalance");
	assert_string_equal(text, debian_default);
}

/* A symlinked config (managed elsewhere) is never replaced by a regular
 * file: ban and its snapshot refuse it. */
static void test_ban_refuses_symlink(void **state)
{
	_cleanup_free_ char *undo = NULL, *snap = NULL, *text = NULL, *p = path_of("/etc/default/irqbalance");
	struct stat st;
	unsigned irq = 99;

	(void)state;
	put("/etc/irqbalance.real", debian_default);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink("../irqbalance.real", p), 0);
	assert_int_equal(irqbalance_ban_snapshot(&snap), -ELOOP);
	assert_null(snap);
	assert_int_equal(irqbalance_ban(&irq, 1, &undo), -ELOOP);
	assert_null(undo);
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	text = get("/etc/irqbalance.real");
	assert_string_equal(text, debian_default);
}

/* Under a sysroot the config write stays inside it: /etc/default a link
 * to a directory outside is refused. */
static void test_ban_stays_in_sysroot(void **state)
{
	char out[] = "/tmp/cx5t-irqbout-XXXXXX";
	_cleanup_free_ char *undo = NULL, *cmd = NULL, *dir = path_of("/etc/default"), *outfile = NULL,
			    *text = NULL;
	unsigned irq = 99;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(out));
	outfile = strprintf("%s/irqbalance", out);
	f = fopen(outfile, "w");
	assert_non_null(f);
	fputs(debian_default, f);
	fclose(f);
	cmd = strprintf("rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(symlink(out, dir), 0);
	assert_int_equal(irqbalance_ban(&irq, 1, &undo), -EXDEV);
	f = fopen(outfile, "r");
	assert_non_null(f);
	assert_true(getdelim(&text, &(size_t){0}, '\0', f) > 0);
	fclose(f);
	assert_string_equal(text, debian_default);
	free(cmd);
	cmd = strprintf("rm -rf %s", out);
	assert_int_equal(system(cmd), 0);
}

static void test_restore_rejects(void **state)
{
	(void)state;
	assert_int_equal(irqbalance_restore("not json"), -EINVAL);
	assert_int_equal(irqbalance_restore("{}"), -EINVAL);
	assert_int_equal(irqbalance_restore("{\"action\":\"dance\"}"), -EINVAL);
	assert_int_equal(
	    irqbalance_restore("{\"action\":\"ban\",\"path\":\"/etc/passwd\",\"content\":\"x\"}"), -EINVAL);
	assert_int_equal(irqbalance_restore("{\"action\":\"stop\"}"), -EINVAL);
	assert_string_equal(irqbalance_action_to_string(IRQBALANCE_BAN), "ban");
	assert_int_equal(irqbalance_action_from_string("stop"), IRQBALANCE_STOP);
	assert_int_equal(irqbalance_action_from_string("kill"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_detect, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_service_manager_in_sysroot, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_service_manager_not_running, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stop_and_restore, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stop_leaves_foreign_process, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ban_and_restore, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ban_creates_and_removes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ban_existing_forms, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ban_snapshot_list_matches, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_restore_rejects, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_missing_unit, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_try_restart_fails, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ban_restore_refuses_changed_file, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ban_refuses_symlink, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ban_stays_in_sysroot, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
