/* udpbench.c: encode and decode the built-in benchmark's control frames and
 * datagram header (see udpbench.h for the layout).
 *
 * Owns: byte order, field limits and framing. Decoders are pure functions
 * that check every length before reading and every field against its
 * limit. Must never: allocate, log above debug, or trust a count from the
 * wire. */
#define _GNU_SOURCE
#include "udpbench.h"

#include <poll.h>
#include <sys/socket.h>

static const char *const type_names[_UDPB_TYPE_MAX] = {
    [UDPB_SETUP] = "setup",   [UDPB_READY] = "ready", [UDPB_DONE] = "done",
    [UDPB_REPORT] = "report", [UDPB_ERROR] = "error", [UDPB_STATE_REQUEST] = "state-request",
    [UDPB_STATE] = "state",
};

const char *udpb_type_to_string(enum udpb_type t)
{
	if ((unsigned)t >= _UDPB_TYPE_MAX || !type_names[t])
		return NULL;
	return type_names[t];
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, v >> 32);
	put32(p + 4, v & 0xffffffffu);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}
static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}
static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

int udpbench_decode_header(const uint8_t *buf, size_t len, struct udpb_header *ret)
{
	struct udpb_header h;

	if (len < UDPB_FRAME_HDR)
		return -ENODATA;
	if (get32(buf) != UDPB_MAGIC)
		return -EBADMSG;
	h.version = buf[4];
	h.type = buf[5];
	h.length = get32(buf + 8);
	if (h.version != UDPB_VERSION)
		return -EPROTONOSUPPORT;
	if (get16(buf + 6) != 0)
		return -EBADMSG;
	if (!udpb_type_to_string(h.type))
		return -EPROTO;
	if (h.length > UDPB_MAX_PAYLOAD)
		return -EMSGSIZE;
	*ret = h;
	return 0;
}

/* Payloads must have exactly the length their fields say. */
static int check_len(size_t len, size_t want)
{
	if (len < want)
		return -ENODATA;
	if (len > want)
		return -EBADMSG;
	return 0;
}

#define SETUP_LEN 16

int udpbench_decode_setup(const uint8_t *p, size_t len, struct udpb_setup *ret)
{
	struct udpb_setup s;
	int r;

	r = check_len(len, SETUP_LEN);
	if (r < 0)
		return r;
	s = (struct udpb_setup){
	    .duration_s = get32(p),
	    .message_size = get32(p + 4),
	    .recv_buffer = get32(p + 8),
	    .streams = get16(p + 12),
	};
	if (get16(p + 14) != 0)
		return -EBADMSG;
	if (s.duration_s < 1 || s.duration_s > UDPB_MAX_DURATION || s.message_size < UDPB_MIN_MESSAGE ||
	    s.message_size > UDPB_MAX_MESSAGE || s.recv_buffer > UDPB_MAX_RECV_BUFFER || s.streams < 1 ||
	    s.streams > UDPB_MAX_STREAMS)
		return -ERANGE;
	*ret = s;
	return 0;
}

int udpbench_decode_ready(const uint8_t *p, size_t len, struct udpb_ready *ret)
{
	struct udpb_ready m = {0};
	int r;

	if (len < 16)
		return -ENODATA;
	m.cookie = get64(p);
	m.recv_buffer = get32(p + 8);
	m.streams = get16(p + 12);
	if (get16(p + 14) != 0)
		return -EBADMSG;
	if (m.streams < 1 || m.streams > UDPB_MAX_STREAMS)
		return -ERANGE;
	r = check_len(len, 16 + 2 * (size_t)m.streams);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < m.streams; i++) {
		m.ports[i] = get16(p + 16 + 2 * i);
		if (m.ports[i] == 0)
			return -ERANGE;
	}
	*ret = m;
	return 0;
}

int udpbench_decode_done(const uint8_t *p, size_t len, struct udpb_done *ret)
{
	struct udpb_done m = {0};
	int r;

	if (len < 12)
		return -ENODATA;
	m.send_usec = get64(p);
	m.streams = get16(p + 8);
	if (get16(p + 10) != 0)
		return -EBADMSG;
	if (m.streams < 1 || m.streams > UDPB_MAX_STREAMS)
		return -ERANGE;
	r = check_len(len, 12 + 8 * (size_t)m.streams);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < m.streams; i++)
		m.sent[i] = get64(p + 12 + 8 * i);
	*ret = m;
	return 0;
}

