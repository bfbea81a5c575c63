/* profile.c: profile format v1 -> struct profile (see profile.h).
 *
 * Owns: the file format: the profile's own sections and their key tables
 * (match, requires, peer, verify, mirror; one row per YAML key: name,
 * type, range, where the value goes), where the change kinds' keys go
 * (KT_KINDS rows), the `extends` chain, the checks that span keys, the
 * JSON form of a profile and its hash. The format's value types are read
 * with keys/keyread.h; a kind's value of its own shape (KT_OWN: sysctl's
 * map, features, private flags) by the kind's codec. A new key is one
 * table row (plus its JSON Schema entry, README row and a test), never a
 * new if-branch.
 * Must never: touch the host, read any file but the profiles named by the
 * caller and their parents, log above debug, accept a value it cannot
 * range-check, or know a kind's values. The YAML syntax itself is
 * yamltree.c's business. */
#define _GNU_SOURCE
#include "profile.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sys/stat.h>

#include "base/cpuset.h"
#include "base/exitcode.h"
#include "base/sha256.h"
#include "base/version.h"
#include "base/yamltree.h"
#include "keys/keyread.h"
#include "kinds/kinds.h"

#define PROFILE_MAX_PATH 4096

/* ---- enum tables ---- */

static const char *const duplex_names[] = {
    [PROFILE_DUPLEX_HALF] = "half", [PROFILE_DUPLEX_FULL] = "full", NULL};
static const char *const test_names[] = {[PROFILE_TEST_UDP_STREAM] = "UDP_STREAM", NULL};
static const char *const runner_names[] = {"netperf", "iperf3", "builtin", NULL};

static const char *name_of(const char *const *names, size_t n, int v)
{
	return v >= 0 && (size_t)v < n - 1 ? names[v] : NULL;
}

const char *profile_duplex_to_string(int v)
{
	return name_of(duplex_names, ARRAY_SIZE(duplex_names), v);
}
const char *profile_verify_test_to_string(int v)
{
	return name_of(test_names, ARRAY_SIZE(test_names), v);
}
/* ---- key tables ---- */

#define P(member) offsetof(struct profile, member)
#define M(member) offsetof(struct mirror_config, member)
#define UINT(n, o, lo, hi)                                                                                   \
	{                                                                                                    \
		.name = n, .type = KT_UINT, .offset = o, .min = lo, .max = hi                                \
	}
#define SIZE(n, o, lo, hi)                                                                                   \
	{                                                                                                    \
		.name = n, .type = KT_SIZE, .offset = o, .min = lo, .max = hi                                \
	}
#define PERCENT(n, o)                                                                                        \
	{                                                                                                    \
		.name = n, .type = KT_NUMBER, .offset = o, .dmin = 0, .dmax = 100                            \
	}
#define STR(n, t, o, lo, hi)                                                                                 \
	{                                                                                                    \
		.name = n, .type = t, .offset = o, .min = lo, .max = hi                                      \
	}
#define ENUM(n, o, list)                                                                                     \
	{                                                                                                    \
		.name = n, .type = KT_ENUM, .offset = o, .names = list                                       \
	}
#define SECTION(n, o, table)                                                                                 \
	{                                                                                                    \
		.name = n, .type = KT_SECTION, .offset = o, .children = table                                \
	}

static void match_enter(struct profile_loader *l, void *field, const struct ynode *key);
static void taotoken_enter(struct profile_loader *l, void *field, const struct ynode *key);

static const struct profile_key match_keys[] = {
    {.name = "interfaces", .type = KT_IFNAMES, .offset = P(match.interfaces)},
    {.name = "pci", .type = KT_PCI, .offset = P(match.pci)},
    {0},
};

static const struct profile_key driver_keys[] = {
    STR("name", KT_DRIVER, P(requires.driver_name), 1, 64),
    STR("min_version", KT_VERSION, P(requires.driver_min_version), 1, 64),
    STR("min_kernel", KT_VERSION, P(requires.driver_min_kernel), 1, 64),
    {0},
};

static const struct profile_key firmware_keys[] = {
    STR("min_version", KT_VERSION, P(requires.firmware_min_version), 1, 64),
    {0},
};

static const struct profile_key requires_link_keys[] = {
    UINT("speed", P(requires.link_speed), 10, 800000),
    ENUM("duplex", P(requires.link_duplex), duplex_names),
    {0},
};

static const struct profile_key requires_keys[] = {
    SECTION("driver", 0, driver_keys),
    SECTION("firmware", 0, firmware_keys),
    SECTION("link", 0, requires_link_keys),
    {0},
};

static const struct profile_key socket_buffer_keys[] = {
    SIZE("send", P(verify.socket_send), 1, INT_MAX),
    SIZE("receive", P(verify.socket_receive), 1, INT_MAX),
    {0},
};

static const struct profile_key thresholds_keys[] = {
    {.name = "throughput_mbps",
     .type = KT_NUMBER,
     .offset = P(verify.throughput_mbps),
     .dmin = 0,
     .dmax = 1000000,
     .dmin_exclusive = true},
    PERCENT("loss_percent", P(verify.loss_percent)),
    PERCENT("irq_planned_percent", P(verify.irq_planned_percent)),
    PERCENT("irq_max_cpu_percent", P(verify.irq_max_cpu_percent)),
    PERCENT("softirq_max_percent", P(verify.softirq_max_percent)),
    {0},
};

static const struct profile_key verify_keys[] = {
    STR("peer", KT_PEER, P(verify.peer), 1, 253),
    {.name = "runner", .type = KT_RUNNERS, .offset = P(verify.runners), .names = runner_names},
    ENUM("test", P(verify.test), test_names),
    UINT("duration", P(verify.duration), 1, 3600),
    UINT("message_size", P(verify.message_size), 1, 65507),
    SECTION("socket_buffer", 0, socket_buffer_keys),
    UINT("streams", P(verify.streams), 1, 64),
    UINT("port", P(verify.port), 1, 65535),
    {.name = "gso", .type = KT_BOOL, .offset = P(verify.gso)},
    {.name = "peer_must_match", .type = KT_BOOL, .offset = P(verify.peer_must_match)},
    SECTION("thresholds", 0, thresholds_keys),
    {0},
};

/* Relative to struct mirror_config: shared by profiles and mirror.yaml. */
static const struct profile_key taotoken_keys[] = {
    STR("base_url", KT_URL, M(base_url), 1, 2048),
    STR("api_key_file", KT_ABSPATH, M(api_key_file), 1, PROFILE_MAX_PATH),
    STR("api_key_env", KT_ENVNAME, M(api_key_env), 1, 128),
    {.name = "api_key",
     .type = KT_FORBIDDEN,
     .why = "an API key is never written in a file cx5prof reads as configuration: put it in a file "
	    "only root can read and set api_key_file, or set api_key_env"},
    STR("model_id", KT_TEXT, M(model_id), 1, 256),
    STR("task", KT_TEXT, M(task), 1, 128),
    STR("note", KT_TEXT, M(note), 0, 1024),
    {0},
};

static const struct profile_key mirror_keys[] = {
    {.name = "taotoken",
     .type = KT_SECTION,
     .offset = P(mirror),
     .children = taotoken_keys,
     .enter = taotoken_enter},
    {0},
};

static const struct profile_key peer_keys[] = {
    STR("ssh", KT_SSH_TARGET, P(peer.ssh), 1, 255),
    STR("ssh_config", KT_ABSPATH, P(peer.ssh_config), 1, PROFILE_MAX_PATH),
    STR("command", KT_COMMAND, P(peer.command), 1, PROFILE_MAX_PATH),
    UINT("confirm", P(peer.confirm), 1, 3600),
    {0},
};

/* Format v1's published order of the kinds' keys in their sections (see
 * kinds_row); a later kind's keys follow these. */
static const char *const link_order[] = {"mtu", "channels", "rings", "features", "coalesce", "pause", NULL};
static const char *const irq_order[] = {"policy", "cpulist", "exclude_cpus", "irqbalance", NULL};

static const struct profile_key profile_keys[] = {
    {.name = "version", .type = KT_FORMAT_VERSION, .offset = P(version), .min = 1, .max = 1},
    STR("name", KT_NAME, P(name), 1, 64),
    STR("description", KT_TEXT, P(description), 0, 1024),
    {.name = "extends", .type = KT_EXTENDS, .offset = P(extends)},
    {.name = "match", .type = KT_SECTION, .children = match_keys, .enter = match_enter},
    SECTION("requires", 0, requires_keys),
    /* the change kinds' keys (kinds/kinds.h) */
    {.name = "link", .type = KT_KINDS, .names = link_order, .help = "the ports' link settings"},
    {.name = "irq", .type = KT_KINDS, .names = irq_order, .help = "the ports' interrupts and irqbalance"},
    {.name = "sysctl", .type = KT_KINDS, .help = "kernel settings"},
    {.name = "host", .type = KT_KINDS, .help = "the host's own settings (CPU frequency)"},
    SECTION("verify", 0, verify_keys),
    SECTION("peer", 0, peer_keys),
    SECTION("mirror", 0, mirror_keys),
    {.name = "groups",
     .type = KT_FORBIDDEN,
     .why = "a campaign file's key, not a profile's: check a campaign with `cx5prof campaign --check FILE`"},
    {0},
};

