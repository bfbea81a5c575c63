/* test_probe.c: probe_host's host-wide facts (probe.h: struct
 * probe_host_fact) and the kinds' readers of them (sysctl_probed,
 * irqbalance_probed), under a private sysroot the test writes. No port is
 * probed: `only` names one that exists nowhere, so the host's links are
 * never part of the result. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "kinds/irqbalance.h"
#include "kinds/kinds.h"
#include "kinds/sysctl.h"
#include "os/probe.h"
#include "os/sysroot.h"
#include "unit.h"

static char *only[] = {"cx5t-no-such-port", NULL};

/* A fact that counts its reads and frees, and says whether its buffer
 * came zeroed. */
struct counted {
	bool zeroed;
	int value;
	unsigned char rest[56];
};

static int reads, dones;

static int counted_read(void *ret)
{
	struct counted *c = ret;
	static const struct counted zero;

	reads++;
	c->zeroed = memcmp(c, &zero, sizeof(zero)) == 0;
	c->value = 42;
	return 0;
}

static void counted_done(void *value)
{
	(void)value;
	dones++;
}

static int failing_read(void *ret)
{
	*(int *)ret = 7; /* a failed read's buffer is not to be used */
	return -EIO;
}

static const struct probe_host_fact counted = {
    .name = "counted",
    .size = sizeof(struct counted),
    .read = counted_read,
    .done = counted_done,
};

static const struct probe_host_fact failing = {
    .name = "failing",
    .size = sizeof(int),
    .read = failing_read,
};

static const struct probe_host_fact *const both[] = {&counted, &failing};

static int setup(void **state)
{
	char *root = unit_tmpdir_new("probe");

	if (!root || sysroot_set(root) < 0)
		return -1;
	unsetenv("CX5PROF_SYSTEMCTL"); /* no service manager under a sysroot */
	reads = dones = 0;
	*state = root;
	return 0;
}

static int teardown(void **state)
{
	sysroot_set(NULL);
	return unit_tmpdir_free(*state);
}

/* Read once, after the ports, into a zeroed buffer, in the caller's order;
 * each keeps its own result; freed through done. */
static void test_host_facts_read(void **state)
{
	const struct probe_facts facts = {.host = both, .n_host = ARRAY_SIZE(both)};
	struct host_state *h = NULL;

	(void)state;
	assert_int_equal(probe_host(only, 0, &facts, &h), 0);
	assert_int_equal(h->n_ifaces, 0);
	assert_int_equal(h->n_facts, 2);
	assert_ptr_equal(h->facts[0].def, &counted);
	assert_int_equal(h->facts[0].r, 0);
	assert_true(((struct counted *)h->facts[0].value)->zeroed);
	assert_int_equal(((struct counted *)h->facts[0].value)->value, 42);
	assert_ptr_equal(h->facts[1].def, &failing);
	assert_int_equal(h->facts[1].r, -EIO);
	assert_int_equal(reads, 1);
	host_state_free(h);
	assert_int_equal(dones, 1);
}

/* PROBE_IFACES_ONLY: no host-wide fact is read; each is -ENODATA with a
 * zero buffer. */
static void test_host_facts_ifaces_only(void **state)
{
	const struct probe_facts facts = {.host = both, .n_host = ARRAY_SIZE(both)};
	static const struct counted zero;
	struct host_state *h = NULL;

	(void)state;
	assert_int_equal(probe_host(only, PROBE_IFACES_ONLY, &facts, &h), 0);
	assert_int_equal(reads, 0);
	assert_int_equal(h->n_facts, 2);
	assert_int_equal(h->facts[0].r, -ENODATA);
	assert_memory_equal(h->facts[0].value, &zero, sizeof(zero));
	assert_int_equal(h->facts[1].r, -ENODATA);
	assert_int_equal(*(int *)h->facts[1].value, 0);
	host_state_free(h);
}

/* A host without the kinds' facts (a probe asked for none, or a
 * host_state built by hand): the kinds' readers say "not probed", and it
 * frees with NULL arrays. */
static void test_host_without_facts(void **state)
{
	struct host_state *h = NULL;

	(void)state;
	assert_int_equal(probe_host(only, 0, NULL, &h), 0);
	assert_int_equal(h->n_facts, 0);
	for (int k = 0; k < _SYSCTL_MAX; k++)
		assert_int_equal(sysctl_probed(h, (enum sysctl_key)k)->r, -ENODATA);
	assert_false(irqbalance_probed(h)->running);
	assert_int_equal(irqbalance_probed(h)->enabled, -1);
	assert_int_equal(irqbalance_probed(h)->active, -1);
	host_state_free(h);

	h = calloc(1, sizeof(*h));
	assert_non_null(h);
	assert_int_equal(sysctl_probed(h, SYSCTL_RMEM_MAX)->r, -ENODATA);
	assert_false(irqbalance_probed(h)->running);
	host_state_free(h);
	host_state_free(NULL);
}

/* The sysctl and irqbalance kinds' facts through kinds_probe_host: what
 * the sysroot holds, found by the kind's reader; not read with
 * PROBE_IFACES_ONLY. */
static void test_kinds_host_facts(void **state)
{
	const char *root = *state;
	struct host_state *h = NULL;
	const struct sysctl_state *st;

	assert_int_equal(unit_write(root, "/proc/sys/net/core/rmem_max", "4194304\n"), 0);
	assert_int_equal(unit_write(root, "/proc/sys/net/ipv4/udp_mem", "188010\t250681\t376020\n"), 0);
	assert_int_equal(unit_write(root, "/proc/812/comm", "irqbalance\n"), 0);
	assert_int_equal(
	    unit_write(root, "/etc/default/irqbalance", "IRQBALANCE_ARGS=\"--hintpolicy=ignore\"\n"), 0);

	assert_int_equal(kinds_probe_host(only, 0, &h), 0);
	st = sysctl_probed(h, SYSCTL_RMEM_MAX);
	assert_int_equal(st->r, 0);
	assert_int_equal(st->value.n, 1);
	assert_int_equal(st->value.v[0], 4194304);
	st = sysctl_probed(h, SYSCTL_UDP_MEM);
	assert_int_equal(st->r, 0);
	assert_int_equal(st->value.n, 3);
	assert_int_equal(st->value.v[2], 376020);
	assert_int_equal(sysctl_probed(h, SYSCTL_WMEM_MAX)->r, -ENOENT);
	assert_true(irqbalance_probed(h)->running);
	assert_int_equal(irqbalance_probed(h)->pid, 812);
	assert_string_equal(irqbalance_probed(h)->args, "--hintpolicy=ignore");
	host_state_free(h); /* the config's path and args freed through done */

	h = NULL;
	assert_int_equal(kinds_probe_host(only, PROBE_IFACES_ONLY, &h), 0);
	assert_int_equal(sysctl_probed(h, SYSCTL_RMEM_MAX)->r, -ENODATA);
	assert_false(irqbalance_probed(h)->running);
	host_state_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_host_facts_read, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_host_facts_ifaces_only, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_host_without_facts, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kinds_host_facts, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
