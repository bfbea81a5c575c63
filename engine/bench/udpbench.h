/* udpbench.h: the built-in UDP benchmark's wire formats and shared structs.
 *
 * Owns: the control protocol spoken over TCP between `cx5prof bench` (the
 * sender) and `cx5prof serve` (the receiver), and the header carried in
 * every test datagram. Everything is big-endian, fixed-layout and versioned.
 *
 * Control frame (protocol version 1):
 *   magic u32 "C5UB" | version u8 | type u8 | reserved u16 (0) | length u32
 *   followed by `length` payload bytes (at most UDPB_MAX_PAYLOAD).
 *   SETUP  (client -> server)  duration_s u32, message_size u32,
 *          recv_buffer u32, streams u16, flags u16 (0)
 *   READY  (server -> client)  cookie u64, recv_buffer u32 (effective),
 *          streams u16, reserved u16, port u16 x streams
 *   DONE   (client -> server)  send_usec u64, streams u16, reserved u16,
 *          sent u64 x streams (datagrams handed to the kernel)
 *   REPORT (server -> client)  window_usec u64, streams u16, ncpus u16,
 *          per stream: datagrams u64, bytes u64, seq_end u64, reordered u64,
 *          window_usec u64; per CPU: cpu u32, softirq centi-percent u32
 *   ERROR  (either way)        code u16, text_len u16, text (printable ASCII)
 *   STATE request (client -> server, before a SETUP or after a REPORT, or
 *          alone)              state_version u16 (1 or 2), reserved u16 (0)
 *   STATE reply (server -> client): the facts of the interface that owns
 *          the connection's local address, read at most serve's refresh
 *          interval before, and after the end of the last test (facts
 *          serve's --state level does not give are absent, as unknown
 *          ones; a server that gives none, or whose rate limit is
 *          reached, answers ERROR DENIED or LIMIT instead), in the
 *          version asked:
 *          state_version u16 (1 or 2), present u16 (UDPB_STATE_* bits; a value
 *          not present is 0), mtu u32, speed_mbps u32, rmem_max u64,
 *          rmem_default u64, rx_ring u32, rx_ring_max u32, tx_ring u32,
 *          tx_ring_max u32, then five texts (u8 length + printable ASCII,
 *          empty = unknown): ifname, driver, driver_version, firmware,
 *          pci_id; ncounters u16, per counter: name (u8 length + text),
 *          value u64 (the drop counters of counters.h the NIC reports);
 *          ncpus u16, per CPU: cpu u32, softirq u64, total u64 (jiffies
 *          from /proc/stat), irqs u64 (the interface's interrupts on
 *          that CPU so far). Version 2 (the loss ledger's counters)
 *          follows with: counters_version u16 (1), nnet u16, per counter:
 *          name (u8 length + [A-Za-z0-9_.] text, netcounters.h's names),
 *          value u64: the kernel counters of netcounters.h for the same
 *          interface, read when the request came, never from serve's
 *          cache, at every --state level that answers (counters that do
 *          not fit the payload are left out, the per-CPU ones first). Counters are totals: a client takes one
 *          before and one after a run and reports the difference. A server
 *          that knows version 1 only answers a version 2 request with an
 *          ERROR; the client asks again in version 1 (udpsend.h).
 * Test datagram header (first UDPB_DGRAM_HDR bytes of every datagram):
 *   magic u32 "C5UD" | stream u16 | flags u16 (0) | cookie u64 | seq u64
 *
 * The udpbench_decode_* functions are pure (no I/O, no allocation, no
 * logging): they take bytes and either fill a struct or return -errno, so a
 * fuzzer can drive them directly. Must never: trust a length or count from
 * the wire before checking it against the payload and the limits below. */
#ifndef CX5_UDPBENCH_H
#define CX5_UDPBENCH_H

#include "base/util.h"