/* /etc/cx5prof/mirror.yaml, relative to struct mirror_config. */
static const struct profile_key mirror_file_keys[] = {
    {.name = "taotoken", .type = KT_SECTION, .children = taotoken_keys, .enter = taotoken_enter},
    {0},
};

/* ---- value parsers, one per type ---- */

typedef int (*parse_fn)(struct profile_loader *l, const struct profile_key *k, const struct ynode *key,
			const struct ynode *v, void *field, const char *path);

static int apply_mapping(struct profile_loader *l, const struct profile_key *table, void *base,
			 const struct ynode *map, const char *path);

static int parse_section(struct profile_loader *l, const struct profile_key *k, const struct ynode *key,
			 const struct ynode *v, void *field, const char *path)
{
	if (v->kind != YNODE_MAPPING)
		return key_expect(l, v, path, "a mapping");
	if (k->enter)
		k->enter(l, field, key);
	return apply_mapping(l, k->children, field, v, path);
}

static int set_uint(struct profile_loader *l, const struct profile_key *k, const struct ynode *v, int64_t x,
		    bool range_ok, void *field, const char *path)
{
	struct profile_uint *f = field;

	if (!range_ok || x < k->min || x > k->max)
		return key_fail(l, v, "%s: %s is out of range %" PRId64 "..%" PRId64, path, v->value, k->min,
				k->max);
	f->set = true;
	f->value = (uint64_t)x;
	f->at = key_mark(l, v);
	return 0;
}

static int parse_uint(struct profile_loader *l, const struct profile_key *k, const struct ynode *key _unused_,
		      const struct ynode *v, void *field, const char *path)
{
	int64_t x = 0;
	int r = key_scalar_integer(v, &x);

	if (r == -EINVAL)
		return key_expect(l, v, path, "an integer");
	return set_uint(l, k, v, x, r == 0, field, path);
}

static int parse_format_version(struct profile_loader *l, const struct profile_key *k,
				const struct ynode *key, const struct ynode *v, void *field, const char *path)
{
	int64_t x = 0;
	int r = key_scalar_integer(v, &x);

	if (r == -EINVAL)
		return key_expect(l, v, path, "an integer");
	if (r < 0 || x != PROFILE_FORMAT_VERSION)
		return key_fail(l, v,
				"version: %s is not supported (this cx5prof reads profile format version %d)",
				v->value, PROFILE_FORMAT_VERSION);
	return parse_uint(l, k, key, v, field, path);
}

static int parse_size_value(struct profile_loader *l, const struct profile_key *k,
			    const struct ynode *key _unused_, const struct ynode *v, void *field,
			    const char *path)
{
	int64_t x = 0;
	int r = key_scalar_size(v, &x);

	if (r == -EINVAL)
		return key_expect(l, v, path, "a size (bytes, or a number with K, M or G)");
	return set_uint(l, k, v, x, r == 0, field, path);
}

static int parse_number(struct profile_loader *l, const struct profile_key *k,
			const struct ynode *key _unused_, const struct ynode *v, void *field,
			const char *path)
{
	struct profile_double *f = field;
	const char *s = v->value;
	bool digits = false;
	double x;

	if (v->kind != YNODE_SCALAR || !v->plain)
		return key_expect(l, v, path, "a number");
	/* [-+]?(0|[1-9][0-9]*)(\.[0-9]*)? or [-+]?\.[0-9]+ */
	if (*s == '-' || *s == '+')
		s++;
	if (s[0] == '0' && isdigit((unsigned char)s[1]))
		return key_expect(l, v, path, "a number");
	for (; isdigit((unsigned char)*s); s++)
		digits = true;
	if (*s == '.')
		for (s++; isdigit((unsigned char)*s); s++)
			digits = true;
	if (*s || !digits)
		return key_expect(l, v, path, "a number");
	x = strtod(v->value, NULL);
	if (k->dmin_exclusive && x <= k->dmin)
		return key_fail(l, v, "%s: %s must be greater than %.10g", path, v->value, k->dmin);
	if (x < k->dmin || x > k->dmax)
		return key_fail(l, v, "%s: %s is out of range %.10g..%.10g", path, v->value, k->dmin,
				k->dmax);
	f->set = true;
	f->value = x;
	f->at = key_mark(l, v);
	return 0;
}

static int parse_bool(struct profile_loader *l, const struct profile_key *k _unused_,
		      const struct ynode *key _unused_, const struct ynode *v, void *field, const char *path)
{
	static const struct {
		const char *text;
		bool value;
	} words[] = {{"true", true},   {"True", true},	 {"TRUE", true},
		     {"false", false}, {"False", false}, {"FALSE", false}};
	struct profile_bool *f = field;

	if (v->kind == YNODE_SCALAR && v->plain)
		for (size_t i = 0; i < ARRAY_SIZE(words); i++)
			if (streq(v->value, words[i].text)) {
				f->set = true;
				f->value = words[i].value;
				f->at = key_mark(l, v);
				return 0;
			}
	return key_expect(l, v, path, "true or false");
}

/* A scalar that YAML reads as a string (quoted, or plain but not a number,
 * boolean, null or date): the others would be typed differently by every
 * other YAML tool, so they are refused with a hint to quote them. */
static int scalar_string(struct profile_loader *l, const struct ynode *v, const char *path, bool int_ok)
{
	char buf[64];

	if (v->kind != YNODE_SCALAR)
		return key_expect(l, v, path, "a string");
	switch (ynode_scalar_type(v)) {
	case YSCALAR_STRING:
		return 0;
	case YSCALAR_NULL:
		return key_expect(l, v, path, "a string");
	case YSCALAR_INT:
		if (int_ok)
			return 0;
		__attribute__((fallthrough));
	default:
		return key_fail(l, v, "%s: expected a string, got %s (put it in quotes)", path,
				ynode_describe(v, buf, sizeof(buf)));
	}
}

static size_t utf8_length(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static bool all_chars(const char *s, const char *extra)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return false;
	return true;
}

/* The checks of string-valued types: NULL when s is acceptable, else the
 * end of the message "PATH: "S" is not ...". */
static const char *check_name(const char *s)
{
	for (const char *c = s; *c; c++)
		if (!islower((unsigned char)*c) && !isdigit((unsigned char)*c) && !strchr("._-", *c))
			return "a valid name (a-z, 0-9, '.', '_', '-', starting with a letter or digit)";
	if (!islower((unsigned char)s[0]) && !isdigit((unsigned char)s[0]))
		return "a valid name (a-z, 0-9, '.', '_', '-', starting with a letter or digit)";
	return NULL;
}

/* A minimum in a profile is numbers only (plus the PSID ethtool prints for
 * firmware); tags like "-generic" are accepted from hosts, not here. */
static const char *check_version(const char *s)
{
	size_t n = strcspn(s, " ");

	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]) && !strchr("._-", s[i]))
			return "a version (numbers separated by '.', '-' or '_', like \"5.2-2.0.7\")";
	return version_valid(s) ? NULL
				: "a version (numbers separated by '.', '-' or '_', like \"5.2-2.0.7\")";
}

static const char *check_driver(const char *s)
{
	return all_chars(s, "._-") ? NULL : "a driver name (letters, digits, '.', '_', '-')";
}

/* "8-15,24-31": decimal CPUs and ranges; the kernel's other forms are not
 * accepted in profiles, so the JSON Schema can state the same rule. */
static const char *check_cpulist_syntax(const char *s)
{
	static const char *const msg = "a CPU list (like \"8-15,24-31\")";

	if (!*s)
		return NULL;
	for (;;) {
		if (!isdigit((unsigned char)*s))
			return msg;
		while (isdigit((unsigned char)*s))
			s++;
		if (*s == '-') {
			s++;
			if (!isdigit((unsigned char)*s))
				return msg;
			while (isdigit((unsigned char)*s))
				s++;
		}
		if (*s == '\0')
			return NULL;
		if (*s++ != ',')
			return msg;
	}
}

static bool hostname_valid(const char *s)
{
	const char *label = s;
	bool letter = false;

	if (strlen(s) > 253)
		return false;
	for (const char *c = s;; c++) {
		if (*c == '.' || *c == '\0') {
			size_t n = (size_t)(c - label);
			if (n == 0 || n > 63 || label[0] == '-' || c[-1] == '-')
				return false;
			if (*c == '\0')
				return letter; /* "198.18.0.999" is a bad address, not a name */
			label = c + 1;
			letter = false;
			continue;
		}
		if (isalpha((unsigned char)*c))
			letter = true;
		else if (!isdigit((unsigned char)*c) && *c != '-')
			return false;
	}
}

static const char *check_peer(const char *s)
{
	unsigned char buf[sizeof(struct in6_addr)];

	if (inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1 || hostname_valid(s))
		return NULL;
	return "an IP address or a host name";
}