#define STREAM_REPORT_LEN 40
#define CPU_LOAD_LEN	  8

/* The report is large (per-CPU array): decode into the caller's struct. */
int udpbench_decode_report(const uint8_t *p, size_t len, struct udpb_report *ret)
{
	uint16_t streams, ncpus;
	const uint8_t *q;
	int r;

	if (len < 12)
		return -ENODATA;
	streams = get16(p + 8);
	ncpus = get16(p + 10);
	if (streams < 1 || streams > UDPB_MAX_STREAMS || ncpus > UDPB_MAX_CPUS)
		return -ERANGE;
	r = check_len(len, 12 + STREAM_REPORT_LEN * (size_t)streams + CPU_LOAD_LEN * (size_t)ncpus);
	if (r < 0)
		return r;
	/* Validate everything before writing into *ret. */
	q = p + 12 + STREAM_REPORT_LEN * (size_t)streams;
	for (unsigned i = 0; i < ncpus; i++)
		if (get32(q + CPU_LOAD_LEN * i + 4) > 10000)
			return -ERANGE;
	ret->window_usec = get64(p);
	ret->streams = streams;
	ret->ncpus = ncpus;
	for (unsigned i = 0; i < streams; i++) {
		const uint8_t *s = p + 12 + STREAM_REPORT_LEN * i;
		ret->stream[i] = (struct udpb_stream_report){
		    .datagrams = get64(s),
		    .bytes = get64(s + 8),
		    .seq_end = get64(s + 16),
		    .reordered = get64(s + 24),
		    .window_usec = get64(s + 32),
		};
	}
	for (unsigned i = 0; i < ncpus; i++)
		ret->cpu[i] = (struct udpb_cpu_load){
		    .cpu = get32(q + CPU_LOAD_LEN * i),
		    .softirq_centipct = get32(q + CPU_LOAD_LEN * i + 4),
		};
	return 0;
}

int udpbench_decode_error(const uint8_t *p, size_t len, struct udpb_error_msg *ret)
{
	uint16_t tlen;
	int r;

	if (len < 4)
		return -ENODATA;
	tlen = get16(p + 2);
	if (tlen > UDPB_MAX_ERROR_TEXT)
		return -ERANGE;
	r = check_len(len, 4 + (size_t)tlen);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < tlen; i++)
		if (p[4 + i] < 0x20 || p[4 + i] > 0x7e)
			return -EBADMSG;
	ret->code = get16(p);
	memcpy(ret->text, p + 4, tlen);
	ret->text[tlen] = '\0';
	return 0;
}

int udpbench_decode_dgram(const uint8_t *p, size_t len, struct udpb_dgram *ret)
{
	if (len < UDPB_DGRAM_HDR)
		return -ENODATA;
	if (get32(p) != UDPB_DGRAM_MAGIC || get16(p + 6) != 0)
		return -EBADMSG;
	*ret = (struct udpb_dgram){.stream = get16(p + 4), .cookie = get64(p + 8), .seq = get64(p + 16)};
	return 0;
}

#define STATE_REQUEST_LEN 4
#define STATE_FIXED_LEN	  44
#define STATE_CPU_LEN	  28

int udpbench_decode_state_request(const uint8_t *p, size_t len)
{
	int r = check_len(len, STATE_REQUEST_LEN);

	if (r < 0)
		return r;
	if (get16(p + 2) != 0)
		return -EBADMSG;
	if (get16(p) < 1 || get16(p) > UDPB_STATE_VERSION)
		return -EPROTONOSUPPORT;
	return get16(p);
}

/* A counter name of the version 2 part: netcounters.h's characters. */
static bool net_name_char(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '.';
}

/* A length-prefixed printable text at *pos of p (len bytes) into out. */
static int get_text(const uint8_t *p, size_t len, size_t *pos, char *out)
{
	size_t tlen;

	if (*pos + 1 > len)
		return -ENODATA;
	tlen = p[*pos];
	if (tlen > UDPB_MAX_STATE_TEXT)
		return -ERANGE;
	if (*pos + 1 + tlen > len)
		return -ENODATA;
	for (size_t i = 0; i < tlen; i++)
		if (p[*pos + 1 + i] < 0x20 || p[*pos + 1 + i] > 0x7e)
			return -EBADMSG;
	memcpy(out, p + *pos + 1, tlen);
	out[tlen] = '\0';
	*pos += 1 + tlen;
	return 0;
}

