/* test_udpbench.c: the built-in benchmark's control protocol: every
 * message round-trips, every decode error is returned for its cause, and
 * the framing reader ends on truncation, oversize and silence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <sys/socket.h>

#include "bench/udpbench.h"
#include "bench/udpsink.h"

#define BUFCAP (UDPB_FRAME_HDR + UDPB_MAX_PAYLOAD)

static uint8_t buf[BUFCAP];

/* Decode a whole frame's header and return the payload pointer/length. */
static const uint8_t *payload(int n, enum udpb_type type, size_t *len)
{
	struct udpb_header h;

	assert_true(n > UDPB_FRAME_HDR - 1);
	assert_int_equal(udpbench_decode_header(buf, (size_t)n, &h), 0);
	assert_int_equal(h.version, UDPB_VERSION);
	assert_int_equal(h.type, type);
	assert_int_equal(h.length, (size_t)n - UDPB_FRAME_HDR);
	*len = h.length;
	return buf + UDPB_FRAME_HDR;
}

static const struct udpb_setup good_setup = {
    .duration_s = 10, .message_size = 8000, .recv_buffer = 4194304, .streams = 4};

static void test_setup_roundtrip(void **state)
{
	struct udpb_setup s;
	const uint8_t *p;
	size_t len;
	int n;

	(void)state;
	n = udpbench_encode_setup(&good_setup, buf, sizeof(buf));
	assert_int_equal(n, UDPB_FRAME_HDR + 16);
	/* The wire layout is a contract: check the bytes. */
	assert_memory_equal(buf, "C5UB\x01\x01\x00\x00\x00\x00\x00\x10", 12);
	assert_memory_equal(buf + 12, "\x00\x00\x00\x0a\x00\x00\x1f\x40\x00\x40\x00\x00\x00\x04\x00\x00", 16);
	p = payload(n, UDPB_SETUP, &len);
	assert_int_equal(udpbench_decode_setup(p, len, &s), 0);
	assert_int_equal(s.duration_s, 10);
	assert_int_equal(s.message_size, 8000);
	assert_int_equal(s.recv_buffer, 4194304);
	assert_int_equal(s.streams, 4);
}

static void test_setup_errors(void **state)
{
	struct udpb_setup s = good_setup, out;
	uint8_t *p = buf + UDPB_FRAME_HDR;
	int n;

	(void)state;
	n = udpbench_encode_setup(&s, buf, sizeof(buf));
	assert_int_equal(n, 28);
	assert_int_equal(udpbench_decode_setup(p, 15, &out), -ENODATA);
	assert_int_equal(udpbench_decode_setup(p, 0, &out), -ENODATA);
	assert_int_equal(udpbench_decode_setup(p, 17, &out), -EBADMSG);
	p[15] = 1; /* flags must be 0 */
	assert_int_equal(udpbench_decode_setup(p, 16, &out), -EBADMSG);
	p[15] = 0;

	struct {
		uint32_t duration, msize, rcvbuf;
		uint16_t streams;
	} bad[] = {
	    {0, 8000, 0, 1},
	    {3601, 8000, 0, 1},
	    {10, 23, 0, 1},
	    {10, 65508, 0, 1},
	    {10, 8000, (1u << 30) + 1, 1},
	    {10, 8000, 0, 0},
	    {10, 8000, 0, 65},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* Encoders refuse what decoders reject... */
		s = (struct udpb_setup){bad[i].duration, bad[i].msize, bad[i].rcvbuf, bad[i].streams};
		assert_int_equal(udpbench_encode_setup(&s, buf, sizeof(buf)), -ERANGE);
		/* ...and decoders reject it from raw bytes. */
		n = udpbench_encode_setup(&good_setup, buf, sizeof(buf));
		assert_int_equal(n, 28);
		p[0] = bad[i].duration >> 24, p[1] = bad[i].duration >> 16, p[2] = bad[i].duration >> 8,
		p[3] = bad[i].duration & 0xff;
		p[4] = bad[i].msize >> 24, p[5] = bad[i].msize >> 16, p[6] = bad[i].msize >> 8,
		p[7] = bad[i].msize & 0xff;
		p[8] = bad[i].rcvbuf >> 24, p[9] = bad[i].rcvbuf >> 16, p[10] = bad[i].rcvbuf >> 8,
		p[11] = bad[i].rcvbuf & 0xff;
		p[12] = bad[i].streams >> 8, p[13] = bad[i].streams & 0xff;
		assert_int_equal(udpbench_decode_setup(p, 16, &out), -ERANGE);
	}
	/* Limits themselves are accepted. */
	s = (struct udpb_setup){UDPB_MAX_DURATION, UDPB_MAX_MESSAGE, UDPB_MAX_RECV_BUFFER, UDPB_MAX_STREAMS};
	n = udpbench_encode_setup(&s, buf, sizeof(buf));
	assert_int_equal(udpbench_decode_setup(p, 16, &out), 0);
	s = (struct udpb_setup){1, UDPB_MIN_MESSAGE, 0, 1};
	n = udpbench_encode_setup(&s, buf, sizeof(buf));
	assert_int_equal(udpbench_decode_setup(p, 16, &out), 0);
	assert_int_equal(udpbench_encode_setup(&good_setup, buf, 27), -ENOBUFS);
}

