/* test_profile.c: the profile loader: every key, every error message (exact
 * text with line:column), extends, JSON, hash, match, mirror.yaml.
 *
 * Each case is a small YAML document written to p.yaml in a private temp
 * directory (the test chdirs there), loaded with profile_load("p.yaml"). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/stat.h>

#include "base/exitcode.h"
#include "kinds/kinds.h"
#include "kinds/sysctl.h"
#include "os/ethfeatures.h"
#include "profile.h"
#include "unit.h"

/* A change kind's key by its path (the kinds own their fields). */
#define KEY(p, path, type) (*(const type *)profile_key_value((p), (path), NULL))
#define SYSCTLS(p)	   ((const struct profile_sysctls *)profile_key_value((p), "sysctl", NULL))
#define FEATURES(p)	   ((const struct profile_bool *)profile_key_value((p), "link.features", NULL))

static void write_file(const char *path, const char *data, size_t size)
{
	FILE *f = fopen(path, "we");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, size, f), size);
	assert_int_equal(fclose(f), 0);
}

static void write_str(const char *path, const char *s)
{
	write_file(path, s, strlen(s));
}

/* Load text as p.yaml; expect failure with exactly this formatted error. */
static void expect_error_bytes(const char *data, size_t size, const char *expected)
{
	struct profile *p = NULL;
	struct profile_error err = {0};
	char *line;
	int r;

	write_file("p.yaml", data, size);
	r = profile_load("p.yaml", &p, &err);
	line = profile_error_format(&err);
	if (r != -EINVAL || !line || strcmp(line, expected) != 0)
		fail_msg("input:\n%s\nexpected: %s\n     got: %s (r=%d)", data, expected,
			 line ? line : "(null)", r);
	assert_null(p); /* ret is written only on success */
	free(line);
}

static void expect_error(const char *data, const char *expected)
{
	expect_error_bytes(data, strlen(data), expected);
}

static struct profile *load_ok(const char *data)
{
	struct profile *p = NULL;
	struct profile_error err = {0};
	int r;

	write_str("p.yaml", data);
	r = profile_load("p.yaml", &p, &err);
	if (r < 0)
		fail_msg("unexpected error %d: %s:%u:%u: %s", r, err.file, err.line, err.column, err.message);
	assert_non_null(p);
	return p;
}

