/* udpsend.c: the sender of the built-in UDP benchmark (see udpsend.h).
 *
 * Owns: the control conversation from the client side (SETUP, READY,
 * DONE, REPORT), the UDP sockets of the streams and their threads, and the
 * arithmetic that turns counters into results. A stream's sequence numbers
 * are contiguous over the datagrams the kernel accepted, so the receiver's
 * count gives the loss exactly: lost = sent - received. Must never: send to
 * an address other than p->peer, loop without a time bound, or log above
 * debug (the verb reports). */
#define _GNU_SOURCE
#include "udpsend.h"

#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "base/log.h"
#include "os/nic.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

#define SEND_BATCH	  64	 /* datagrams per sendmmsg without GSO */
#define GSO_BATCH	  8	 /* super-datagrams per sendmmsg with GSO */
#define GSO_MAX_SEGS	  64	 /* datagrams per super-datagram */
#define SEND_TIMEOUT_USEC 100000 /* a blocked send returns so the deadline is checked */

struct stream_tx {
	int fd;
	uint16_t index;
	uint64_t cookie;
	uint32_t msize;
	unsigned segs; /* datagrams per message: 1 without GSO */
	int cpu;
	uint64_t start_usec, end_usec;
	/* Results, written by the thread. */
	uint64_t sent, send_errors, send_usec;
	double cpu_sec;
	int send_errno;	 /* errno of the last failed send, 0 if none */
	int gso_error;	 /* errno that turned GSO off mid-run, 0 if none */
	int fatal_error; /* errno that ended the stream early, 0 if none */
};

static int set_error(struct udpsend_result *res, int err, const char *fmt, ...) _printf_(3, 4);
static int set_error(struct udpsend_result *res, int err, const char *fmt, ...)
{
	va_list ap;

	free(res->error);
	va_start(ap, fmt);
	res->error = vstrprintf(fmt, ap);
	va_end(ap);
	return err;
}

void udpsend_result_done(struct udpsend_result *res)
{
	free(res->peer_before);
	free(res->peer_after);
	res->peer_before = res->peer_after = NULL;
	strv_free(res->notes);
	res->notes = NULL;
	free(res->error);
	res->error = NULL;
}

static void layout(struct mmsghdr *msgs, struct iovec *iov, uint8_t *buf, unsigned nmsg, size_t msg_len)
{
	for (unsigned m = 0; m < nmsg; m++) {
		iov[m] = (struct iovec){.iov_base = buf + m * msg_len, .iov_len = msg_len};
		msgs[m] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[m], .msg_iovlen = 1}};
	}
}

