/* profile.h: the profile format v1 (YAML) and its loader.
 *
 * Owns: reading profile files (and /etc/cx5prof/mirror.yaml) into a typed,
 * partial description of the wanted NIC state, resolving `extends` chains,
 * and the exact error text ("file:line:col: message") for bad input. Every
 * key is described by one table row (keys/keys.h: name, type, range, where
 * it goes), in profile.c for the format's own sections, in its kind's file
 * for a setting; README "Profiles" and schemas/profile.schema.json
 * document the same keys with the same ranges.
 * Must never: touch the host (it only reads the named files), log above debug,
 * or guess a value the operator did not write: a field whose `set` is false is
 * not managed by cx5prof.
 *
 * Partial state: each field carries `set` and `at` (where it was written:
 * file, 1-based line and column, for messages like "udp-jumbo.yaml:12:7: mtu
 * 9000 exceeds the device maximum 1500"). With `extends`, the parent is
 * loaded first and the child is applied on top, field by field: mappings
 * merge key by key, scalars and lists replace. Exceptions (documented in
 * README): `match` is replaced as a whole; `mirror.taotoken.api_key_file` and
 * `api_key_env` are one choice (setting one drops the inherited other);
 * setting `irq.policy` to something other than cpulist drops an inherited
 * `irq.cpulist`. */
#ifndef CX5_PROFILE_H
#define CX5_PROFILE_H

#include <json-c/json.h>

#include "base/util.h"
#include "keys/keys.h"

struct change_kind;

#define PROFILE_FORMAT_VERSION 1
#define PROFILE_MAX_BYTES      (1024 * 1024) /* a larger file is rejected unread */
#define PROFILE_MAX_DEPTH      32	     /* nesting of mappings and lists */
#define PROFILE_MAX_NODES      10000	     /* YAML nodes per file */
#define PROFILE_MAX_EXTENDS    16	     /* files in one extends chain */

enum profile_duplex {
	PROFILE_DUPLEX_HALF,
	PROFILE_DUPLEX_FULL,
};

enum profile_verify_test {
	PROFILE_TEST_UDP_STREAM,
};

/* mirror.taotoken in a profile, and the whole of /etc/cx5prof/mirror.yaml.
 * At most one of api_key_file / api_key_env is set. When a profile or
 * mirror file has the section, base_url, model_id and one key source are
 * checked to be present (on the effective profile, after extends). */
struct mirror_config {
	char *path;   /* mirror_config_load(): the file (marks point here); NULL inside a profile */
	bool present; /* the section exists */
	struct profile_mark at;
	struct profile_string base_url;	    /* http:// or https:// URL */
	struct profile_string api_key_file; /* absolute path */
	struct profile_string api_key_env;  /* environment variable name */
	struct profile_string model_id;
	struct profile_string task;
	struct profile_string note;
};

struct profile {
	/* The files read, the named one first, then its parents in the order
	 * read (depth first, left to right; at least one entry). */
	char **files;

	struct profile_uint version; /* always 1 */
	struct profile_string name;  /* required on the effective profile */
	struct profile_string description;
	struct profile_strv extends; /* the parents named in files[0] (not inherited) */

	struct {
		/* Neither set: every ConnectX-5 port (profile_match_default_pci).
		 * Otherwise a port matches when its name is in interfaces OR its
		 * PCI vendor:device is in pci. */
		struct profile_strv interfaces; /* each ifname_valid() */
		struct profile_pci_list pci;
	} match;

	struct {
		struct profile_string driver_name; /* requires.driver.name */
		struct profile_string
		    driver_min_version; /* requires.driver.min_version: MLNX_OFED (version.h) */
		struct profile_string driver_min_kernel; /* requires.driver.min_kernel: inbox driver */
		struct profile_string firmware_min_version;
		struct profile_uint link_speed;	 /* Mb/s */
		struct profile_enum link_duplex; /* enum profile_duplex */
	} requires;

