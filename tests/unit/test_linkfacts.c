/* test_linkfacts.c: a snapshot's record of the link facts (linkfacts.h)
 * read back equal to what was written, every field; a record switched in
 * answers linkfacts_list (loopback left out, `only` honoured, the
 * per-port facts with it) without the kernel; a damaged record names its
 * field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <linux/if.h>
#include <string.h>

#include "os/linkfacts.h"

static void fill(struct link_facts *f, const char *name, int ifindex, unsigned flags)
{
	static const uint32_t value[4] = {16, 63, 0, 0xdeadbeef};

	memset(f, 0, sizeof(*f));
	snprintf(f->link.name, sizeof(f->link.name), "%s", name);
	f->link.ifindex = ifindex;
	f->link.mtu = 9000;
	f->link.has_mtu_range = true;
	f->link.min_mtu = 68;
	f->link.max_mtu = 9978;
	f->link.txqlen = 1000;
	f->link.operstate = LINK_OPER_UP;
	f->link.flags = flags;
	f->link.loopback = flags & IFF_LOOPBACK;
	f->link.admin_up = flags & IFF_UP;
	f->link.lower_up = flags & IFF_LOWER_UP;
	snprintf(f->drvinfo.driver, sizeof(f->drvinfo.driver), "mlx5_core");
	snprintf(f->drvinfo.fw_version, sizeof(f->drvinfo.fw_version), "16.29.1030 (MT_0000000080)");
	snprintf(f->drvinfo.bus_info, sizeof(f->drvinfo.bus_info), "0000:af:00.0");
	f->ethlink = (struct eth_link){
	    .speed_known = true, .speed = 25000, .duplex = ETH_DUPLEX_FULL, .autoneg = true};
	/* a fact read, one the driver does not support, one that failed */
	f->n_facts = 3;
	f->facts = calloc(3, sizeof(*f->facts));
	f->facts[0] = (struct recorded_fact){.kind = strdup("channels"),
					     .layout = 1,
					     .r = 0,
					     .size = sizeof(value),
					     .value = malloc(sizeof(value))};
	memcpy(f->facts[0].value, value, sizeof(value));
	f->facts[1] = (struct recorded_fact){.kind = strdup("pause"),
					     .layout = 3,
					     .r = -EOPNOTSUPP,
					     .size = 8,
					     .kmsg = strdup("pause not supported")};
	f->facts[2] = (struct recorded_fact){.kind = strdup("rss"), .layout = 1, .r = -ENODEV, .size = 4};
}

static void same(const struct link_facts *a, const struct link_facts *b)
{
	assert_memory_equal(&a->link, &b->link, sizeof(a->link));
	assert_int_equal(a->drvinfo_r, b->drvinfo_r);
	assert_memory_equal(&a->drvinfo, &b->drvinfo, sizeof(a->drvinfo));
	assert_memory_equal(&a->ethlink, &b->ethlink, sizeof(a->ethlink));
	assert_int_equal(a->n_facts, b->n_facts);
	for (size_t i = 0; i < a->n_facts; i++) {
		assert_string_equal(a->facts[i].kind, b->facts[i].kind);
		assert_int_equal(a->facts[i].layout, b->facts[i].layout);
		assert_int_equal(a->facts[i].r, b->facts[i].r);
		assert_int_equal(a->facts[i].size, b->facts[i].size);
		if (a->facts[i].value)
			assert_memory_equal(a->facts[i].value, b->facts[i].value, a->facts[i].size);
		else
			assert_null(b->facts[i].value);
		if (a->facts[i].kmsg)
			assert_string_equal(a->facts[i].kmsg, b->facts[i].kmsg);
		else
			assert_null(b->facts[i].kmsg);
	}
}