static const char *check_url(const char *s)
{
	const char *host;

	if (strncmp(s, "https://", 8) == 0)
		host = s + 8;
	else if (strncmp(s, "http://", 7) == 0)
		host = s + 7;
	else
		return "an http:// or https:// URL";
	if (strchr("/?#", *host))
		return "an http:// or https:// URL";
	for (const char *c = s; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return "an http:// or https:// URL";
	return NULL;
}

static const char *check_abspath(const char *s)
{
	return s[0] == '/' ? NULL : "an absolute path";
}

static const char *check_envname(const char *s)
{
	return !isdigit((unsigned char)s[0]) && all_chars(s, "_")
		   ? NULL
		   : "an environment variable name ([A-Za-z_][A-Za-z0-9_]*)";
}

/* ssh reads an argument starting with '-' as an option, and a ProxyCommand
 * of the operator's ssh_config gets the host (%h) and user (%r) as words:
 * neither part may start with '-' or be empty; nothing but a user, a host
 * and an IPv6 separator. */
static const char *check_ssh_target(const char *s)
{
	const char *at = strchr(s, '@');
	const char *host = at ? at + 1 : s;

	if (s[0] == '-' || at == s || !host[0] || host[0] == '-' || !all_chars(s, "@._-:") ||
	    strchr(host, '@'))
		return "an ssh destination ([user@]host, like \"root@198.18.0.2\")";
	return NULL;
}

/* The peer's shell reads the command ssh sends: no character it would
 * interpret. */
static const char *check_command(const char *s)
{
	return s[0] == '/' && all_chars(s, "/._+-") ? NULL
						    : "an absolute path of letters, digits and '/._+-'";
}

static const char *check_any(const char *s _unused_)
{
	return NULL;
}

static const struct string_type {
	const char *(*check)(const char *s);
	bool int_ok; /* a plain integer is this type's text too ("exclude_cpus: 0") */
} string_types[_KT_MAX] = {
    [KT_TEXT] = {check_any, false},
    [KT_NAME] = {check_name, false},
    [KT_VERSION] = {check_version, false},
    [KT_DRIVER] = {check_driver, false},
    [KT_CPULIST] = {check_cpulist_syntax, true},
    [KT_PEER] = {check_peer, false},
    [KT_URL] = {check_url, false},
    [KT_ABSPATH] = {check_abspath, false},
    [KT_ENVNAME] = {check_envname, false},
    [KT_SSH_TARGET] = {check_ssh_target, false},
    [KT_COMMAND] = {check_command, false},
};

static int set_string(struct profile_loader *l, struct profile_string *f, const struct ynode *v)
{
	char *s = strdup(v->value);

	if (!s)
		return key_fail_oom(l, l->file);
	free(f->value);
	f->value = s;
	f->set = true;
	f->at = key_mark(l, v);
	return 0;
}

static int parse_string(struct profile_loader *l, const struct profile_key *k,
			const struct ynode *key _unused_, const struct ynode *v, void *field,
			const char *path)
{
	const struct string_type *t = &string_types[k->type];
	const char *why;
	char buf[64];
	size_t n;
	int r;

	r = scalar_string(l, v, path, t->int_ok || k->int_ok);
	if (r < 0)
		return r;
	n = utf8_length(v->value);
	if (n < (size_t)k->min)
		return key_fail(l, v, "%s: must not be empty", path);
	if (n > (size_t)k->max)
		return key_fail(l, v, "%s: longer than %" PRId64 " characters", path, k->max);
	why = k->check ? k->check(v->value) : t->check(v->value);
	if (why)
		return key_fail(l, v, "%s: %s is not %s", path, ynode_quote(v, buf, sizeof(buf)), why);
	if (k->type == KT_CPULIST) {
		_cleanup_cpuset_ struct cpuset set = CPUSET_INIT;
		r = cpuset_parse_list(v->value, &set);
		if (r == -ENOMEM)
			return key_fail_oom(l, l->file);
		if (r < 0)
			return key_fail(l, v, "%s: %s has a reversed range or a CPU above %d", path,
					ynode_quote(v, buf, sizeof(buf)), CPUSET_MAX_CPUS - 1);
	}
	return set_string(l, field, v);
}

static int parse_enum(struct profile_loader *l, const struct profile_key *k, const struct ynode *key _unused_,
		      const struct ynode *v, void *field, const char *path)
{
	struct profile_enum *f = field;
	char list[128] = "", buf[64];
	const char *hint;
	size_t o = 0;
	int r;

	r = scalar_string(l, v, path, false);
	if (r < 0)
		return r;
	for (int i = 0; k->names[i]; i++) {
		if (streq(v->value, k->names[i])) {
			f->set = true;
			f->value = i;
			f->at = key_mark(l, v);
			return 0;
		}
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", i ? ", " : "", k->names[i]);
		if (o >= sizeof(list))
			o = sizeof(list) - 1;
	}
	hint = key_closest(v->value, k->names, sizeof(char *), SIZE_MAX);
	if (hint)
		return key_fail(l, v, "%s: %s is not one of %s (did you mean \"%s\"?)", path,
				ynode_quote(v, buf, sizeof(buf)), list, hint);
	return key_fail(l, v, "%s: %s is not one of %s", path, ynode_quote(v, buf, sizeof(buf)), list);
}

/* A list of strings, each checked by check (which may fill *extra), with
 * no repeats. items() gets each accepted element. */
static int parse_string_list(struct profile_loader *l, const struct ynode *v, const char *path,
			     const char *what,
			     int (*item)(struct profile_loader *l, const struct profile_key *k,
					 const struct ynode *e, const char *epath),
			     const struct profile_key *k)
{
	char epath[KEY_PATH_BUF], buf[64];
	int r;

	if (v->kind != YNODE_SEQUENCE)
		return key_expect(l, v, path, what);
	if (v->n_items == 0)
		return key_fail(l, v, "%s: the list is empty", path);
	for (size_t i = 0; i < v->n_items; i++) {
		const struct ynode *e = v->items[i];
		snprintf(epath, sizeof(epath), "%s[%zu]", path, i);
		r = scalar_string(l, e, epath, false);
		if (r < 0)
			return r;
		for (size_t j = 0; j < i; j++)
			if (streq(v->items[j]->value, e->value))
				return key_fail(l, e, "%s: %s is listed twice", epath,
						ynode_quote(e, buf, sizeof(buf)));
		r = item(l, k, e, epath);
		if (r < 0)
			return r;
	}
	return 0;
}

static int ifname_item(struct profile_loader *l, const struct profile_key *k _unused_, const struct ynode *e,
		       const char *epath)
{
	char buf[64];

	if (!ifname_valid(e->value))
		return key_fail(
		    l, e,
		    "%s: %s is not a valid interface name (1..15 bytes, no '/', ':' or whitespace, "
		    "not \".\" or \"..\")",
		    epath, ynode_quote(e, buf, sizeof(buf)));
	return 0;
}

static int set_strv(struct profile_loader *l, struct profile_strv *f, const struct ynode *v)
{
	_cleanup_strv_free_ char **list = NULL;
	size_t n = v->kind == YNODE_SEQUENCE ? v->n_items : 1;

	for (size_t i = 0; i < n; i++)
		if (strv_extend(&list, v->kind == YNODE_SEQUENCE ? v->items[i]->value : v->value) < 0)
			return key_fail_oom(l, l->file);
	strv_free(f->value);
	f->value = TAKE_PTR(list);
	f->set = true;
	f->at = key_mark(l, v);
	return 0;
}

static int parse_ifnames(struct profile_loader *l, const struct profile_key *k,
			 const struct ynode *key _unused_, const struct ynode *v, void *field,
			 const char *path)
{
	int r = parse_string_list(l, v, path, "a list of interface names", ifname_item, k);
	return r < 0 ? r : set_strv(l, field, v);
}

static int runner_item(struct profile_loader *l, const struct profile_key *k, const struct ynode *e,
		       const char *epath)
{
	struct profile_key as_enum = {.name = k->name, .type = KT_ENUM, .names = k->names};
	struct profile_enum ignored = {0};

	return parse_enum(l, &as_enum, NULL, e, &ignored, epath);
}

static int parse_runners(struct profile_loader *l, const struct profile_key *k,
			 const struct ynode *key _unused_, const struct ynode *v, void *field,
			 const char *path)
{
	int r;

	if (v->kind == YNODE_SEQUENCE)
		r = parse_string_list(l, v, path, "a runner or a list of runners", runner_item, k);
	else if (v->kind == YNODE_SCALAR)
		r = runner_item(l, k, v, path);
	else
		r = key_expect(l, v, path, "a runner or a list of runners");
	return r < 0 ? r : set_strv(l, field, v);
}

static int extends_item(struct profile_loader *l, const struct profile_key *k _unused_, const struct ynode *e,
			const char *epath)
{
	if (e->len == 0)
		return key_fail(l, e, "%s: must not be empty", epath);
	if (utf8_length(e->value) > PROFILE_MAX_PATH)
		return key_fail(l, e, "%s: longer than %d characters", epath, PROFILE_MAX_PATH);
	return 0;
}

/* extends: PATH | [PATH, ...]: checked here, read by load_file(). */
static int parse_extends(struct profile_loader *l, const struct profile_key *k,
			 const struct ynode *key _unused_, const struct ynode *v, void *field,
			 const char *path)
{
	int r;

	if (v->kind == YNODE_SEQUENCE)
		r = parse_string_list(l, v, path, "a path or a list of paths", extends_item, k);
	else {
		r = scalar_string(l, v, path, false);
		if (r >= 0)
			r = extends_item(l, k, v, path);
	}
	return r < 0 ? r : set_strv(l, field, v);
}

static int parse_pci_id(const char *s, struct profile_pci_id *ret)
{
	unsigned vendor, device;
	int n = 0;

	if (strlen(s) != 9 || s[4] != ':')
		return -EINVAL;
	for (int i = 0; i < 9; i++)
		if (i != 4 && !isxdigit((unsigned char)s[i]))
			return -EINVAL;
	if (sscanf(s, "%4x:%4x%n", &vendor, &device, &n) != 2 || n != 9)
		return -EINVAL;
	*ret = (struct profile_pci_id){(uint16_t)vendor, (uint16_t)device};
	return 0;
}

static int pci_item(struct profile_loader *l, const struct profile_key *k _unused_, const struct ynode *e,
		    const char *epath)
{
	struct profile_pci_id id;
	char buf[64];

	if (parse_pci_id(e->value, &id) < 0)
		return key_fail(l, e, "%s: %s is not a PCI vendor:device id (like \"15b3:1017\")", epath,
				ynode_quote(e, buf, sizeof(buf)));
	return 0;
}

static int parse_pci(struct profile_loader *l, const struct profile_key *k, const struct ynode *key _unused_,
		     const struct ynode *v, void *field, const char *path)
{
	struct profile_pci_list *f = field;
	struct profile_pci_id *ids;
	int r;

	r = parse_string_list(l, v, path, "a list of PCI vendor:device ids", pci_item, k);
	if (r < 0)
		return r;
	ids = calloc(v->n_items, sizeof(*ids));
	if (!ids)
		return key_fail_oom(l, l->file);
	for (size_t i = 0; i < v->n_items; i++)
		(void)parse_pci_id(v->items[i]->value, &ids[i]);
	free(f->ids);
	f->ids = ids;
	f->n_ids = v->n_items;
	f->set = true;
	f->at = key_mark(l, v);
	return 0;
}

static int parse_forbidden(struct profile_loader *l, const struct profile_key *k, const struct ynode *key,
			   const struct ynode *v _unused_, void *field _unused_, const char *path)
{
	return key_fail(l, key, "%s: not allowed: %s", path, k->why);
}

/* ---- unsetting: `key: ~` removes what a parent set ---- */

/* The size of a field of each type that is not a section or KT_OWN. */
static const size_t field_sizes[_KT_MAX] = {
    [KT_FORMAT_VERSION] = sizeof(struct profile_uint), [KT_UINT] = sizeof(struct profile_uint),
    [KT_SIZE] = sizeof(struct profile_uint),	       [KT_NUMBER] = sizeof(struct profile_double),
    [KT_BOOL] = sizeof(struct profile_bool),	       [KT_ENUM] = sizeof(struct profile_enum),
    [KT_TEXT] = sizeof(struct profile_string),	       [KT_NAME] = sizeof(struct profile_string),
    [KT_EXTENDS] = sizeof(struct profile_strv),	       [KT_VERSION] = sizeof(struct profile_string),
    [KT_DRIVER] = sizeof(struct profile_string),       [KT_CPULIST] = sizeof(struct profile_string),
    [KT_PEER] = sizeof(struct profile_string),	       [KT_URL] = sizeof(struct profile_string),
    [KT_ABSPATH] = sizeof(struct profile_string),      [KT_ENVNAME] = sizeof(struct profile_string),
    [KT_IFNAMES] = sizeof(struct profile_strv),	       [KT_RUNNERS] = sizeof(struct profile_strv),
    [KT_PCI] = sizeof(struct profile_pci_list),	       [KT_SSH_TARGET] = sizeof(struct profile_string),
    [KT_COMMAND] = sizeof(struct profile_string),      [KT_UINTS] = sizeof(struct profile_uints),
};

/* Where each field type keeps its mark (every one starts with `bool set`). */
static const size_t mark_offsets[_KT_MAX] = {
    [KT_FORMAT_VERSION] = offsetof(struct profile_uint, at),
    [KT_UINT] = offsetof(struct profile_uint, at),
    [KT_SIZE] = offsetof(struct profile_uint, at),
    [KT_NUMBER] = offsetof(struct profile_double, at),
    [KT_BOOL] = offsetof(struct profile_bool, at),
    [KT_ENUM] = offsetof(struct profile_enum, at),
    [KT_TEXT] = offsetof(struct profile_string, at),
    [KT_NAME] = offsetof(struct profile_string, at),
    [KT_EXTENDS] = offsetof(struct profile_strv, at),
    [KT_VERSION] = offsetof(struct profile_string, at),
    [KT_DRIVER] = offsetof(struct profile_string, at),
    [KT_CPULIST] = offsetof(struct profile_string, at),
    [KT_PEER] = offsetof(struct profile_string, at),
    [KT_URL] = offsetof(struct profile_string, at),
    [KT_ABSPATH] = offsetof(struct profile_string, at),
    [KT_ENVNAME] = offsetof(struct profile_string, at),
    [KT_IFNAMES] = offsetof(struct profile_strv, at),
    [KT_RUNNERS] = offsetof(struct profile_strv, at),
    [KT_PCI] = offsetof(struct profile_pci_list, at),
    [KT_SSH_TARGET] = offsetof(struct profile_string, at),
    [KT_COMMAND] = offsetof(struct profile_string, at),
    [KT_UINTS] = offsetof(struct profile_uints, at),
};

static void field_free(const struct profile_key *table, void *base);
static bool field_is_set(const struct profile_key *k, const void *f);
static void field_unset(const struct profile_key *k, void *f);

/* ---- the change kinds' keys (KT_KINDS) ----
 * A KT_KINDS row of profile.c's tables stands for the kinds' keys of its
 * name: the rows of every kind whose profile_section it is, in
 * change_kinds[] order, each over the kind's wanted state; or the one
 * top-level row of that name of a kind without a section (sysctl). Its
 * field is the struct profile. */

struct kind_row {
	const struct profile_key *k;
	size_t kind; /* index in change_kinds[] */
};

/* The n-th row (0-based), in change_kinds[] order, of the kinds' keys
 * under section (NULL: the top-level rows); false past the last. */
static bool kinds_row_any(const char *section, size_t n, struct kind_row *ret)
{
	for (size_t i = 0; i < n_change_kinds; i++) {
		const struct change_kind *c = change_kinds[i];

		if (!c->keys || (section ? !c->profile_section || !streq(c->profile_section, section)
					 : c->profile_section != NULL))
			continue;
		for (const struct profile_key *k = c->keys; k->name; k++)
			if (n-- == 0) {
				*ret = (struct kind_row){k, i};
				return true;
			}
	}
	return false;
}

/* The row named name under section (NULL: top level). */
static bool kinds_find(const char *section, const char *name, struct kind_row *ret)
{
	for (size_t n = 0; kinds_row_any(section, n, ret); n++)
		if (streq(ret->k->name, name))
			return true;
	return false;
}

/* The n-th row of the kinds' keys under the KT_KINDS row ph in the
 * section's order: the names ph lists first (the published order of the
 * format, which the effective profile's JSON, and so its hash, keeps),
 * then every other kind's key in change_kinds[] order. */
static bool kinds_row(const struct profile_key *ph, size_t n, struct kind_row *ret)
{
	for (const char *const *name = ph->names; name && *name; name++)
		if (kinds_find(ph->name, *name, ret) && n-- == 0)
			return true;
	for (size_t i = 0; kinds_row_any(ph->name, i, ret); i++)
		if (!(ph->names && strv_contains((char *const *)ph->names, ret->k->name)) && n-- == 0)
			return true;
	return false;
}

static void *kind_field(const struct profile *p, const struct kind_row *row)
{
	return (char *)p->kind_wants[row->kind] + row->k->offset;
}

static bool kinds_is_set(const struct profile_key *ph, const void *f)
{
	const struct profile *p = f;
	struct kind_row row;

	if (kinds_find(NULL, ph->name, &row))
		return field_is_set(row.k, kind_field(p, &row));
	for (size_t n = 0; kinds_row(ph, n, &row); n++)
		if (field_is_set(row.k, kind_field(p, &row)))
			return true;
	return false;
}

static void kinds_unset(const struct profile_key *ph, void *f)
{
	struct profile *p = f;
	struct kind_row row;

	if (kinds_find(NULL, ph->name, &row)) {
		field_unset(row.k, kind_field(p, &row));
		return;
	}
	for (size_t n = 0; kinds_row(ph, n, &row); n++)
		field_unset(row.k, kind_field(p, &row));
}

/* Is anything of this key set (for a section: any key below it)? Every
 * field type starts with its `bool set`. */
static bool field_is_set(const struct profile_key *k, const void *f)
{
	if (k->type == KT_SECTION) {
		for (const struct profile_key *c = k->children; c->name; c++)
			if (field_is_set(c, (const char *)f + c->offset))
				return true;
		return false;
	}
	if (k->type == KT_KINDS)
		return kinds_is_set(k, f);
	if (k->type == KT_OWN)
		return k->codec->is_set(f);
	return field_sizes[k->type] && *(const bool *)f;
}

static void field_unset(const struct profile_key *k, void *f)
{
	const struct profile_key one[] = {*k, {0}};

	if (k->type == KT_SECTION) {
		for (const struct profile_key *c = k->children; c->name; c++)
			field_unset(c, (char *)f + c->offset);
		if (k->enter == taotoken_enter)
			((struct mirror_config *)f)->present = false;
		return;
	}
	if (k->type == KT_KINDS) {
		kinds_unset(k, f);
		return;
	}
	if (k->type == KT_OWN) {
		k->codec->unset(f);
		return;
	}
	field_free(one, (char *)f - k->offset);
	memset(f, 0, field_sizes[k->type]);
}

/* A list of integers, each in the row's range: "weights: [1, 1, 2]". */
static int parse_uints(struct profile_loader *l, const struct profile_key *k,
		       const struct ynode *key _unused_, const struct ynode *v, void *field, const char *path)
{
	struct profile_uints *f = field;
	_cleanup_free_ uint64_t *vals = NULL;
	char epath[KEY_PATH_BUF];

	if (v->kind != YNODE_SEQUENCE)
		return key_expect(l, v, path, "a list of integers");
	if (v->n_items == 0)
		return key_fail(l, v, "%s: the list is empty", path);
	vals = calloc(v->n_items, sizeof(*vals));
	if (!vals)
		return key_fail_oom(l, l->file);
	for (size_t i = 0; i < v->n_items; i++) {
		const struct ynode *e = v->items[i];
		int64_t x = 0;
		int r = key_scalar_integer(e, &x);

		snprintf(epath, sizeof(epath), "%s[%zu]", path, i);
		if (r == -EINVAL)
			return key_expect(l, e, epath, "an integer");
		if (r < 0 || x < k->min || x > k->max)
			return key_fail(l, e, "%s: %s is out of range %" PRId64 "..%" PRId64, epath, e->value,
					k->min, k->max);
		vals[i] = (uint64_t)x;
	}
	free(f->value);
	f->value = TAKE_PTR(vals);
	f->n = v->n_items;
	f->set = true;
	f->at = key_mark(l, v);
	return 0;
}

/* A value of the row's own shape: its codec reads it (keys.h). */
static int parse_own(struct profile_loader *l, const struct profile_key *k, const struct ynode *key _unused_,
		     const struct ynode *v, void *field, const char *path)
{
	return k->codec->parse(l, k, v, field, path);
}

static const parse_fn parsers[_KT_MAX] = {
    [KT_SECTION] = parse_section,
    [KT_FORMAT_VERSION] = parse_format_version,
    [KT_UINT] = parse_uint,
    [KT_SIZE] = parse_size_value,
    [KT_NUMBER] = parse_number,
    [KT_BOOL] = parse_bool,
    [KT_ENUM] = parse_enum,
    [KT_TEXT] = parse_string,
    [KT_NAME] = parse_string,
    [KT_EXTENDS] = parse_extends,
    [KT_VERSION] = parse_string,
    [KT_DRIVER] = parse_string,
    [KT_CPULIST] = parse_string,
    [KT_PEER] = parse_string,
    [KT_URL] = parse_string,
    [KT_ABSPATH] = parse_string,
    [KT_ENVNAME] = parse_string,
    [KT_IFNAMES] = parse_ifnames,
    [KT_SSH_TARGET] = parse_string,
    [KT_COMMAND] = parse_string,
    [KT_PCI] = parse_pci,
    [KT_RUNNERS] = parse_runners,
    [KT_FORBIDDEN] = parse_forbidden,
    [KT_UINTS] = parse_uints,
    [KT_OWN] = parse_own,
};

static int apply_kinds(struct profile_loader *l, const struct profile_key *ph, void *field,
		       const struct ynode *key, const struct ynode *v, const char *path);

/* One key of a mapping: the value v of row k into its field. */
static int apply_key(struct profile_loader *l, const struct profile_key *k, void *field,
		     const struct ynode *key, const struct ynode *v, const char *kpath)
{
	if (k->type == KT_KINDS)
		return apply_kinds(l, k, field, key, v, kpath);
	/* Null removes an inherited value; with nothing inherited it is the
	 * type error it always was. */
	if (key_is_null(v) && k->type != KT_FORMAT_VERSION && field_is_set(k, field)) {
		field_unset(k, field);
		return 0;
	}
	if (l->keep_from && field_sizes[k->type] && field_is_set(k, field) &&
	    ((const struct profile_mark *)((char *)field + mark_offsets[k->type]))->file == l->keep_from)
		return 0;
	return parsers[k->type](l, k, key, v, field, kpath);
}

static int unknown_key(struct profile_loader *l, const struct ynode *key, const char *path, const char *hint)
{
	char buf[64];

	return key_fail(l, key, "unknown key %s%s%s%s%s%s", ynode_quote(key, buf, sizeof(buf)),
			path ? " in " : "", path ? path : "", hint ? " (did you mean \"" : "",
			hint ? hint : "", hint ? "\"?)" : "");
}

static int apply_mapping(struct profile_loader *l, const struct profile_key *table, void *base,
			 const struct ynode *map, const char *path)
{
	char kpath[KEY_PATH_BUF];
	int r;

	for (size_t i = 0; i + 1 < map->n_items; i += 2) {
		const struct ynode *key = map->items[i], *v = map->items[i + 1];
		const struct profile_key *k;

		r = key_check_name(l, map, i);
		if (r < 0)
			return r;
		for (k = table; k->name; k++)
			if (streq(k->name, key->value))
				break;
		if (!k->name)
			return unknown_key(l, key, path,
					   key_closest(key->value, table, sizeof(*table), SIZE_MAX));
		snprintf(kpath, sizeof(kpath), "%s%s%s", path ? path : "", path ? "." : "", k->name);
		r = apply_key(l, k, (char *)base + k->offset, key, v, kpath);
		if (r < 0)
			return r;
	}
	return 0;
}

/* A KT_KINDS key: the kind's own top-level row, or a mapping of the
 * kinds' keys of the section. */
static int apply_kinds(struct profile_loader *l, const struct profile_key *ph, void *field,
		       const struct ynode *key, const struct ynode *v, const char *path)
{
	struct profile *p = field;
	const char *names[128];
	char kpath[KEY_PATH_BUF];
	struct kind_row row;
	size_t n = 0;
	int r;

	if (kinds_find(NULL, ph->name, &row))
		return apply_key(l, row.k, kind_field(p, &row), key, v, path);
	if (key_is_null(v) && field_is_set(ph, p)) {
		field_unset(ph, p);
		return 0;
	}
	if (v->kind != YNODE_MAPPING)
		return key_expect(l, v, path, "a mapping");
	for (size_t i = 0; i + 1 < v->n_items; i += 2) {
		const struct ynode *sk = v->items[i], *sv = v->items[i + 1];

		r = key_check_name(l, v, i);
		if (r < 0)
			return r;
		if (!kinds_find(ph->name, sk->value, &row)) {
			for (n = 0; n < ARRAY_SIZE(names) - 1 && kinds_row(ph, n, &row); n++)
				names[n] = row.k->name;
			names[n] = NULL;
			return unknown_key(l, sk, path, key_closest(sk->value, names, sizeof(names[0]), n));
		}
		snprintf(kpath, sizeof(kpath), "%s.%s", path, row.k->name);
		r = apply_key(l, row.k, kind_field(p, &row), sk, sv, kpath);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- hooks and checks that span keys ---- */

static void string_clear(struct profile_string *s)
{
	free(s->value);
	*s = (struct profile_string){0};
}

/* match is replaced as a whole: a child that names interfaces must not keep
 * matching its parent's PCI ids. */
static void match_enter(struct profile_loader *l _unused_, void *field, const struct ynode *key _unused_)
{
	struct profile *p = field;

	strv_free(p->match.interfaces.value);
	free(p->match.pci.ids);
	p->match.interfaces = (struct profile_strv){0};
	p->match.pci = (struct profile_pci_list){0};
}

static void taotoken_enter(struct profile_loader *l, void *field, const struct ynode *key)
{
	struct mirror_config *m = field;

	m->present = true;
	m->at = key_mark(l, key);
}

/* After one file: the key source of the mirror is one choice; and a file
 * that points the mirror at a host (base_url) names the key for it too: an
 * inherited key source would send the parent's key to the child's host. */
static int check_mirror_file(struct profile_loader *l, struct mirror_config *m, const char *path)
{
	bool file_here = m->api_key_file.set && m->api_key_file.at.file == l->file;
	bool env_here = m->api_key_env.set && m->api_key_env.at.file == l->file;
	bool url_here = m->base_url.set && m->base_url.at.file == l->file;

	if (url_here && !file_here && !env_here && (m->api_key_file.set || m->api_key_env.set))
		return key_fail_at(l, l->file, m->base_url.at.line, m->base_url.at.column,
				   "%s: base_url set here needs api_key_file or api_key_env in the same file "
				   "(the key inherited from %s is not sent to another host)",
				   path,
				   m->api_key_file.set ? m->api_key_file.at.file : m->api_key_env.at.file);

	if (file_here && env_here) {
		const struct profile_string *later =
		    m->api_key_env.at.line > m->api_key_file.at.line ? &m->api_key_env : &m->api_key_file;
		return key_fail_at(l, l->file, later->at.line, later->at.column,
				   "%s: api_key_file and api_key_env are exclusive (set one)", path);
	}
	if (file_here)
		string_clear(&m->api_key_env);
	if (env_here)
		string_clear(&m->api_key_file);
	return 0;
}

/* The kinds' checks that span their keys (file: NULL for the effective
 * profile). */
static int check_kinds(struct profile_loader *l, struct profile *p, const char *file)
{
	int r;

	for (size_t i = 0; i < n_change_kinds; i++)
		if (change_kinds[i]->profile_check &&
		    (r = change_kinds[i]->profile_check(p->kind_wants[i], file, l->err)) < 0)
			return r;
	return 0;
}

static int check_file(struct profile_loader *l, struct profile *p)
{
	int r = check_kinds(l, p, l->file);

	if (r < 0)
		return r;
	return check_mirror_file(l, &p->mirror, "mirror.taotoken");
}

static int check_mirror_complete(struct profile_loader *l, const struct mirror_config *m, const char *path)
{
	static const struct {
		const char *name;
		size_t offset;
	} required[] = {{"base_url", M(base_url)}, {"model_id", M(model_id)}};

	if (!m->present)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(required); i++)
		if (!((const struct profile_string *)((const char *)m + required[i].offset))->set)
			return key_fail_at(l, m->at.file, m->at.line, m->at.column,
					   "%s: missing required key \"%s\"", path, required[i].name);
	if (!m->api_key_file.set && !m->api_key_env.set)
		return key_fail_at(l, m->at.file, m->at.line, m->at.column,
				   "%s: missing api_key_file or api_key_env (where to read the API key)",
				   path);
	return 0;
}

/* The effective profile, after the whole chain. */
static int check_effective(struct profile_loader *l, struct profile *p, const struct ynode *root)
{
	int r;

	if (!p->name.set)
		return key_fail_at(l, p->files[0], root->line, root->column, "missing required key \"name\"");
	if (!p->peer.ssh.set && (p->peer.ssh_config.set || p->peer.command.set || p->peer.confirm.set)) {
		const struct profile_mark *at = p->peer.ssh_config.set ? &p->peer.ssh_config.at
						: p->peer.command.set  ? &p->peer.command.at
								       : &p->peer.confirm.at;
		return key_fail_at(l, at->file, at->line, at->column,
				   "peer: missing required key \"ssh\" (the peer to tune, [user@]host)");
	}
	r = check_kinds(l, p, NULL);
	if (r < 0)
		return r;
	r = check_mirror_complete(l, &p->mirror, "mirror.taotoken");
	if (r < 0)
		return r;
	return 0;
}

/* ---- files and the extends chain ---- */

/* read_file()'s error for a FIFO, device or socket. */
#define EFTYPE_NOT_REGULAR ENODEV

static int read_file(const char *path, char **ret, size_t *ret_size)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	size_t size = 0;
	struct stat st;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer; anything but
	 * a regular file is refused before it is read. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -EFTYPE_NOT_REGULAR;
	if (st.st_size > PROFILE_MAX_BYTES)
		return -EFBIG;
	buf = malloc(PROFILE_MAX_BYTES + 1);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n = read(fd, buf + size, PROFILE_MAX_BYTES + 1 - size);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		size += (size_t)n;
		if (size > PROFILE_MAX_BYTES)
			return -EFBIG;
	}
	*ret = TAKE_PTR(buf);
	*ret_size = size;
	return 0;
}

