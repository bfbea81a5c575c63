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

#include "campaign/campaignfile.h"
#include "kinds/kinds.h"
#include "unit.h"
#include "campaign/verdict.h"

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
	assert_int_equal(kinds_key_uint(p, "link.mtu")->value, 1500);
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

/* repeat: auto with its limit, warm-up rounds and a budget; the
 * durations the budget takes. */
static void test_rounds_keys(void **state)
{
	struct campaign *c = NULL;
	struct profile_error err = {0};
	unsigned v = 0;
	(void)state;

	write_str("ga.yaml", "version: 1\nname: ga\nlink:\n  mtu: 1500\n");
	write_str("ca.yaml", "version: 1\nname: ca\ngroups: [ga.yaml]\nrepeat: auto\n");
	assert_int_equal(campaign_load("ca.yaml", &c, &err), 0);
	assert_true(c->repeat_auto);
	assert_int_equal(c->repeat, CAMPAIGN_MAX_ROUNDS);
	assert_int_equal(c->warmup, 0);
	assert_int_equal(c->budget_s, 0);
	campaign_free(c);
	write_str("cb.yaml", "version: 1\nname: cb\ngroups: [ga.yaml]\nrepeat: auto\nmax_rounds: 6\n"
			     "warmup: 2\nbudget: 15m\n");
	assert_int_equal(campaign_load("cb.yaml", &c, &err), 0);
	assert_true(c->repeat_auto);
	assert_int_equal(c->repeat, 6);
	assert_int_equal(c->warmup, 2);
	assert_int_equal(c->budget_s, 900);
	campaign_free(c);

	assert_int_equal(campaign_parse_duration("90", &v), 0);
	assert_int_equal(v, 90);
	assert_int_equal(campaign_parse_duration("90s", &v), 0);
	assert_int_equal(v, 90);
	assert_int_equal(campaign_parse_duration("2h", &v), 0);
	assert_int_equal(v, 7200);
	assert_int_equal(campaign_parse_duration("168h", &v), 0);
	assert_int_equal(campaign_parse_duration("169h", &v), -EINVAL);
	assert_int_equal(campaign_parse_duration("0", &v), -EINVAL);
	assert_int_equal(campaign_parse_duration("5d", &v), -EINVAL);
	assert_int_equal(campaign_parse_duration("1m30s", &v), -EINVAL);
	assert_int_equal(campaign_parse_duration("", &v), -EINVAL);
	assert_int_equal(campaign_parse_duration("m", &v), -EINVAL);
}

static bool set(const struct profile *p, const char *kind)
{
	return profile_kind_is_set(p, change_kind_find(kind));
}

/* An ablation of MTU, the IRQ map and sysctls: the host as found, each
 * family alone, everything, everything minus each: 8 groups, each round's
 * profile holding exactly its families' keys and the campaign's verify
 * block; with one family only 2 groups (alone is full, minus is the
 * baseline). */