static void test_header_errors(void **state)
{
	struct udpb_header h;
	int n;

	(void)state;
	n = udpbench_encode_setup(&good_setup, buf, sizeof(buf));
	for (int k = 0; k < UDPB_FRAME_HDR; k++)
		assert_int_equal(udpbench_decode_header(buf, (size_t)k, &h), -ENODATA);
	assert_int_equal(udpbench_decode_header(buf, (size_t)n, &h), 0);

	buf[0] = 'X';
	assert_int_equal(udpbench_decode_header(buf, 12, &h), -EBADMSG);
	buf[0] = 'C';
	buf[4] = 2; /* a future version */
	assert_int_equal(udpbench_decode_header(buf, 12, &h), -EPROTONOSUPPORT);
	buf[4] = 0;
	assert_int_equal(udpbench_decode_header(buf, 12, &h), -EPROTONOSUPPORT);
	buf[4] = UDPB_VERSION;
	buf[6] = 1; /* reserved */
	assert_int_equal(udpbench_decode_header(buf, 12, &h), -EBADMSG);
	buf[6] = 0;
	buf[5] = 0;
	assert_int_equal(udpbench_decode_header(buf, 12, &h), -EPROTO);
	buf[5] = _UDPB_TYPE_MAX;
	assert_int_equal(udpbench_decode_header(buf, 12, &h), -EPROTO);
	buf[5] = UDPB_SETUP;
	/* length UDPB_MAX_PAYLOAD + 1, and a huge one */
	buf[8] = 0, buf[9] = 0, buf[10] = 0x40, buf[11] = 0x01;
	assert_int_equal(udpbench_decode_header(buf, 12, &h), -EMSGSIZE);
	buf[8] = 0xff, buf[9] = 0xff, buf[10] = 0xff, buf[11] = 0xff;
	assert_int_equal(udpbench_decode_header(buf, 12, &h), -EMSGSIZE);
	buf[8] = 0, buf[9] = 0, buf[10] = 0x40, buf[11] = 0x00;
	assert_int_equal(udpbench_decode_header(buf, 12, &h), 0);
	assert_int_equal(h.length, UDPB_MAX_PAYLOAD);
}

static void test_ready(void **state)
{
	struct udpb_ready m = {.cookie = 0x0123456789abcdefull,
			       .recv_buffer = 425984,
			       .streams = 3,
			       .ports = {40000, 40001, 65535}},
			  out;
	uint8_t *p = buf + UDPB_FRAME_HDR;
	const uint8_t *pl;
	size_t len;
	int n;

	(void)state;
	n = udpbench_encode_ready(&m, buf, sizeof(buf));
	assert_int_equal(n, UDPB_FRAME_HDR + 16 + 6);
	pl = payload(n, UDPB_READY, &len);
	assert_int_equal(udpbench_decode_ready(pl, len, &out), 0);
	assert_true(out.cookie == m.cookie);
	assert_int_equal(out.recv_buffer, 425984);
	assert_int_equal(out.streams, 3);
	assert_int_equal(out.ports[0], 40000);
	assert_int_equal(out.ports[2], 65535);

	assert_int_equal(udpbench_decode_ready(p, 15, &out), -ENODATA);
	assert_int_equal(udpbench_decode_ready(p, len - 1, &out), -ENODATA);
	assert_int_equal(udpbench_decode_ready(p, len + 1, &out), -EBADMSG);
	p[21] = 0, p[20] = 0; /* port 0 */
	assert_int_equal(udpbench_decode_ready(p, len, &out), -ERANGE);
	p[13] = 0; /* streams 0 */
	assert_int_equal(udpbench_decode_ready(p, len, &out), -ERANGE);
	p[13] = 65;
	assert_int_equal(udpbench_decode_ready(p, len, &out), -ERANGE);
	p[13] = 3;
	p[14] = 1;
	assert_int_equal(udpbench_decode_ready(p, len, &out), -EBADMSG);

	m.streams = 0;
	assert_int_equal(udpbench_encode_ready(&m, buf, sizeof(buf)), -ERANGE);
	m.streams = 1;
	m.ports[0] = 0;
	assert_int_equal(udpbench_encode_ready(&m, buf, sizeof(buf)), -ERANGE);
}