/* Every error message of the loader, with its position. */
static const struct {
	const char *yaml;
	const char *error;
} error_cases[] = {
    {"version: 1\nname: t\nlink:\n\tmtu: 9000\n", "p.yaml:4:1: invalid YAML: while scanning for the next "
						  "token found character that cannot start any token"},
    {"version: 1\nname: t\nlink:\n  mtu: 9000\n   rings: 1\n",
     "p.yaml:5:9: invalid YAML: mapping values are not allowed in this context"},
    {"version: 1\nname: t\ndescription: \"a\001b\"\n",
     "p.yaml:3:16: invalid YAML: control characters are not allowed (byte 0x01)"},
    {"version: 1\nname: t\ndescription: \"caf\377\"\n",
     "p.yaml:3:18: invalid YAML: invalid leading UTF-8 octet (byte 0xff)"},
    {"version: 1\nname: \"ab\\0cd\"\n", "p.yaml:2:7: a NUL character (\\0) is not allowed in a value"},
    {"version: 1\nname: t\ndescription: \"\355\240\200\"\n",
     "p.yaml:3:15: invalid YAML: invalid Unicode character (U+D800)"},
    {"version: 1\nname: t\n---\nversion: 1\nname: t\n",
     "p.yaml:3:1: only one YAML document per file is supported"},
    {"version: 1\nname: t\nlink: &l {mtu: 9000}\n", "p.yaml:3:7: anchors and aliases are not supported"},
    {"version: 1\nname: t\nlink: {mtu: 9000}\nverify: *l\n",
     "p.yaml:4:9: anchors and aliases are not supported"},
    {"version: 1\nname: t\nlink:\n  mtu: !!int 9000\n",
     "p.yaml:4:8: YAML tags (\"tag:yaml.org,2002:int\") are not supported"},
    {"version: 1\nname: t\nlink: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n",
     "p.yaml:3:38: nesting deeper than 32 levels"},
    {"", "p.yaml: empty file (a profile starts with \"version: 1\")"},
    {"# only a comment\n", "p.yaml: empty file (a profile starts with \"version: 1\")"},
    {"- a\n", "p.yaml:1:1: expected a mapping at the top level, got a list"},
    {"42\n", "p.yaml:1:1: expected a mapping at the top level, got 42"},
    {"name: t\n", "p.yaml:1:1: missing required key \"version\" (add \"version: 1\")"},
    {"version: 1\n", "p.yaml:1:1: missing required key \"name\""},
    {"version: 2\nname: t\n",
     "p.yaml:1:10: version: 2 is not supported (this cx5prof reads profile format version 1)"},
    {"version: \"1\"\nname: t\n", "p.yaml:1:10: version: expected an integer, got \"1\""},
    {"version: 1\nname: t\nnmae: u\n", "p.yaml:3:1: unknown key \"nmae\" (did you mean \"name\"?)"},
    {"version: 1\nname: t\nfoo: 1\n", "p.yaml:3:1: unknown key \"foo\""},
    {"version: 1\nname: t\nname: u\n", "p.yaml:3:1: duplicate key \"name\" (first at 2:1)"},
    {"version: 1\nname: t\n? [a]\n: 1\n", "p.yaml:3:3: mapping keys must be strings, got a list"},
    {"version: 1\nname: t\nmatch: [a]\n", "p.yaml:3:8: match: expected a mapping, got a list"},
    {"version: 1\nname: t\nrequires: 1\n", "p.yaml:3:11: requires: expected a mapping, got 1"},
    {"version: 1\nname: t\nrequires:\n  driver: x\n",
     "p.yaml:4:11: requires.driver: expected a mapping, got \"x\""},
    {"version: 1\nname: t\nrequires:\n  firmware: []\n",
     "p.yaml:4:13: requires.firmware: expected a mapping, got a list"},
    {"version: 1\nname: t\nrequires:\n  link: null\n",
     "p.yaml:4:9: requires.link: expected a mapping, got null"},
    {"version: 1\nname: t\nlink: []\n", "p.yaml:3:7: link: expected a mapping, got a list"},
    {"version: 1\nname: t\nlink:\n  channels: 4\n", "p.yaml:4:13: link.channels: expected a mapping, got 4"},
    {"version: 1\nname: t\nlink:\n  rings: x\n", "p.yaml:4:10: link.rings: expected a mapping, got \"x\""},
    {"version: 1\nname: t\nirq: []\n", "p.yaml:3:6: irq: expected a mapping, got a list"},
    {"version: 1\nname: t\nsysctl: []\n", "p.yaml:3:9: sysctl: expected a mapping, got a list"},
    {"version: 1\nname: t\nverify: 1\n", "p.yaml:3:9: verify: expected a mapping, got 1"},
    {"version: 1\nname: t\nverify:\n  socket_buffer: 4M\n",
     "p.yaml:4:18: verify.socket_buffer: expected a mapping, got \"4M\""},
    {"version: 1\nname: t\nverify:\n  thresholds: []\n",
     "p.yaml:4:15: verify.thresholds: expected a mapping, got a list"},
    {"version: 1\nname: t\nmirror: x\n", "p.yaml:3:9: mirror: expected a mapping, got \"x\""},
    {"version: 1\nname: t\nmirror:\n  taotoken: []\n",
     "p.yaml:4:13: mirror.taotoken: expected a mapping, got a list"},
    {"version: 1\nname: t\nmatch:\n  interface: [a]\n",
     "p.yaml:4:3: unknown key \"interface\" in match (did you mean \"interfaces\"?)"},
    {"version: 1\nname: t\nrequires:\n  drivers: {}\n",
     "p.yaml:4:3: unknown key \"drivers\" in requires (did you mean \"driver\"?)"},
    {"version: 1\nname: t\nrequires:\n  driver: {nam: x}\n",
     "p.yaml:4:12: unknown key \"nam\" in requires.driver (did you mean \"name\"?)"},
    {"version: 1\nname: t\nrequires:\n  firmware: {version: \"1\"}\n",
     "p.yaml:4:14: unknown key \"version\" in requires.firmware"},
    {"version: 1\nname: t\nrequires:\n  link: {sped: 1}\n",
     "p.yaml:4:10: unknown key \"sped\" in requires.link (did you mean \"speed\"?)"},
    {"version: 1\nname: t\nlink:\n  mtuu: 9000\n",
     "p.yaml:4:3: unknown key \"mtuu\" in link (did you mean \"mtu\"?)"},
    {"version: 1\nname: t\nlink:\n  channels: {combine: 1}\n",
     "p.yaml:4:14: unknown key \"combine\" in link.channels (did you mean \"combined\"?)"},
    {"version: 1\nname: t\nlink:\n  rings: {rxx: 1}\n",
     "p.yaml:4:11: unknown key \"rxx\" in link.rings (did you mean \"rx\"?)"},
    {"version: 1\nname: t\nirq:\n  polcy: cpulist\n",
     "p.yaml:4:3: unknown key \"polcy\" in irq (did you mean \"policy\"?)"},
    {"version: 1\nname: t\nverify:\n  peers: x\n",
     "p.yaml:4:3: unknown key \"peers\" in verify (did you mean \"peer\"?)"},
    {"version: 1\nname: t\nverify:\n  socket_buffer: {sned: 1}\n",
     "p.yaml:4:19: unknown key \"sned\" in verify.socket_buffer (did you mean \"send\"?)"},
    {"version: 1\nname: t\nverify:\n  thresholds: {loss: 1}\n",
     "p.yaml:4:16: unknown key \"loss\" in verify.thresholds (did you mean \"loss_percent\"?)"},
    {"version: 1\nname: t\nmirror:\n  taotokn: {}\n",
     "p.yaml:4:3: unknown key \"taotokn\" in mirror (did you mean \"taotoken\"?)"},
    {"version: 1\nname: t\nmirror:\n  taotoken:\n    base_url: https://taotoken.net/api\n    modelid: m\n",
     "p.yaml:6:5: unknown key \"modelid\" in mirror.taotoken (did you mean \"model_id\"?)"},
    {"version: 1\nname: t\nlink:\n  mtu: 70000\n", "p.yaml:4:8: link.mtu: 70000 is out of range 68..65535"},
    {"version: 1\nname: t\nlink:\n  mtu: 67\n", "p.yaml:4:8: link.mtu: 67 is out of range 68..65535"},
    {"version: 1\nname: t\nlink:\n  mtu: \"9000\"\n",
     "p.yaml:4:8: link.mtu: expected an integer, got \"9000\""},
    {"version: 1\nname: t\nlink:\n  mtu: 9000.0\n", "p.yaml:4:8: link.mtu: expected an integer, got 9000.0"},
    {"version: 1\nname: t\nlink:\n  mtu:\n", "p.yaml:4:7: link.mtu: expected an integer, got null"},
    {"version: 1\nname: t\nlink:\n  mtu: 0x2328\n", "p.yaml:4:8: link.mtu: expected an integer, got 0x2328"},
    {"version: 1\nname: t\nlink:\n  mtu: 09000\n",
     "p.yaml:4:8: link.mtu: expected an integer, got \"09000\""},
    {"version: 1\nname: t\nlink:\n  mtu: -1\n", "p.yaml:4:8: link.mtu: -1 is out of range 68..65535"},
    {"version: 1\nname: t\nlink:\n  mtu: 99999999999999999999\n",
     "p.yaml:4:8: link.mtu: 99999999999999999999 is out of range 68..65535"},
    {"version: 1\nname: t\nlink:\n  mtu: [1]\n", "p.yaml:4:8: link.mtu: expected an integer, got a list"},
    {"version: 1\nname: t\nlink:\n  channels: {combined: 1025}\n",
     "p.yaml:4:24: link.channels.combined: 1025 is out of range 0..1024"},
    {"version: 1\nname: t\nlink:\n  channels: {rx: -1}\n",
     "p.yaml:4:18: link.channels.rx: -1 is out of range 0..1024"},
    {"version: 1\nname: t\nlink:\n  channels: {tx: 2000}\n",
     "p.yaml:4:18: link.channels.tx: 2000 is out of range 0..1024"},
    {"version: 1\nname: t\nlink:\n  rings: {rx: 0}\n",
     "p.yaml:4:15: link.rings.rx: 0 is out of range 1..65536"},
    {"version: 1\nname: t\nlink:\n  rings: {tx: 65537}\n",
     "p.yaml:4:15: link.rings.tx: 65537 is out of range 1..65536"},
    {"version: 1\nname: t\nrequires:\n  link: {speed: 9}\n",
     "p.yaml:4:17: requires.link.speed: 9 is out of range 10..800000"},
    {"version: 1\nname: t\nrequires:\n  link: {speed: 800001}\n",
     "p.yaml:4:17: requires.link.speed: 800001 is out of range 10..800000"},
    {"version: 1\nname: t\nverify:\n  duration: 0\n",
     "p.yaml:4:13: verify.duration: 0 is out of range 1..3600"},
    {"version: 1\nname: t\nverify:\n  duration: 3601\n",
     "p.yaml:4:13: verify.duration: 3601 is out of range 1..3600"},
    {"version: 1\nname: t\nverify:\n  message_size: 65508\n",
     "p.yaml:4:17: verify.message_size: 65508 is out of range 1..65507"},
    {"version: 1\nname: t\nverify:\n  streams: 0\n", "p.yaml:4:12: verify.streams: 0 is out of range 1..64"},
    {"version: 1\nname: t\nverify:\n  streams: 65\n",
     "p.yaml:4:12: verify.streams: 65 is out of range 1..64"},
    {"version: 1\nname: t\nverify:\n  port: 65536\n",
     "p.yaml:4:9: verify.port: 65536 is out of range 1..65535"},
    {"version: 1\nname: t\nverify:\n  socket_buffer: {send: 4X}\n",
     "p.yaml:4:25: verify.socket_buffer.send: expected a size (bytes, or a number with K, M or G), got "
     "\"4X\""},
    {"version: 1\nname: t\nverify:\n  socket_buffer: {receive: 0}\n",
     "p.yaml:4:28: verify.socket_buffer.receive: 0 is out of range 1..2147483647"},
    {"version: 1\nname: t\nverify:\n  socket_buffer: {send: 2G}\n",
     "p.yaml:4:25: verify.socket_buffer.send: 2G is out of range 1..2147483647"},
    {"version: 1\nname: t\nverify:\n  socket_buffer: {send: 99999999999999999999G}\n",
     "p.yaml:4:25: verify.socket_buffer.send: 99999999999999999999G is out of range 1..2147483647"},
    {"version: 1\nname: t\nverify:\n  socket_buffer: {send: {a: 1}}\n",
     "p.yaml:4:25: verify.socket_buffer.send: expected a size (bytes, or a number with K, M or G), got a "
     "mapping"},
    {"version: 1\nname: t\nverify:\n  socket_buffer: {send: true}\n",
     "p.yaml:4:25: verify.socket_buffer.send: expected a size (bytes, or a number with K, M or G), got true"},
    {"version: 1\nname: t\nverify:\n  thresholds: {throughput_mbps: 0}\n",
     "p.yaml:4:33: verify.thresholds.throughput_mbps: 0 must be greater than 0"},
    {"version: 1\nname: t\nverify:\n  thresholds: {throughput_mbps: -5}\n",
     "p.yaml:4:33: verify.thresholds.throughput_mbps: -5 must be greater than 0"},
    {"version: 1\nname: t\nverify:\n  thresholds: {throughput_mbps: 1000001}\n",
     "p.yaml:4:33: verify.thresholds.throughput_mbps: 1000001 is out of range 0..1000000"},
    {"version: 1\nname: t\nverify:\n  thresholds: {loss_percent: 100.5}\n",
     "p.yaml:4:30: verify.thresholds.loss_percent: 100.5 is out of range 0..100"},
    {"version: 1\nname: t\nverify:\n  thresholds: {irq_planned_percent: -1}\n",
     "p.yaml:4:37: verify.thresholds.irq_planned_percent: -1 is out of range 0..100"},
    {"version: 1\nname: t\nverify:\n  thresholds: {irq_max_cpu_percent: 101}\n",
     "p.yaml:4:37: verify.thresholds.irq_max_cpu_percent: 101 is out of range 0..100"},
    {"version: 1\nname: t\nverify:\n  thresholds: {softirq_max_percent: \"90\"}\n",
     "p.yaml:4:37: verify.thresholds.softirq_max_percent: expected a number, got \"90\""},
    {"version: 1\nname: t\nverify:\n  thresholds: {loss_percent: 1e3}\n",
     "p.yaml:4:30: verify.thresholds.loss_percent: expected a number, got \"1e3\""},
    {"version: 1\nname: t\nverify:\n  thresholds: {loss_percent: 05}\n",
     "p.yaml:4:30: verify.thresholds.loss_percent: expected a number, got 05"},
    {"version: 1\nname: t\nverify:\n  thresholds: {loss_percent: .}\n",
     "p.yaml:4:30: verify.thresholds.loss_percent: expected a number, got \".\""},
    {"version: 1\nname: t\nverify:\n  gso: yes\n", "p.yaml:4:8: verify.gso: expected true or false, got yes"},
    {"version: 1\nname: t\nverify:\n  gso: \"false\"\n",
     "p.yaml:4:8: verify.gso: expected true or false, got \"false\""},
    {"version: 1\nname: t\nverify:\n  gso: 1\n", "p.yaml:4:8: verify.gso: expected true or false, got 1"},
    {"version: 1\nname: 12\n", "p.yaml:2:7: name: expected a string, got 12 (put it in quotes)"},
    {"version: 1\nname: true\n", "p.yaml:2:7: name: expected a string, got true (put it in quotes)"},
    {"version: 1\nname: null\n", "p.yaml:2:7: name: expected a string, got null"},
    {"version: 1\nname: 2024-01-01\n",
     "p.yaml:2:7: name: expected a string, got 2024-01-01 (put it in quotes)"},
    {"version: 1\nname: [a]\n", "p.yaml:2:7: name: expected a string, got a list"},
    {"version: 1\nname: \"\"\n", "p.yaml:2:7: name: must not be empty"},
    {"version: 1\nname: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
     "p.yaml:2:7: name: longer than 64 characters"},
    {"version: 1\nname: Big\n", "p.yaml:2:7: name: \"Big\" is not a valid name (a-z, 0-9, '.', '_', '-', "
				"starting with a letter or digit)"},
    {"version: 1\nname: -x\n", "p.yaml:2:7: name: \"-x\" is not a valid name (a-z, 0-9, '.', '_', '-', "
			       "starting with a letter or digit)"},
    {"version: 1\nname: \"a b\"\n", "p.yaml:2:7: name: \"a b\" is not a valid name (a-z, 0-9, '.', '_', '-', "
				    "starting with a letter or digit)"},
    {"version: 1\nname: t\nrequires:\n  driver: {name: \"mlx5 core\"}\n",
     "p.yaml:4:18: requires.driver.name: \"mlx5 core\" is not a driver name (letters, digits, '.', '_', "
     "'-')"},
    {"version: 1\nname: t\nrequires:\n  driver: {name: "
     "\"mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm\"}\n",
     "p.yaml:4:18: requires.driver.name: longer than 64 characters"},
    {"version: 1\nname: t\nrequires:\n  driver: {min_version: 5.2}\n",
     "p.yaml:4:25: requires.driver.min_version: expected a string, got 5.2 (put it in quotes)"},
    {"version: 1\nname: t\nrequires:\n  driver: {min_version: \"5.2-rc1\"}\n",
     "p.yaml:4:25: requires.driver.min_version: \"5.2-rc1\" is not a version (numbers separated by '.', '-' "
     "or '_', like \"5.2-2.0.7\")"},
    {"version: 1\nname: t\nrequires:\n  firmware: {min_version: \"v16\"}\n",
     "p.yaml:4:27: requires.firmware.min_version: \"v16\" is not a version (numbers separated by '.', '-' or "
     "'_', like \"5.2-2.0.7\")"},
    {"version: 1\nname: t\nrequires:\n  firmware: {min_version: \"16.1 (A\"}\n",
     "p.yaml:4:27: requires.firmware.min_version: \"16.1 (A\" is not a version (numbers separated by '.', "
     "'-' or '_', like \"5.2-2.0.7\")"},
    {"version: 1\nname: t\nirq:\n  policy: cpulist\n  cpulist: \"\"\n",
     "p.yaml:5:12: irq.cpulist: must not be empty"},
    {"version: 1\nname: t\nirq:\n  policy: cpulist\n  cpulist: \"1-\"\n",
     "p.yaml:5:12: irq.cpulist: \"1-\" is not a CPU list (like \"8-15,24-31\")"},
    {"version: 1\nname: t\nirq:\n  policy: cpulist\n  cpulist: \"3-1\"\n",
     "p.yaml:5:12: irq.cpulist: \"3-1\" has a reversed range or a CPU above 8191"},
    {"version: 1\nname: t\nirq:\n  policy: cpulist\n  cpulist: 9000\n",
     "p.yaml:5:12: irq.cpulist: \"9000\" has a reversed range or a CPU above 8191"},
    {"version: 1\nname: t\nirq:\n  exclude_cpus: \"0 1\"\n",
     "p.yaml:4:17: irq.exclude_cpus: \"0 1\" is not a CPU list (like \"8-15,24-31\")"},
    {"version: 1\nname: t\nirq:\n  exclude_cpus: 1.5\n",
     "p.yaml:4:17: irq.exclude_cpus: expected a string, got 1.5 (put it in quotes)"},
    {"version: 1\nname: t\nverify:\n  peer: \"a..b\"\n",
     "p.yaml:4:9: verify.peer: \"a..b\" is not an IP address or a host name"},
    {"version: 1\nname: t\nverify:\n  peer: \"-peer\"\n",
     "p.yaml:4:9: verify.peer: \"-peer\" is not an IP address or a host name"},
    {"version: 1\nname: t\nverify:\n  peer: 10.0.0.256\n",
     "p.yaml:4:9: verify.peer: \"10.0.0.256\" is not an IP address or a host name"},
    {"version: 1\nname: t\nverify:\n  peer: \"fe80::1%eth0\"\n",
     "p.yaml:4:9: verify.peer: \"fe80::1%eth0\" is not an IP address or a host name"},
    {"version: 1\nname: t\nverify:\n  peer: "
     "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"\n",
     "p.yaml:4:9: verify.peer: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...\" is not an IP address or a "
     "host name"},
    {"version: 1\nname: t\nmirror:\n  taotoken:\n    base_url: x\n",
     "p.yaml:5:15: mirror.taotoken.base_url: \"x\" is not an http:// or https:// URL"},
    {"version: 1\nname: t\nmirror:\n  taotoken:\n    base_url: \"https://\"\n",
     "p.yaml:5:15: mirror.taotoken.base_url: \"https://\" is not an http:// or https:// URL"},
    {"version: 1\nname: t\nmirror:\n  taotoken:\n    base_url: \"https://a b\"\n",
     "p.yaml:5:15: mirror.taotoken.base_url: \"https://a b\" is not an http:// or https:// URL"},
    {"version: 1\nname: t\nmirror:\n  taotoken:\n    api_key_file: key\n",
     "p.yaml:5:19: mirror.taotoken.api_key_file: \"key\" is not an absolute path"},
    {"version: 1\nname: t\nmirror:\n  taotoken:\n    api_key_env: \"A-B\"\n",
     "p.yaml:5:18: mirror.taotoken.api_key_env: \"A-B\" is not an environment variable name "
     "([A-Za-z_][A-Za-z0-9_]*)"},
    {"version: 1\nname: t\nmirror:\n  taotoken:\n    model_id: \"\"\n",
     "p.yaml:5:15: mirror.taotoken.model_id: must not be empty"},
    {"version: 1\nname: t\nmirror:\n  taotoken:\n    task: \"\"\n",
     "p.yaml:5:11: mirror.taotoken.task: must not be empty"},
    {"version: 1\nname: t\nmirror:\n  taotoken:\n    api_key: sk-1\n",
     "p.yaml:5:5: mirror.taotoken.api_key: not allowed: an API key is never written in a file cx5prof reads "
     "as configuration: put it in a file only root can read and set api_key_file, or set api_key_env"},
    {"version: 1\nname: t\nirq:\n  policy: numa\n",
     "p.yaml:4:11: irq.policy: \"numa\" is not one of numa-local, cpulist (did you mean \"numa-local\"?)"},
    {"version: 1\nname: t\nirq:\n  policy: round-robin\n",
     "p.yaml:4:11: irq.policy: \"round-robin\" is not one of numa-local, cpulist"},
    {"version: 1\nname: t\nirq:\n  irqbalance: stopp\n",
     "p.yaml:4:15: irq.irqbalance: \"stopp\" is not one of stop, ban, leave (did you mean \"stop\"?)"},
    {"version: 1\nname: t\nirq:\n  irqbalance: off\n",
     "p.yaml:4:15: irq.irqbalance: expected a string, got off (put it in quotes)"},
    {"version: 1\nname: t\nrequires:\n  link: {duplex: Full}\n",
     "p.yaml:4:18: requires.link.duplex: \"Full\" is not one of half, full (did you mean \"full\"?)"},
    {"version: 1\nname: t\nverify:\n  test: udp_stream\n",
     "p.yaml:4:9: verify.test: \"udp_stream\" is not one of UDP_STREAM"},
    {"version: 1\nname: t\nverify:\n  runner: iperf\n",
     "p.yaml:4:11: verify.runner: \"iperf\" is not one of netperf, iperf3, builtin (did you mean "
     "\"iperf3\"?)"},
    {"version: 1\nname: t\nverify:\n  runner: {a: 1}\n",
     "p.yaml:4:11: verify.runner: expected a runner or a list of runners, got a mapping"},
    {"version: 1\nname: t\nverify:\n  runner: [netperf, 3]\n",
     "p.yaml:4:21: verify.runner[1]: expected a string, got 3 (put it in quotes)"},
    {"version: 1\nname: t\nverify:\n  runner: []\n", "p.yaml:4:11: verify.runner: the list is empty"},
    {"version: 1\nname: t\nverify:\n  runner: [builtin, builtin]\n",
     "p.yaml:4:21: verify.runner[1]: \"builtin\" is listed twice"},
    {"version: 1\nname: t\nmatch:\n  interfaces: []\n", "p.yaml:4:15: match.interfaces: the list is empty"},
    {"version: 1\nname: t\nmatch:\n  interfaces: ens1f0\n",
     "p.yaml:4:15: match.interfaces: expected a list of interface names, got \"ens1f0\""},
    {"version: 1\nname: t\nmatch:\n  interfaces: [a, a]\n",
     "p.yaml:4:19: match.interfaces[1]: \"a\" is listed twice"},
    {"version: 1\nname: t\nmatch:\n  interfaces: [\"a/b\"]\n",
     "p.yaml:4:16: match.interfaces[0]: \"a/b\" is not a valid interface name (1..15 bytes, no '/', ':' or "
     "whitespace, not \".\" or \"..\")"},
    {"version: 1\nname: t\nmatch:\n  interfaces: [\".\"]\n",
     "p.yaml:4:16: match.interfaces[0]: \".\" is not a valid interface name (1..15 bytes, no '/', ':' or "
     "whitespace, not \".\" or \"..\")"},
    {"version: 1\nname: t\nmatch:\n  interfaces: [\"a:1\"]\n",
     "p.yaml:4:16: match.interfaces[0]: \"a:1\" is not a valid interface name (1..15 bytes, no '/', ':' or "
     "whitespace, not \".\" or \"..\")"},
    {"version: 1\nname: t\nmatch:\n  interfaces: [\"a b\"]\n",
     "p.yaml:4:16: match.interfaces[0]: \"a b\" is not a valid interface name (1..15 bytes, no '/', ':' or "
     "whitespace, not \".\" or \"..\")"},
    {"version: 1\nname: t\nmatch:\n  interfaces: [\"0123456789abcdef\"]\n",
     "p.yaml:4:16: match.interfaces[0]: \"0123456789abcdef\" is not a valid interface name (1..15 bytes, no "
     "'/', ':' or whitespace, not \".\" or \"..\")"},
    {"version: 1\nname: t\nmatch:\n  interfaces: [{a: 1}]\n",
     "p.yaml:4:16: match.interfaces[0]: expected a string, got a mapping"},
    {"version: 1\nname: t\nmatch:\n  pci: \"15b3:1017\"\n",
     "p.yaml:4:8: match.pci: expected a list of PCI vendor:device ids, got \"15b3:1017\""},
    {"version: 1\nname: t\nmatch:\n  pci: [\"15b3:101\"]\n",
     "p.yaml:4:9: match.pci[0]: \"15b3:101\" is not a PCI vendor:device id (like \"15b3:1017\")"},
    {"version: 1\nname: t\nmatch:\n  pci: [\"15b3:10170\"]\n",
     "p.yaml:4:9: match.pci[0]: \"15b3:10170\" is not a PCI vendor:device id (like \"15b3:1017\")"},
    {"version: 1\nname: t\nmatch:\n  pci: [\"15g3:1017\"]\n",
     "p.yaml:4:9: match.pci[0]: \"15g3:1017\" is not a PCI vendor:device id (like \"15b3:1017\")"},
    {"version: 1\nname: t\nmatch:\n  pci: [\"15b3:1017\", \"15b3:1017\"]\n",
     "p.yaml:4:22: match.pci[1]: \"15b3:1017\" is listed twice"},
    {"version: 1\nname: t\nsysctl:\n  net.core.rmem_mx: 1\n",
     "p.yaml:4:3: unknown sysctl \"net.core.rmem_mx\" (did you mean \"net.core.rmem_max\"?)"},
    {"version: 1\nname: t\nsysctl:\n  kernel.shmmax: 1\n",
     "p.yaml:4:3: unknown sysctl \"kernel.shmmax\" (cx5prof manages net.core.rmem_max, net.core.wmem_max, "
     "net.core.rmem_default, net.core.wmem_default, net.core.netdev_max_backlog, net.core.netdev_budget, "
     "net.core.netdev_budget_usecs, net.core.busy_read, net.core.busy_poll, net.ipv4.udp_mem, "
     "net.ipv4.udp_rmem_min, net.ipv4.ipfrag_high_thresh)"},
    {"version: 1\nname: t\nsysctl:\n  net.ipv4.udp_mem: 1\n",
     "p.yaml:4:21: sysctl.net.ipv4.udp_mem: expected a list of 3 numbers (pages), got 1"},
    {"version: 1\nname: t\nsysctl:\n  [a]: 1\n", "p.yaml:4:3: mapping keys must be strings, got a list"},
    {"version: 1\nname: t\nsysctl:\n  net.core.rmem_max: 1K\n",
     "p.yaml:4:22: sysctl.net.core.rmem_max: 1K is out of range 4096..2147483647"},
    {"version: 1\nname: t\nsysctl:\n  net.core.rmem_max: \">= 3G\"\n",
     "p.yaml:4:22: sysctl.net.core.rmem_max: 3G is out of range 4096..2147483647"},
    {"version: 1\nname: t\nsysctl:\n  net.core.netdev_max_backlog: 0\n",
     "p.yaml:4:32: sysctl.net.core.netdev_max_backlog: 0 is out of range 1..2147483647"},
    {"version: 1\nname: t\nsysctl:\n  net.core.rmem_max: \">=\"\n",
     "p.yaml:4:22: sysctl.net.core.rmem_max: expected a number, a size like 4M or a floor like \">= 4M\", "
     "got \">=\""},
    {"version: 1\nname: t\nsysctl:\n  net.core.rmem_max: \"<= 4M\"\n",
     "p.yaml:4:22: sysctl.net.core.rmem_max: expected a number, a size like 4M or a floor like \">= 4M\", "
     "got \"<= 4M\""},
    {"version: 1\nname: t\nsysctl:\n  net.core.rmem_max: [1]\n",
     "p.yaml:4:22: sysctl.net.core.rmem_max: expected a number, a size like 4M or a floor like \">= 4M\", "
     "got a list"},
    {"version: 1\nname: t\nsysctl:\n  net.core.wmem_default: -1\n",
     "p.yaml:4:26: sysctl.net.core.wmem_default: -1 is out of range 4096..2147483647"},
    {"version: 1\nname: t\nsysctl:\n  net.core.rmem_max: 4M\n  net.core.rmem_max: 4M\n",
     "p.yaml:5:3: duplicate key \"net.core.rmem_max\" (first at 4:3)"},
    {"version: 1\nname: t\nirq:\n  cpulist: \"1\"\n",
     "p.yaml:4:12: irq.cpulist: only used with \"policy: cpulist\""},
    {"version: 1\nname: t\nirq:\n  policy: numa-local\n  cpulist: \"1\"\n",
     "p.yaml:5:12: irq.cpulist: only used with \"policy: cpulist\""},
    {"version: 1\nname: t\nirq:\n  policy: cpulist\n",
     "p.yaml:4:11: irq.policy: cpulist needs irq.cpulist (the CPUs to spread the IRQs over)"},
    {"version: 1\nname: t\nmirror:\n  taotoken:\n    base_url: https://taotoken.net/api\n    model_id: m\n",
     "p.yaml:4:3: mirror.taotoken: missing api_key_file or api_key_env (where to read the API key)"},
    {"version: 1\nname: t\nmirror:\n  taotoken:\n    base_url: https://taotoken.net/api\n    api_key_env: "
     "K\n",
     "p.yaml:4:3: mirror.taotoken: missing required key \"model_id\""},
    {"version: 1\nname: t\nmirror:\n  taotoken:\n    model_id: m\n    api_key_env: K\n",
     "p.yaml:4:3: mirror.taotoken: missing required key \"base_url\""},
    {"version: 1\nname: t\nmirror:\n  taotoken:\n    base_url: https://taotoken.net/api\n    model_id: m\n   "
     " api_key_env: K\n    api_key_file: /k\n",
     "p.yaml:8:19: mirror.taotoken: api_key_file and api_key_env are exclusive (set one)"},
    {"version: 1\nname: t\nmirror:\n  taotoken:\n    base_url: https://taotoken.net/api\n    model_id: m\n   "
     " api_key_file: /k\n    api_key_env: K\n",
     "p.yaml:8:18: mirror.taotoken: api_key_file and api_key_env are exclusive (set one)"},
};