struct chain {
	char *canon[PROFILE_MAX_EXTENDS];
	const char *display[PROFILE_MAX_EXTENDS];
	unsigned n;
};

static void chain_done(struct chain *c)
{
	for (unsigned i = 0; i < c->n; i++)
		free(c->canon[i]);
}

static const struct ynode *mapping_get(const struct ynode *map, const char *key)
{
	for (size_t i = 0; i + 1 < map->n_items; i += 2)
		if (map->items[i]->kind == YNODE_SCALAR && streq(map->items[i]->value, key))
			return map->items[i + 1];
	return NULL;
}

/* "dir/child.yaml" + "parent.yaml" -> "dir/parent.yaml". */
static char *parent_path(const char *child, const char *extends)
{
	const char *slash = strrchr(child, '/');

	if (extends[0] == '/' || !slash)
		return strdup(extends);
	return strprintf("%.*s/%s", (int)(slash - child), child, extends);
}

static int parse_tree(struct profile_loader *l, const char *file, const char *data, size_t size,
		      const char *what, struct ynode **ret)
{
	struct ytree_error e = {0};
	struct ynode *root = NULL;
	char buf[64];
	int r;

	r = ytree_parse(data, size, &root, &e);
	if (r == -ENOMEM)
		return key_fail_oom(l, file);
	if (r < 0)
		return key_fail_at(l, file, e.line, e.column, "%s", e.message);
	if (!root)
		return key_fail_at(l, file, 0, 0, "empty file (%s starts with \"version: 1\")", what);
	if (root->kind != YNODE_MAPPING) {
		r = key_fail_at(l, file, root->line, root->column,
				"expected a mapping at the top level, got %s",
				ynode_describe(root, buf, sizeof(buf)));
		ynode_free(root);
		return r;
	}
	*ret = root;
	return 0;
}

