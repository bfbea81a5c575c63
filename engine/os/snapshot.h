/* snapshot.h: a host's facts copied into a directory that --sysroot
 * accepts, for planning, showing and checking it somewhere else.
 *
 * Owns: which files a snapshot holds (every /proc and /sys file, the
 * irqbalance configuration under /etc and a sysroot's ethtool/ texts
 * (ethsysroot.h), that a probe reads through the sysroot, recorded as it
 * reads them, never a list kept by hand), the
 * marker file SNAPSHOT_MARKER (what the snapshot is, the link facts read
 * over netlink and ethtool, what could not be read and why), and loading
 * a snapshot: its link facts replace the kernel's and the sysroot turns
 * read-only. Must never: write on the host it reads (only into the new
 * directory), copy a process's environment or command line, keys or
 * anything outside /proc, /sys, that configuration and ethtool/, or write through a
 * link out of the snapshot's directory. */
#ifndef CX5_SNAPSHOT_H
#define CX5_SNAPSHOT_H

#include <json-c/json.h>

#include "base/util.h"

#define SNAPSHOT_MARKER	 "cx5prof-snapshot.json"
#define SNAPSHOT_FORMAT	 "cx5prof-snapshot"
#define SNAPSHOT_VERSION 2 /* 2: each per-port fact names its kind and layout */

struct snapshot_summary {
	size_t files; /* files copied with their contents */
	size_t links; /* network links recorded */
	/* [{"path", "error"}]: what could not be read (or was not copied)
	 * and why; owned by the caller (json_object_put). */
	struct json_object *unreadable;
};

struct probe_fact;
struct probe_facts;

/* Snapshot the host (the current sysroot and network namespace) into dir,
 * which must not exist or be empty (-ENOTEMPTY), with the facts the
 * readers of the snapshot will ask for (probe.h: the change kinds', in
 * their order): the per-port ones are recorded, the files the host-wide
 * ones read are copied. */
int snapshot_take(const char *dir, const struct probe_facts *facts, struct snapshot_summary *ret);

/* When the current sysroot is a snapshot: use its link facts from now on,
 * make the sysroot read-only, and return 1; 0 when it is not one. facts:
 * the per-port facts the reader will ask for (as to snapshot_take). -EINVAL
 * for a marker that cannot be read back, or whose per-port facts are not
 * the reader's (a kind it does not know, another layout or size: the
 * snapshot was taken by another cx5prof; *ret_why says what and what to
 * do, caller frees). */
int snapshot_load(const struct probe_fact *const *facts, size_t n_facts, char **ret_why);
/* The recorded links are fit to read: each link once (by name and by
 * ifindex), each per-port fact of a kind the reader knows (facts, as to
 * snapshot_load), of its layout and size, recorded once, and passing the
 * kind's field-by-field check (probe.h). 0, or -EINVAL with *ret_why
 * naming the record ("links[0].facts[3]: kind rss: indir_size ...";
 * caller frees), -ENOMEM. */
struct link_facts;
int snapshot_check_links(const struct link_facts *links, size_t n, const struct probe_fact *const *facts,
			 size_t n_facts, char **ret_why);
/* A snapshot was loaded. */
bool snapshot_active(void);

#endif