static void test_done(void **state)
{
	struct udpb_done m = {.send_usec = 10000123, .streams = 2, .sent = {1, UINT64_MAX}}, out;
	uint8_t *p = buf + UDPB_FRAME_HDR;
	const uint8_t *pl;
	size_t len;
	int n;

	(void)state;
	n = udpbench_encode_done(&m, buf, sizeof(buf));
	assert_int_equal(n, UDPB_FRAME_HDR + 12 + 16);
	pl = payload(n, UDPB_DONE, &len);
	assert_int_equal(udpbench_decode_done(pl, len, &out), 0);
	assert_true(out.send_usec == 10000123);
	assert_int_equal(out.streams, 2);
	assert_true(out.sent[0] == 1 && out.sent[1] == UINT64_MAX);

	assert_int_equal(udpbench_decode_done(p, 11, &out), -ENODATA);
	assert_int_equal(udpbench_decode_done(p, len - 8, &out), -ENODATA);
	assert_int_equal(udpbench_decode_done(p, len + 8, &out), -EBADMSG);
	p[9] = 0;
	assert_int_equal(udpbench_decode_done(p, len, &out), -ERANGE);
	p[9] = 2;
	p[10] = 9;
	assert_int_equal(udpbench_decode_done(p, len, &out), -EBADMSG);
	m.streams = UDPB_MAX_STREAMS + 1;
	assert_int_equal(udpbench_encode_done(&m, buf, sizeof(buf)), -ERANGE);
}

static void test_report(void **state)
{
	static struct udpb_report m, out;
	uint8_t *p = buf + UDPB_FRAME_HDR;
	const uint8_t *pl;
	size_t len;
	int n;

	(void)state;
	m.window_usec = 9999000;
	m.streams = 2;
	m.stream[0] = (struct udpb_stream_report){100, 800000, 120, 3, 9998000};
	m.stream[1] = (struct udpb_stream_report){0, 0, 0, 0, 0};
	m.ncpus = UDPB_MAX_CPUS;
	for (unsigned i = 0; i < m.ncpus; i++)
		m.cpu[i] = (struct udpb_cpu_load){i * 2, i % 10001};
	m.cpu[1].softirq_centipct = 10000;
	n = udpbench_encode_report(&m, buf, sizeof(buf));
	assert_int_equal(n, UDPB_FRAME_HDR + 12 + 2 * 40 + UDPB_MAX_CPUS * 8);
	assert_true(n <= (int)sizeof(buf)); /* the largest report fits one frame */
	pl = payload(n, UDPB_REPORT, &len);
	assert_int_equal(udpbench_decode_report(pl, len, &out), 0);
	assert_true(out.window_usec == 9999000);
	assert_int_equal(out.streams, 2);
	assert_int_equal(out.ncpus, UDPB_MAX_CPUS);
	assert_memory_equal(&out.stream[0], &m.stream[0], sizeof(m.stream[0]));
	assert_int_equal(out.cpu[511].cpu, 1022);
	assert_int_equal(out.cpu[1].softirq_centipct, 10000);

	assert_int_equal(udpbench_decode_report(p, 11, &out), -ENODATA);
	assert_int_equal(udpbench_decode_report(p, len - 1, &out), -ENODATA);
	assert_int_equal(udpbench_decode_report(p, len + 1, &out), -EBADMSG);
	/* softirq above 100 % */
	p[12 + 80 + 8 + 4 + 2] = 0x27, p[12 + 80 + 8 + 4 + 3] = 0x11;
	assert_int_equal(udpbench_decode_report(p, len, &out), -ERANGE);
	p[10] = 0x02, p[11] = 0x01; /* ncpus 513 */
	assert_int_equal(udpbench_decode_report(p, len, &out), -ERANGE);
	p[8] = 0, p[9] = 0; /* streams 0 */
	assert_int_equal(udpbench_decode_report(p, len, &out), -ERANGE);

	m.cpu[0].softirq_centipct = 10001;
	assert_int_equal(udpbench_encode_report(&m, buf, sizeof(buf)), -ERANGE);
	m.cpu[0].softirq_centipct = 0;
	assert_int_equal(udpbench_encode_report(&m, buf, 100), -ENOBUFS);
}