static void *stream_thread(void *arg)
{
	struct stream_tx *t = arg;
	unsigned nmsg = t->segs > 1 ? GSO_BATCH : SEND_BATCH;
	size_t msg_len = (size_t)t->segs * t->msize;
	/* Room for either layout: GSO may be turned off after the first send. */
	size_t gso_bytes = (size_t)GSO_BATCH * msg_len, plain_bytes = (size_t)SEND_BATCH * t->msize;
	_cleanup_free_ uint8_t *buf = calloc(1, gso_bytes > plain_bytes ? gso_bytes : plain_bytes);
	struct mmsghdr msgs[SEND_BATCH];
	struct iovec iov[SEND_BATCH];
	struct rusage ru;
	uint64_t next = 0, now;
	bool first = true;

	if (!buf) {
		t->fatal_error = ENOMEM;
		return NULL;
	}
	if (t->cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(t->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			t->cpu = -1;
	}
	layout(msgs, iov, buf, nmsg, msg_len);
	for (now = now_usec(); now < t->end_usec; now = now_usec()) {
		int n;

		for (unsigned m = 0; m < nmsg; m++)
			for (unsigned k = 0; k < t->segs; k++) {
				struct udpb_dgram d = {.stream = t->index,
						       .cookie = t->cookie,
						       .seq = next + (uint64_t)m * t->segs + k};
				udpbench_encode_dgram(&d, buf + (size_t)m * msg_len + (size_t)k * t->msize);
			}
		n = sendmmsg(t->fd, msgs, nmsg, 0);
		if (n < 0) {
			int e = errno;
			if (e == EAGAIN || e == EWOULDBLOCK || e == EINTR)
				continue;
			if (first && t->segs > 1 && (e == EINVAL || e == EIO || e == EMSGSIZE)) {
				/* The path refuses GSO (segment above the MTU,
				 * no checksum offload): go on without it. */
				int off = 0;
				t->gso_error = e;
				if (setsockopt(t->fd, IPPROTO_UDP, UDP_SEGMENT, &off, sizeof(off)) < 0) {
					t->fatal_error = errno;
					break;
				}
				t->segs = 1;
				nmsg = SEND_BATCH;
				msg_len = t->msize;
				layout(msgs, iov, buf, nmsg, msg_len);
				continue;
			}
			t->send_errors++;
			t->send_errno = e;
			if (e == ENOBUFS)
				continue;
			/* ECONNREFUSED: the receiver's port is gone; others are
			 * not going to heal within the run. */
			t->fatal_error = e;
			break;
		}
		first = false;
		next += (uint64_t)n * t->segs;
	}
	t->send_usec = now_usec() - t->start_usec;
	t->sent = next;
	if (getrusage(RUSAGE_THREAD, &ru) == 0)
		t->cpu_sec = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			     (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	return NULL;
}

static int resolve(const char *peer, uint16_t port, int socktype, struct sockaddr_storage *ret,
		   socklen_t *ret_len)
{
	struct addrinfo hints = {.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV, .ai_socktype = socktype};
	struct addrinfo *ai = NULL;
	char service[8];
	int r;

	snprintf(service, sizeof(service), "%u", port);
	r = getaddrinfo(peer, service, &hints, &ai);
	if (r != 0)
		return -EINVAL;
	memcpy(ret, ai->ai_addr, ai->ai_addrlen);
	*ret_len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

static int connect_control(const char *peer, uint16_t port, uint64_t timeout_usec, int *ret_fd)
{
	struct sockaddr_storage a;
	socklen_t alen;
	_cleanup_close_ int fd = -1;
	struct pollfd pfd;
	int r, err = 0;
	socklen_t elen = sizeof(err);

	r = resolve(peer, port, SOCK_STREAM, &a, &alen);
	if (r < 0)
		return r;
	fd = socket(a.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a, alen) < 0 && errno != EINPROGRESS)
		return -errno;
	pfd = (struct pollfd){.fd = fd, .events = POLLOUT};
	r = poll(&pfd, 1, (int)(timeout_usec / 1000));
	if (r < 0)
		return -errno;
	if (r == 0)
		return -ETIMEDOUT;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0)
		return -errno;
	if (err)
		return -err;
	*ret_fd = TAKE_FD(fd);
	return 0;
}

/* Read the server's next frame, expecting `want`; an ERROR frame becomes
 * res->error. */
static int expect_frame(int fd, int want, uint8_t *buf, size_t *ret_len, uint64_t timeout,
			const struct udpsend_params *p, struct udpsend_result *res)
{
	struct udpb_error_msg em;
	int r = udpbench_recv_frame(fd, buf, UDPB_MAX_PAYLOAD, ret_len, now_usec() + timeout);

	if (r == UDPB_ERROR && udpbench_decode_error(buf, *ret_len, &em) >= 0) {
		if (em.code == UDPB_ERR_BUSY)
			return set_error(res, -EBUSY,
					 "cx5prof serve on %s:%u is busy with another test: retry later",
					 p->peer, p->port);
		/* The answers to a STATE request (serve --state, its rate limit). */
		if (em.code == UDPB_ERR_LIMIT || em.code == UDPB_ERR_DENIED)
			return set_error(res, em.code == UDPB_ERR_LIMIT ? -EAGAIN : -EPERM,
					 "cx5prof serve on %s:%u refused: %s", p->peer, p->port, em.text);
		return set_error(res, -EPROTO, "cx5prof serve on %s:%u refused the test: %s", p->peer,
				 p->port, em.text);
	}
	if (r == -ETIMEDOUT)
		return set_error(res, r, "no reply from cx5prof serve on %s:%u within %llu s", p->peer,
				 p->port, (unsigned long long)(timeout / 1000000));
	if (r == -ECONNRESET || r == -EPIPE)
		return set_error(res, -ECONNRESET, "cx5prof serve on %s:%u closed the connection", p->peer,
				 p->port);
	if (r < 0)
		return set_error(res, r == -EINTR ? r : -EPROTO,
				 "bad reply from %s:%u: %s (is it cx5prof serve?)", p->peer, p->port,
				 strerror(-r));
	if (r != want)
		return set_error(res, -EPROTO, "unexpected %s frame from %s:%u",
				 strna(udpb_type_to_string(r)), p->peer, p->port);
	return 0;
}

/* Ask for the peer's state, in STATE version `version`, on the control
 * connection fd. */
static int ask_state(int fd, const struct udpsend_params *p, uint16_t version, uint64_t timeout_usec,
		     uint8_t *buf, struct udpb_state *ret, struct udpsend_result *res)
{
	size_t len;
	int n = udpbench_encode_state_request(version, buf, UDPB_FRAME_HDR + UDPB_MAX_PAYLOAD);
	int r = n < 0 ? n : udpbench_send_all(fd, buf, (size_t)n, now_usec() + timeout_usec);

	if (r < 0)
		return set_error(res, r, "cannot ask %s:%u for its state: %s", p->peer, p->port,
				 strerror(-r));
	r = expect_frame(fd, UDPB_STATE, buf, &len, timeout_usec, p, res);
	if (r < 0)
		return r;
	if (udpbench_decode_state(buf, len, ret) < 0)
		return set_error(res, -EPROTO, "bad state frame from %s:%u", p->peer, p->port);
	return 0;
}

/* The optional state of udpsend_run: the answer, or NULL with *ret_why
 * (caller frees) saying why. *ret_usec: when the answer came. */
static struct udpb_state *state_or_why(int fd, const struct udpsend_params *p, uint16_t version, uint8_t *buf,
				       struct udpsend_result *res, uint64_t *ret_usec, int *ret_r,
				       char **ret_why)
{
	struct udpb_state *st = calloc(1, sizeof(*st));

	*ret_r = st ? ask_state(fd, p, version, UDPSEND_REPLY_TIMEOUT_USEC, buf, st, res) : -ENOMEM;
	*ret_usec = now_usec();
	if (*ret_r >= 0)
		return st;
	free(st);
	*ret_why = res->error ? TAKE_PTR(res->error) : strdup(strerror(-*ret_r));
	return NULL;
}

int udpsend_query_state(const char *peer, uint16_t port, unsigned timeout_ms, struct udpb_state *ret,
			char **ret_error)
{
	struct udpsend_params p = {.peer = peer, .port = port ? port : UDPB_DEFAULT_PORT};
	_cleanup_free_ uint8_t *buf = malloc(UDPB_FRAME_HDR + UDPB_MAX_PAYLOAD);
	_cleanup_free_ struct udpsend_result *res = calloc(1, sizeof(*res));
	_cleanup_close_ int fd = -1;
	int r;

	*ret_error = NULL;
	if (!buf || !res)
		return -ENOMEM;
	r = connect_control(p.peer, p.port, (uint64_t)timeout_ms * 1000, &fd);
	if (r == -EINVAL)
		r = set_error(res, r, "peer '%s' is not a numeric IPv4 or IPv6 address", p.peer);
	else if (r < 0)
		r = set_error(res, r, "no cx5prof serve on %s:%u (%s)", p.peer, p.port, strerror(-r));
	else {
		r = ask_state(fd, &p, UDPB_STATE_VERSION, (uint64_t)timeout_ms * 1000, buf, ret, res);
		/* An older serve refuses version 2 and closes: ask again as it
		 * knows, on a connection of its own. */
		if (r == -EPROTO) {
			closep(&fd);
			fd = -1;
			free(res->error);
			res->error = NULL;
			r = connect_control(p.peer, p.port, (uint64_t)timeout_ms * 1000, &fd);
			if (r < 0)
				r = set_error(res, r, "no cx5prof serve on %s:%u (%s)", p.peer, p.port,
					      strerror(-r));
			else
				r = ask_state(fd, &p, 1, (uint64_t)timeout_ms * 1000, buf, ret, res);
		}
	}
	if (r < 0)
		*ret_error = TAKE_PTR(res->error);
	udpsend_result_done(res);
	return r;
}

static int open_stream_socket(const struct udpsend_params *p, uint16_t port, int *ret_fd,
			      uint64_t *ret_sndbuf)
{
	struct sockaddr_storage a;
	socklen_t alen;
	struct timeval tv = {.tv_sec = 0, .tv_usec = SEND_TIMEOUT_USEC};
	_cleanup_close_ int fd = -1;
	int v, r;
	socklen_t l = sizeof(v);

	r = resolve(p->peer, port, SOCK_DGRAM, &a, &alen);
	if (r < 0)
		return r;
	fd = socket(a.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (p->send_buffer > 0) {
		v = (int)p->send_buffer;
		if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)) < 0)
			return -errno;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
	    connect(fd, (struct sockaddr *)&a, alen) < 0 || getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, &l) < 0)
		return -errno;
	*ret_sndbuf = (uint64_t)v;
	*ret_fd = TAKE_FD(fd);
	return 0;
}

