/* ledger.h: where every lost datagram went: the loss ledger of one run,
 * and the bottleneck it names.
 *
 * Owns: the stages a datagram passes from the sending application to the
 * receiving one, in path order, and which kernel counters of
 * netcounters.h each stage reads:
 *   sender socket      UdpSndbufErrors (+Udp6): sends the kernel failed
 *                      but UDP reported as done (a qdisc or device drop is
 *                      also counted here: what those lines explain is not
 *                      counted twice), minus the failed sends the runner
 *                      saw, which are not in `sent`
 *   sender qdisc       the root qdisc's drops on the sending interface
 *   sender device      the driver's transmit discards (tx_discards_phy,
 *                      tx_queue_dropped) or the device's tx_dropped and
 *                      transmit errors, the larger of the two views
 *   wire               frames damaged on the way (rx_crc_errors_phy, or the
 *                      device's CRC, frame and length errors) at the receiver
 *   receiver NIC       rx_discards_phy, rx_out_of_buffer, rx_buff_alloc_err,
 *                      or the device's rx_dropped, rx_missed, fifo and over
 *                      errors, the larger of the two views
 *   receiver backlog   softnet_stat's dropped (per CPU), time_squeeze as evidence
 *   IP reassembly      IpReasmFails (+Ip6; it counts fragments as well as
 *                      datagrams), ReasmTimeout/Reqds/OKs as evidence
 *   receiver IP        IpInDiscards, InHdrErrors, InAddrErrors (+Ip6)
 *   receiver socket buffer  UdpRcvbufErrors (+Udp6)
 *   receiver socket memory  UdpMemErrors (+Udp6)
 *   receiver checksum       UdpInCsumErrors (+Udp6)
 *   receiver socket (other) UdpInErrors beyond the three above (+Udp6)
 *   receiver without socket UdpNoPorts (+Udp6)
 * and the arithmetic: each counter's rise over the run, less what the
 * rate measured while idle just before would have added (every one is
 * shared with other traffic: host-wide or device-wide, none per socket);
 * then, from the receiving end back to the sender, each stage explains at
 * most what the stages after it left unexplained, because one drop can
 * show in several counters (a veth's full backlog also counts as the
 * receiver's rx_dropped, the sender's tx_dropped and, through the error
 * UDP hides, SndbufErrors). So the lines add up: sent = received + every
 * stage's count + unaccounted, and `unaccounted` is what no counter
 * explains (a switch, the path, or another sender's traffic), never
 * folded into a stage. Also the bottleneck: the stages by share of the
 * lost datagrams, the largest named in one line with its evidence and the
 * setting that addresses it. Must never: name a stage whose counters did
 * not rise, blame the path while the receiver's counters are unknown, or
 * call a loss too small to matter a bottleneck (the sender is then the
 * limit), or print 0 for what was not measured (a snapshot with no
 * counter: its host is unknown), a counter that went back (reset: its
 * stage is unknown) or a sum beyond 63 bits (overflow: unknown); nor name
 * the path or a stage while a stage that could explain the same loss is
 * unknown. The shares add up to 100% in tenths (largest remainder). */
#ifndef CX5_LEDGER_H
#define CX5_LEDGER_H

#include <json-c/json.h>

#include "os/netcounters.h"

#define LEDGER_IDLE_USEC	  500000ull /* the idle window measured before a run */
#define LEDGER_NEGLIGIBLE_PERCENT 0.1	    /* less loss than this: the sender limits */

enum ledger_host { LEDGER_SENDER, LEDGER_RECEIVER, _LEDGER_HOST_MAX };
const char *ledger_host_to_string(enum ledger_host h); /* "sender", "receiver" */

/* One host's snapshots. before and after NULL: its counters are unknown
 * (why says so); idle NULL: no idle rate is subtracted. */
struct ledger_side {
	const struct netcounters *idle, *before, *after;
	const char *source; /* "this host", "cx5prof serve on 198.18.0.2", ... */
	const char *why_unknown;
};