static void test_state_request(void **state)
{
	uint8_t *p = buf + UDPB_FRAME_HDR;
	const uint8_t *pl;
	size_t len;
	int n;

	(void)state;
	n = udpbench_encode_state_request(1, buf, sizeof(buf));
	assert_int_equal(n, UDPB_FRAME_HDR + 4);
	assert_memory_equal(buf, "C5UB\x01\x06\x00\x00\x00\x00\x00\x04\x00\x01\x00\x00", 16);
	pl = payload(n, UDPB_STATE_REQUEST, &len);
	assert_int_equal(udpbench_decode_state_request(pl, len), 1);
	assert_int_equal(udpbench_encode_state_request(2, buf, sizeof(buf)), UDPB_FRAME_HDR + 4);
	assert_memory_equal(buf + UDPB_FRAME_HDR, "\x00\x02\x00\x00", 4);
	assert_int_equal(udpbench_decode_state_request(p, 4), 2);
	assert_int_equal(udpbench_decode_state_request(p, 3), -ENODATA);
	assert_int_equal(udpbench_decode_state_request(p, 5), -EBADMSG);
	p[3] = 1; /* reserved */
	assert_int_equal(udpbench_decode_state_request(p, 4), -EBADMSG);
	p[3] = 0, p[1] = 3; /* a later state version */
	assert_int_equal(udpbench_decode_state_request(p, 4), -EPROTONOSUPPORT);
	p[1] = 0;
	assert_int_equal(udpbench_decode_state_request(p, 4), -EPROTONOSUPPORT);
	assert_int_equal(udpbench_encode_state_request(1, buf, 15), -ENOBUFS);
	assert_int_equal(udpbench_encode_state_request(3, buf, sizeof(buf)), -ERANGE);
}

static void fill_state(struct udpb_state *m)
{
	memset(m, 0, sizeof(*m));
	m->version = 1;
	m->present = UDPB_STATE_MTU | UDPB_STATE_RMEM_MAX | UDPB_STATE_RINGS;
	m->mtu = 9000;
	m->rmem_max = 4194304;
	m->rx_ring = 1024, m->rx_ring_max = 8192, m->tx_ring = 1024, m->tx_ring_max = 8192;
	strcpy(m->ifname, "ens1f0");
	strcpy(m->driver, "mlx5_core");
	strcpy(m->driver_version, "5.8-1.0.1");
	strcpy(m->firmware, "16.35.2000 (MT_0000000080)");
	strcpy(m->pci_id, "15b3:1017");
	m->ncounters = 2;
	strcpy(m->counter[0].name, "rx_out_of_buffer");
	m->counter[0].value = 12;
	strcpy(m->counter[1].name, "rx_discards_phy");
	m->ncpus = UDPB_MAX_CPUS;
	for (unsigned i = 0; i < m->ncpus; i++)
		m->cpu[i] = (struct udpb_state_cpu){i, i * 3, i * 100, i % 7};
}

