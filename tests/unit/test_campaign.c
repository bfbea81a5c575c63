/* test_campaign.c: the campaign loader and each round's effective profile:
 * the campaign's verify block replaces what a group inherited but not what
 * the group's own file wrote; a sweep value replaces everything; the
 * values' marks point to the campaign file. Files are written to a
 * temporary directory (the test chdirs there). Malformed files and their
 * exact messages are tests/malformed/campaign (90-malformed.t). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaignfile.h"
#include "unit.h"

static void write_str(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(s, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void test_rounds(void **state)
{
	struct campaign *c = NULL;
	struct profile *p = NULL;
	struct profile_error err = {0};
	(void)state;

	write_str("shared.yaml", "version: 1\nname: shared\nverify:\n  peer: 192.0.2.1\n  runner: netperf\n"
				 "  duration: 30\n  message_size: 8000\n");
	write_str("g1.yaml", "version: 1\nname: g1\ndescription: \"defaults\"\nextends: shared.yaml\n"
			     "link:\n  mtu: 1500\n");
	write_str("g2.yaml", "version: 1\nname: g2\nextends: shared.yaml\nlink:\n  mtu: 9000\n"
			     "verify:\n  duration: 10\n  socket_buffer: {send: 4M}\n");
	write_str("c.yaml", "version: 1\nname: c\ngroups: [g1.yaml, g2.yaml]\nverify:\n  peer: 198.18.0.2\n"
			    "  duration: 1\nrepeat: 3\nsweep:\n  verify.message_size: [1400, 8000]\n");

	assert_int_equal(campaign_load("c.yaml", &c, &err), 0);
	assert_string_equal(c->name, "c");
	assert_int_equal(c->n_groups, 2);
	assert_int_equal(c->repeat, 3);
	assert_string_equal(c->groups[0].name, "g1");
	assert_string_equal(c->groups[0].description, "defaults");
	assert_null(c->groups[1].description);
	assert_string_equal(c->sweep_key, "verify.message_size");
	assert_int_equal(c->n_sweep, 2);
	assert_string_equal(campaign_sweep_value(c, 1), "8000");

	/* g1 inherits everything: the campaign's keys replace the inherited ones */
	assert_int_equal(campaign_group_profile(c, 0, 0, &p, &err), 0);
	assert_string_equal(p->verify.peer.value, "198.18.0.2");
	assert_string_equal(p->verify.peer.at.file, "c.yaml");
	assert_int_equal(p->verify.peer.at.line, 5);
	assert_int_equal(p->verify.duration.value, 1);
	assert_string_equal(p->verify.runners.value[0], "netperf"); /* not in the campaign: inherited */
	assert_int_equal(p->verify.message_size.value, 1400);	    /* the sweep value */
	assert_int_equal(profile_key_uint(p, "link.mtu")->value, 1500);
	profile_free(p);

	/* g2 wrote its own duration: it wins over the campaign's; the sweep
	 * still replaces message_size */
	assert_int_equal(campaign_group_profile(c, 1, 1, &p, &err), 0);
	assert_int_equal(p->verify.duration.value, 10);
	assert_string_equal(p->verify.duration.at.file, "g2.yaml");
	assert_string_equal(p->verify.peer.value, "198.18.0.2");
	assert_int_equal(p->verify.message_size.value, 8000);
	assert_string_equal(p->verify.message_size.at.file, "c.yaml");
	assert_int_equal(p->verify.socket_send.value, 4194304);
	assert_string_equal(p->files[0], "g2.yaml");
	profile_free(p);
	campaign_free(c);

	/* a sweep over a group's own key replaces it too */
	write_str("c2.yaml", "version: 1\nname: c2\ngroups: [g2.yaml]\nsweep:\n  verify.duration: [2, 3]\n");
	assert_int_equal(campaign_load("c2.yaml", &c, &err), 0);
	assert_int_equal(c->repeat, 1);
	assert_null(c->verify);
	assert_int_equal(campaign_group_profile(c, 0, 1, &p, &err), 0);
	assert_int_equal(p->verify.duration.value, 3);
	profile_free(p);
	campaign_free(c);
}

/* The campaign's peer: section is applied like its verify: block: it
 * replaces what a group inherited, not what the group's own file wrote;
 * the keys the loader refuses in a profile are refused here too. */
static void test_peer(void **state)
{
	struct campaign *c = NULL;
	struct profile *p = NULL;
	struct profile_error err = {0};
	char *line;
	(void)state;

	write_str("p1.yaml", "version: 1\nname: p1\nlink:\n  mtu: 9000\n");
	write_str("p2.yaml", "version: 1\nname: p2\npeer:\n  ssh: admin@198.18.0.9\n");
	write_str("cp.yaml", "version: 1\nname: cp\ngroups: [p1.yaml, p2.yaml]\npeer:\n"
			     "  ssh: root@198.18.0.2\n  confirm: 30\n");
	assert_int_equal(campaign_load("cp.yaml", &c, &err), 0);
	assert_int_equal(campaign_group_profile(c, 0, 0, &p, &err), 0);
	assert_string_equal(p->peer.ssh.value, "root@198.18.0.2");
	assert_string_equal(p->peer.ssh.at.file, "cp.yaml");
	assert_int_equal(p->peer.confirm.value, 30);
	profile_free(p);
	assert_int_equal(campaign_group_profile(c, 1, 0, &p, &err), 0);
	assert_string_equal(p->peer.ssh.value, "admin@198.18.0.9"); /* the group's own */
	assert_int_equal(p->peer.confirm.value, 30);
	profile_free(p);
	campaign_free(c);
	c = NULL;

	write_str("cp2.yaml", "version: 1\nname: cp2\ngroups: [p1.yaml]\npeer:\n  ssh: -oProxyCommand=x\n");
	assert_int_equal(campaign_load("cp2.yaml", &c, &err), -EINVAL);
	assert_null(c);
	line = profile_error_format(&err);
	assert_non_null(strstr(line, "cp2.yaml:5:8: "));
	assert_non_null(strstr(line, "an ssh destination"));
	free(line);
}

static void test_errors(void **state)
{
	struct campaign *c = NULL;
	struct profile_error err = {0};
	char *line;
	(void)state;

	/* a sweep value the profile loader refuses for one group only */
	write_str("g3.yaml", "version: 1\nname: g3\nverify:\n  thresholds: {loss_percent: 1}\n");
	write_str("c3.yaml",
		  "version: 1\nname: c3\ngroups: [g3.yaml]\nsweep:\n  verify.gso: [true, maybe]\n");
	assert_int_equal(campaign_load("c3.yaml", &c, &err), -EINVAL);
	assert_null(c);
	line = profile_error_format(&err);
	assert_string_equal(line, "c3.yaml:5:22: verify.gso: expected true or false, got \"maybe\"");
	free(line);
	assert_int_equal(campaign_load("no-such.yaml", &c, &err), -ENOENT);
	line = profile_error_format(&err);
	assert_string_equal(line, "no-such.yaml: cannot read: No such file or directory");
	free(line);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rounds),
	    cmocka_unit_test(test_peer),
	    cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, unit_enter_tmpdir, unit_leave_tmpdir);
}
