/* fuzz_udpbench.c: the `serve`/`bench` control protocol decoders
 * (engine/bench/udpbench.h).
 *
 * Input: a control frame as it arrives on the TCP connection (12-byte
 * header, then the payload), decoded as the peers do: header first, then
 * the payload by type (STATE requests and hostile STATE replies included). Inputs starting "C5UD" are test
 * datagrams instead. Contract checked: only the listed errnos; a decoded message re-encodes to exactly the
 * input bytes (the format has one encoding per message), so nothing the decoder accepts is outside what the
 * encoder may send. The same bytes also go through udpbench_recv_frame() over a socketpair (no network) to
 * cover the framing with a peer that closes early. */
#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/udpbench.h"
#include "fuzz.h"

static uint8_t out[UDPB_FRAME_HDR + UDPB_MAX_PAYLOAD];

static void check_same(int n, const uint8_t *data, size_t size)
{
	fuzz_check(n >= 0 && (size_t)n == size);
	fuzz_check(memcmp(out, data, size) == 0);
}

static void decode_payload(const struct udpb_header *h, const uint8_t *data, size_t size)
{
	static const int errors[] = {EBADMSG, ENODATA, ERANGE, 0};
	static const int state_errors[] = {EBADMSG, ENODATA, ERANGE, EPROTONOSUPPORT, 0};
	static struct udpb_report report;
	static struct udpb_state st;
	const uint8_t *p = data + UDPB_FRAME_HDR;
	size_t len = h->length;
	union {
		struct udpb_setup setup;
		struct udpb_ready ready;
		struct udpb_done done;
		struct udpb_error_msg error;
	} m;
	int r, n = 0;

	memset(&m, 0, sizeof(m));
	switch (h->type) {
	case UDPB_SETUP:
		r = udpbench_decode_setup(p, len, &m.setup);
		if (r == 0)
			n = udpbench_encode_setup(&m.setup, out, sizeof(out));
		break;
	case UDPB_READY:
		r = udpbench_decode_ready(p, len, &m.ready);
		if (r == 0)
			n = udpbench_encode_ready(&m.ready, out, sizeof(out));
		break;
	case UDPB_DONE:
		r = udpbench_decode_done(p, len, &m.done);
		if (r == 0)
			n = udpbench_encode_done(&m.done, out, sizeof(out));
		break;
	case UDPB_REPORT:
		r = udpbench_decode_report(p, len, &report);
		if (r == 0)
			n = udpbench_encode_report(&report, out, sizeof(out));
		break;
	case UDPB_ERROR:
		r = udpbench_decode_error(p, len, &m.error);
		if (r == 0) {
			fuzz_check(strlen(m.error.text) <= UDPB_MAX_ERROR_TEXT);
			n = udpbench_encode_error(m.error.code, m.error.text, out, sizeof(out));
		}
		break;
	case UDPB_STATE_REQUEST:
		r = udpbench_decode_state_request(p, len);
		if (r < 0) {
			fuzz_check(fuzz_errno_in(r, state_errors));
			return;
		}
		fuzz_check(r >= 1 && r <= UDPB_STATE_VERSION);
		n = udpbench_encode_state_request((uint16_t)r, out, sizeof(out));
		r = 0;
		break;
	case UDPB_STATE:
		memset(&st, 0, sizeof(st));
		r = udpbench_decode_state(p, len, &st);
		if (r < 0) {
			fuzz_check(fuzz_errno_in(r, state_errors));
			return;
		}
		fuzz_check(st.ncounters <= UDPB_MAX_COUNTERS && st.ncpus <= UDPB_MAX_CPUS);
		fuzz_check(st.nnet <= UDPB_MAX_NET_COUNTERS && (st.version == 2 || st.nnet == 0));
		fuzz_check(strlen(st.ifname) < 16 && strlen(st.firmware) <= UDPB_MAX_STATE_TEXT);
		n = udpbench_encode_state(&st, out, sizeof(out));
		break;
	default:
		fuzz_check(!"decode_header accepted an unknown type");
		return;
	}
	if (r < 0) {
		fuzz_check(fuzz_errno_in(r, errors));
		return;
	}
	fuzz_check(r == 0);
	check_same(n, data, size);
}

/* Deliver the bytes over a socketpair and close: recv_frame must return a
 * type, or an error, before the deadline; never hang or overrun. */
static void recv_over_socket(const uint8_t *data, size_t size)
{
	static const int errors[] = {ENODATA,  ECONNRESET, EBADMSG,   EPROTONOSUPPORT,
				     EMSGSIZE, EPROTO,	   ETIMEDOUT, 0};
	static uint8_t buf[UDPB_MAX_PAYLOAD];
	size_t len = 0;
	int sv[2], r;

	if (size > 65536 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return;
	r = udpbench_send_all(sv[0], data, size, now_usec() + 1000000);
	close(sv[0]);
	if (r == 0) {
		r = udpbench_recv_frame(sv[1], buf, sizeof(buf), &len, now_usec() + 1000000);
		if (r >= 0) {
			struct udpb_header h;
			fuzz_check(udpbench_decode_header(data, size, &h) == 0);
			fuzz_check(r == h.type && len == h.length && len <= sizeof(buf));
			fuzz_check(memcmp(buf, data + UDPB_FRAME_HDR, len) == 0);
		} else {
			fuzz_check(fuzz_errno_in(r, errors));
		}
	}
	close(sv[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int header_errors[] = {ENODATA, EBADMSG, EPROTONOSUPPORT, EPROTO, EMSGSIZE, 0};
	struct udpb_header h;
	int r;

	if (size >= 4 && memcmp(data, "C5UD", 4) == 0) {
		struct udpb_dgram d;
		r = udpbench_decode_dgram(data, size, &d);
		if (r < 0) {
			fuzz_check(r == -ENODATA || r == -EBADMSG);
			return 0;
		}
		udpbench_encode_dgram(&d, out);
		check_same(UDPB_DGRAM_HDR, data, UDPB_DGRAM_HDR);
		return 0;
	}

	r = udpbench_decode_header(data, size, &h);
	if (r < 0) {
		fuzz_check(fuzz_errno_in(r, header_errors));
	} else {
		fuzz_check(h.version == UDPB_VERSION && h.length <= UDPB_MAX_PAYLOAD);
		fuzz_check(udpb_type_to_string((enum udpb_type)h.type) != NULL);
		/* The peers read exactly h.length bytes after the header. */
		if (size - UDPB_FRAME_HDR == h.length)
			decode_payload(&h, data, size);
	}
	recv_over_socket(data, size);
	return 0;
}