static void test_error_messages(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(error_cases); i++)
		expect_error(error_cases[i].yaml, error_cases[i].error);
}

static char *repeat(const char *head, char c, size_t n, const char *tail)
{
	size_t h = strlen(head), t = strlen(tail);
	char *s = malloc(h + n + t + 1);

	assert_non_null(s);
	memcpy(s, head, h);
	memset(s + h, c, n);
	memcpy(s + h + n, tail, t + 1);
	return s;
}

static void test_limits(void **state)
{
	char *s;
	size_t n = 10001 * 2 + 64, o;
	(void)state;

	/* Strings: lengths in characters. */
	s = repeat("version: 1\nname: t\ndescription: ", 'd', 1025, "\n");
	expect_error(s, "p.yaml:3:14: description: longer than 1024 characters");
	free(s);
	s = repeat("version: 1\nname: t\ndescription: \"", 'd', 1024, "\"\n");
	profile_free(load_ok(s));
	free(s);
	s = repeat("version: 1\nname: t\nmirror:\n  taotoken:\n    note: ", 'n', 1025, "\n");
	expect_error(s, "p.yaml:5:11: mirror.taotoken.note: longer than 1024 characters");
	free(s);

	/* More than YTREE_MAX_NODES nodes. */
	s = malloc(n + 64);
	assert_non_null(s);
	o = (size_t)sprintf(s, "version: 1\nname: t\nx: [");
	for (int i = 0; i < 10001; i++)
		o += (size_t)sprintf(s + o, "%s1", i ? "," : "");
	sprintf(s + o, "]\n");
	expect_error(s, "p.yaml:3:19991: too many YAML nodes (more than 10000)");
	free(s);

	/* Over 1 MiB: rejected before parsing, no line. */
	s = repeat("version: 1\nname: t\ndescription: \"", 'x', PROFILE_MAX_BYTES, "\"\n");
	expect_error(s, "p.yaml: file is larger than 1048576 bytes");
	free(s);
}

