/* kinds/flowhash.c: the "flow_hash" kind, link.flow_hash.udp4|udp6:
 * object "ens1f0", key "flow_hash.udp4", values ethtool's letters ("sd" ->
 * "sdfn"): the header fields the NIC hashes UDP flows on to pick their
 * receive queue (`ethtool -N IF rx-flow-hash udp4 sdfn`). Without the
 * ports (f, n) every flow between two hosts lands on one queue. Read and
 * written through ethflowhash.h (the ioctl, or the sysroot's text), which
 * reads back. */
#include "kinds.h"

#include <errno.h>

#include "flowhash.h"

#include "base/exitcode.h"
#include "base/output.h"
#include "os/ethsysroot.h"
#include "os/probe.h"
#include "os/sysroot.h"
#include "changes.h"
#include "profile.h"

#define KEY_PREFIX "flow_hash."

struct flowhash_want {
	struct profile_string fields[_ETH_FLOW_MAX];
};

/* ethtool's letters that mlx5 takes for UDP (mlx5e_set_rss_hash_opt
 * refuses any other field with EOPNOTSUPP, at apply time, after the earlier
 * steps ran): s d the IP addresses, f n the UDP ports. r is RXH_DISCARD,
 * which a driver that honours it reads as "drop every flow of the type". */
static const char *check_letters(const char *s)
{
	uint64_t v;

	if (strchr(s, 'r'))
		return "a list of fields: r discards every flow of the type instead of hashing it (use s d f "
		       "n)";
	if (strspn(s, "sdfn") != strlen(s) || eth_flow_hash_parse(s, &v) < 0)
		return "the fields mlx5 hashes UDP on, each once: s d (IP source and destination), f n (UDP "
		       "source and destination ports); with the ports: sdfn";
	return NULL;
}

#define FLOW(flow, f)                                                                                        \
	{                                                                                                    \
		.name = flow, .type = KT_TEXT, .offset = offsetof(struct flowhash_want, fields[f]),          \
		.min = 1, .max = 8, .check = check_letters, .pattern = "^(?!.*(.).*\\1)[sdfn]{1,4}$",        \
		.help =                                                                                      \
		    "the fields " flow " flows are hashed on to pick their receive queue, as ethtool's "     \
		    "letters (ethtool -N DEV rx-flow-hash " flow " sdfn): s d IP source and destination, "   \
		    "f n the UDP source and destination ports (mlx5 takes no others)"                        \
	}

static const struct profile_key flow_keys[] = {FLOW("udp4", ETH_FLOW_UDP4), FLOW("udp6", ETH_FLOW_UDP6), {0}};

static const struct profile_key flowhash_keys[] = {
    PROFILE_KEY_SECTION("flow_hash", flow_keys,
			"the receive flow hash of UDP (ethtool -n DEV rx-flow-hash udp4); plan warns when it "
			"leaves out the ports"),
    {0},
};

extern const struct change_kind kind_flow_hash;

static const struct flowhash_want *want_of(const struct profile *p)
{
	return kind_want(p, &kind_flow_hash);
}

/* Each flow's fields and the result of reading them. */
struct flowhash_fact {
	int r[_ETH_FLOW_MAX];
	uint64_t v[_ETH_FLOW_MAX];
};

static int probe_flowhash(const char *ifname, void *ret, char **kmsg)
{
	struct flowhash_fact *f = ret;

	(void)kmsg; /* the ioctl has no extack */
	for (int i = 0; i < _ETH_FLOW_MAX; i++)
		f->r[i] = ethtool_get_flow_hash(ifname, (enum eth_flow)i, &f->v[i], NULL);
	return 0;
}

/* Each flow's result is 0 or an errno, as a read gives. */
static int flowhash_check(const void *value, char **ret_why)
{
	const struct flowhash_fact *v = value;

	for (size_t i = 0; i < _ETH_FLOW_MAX; i++)
		if (v->r[i] > 0 || v->r[i] < -4095)
			return probe_fact_bad(ret_why, "r[%zu] %d is not 0 or an errno", i, v->r[i]);
	return 0;
}

static const struct probe_fact flowhash_fact = {
    .name = "flow_hash",
    .layout = 1,
    .size = sizeof(struct flowhash_fact),
    .read = probe_flowhash,
    .check = flowhash_check,
};