static int check_params(const struct udpsend_params *p, struct udpsend_result *res)
{
	if (!p->peer || !*p->peer)
		return set_error(res, -EINVAL, "no peer address given");
	if (p->duration_s < 1 || p->duration_s > UDPB_MAX_DURATION)
		return set_error(res, -EINVAL, "duration %u s out of range (1..%u)", p->duration_s,
				 UDPB_MAX_DURATION);
	if (p->message_size < UDPB_MIN_MESSAGE || p->message_size > UDPB_MAX_MESSAGE)
		return set_error(res, -EINVAL, "message size %u out of range (%u..%u bytes)", p->message_size,
				 UDPB_MIN_MESSAGE, UDPB_MAX_MESSAGE);
	if (p->streams < 1 || p->streams > UDPB_MAX_STREAMS)
		return set_error(res, -EINVAL, "streams %u out of range (1..%u)", p->streams,
				 UDPB_MAX_STREAMS);
	if (p->recv_buffer > UDPB_MAX_RECV_BUFFER || p->send_buffer > UDPB_MAX_RECV_BUFFER)
		return set_error(res, -EINVAL, "socket buffer above %u bytes", UDPB_MAX_RECV_BUFFER);
	return 0;
}

static double mbps(uint64_t bytes, uint64_t usec)
{
	return usec ? (double)bytes * 8.0 / (double)usec : 0.0;
}