	/* The benchmark peer, tuned too: apply, commit and rollback run there
	 * through the operator's OpenSSH (peerssh.h). */
	struct {
		struct profile_string ssh;	  /* "root@198.18.0.2" */
		struct profile_string ssh_config; /* ssh -F FILE; unset: the user's own */
		struct profile_string command;	  /* the peer's cx5prof; unset: "cx5prof" in its PATH */
		struct profile_uint confirm;	  /* the peer's --confirm seconds, 1..3600 (default 120) */
	} peer;

	/* What the change kinds' keys want (kinds/kinds.h: each kind's keys,
	 * their values in a struct of its own, change_kinds[] order; a kind
	 * reads its own with kind_want(); a kind's key by its path with
	 * kinds_key_value(), any key with profile_key_value()). */
	void **kind_wants;

	struct {
		struct profile_string peer;   /* IPv4/IPv6 literal or hostname */
		struct profile_strv runners;  /* "netperf" | "iperf3" | "builtin", in order of preference */
		struct profile_enum test;     /* enum profile_verify_test */
		struct profile_uint duration; /* seconds, 1..3600 */
		struct profile_uint message_size;   /* bytes, 1..65507 */
		struct profile_uint socket_send;    /* verify.socket_buffer.send, bytes */
		struct profile_uint socket_receive; /* verify.socket_buffer.receive, bytes */
		struct profile_uint streams;	    /* 1..64 */
		struct profile_uint port;	    /* 1..65535 */
		struct profile_bool gso;
		struct profile_bool peer_must_match;	   /* a peer driver/firmware difference fails */
		struct profile_double throughput_mbps;	   /* floor, > 0 */
		struct profile_double loss_percent;	   /* ceiling, 0..100 */
		struct profile_double irq_planned_percent; /* floor, 0..100 */
		struct profile_double irq_max_cpu_percent; /* ceiling, 0..100 */
		struct profile_double softirq_max_percent; /* ceiling, 0..100 */
	} verify;

	struct mirror_config mirror; /* mirror.taotoken */
};

/* Does the profile set any key of change kind k; and unset them all (the
 * kind then changes nothing): the campaign's ablation builds profiles with
 * some of their changes left out. */
bool profile_kind_is_set(const struct profile *p, const struct change_kind *k);
void profile_kind_unset(struct profile *p, const struct change_kind *k);

/* The field of the value key at path ("link.mtu", "irq.policy") and its
 * row; NULL when there is no such value key. For those who read another's
 * key: a kind reads its own through kind_want(); the kinds' keys are
 * found by kinds_key_at() (kinds.h). */
const void *profile_key_value(const struct profile *p, const char *path, const struct profile_key **ret_key);

/* Visit every key row (sections before their children, the kinds' keys
 * under their sections) with its dotted path and the kind that owns it
 * (NULL: a key of the profile's own sections); for `make docs`. Stops at
 * and returns the first negative return of fn. */
typedef int (*profile_key_visit_fn)(const char *path, const struct profile_key *k,
				    const struct change_kind *kind, void *userdata);
int profile_keys_walk(profile_key_visit_fn fn, void *userdata);

/* Load a profile and its extends chain. Returns 0 and *ret, or:
 *   -ENOENT  the named file does not exist (err says so; a missing parent
 *            is -EINVAL with the place of its `extends` line),
 *   -EINVAL  invalid content (syntax, key, type, range, cycle, limits),
 *   -ENOMEM, -EACCES, -EIO, ... reading failed.
 * err (may be NULL) is filled on every failure. */
int profile_load(const char *path, struct profile **ret, struct profile_error *err);

/* The same from memory (fuzzing, tests). name is used in messages and as
 * the base for a relative `extends`. */
int profile_load_string(const char *data, size_t size, const char *name, struct profile **ret,
			struct profile_error *err);