static void test_nul_and_utf8(void **state)
{
	static const char nul[] = "version: 1\nname: t\ndescription: \"a\0b\"\n";
	static const char bad_lead[] = "version: 1\nname: t\ndescription: \"\xff\"\n";
	static const char utf8_ok[] = "version: 1\nname: t\ndescription: \"caf\xc3\xa9 \xe2\x9c\x93\"\n";
	struct profile *p;
	(void)state;

	expect_error_bytes(nul, sizeof(nul) - 1,
			   "p.yaml:3:16: invalid YAML: control characters are not allowed (byte 0x00)");
	expect_error_bytes(bad_lead, sizeof(bad_lead) - 1,
			   "p.yaml:3:15: invalid YAML: invalid leading UTF-8 octet (byte 0xff)");
	p = load_ok(utf8_ok);
	assert_string_equal(p->description.value, "caf\xc3\xa9 \xe2\x9c\x93");
	profile_free(p);
}

static const char every_key[] = "# yaml-language-server: $schema=../schemas/profile.schema.json\n"
				"version: 1\n"
				"name: every-key\n"
				"description: \"all keys\"\n"
				"match:\n"
				"  interfaces: [ens1f0, ens1f1]\n"
				"  pci: [\"15b3:1017\", \"15B3:A2D2\"]\n"
				"requires:\n"
				"  driver: {name: mlx5_core, min_version: \"5.2-2.0.7\"}\n"
				"  firmware: {min_version: \"16.29.1030 (MT_0000000080)\"}\n"
				"  link: {speed: 25000, duplex: full}\n"
				"link:\n"
				"  mtu: 9000\n"
				"  channels: {combined: 16, rx: 0, tx: 2}\n"
				"  rings: {rx: 8192, tx: 4096}\n"
				"irq:\n"
				"  policy: cpulist\n"
				"  cpulist: \"8-15,24-31\"\n"
				"  exclude_cpus: 0\n"
				"  irqbalance: ban\n"
				"sysctl:\n"
				"  net.core.rmem_max: \">= 4M\"\n"
				"  net.core.wmem_max: 4194304\n"
				"  net.core.rmem_default: \"262144\"\n"
				"  net.core.wmem_default: 256k\n"
				"  net.core.netdev_max_backlog: \">=250000\"\n"
				"verify:\n"
				"  peer: 198.18.0.2\n"
				"  runner: [iperf3, builtin]\n"
				"  test: UDP_STREAM\n"
				"  duration: 10\n"
				"  message_size: 8000\n"
				"  socket_buffer: {send: 4M, receive: 1G}\n"
				"  streams: 4\n"
				"  port: 5201\n"
				"  gso: true\n"
				"  thresholds:\n"
				"    throughput_mbps: 23000.5\n"
				"    loss_percent: 0.5\n"
				"    irq_planned_percent: 90\n"
				"    irq_max_cpu_percent: 50\n"
				"    softirq_max_percent: .5\n"
				"mirror:\n"
				"  taotoken:\n"
				"    base_url: https://taotoken.net/api\n"
				"    api_key_file: /etc/cx5prof/taotoken.key\n"
				"    model_id: \"model-1\"\n"
				"    task: cx5prof-rounds\n"
				"    note: \"rack 3\"\n";

#define assert_uint_field(f, v, l, c)                                                                        \
	do {                                                                                                 \
		assert_true((f).set);                                                                        \
		assert_int_equal((f).value, (v));                                                            \
		assert_int_equal((f).at.line, (l));                                                          \
		assert_int_equal((f).at.column, (c));                                                        \
		assert_string_equal((f).at.file, "p.yaml");                                                  \
	} while (0)