static void test_state(void **state)
{
	static struct udpb_state m, out;
	uint8_t *p = buf + UDPB_FRAME_HDR;
	const uint8_t *pl;
	size_t len, texts;
	int n;

	(void)state;
	fill_state(&m);
	n = udpbench_encode_state(&m, buf, sizeof(buf));
	texts = 1 + 6 + 1 + 9 + 1 + 9 + 1 + 26 + 1 + 9;
	assert_int_equal(n, UDPB_FRAME_HDR + 44 + texts + 2 + (1 + 16 + 8) + (1 + 15 + 8) + 2 +
				UDPB_MAX_CPUS * 28);
	assert_true(n <= (int)sizeof(buf)); /* the largest state fits one frame */
	pl = payload(n, UDPB_STATE, &len);
	assert_int_equal(udpbench_decode_state(pl, len, &out), 0);
	assert_memory_equal(&out, &m, sizeof(m));

	/* Hostile replies: each error for its cause, nothing trusted. */
	assert_int_equal(udpbench_decode_state(p, 43, &out), -ENODATA);
	assert_int_equal(udpbench_decode_state(p, len - 1, &out), -ENODATA);
	assert_int_equal(udpbench_decode_state(p, len + 1, &out), -EBADMSG);
	p[3] |= 0x80; /* an unknown present bit */
	assert_int_equal(udpbench_decode_state(p, len, &out), -EBADMSG);
	p[3] &= 0x7f;
	p[3] &= (uint8_t)~UDPB_STATE_MTU; /* mtu says unknown but carries 9000 */
	assert_int_equal(udpbench_decode_state(p, len, &out), -EBADMSG);
	p[3] |= UDPB_STATE_MTU;
	p[44] = 64; /* ifname text longer than the limit */
	assert_int_equal(udpbench_decode_state(p, len, &out), -ERANGE);
	p[44] = 7; /* the ifname runs into the next text's length byte */
	assert_int_equal(udpbench_decode_state(p, len, &out), -EBADMSG);
	p[44] = 6;
	p[45] = '\n'; /* not printable */
	assert_int_equal(udpbench_decode_state(p, len, &out), -EBADMSG);
	p[45] = 'e';
	p[44 + texts] = 0, p[44 + texts + 1] = 33; /* 33 counters */
	assert_int_equal(udpbench_decode_state(p, len, &out), -ERANGE);
	p[44 + texts + 1] = 2;
	p[44 + texts + 2] = 0; /* an empty counter name */
	assert_int_equal(udpbench_decode_state(p, len, &out), -EBADMSG);
	p[44 + texts + 2] = 16;
	p[len - UDPB_MAX_CPUS * 28 - 2] = 0x02, p[len - UDPB_MAX_CPUS * 28 - 1] = 0x01; /* 513 CPUs */
	assert_int_equal(udpbench_decode_state(p, len, &out), -ERANGE);
	p[0] = 0, p[1] = 3;
	assert_int_equal(udpbench_decode_state(p, len, &out), -EPROTONOSUPPORT);

	/* The encoder refuses what the decoder would. */
	strcpy(m.ifname, "0123456789abcdef"); /* 16 bytes: not an interface name */
	assert_int_equal(udpbench_encode_state(&m, buf, sizeof(buf)), -ERANGE);
	strcpy(m.ifname, "ens1f0");
	strcpy(m.firmware, "fw\x01");
	assert_int_equal(udpbench_encode_state(&m, buf, sizeof(buf)), -ERANGE);
	strcpy(m.firmware, "ok");
	m.counter[1].name[0] = '\0';
	assert_int_equal(udpbench_encode_state(&m, buf, sizeof(buf)), -ERANGE);
	strcpy(m.counter[1].name, "x");
	m.present |= 0x100;
	assert_int_equal(udpbench_encode_state(&m, buf, sizeof(buf)), -ERANGE);
	m.present &= 0xff;
	assert_int_equal(udpbench_encode_state(&m, buf, 100), -ENOBUFS);
}

/* Version 2: the same facts, then the kernel counters of the ledger. */
static void test_state_v2(void **state)
{
	static struct udpb_state m, out;
	uint8_t *p = buf + UDPB_FRAME_HDR;
	const uint8_t *pl;
	size_t len, v1len, at;
	int n;

	(void)state;
	fill_state(&m);
	m.ncpus = 2;
	memset(&m.cpu[2], 0, sizeof(m.cpu) - 2 * sizeof(m.cpu[0]));
	n = udpbench_encode_state(&m, buf, sizeof(buf));
	v1len = (size_t)n - UDPB_FRAME_HDR;
	m.version = 2;
	m.nnet = 2;
	strcpy(m.net[0].name, "UdpRcvbufErrors");
	m.net[0].value = 1182340;
	strcpy(m.net[1].name, "softnet.dropped.cpu3");
	m.net[1].value = UINT64_MAX;
	n = udpbench_encode_state(&m, buf, sizeof(buf));
	assert_int_equal(n, UDPB_FRAME_HDR + v1len + 4 + (1 + 15 + 8) + (1 + 20 + 8));
	pl = payload(n, UDPB_STATE, &len);
	assert_memory_equal(pl, "\x00\x02", 2);
	assert_memory_equal(pl + v1len, "\x00\x01\x00\x02\x0fUdpRcvbufErrors", 20);
	assert_int_equal(udpbench_decode_state(pl, len, &out), 0);
	assert_memory_equal(&out, &m, sizeof(m));

	at = v1len; /* counters_version */
	p[at + 1] = 2;
	assert_int_equal(udpbench_decode_state(p, len, &out), -EPROTONOSUPPORT);
	p[at + 1] = 1;
	p[at + 4 + 1 + 3] = '-'; /* "Udp-cvbufErrors": not a counter name */
	assert_int_equal(udpbench_decode_state(p, len, &out), -EBADMSG);
	p[at + 4 + 1 + 3] = 'R';
	assert_int_equal(udpbench_decode_state(p, len - 1, &out), -ENODATA);
	assert_int_equal(udpbench_decode_state(p, len + 1, &out), -EBADMSG);
	assert_int_equal(udpbench_decode_state(p, at + 2, &out), -ENODATA); /* no nnet */
	p[at + 2] = 0x01;						    /* 258 counters */
	assert_int_equal(udpbench_decode_state(p, len, &out), -ERANGE);
	p[at + 2] = 0;

	/* The encoder keeps what fits the payload, in order. */
	m.ncpus = UDPB_MAX_CPUS;
	m.nnet = UDPB_MAX_NET_COUNTERS;
	for (unsigned i = 0; i < m.nnet; i++)
		snprintf(m.net[i].name, sizeof(m.net[i].name), "softnet.dropped.cpu%u", i);
	n = udpbench_encode_state(&m, buf, sizeof(buf));
	assert_true(n > 0 && n <= UDPB_FRAME_HDR + UDPB_MAX_PAYLOAD);
	pl = payload(n, UDPB_STATE, &len);
	assert_int_equal(udpbench_decode_state(pl, len, &out), 0);
	assert_true(out.nnet > 0 && out.nnet < UDPB_MAX_NET_COUNTERS);
	assert_string_equal(out.net[out.nnet - 1].name, m.net[out.nnet - 1].name);
	strcpy(m.net[0].name, "a b");
	assert_int_equal(udpbench_encode_state(&m, buf, sizeof(buf)), -ERANGE);
	m.version = 0;
	assert_int_equal(udpbench_encode_state(&m, buf, sizeof(buf)), -ERANGE);
}