static int load_file(struct profile_loader *l, struct profile *p, struct chain *c, const char *display,
		     const char *canon, const char *data, size_t size, struct ynode **ret_root);

static int load_parent(struct profile_loader *l, struct profile *p, struct chain *c, const char *child,
		       const struct ynode *ext)
{
	_cleanup_free_ char *path = NULL, *canon = NULL, *data = NULL, *cycle = NULL;
	_cleanup_ynode_ struct ynode *root = NULL;
	struct stat st;
	size_t size = 0;
	int r;

	path = parent_path(child, ext->value);
	if (!path)
		return key_fail_oom(l, child);
	canon = realpath(path, NULL);
	if (!canon)
		return key_fail(l, ext, "extends: cannot read \"%s\": %s", path, strerror(errno));
	for (unsigned i = 0; i < c->n; i++) {
		if (!streq(c->canon[i], canon))
			continue;
		cycle = strdup("");
		for (unsigned j = i; j < c->n && cycle; j++) {
			char *s = strprintf("%s%s -> ", cycle, c->display[j]);
			free(cycle);
			cycle = s;
		}
		if (!cycle)
			return key_fail_oom(l, child);
		return key_fail(l, ext, "extends: cycle: %s%s", cycle, path);
	}
	if (strv_length(p->files) >= PROFILE_MAX_EXTENDS)
		return key_fail(l, ext, "extends: more than %d files in the chain", PROFILE_MAX_EXTENDS);
	/* A parent must be a regular file: a FIFO or a device named in a
	 * profile would block the loader or read the host. */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return key_fail(l, ext, "extends: cannot read \"%s\": %s", path,
				S_ISDIR(st.st_mode) ? strerror(EISDIR) : "not a regular file");
	r = read_file(path, &data, &size);
	if (r == -EFBIG)
		return key_fail_at(l, path, 0, 0, "file is larger than %d bytes", PROFILE_MAX_BYTES);
	if (r == -ENOMEM)
		return key_fail_oom(l, child);
	if (r < 0)
		return key_fail(l, ext, "extends: cannot read \"%s\": %s", path, strerror(-r));
	return load_file(l, p, c, path, canon, data, size, &root);
}