/* The version 2 part at pos: counters_version, nnet, the counters. */
static int decode_net_counters(const uint8_t *p, size_t len, size_t pos, struct udpb_state *ret)
{
	uint16_t n;
	int r;

	if (pos + 4 > len)
		return -ENODATA;
	if (get16(p + pos) != UDPB_STATE_COUNTERS_VERSION)
		return -EPROTONOSUPPORT;
	n = get16(p + pos + 2);
	pos += 4;
	if (n > UDPB_MAX_NET_COUNTERS)
		return -ERANGE;
	for (unsigned i = 0; i < n; i++) {
		struct udpb_state_counter *c = &ret->net[i];

		r = get_text(p, len, &pos, c->name);
		if (r < 0)
			return r;
		if (!c->name[0])
			return -EBADMSG;
		for (const char *q = c->name; *q; q++)
			if (!net_name_char((uint8_t)*q))
				return -EBADMSG;
		if (pos + 8 > len)
			return -ENODATA;
		c->value = get64(p + pos);
		pos += 8;
	}
	if (pos != len)
		return -EBADMSG;
	ret->nnet = n;
	return 0;
}

int udpbench_decode_state(const uint8_t *p, size_t len, struct udpb_state *ret)
{
	char *texts[] = {ret->ifname, ret->driver, ret->driver_version, ret->firmware, ret->pci_id};
	size_t pos = STATE_FIXED_LEN;
	uint16_t n;
	int r;

	if (len < STATE_FIXED_LEN)
		return -ENODATA;
	if (get16(p) < 1 || get16(p) > UDPB_STATE_VERSION)
		return -EPROTONOSUPPORT;
	ret->version = get16(p);
	ret->nnet = 0;
	ret->present = get16(p + 2);
	if (ret->present & ~_UDPB_STATE_ALL)
		return -EBADMSG;
	ret->mtu = get32(p + 4);
	ret->speed_mbps = get32(p + 8);
	ret->rmem_max = get64(p + 12);
	ret->rmem_default = get64(p + 20);
	ret->rx_ring = get32(p + 28);
	ret->rx_ring_max = get32(p + 32);
	ret->tx_ring = get32(p + 36);
	ret->tx_ring_max = get32(p + 40);
	/* One encoding per message: an unknown value is 0. */
	if ((!(ret->present & UDPB_STATE_MTU) && ret->mtu) ||
	    (!(ret->present & UDPB_STATE_SPEED) && ret->speed_mbps) ||
	    (!(ret->present & UDPB_STATE_RMEM_MAX) && ret->rmem_max) ||
	    (!(ret->present & UDPB_STATE_RMEM_DEFAULT) && ret->rmem_default) ||
	    (!(ret->present & UDPB_STATE_RINGS) &&
	     (ret->rx_ring || ret->rx_ring_max || ret->tx_ring || ret->tx_ring_max)))
		return -EBADMSG;
	for (size_t i = 0; i < ARRAY_SIZE(texts); i++) {
		r = get_text(p, len, &pos, texts[i]);
		if (r < 0)
			return r;
	}
	if (strlen(ret->ifname) >= 16)
		return -ERANGE;
	if (pos + 2 > len)
		return -ENODATA;
	n = get16(p + pos);
	pos += 2;
	if (n > UDPB_MAX_COUNTERS)
		return -ERANGE;
	ret->ncounters = n;
	for (unsigned i = 0; i < n; i++) {
		r = get_text(p, len, &pos, ret->counter[i].name);
		if (r < 0)
			return r;
		if (!ret->counter[i].name[0])
			return -EBADMSG;
		if (pos + 8 > len)
			return -ENODATA;
		ret->counter[i].value = get64(p + pos);
		pos += 8;
	}
	if (pos + 2 > len)
		return -ENODATA;
	n = get16(p + pos);
	pos += 2;
	if (n > UDPB_MAX_CPUS)
		return -ERANGE;
	if (ret->version == 1) {
		r = check_len(len - pos, STATE_CPU_LEN * (size_t)n);
		if (r < 0)
			return r;
	} else if (len - pos < STATE_CPU_LEN * (size_t)n)
		return -ENODATA;
	ret->ncpus = n;
	for (unsigned i = 0; i < n; i++, pos += STATE_CPU_LEN)
		ret->cpu[i] = (struct udpb_state_cpu){.cpu = get32(p + pos),
						      .softirq = get64(p + pos + 4),
						      .total = get64(p + pos + 12),
						      .irqs = get64(p + pos + 20)};
	return ret->version == 1 ? 0 : decode_net_counters(p, len, pos, ret);
}