static void test_error_msg(void **state)
{
	struct udpb_error_msg out;
	char longtext[400];
	uint8_t *p = buf + UDPB_FRAME_HDR;
	const uint8_t *pl;
	size_t len;
	int n;

	(void)state;
	n = udpbench_encode_error(UDPB_ERR_BUSY, "busy: retry", buf, sizeof(buf));
	pl = payload(n, UDPB_ERROR, &len);
	assert_int_equal(udpbench_decode_error(pl, len, &out), 0);
	assert_int_equal(out.code, UDPB_ERR_BUSY);
	assert_string_equal(out.text, "busy: retry");

	/* Control characters are replaced, long text is cut. */
	n = udpbench_encode_error(1, "a\nb\x1b", buf, sizeof(buf));
	pl = payload(n, UDPB_ERROR, &len);
	assert_int_equal(udpbench_decode_error(pl, len, &out), 0);
	assert_string_equal(out.text, "a?b?");
	memset(longtext, 'x', sizeof(longtext) - 1);
	longtext[sizeof(longtext) - 1] = '\0';
	n = udpbench_encode_error(1, longtext, buf, sizeof(buf));
	pl = payload(n, UDPB_ERROR, &len);
	assert_int_equal(len, 4 + UDPB_MAX_ERROR_TEXT);
	assert_int_equal(udpbench_decode_error(pl, len, &out), 0);
	assert_int_equal(strlen(out.text), UDPB_MAX_ERROR_TEXT);

	n = udpbench_encode_error(1, "abc", buf, sizeof(buf));
	assert_int_equal(udpbench_decode_error(p, 3, &out), -ENODATA);
	assert_int_equal(udpbench_decode_error(p, 6, &out), -ENODATA);
	assert_int_equal(udpbench_decode_error(p, 8, &out), -EBADMSG);
	p[5] = 0x07;
	assert_int_equal(udpbench_decode_error(p, 7, &out), -EBADMSG);
	p[2] = 0x01, p[3] = 0x00; /* 256 bytes of text */
	assert_int_equal(udpbench_decode_error(p, 4 + 256, &out), -ERANGE);
}

static void test_dgram(void **state)
{
	struct udpb_dgram d = {.stream = 7, .cookie = 0xfeedfacecafebeefull, .seq = 1ull << 40}, out;
	uint8_t p[UDPB_DGRAM_HDR];

	(void)state;
	udpbench_encode_dgram(&d, p);
	assert_memory_equal(p, "C5UD\x00\x07\x00\x00", 8);
	assert_int_equal(udpbench_decode_dgram(p, sizeof(p), &out), 0);
	assert_int_equal(out.stream, 7);
	assert_true(out.cookie == d.cookie && out.seq == d.seq);
	assert_int_equal(udpbench_decode_dgram(p, UDPB_DGRAM_HDR - 1, &out), -ENODATA);
	p[7] = 1;
	assert_int_equal(udpbench_decode_dgram(p, sizeof(p), &out), -EBADMSG);
	p[7] = 0;
	p[3] = 'B';
	assert_int_equal(udpbench_decode_dgram(p, sizeof(p), &out), -EBADMSG);
}

static void test_type_names(void **state)
{
	(void)state;
	assert_string_equal(udpb_type_to_string(UDPB_SETUP), "setup");
	assert_string_equal(udpb_type_to_string(UDPB_ERROR), "error");
	assert_string_equal(udpb_type_to_string(UDPB_STATE_REQUEST), "state-request");
	assert_string_equal(udpb_type_to_string(UDPB_STATE), "state");
	assert_null(udpb_type_to_string(0));
	assert_null(udpb_type_to_string(_UDPB_TYPE_MAX));
}

