/* ethsysroot.h: the ethtool settings a sysroot describes for its ports,
 * which no /proc or /sys file holds: a port's private flags, RSS
 * indirection table and key, and UDP flow hash fields, each kept as the
 * text `ethtool` prints for it.
 *
 * Owns: where those files are in a sysroot and the rule that picks them
 * over the kernel: a file ethtool/<ifname>/<what> under a --sysroot other
 * than "/" answers for that setting of that port, reads and writes alike
 * (a fixture of a ConnectX-5 host seen from a veth lab: the kernel's veth
 * has no RSS or private flags). <what> is "show-priv-flags" (`ethtool
 * --show-priv-flags IF`), "show-rxfh" (`ethtool -x IF`: the table, the key and
 * the hash function), "rx-flow-hash-udp4"
 * and "rx-flow-hash-udp6" (`ethtool -n IF rx-flow-hash udp4`). Without the
 * file, the kernel answers. Must never: consult such a file on the live
 * host, create one, or write one the caller did not read. */
#ifndef CX5_ETHSYSROOT_H
#define CX5_ETHSYSROOT_H

#include "base/util.h"

/* The <what> of each setting. */
#define ETHSYSROOT_PRIV_FLAGS	  "show-priv-flags"
#define ETHSYSROOT_RSS		  "show-rxfh"
#define ETHSYSROOT_FLOW_HASH_UDP4 "rx-flow-hash-udp4"
#define ETHSYSROOT_FLOW_HASH_UDP6 "rx-flow-hash-udp6"

/* 1 and *ret_path (the path to give sysroot.h's functions; caller frees)
 * when the sysroot holds setting `what` of ifname; 0 when the kernel
 * answers; -errno (-ENOMEM). */
int ethsysroot_file(const char *ifname, const char *what, char **ret_path);

/* The file's text (*ret, caller frees), or 0 with *ret NULL when the
 * kernel answers for it; -errno when the file cannot be read. */
int ethsysroot_read(const char *ifname, const char *what, char **ret);

/* Replace the file's text with text (a file ethsysroot_read gave), in one
 * write, read back whole: 0, -EIO when it reads back otherwise, -errno. */
int ethsysroot_write(const char *ifname, const char *what, const char *text);

/* For a message about a setting the kernel answered for under a sysroot,
 * the file that would have answered: " (the sysroot has no
 * DIR/ethtool/IF/WHAT: the kernel's IF answered)"; "" on the live host or
 * when the file is there. Caller frees; NULL only for memory. */
char *ethsysroot_absent_note(const char *ifname, const char *what);

#endif