static int frame_start(uint8_t *buf, size_t cap, enum udpb_type type, size_t payload)
{
	if (payload > UDPB_MAX_PAYLOAD)
		return -ERANGE;
	if (cap < UDPB_FRAME_HDR + payload)
		return -ENOBUFS;
	put32(buf, UDPB_MAGIC);
	buf[4] = UDPB_VERSION;
	buf[5] = type;
	put16(buf + 6, 0);
	put32(buf + 8, (uint32_t)payload);
	return (int)(UDPB_FRAME_HDR + payload);
}

int udpbench_encode_setup(const struct udpb_setup *m, uint8_t *buf, size_t cap)
{
	uint8_t *p = buf + UDPB_FRAME_HDR;
	int n;

	if (m->duration_s < 1 || m->duration_s > UDPB_MAX_DURATION || m->message_size < UDPB_MIN_MESSAGE ||
	    m->message_size > UDPB_MAX_MESSAGE || m->recv_buffer > UDPB_MAX_RECV_BUFFER || m->streams < 1 ||
	    m->streams > UDPB_MAX_STREAMS)
		return -ERANGE;
	n = frame_start(buf, cap, UDPB_SETUP, SETUP_LEN);
	if (n < 0)
		return n;
	put32(p, m->duration_s);
	put32(p + 4, m->message_size);
	put32(p + 8, m->recv_buffer);
	put16(p + 12, m->streams);
	put16(p + 14, 0);
	return n;
}

int udpbench_encode_ready(const struct udpb_ready *m, uint8_t *buf, size_t cap)
{
	uint8_t *p = buf + UDPB_FRAME_HDR;
	int n;

	if (m->streams < 1 || m->streams > UDPB_MAX_STREAMS)
		return -ERANGE;
	for (unsigned i = 0; i < m->streams; i++)
		if (m->ports[i] == 0)
			return -ERANGE;
	n = frame_start(buf, cap, UDPB_READY, 16 + 2 * (size_t)m->streams);
	if (n < 0)
		return n;
	put64(p, m->cookie);
	put32(p + 8, m->recv_buffer);
	put16(p + 12, m->streams);
	put16(p + 14, 0);
	for (unsigned i = 0; i < m->streams; i++)
		put16(p + 16 + 2 * i, m->ports[i]);
	return n;
}

int udpbench_encode_done(const struct udpb_done *m, uint8_t *buf, size_t cap)
{
	uint8_t *p = buf + UDPB_FRAME_HDR;
	int n;

	if (m->streams < 1 || m->streams > UDPB_MAX_STREAMS)
		return -ERANGE;
	n = frame_start(buf, cap, UDPB_DONE, 12 + 8 * (size_t)m->streams);
	if (n < 0)
		return n;
	put64(p, m->send_usec);
	put16(p + 8, m->streams);
	put16(p + 10, 0);
	for (unsigned i = 0; i < m->streams; i++)
		put64(p + 12 + 8 * i, m->sent[i]);
	return n;
}

int udpbench_encode_report(const struct udpb_report *m, uint8_t *buf, size_t cap)
{
	uint8_t *p = buf + UDPB_FRAME_HDR, *q;
	int n;

	if (m->streams < 1 || m->streams > UDPB_MAX_STREAMS || m->ncpus > UDPB_MAX_CPUS)
		return -ERANGE;
	for (unsigned i = 0; i < m->ncpus; i++)
		if (m->cpu[i].softirq_centipct > 10000)
			return -ERANGE;
	n = frame_start(buf, cap, UDPB_REPORT,
			12 + STREAM_REPORT_LEN * (size_t)m->streams + CPU_LOAD_LEN * (size_t)m->ncpus);
	if (n < 0)
		return n;
	put64(p, m->window_usec);
	put16(p + 8, m->streams);
	put16(p + 10, m->ncpus);
	for (unsigned i = 0; i < m->streams; i++) {
		uint8_t *s = p + 12 + STREAM_REPORT_LEN * i;
		put64(s, m->stream[i].datagrams);
		put64(s + 8, m->stream[i].bytes);
		put64(s + 16, m->stream[i].seq_end);
		put64(s + 24, m->stream[i].reordered);
		put64(s + 32, m->stream[i].window_usec);
	}
	q = p + 12 + STREAM_REPORT_LEN * (size_t)m->streams;
	for (unsigned i = 0; i < m->ncpus; i++) {
		put32(q + CPU_LOAD_LEN * i, m->cpu[i].cpu);
		put32(q + CPU_LOAD_LEN * i + 4, m->cpu[i].softirq_centipct);
	}
	return n;
}