struct run_state {
	int cfd;
	struct stream_tx tx[UDPB_MAX_STREAMS];
	pthread_t threads[UDPB_MAX_STREAMS];
	unsigned nthreads;
};

static void run_state_done(struct run_state *st)
{
	for (unsigned i = 0; i < UDPB_MAX_STREAMS; i++)
		if (st->tx[i].fd >= 0)
			close(st->tx[i].fd);
	if (st->cfd >= 0)
		close(st->cfd);
}

static int start_streams(const struct udpsend_params *p, const struct udpb_ready *ready, struct run_state *st,
			 struct udpsend_result *res)
{
	unsigned segs = 1;
	uint64_t start;
	int cpu = -1, r;

	if (p->gso) {
		segs = UDPB_MAX_MESSAGE / p->message_size;
		if (segs > GSO_MAX_SEGS)
			segs = GSO_MAX_SEGS;
		if (segs < 2) {
			strv_pushf(&res->notes,
				   "GSO not used: %u-byte messages leave no room for two in one 64 KiB send",
				   p->message_size);
			segs = 1;
		}
	}
	for (unsigned i = 0; i < p->streams; i++) {
		struct stream_tx *t = &st->tx[i];
		uint64_t sndbuf = 0;

		r = open_stream_socket(p, ready->ports[i], &t->fd, &sndbuf);
		if (r < 0)
			return set_error(res, r, "cannot open UDP stream %u to %s:%u: %s", i, p->peer,
					 ready->ports[i], strerror(-r));
		res->send_buffer_actual = sndbuf;
		t->segs = segs;
		if (segs > 1) {
			int v = (int)p->message_size;
			if (setsockopt(t->fd, IPPROTO_UDP, UDP_SEGMENT, &v, sizeof(v)) < 0) {
				if (i == 0)
					strv_pushf(&res->notes,
						   "GSO not used: the kernel refused UDP_SEGMENT (%s); sent "
						   "without it",
						   strerror(errno));
				t->segs = segs = 1;
			}
		}
		t->index = (uint16_t)i;
		t->cookie = ready->cookie;
		t->msize = p->message_size;
		if (p->cpus && cpuset_count(p->cpus) > 0) {
			cpu = cpuset_next(p->cpus, cpu);
			if (cpu < 0)
				cpu = cpuset_next(p->cpus, -1);
			t->cpu = cpu;
		} else {
			t->cpu = -1;
		}
	}
	res->gso_segments = segs;
	start = now_usec();
	for (unsigned i = 0; i < p->streams; i++) {
		st->tx[i].start_usec = start;
		st->tx[i].end_usec = start + (uint64_t)p->duration_s * 1000000;
		r = pthread_create(&st->threads[i], NULL, stream_thread, &st->tx[i]);
		if (r != 0) {
			/* Stop the ones already running at once. */
			for (unsigned j = 0; j < i; j++)
				st->tx[j].end_usec = 0;
			return set_error(res, -r, "cannot start sender thread: %s", strerror(r));
		}
		st->nthreads = i + 1;
	}
	return 0;
}