#define UDPB_DEFAULT_PORT	    12866
#define UDPB_VERSION		    1
#define UDPB_MAGIC		    0x43355542u /* "C5UB" */
#define UDPB_DGRAM_MAGIC	    0x43355544u /* "C5UD" */
#define UDPB_FRAME_HDR		    12
#define UDPB_MAX_PAYLOAD	    16384
#define UDPB_DGRAM_HDR		    24
#define UDPB_MAX_DURATION	    3600 /* seconds */
#define UDPB_MIN_MESSAGE	    UDPB_DGRAM_HDR
#define UDPB_MAX_MESSAGE	    65507 /* largest IPv4 UDP payload */
#define UDPB_MAX_STREAMS	    64
#define UDPB_MAX_RECV_BUFFER	    (1u << 30)
#define UDPB_MAX_CPUS		    512
#define UDPB_MAX_ERROR_TEXT	    255
#define UDPB_STATE_VERSION	    2 /* the newest; 1 is still answered */
#define UDPB_STATE_COUNTERS_VERSION 1
#define UDPB_MAX_STATE_TEXT	    63
#define UDPB_MAX_COUNTERS	    32
#define UDPB_MAX_NET_COUNTERS	    160

enum udpb_type {
	UDPB_SETUP = 1,
	UDPB_READY = 2,
	UDPB_DONE = 3,
	UDPB_REPORT = 4,
	UDPB_ERROR = 5,
	UDPB_STATE_REQUEST = 6,
	UDPB_STATE = 7,
	_UDPB_TYPE_MAX,
};

const char *udpb_type_to_string(enum udpb_type t);

/* ERROR codes sent by the server. */
enum udpb_error {
	UDPB_ERR_PROTOCOL = 1, /* malformed frame or field */
	UDPB_ERR_VERSION = 2,  /* unsupported protocol version */
	UDPB_ERR_BUSY = 3,     /* another test is running */
	UDPB_ERR_RESOURCE = 4, /* could not open the UDP sinks */
	UDPB_ERR_TIMEOUT = 5,  /* the peer was too slow */
	UDPB_ERR_LIMIT = 6,    /* too many requests of this kind: retry later */
	UDPB_ERR_DENIED = 7,   /* the server does not answer this request */
};

struct udpb_header {
	uint8_t version;
	uint8_t type;
	uint32_t length;
};

struct udpb_setup {
	uint32_t duration_s;
	uint32_t message_size;
	uint32_t recv_buffer; /* 0: the receiver's default */
	uint16_t streams;
};

struct udpb_ready {
	uint64_t cookie;
	uint32_t recv_buffer; /* effective SO_RCVBUF of the sinks */
	uint16_t streams;
	uint16_t ports[UDPB_MAX_STREAMS];
};

struct udpb_done {
	uint64_t send_usec;
	uint16_t streams;
	uint64_t sent[UDPB_MAX_STREAMS];
};

struct udpb_stream_report {
	uint64_t datagrams;   /* valid test datagrams received */
	uint64_t bytes;	      /* their UDP payload bytes */
	uint64_t seq_end;     /* highest sequence number seen + 1 */
	uint64_t reordered;   /* datagrams that arrived after a higher seq */
	uint64_t window_usec; /* first to last arrival */
};

struct udpb_cpu_load {
	uint32_t cpu;
	uint32_t softirq_centipct; /* 0..10000: share of the CPU's time in softirq */
};

struct udpb_report {
	uint64_t window_usec; /* first to last arrival over all streams */
	uint16_t streams;
	uint16_t ncpus;
	struct udpb_stream_report stream[UDPB_MAX_STREAMS];
	struct udpb_cpu_load cpu[UDPB_MAX_CPUS];
};

struct udpb_error_msg {
	uint16_t code;
	char text[UDPB_MAX_ERROR_TEXT + 1];
};

/* Which numeric fields of a STATE reply are known. */
enum udpb_state_present {
	UDPB_STATE_MTU = 1 << 0,
	UDPB_STATE_SPEED = 1 << 1,
	UDPB_STATE_RMEM_MAX = 1 << 2,
	UDPB_STATE_RMEM_DEFAULT = 1 << 3,
	UDPB_STATE_RINGS = 1 << 4,
	_UDPB_STATE_ALL = (1 << 5) - 1,
};

struct udpb_state_counter {
	char name[UDPB_MAX_STATE_TEXT + 1];
	uint64_t value;
};

struct udpb_state_cpu {
	uint32_t cpu;
	uint64_t softirq, total; /* jiffies */
	uint64_t irqs;		 /* the interface's interrupts on this CPU */
};