/* Text is cut at UDPB_MAX_ERROR_TEXT and non-printable bytes become '?',
 * so any message can be sent and the decoder accepts it. */
int udpbench_encode_error(uint16_t code, const char *text, uint8_t *buf, size_t cap)
{
	size_t tlen = strnlen(text, UDPB_MAX_ERROR_TEXT);
	uint8_t *p = buf + UDPB_FRAME_HDR;
	int n;

	n = frame_start(buf, cap, UDPB_ERROR, 4 + tlen);
	if (n < 0)
		return n;
	put16(p, code);
	put16(p + 2, (uint16_t)tlen);
	for (size_t i = 0; i < tlen; i++) {
		unsigned char c = (unsigned char)text[i];
		p[4 + i] = c >= 0x20 && c <= 0x7e ? c : '?';
	}
	return n;
}

int udpbench_encode_state_request(uint16_t version, uint8_t *buf, size_t cap)
{
	int n;

	if (version < 1 || version > UDPB_STATE_VERSION)
		return -ERANGE;
	n = frame_start(buf, cap, UDPB_STATE_REQUEST, STATE_REQUEST_LEN);
	if (n < 0)
		return n;
	put16(buf + UDPB_FRAME_HDR, version);
	put16(buf + UDPB_FRAME_HDR + 2, 0);
	return n;
}

/* Length of a text as encoded, or -ERANGE when the decoder would refuse it. */
static int text_len(const char *t)
{
	size_t n = strlen(t);

	if (n > UDPB_MAX_STATE_TEXT)
		return -ERANGE;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)t[i] < 0x20 || (unsigned char)t[i] > 0x7e)
			return -ERANGE;
	return (int)(1 + n);
}

static uint8_t *put_text(uint8_t *q, const char *t)
{
	size_t n = strlen(t);

	q[0] = (uint8_t)n;
	memcpy(q + 1, t, n);
	return q + 1 + n;
}

int udpbench_encode_state(const struct udpb_state *m, uint8_t *buf, size_t cap)
{
	const char *texts[] = {m->ifname, m->driver, m->driver_version, m->firmware, m->pci_id};
	uint8_t *p = buf + UDPB_FRAME_HDR, *q;
	size_t payload = STATE_FIXED_LEN + 2 + 2 + STATE_CPU_LEN * (size_t)m->ncpus;
	int n;

	size_t nnet = 0;

	if ((m->present & ~_UDPB_STATE_ALL) || m->ncounters > UDPB_MAX_COUNTERS || m->ncpus > UDPB_MAX_CPUS ||
	    strlen(m->ifname) >= 16 || m->version < 1 || m->version > UDPB_STATE_VERSION ||
	    (m->version >= 2 && m->nnet > UDPB_MAX_NET_COUNTERS))
		return -ERANGE;
	for (size_t i = 0; i < ARRAY_SIZE(texts); i++) {
		n = text_len(texts[i]);
		if (n < 0)
			return n;
		payload += (size_t)n;
	}
	for (unsigned i = 0; i < m->ncounters; i++) {
		n = text_len(m->counter[i].name);
		if (n < 0 || n == 1)
			return -ERANGE;
		payload += (size_t)n + 8;
	}
	if (m->version >= 2) {
		payload += 4;
		for (unsigned i = 0; i < m->nnet; i++) {
			n = text_len(m->net[i].name);
			if (n <= 1)
				return -ERANGE;
			for (const char *c = m->net[i].name; *c; c++)
				if (!net_name_char((uint8_t)*c))
					return -ERANGE;
			/* What does not fit is left out, from the first
			 * that does not on: the per-CPU ones come last. */
			if (nnet == i && payload + (size_t)n + 8 <= UDPB_MAX_PAYLOAD) {
				payload += (size_t)n + 8;
				nnet = i + 1;
			}
		}
	}
	n = frame_start(buf, cap, UDPB_STATE, payload);
	if (n < 0)
		return n;
	put16(p, m->version);
	put16(p + 2, m->present);
	put32(p + 4, m->present & UDPB_STATE_MTU ? m->mtu : 0);
	put32(p + 8, m->present & UDPB_STATE_SPEED ? m->speed_mbps : 0);
	put64(p + 12, m->present & UDPB_STATE_RMEM_MAX ? m->rmem_max : 0);
	put64(p + 20, m->present & UDPB_STATE_RMEM_DEFAULT ? m->rmem_default : 0);
	put32(p + 28, m->present & UDPB_STATE_RINGS ? m->rx_ring : 0);
	put32(p + 32, m->present & UDPB_STATE_RINGS ? m->rx_ring_max : 0);
	put32(p + 36, m->present & UDPB_STATE_RINGS ? m->tx_ring : 0);
	put32(p + 40, m->present & UDPB_STATE_RINGS ? m->tx_ring_max : 0);
	q = p + STATE_FIXED_LEN;
	for (size_t i = 0; i < ARRAY_SIZE(texts); i++)
		q = put_text(q, texts[i]);
	put16(q, m->ncounters);
	q += 2;
	for (unsigned i = 0; i < m->ncounters; i++) {
		q = put_text(q, m->counter[i].name);
		put64(q, m->counter[i].value);
		q += 8;
	}
	put16(q, m->ncpus);
	q += 2;
	for (unsigned i = 0; i < m->ncpus; i++, q += STATE_CPU_LEN) {
		put32(q, m->cpu[i].cpu);
		put64(q + 4, m->cpu[i].softirq);
		put64(q + 12, m->cpu[i].total);
		put64(q + 20, m->cpu[i].irqs);
	}
	if (m->version >= 2) {
		put16(q, UDPB_STATE_COUNTERS_VERSION);
		put16(q + 2, (uint16_t)nnet);
		q += 4;
		for (size_t i = 0; i < nnet; i++) {
			q = put_text(q, m->net[i].name);
			put64(q, m->net[i].value);
			q += 8;
		}
	}
	return n;
}