static void test_every_key(void **state)
{
	struct profile *p;
	(void)state;

	p = load_ok(every_key);
	assert_string_equal(p->files[0], "p.yaml");
	assert_null(p->files[1]);
	assert_uint_field(p->version, 1, 2, 10);
	assert_string_equal(p->name.value, "every-key");
	assert_string_equal(p->description.value, "all keys");
	assert_false(p->extends.set);
	assert_string_equal(p->match.interfaces.value[0], "ens1f0");
	assert_string_equal(p->match.interfaces.value[1], "ens1f1");
	assert_null(p->match.interfaces.value[2]);
	assert_int_equal(p->match.pci.n_ids, 2);
	assert_int_equal(p->match.pci.ids[0].vendor, 0x15b3);
	assert_int_equal(p->match.pci.ids[0].device, 0x1017);
	assert_int_equal(p->match.pci.ids[1].device, 0xa2d2);
	assert_string_equal(p->requires.driver_name.value, "mlx5_core");
	assert_string_equal(p->requires.driver_min_version.value, "5.2-2.0.7");
	assert_string_equal(p->requires.firmware_min_version.value, "16.29.1030 (MT_0000000080)");
	assert_uint_field(p->requires.link_speed, 25000, 11, 17);
	assert_int_equal(p->requires.link_duplex.value, PROFILE_DUPLEX_FULL);
	assert_uint_field(KEY(p, "link.mtu", struct profile_uint), 9000, 13, 8);
	assert_int_equal(KEY(p, "link.channels.combined", struct profile_uint).value, 16);
	assert_true(KEY(p, "link.channels.rx", struct profile_uint).set);
	assert_int_equal(KEY(p, "link.channels.rx", struct profile_uint).value, 0);
	assert_int_equal(KEY(p, "link.channels.tx", struct profile_uint).value, 2);
	/* a kind's key by its path, for the profile and for the kinds; a
	 * section or a path below a value is no key */
	assert_ptr_equal(kinds_key_value(p, "link.channels.combined", NULL),
			 profile_key_value(p, "link.channels.combined", NULL));
	assert_int_equal(kinds_key_uint(p, "link.channels.combined")->value, 16);
	assert_null(profile_key_value(p, "link", NULL));
	assert_null(profile_key_value(p, "link.channels", NULL));
	assert_null(kinds_key_value(p, "link.channels", NULL));
	assert_null(profile_key_value(p, "link.mtu.x", NULL));
	assert_null(kinds_key_value(p, "sysctl.net.core.rmem_max", NULL));
	assert_non_null(kinds_key_value(p, "sysctl", NULL));
	assert_int_equal(KEY(p, "link.rings.rx", struct profile_uint).value, 8192);
	assert_int_equal(KEY(p, "link.rings.tx", struct profile_uint).value, 4096);
	assert_string_equal(kinds_key_enum_name(p, "irq.policy"), "cpulist");
	assert_string_equal(KEY(p, "irq.cpulist", struct profile_string).value, "8-15,24-31");
	assert_string_equal(KEY(p, "irq.exclude_cpus", struct profile_string).value, "0");
	assert_string_equal(kinds_key_enum_name(p, "irq.irqbalance"), "ban");
	assert_int_equal(SYSCTLS(p)->n, 5);
	assert_int_equal(SYSCTLS(p)->v[0].key, SYSCTL_RMEM_MAX);
	assert_string_equal(SYSCTLS(p)->v[0].name, "net.core.rmem_max");
	assert_int_equal(SYSCTLS(p)->v[0].op, PROFILE_SYSCTL_FLOOR);
	assert_int_equal(SYSCTLS(p)->v[0].value.v[0], 4194304);
	assert_int_equal(SYSCTLS(p)->v[0].at.line, 22);
	assert_int_equal(SYSCTLS(p)->v[0].at.column, 22);
	assert_int_equal(SYSCTLS(p)->v[1].key, SYSCTL_WMEM_MAX);
	assert_int_equal(SYSCTLS(p)->v[1].op, PROFILE_SYSCTL_EXACT);
	assert_int_equal(SYSCTLS(p)->v[1].value.v[0], 4194304);
	assert_int_equal(SYSCTLS(p)->v[2].key, SYSCTL_RMEM_DEFAULT);
	assert_int_equal(SYSCTLS(p)->v[2].value.v[0], 262144);
	assert_int_equal(SYSCTLS(p)->v[3].key, SYSCTL_WMEM_DEFAULT);
	assert_int_equal(SYSCTLS(p)->v[3].value.v[0], 262144);
	assert_int_equal(SYSCTLS(p)->v[4].key, SYSCTL_NETDEV_MAX_BACKLOG);
	assert_int_equal(SYSCTLS(p)->v[4].op, PROFILE_SYSCTL_FLOOR);
	assert_int_equal(SYSCTLS(p)->v[4].value.v[0], 250000);
	assert_string_equal(p->verify.peer.value, "198.18.0.2");
	assert_string_equal(p->verify.runners.value[0], "iperf3");
	assert_string_equal(p->verify.runners.value[1], "builtin");
	assert_null(p->verify.runners.value[2]);
	assert_int_equal(p->verify.test.value, PROFILE_TEST_UDP_STREAM);
	assert_int_equal(p->verify.duration.value, 10);
	assert_int_equal(p->verify.message_size.value, 8000);
	assert_int_equal(p->verify.socket_send.value, 4194304);
	assert_int_equal(p->verify.socket_receive.value, 1073741824);
	assert_int_equal(p->verify.streams.value, 4);
	assert_int_equal(p->verify.port.value, 5201);
	assert_true(p->verify.gso.set);
	assert_true(p->verify.gso.value);
	assert_true(p->verify.throughput_mbps.value == 23000.5);
	assert_true(p->verify.loss_percent.value == 0.5);
	assert_true(p->verify.irq_planned_percent.value == 90);
	assert_true(p->verify.irq_max_cpu_percent.value == 50);
	assert_true(p->verify.softirq_max_percent.value == 0.5);
	assert_true(p->mirror.present);
	assert_int_equal(p->mirror.at.line, 44);
	assert_string_equal(p->mirror.base_url.value, "https://taotoken.net/api");
	assert_string_equal(p->mirror.api_key_file.value, "/etc/cx5prof/taotoken.key");
	assert_false(p->mirror.api_key_env.set);
	assert_string_equal(p->mirror.model_id.value, "model-1");
	assert_string_equal(p->mirror.task.value, "cx5prof-rounds");
	assert_string_equal(p->mirror.note.value, "rack 3");
	profile_free(p);
}

/* link.features, link.coalesce, link.pause: positions, kernel names, and
 * the merge of a child's features with its parent's. */
static void test_link_offloads(void **state)
{
	struct profile *p;
	(void)state;

	p = load_ok(
	    "version: 1\nname: t\nlink:\n  features:\n    rx-gro: off\n    rx-udp-gro-forwarding: true\n"
	    "  coalesce: {adaptive_rx: false, rx_usecs: 8}\n  pause: {tx: true}\n");
	assert_true(FEATURES(p)[ETH_FEATURE_GRO].set);
	assert_false(FEATURES(p)[ETH_FEATURE_GRO].value);
	assert_int_equal(FEATURES(p)[ETH_FEATURE_GRO].at.line, 5);
	assert_int_equal(FEATURES(p)[ETH_FEATURE_GRO].at.column, 13);
	assert_true(FEATURES(p)[ETH_FEATURE_UDP_GRO_FORWARDING].value);
	assert_false(FEATURES(p)[ETH_FEATURE_LRO].set);
	assert_true(KEY(p, "link.coalesce.adaptive_rx", struct profile_bool).set);
	assert_false(KEY(p, "link.coalesce.adaptive_rx", struct profile_bool).value);
	assert_uint_field(KEY(p, "link.coalesce.rx_usecs", struct profile_uint), 8, 7, 44);
	assert_false(KEY(p, "link.coalesce.tx_usecs", struct profile_uint).set);
	assert_true(KEY(p, "link.pause.tx", struct profile_bool).set &&
		    KEY(p, "link.pause.tx", struct profile_bool).value);
	assert_false(KEY(p, "link.pause.rx", struct profile_bool).set);
	profile_free(p);

	write_str("parent.yaml", "version: 1\nname: parent\nlink:\n  features: {gro: on, lro: off}\n");
	p = load_ok("version: 1\nextends: parent.yaml\nlink:\n  features: {gro: off}\n");
	assert_false(FEATURES(p)[ETH_FEATURE_GRO].value);
	assert_string_equal(FEATURES(p)[ETH_FEATURE_GRO].at.file, "p.yaml");
	assert_true(FEATURES(p)[ETH_FEATURE_LRO].set); /* the parent's, kept */
	assert_string_equal(FEATURES(p)[ETH_FEATURE_LRO].at.file, "parent.yaml");
	profile_free(p);

	expect_error("version: 1\nname: t\nlink:\n  features: [gro]\n",
		     "p.yaml:4:13: link.features: expected a mapping, got a list");
	expect_error("version: 1\nname: t\nlink:\n  features:\n    gro: \"off\"\n",
		     "p.yaml:5:10: link.features.gro: expected on or off, got \"off\"");
	expect_error("version: 1\nname: t\nlink:\n  pause: {autoneg: 1}\n",
		     "p.yaml:4:20: link.pause.autoneg: expected true or false, got 1");
}

/* The sysctls of the one table (procsys.h): udp_mem's three values, the
 * ranges the kernel accepts. */