static void join_streams(struct run_state *st)
{
	for (unsigned i = 0; i < st->nthreads; i++)
		pthread_join(st->threads[i], NULL);
	st->nthreads = 0;
}

/* A receiver that counted more datagrams on a stream than were sent on it
 * (2^64-1 of 10), or per-stream counts that add up beyond 64 bits, is
 * impossible data: neither duplicates nor "0 lost". -EPROTO naming the
 * stream, before any figure is computed from it. */
static int check_report(const struct udpsend_params *p, const struct run_state *st,
			const struct udpb_report *rep, struct udpsend_result *res)
{
	uint64_t sent = 0, received = 0, bytes = 0;

	for (unsigned i = 0; i < p->streams; i++) {
		if (rep->stream[i].datagrams > st->tx[i].sent)
			return set_error(
			    res, -EPROTO,
			    "inconsistent report from the peer: stream %u received %llu datagrams "
			    "but %llu were sent: impossible data, the run is not counted",
			    i, (unsigned long long)rep->stream[i].datagrams,
			    (unsigned long long)st->tx[i].sent);
		if (__builtin_add_overflow(sent, st->tx[i].sent, &sent) ||
		    __builtin_add_overflow(received, rep->stream[i].datagrams, &received) ||
		    __builtin_add_overflow(bytes, rep->stream[i].bytes, &bytes))
			return set_error(res, -EPROTO,
					 "inconsistent report from the peer: the per-stream counts add up "
					 "beyond 64 bits at stream %u: the run is not counted",
					 i);
	}
	return 0;
}

static void compute(const struct udpsend_params *p, const struct run_state *st, const struct udpb_report *rep,
		    struct udpsend_result *res)
{
	uint64_t bytes_sent = 0, bytes_recv = 0;
	double cpu = 0;

	res->streams = p->streams;
	for (unsigned i = 0; i < p->streams; i++) {
		const struct stream_tx *t = &st->tx[i];
		struct udpsend_stream *s = &res->stream[i];

		*s = (struct udpsend_stream){
		    .cpu = t->cpu,
		    .gso = t->segs > 1,
		    .sent = t->sent,
		    .send_errors = t->send_errors,
		    .bytes_sent = t->sent * t->msize,
		    .send_usec = t->send_usec,
		    .cpu_sec = t->cpu_sec,
		    .received = rep->stream[i].datagrams,
		    .bytes_received = rep->stream[i].bytes,
		    .reordered = rep->stream[i].reordered,
		    .recv_window_usec = rep->stream[i].window_usec,
		};
		s->lost = s->sent > s->received ? s->sent - s->received : 0;
		s->send_mbps = mbps(s->bytes_sent, s->send_usec);
		s->recv_mbps = mbps(s->bytes_received, s->recv_window_usec);
		res->sent += s->sent;
		res->send_errors += s->send_errors;
		res->received += s->received;
		bytes_sent += s->bytes_sent;
		bytes_recv += s->bytes_received;
		cpu += s->cpu_sec;
		if (s->send_usec > res->send_usec)
			res->send_usec = s->send_usec;
		if (s->gso)
			res->gso_used = true;
		/* received > sent is impossible data: runner_check_streams()
		 * refuses the run. */
	}
	res->lost = res->sent > res->received ? res->sent - res->received : 0;
	/* Nothing sent is no 0% loss: udpsend_run() fails such a run. */
	res->loss_percent = res->sent ? 100.0 * (double)res->lost / (double)res->sent : 100.0;
	res->recv_window_usec = rep->window_usec;
	res->send_mbps = mbps(bytes_sent, res->send_usec);
	res->recv_mbps = mbps(bytes_recv, rep->window_usec);
	res->cpu_percent = res->send_usec ? cpu * 1e8 / (double)res->send_usec : 0.0;
	res->ncpus = rep->ncpus;
	memcpy(res->softirq, rep->cpu, sizeof(rep->cpu[0]) * rep->ncpus);
}