void udpbench_encode_dgram(const struct udpb_dgram *d, uint8_t *p)
{
	put32(p, UDPB_DGRAM_MAGIC);
	put16(p + 4, d->stream);
	put16(p + 6, 0);
	put64(p + 8, d->cookie);
	put64(p + 16, d->seq);
}

/* Wait until fd is ready for `events` or the deadline passes. */
static int wait_fd(int fd, short events, uint64_t deadline_usec)
{
	for (unsigned tries = 0; tries < 1000000; tries++) {
		uint64_t now = now_usec();
		struct pollfd pfd = {.fd = fd, .events = events};
		int timeout_ms, r;

		if (now >= deadline_usec)
			return -ETIMEDOUT;
		timeout_ms = (int)((deadline_usec - now + 999) / 1000);
		r = poll(&pfd, 1, timeout_ms);
		if (r < 0 && errno == EINTR)
			return -EINTR;
		if (r < 0)
			return -errno;
		if (r > 0)
			return 0;
	}
	return -ETIMEDOUT;
}

int udpbench_send_all(int fd, const uint8_t *buf, size_t len, uint64_t deadline_usec)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n;
		int r = wait_fd(fd, POLLOUT, deadline_usec);
		if (r < 0)
			return r;
		n = send(fd, buf + done, len - done, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -errno;
		}
		done += (size_t)n;
	}
	return 0;
}

/* Read exactly len bytes. Each poll round trip makes progress or ends at
 * the deadline, so a peer dribbling one byte at a time still ends there. */
static int recv_exact(int fd, uint8_t *buf, size_t len, uint64_t deadline_usec)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n;
		int r = wait_fd(fd, POLLIN, deadline_usec);
		if (r < 0)
			return r;
		n = recv(fd, buf + done, len - done, MSG_DONTWAIT);
		if (n == 0)
			return done == 0 ? -ECONNRESET : -ENODATA;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -errno;
		}
		done += (size_t)n;
	}
	return 0;
}

int udpbench_recv_frame(int fd, uint8_t *buf, size_t cap, size_t *ret_len, uint64_t deadline_usec)
{
	uint8_t hdr[UDPB_FRAME_HDR];
	struct udpb_header h;
	int r;

	r = recv_exact(fd, hdr, sizeof(hdr), deadline_usec);
	if (r < 0)
		return r;
	r = udpbench_decode_header(hdr, sizeof(hdr), &h);
	if (r < 0)
		return r;
	if (h.length > cap)
		return -EMSGSIZE;
	r = recv_exact(fd, buf, h.length, deadline_usec);
	if (r == -ECONNRESET)
		r = -ENODATA; /* closed inside a frame: truncated */
	if (r < 0)
		return r;
	*ret_len = h.length;
	return h.type;
}