/* Load one file of the chain into p: its parents first, left to right,
 * then its own keys. c is the path from the named file down to this one
 * (a parent read twice through two branches is no cycle). */
static int load_file(struct profile_loader *l, struct profile *p, struct chain *c, const char *display,
		     const char *canon, const char *data, size_t size, struct ynode **ret_root)
{
	_cleanup_ynode_ struct ynode *root = NULL;
	const struct ynode *ext;
	const char *stable;
	int r;

	r = parse_tree(l, display, data, size, "a profile", &root);
	if (r < 0)
		return r;
	/* The marks of this file's values point to its entry in p->files. */
	if (strv_extend(&p->files, display) < 0)
		return key_fail_oom(l, display);
	stable = p->files[strv_length(p->files) - 1];
	c->canon[c->n] = strdup(canon);
	if (!c->canon[c->n])
		return key_fail_oom(l, display);
	c->display[c->n++] = stable;

	ext = mapping_get(root, "extends");
	if (ext) {
		struct profile_loader sub = {.file = stable, .err = l->err};
		struct profile_strv parents = {0};
		size_t n = ext->kind == YNODE_SEQUENCE ? ext->n_items : 1;

		r = parse_extends(&sub, NULL, NULL, ext, &parents, "extends");
		strv_free(parents.value);
		if (r < 0)
			return r;
		for (size_t i = 0; i < n; i++) {
			r = load_parent(&sub, p, c, stable,
					ext->kind == YNODE_SEQUENCE ? ext->items[i] : ext);
			if (r < 0)
				return r;
		}
	}

	struct profile_loader here = {.file = stable, .err = l->err};
	r = apply_mapping(&here, profile_keys, p, root, NULL);
	if (r < 0)
		return r;
	if (!p->version.set || p->version.at.file != stable)
		return key_fail_at(l, stable, root->line, root->column,
				   "missing required key \"version\" (add \"version: %d\")",
				   PROFILE_FORMAT_VERSION);
	r = check_file(&here, p);
	if (r < 0)
		return r;
	free(c->canon[--c->n]);
	if (ret_root)
		*ret_root = TAKE_PTR(root);
	return 0;
}

/* An empty profile: every kind's wanted state zero. */
static struct profile *profile_new(void)
{
	_cleanup_profile_ struct profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->kind_wants = calloc(n_change_kinds, sizeof(*p->kind_wants));
	if (!p->kind_wants)
		return NULL;
	for (size_t i = 0; i < n_change_kinds; i++) {
		p->kind_wants[i] = calloc(1, change_kinds[i]->want_size ? change_kinds[i]->want_size : 1);
		if (!p->kind_wants[i])
			return NULL;
	}
	return TAKE_PTR(p);
}