/* A receiver whose MTU is below these datagrams' frames drops them, when
 * this host sends them whole (its route's MTU holds them): say so with
 * both MTUs, before anyone looks at socket buffers. */
static void peer_mtu_note(const struct udpsend_params *p, int cfd, struct udpsend_result *res)
{
	uint64_t frame = (uint64_t)p->message_size + 28; /* IPv4 + UDP headers */
	socklen_t len = sizeof(int);
	int route = 0;

	if (!res->peer_before || !(res->peer_before->present & UDPB_STATE_MTU) ||
	    frame <= res->peer_before->mtu)
		return;
	if (getsockopt(cfd, IPPROTO_IP, IP_MTU, &route, &len) < 0 || route <= 0 || (uint64_t)route < frame)
		return; /* fragmented here to the route's MTU: they fit */
	strv_pushf(&res->notes,
		   "the peer's %s has MTU %u, the route here %d (%u vs %d): %llu-byte datagrams leave in one "
		   "frame and the peer cannot take them; set the same MTU on both ends",
		   res->peer_before->ifname, res->peer_before->mtu, route, res->peer_before->mtu, route,
		   (unsigned long long)frame);
}

int udpsend_run(const struct udpsend_params *params, struct udpsend_result *res)
{
	struct udpsend_params p = *params;
	_cleanup_free_ uint8_t *buf = malloc(UDPB_FRAME_HDR + UDPB_MAX_PAYLOAD);
	_cleanup_free_ struct udpb_report *rep = calloc(1, sizeof(*rep));
	_cleanup_free_ struct run_state *st = calloc(1, sizeof(*st));
	struct udpb_setup setup;
	struct udpb_ready ready;
	struct udpb_done done = {0};
	size_t len;
	int r, n;

	if (!buf || !rep || !st)
		return set_error(res, -ENOMEM, "out of memory");
	st->cfd = -1;
	for (unsigned i = 0; i < UDPB_MAX_STREAMS; i++)
		st->tx[i].fd = -1;
	if (p.port == 0)
		p.port = UDPB_DEFAULT_PORT;
	r = check_params(&p, res);
	if (r < 0)
		goto out;

	r = connect_control(p.peer, p.port, UDPSEND_CONNECT_TIMEOUT_USEC, &st->cfd);
	if (r == -EINVAL) {
		r = set_error(res, r, "peer '%s' is not a numeric IPv4 or IPv6 address", p.peer);
		goto out;
	}
	if (r < 0) {
		r = set_error(res, r,
			      "no cx5prof serve on %s:%u (%s): start `cx5prof serve --port %u` on the peer "
			      "and check its firewall",
			      p.peer, p.port, strerror(-r), p.port);
		goto out;
	}
	/* The newest STATE first; a server that does not know a version (or
	 * STATE at all) answers with an ERROR and closes the connection:
	 * connect again, ask as an older one would be asked, and at last go
	 * on without. */
	for (uint16_t v = p.state_version ? p.state_version : UDPB_STATE_VERSION; p.peer_state;) {
		_cleanup_free_ char *why = NULL;
		int asked;

		res->peer_before =
		    state_or_why(st->cfd, &p, v, buf, res, &res->peer_before_usec, &asked, &why);
		if (res->peer_before) {
			p.state_version = v;
			break;
		}
		close(st->cfd);
		st->cfd = -1;
		r = connect_control(p.peer, p.port, UDPSEND_CONNECT_TIMEOUT_USEC, &st->cfd);
		if (r < 0) {
			r = set_error(res, r, "no cx5prof serve on %s:%u (%s)", p.peer, p.port, strerror(-r));
			goto out;
		}
		/* Refused as an unknown request (-EPROTO): an older serve,
		 * asked again as it knows. Refused for its rate limit or
		 * --state, or not answered: the run goes on without. */
		if (asked != -EPROTO || v == 1) {
			strv_pushf(&res->notes, "peer state not recorded: %s", strna(why));
			break;
		}
		v--;
	}
	setup = (struct udpb_setup){.duration_s = p.duration_s,
				    .message_size = p.message_size,
				    .recv_buffer = (uint32_t)p.recv_buffer,
				    .streams = (uint16_t)p.streams};
	n = udpbench_encode_setup(&setup, buf, UDPB_FRAME_HDR + UDPB_MAX_PAYLOAD);
	r = n < 0 ? n : udpbench_send_all(st->cfd, buf, (size_t)n, now_usec() + UDPSEND_REPLY_TIMEOUT_USEC);
	if (r < 0) {
		r = set_error(res, r, "cannot send the test setup to %s:%u: %s", p.peer, p.port,
			      strerror(-r));
		goto out;
	}
	r = expect_frame(st->cfd, UDPB_READY, buf, &len, UDPSEND_REPLY_TIMEOUT_USEC, &p, res);
	if (r < 0)
		goto out;
	r = udpbench_decode_ready(buf, len, &ready);
	if (r >= 0 && ready.streams != p.streams)
		r = -ERANGE;
	if (r < 0) {
		r = set_error(res, -EPROTO, "bad ready frame from %s:%u", p.peer, p.port);
		goto out;
	}
	res->recv_buffer_actual = ready.recv_buffer;

	r = start_streams(&p, &ready, st, res);
	join_streams(st);
	if (r < 0)
		goto out;

	done.streams = (uint16_t)p.streams;
	for (unsigned i = 0; i < p.streams; i++) {
		done.sent[i] = st->tx[i].sent;
		if (st->tx[i].send_usec > done.send_usec)
			done.send_usec = st->tx[i].send_usec;
	}
	n = udpbench_encode_done(&done, buf, UDPB_FRAME_HDR + UDPB_MAX_PAYLOAD);
	r = n < 0 ? n : udpbench_send_all(st->cfd, buf, (size_t)n, now_usec() + UDPSEND_REPLY_TIMEOUT_USEC);
	if (r < 0) {
		r = set_error(res, r, "cannot send the end of test to %s:%u: %s", p.peer, p.port,
			      strerror(-r));
		goto out;
	}
	r = expect_frame(st->cfd, UDPB_REPORT, buf, &len, UDPSEND_REPORT_TIMEOUT_USEC, &p, res);
	if (r < 0)
		goto out;
	r = udpbench_decode_report(buf, len, rep);
	if (r >= 0 && rep->streams != p.streams)
		r = -ERANGE;
	if (r < 0) {
		r = set_error(res, -EPROTO, "bad report frame from %s:%u", p.peer, p.port);
		goto out;
	}

	if (res->peer_before) {
		_cleanup_free_ char *why = NULL;

		res->peer_after =
		    state_or_why(st->cfd, &p, p.state_version, buf, res, &res->peer_after_usec, &r, &why);
		if (!res->peer_after)
			strv_pushf(&res->notes, "peer state not recorded: %s", strna(why));
	}
	r = check_report(&p, st, rep, res);
	if (r < 0)
		goto out;
	compute(&p, st, rep, res);
	peer_mtu_note(&p, st->cfd, res);
	if (res->sent == 0) {
		int e = 0;
		for (unsigned i = 0; i < p.streams; i++)
			if (st->tx[i].fatal_error || st->tx[i].send_errno)
				e = st->tx[i].fatal_error ? st->tx[i].fatal_error : st->tx[i].send_errno;
		r = set_error(res, -EIO,
			      "no datagram was sent to %s in %u s (%llu failed sends%s%s): nothing was "
			      "measured; check the route to the peer and the send buffer (ENOBUFS: raise "
			      "net.core.wmem_max), then run again",
			      p.peer, p.duration_s, (unsigned long long)res->send_errors, e ? ", last: " : "",
			      e ? strerror(e) : "");
		goto out;
	}
	for (unsigned i = 0; i < p.streams; i++) {
		if (st->tx[i].gso_error)
			strv_pushf(
			    &res->notes,
			    "stream %u: the kernel refused a GSO send (%s: segment above the path MTU, or "
			    "no checksum offload); sent without GSO",
			    i, strerror(st->tx[i].gso_error));
		if (st->tx[i].fatal_error)
			strv_pushf(&res->notes, "stream %u: stopped early: %s", i,
				   strerror(st->tx[i].fatal_error));
	}
	if (p.send_buffer && res->send_buffer_actual < 2 * p.send_buffer)
		strv_pushf(
		    &res->notes, "send buffer clamped to %llu bytes (asked %llu): raise net.core.wmem_max",
		    (unsigned long long)res->send_buffer_actual / 2, (unsigned long long)p.send_buffer);
	if (p.recv_buffer && res->recv_buffer_actual < 2 * p.recv_buffer)
		strv_pushf(
		    &res->notes,
		    "receive buffer clamped to %llu bytes on the peer (asked %llu): raise net.core.rmem_max "
		    "there",
		    (unsigned long long)res->recv_buffer_actual / 2, (unsigned long long)p.recv_buffer);
	r = 0;
out:
	run_state_done(st);
	return r;
}