int flow_hash_probed(const struct iface_state *s, enum eth_flow f, uint64_t *ret)
{
	const struct iface_fact *fact = kind_fact(s, &kind_flow_hash);
	const struct flowhash_fact *v = fact->value;

	if ((unsigned)f >= _ETH_FLOW_MAX)
		return -EINVAL;
	if (fact->r < 0)
		return fact->r;
	if (v->r[f] < 0)
		return v->r[f];
	*ret = v->v[f];
	return 0;
}

static int flow_of(const char *key, enum eth_flow *ret)
{
	if (strncmp(key, KEY_PREFIX, strlen(KEY_PREFIX)) != 0)
		return -EINVAL;
	for (int i = 0; i < _ETH_FLOW_MAX; i++)
		if (streq(key + strlen(KEY_PREFIX), eth_flow_to_string((enum eth_flow)i))) {
			*ret = (enum eth_flow)i;
			return 0;
		}
	return -EINVAL;
}

static int flowhash_read(const char *object, const char *key, char **ret, char **kmsg)
{
	enum eth_flow f;
	uint64_t v;
	int r = flow_of(key, &f);

	if (r >= 0)
		r = ethtool_get_flow_hash(object, f, &v, kmsg);
	if (r < 0)
		return r;
	*ret = eth_flow_hash_format(v);
	return *ret ? 0 : -ENOMEM;
}

/* A value is ethtool's letters, or the raw bits ("0x...") read from a
 * driver that used bits ethtool has no letter for. */
static int parse_value(const char *value, uint64_t *ret)
{
	if (strncmp(value, "0x", 2) == 0) {
		char *end;

		errno = 0;
		*ret = strtoull(value + 2, &end, 16);
		return errno || end == value + 2 || *end ? -EINVAL : 0;
	}
	if (!*value) {
		*ret = 0;
		return 0;
	}
	return eth_flow_hash_parse(value, ret);
}

static int flowhash_write(const char *object, const char *key, const char *value, char **kmsg)
{
	enum eth_flow f;
	uint64_t v;
	int r = flow_of(key, &f);

	if (r >= 0)
		r = parse_value(value, &v);
	return r < 0 ? r : ethtool_set_flow_hash(object, f, v, kmsg);
}

static int flowhash_diff(struct plan_ctx *ctx, const struct iface_state *s)
{
	const struct flowhash_want *w = want_of(ctx->profile);
	const struct flowhash_fact *cur = kind_fact(s, &kind_flow_hash)->value;
	int fr = kind_fact(s, &kind_flow_hash)->r, r;

	for (int i = 0; i < _ETH_FLOW_MAX; i++) {
		const char *flow = eth_flow_to_string((enum eth_flow)i);
		_cleanup_free_ char *key = NULL, *old = NULL, *new = NULL;
		int read_r = fr < 0 ? fr : cur->r[i];
		uint64_t want;

		if (!w->fields[i].set)
			continue;
		if (eth_flow_hash_parse(w->fields[i].value, &want) < 0)
			return -EINVAL; /* the loader checked it */
		if (!eth_flow_hash_has_ports(want) &&
		    (r = strv_pushf(
			 &ctx->plan->warnings,
			 "%s: link.flow_hash.%s %s leaves out the UDP ports: every flow between two "
			 "hosts lands on one receive queue",
			 s->name, flow, w->fields[i].value)) < 0)
			return r;
		if (read_r < 0) {
			_cleanup_free_ char *note =
			    ethsysroot_absent_note(s->name, i == ETH_FLOW_UDP4 ? ETHSYSROOT_FLOW_HASH_UDP4
									       : ETHSYSROOT_FLOW_HASH_UDP6);

			if (!note)
				return -ENOMEM;
			r = plan_add_problem(
			    ctx->plan, read_r == -EOPNOTSUPP ? EXIT_UNSUPPORTED : EXIT_ERROR, s->name,
			    read_r == -EOPNOTSUPP ? "remove link.flow_hash from the profile for this port"
						  : "check the interface",
			    "link.flow_hash.%s: %s: %s%s", flow,
			    read_r == -EOPNOTSUPP ? "the driver does not report its flow hash"
						  : "cannot be read",
			    sysroot_strerror(read_r), note);
			if (r < 0)
				return r;
			continue;
		}
		if (cur->v[i] == want)
			continue;
		key = strprintf(KEY_PREFIX "%s", flow);
		old = eth_flow_hash_format(cur->v[i]);
		new = eth_flow_hash_format(want); /* ethtool's order, as read back */
		if (!key || !old || !new)
			return -ENOMEM;
		r = plan_add_change(ctx->plan, "flow_hash", s->name, key, old, new);
		if (r < 0)
			return r;
	}
	return 0;
}