static void test_sysctl_table(void **state)
{
	struct profile *p;
	(void)state;

	p = load_ok("version: 1\nname: t\nsysctl:\n  net.ipv4.udp_mem: [1, 2, 2]\n  net.core.busy_read: 0\n"
		    "  net.ipv4.udp_rmem_min: \">= 8K\"\n");
	assert_int_equal(SYSCTLS(p)->n, 3);
	assert_int_equal(SYSCTLS(p)->v[0].key, SYSCTL_UDP_MEM);
	assert_int_equal(SYSCTLS(p)->v[0].op, PROFILE_SYSCTL_EXACT);
	assert_int_equal(SYSCTLS(p)->v[0].value.n, 3);
	assert_true(SYSCTLS(p)->v[0].value.v[0] == 1 && SYSCTLS(p)->v[0].value.v[1] == 2 &&
		    SYSCTLS(p)->v[0].value.v[2] == 2);
	assert_int_equal(SYSCTLS(p)->v[0].at.line, 4);
	assert_int_equal(SYSCTLS(p)->v[1].key, SYSCTL_BUSY_READ);
	assert_int_equal(SYSCTLS(p)->v[1].value.v[0], 0);
	assert_int_equal(SYSCTLS(p)->v[2].op, PROFILE_SYSCTL_FLOOR);
	assert_int_equal(SYSCTLS(p)->v[2].value.v[0], 8192);
	profile_free(p);

	expect_error(
	    "version: 1\nname: t\nsysctl:\n  net.ipv4.udp_mem: [1, 2]\n",
	    "p.yaml:4:21: sysctl.net.ipv4.udp_mem: expected a list of 3 numbers (pages), got a list");
	expect_error("version: 1\nname: t\nsysctl:\n  net.ipv4.udp_mem: [1, 2K, 3]\n",
		     "p.yaml:4:25: sysctl.net.ipv4.udp_mem: expected a number (pages), got \"2K\"");
	expect_error("version: 1\nname: t\nsysctl:\n  net.ipv4.udp_mem: [0, 2, 3]\n",
		     "p.yaml:4:22: sysctl.net.ipv4.udp_mem: 0 is out of range 1..9223372036854775807");
	expect_error("version: 1\nname: t\nsysctl:\n  net.ipv4.udp_rmem_min: 0\n",
		     "p.yaml:4:26: sysctl.net.ipv4.udp_rmem_min: 0 is out of range 1..2147483647");
	expect_error("version: 1\nname: t\nsysctl:\n  net.core.netdev_budget: 0\n",
		     "p.yaml:4:27: sysctl.net.core.netdev_budget: 0 is out of range 1..2147483647");
	expect_error(
	    "version: 1\nname: t\nsysctl:\n  net.core.busy_pol: 50\n",
	    "p.yaml:4:3: unknown sysctl \"net.core.busy_pol\" (did you mean \"net.core.busy_poll\"?)");
}

static void test_partial(void **state)
{
	struct profile *p;
	(void)state;

	/* Only what is written is set. */
	p = load_ok("version: 1\nname: t\nlink:\n  mtu: 1500\n");
	assert_true(KEY(p, "link.mtu", struct profile_uint).set);
	assert_false(KEY(p, "link.channels.combined", struct profile_uint).set);
	assert_false(KEY(p, "link.rings.rx", struct profile_uint).set);
	assert_false(KEY(p, "irq.policy", struct profile_enum).set);
	assert_false(KEY(p, "irq.exclude_cpus", struct profile_string).set);
	assert_false(KEY(p, "irq.irqbalance", struct profile_enum).set);
	assert_false(p->requires.driver_name.set);
	assert_false(p->verify.gso.set);
	assert_false(p->verify.runners.set);
	assert_false(p->mirror.present);
	assert_false(p->match.interfaces.set);
	assert_false(p->match.pci.set);
	assert_int_equal(SYSCTLS(p)->n, 0);
	assert_null(SYSCTLS(p)->v);
	profile_free(p);

	/* A runner as one string; booleans; quoted keys; empty sections. */
	p = load_ok(
	    "version: 1\nname: t\nverify:\n  runner: \"netperf\"\n  gso: FALSE\n\"link\": {}\nirq:\n  "
	    "exclude_cpus: \"\"\n");
	assert_string_equal(p->verify.runners.value[0], "netperf");
	assert_null(p->verify.runners.value[1]);
	assert_true(p->verify.gso.set);
	assert_false(p->verify.gso.value);
	assert_string_equal(KEY(p, "irq.exclude_cpus", struct profile_string).value, "");
	profile_free(p);

	/* IPv6 peer and a host name; an http URL. */
	p = load_ok("version: 1\nname: t\nverify:\n  peer: \"fd00::2\"\n");
	assert_string_equal(p->verify.peer.value, "fd00::2");
	profile_free(p);
	p = load_ok(
	    "version: 1\nname: t\nverify:\n  peer: peer-1.lab.example\nmirror:\n  taotoken:\n    base_url: "
	    "http://127.0.0.1:8080\n    api_key_env: K\n    model_id: m\n");
	assert_string_equal(p->verify.peer.value, "peer-1.lab.example");
	assert_string_equal(p->mirror.api_key_env.value, "K");
	profile_free(p);
}

static void test_extends(void **state)
{
	struct profile *p;
	struct profile_error err = {0};
	(void)state;

	assert_int_equal(mkdir("sub", 0755), 0);
	write_str("sub/parent.yaml",
		  "version: 1\nname: parent\nmatch:\n  pci: [\"15b3:1017\"]\nlink:\n  mtu: 9000\n"
		  "  rings: {rx: 4096}\nirq:\n  policy: cpulist\n  cpulist: \"8-15\"\n"
		  "sysctl:\n  net.core.rmem_max: 4M\n  net.core.wmem_max: 4M\n"
		  "verify:\n  runner: [netperf, iperf3]\n"
		  "mirror:\n  taotoken:\n    base_url: https://x\n    api_key_file: /k\n    model_id: m\n");
	write_str("sub/child.yaml", "version: 1\nextends: parent.yaml\nmatch:\n  interfaces: [ens1f0]\n"
				    "link:\n  rings: {tx: 2048}\nirq:\n  policy: numa-local\n"
				    "sysctl:\n  net.core.rmem_max: \">= 8M\"\n  net.core.rmem_default: 1M\n"
				    "verify:\n  runner: builtin\nmirror:\n  taotoken:\n    api_key_env: K\n");
	write_str("top.yaml", "version: 1\nname: top\nextends: sub/child.yaml\nlink:\n  mtu: 1500\n");

	assert_int_equal(profile_load("top.yaml", &p, &err), 0);
	assert_string_equal(p->files[0], "top.yaml");
	assert_string_equal(p->files[1], "sub/child.yaml");
	assert_string_equal(p->files[2], "sub/parent.yaml");
	assert_null(p->files[3]);
	assert_string_equal(p->name.value, "top");
	assert_string_equal(p->extends.value[0], "sub/child.yaml");
	assert_null(p->extends.value[1]);
	/* scalars replace, maps merge */
	assert_int_equal(KEY(p, "link.mtu", struct profile_uint).value, 1500);
	assert_string_equal(KEY(p, "link.mtu", struct profile_uint).at.file, "top.yaml");
	assert_int_equal(KEY(p, "link.rings.rx", struct profile_uint).value, 4096);
	assert_string_equal(KEY(p, "link.rings.rx", struct profile_uint).at.file, "sub/parent.yaml");
	assert_int_equal(KEY(p, "link.rings.rx", struct profile_uint).at.line, 7);
	assert_int_equal(KEY(p, "link.rings.tx", struct profile_uint).value, 2048);
	/* match replaced as a whole */
	assert_true(p->match.interfaces.set);
	assert_false(p->match.pci.set);
	/* policy numa-local drops the inherited cpulist */
	assert_string_equal(kinds_key_enum_name(p, "irq.policy"), "numa-local");
	assert_false(KEY(p, "irq.cpulist", struct profile_string).set);
	/* sysctl merged by name, overridden in place */
	assert_int_equal(SYSCTLS(p)->n, 3);
	assert_int_equal(SYSCTLS(p)->v[0].key, SYSCTL_RMEM_MAX);
	assert_int_equal(SYSCTLS(p)->v[0].op, PROFILE_SYSCTL_FLOOR);
	assert_int_equal(SYSCTLS(p)->v[0].value.v[0], 8388608);
	assert_int_equal(SYSCTLS(p)->v[1].key, SYSCTL_WMEM_MAX);
	assert_int_equal(SYSCTLS(p)->v[2].key, SYSCTL_RMEM_DEFAULT);
	/* lists replace */
	assert_string_equal(p->verify.runners.value[0], "builtin");
	assert_null(p->verify.runners.value[1]);
	/* one key source */
	assert_true(p->mirror.api_key_env.set);
	assert_false(p->mirror.api_key_file.set);
	assert_string_equal(p->mirror.base_url.value, "https://x");
	profile_free(p);

	/* The name is inherited. */
	assert_int_equal(profile_load("sub/child.yaml", &p, &err), 0);
	assert_string_equal(p->name.value, "parent");
	profile_free(p);

	/* A child that points the mirror at another host must name its own
	 * key source: the parent's key is not sent there. */
	write_str("sub/c3.yaml", "version: 1\nextends: parent.yaml\nmirror:\n  taotoken:\n"
				 "    base_url: https://gw.example/api\n");
	assert_int_equal(profile_load("sub/c3.yaml", &p, &err), -EINVAL);
	{
		char *line = profile_error_format(&err);

		assert_string_equal(line,
				    "sub/c3.yaml:5:15: mirror.taotoken: base_url set here needs api_key_file "
				    "or api_key_env in the same file (the key inherited from sub/parent.yaml "
				    "is not sent to another host)");
		free(line);
	}
	write_str("sub/c4.yaml", "version: 1\nextends: parent.yaml\nmirror:\n  taotoken:\n"
				 "    base_url: https://gw.example/api\n    api_key_env: GW_KEY\n");
	assert_int_equal(profile_load("sub/c4.yaml", &p, &err), 0);
	assert_string_equal(p->mirror.base_url.value, "https://gw.example/api");
	assert_string_equal(p->mirror.api_key_env.value, "GW_KEY");
	assert_false(p->mirror.api_key_file.set);
	profile_free(p);
	/* same host, another model: the parent's key source is kept */
	write_str("sub/c5.yaml",
		  "version: 1\nextends: parent.yaml\nmirror:\n  taotoken:\n    model_id: m2\n");
	assert_int_equal(profile_load("sub/c5.yaml", &p, &err), 0);
	assert_string_equal(p->mirror.api_key_file.value, "/k");
	assert_string_equal(p->mirror.model_id.value, "m2");
	profile_free(p);

	/* A child may change only the cpulist of a cpulist parent. */
	write_str("sub/c2.yaml", "version: 1\nextends: parent.yaml\nirq:\n  cpulist: \"0-3\"\n");
	assert_int_equal(profile_load("sub/c2.yaml", &p, &err), 0);
	assert_string_equal(KEY(p, "irq.cpulist", struct profile_string).value, "0-3");
	assert_string_equal(kinds_key_enum_name(p, "irq.policy"), "cpulist");
	profile_free(p);

	/* Errors: missing parent, cycles, an error inside the parent, a
	 * chain that is too long, a parent without version. */
	expect_error("version: 1\nname: t\nextends: nope.yaml\n",
		     "p.yaml:3:10: extends: cannot read \"nope.yaml\": No such file or directory");
	expect_error("version: 1\nname: t\nextends: p.yaml\n",
		     "p.yaml:3:10: extends: cycle: p.yaml -> p.yaml");
	write_str("sub/a.yaml", "version: 1\nname: a\nextends: b.yaml\n");
	write_str("sub/b.yaml", "version: 1\nname: b\nextends: ../p.yaml\n");
	expect_error("version: 1\nname: t\nextends: sub/a.yaml\n",
		     "sub/b.yaml:3:10: extends: cycle: p.yaml -> sub/a.yaml -> sub/b.yaml -> sub/../p.yaml");
	write_str("sub/bad.yaml", "version: 1\nname: bad\nlink:\n  mtu: 1\n");
	expect_error("version: 1\nname: t\nextends: sub/bad.yaml\n",
		     "sub/bad.yaml:4:8: link.mtu: 1 is out of range 68..65535");
	write_str("sub/nover.yaml", "name: nover\n");
	expect_error("version: 1\nname: t\nextends: sub/nover.yaml\n",
		     "sub/nover.yaml:1:1: missing required key \"version\" (add \"version: 1\")");
	write_str("sub/empty.yaml", "");
	expect_error("version: 1\nname: t\nextends: sub/empty.yaml\n",
		     "sub/empty.yaml: empty file (a profile starts with \"version: 1\")");
	expect_error("version: 1\nname: t\nextends: sub\n",
		     "p.yaml:3:10: extends: cannot read \"sub\": Is a directory");
	/* A parent that is not a regular file is refused before it is opened
	 * (a FIFO would block the loader, a device would read the host). */
	assert_int_equal(mkfifo("sub/fifo.yaml", 0600), 0);
	expect_error("version: 1\nname: t\nextends: sub/fifo.yaml\n",
		     "p.yaml:3:10: extends: cannot read \"sub/fifo.yaml\": not a regular file");
	expect_error("version: 1\nname: t\nextends: /dev/zero\n",
		     "p.yaml:3:10: extends: cannot read \"/dev/zero\": not a regular file");
	for (int i = 0; i < 17; i++) {
		char name[32], text[96];
		snprintf(name, sizeof(name), "sub/l%d.yaml", i);
		if (i < 16)
			snprintf(text, sizeof(text), "version: 1\nname: l%d\nextends: l%d.yaml\n", i, i + 1);
		else
			snprintf(text, sizeof(text), "version: 1\nname: l%d\n", i);
		write_str(name, text);
	}
}