struct udpb_state {
	uint16_t version; /* state_version of the message: 1, or 2 with net[] */
	uint16_t present; /* enum udpb_state_present */
	uint32_t mtu;
	uint32_t speed_mbps;
	uint64_t rmem_max, rmem_default;
	uint32_t rx_ring, rx_ring_max, tx_ring, tx_ring_max;
	char ifname[UDPB_MAX_STATE_TEXT + 1];
	char driver[UDPB_MAX_STATE_TEXT + 1];
	char driver_version[UDPB_MAX_STATE_TEXT + 1];
	char firmware[UDPB_MAX_STATE_TEXT + 1];
	char pci_id[UDPB_MAX_STATE_TEXT + 1];
	uint16_t ncounters;
	struct udpb_state_counter counter[UDPB_MAX_COUNTERS];
	uint16_t ncpus;
	struct udpb_state_cpu cpu[UDPB_MAX_CPUS];
	uint16_t nnet; /* version 2: the kernel counters of netcounters.h */
	struct udpb_state_counter net[UDPB_MAX_NET_COUNTERS];
};

/* Datagram header. */
struct udpb_dgram {
	uint16_t stream;
	uint64_t cookie;
	uint64_t seq;
};

/* Decoders. Errors: -EBADMSG bad magic, reserved field or trailing bytes;
 * -EPROTONOSUPPORT wrong version; -EMSGSIZE length above the limit;
 * -ENODATA fewer bytes than the frame needs (truncated); -ERANGE a field
 * outside its limits; -EPROTO a type that is unknown or not expected. */
int udpbench_decode_header(const uint8_t *buf, size_t len, struct udpb_header *ret);
int udpbench_decode_setup(const uint8_t *p, size_t len, struct udpb_setup *ret);
int udpbench_decode_ready(const uint8_t *p, size_t len, struct udpb_ready *ret);
int udpbench_decode_done(const uint8_t *p, size_t len, struct udpb_done *ret);
int udpbench_decode_report(const uint8_t *p, size_t len, struct udpb_report *ret);
int udpbench_decode_error(const uint8_t *p, size_t len, struct udpb_error_msg *ret);
int udpbench_decode_dgram(const uint8_t *p, size_t len, struct udpb_dgram *ret);
/* The request carries only its version: that version (1 or 2), or
 * -EPROTONOSUPPORT for another. */
int udpbench_decode_state_request(const uint8_t *p, size_t len);
/* The reply is large (per-CPU array): decoded into the caller's struct. */
int udpbench_decode_state(const uint8_t *p, size_t len, struct udpb_state *ret);

/* Encoders: write a whole frame (header + payload) into buf of size cap and
 * return its length, or -ENOBUFS when cap is too small, -ERANGE when the
 * struct holds values the decoder would reject. */
int udpbench_encode_setup(const struct udpb_setup *m, uint8_t *buf, size_t cap);
int udpbench_encode_ready(const struct udpb_ready *m, uint8_t *buf, size_t cap);
int udpbench_encode_done(const struct udpb_done *m, uint8_t *buf, size_t cap);
int udpbench_encode_report(const struct udpb_report *m, uint8_t *buf, size_t cap);
int udpbench_encode_error(uint16_t code, const char *text, uint8_t *buf, size_t cap);
int udpbench_encode_state_request(uint16_t version, uint8_t *buf, size_t cap);
/* In m->version (1 or 2). Texts longer than UDPB_MAX_STATE_TEXT or not
 * printable, a counter name outside [A-Za-z0-9_.]: -ERANGE. Version 2
 * counters beyond the payload limit are left out (the last ones). */
int udpbench_encode_state(const struct udpb_state *m, uint8_t *buf, size_t cap);
/* The datagram header into the first UDPB_DGRAM_HDR bytes of p. */
void udpbench_encode_dgram(const struct udpb_dgram *d, uint8_t *p);

/* Blocking I/O on the control connection, bounded by an absolute deadline
 * (now_usec() clock): a slow or silent peer gets -ETIMEDOUT, never a hang.
 * udpbench_recv_frame reads one frame, checks its header, and returns the
 * type with the payload in buf (cap >= UDPB_MAX_PAYLOAD) and its length in
 * *ret_len; -ECONNRESET when the peer closed. */
int udpbench_send_all(int fd, const uint8_t *buf, size_t len, uint64_t deadline_usec);
int udpbench_recv_frame(int fd, uint8_t *buf, size_t cap, size_t *ret_len, uint64_t deadline_usec);

#endif