static void test_ablation(void **state)
{
	static const char *const names[] = {"baseline", "mtu-only",    "irq-only",    "sysctl-only",
					    "full",	"full-no-mtu", "full-no-irq", "full-no-sysctl"};
	struct campaign *c = NULL;
	struct profile *p = NULL;
	struct profile_error err = {0};
	char *line;
	(void)state;

	write_str("tuned.yaml",
		  "version: 1\nname: tuned\nmatch:\n  interfaces: [ens1f0]\nlink:\n  mtu: 9000\n  xps: auto\n"
		  "irq:\n  policy: numa-local\n  irqbalance: leave\nsysctl:\n"
		  "  net.core.rmem_max: \">= 4M\"\nverify:\n  peer: 192.0.2.1\n");
	write_str("cab.yaml", "version: 1\nname: cab\nablate: tuned.yaml\nverify:\n  peer: 198.18.0.2\n"
			      "  duration: 1\nrepeat: 6\n");
	assert_int_equal(campaign_load("cab.yaml", &c, &err), 0);
	assert_string_equal(c->ablate, "tuned.yaml");
	assert_int_equal(c->ablation.n_families, 3);
	assert_string_equal(c->ablation.families[0].label, "MTU 9000");
	assert_string_equal(c->ablation.families[1].label, "IRQ map/irqbalance/XPS");
	assert_string_equal(c->ablation.families[2].label, "sysctls");
	assert_int_equal(c->n_groups, 8);
	for (size_t g = 0; g < 8; g++)
		assert_string_equal(c->groups[g].name, names[g]);
	assert_int_equal(c->groups[0].role, ROLE_BASELINE);
	assert_int_equal(c->groups[1].families, 1);
	assert_int_equal(c->groups[4].role, ROLE_FULL);
	assert_int_equal(c->groups[7].families, 3);
	assert_string_equal(c->groups[5].description, "tuned without MTU 9000");

	/* the baseline: nothing managed, the match kept; the campaign's verify
	 * over what the profile did not write itself (as for a group) */
	assert_int_equal(campaign_group_profile(c, 0, 0, &p, &err), 0);
	assert_false(set(p, "mtu") || set(p, "irq") || set(p, "irqbalance") || set(p, "sysctl"));
	assert_string_equal(p->match.interfaces.value[0], "ens1f0");
	assert_string_equal(p->verify.peer.value, "192.0.2.1");
	assert_int_equal(p->verify.duration.value, 1);
	assert_string_equal(p->name.value, "baseline");
	profile_free(p);
	/* irq-only */
	assert_int_equal(campaign_group_profile(c, 2, 0, &p, &err), 0);
	assert_false(set(p, "mtu") || set(p, "sysctl"));
	assert_true(set(p, "irq") && set(p, "irqbalance") && set(p, "xps")); /* XPS follows the map */
	assert_non_null(kinds_key_enum_name(p, "irq.policy"));
	profile_free(p);
	/* full-no-irq */
	assert_int_equal(campaign_group_profile(c, 6, 0, &p, &err), 0);
	assert_int_equal(kinds_key_uint(p, "link.mtu")->value, 9000);
	assert_false(set(p, "irq") || set(p, "irqbalance") || set(p, "xps"));
	assert_true(set(p, "sysctl"));
	profile_free(p);
	campaign_free(c);
	c = NULL;

	/* one family: the profile against the host as found */
	write_str("mtu.yaml", "version: 1\nname: mtu\nlink:\n  mtu: 9000\nverify:\n  peer: 192.0.2.1\n");
	assert_int_equal(campaign_new_ablation("mtu.yaml", &c, &err), 0);
	assert_string_equal(c->name, "ablate-mtu");
	assert_true(c->repeat_auto);
	assert_int_equal(c->n_groups, 2);
	assert_string_equal(c->groups[0].name, "baseline");
	assert_string_equal(c->groups[1].name, "mtu-only");
	campaign_free(c);
	c = NULL;

	/* a file with groups, its groups replaced (--ablate over a file) */
	write_str("cg.yaml", "version: 1\nname: cg\ngroups: [mtu.yaml]\nrepeat: 4\n");
	assert_int_equal(campaign_load("cg.yaml", &c, &err), 0);
	assert_int_equal(campaign_set_ablate(c, "tuned.yaml", &err), 0);
	assert_int_equal(c->n_groups, 8);
	assert_int_equal(c->repeat, 4);
	campaign_free(c);
	c = NULL;

	assert_int_equal(campaign_new_ablation("no-such.yaml", &c, &err), -ENOENT);
	write_str("nothing.yaml", "version: 1\nname: nothing\nverify:\n  peer: 192.0.2.1\n");
	assert_int_equal(campaign_new_ablation("nothing.yaml", &c, &err), -EINVAL);
	line = profile_error_format(&err);
	assert_string_equal(
	    line, "nothing.yaml: ablate: nothing.yaml: it changes nothing (no link, irq or sysctl key): "
		  "there is nothing to attribute");
	free(line);
}

/* The family table names change kinds only, each once (a kind it does not
 * name is a family of its own). */
static void test_families_are_kinds(void **state)
{
	(void)state;
	for (size_t d = 0; d < ablation_family_defs(); d++)
		for (const char *const *n = ablation_family_kinds(d); *n; n++) {
			unsigned found = 0;
			if (!change_kind_find(*n))
				fail_msg("family table: %s is not a change kind", *n);
			for (size_t e = 0; e < ablation_family_defs(); e++)
				for (const char *const *m = ablation_family_kinds(e); *m; m++)
					found += streq(*m, *n);
			if (found != 1)
				fail_msg("family table: %s is in %u families", *n, found);
		}
}

/* A kind the table does not name (txqueuelen) is a family of its own,
 * after the listed ones, labelled with its value. */
static void test_family_of_its_own(void **state)
{
	struct campaign *c = NULL;
	struct profile_error err = {0};
	(void)state;

	write_str("txq.yaml", "version: 1\nname: txq\nlink:\n  mtu: 9000\n  txqueuelen: 10000\nverify:\n"
			      "  peer: 192.0.2.1\n");
	assert_int_equal(campaign_new_ablation("txq.yaml", &c, &err), 0);
	assert_int_equal(c->ablation.n_families, 2);
	assert_string_equal(ablation_family_name(&c->ablation, 0), "mtu");
	assert_string_equal(ablation_family_name(&c->ablation, 1), "txqueuelen");
	assert_string_equal(c->ablation.families[1].label, "txqueuelen 10000");
	assert_string_equal(c->groups[2].name, "txqueuelen-only");
	campaign_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rounds),
	    cmocka_unit_test(test_peer),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_rounds_keys),
	    cmocka_unit_test(test_ablation),
	    cmocka_unit_test(test_families_are_kinds),
	    cmocka_unit_test(test_family_of_its_own),
	};
	return cmocka_run_group_tests(tests, unit_enter_tmpdir, unit_leave_tmpdir);
}