int udpsend_command_line(const struct udpsend_params *p, char **ret)
{
	_cleanup_free_ char *cpus = NULL, *s = NULL;

	if (p->cpus && cpuset_count(p->cpus) > 0 && cpuset_format_list(p->cpus, &cpus) < 0)
		return -ENOMEM;
	s = strprintf("cx5prof bench --peer %s --port %u --duration %u --message-size %u --send-buffer %llu "
		      "--recv-buffer %llu --streams %u%s%s%s",
		      p->peer, p->port ? p->port : UDPB_DEFAULT_PORT, p->duration_s, p->message_size,
		      (unsigned long long)p->send_buffer, (unsigned long long)p->recv_buffer, p->streams,
		      cpus ? " --cpus " : "", cpus ? cpus : "", p->gso ? " --gso" : "");
	if (!s)
		return -ENOMEM;
	*ret = TAKE_PTR(s);
	return 0;
}

int udpsend_route_ifname(const char *peer, char **ret)
{
	struct sockaddr_storage a, local;
	socklen_t alen, llen = sizeof(local);
	struct ifaddrs *ifa = NULL;
	_cleanup_close_ int fd = -1;
	char *ifname = NULL;
	int r;

	r = resolve(peer, 9, SOCK_DGRAM, &a, &alen);
	if (r < 0)
		return r;
	/* connect() on UDP only picks the route and source: nothing is sent. */
	fd = socket(a.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a, alen) < 0 ||
	    getsockname(fd, (struct sockaddr *)&local, &llen) < 0)
		return -errno;
	if (getifaddrs(&ifa) < 0)
		return -errno;
	for (struct ifaddrs *i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != local.ss_family)
			continue;
		if ((local.ss_family == AF_INET && ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr ==
						       ((struct sockaddr_in *)&local)->sin_addr.s_addr) ||
		    (local.ss_family == AF_INET6 &&
		     memcmp(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
			    &((struct sockaddr_in6 *)&local)->sin6_addr, sizeof(struct in6_addr)) == 0)) {
			ifname = strdup(i->ifa_name);
			r = ifname ? 0 : -ENOMEM;
			break;
		}
	}
	freeifaddrs(ifa);
	if (r < 0)
		return r;
	if (!ifname)
		return -ENODEV;
	*ret = ifname;
	return 0;
}

int udpsend_local_cpus(const char *peer, struct cpuset *ret, char **ret_ifname)
{
	_cleanup_free_ char *ifname = NULL;
	struct nic_info nic = {0};
	_cleanup_cpuset_ struct cpuset usable = CPUSET_INIT;
	int r;

	r = udpsend_route_ifname(peer, &ifname);
	if (r < 0)
		return r;
	r = nic_read(ifname, &nic);
	if (r < 0)
		return r;
	r = nic.local_cpulist ? cpuset_parse_list(nic.local_cpulist, &usable) : -ENODATA;
	nic_info_done(&nic);
	if (r >= 0)
		r = cpuset_keep_runnable(&usable);
	if (r < 0)
		return r;
	if (cpuset_count(&usable) == 0)
		return -ENODATA;
	*ret = usable;
	usable = (struct cpuset)CPUSET_INIT;
	if (ret_ifname)
		*ret_ifname = TAKE_PTR(ifname);
	return 0;
}
