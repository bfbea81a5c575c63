/* peerstate.h: the facts `serve` gives about its host (the STATE message
 * of udpbench.h), and what a client makes of them.
 *
 * Owns: on the serving host, collecting the facts of the interface that
 * owns a connection's local address (driver, firmware, PCI id, MTU, link
 * speed, rmem_max/rmem_default, rings, drop counters, per-CPU softirq time
 * and the interface's interrupts) and answering a STATE request; on the
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
 * host's current network namespace), in STATE version `version` (2: with
 * the kernel counters of netcounters.h, taken now). -EADDRNOTAVAIL when
 * no interface has it; facts that cannot be read are left out (present
 * bits, empty texts, counters absent). */
int peerstate_collect(const struct sockaddr *local, uint16_t version, struct udpb_state *ret);

/* The kernel counters of netcounters.h for the interface that owns the
 * numeric address `address` in this network namespace (what a STATE
 * version 2 answer carries, for `cx5prof counters`). -EINVAL not a numeric
 * address, -EADDRNOTAVAIL no interface has it, -ENOMEM. */
int peerstate_counters_at(const char *address, struct netcounters *ret);

/* The kernel counters of a version 2 answer as a snapshot (names
 * netcounters.h does not know are left out), stamped taken_usec (the
 * client's clock when the answer came). -ENODATA for a version 1 answer. */
int peerstate_netcounters(const struct udpb_state *st, uint64_t taken_usec, struct netcounters *ret);

/* Answer the STATE request payload req (len bytes) received on connected
 * socket fd: the reply frame in *ret_frame (caller frees), its length
 * returned; -errno of the request's decoding (the caller sends the ERROR). */
int peerstate_answer(int fd, const uint8_t *req, size_t len, uint8_t **ret_frame);

/* The document of a peer's state: before alone, or with after (may be
 * NULL) the changes over the run. NULL on out of memory. */
struct json_object *peerstate_to_json(const struct udpb_state *before, const struct udpb_state *after);

/* One line for reports: "peer0: driver veth 1.0, firmware n/a, mtu 9000,
 * rmem_max 212992" (caller frees); from a peer_state.json document.
 * NULL when doc is not one. */
char *peerstate_summary(struct json_object *doc);

/* Print a peer_state.json document (NULL: the peer gave none) through
 * output.h: JSON key "peer_state"; for people one "peer" line and one
 * line per drop counter that rose on the peer. */
void peerstate_render(struct json_object *doc);

#endif