/* Random bytes (deterministic seed) into every decoder: each returns 0 or
 * a -errno, writes its output only on success, and what it accepts is
 * within the protocol's limits; some inputs get past the magic and decode
 * as a header, most do not. */
static bool untouched(const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (((const uint8_t *)p)[i] != 0xa5)
			return false;
	return true;
}

#define DECODES(rc, out)                                                                                     \
	do {                                                                                                 \
		assert_true((rc) <= 0 && (rc) > -4096);                                                      \
		if ((rc) < 0)                                                                                \
			assert_true(untouched(&(out), sizeof(out)));                                         \
	} while (0)

static void test_random_bytes(void **state)
{
	static struct udpb_report rep;
	uint8_t r[256];
	uint32_t x = 12345;
	unsigned headers = 0, refused = 0, setups = 0;

	(void)state;
	for (int it = 0; it < 200000; it++) {
		size_t len = 0;
		int rc;
		struct udpb_header h;
		struct udpb_setup su;
		struct udpb_ready rd;
		struct udpb_done d;
		struct udpb_error_msg e;
		struct udpb_dgram g;

		for (size_t i = 0; i < sizeof(r); i++) {
			x = x * 1103515245u + 12345u;
			r[i] = (uint8_t)(x >> 16);
		}
		len = r[0];
		if (it % 3 == 0) { /* get past the magic, the version and the reserved field sometimes */
			memcpy(r, "C5UB\x01", 5);
			r[6] = r[7] = r[8] = r[9] = 0;
		}
		memset(&h, 0xa5, sizeof(h));
		rc = udpbench_decode_header(r, len, &h);
		DECODES(rc, h);
		if (rc == 0) {
			headers++;
			assert_int_equal(h.version, UDPB_VERSION);
			assert_non_null(udpb_type_to_string(h.type));
			assert_true(h.length <= UDPB_MAX_PAYLOAD);
		} else {
			refused++;
		}
		memset(&su, 0xa5, sizeof(su));
		rc = udpbench_decode_setup(r, len, &su);
		DECODES(rc, su);
		if (rc == 0) {
			setups++;
			assert_true(su.duration_s >= 1 && su.duration_s <= UDPB_MAX_DURATION);
			assert_true(su.message_size >= UDPB_MIN_MESSAGE &&
				    su.message_size <= UDPB_MAX_MESSAGE);
			assert_true(su.streams >= 1 && su.streams <= UDPB_MAX_STREAMS);
			assert_true(su.recv_buffer <= UDPB_MAX_RECV_BUFFER);
		}
		memset(&rd, 0xa5, sizeof(rd));
		rc = udpbench_decode_ready(r, len, &rd);
		DECODES(rc, rd);
		memset(&d, 0xa5, sizeof(d));
		rc = udpbench_decode_done(r, len, &d);
		DECODES(rc, d);
		memset(&e, 0xa5, sizeof(e));
		rc = udpbench_decode_error(r, len, &e);
		DECODES(rc, e);
		if (rc == 0)
			assert_true(memchr(e.text, '\0', sizeof(e.text)) != NULL); /* always terminated */
		memset(&g, 0xa5, sizeof(g));
		rc = udpbench_decode_dgram(r, len, &g);
		DECODES(rc, g);
		if (it % 100 == 0) { /* the report is 30 KiB: its sentinel now and then */
			memset(&rep, 0xa5, sizeof(rep));
			rc = udpbench_decode_report(r, len, &rep);
			DECODES(rc, rep);
			if (rc == 0)
				assert_true(rep.streams <= UDPB_MAX_STREAMS && rep.ncpus <= UDPB_MAX_CPUS);
		} else {
			rc = udpbench_decode_report(r, len, &rep);
			assert_true(rc <= 0 && rc > -4096);
		}
	}
	/* the loop covered both sides of the header check, and random bytes
	 * almost never make a whole valid setup */
	assert_true(headers > 100);
	assert_true(refused > 100000);
	assert_true(setups < 10);
}