static void test_extends_depth(void **state)
{
	struct profile *p = NULL;
	struct profile_error err = {0};
	char *line;
	(void)state;

	/* 16 files are allowed: p.yaml, l2 .. l16; from l1 it is 17. */
	write_str("p.yaml", "version: 1\nname: t\nextends: sub/l2.yaml\n");
	assert_int_equal(profile_load("p.yaml", &p, &err), 0);
	assert_int_equal(strv_length(p->files), 16);
	profile_free(p);
	p = NULL;
	write_str("p.yaml", "version: 1\nname: t\nextends: sub/l1.yaml\n");
	assert_int_equal(profile_load("p.yaml", &p, &err), -EINVAL);
	line = profile_error_format(&err);
	assert_string_equal(line, "sub/l15.yaml:3:10: extends: more than 16 files in the chain");
	free(line);
}

/* extends: [a, b]: merged left to right, the child last; `~` removes an
 * inherited key; a parent's description is not the child's. */
static void test_extends_list_and_unset(void **state)
{
	struct profile *p;
	struct profile_error err = {0};
	(void)state;

	write_str("la.yaml", "version: 1\nname: la\ndescription: \"parent a\"\nlink:\n  mtu: 9000\n"
			     "  rings: {rx: 4096, tx: 4096}\n  features: {rx-gro: off, lro: off}\n"
			     "sysctl:\n  net.core.rmem_max: 4M\n"
			     "  net.core.wmem_max: 4M\n  net.core.rmem_default: 1M\n"
			     "verify:\n  peer: 198.18.0.2\n  socket_buffer: {send: 4M, receive: 4M}\n"
			     "  thresholds: {loss_percent: 1}\n");
	write_str("lb.yaml", "version: 1\nname: lb\nextends: ld.yaml\nlink:\n  mtu: 1500\n"
			     "verify:\n  duration: 5\n");
	write_str("lc.yaml", "version: 1\nname: lc\nextends: ld.yaml\n");
	write_str("ld.yaml", "version: 1\nname: ld\nirq:\n  irqbalance: leave\n");
	/* lb and lc both extend ld: a diamond, not a cycle */
	write_str("lchild.yaml",
		  "version: 1\nname: lchild\nextends: [la.yaml, lb.yaml, lc.yaml]\n"
		  "link:\n  rings: {tx: ~}\n  features: {lro: ~}\nsysctl:\n  net.core.wmem_max: ~\n"
		  "verify:\n  socket_buffer: ~\n  thresholds:\n");
	assert_int_equal(profile_load("lchild.yaml", &p, &err), 0);
	assert_string_equal(p->extends.value[0], "la.yaml");
	assert_string_equal(p->extends.value[2], "lc.yaml");
	assert_int_equal(strv_length(p->files), 6);
	assert_string_equal(p->files[1], "la.yaml");
	assert_string_equal(p->files[2], "lb.yaml");
	assert_string_equal(p->files[3], "ld.yaml");
	assert_int_equal(KEY(p, "link.mtu", struct profile_uint).value, 1500); /* lb comes after la */
	assert_int_equal(KEY(p, "link.rings.rx", struct profile_uint).value, 4096);
	assert_false(KEY(p, "link.rings.tx", struct profile_uint).set);
	assert_true(FEATURES(p)[ETH_FEATURE_GRO].set);
	assert_false(FEATURES(p)[ETH_FEATURE_LRO].set);
	assert_int_equal(SYSCTLS(p)->n, 2);
	assert_int_equal(SYSCTLS(p)->v[0].key, SYSCTL_RMEM_MAX);
	assert_int_equal(SYSCTLS(p)->v[1].key, SYSCTL_RMEM_DEFAULT);
	assert_false(p->verify.socket_send.set);
	assert_false(p->verify.socket_receive.set);
	assert_false(p->verify.loss_percent.set);
	assert_int_equal(p->verify.duration.value, 5);
	assert_string_equal(p->verify.peer.value, "198.18.0.2");
	assert_string_equal(kinds_key_enum_name(p, "irq.irqbalance"), "leave");
	assert_string_equal(p->name.value, "lchild");
	assert_false(p->description.set);
	profile_free(p);
	/* The named file's own description stays. */
	assert_int_equal(profile_load("la.yaml", &p, &err), 0);
	assert_string_equal(p->description.value, "parent a");
	profile_free(p);

	/* Null with nothing inherited is still the type error; version cannot
	 * be unset; list errors name the element. */
	expect_error("version: 1\nname: t\nlink:\n  mtu: ~\n",
		     "p.yaml:4:8: link.mtu: expected an integer, got null");
	expect_error("version: 1\nname: t\nextends: [la.yaml]\nversion: ~\n",
		     "p.yaml:4:1: duplicate key \"version\" (first at 1:1)");
	expect_error("version: 1\nname: t\nextends: []\n", "p.yaml:3:10: extends: the list is empty");
	expect_error("version: 1\nname: t\nextends: [la.yaml, 7]\n",
		     "p.yaml:3:20: extends[1]: expected a string, got 7 (put it in quotes)");
	expect_error("version: 1\nname: t\nextends: [la.yaml, la.yaml]\n",
		     "p.yaml:3:20: extends[1]: \"la.yaml\" is listed twice");
	expect_error("version: 1\nname: t\nextends: [la.yaml, nope.yaml]\n",
		     "p.yaml:3:20: extends: cannot read \"nope.yaml\": No such file or directory");
	write_str("lcyc.yaml", "version: 1\nname: lcyc\nextends: [la.yaml, p.yaml]\n");
	expect_error("version: 1\nname: t\nextends: [lb.yaml, lcyc.yaml]\n",
		     "lcyc.yaml:3:20: extends: cycle: p.yaml -> lcyc.yaml -> p.yaml");
}

static void test_missing_and_exit_codes(void **state)
{
	struct profile *p = NULL;
	struct profile_error err = {0};
	char *line;
	(void)state;

	assert_int_equal(profile_load("no-such.yaml", &p, &err), -ENOENT);
	assert_null(p);
	line = profile_error_format(&err);
	assert_string_equal(line, "no-such.yaml: cannot read: No such file or directory");
	free(line);
	assert_int_equal(err.line, 0);
	assert_int_equal(profile_load("no-such.yaml", &p, NULL), -ENOENT); /* err is optional */

	assert_int_equal(profile_load_exit_code(0), EXIT_OK);
	assert_int_equal(profile_load_exit_code(-ENOENT), EXIT_NOT_FOUND);
	assert_int_equal(profile_load_exit_code(-EINVAL), EXIT_INVALID);
	assert_int_equal(profile_load_exit_code(-EACCES), EXIT_PERMISSION);
	assert_int_equal(profile_load_exit_code(-EISDIR), EXIT_ERROR);
	assert_int_equal(profile_load_exit_code(-ENOMEM), EXIT_ERROR);
}