static int load_common(const char *data, size_t size, const char *name, const char *canon,
		       struct profile **ret, struct profile_error *err)
{
	_cleanup_profile_ struct profile *p = NULL;
	_cleanup_ynode_ struct ynode *root = NULL;
	_cleanup_(chain_done) struct chain c = {0};
	struct profile_error dummy;
	struct profile_loader l = {.file = name, .err = err ? err : &dummy};
	int r;

	p = profile_new();
	if (!p)
		return key_fail_oom(&l, name);
	r = load_file(&l, p, &c, name, canon, data, size, &root);
	if (r < 0)
		return r;
	/* files[0] is the named file: load_file() appended it first. A
	 * description says what one file does: a parent's would describe the
	 * child wrongly. */
	if (p->description.set && p->description.at.file != p->files[0])
		string_clear(&p->description);
	r = check_effective(&l, p, root);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(p);
	return 0;
}

static int read_error(struct profile_error *err, const char *path, int r)
{
	struct profile_error dummy;
	struct profile_loader l = {.file = path, .err = err ? err : &dummy};

	if (r == -EFBIG)
		return key_fail_at(&l, path, 0, 0, "file is larger than %d bytes", PROFILE_MAX_BYTES);
	if (r == -EFTYPE_NOT_REGULAR)
		return key_fail_at(&l, path, 0, 0, "cannot read: not a regular file");
	key_fail_at(&l, path, 0, 0, "cannot read: %s", strerror(-r));
	return r;
}

int profile_load(const char *path, struct profile **ret, struct profile_error *err)
{
	_cleanup_free_ char *data = NULL, *canon = NULL;
	size_t size = 0;
	int r;

	r = read_file(path, &data, &size);
	if (r < 0)
		return read_error(err, path, r);
	canon = realpath(path, NULL);
	return load_common(data, size, path, canon ? canon : path, ret, err);
}

int profile_load_string(const char *data, size_t size, const char *name, struct profile **ret,
			struct profile_error *err)
{
	_cleanup_free_ char *canon = realpath(name, NULL);

	return load_common(data, size, name, canon ? canon : name, ret, err);
}

/* ---- overlays: a campaign's verify block and sweep values ---- */

int profile_parse_file(const char *path, const char *what, struct ynode **ret, struct profile_error *err)
{
	_cleanup_free_ char *data = NULL;
	struct profile_error dummy;
	struct profile_loader l = {.file = path, .err = err ? err : &dummy};
	size_t size = 0;
	int r;

	r = read_file(path, &data, &size);
	if (r < 0)
		return read_error(err, path, r);
	return parse_tree(&l, path, data, size, what, ret);
}

/* The stable copy of file in p->files (marks point there). */
static const char *files_entry(struct profile *p, const char *file)
{
	for (size_t i = 0; p->files && p->files[i]; i++)
		if (streq(p->files[i], file))
			return p->files[i];
	if (strv_extend(&p->files, file) < 0)
		return NULL;
	return p->files[strv_length(p->files) - 1];
}

int profile_overlay(struct profile *p, const struct ynode *map, const char *section, const char *file,
		    bool keep_own, struct profile_error *err)
{
	struct profile_error dummy;
	struct profile_loader l = {.err = err ? err : &dummy, .keep_from = keep_own ? p->files[0] : NULL};
	const struct profile_key *k;

	l.file = files_entry(p, file);
	if (!l.file)
		return key_fail_oom(&l, file);
	for (k = profile_keys; k->name && !streq(k->name, section); k++)
		;
	if (!k->name || (k->type != KT_SECTION && k->type != KT_KINDS))
		return key_fail_at(&l, l.file, map->line, map->column, "no section \"%s\" in a profile",
				   section);
	if (map->kind != YNODE_MAPPING)
		return key_expect(&l, map, section, "a mapping");
	if (k->type == KT_KINDS)
		return apply_kinds(&l, k, p, map, map, section);
	return apply_mapping(&l, k->children, p, map, section);
}

/* The key at a dotted path ("verify.socket_buffer.send", "link.mtu") and
 * its field in p: 0, -ENOENT no such key, -EISDIR a section. */
static int key_at(const struct profile *p, const char *path, const struct profile_key **ret_k,
		  void **ret_field)
{
	size_t n = strcspn(path, ".");
	const struct profile_key *k = keys_row_named(profile_keys, path, n);

	if (k && k->type == KT_KINDS) {
		int r = kinds_key_at(p, path, ret_k, (const void **)ret_field);

		/* "link": the section of the kinds' keys */
		return r == -ENOENT && !path[n] ? -EISDIR : r;
	}
	return keys_row_at(profile_keys, path, p, ret_k, (const void **)ret_field);
}

int profile_overlay_key(struct profile *p, const char *path, const struct ynode *key,
			const struct ynode *value, const char *file, struct profile_error *err)
{
	struct profile_error dummy;
	struct profile_loader l = {.err = err ? err : &dummy};
	const struct profile_key *k;
	void *field;
	int r;

	l.file = files_entry(p, file);
	if (!l.file)
		return key_fail_oom(&l, file);
	r = key_at(p, path, &k, &field);
	if (r == -EISDIR || (r >= 0 && k->type == KT_OWN && k->codec->not_one_value))
		return key_fail(&l, key, "%s: a section, not one value", path);
	if (r < 0)
		return key_fail(&l, key, "%s: no such profile key", path);
	return parsers[k->type](&l, k, key, value, field, path);
}

const void *profile_key_value(const struct profile *p, const char *path, const struct profile_key **ret_key)
{
	const struct profile_key *k;
	void *field;

	if (key_at(p, path, &k, &field) < 0)
		return NULL;
	if (ret_key)
		*ret_key = k;
	return field;
}

/* Visit the rows of table under prefix (owned by kind, NULL: profile.c),
 * and the kinds' rows under each KT_KINDS row. */
static int walk_table(const struct profile_key *table, const char *prefix, const struct change_kind *kind,
		      profile_key_visit_fn fn, void *userdata);

static int walk_row(const struct profile_key *k, const char *prefix, const struct change_kind *kind,
		    profile_key_visit_fn fn, void *userdata)
{
	char path[KEY_PATH_BUF];
	struct kind_row row;
	int r;

	snprintf(path, sizeof(path), "%s%s%s", prefix ? prefix : "", prefix ? "." : "", k->name);
	if (k->type == KT_KINDS && kinds_find(NULL, k->name, &row))
		return walk_row(row.k, prefix, change_kinds[row.kind], fn, userdata);
	r = fn(path, k, kind, userdata);
	if (r < 0)
		return r;
	if (k->type == KT_SECTION)
		return walk_table(k->children, path, kind, fn, userdata);
	for (size_t n = 0; k->type == KT_KINDS && kinds_row(k, n, &row); n++)
		if ((r = walk_row(row.k, path, change_kinds[row.kind], fn, userdata)) < 0)
			return r;
	return 0;
}

static int walk_table(const struct profile_key *table, const char *prefix, const struct change_kind *kind,
		      profile_key_visit_fn fn, void *userdata)
{
	int r;

	for (const struct profile_key *k = table; k->name; k++)
		if ((r = walk_row(k, prefix, kind, fn, userdata)) < 0)
			return r;
	return 0;
}

int profile_keys_walk(profile_key_visit_fn fn, void *userdata)
{
	return walk_table(profile_keys, NULL, NULL, fn, userdata);
}

bool profile_kind_is_set(const struct profile *p, const struct change_kind *k)
{
	const void *want = kind_want(p, k);

	for (const struct profile_key *key = k->keys; key && key->name; key++)
		if (field_is_set(key, (const char *)want + key->offset))
			return true;
	return false;
}

void profile_kind_unset(struct profile *p, const struct change_kind *k)
{
	char *want = p->kind_wants[change_kind_index(k)];

	for (const struct profile_key *key = k->keys; key && key->name; key++)
		field_unset(key, want + key->offset);
}

/* ---- freeing, JSON, hash, match ---- */

static void free_strv(void *f)
{
	strv_free(((struct profile_strv *)f)->value);
}

static void free_pci(void *f)
{
	free(((struct profile_pci_list *)f)->ids);
}

static void free_string(void *f)
{
	free(((struct profile_string *)f)->value);
}

static void free_uints(void *f)
{
	free(((struct profile_uints *)f)->value);
}

/* What a field of each type owns (sections: their children's). */
static void (*const field_frees[_KT_MAX])(void *f) = {
    [KT_TEXT] = free_string,	   [KT_NAME] = free_string,    [KT_VERSION] = free_string,
    [KT_DRIVER] = free_string,	   [KT_CPULIST] = free_string, [KT_PEER] = free_string,
    [KT_URL] = free_string,	   [KT_ABSPATH] = free_string, [KT_ENVNAME] = free_string,
    [KT_SSH_TARGET] = free_string, [KT_COMMAND] = free_string, [KT_EXTENDS] = free_strv,
    [KT_IFNAMES] = free_strv,	   [KT_RUNNERS] = free_strv,   [KT_PCI] = free_pci,
    [KT_UINTS] = free_uints,
};

static void field_free(const struct profile_key *table, void *base)
{
	for (const struct profile_key *k = table; k->name; k++) {
		void *f = (char *)base + k->offset;

		if (k->type == KT_SECTION)
			field_free(k->children, f);
		else if (k->type == KT_OWN)
			k->codec->unset(f);
		else if (field_frees[k->type])
			field_frees[k->type](f);
	}
}