static void test_recv_frame(void **state)
{
	static uint8_t in[BUFCAP];
	size_t len = 0;
	int sv[2], n;

	(void)state;
	/* A whole frame. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	n = udpbench_encode_setup(&good_setup, buf, sizeof(buf));
	assert_int_equal(udpbench_send_all(sv[0], buf, (size_t)n, now_usec() + 1000000), 0);
	assert_int_equal(udpbench_recv_frame(sv[1], in, UDPB_MAX_PAYLOAD, &len, now_usec() + 1000000),
			 UDPB_SETUP);
	assert_int_equal(len, 16);
	/* Silence: the deadline ends the wait. */
	uint64_t t0 = now_usec();
	assert_int_equal(udpbench_recv_frame(sv[1], in, UDPB_MAX_PAYLOAD, &len, now_usec() + 100000),
			 -ETIMEDOUT);
	assert_true(now_usec() - t0 < 1000000);
	/* Half a frame, then silence (slowloris): timeout too. */
	assert_int_equal(udpbench_send_all(sv[0], buf, 20, now_usec() + 1000000), 0);
	assert_int_equal(udpbench_recv_frame(sv[1], in, UDPB_MAX_PAYLOAD, &len, now_usec() + 100000),
			 -ETIMEDOUT);
	close(sv[0]);
	close(sv[1]);

	/* Closed inside a frame: truncated; closed between frames: reset. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(udpbench_send_all(sv[0], buf, 20, now_usec() + 1000000), 0);
	close(sv[0]);
	assert_int_equal(udpbench_recv_frame(sv[1], in, UDPB_MAX_PAYLOAD, &len, now_usec() + 1000000),
			 -ENODATA);
	close(sv[1]);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	close(sv[0]);
	assert_int_equal(udpbench_recv_frame(sv[1], in, UDPB_MAX_PAYLOAD, &len, now_usec() + 1000000),
			 -ECONNRESET);
	close(sv[1]);

	/* An oversized length is refused before any payload is read, and a
	 * length above the caller's buffer too. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	memcpy(buf, "C5UB\x01\x01\x00\x00\x7f\xff\xff\xff", 12);
	assert_int_equal(udpbench_send_all(sv[0], buf, 12, now_usec() + 1000000), 0);
	assert_int_equal(udpbench_recv_frame(sv[1], in, UDPB_MAX_PAYLOAD, &len, now_usec() + 1000000),
			 -EMSGSIZE);
	n = udpbench_encode_setup(&good_setup, buf, sizeof(buf));
	assert_int_equal(udpbench_send_all(sv[0], buf, (size_t)n, now_usec() + 1000000), 0);
	assert_int_equal(udpbench_recv_frame(sv[1], in, 8, &len, now_usec() + 1000000), -EMSGSIZE);
	close(sv[0]);
	close(sv[1]);
}

/* udpsink_refuse: the ERROR frame goes out, and the lingering read that
 * follows ends by its 200 ms deadline whatever the client does (review
 * finding: a second clock reading past the deadline made poll's timeout
 * wrap to ~14 days). */
static void test_refuse_bounded(void **state)
{
	static uint8_t in[BUFCAP];
	static uint8_t junk[65536];
	struct udpb_error_msg em;
	size_t len = 0;
	uint64_t t0;
	int sv[2];

	(void)state;
	/* A silent client that keeps the connection open. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	t0 = now_usec();
	udpsink_refuse(sv[1], UDPB_ERR_BUSY, "busy: another test is running, retry later");
	assert_true(now_usec() - t0 < 1000000);
	assert_int_equal(udpbench_recv_frame(sv[0], in, UDPB_MAX_PAYLOAD, &len, now_usec() + 1000000),
			 UDPB_ERROR);
	assert_int_equal(udpbench_decode_error(in, len, &em), 0);
	assert_int_equal(em.code, UDPB_ERR_BUSY);
	assert_string_equal(em.text, "busy: another test is running, retry later");
	close(sv[0]);
	close(sv[1]);

	/* A client that has sent more than the lingering read takes. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(udpbench_send_all(sv[0], junk, sizeof(junk), now_usec() + 1000000), 0);
	t0 = now_usec();
	udpsink_refuse(sv[1], UDPB_ERR_PROTOCOL, "truncated frame");
	assert_true(now_usec() - t0 < 1000000);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_setup_roundtrip),
	    cmocka_unit_test(test_setup_errors),
	    cmocka_unit_test(test_header_errors),
	    cmocka_unit_test(test_ready),
	    cmocka_unit_test(test_done),
	    cmocka_unit_test(test_report),
	    cmocka_unit_test(test_state_request),
	    cmocka_unit_test(test_state),
	    cmocka_unit_test(test_state_v2),
	    cmocka_unit_test(test_error_msg),
	    cmocka_unit_test(test_dgram),
	    cmocka_unit_test(test_type_names),
	    cmocka_unit_test(test_random_bytes),
	    cmocka_unit_test(test_recv_frame),
	    cmocka_unit_test(test_refuse_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