struct ledger_input {
	uint64_t sent;	      /* datagrams the sending application handed to the kernel */
	uint64_t received;    /* datagrams the receiving application counted */
	uint64_t send_errors; /* sends that failed in the application (not in sent) */
	double send_mbps;
	double sender_cpu_percent; /* < 0: unknown */
	uint64_t message_size;
	uint32_t mtu;			   /* the sending port's MTU; 0: unknown */
	uint64_t send_buffer, recv_buffer; /* asked (verify.socket_buffer.*); 0: not set */
	/* The settings that ask for them, for the remedies; NULL:
	 * "verify.socket_buffer.send" and "verify.socket_buffer.receive". */
	const char *send_buffer_setting, *recv_buffer_setting;
	uint64_t recv_buffer_actual; /* what the receiving socket got (kernel-doubled); 0: unknown */
	struct ledger_side side[_LEDGER_HOST_MAX];
};

/* One counter's part in a line. */
struct ledger_counter {
	char name[NETCOUNTER_NAME_MAX + 1];
	uint64_t rise; /* after - before */
	uint64_t idle; /* what the idle rate predicts over the run: subtracted */
	uint64_t net;  /* rise - idle, never below 0 */
};

struct ledger_line {
	const char *stage; /* "receiver-socket-buffer" */
	const char *label; /* "receiver socket buffer" */
	const char *scope; /* whose counters: "host", "namespace", "device" (netcounter_scope) */
	enum ledger_host host;
	bool known;			 /* its counters were read and make sense */
	const char *why_unknown;	 /* not known: "counters not read", "counter reset",
					  * "counter overflow", "not reported" (its host's
					  * snapshots hold none of its counters); NULL when known */
	uint64_t raw;			 /* what its counters say, idle rate subtracted */
	uint64_t count;			 /* the lost datagrams it explains (<= raw) */
	struct ledger_counter *counters; /* those that rose beyond the idle rate */
	size_t n_counters;
	char *detail; /* per-CPU detail ("CPU 0 +1,234, CPU 3 +5"), or NULL */
	char *remedy; /* the setting that addresses it */
};

struct ledger_share {
	const char *stage; /* a line's stage, or "unaccounted" */
	const char *label;
	uint64_t count;
	double percent; /* of the lost datagrams */
};

struct ledger {
	uint64_t sent, received, lost, dropped, unaccounted;
	uint64_t surplus; /* received beyond sent (other traffic): 0 normally */
	double send_mbps;
	struct ledger_line *lines; /* path order */
	size_t n_lines;
	bool known[_LEDGER_HOST_MAX];
	char *source[_LEDGER_HOST_MAX];
	char *why_unknown[_LEDGER_HOST_MAX];
	char **unavailable; /* "receiver: qdisc: No such device", ... */
	bool idle_subtracted;
	struct ledger_share *shares; /* by share, largest first; unaccounted included */
	size_t n_shares;
	const char *limited_by; /* a stage, "sender", "path", "unknown"; NULL: nothing sent */
	char *bottleneck;	/* the one line, NULL with limited_by */
};

int ledger_compute(const struct ledger_input *in, struct ledger **ret);
void ledger_free(struct ledger *l);
static inline void ledger_freep(struct ledger **l)
{
	if (*l)
		ledger_free(*l);
}
#define _cleanup_ledger_ _cleanup_(ledger_freep)

/* The stages in path order (their names), for tables over stored ledgers. */
const char *const *ledger_stages(size_t *ret_n);
/* A stage's label ("receiver socket buffer"); "unaccounted", "sender",
 * "path", "unknown" too; NULL for another name. */
const char *ledger_stage_label(const char *stage);

/* The ledger's document (schemas/ledger.schema.json), as verify, bench
 * and the history keep it. NULL on out of memory. */
struct json_object *ledger_to_json(const struct ledger *l);

/* Print a ledger document (NULL: none, JSON null) through output.h: JSON
 * key "ledger", and for people one line per stage in path order, then
 * "limited by". */
void ledger_render(struct json_object *doc);

/* The same as plain text (the run's "loss_ledger" artifact, what
 * `analyze` sends). NULL on out of memory or for NULL. */
char *ledger_text(struct json_object *doc);

/* limited_by and bottleneck of a stored document, NULL when absent. */
const char *ledger_doc_limited_by(struct json_object *doc);
const char *ledger_doc_bottleneck(struct json_object *doc);
/* A line's count in a stored document: true with *ret set, false when the
 * document has no such stage or its host was unknown. "unaccounted" too. */
bool ledger_doc_count(struct json_object *doc, const char *stage, uint64_t *ret);

#endif
