/* peerstate.h: the facts `serve` gives about its host (the STATE message
 * of udpbench.h), and what a client makes of them.
 *
 * Owns: on the serving host, collecting the facts of the interface that
 * owns a connection's local address (driver, firmware, PCI id, MTU, link
 * speed, rmem_max/rmem_default, rings, drop counters, per-CPU softirq time
 * and the interface's interrupts), what of them each --state level gives,
 * and answering a STATE request from facts read at most once per refresh
 * interval; on the
 * client, the document recorded with a run (artifact "peer_state.json",
 * keys in schemas/peer-state.schema.json): the state before the run and,
 * from a second answer after it, the drop counters' rise and each CPU's
 * share of the interrupts and its softirq time over the run, and (STATE
 * version 2) the kernel counters of the loss ledger before and after
 * ("net_counters"). Must never:
 * change anything on the host, or report a fact it could not read (it is
 * absent, never 0). */
#ifndef CX5_PEERSTATE_H
#define CX5_PEERSTATE_H

#include <json-c/json.h>
#include <sys/socket.h>

#include "os/netcounters.h"
#include "udpbench.h"

#define PEERSTATE_ARTIFACT "peer_state.json"

/* The facts of the interface that owns address local (an address of this
 * host's current network namespace), STATE version 1. -EADDRNOTAVAIL when
 * no interface has it; facts that cannot be read are left out (present
 * bits, empty texts). */
int peerstate_collect(const struct sockaddr *local, struct udpb_state *ret);

/* The kernel counters of netcounters.h for the interface that owns the
 * numeric address `address` in this network namespace (what a STATE
 * version 2 answer carries, for `cx5prof counters`). -EINVAL not a numeric
 * address, -EADDRNOTAVAIL no interface has it, -ENOMEM. */
int peerstate_counters_at(const char *address, struct netcounters *ret);

/* The kernel counters of a version 2 answer as a snapshot (names
 * netcounters.h does not know are left out), stamped taken_usec (the
 * client's clock when the answer came). -ENODATA for a version 1 answer. */
int peerstate_netcounters(const struct udpb_state *st, uint64_t taken_usec, struct netcounters *ret);

/* How much STATE gives (serve --state). full: every fact of the
 * interface (name, driver, driver version, firmware, PCI id, MTU, link
 * speed, rmem_max, rmem_default, rings, drop counters, per-CPU softirq
 * time and interrupts); minimal: only what explains a run's loss, without
 * what identifies the hardware, its software or its load (name, MTU,
 * rmem_max, rmem_default, drop counters); off: no answer. */
enum peerstate_level {
	PEERSTATE_FULL,
	PEERSTATE_MINIMAL,
	PEERSTATE_OFF,
	_PEERSTATE_LEVEL_MAX,
};

const char *peerstate_level_to_string(enum peerstate_level l);
/* -EINVAL for a word that is not a level. */
int peerstate_level_from_string(const char *s, enum peerstate_level *ret);

/* Keep of st only what level gives. */
void peerstate_restrict(struct udpb_state *st, enum peerstate_level level);

/* serve's answers: the facts of each local address (up to
 * PEERSTATE_CACHE_ADDRESSES), read at most once per refresh interval and
 * answered from memory in between, so that answering costs next to
 * nothing whoever asks. The settings a client compares (which interface
 * owns the address, its MTU and rings, rmem_max, rmem_default) and the
 * interface's index (a driver reload or firmware reset changes it) are
 * read for every answer, and one that changed reads every fact anew; the
 * others (driver, versions, firmware, PCI id, speed, counters, per-CPU
 * times) may be up to one interval old. */
#define PEERSTATE_CACHE_ADDRESSES 8

struct peerstate_cache;

/* level: PEERSTATE_FULL or PEERSTATE_MINIMAL; refresh_ms 0: read for every
 * answer. */
int peerstate_cache_new(enum peerstate_level level, unsigned refresh_ms, struct peerstate_cache **ret);
void peerstate_cache_free(struct peerstate_cache *c);
/* Forget every fact read: the next answer reads them anew (a test ended:
 * its client's after-run answer must count the whole run). */
void peerstate_cache_expire(struct peerstate_cache *c);

/* Answer a (decoded, valid) STATE request of version `version` (1 or 2)
 * received at now (now_usec()) on connected socket fd: the reply frame in
 * *ret_frame (caller frees), its length returned; -errno when it cannot
 * be built. Version 2's kernel counters (the loss ledger's, netcounters.h)
 * are read for every answer, never from the cache: a client takes the
 * difference of two answers around its run. Both levels give them: they
 * explain a run's loss. */
int peerstate_answer(struct peerstate_cache *c, int fd, uint64_t now, uint16_t version, uint8_t **ret_frame);

/* The document of a peer's state: before alone, or with after (may be
 * NULL) the changes over the run. NULL on out of memory. */
struct json_object *peerstate_to_json(const struct udpb_state *before, const struct udpb_state *after);

/* One line for reports: "peer0: driver veth 1.0, firmware n/a, mtu 9000,
 * rmem_max 212992", with the NIC's model after the interface when its
 * pci_id is one cx5prof knows ("ens1f0: ConnectX-5, driver ...", else
 * "ens1f0: PCI 15b3:1234, driver ..."); caller frees; from a
 * peer_state.json document. NULL when doc is not one. */
char *peerstate_summary(struct json_object *doc);

/* Print a peer_state.json document (NULL: the peer gave none) through
 * output.h: JSON key "peer_state"; for people one "peer" line and one
 * line per drop counter that rose on the peer. */
void peerstate_render(struct json_object *doc);

#endif