static void test_load_string(void **state)
{
	static const char yaml[] = "version: 1\nname: s\nlink: {mtu: 9000}\n";
	struct profile *p = NULL;
	struct profile_error err = {0};
	char *line;
	(void)state;

	assert_int_equal(profile_load_string(yaml, sizeof(yaml) - 1, "mem.yaml", &p, &err), 0);
	assert_string_equal(p->files[0], "mem.yaml");
	assert_int_equal(KEY(p, "link.mtu", struct profile_uint).value, 9000);
	profile_free(p);
	p = NULL;
	/* Not NUL-terminated: size is what counts. */
	assert_int_equal(
	    profile_load_string("version: 1\nname: s\nlink: {mtu: 1}XXXX", 33, "mem.yaml", &p, &err),
	    -EINVAL);
	line = profile_error_format(&err);
	assert_string_equal(line, "mem.yaml:3:13: link.mtu: 1 is out of range 68..65535");
	free(line);
}

static void test_json_and_hash(void **state)
{
	struct profile *p, *q;
	struct json_object *j;
	char *h1, *h2;
	(void)state;

	p = load_ok(
	    "version: 1\nname: j\nmatch:\n  pci: [\"15B3:1017\"]\nlink:\n  mtu: 9000\nirq:\n  irqbalance: "
	    "stop\nsysctl:\n  net.core.rmem_max: \">= 4M\"\n  net.core.wmem_max: 4K\nverify:\n  runner: "
	    "iperf3\n  gso: false\n  socket_buffer: {send: 1M}\n  thresholds: {loss_percent: 0.5}\n"
	    "mirror:\n  taotoken:\n    base_url: https://x\n    api_key_env: K\n    model_id: m\n");
	assert_int_equal(profile_to_json(p, &j), 0);
	assert_string_equal(
	    json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
	    "{\"version\":1,\"name\":\"j\",\"match\":{\"pci\":[\"15b3:1017\"]},\"link\":{\"mtu\":9000},"
	    "\"irq\":{\"irqbalance\":\"stop\"},\"sysctl\":{\"net.core.rmem_max\":\">= 4194304\","
	    "\"net.core.wmem_max\":4096},\"verify\":{\"runner\":[\"iperf3\"],\"socket_buffer\":{"
	    "\"send\":1048576},\"gso\":false,\"thresholds\":{\"loss_percent\":0.5}},\"mirror\":{"
	    "\"taotoken\":{\"base_url\":\"https://x\",\"api_key_env\":\"K\",\"model_id\":\"m\"}}}");
	json_object_put(j);

	/* Equal content, other comments and spelling: equal hash. */
	q = load_ok(
	    "# another comment\nversion: 1\nname: j\nmatch: {pci: [\"15b3:1017\"]}\nlink: {mtu: 9000}\n"
	    "irq: {irqbalance: stop}\nsysctl: {net.core.rmem_max: \">=4194304\", net.core.wmem_max: "
	    "\"4096\"}\n"
	    "verify: {runner: [iperf3], gso: False, socket_buffer: {send: 1024K}, thresholds: {loss_percent: "
	    "0.50}}\nmirror: {taotoken: {base_url: \"https://x\", api_key_env: K, model_id: m}}\n");
	assert_int_equal(profile_hash(p, &h1), 0);
	assert_int_equal(profile_hash(q, &h2), 0);
	assert_int_equal(strlen(h1), 64);
	assert_string_equal(h1, h2);
	free(h2);
	profile_free(q);
	q = load_ok("version: 1\nname: j\nlink: {mtu: 9000}\n");
	assert_int_equal(profile_hash(q, &h2), 0);
	assert_string_not_equal(h1, h2);
	free(h1);
	free(h2);
	profile_free(q);
	profile_free(p);
}

static void test_match(void **state)
{
	struct profile *p;
	(void)state;

	p = load_ok("version: 1\nname: m\n");
	assert_true(profile_match(p, "anything", 0x15b3, 0x1017));
	assert_true(profile_match(p, "x", 0x15b3, 0x1018));
	assert_true(profile_match(p, "x", 0x15b3, 0x1019));
	assert_true(profile_match(p, "x", 0x15b3, 0x101a));
	assert_true(profile_match(p, "x", 0x15b3, 0xa2d2));
	assert_false(profile_match(p, "x", 0x15b3, 0x1015)); /* ConnectX-4 Lx */
	assert_false(profile_match(p, "x", 0x8086, 0x1017));
	assert_false(profile_match(p, "veth0", 0, 0));
	profile_free(p);

	p = load_ok("version: 1\nname: m\nmatch:\n  interfaces: [ens1f0]\n");
	assert_true(profile_match(p, "ens1f0", 0, 0));
	assert_false(profile_match(p, "ens1f1", 0x15b3, 0x1017)); /* no default once match is written */
	profile_free(p);

	p = load_ok("version: 1\nname: m\nmatch:\n  interfaces: [ens1f0]\n  pci: [\"15b3:1019\"]\n");
	assert_true(profile_match(p, "ens1f0", 0, 0));
	assert_true(profile_match(p, "other", 0x15b3, 0x1019));
	assert_false(profile_match(p, "other", 0x15b3, 0x1017));
	profile_free(p);

	/* match: {} means the default again. */
	p = load_ok("version: 1\nname: m\nmatch: {}\n");
	assert_true(profile_match(p, "x", 0x15b3, 0x1017));
	profile_free(p);
}

static void test_enum_strings(void **state)
{
	(void)state;
	assert_string_equal(profile_duplex_to_string(PROFILE_DUPLEX_HALF), "half");
	assert_string_equal(profile_duplex_to_string(PROFILE_DUPLEX_FULL), "full");
	assert_string_equal(profile_verify_test_to_string(PROFILE_TEST_UDP_STREAM), "UDP_STREAM");
	assert_string_equal(profile_sysctl_op_to_string(PROFILE_SYSCTL_EXACT), "exact");
	assert_string_equal(profile_sysctl_op_to_string(PROFILE_SYSCTL_FLOOR), "floor");
	assert_null(profile_sysctl_op_to_string(2));
}

static void expect_mirror_error(const char *yaml, const char *expected)
{
	struct mirror_config m = {0};
	struct profile_error err = {0};
	char *line;

	write_str("mirror.yaml", yaml);
	assert_int_equal(mirror_config_load("mirror.yaml", &m, &err), -EINVAL);
	line = profile_error_format(&err);
	assert_string_equal(line, expected);
	free(line);
	assert_null(m.path);
}

static void test_mirror_config(void **state)
{
	struct mirror_config m = {0};
	struct profile_error err = {0};
	char *line;
	(void)state;

	write_str("mirror.yaml",
		  "# /etc/cx5prof/mirror.yaml\ntaotoken:\n  base_url: https://taotoken.net/api\n"
		  "  api_key_file: /etc/cx5prof/taotoken.key\n  model_id: m1\n  task: t\n  note: n\n");
	assert_int_equal(mirror_config_load("mirror.yaml", &m, &err), 0);
	assert_true(m.present);
	assert_string_equal(m.path, "mirror.yaml");
	assert_string_equal(m.base_url.value, "https://taotoken.net/api");
	assert_string_equal(m.api_key_file.value, "/etc/cx5prof/taotoken.key");
	assert_string_equal(m.api_key_file.at.file, "mirror.yaml");
	assert_int_equal(m.api_key_file.at.line, 4);
	assert_false(m.api_key_env.set);
	assert_string_equal(m.model_id.value, "m1");
	assert_string_equal(m.task.value, "t");
	assert_string_equal(m.note.value, "n");
	mirror_config_done(&m);
	assert_null(m.path);

	expect_mirror_error("taotoken:\n  base_url: https://x\n  api_key_env: K\n",
			    "mirror.yaml:1:1: taotoken: missing required key \"model_id\"");
	expect_mirror_error("taotoken:\n  model_id: m\n  api_key_env: K\n",
			    "mirror.yaml:1:1: taotoken: missing required key \"base_url\"");
	expect_mirror_error(
	    "taotoken:\n  base_url: https://x\n  model_id: m\n",
	    "mirror.yaml:1:1: taotoken: missing api_key_file or api_key_env (where to read the API key)");
	expect_mirror_error(
	    "taotoken:\n  base_url: https://x\n  model_id: m\n  api_key: sk-secret\n",
	    "mirror.yaml:4:3: taotoken.api_key: not allowed: an API key is never written in a file "
	    "cx5prof reads as configuration: put it in a file only root can read and set api_key_file, "
	    "or set api_key_env");
	expect_mirror_error(
	    "taotoken:\n  base_url: https://x\n  model_id: m\n  api_key_env: K\n  api_key_file: /k\n",
	    "mirror.yaml:5:17: taotoken: api_key_file and api_key_env are exclusive (set one)");
	expect_mirror_error(
	    "taotoken:\n  base_url: https://x\n  modl_id: m\n",
	    "mirror.yaml:3:3: unknown key \"modl_id\" in taotoken (did you mean \"model_id\"?)");
	expect_mirror_error("version: 1\n", "mirror.yaml:1:1: unknown key \"version\"");
	expect_mirror_error("{}\n", "mirror.yaml:1:1: missing required key \"taotoken\"");
	expect_mirror_error("", "mirror.yaml: empty file (a profile starts with \"version: 1\")");

	assert_int_equal(mirror_config_load("no-mirror.yaml", &m, &err), -ENOENT);
	line = profile_error_format(&err);
	assert_string_equal(line, "no-mirror.yaml: cannot read: No such file or directory");
	free(line);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_error_messages),
	    cmocka_unit_test(test_limits),
	    cmocka_unit_test(test_nul_and_utf8),
	    cmocka_unit_test(test_every_key),
	    cmocka_unit_test(test_partial),
	    cmocka_unit_test(test_extends),
	    cmocka_unit_test(test_extends_depth),
	    cmocka_unit_test(test_extends_list_and_unset),
	    cmocka_unit_test(test_missing_and_exit_codes),
	    cmocka_unit_test(test_load_string),
	    cmocka_unit_test(test_json_and_hash),
	    cmocka_unit_test(test_match),
	    cmocka_unit_test(test_enum_strings),
	    cmocka_unit_test(test_mirror_config),
	    cmocka_unit_test(test_link_offloads),
	    cmocka_unit_test(test_sysctl_table),
	};
	return cmocka_run_group_tests(tests, unit_enter_tmpdir, unit_leave_tmpdir);
}