bool profile_peer_valid(const char *s)
{
	return strlen(s) <= 253 && !check_peer(s);
}

int profile_set_peer(struct profile *p, const char *s)
{
	char *v;

	if (!profile_peer_valid(s))
		return -EINVAL;
	v = strdup(s);
	if (!v)
		return -ENOMEM;
	free(p->verify.peer.value);
	p->verify.peer = (struct profile_string){.set = true, .value = v};
	return 0;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	field_free(profile_keys, p);
	for (size_t i = 0; p->kind_wants && i < n_change_kinds; i++) {
		if (p->kind_wants[i] && change_kinds[i]->keys)
			field_free(change_kinds[i]->keys, p->kind_wants[i]);
		free(p->kind_wants[i]);
	}
	free(p->kind_wants);
	strv_free(p->files);
	free(p);
}

void mirror_config_done(struct mirror_config *c)
{
	if (!c)
		return;
	field_free(taotoken_keys, c);
	free(c->path);
	*c = (struct mirror_config){0};
}

static struct json_object *field_json(const struct profile_key *k, const void *f);

static struct json_object *section_json(const struct profile_key *table, const void *base)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	for (const struct profile_key *k = table; k->name; k++) {
		struct json_object *v = field_json(k, (const char *)base + k->offset);
		if (v)
			json_object_object_add(o, k->name, v);
	}
	if (json_object_object_length(o) == 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *strv_json(char *const *v)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && v && v[i]; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

static struct json_object *uints_json(const struct profile_key *k _unused_, const void *f)
{
	const struct profile_uints *u = f;
	struct json_object *a;

	if (!u->set)
		return NULL;
	a = json_object_new_array();
	for (size_t i = 0; a && i < u->n; i++)
		json_object_array_add(a, json_object_new_uint64(u->value[i]));
	return a;
}

static struct json_object *section_field_json(const struct profile_key *k, const void *f)
{
	return section_json(k->children, f);
}

static struct json_object *uint_json(const struct profile_key *k _unused_, const void *f)
{
	const struct profile_uint *u = f;
	return u->set ? json_object_new_uint64(u->value) : NULL;
}

static struct json_object *number_json(const struct profile_key *k _unused_, const void *f)
{
	const struct profile_double *d = f;
	return d->set ? json_object_new_double(d->value) : NULL;
}

static struct json_object *bool_json(const struct profile_key *k _unused_, const void *f)
{
	const struct profile_bool *b = f;
	return b->set ? json_object_new_boolean(b->value) : NULL;
}

static struct json_object *enum_json(const struct profile_key *k, const void *f)
{
	const struct profile_enum *e = f;
	return e->set ? json_object_new_string(k->names[e->value]) : NULL;
}

static struct json_object *strv_field_json(const struct profile_key *k _unused_, const void *f)
{
	const struct profile_strv *s = f;
	return s->set ? strv_json(s->value) : NULL;
}

static struct json_object *pci_json(const struct profile_key *k _unused_, const void *f)
{
	const struct profile_pci_list *l = f;
	struct json_object *a;

	if (!l->set)
		return NULL;
	a = json_object_new_array();
	for (size_t i = 0; a && i < l->n_ids; i++) {
		char buf[16];
		snprintf(buf, sizeof(buf), "%04x:%04x", l->ids[i].vendor, l->ids[i].device);
		json_object_array_add(a, json_object_new_string(buf));
	}
	return a;
}

static struct json_object *string_json(const struct profile_key *k _unused_, const void *f)
{
	const struct profile_string *s = f;
	return s->set ? json_object_new_string(s->value) : NULL;
}

/* The kinds' keys of a KT_KINDS row: the kind's own row, or an object of
 * the section's keys in change_kinds[] order. */
static struct json_object *kinds_json(const struct profile_key *ph, const void *f)
{
	const struct profile *p = f;
	struct json_object *o;
	struct kind_row row;

	if (kinds_find(NULL, ph->name, &row))
		return field_json(row.k, kind_field(p, &row));
	o = json_object_new_object();
	for (size_t n = 0; o && kinds_row(ph, n, &row); n++) {
		struct json_object *v = field_json(row.k, kind_field(p, &row));
		if (v)
			json_object_object_add(o, row.k->name, v);
	}
	if (o && json_object_object_length(o) == 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* The JSON of a field of each type: NULL when unset (or never shown, like
 * extends and forbidden keys). */
static struct json_object *own_json(const struct profile_key *k, const void *f)
{
	return k->codec->json(f);
}

static struct json_object *(*const field_jsons[_KT_MAX])(const struct profile_key *k, const void *f) = {
    [KT_SECTION] = section_field_json,
    [KT_FORMAT_VERSION] = uint_json,
    [KT_UINT] = uint_json,
    [KT_SIZE] = uint_json,
    [KT_NUMBER] = number_json,
    [KT_BOOL] = bool_json,
    [KT_ENUM] = enum_json,
    [KT_TEXT] = string_json,
    [KT_NAME] = string_json,
    [KT_VERSION] = string_json,
    [KT_DRIVER] = string_json,
    [KT_CPULIST] = string_json,
    [KT_PEER] = string_json,
    [KT_URL] = string_json,
    [KT_ABSPATH] = string_json,
    [KT_ENVNAME] = string_json,
    [KT_SSH_TARGET] = string_json,
    [KT_COMMAND] = string_json,
    [KT_IFNAMES] = strv_field_json,
    [KT_RUNNERS] = strv_field_json,
    [KT_PCI] = pci_json,
    [KT_KINDS] = kinds_json,
    [KT_UINTS] = uints_json,
    [KT_OWN] = own_json,
};

static struct json_object *field_json(const struct profile_key *k, const void *f)
{
	return field_jsons[k->type] ? field_jsons[k->type](k, f) : NULL;
}

int profile_to_json(const struct profile *p, struct json_object **ret)
{
	struct json_object *o = section_json(profile_keys, p);

	if (!o)
		return -ENOMEM; /* version and name are always set */
	*ret = o;
	return 0;
}

int profile_hash(const struct profile *p, char **ret)
{
	struct json_object *o = NULL;
	char hex[SHA256_HEX_LEN + 1];
	const char *s;
	char *h;
	int r;

	r = profile_to_json(p, &o);
	if (r < 0)
		return r;
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!s) {
		json_object_put(o);
		return -ENOMEM;
	}
	sha256_hex(s, strlen(s), hex);
	json_object_put(o);
	h = strdup(hex);
	if (!h)
		return -ENOMEM;
	*ret = h;
	return 0;
}

bool profile_match_default_pci(uint16_t vendor, uint16_t device)
{
	static const uint16_t connectx5[] = {0x1017, 0x1018, 0x1019, 0x101a, 0xa2d2};

	if (vendor != 0x15b3)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(connectx5); i++)
		if (device == connectx5[i])
			return true;
	return false;
}

bool profile_match(const struct profile *p, const char *ifname, uint16_t vendor, uint16_t device)
{
	if (!p->match.interfaces.set && !p->match.pci.set)
		return profile_match_default_pci(vendor, device);
	if (p->match.interfaces.set && ifname && strv_contains(p->match.interfaces.value, ifname))
		return true;
	for (size_t i = 0; p->match.pci.set && i < p->match.pci.n_ids; i++)
		if (p->match.pci.ids[i].vendor == vendor && p->match.pci.ids[i].device == device &&
		    vendor != 0)
			return true;
	return false;
}

char *profile_error_format(const struct profile_error *err)
{
	if (err->line == 0)
		return strprintf("%s: %s", err->file, err->message);
	return strprintf("%s:%u:%u: %s", err->file, err->line, err->column, err->message);
}

int profile_load_exit_code(int r)
{
	switch (r) {
	case -ENOENT:
		return EXIT_NOT_FOUND;
	case -EINVAL:
		return EXIT_INVALID;
	case -EACCES:
	case -EPERM:
		return EXIT_PERMISSION;
	default:
		return r >= 0 ? EXIT_OK : EXIT_ERROR;
	}
}

/* ---- /etc/cx5prof/mirror.yaml ---- */

int mirror_config_load(const char *path, struct mirror_config *ret, struct profile_error *err)
{
	_cleanup_free_ char *data = NULL;
	_cleanup_ynode_ struct ynode *root = NULL;
	struct mirror_config m = {0};
	struct profile_error dummy;
	struct profile_loader l = {.err = err ? err : &dummy};
	size_t size = 0;
	int r;

	r = read_file(path, &data, &size);
	if (r < 0)
		return read_error(err, path, r);
	m.path = strdup(path);
	if (!m.path)
		return key_fail_oom(&l, path);
	l.file = m.path;
	r = parse_tree(&l, m.path, data, size, "a profile", &root);
	if (r >= 0)
		r = apply_mapping(&l, mirror_file_keys, &m, root, NULL);
	if (r >= 0 && !m.present)
		r = key_fail_at(&l, m.path, root->line, root->column, "missing required key \"taotoken\"");
	if (r >= 0)
		r = check_mirror_file(&l, &m, "taotoken");
	if (r >= 0)
		r = check_mirror_complete(&l, &m, "taotoken");
	if (r < 0) {
		mirror_config_done(&m);
		return r;
	}
	*ret = m;
	return 0;
}