/* Overlays, for campaigns (campaignfile.h): YAML written elsewhere applied on
 * top of a loaded profile with the loader's own rules and messages; file
 * (the campaign file) joins p->files and the new values' marks point to
 * it. profile_overlay() applies map as the profile section `section`
 * ("verify"); with keep_own, a value written in the profile's own file
 * (p->files[0]) is kept and only inherited or unset ones are replaced.
 * profile_overlay_key() sets the one value key at path
 * ("verify.message_size"; errors placed at key). Same error contract as
 * profile_load(); on an error p is partly changed (discard it). */
struct ynode;
int profile_overlay(struct profile *p, const struct ynode *map, const char *section, const char *file,
		    bool keep_own, struct profile_error *err);
int profile_overlay_key(struct profile *p, const char *path, const struct ynode *key,
			const struct ynode *value, const char *file, struct profile_error *err);
/* Read and parse a YAML file under the profile loader's limits (size,
 * nesting, nodes, no anchors or tags): a mapping at the top level. what
 * names the document in the empty-file message ("a campaign"). */
int profile_parse_file(const char *path, const char *what, struct ynode **ret, struct profile_error *err);

/* Replace verify.peer (`verify --peer`, `doctor --peer`: one profile for
 * many hosts, each with its own peer). -EINVAL when s is not an IP address
 * or a host name (the rule the loader applies to verify.peer). */
int profile_set_peer(struct profile *p, const char *s);
bool profile_peer_valid(const char *s);

void profile_free(struct profile *p);
static inline void profile_freep(struct profile **p)
{
	if (*p)
		profile_free(*p);
}
#define _cleanup_profile_ _cleanup_(profile_freep)

/* "file:line:col: message" ("file: message" when line is 0). NULL on ENOMEM. */
char *profile_error_format(const struct profile_error *err);

/* The exit code (exitcode.h) for a profile_load()/mirror_config_load()
 * return value: EXIT_NOT_FOUND for -ENOENT, EXIT_INVALID for -EINVAL,
 * EXIT_PERMISSION for -EACCES/-EPERM, EXIT_ERROR otherwise. */
int profile_load_exit_code(int r);

/* The effective profile as JSON, in the YAML's shape (schemas/profile.schema.json
 * validates it): only set keys; sizes as byte counts; sysctl floors as
 * ">= N"; runners as a list; no `extends` (the chain is in p->files). */
int profile_to_json(const struct profile *p, struct json_object **ret);

/* Content hash of the effective profile for history: SHA-256 (sha256.h) of
 * profile_to_json()'s compact text (JSON_C_TO_STRING_PLAIN |
 * JSON_C_TO_STRING_NOSLASHESCAPE), as 64
 * lowercase hex digits. Equal effective profiles hash equal, whatever files
 * and comments produced them. */
int profile_hash(const struct profile *p, char **ret);

/* Does the profile manage this port? vendor/device 0 when it has no PCI
 * function (veth). See struct profile.match. */
bool profile_match(const struct profile *p, const char *ifname, uint16_t vendor, uint16_t device);

/* The default match: every ConnectX-5 function (15b3:1017, 1018, 1019,
 * 101a, a2d2). */
bool profile_match_default_pci(uint16_t vendor, uint16_t device);

/* enum <-> string ("full", "UDP_STREAM"); NULL out of range. */
const char *profile_duplex_to_string(int v);
const char *profile_verify_test_to_string(int v);

/* /etc/cx5prof/mirror.yaml: a top-level mapping `taotoken:` with the keys of
 * a profile's mirror.taotoken. Same error contract as profile_load(). On
 * success *ret is filled (free with mirror_config_done()); ret->present is
 * true. */
#define MIRROR_CONFIG_DEFAULT_PATH "/etc/cx5prof/mirror.yaml"
int mirror_config_load(const char *path, struct mirror_config *ret, struct profile_error *err);
void mirror_config_done(struct mirror_config *c);

#endif