static void test_round_trip(void **state)
{
	struct link_facts in[2], *out = NULL;
	struct json_object *j, *back;
	size_t n = 0;
	char *field = NULL;

	(void)state;
	fill(&in[0], "lo", 1, IFF_UP | IFF_LOOPBACK);
	fill(&in[1], "ens1f0", 4, IFF_UP | IFF_LOWER_UP);
	j = linkfacts_to_json(in, 2);
	/* through text, as the marker file holds it */
	back = json_tokener_parse(json_object_to_json_string(j));
	assert_int_equal(linkfacts_from_json(back, &out, &n, &field), 0);
	assert_int_equal(n, 2);
	same(&in[0], &out[0]);
	same(&in[1], &out[1]);
	linkfacts_free(out, n);

	/* switched in: the list comes from the record, loopback left out */
	assert_int_equal(linkfacts_from_json(back, &out, &n, &field), 0);
	linkfacts_use(out, n, true);
	assert_true(linkfacts_of_this_host());
	assert_int_equal(linkfacts_list(NULL, &out, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(out[0].link.name, "ens1f0");
	linkfacts_free(out, n);
	assert_int_equal(linkfacts_list((char *[]){"ens9", NULL}, &out, &n), 0);
	assert_int_equal(n, 0);
	linkfacts_free(out, n);
	linkfacts_use(NULL, 0, false);

	json_object_put(j);
	json_object_put(back);
	for (int i = 0; i < 2; i++) {
		for (size_t k = 0; k < in[i].n_facts; k++) {
			free(in[i].facts[k].kind);
			free(in[i].facts[k].value);
			free(in[i].facts[k].kmsg);
		}
		free(in[i].facts);
	}
}

static void test_damaged(void **state)
{
	static const struct {
		const char *json, *field;
	} cases[] = {
	    {"{}", "links"},
	    {"[{\"name\": \"ens1f0\"}]", "links[0].ifindex"},
	    {"[{\"name\": \"ens1f0\", \"ifindex\": 2, \"mtu\": \"9000\"}]", "links[0].mtu"},
	    {"[{\"name\": \"\", \"ifindex\": 2}]", "links[0].name"},
	    {"[{\"name\": \"a-name-longer-than-15\", \"ifindex\": 2}]", "links[0].name"},
	    {"[{\"name\": \"ens1f0\", \"ifindex\": 2, \"mtu\": 1500, \"txqueuelen\": 0, \"operstate\": "
	     "\"sideways\"}]",
	     "links[0].operstate"},
	    {"[{\"name\": \"ens1f0\", \"ifindex\": 2, \"mtu\": 1500, \"txqueuelen\": 1000, \"operstate\": "
	     "\"up\","
	     " \"flags\": 1, \"kind\": \"\", \"drvinfo\": {\"result\": 0}, \"ethlink\": {\"result\": 0,"
	     " \"duplex\": \"full\", \"autoneg\": true}, \"facts\": [{\"result\": 0, \"size\": 2, \"value\": "
	     "\"0g00\"}]}]",
	     "links[0].facts.kind"},
	    {"[{\"name\": \"ens1f0\", \"ifindex\": 2, \"mtu\": 1500, \"txqueuelen\": 1000, \"operstate\": "
	     "\"up\","
	     " \"flags\": 1, \"kind\": \"\", \"drvinfo\": {\"result\": 0}, \"ethlink\": {\"result\": 0,"
	     " \"duplex\": \"full\", \"autoneg\": true}, \"facts\": [{\"kind\": \"rings\", \"result\": 0, "
	     "\"size\": 2, \"value\": \"0000\"}]}]",
	     "links[0].facts.layout"},
	    {"[{\"name\": \"ens1f0\", \"ifindex\": 2, \"mtu\": 1500, \"txqueuelen\": 1000, \"operstate\": "
	     "\"up\","
	     " \"flags\": 1, \"kind\": \"\", \"drvinfo\": {\"result\": 0}, \"ethlink\": {\"result\": 0,"
	     " \"duplex\": \"full\", \"autoneg\": true}, \"facts\": [{\"kind\": \"rings\", \"layout\": 1, "
	     "\"result\": 0, \"size\": 2, \"value\": \"0g00\"}]}]",
	     "links[0].facts.value"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct json_object *j = json_tokener_parse(cases[i].json);
		struct link_facts *out = NULL;
		size_t n = 0;
		char *field = NULL;

		assert_int_equal(linkfacts_from_json(j, &out, &n, &field), -EINVAL);
		assert_string_equal(field, cases[i].field);
		free(field);
		json_object_put(j);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_damaged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