static bool flowhash_manages(const struct profile *p)
{
	const struct flowhash_want *w = want_of(p);

	for (int i = 0; i < _ETH_FLOW_MAX; i++)
		if (w->fields[i].set)
			return true;
	return false;
}

/* The letters people write back ("none" for no field). */
static char *flowhash_human(const char *value, const char *counterpart)
{
	(void)counterpart;
	return strdup(*value ? value : "none");
}

/* "flowhash udp4 sdfn  udp6 sdfn"; JSON {"udp4": {"status", "fields",
 * "ports"}, "udp6": ...}. */
static void flowhash_show(const struct iface_state *s)
{
	const struct iface_fact *fact = kind_fact(s, &kind_flow_hash);
	const struct flowhash_fact *f = fact->value;

	if (!s->present) {
		out_json("flow_hash", NULL);
		return;
	}
	out_open_object("flow_hash");
	out_text("  %-8s", "flowhash");
	for (int i = 0; i < _ETH_FLOW_MAX; i++) {
		int r = fact->r < 0 ? fact->r : f->r[i];
		_cleanup_free_ char *letters = r >= 0 ? eth_flow_hash_format(f->v[i]) : NULL;

		out_open_object(eth_flow_to_string((enum eth_flow)i));
		out_text("  %s ", eth_flow_to_string((enum eth_flow)i));
		kind_show_status(r);
		out_string(OUT_JSON, "fields", NULL, letters);
		if (r >= 0)
			out_bool(OUT_JSON, "ports", NULL, eth_flow_hash_has_ports(f->v[i]));
		else
			out_string(OUT_JSON, "ports", NULL, NULL);
		if (letters)
			out_text("%s", *letters ? letters : "none");
		out_close_object();
	}
	out_text("\n");
	out_close_object();
}

/* What show writes of it (kinds.h: show_schema; `make docs` puts it into
 * schemas/state.schema.json). */
static const char flowhash_show_schema[] =
    "{"
    " \"flow_hash\": {"
    "  \"type\": [\"object\", \"null\"],"
    "  \"description\": \"The fields the NIC hashes UDP flows on to pick their receive queue (ETHTOOL_GRXFH, "
    "as `ethtool -n IFACE rx-flow-hash udp4` shows them; a sysroot's ethtool/IFACE/rx-flow-hash-udp4 when it "
    "describes the port). null when the interface is not in this network namespace.\","
    "  \"required\": [\"udp4\", \"udp6\"],"
    "  \"additionalProperties\": false,"
    "  \"properties\": {"
    "   \"udp4\": {"
    "    \"type\": \"object\","
    "    \"required\": [\"status\", \"error\", \"fields\", \"ports\"],"
    "    \"additionalProperties\": false,"
    "    \"x-cx5prof-status\": \"the driver does not report it (veth)\","
    "    \"properties\": {"
    "     \"fields\": {"
    "      \"type\": [\"string\", \"null\"],"
    "      \"description\": \"the fields hashed, as ethtool's letters (m v t s d f n r; \\\"sdfn\\\": "
    "addresses and UDP ports; \\\"\\\" none); null unless status is ok\""
    "     },"
    "     \"ports\": {"
    "      \"type\": [\"boolean\", \"null\"],"
    "      \"description\": \"both UDP ports are in the hash (f and n): without them every flow between two "
    "hosts lands on one receive queue\""
    "     }"
    "    }"
    "   },"
    "   \"udp6\": {\"x-cx5prof-same-as\": \"udp4\"}"
    "  }"
    " }"
    "}";

const struct change_kind kind_flow_hash = {
    .name = "flow_hash",
    .rank = 26,
    .scope = KIND_SCOPE_PORT,
    .profile_section = "link",
    .keys = flowhash_keys,
    .want_size = sizeof(struct flowhash_want),
    .probe = &flowhash_fact,
    .read = flowhash_read,
    .write = flowhash_write,
    .undo = kind_undo_by_write,
    .verify = kind_verify_by_read,
    .write_reads_back = true,
    .diff = flowhash_diff,
    .manages = flowhash_manages,
    .human = flowhash_human,
    .show_port = flowhash_show,
    .show_schema = flowhash_show_schema,
};
