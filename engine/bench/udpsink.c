/* udpsink.c: the receiver of the built-in UDP benchmark (see udpsink.h).
 *
 * Owns: the control session with one client and the UDP sink sockets it
 * opens, one counting thread per stream (recvmmsg in batches of
 * SINK_BATCH), and the /proc/stat softirq snapshot around the test. The
 * sinks read only each datagram's header (MSG_TRUNC gives the real length)
 * because counting needs nothing more, with UDP_GRO so that a train of
 * segments costs one receive. Must never: send UDP, block without
 * a deadline, or keep threads running after the session returns. */
#define _GNU_SOURCE
#include "udpsink.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <netinet/udp.h>

#include "base/log.h"
#include "os/sysroot.h"

#define SINK_BATCH     64
#define SINK_POLL_USEC 20000 /* receive timeout: how often a sink checks its stop flag */
/* Busy-poll this long after the last datagram when pinned. Measured on the
 * lab's veth: 100-500 us lowered loss by 10-30 points; 2 ms starved the
 * sender; unpinned, any spinning cost 2-3x in throughput. */
#define SINK_SPIN_USEC 100

struct sink {
	int fd;
	uint16_t index;
	uint16_t port;
	int cpu; /* pinned CPU or -1 */
	uint64_t cookie;
	uint64_t hard_deadline; /* the thread ends here whatever happens */
	pthread_t thread;
	bool started;
	atomic_bool stop;
	atomic_uint_least64_t live; /* datagrams so far, for the drain */
	/* Written by the thread only; read after join. */
	uint64_t datagrams, bytes, seq_end, reordered, stray;
	uint64_t first_usec, last_usec;
	int error;
};

/* Count one received buffer: a datagram, or with UDP_GRO a train of
 * gso_size segments sent back to back (their sequence numbers follow the
 * first one's). */
static void sink_count(struct sink *s, const uint8_t *hdr, size_t len, size_t gso_size, uint64_t now)
{
	struct udpb_dgram d;
	uint64_t segs = 1;

	if (udpbench_decode_dgram(hdr, len, &d) < 0 || d.cookie != s->cookie || d.stream != s->index) {
		s->stray++;
		return;
	}
	if (gso_size > 0 && len > gso_size)
		segs = (len + gso_size - 1) / gso_size;
	if (s->datagrams == 0)
		s->first_usec = now;
	s->last_usec = now;
	s->datagrams += segs;
	s->bytes += len;
	if (d.seq < s->seq_end)
		s->reordered += segs;
	else
		s->seq_end = d.seq + segs;
}

/* A sink pinned to its own CPU (serve --cpus) polls without sleeping
 * (MSG_DONTWAIT) for up to SINK_SPIN_USEC after the last datagram: a
 * sleeping receiver's wake-up latency would overflow the socket buffer, and
 * the sink must measure the path, not the scheduler. An unpinned sink never
 * spins: on a shared CPU spinning steals the time the kernel needs to
 * deliver the datagrams. When idle longer, blocks in recvmmsg (MSG_WAITFORONE: then
 * takes whatever else is queued, up to SINK_BATCH) with a short receive
 * timeout, so the stop flag and the hard deadline are checked at least
 * every SINK_POLL_USEC. */
static void *sink_thread(void *arg)
{
	struct sink *s = arg;
	struct mmsghdr msgs[SINK_BATCH];
	struct iovec iov[SINK_BATCH];
	uint8_t hdrs[SINK_BATCH][UDPB_DGRAM_HDR];
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl[SINK_BATCH];

	uint64_t last_data = 0;
	bool spinning = false;

	if (s->cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(s->cpu, &set);
		(void)sched_setaffinity(0, sizeof(set), &set);
	}
	for (unsigned i = 0; i < SINK_BATCH; i++)
		iov[i] = (struct iovec){.iov_base = hdrs[i], .iov_len = UDPB_DGRAM_HDR};
	while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
		uint64_t now;
		int n;

		for (unsigned i = 0; i < SINK_BATCH; i++)
			msgs[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i],
							       .msg_iovlen = 1,
							       .msg_control = ctl[i].buf,
							       .msg_controllen = sizeof(ctl[i].buf)}};
		n = recvmmsg(s->fd, msgs, SINK_BATCH, (spinning ? MSG_DONTWAIT : MSG_WAITFORONE) | MSG_TRUNC,
			     NULL);
		now = now_usec();
		if (now >= s->hard_deadline)
			break;
		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
				s->error = -errno;
				break;
			}
			if (spinning && now - last_data > SINK_SPIN_USEC)
				spinning = false;
			continue;
		}
		last_data = now;
		spinning = s->cpu >= 0;
		for (int i = 0; i < n; i++) {
			size_t gso = 0;
			for (struct cmsghdr *c = CMSG_FIRSTHDR(&msgs[i].msg_hdr); c;
			     c = CMSG_NXTHDR(&msgs[i].msg_hdr, c))
				if (c->cmsg_level == IPPROTO_UDP && c->cmsg_type == UDP_GRO &&
				    c->cmsg_len >= CMSG_LEN(sizeof(int))) {
					int v;
					memcpy(&v, CMSG_DATA(c), sizeof(v));
					gso = v > 0 ? (size_t)v : 0;
				}
			sink_count(s, hdrs[i], msgs[i].msg_len, gso, now);
		}
		atomic_store_explicit(&s->live, s->datagrams, memory_order_relaxed);
	}
	return NULL;
}

/* Per-CPU (softirq, total) jiffies from /proc/stat. */
struct cpu_times {
	unsigned n;
	uint32_t cpu[UDPB_MAX_CPUS];
	uint64_t softirq[UDPB_MAX_CPUS];
	uint64_t total[UDPB_MAX_CPUS];
};

static int read_cpu_times(struct cpu_times *ret)
{
	_cleanup_free_ char *text = NULL;
	char *save = NULL;
	int r;

	r = sysroot_read_all("/proc/stat", &text, NULL);
	if (r < 0)
		return r;
	ret->n = 0;
	for (char *line = strtok_r(text, "\n", &save); line && ret->n < UDPB_MAX_CPUS;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned cpu;
		unsigned long long v[8] = {0};
		uint64_t total = 0;

		if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9')
			continue;
		if (sscanf(line, "cpu%u %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5], &v[6], &v[7]) < 8)
			continue;
		for (unsigned k = 0; k < 8; k++)
			total += v[k];
		ret->cpu[ret->n] = cpu;
		ret->softirq[ret->n] = v[6];
		ret->total[ret->n] = total;
		ret->n++;
	}
	return 0;
}

static void softirq_load(const struct cpu_times *a, const struct cpu_times *b, struct udpb_report *rep)
{
	rep->ncpus = 0;
	for (unsigned i = 0; i < b->n; i++)
		for (unsigned j = 0; j < a->n; j++) {
			uint64_t dt, ds;
			if (a->cpu[j] != b->cpu[i])
				continue;
			dt = b->total[i] - a->total[j];
			ds = b->softirq[i] - a->softirq[j];
			rep->cpu[rep->ncpus++] = (struct udpb_cpu_load){
			    .cpu = b->cpu[i],
			    .softirq_centipct = dt && ds <= dt ? (uint32_t)(ds * 10000 / dt) : 0,
			};
			break;
		}
}

const char *udpsink_error_text(int r)
{
	switch (r) {
	case -ENODATA:
		return "truncated frame";
	case -EMSGSIZE:
		return "oversized frame";
	case -EPROTONOSUPPORT:
		return "unsupported protocol version";
	case -EBADMSG:
		return "malformed frame (bad magic, reserved field or length)";
	case -ERANGE:
		return "field out of range";
	case -EPROTO:
		return "unexpected frame type";
	case -ETIMEDOUT:
		return "timed out waiting for the client";
	case -ECONNRESET:
		return "client closed the connection";
	default:
		return NULL;
	}
}

void udpsink_refuse(int fd, uint16_t code, const char *text)
{
	uint8_t buf[UDPB_FRAME_HDR + 4 + UDPB_MAX_ERROR_TEXT];
	int n = udpbench_encode_error(code, text, buf, sizeof(buf));

	uint8_t sink[4096];
	uint64_t deadline = now_usec() + 200000;

	if (n > 0)
		(void)udpbench_send_all(fd, buf, (size_t)n, deadline);
	/* Lingering close: closing with unread client bytes would send a
	 * reset that destroys the ERROR frame in flight. Read and drop what
	 * the client still sends, bounded by time and size. */
	if (shutdown(fd, SHUT_WR) < 0)
		return;
	for (unsigned i = 0; i < 16; i++) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		/* One reading per round: a second one could be past the
		 * deadline, and deadline - now would wrap to ~14 days. */
		uint64_t now = now_usec();
		ssize_t r;

		if (now >= deadline)
			return;
		if (poll(&p, 1, (int)((deadline - now) / 1000) + 1) <= 0)
			return;
		r = recv(fd, sink, sizeof(sink), MSG_DONTWAIT);
		if (r <= 0 && !(r < 0 && errno == EAGAIN))
			return;
	}
}

int udpsink_listen(const char *bind_addr, uint16_t port, int *ret_fd)
{
	struct addrinfo hints = {.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV,
				 .ai_socktype = SOCK_STREAM};
	struct addrinfo *ai = NULL;
	_cleanup_close_ int fd = -1;
	char service[8];
	int one = 1, r;

	snprintf(service, sizeof(service), "%u", port);
	r = getaddrinfo(bind_addr, service, &hints, &ai);
	if (r != 0)
		return r == EAI_SYSTEM ? -errno : -EINVAL;
	/* Non-blocking: a client that vanishes between poll and accept must
	 * not stall the server. */
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, UDPSINK_BACKLOG) < 0) {
		r = -errno;
		freeaddrinfo(ai);
		return r;
	}
	freeaddrinfo(ai);
	*ret_fd = TAKE_FD(fd);
	return 0;
}

struct session {
	struct sink sinks[UDPB_MAX_STREAMS];
	unsigned nsinks;
};

static void session_stop(struct session *s)
{
	for (unsigned i = 0; i < s->nsinks; i++)
		atomic_store(&s->sinks[i].stop, true);
	for (unsigned i = 0; i < s->nsinks; i++) {
		if (s->sinks[i].started)
			pthread_join(s->sinks[i].thread, NULL);
		s->sinks[i].started = false;
		if (s->sinks[i].fd >= 0)
			close(s->sinks[i].fd);
		s->sinks[i].fd = -1;
	}
	s->nsinks = 0;
}

/* Open the sinks on the control connection's local address, so the test
 * runs over the path the client chose. */
static int session_open(struct session *s, int cfd, const struct udpb_setup *setup, uint64_t cookie,
			const struct cpuset *cpus, uint32_t *ret_rcvbuf)
{
	struct sockaddr_storage local;
	socklen_t alen = sizeof(local);
	struct timeval tv = {.tv_sec = 0, .tv_usec = SINK_POLL_USEC};
	uint64_t hard = now_usec() + (uint64_t)setup->duration_s * 1000000 + UDPSINK_DONE_GRACE_USEC +
			UDPSINK_DRAIN_MAX_USEC;
	int effective = 0, one = 1, cpu = -1;

	if (getsockname(cfd, (struct sockaddr *)&local, &alen) < 0)
		return -errno;
	for (unsigned i = 0; i < setup->streams; i++) {
		struct sink *k = &s->sinks[i];
		struct sockaddr_storage a = local;
		socklen_t l = alen;
		int rcv = (int)setup->recv_buffer;

		if (cpus && cpuset_count(cpus) > 0) {
			cpu = cpuset_next(cpus, cpu);
			if (cpu < 0)
				cpu = cpuset_next(cpus, -1);
		}
		*k = (struct sink){
		    .fd = -1, .index = (uint16_t)i, .cpu = cpu, .cookie = cookie, .hard_deadline = hard};
		s->nsinks = i + 1;
		if (a.ss_family == AF_INET6)
			((struct sockaddr_in6 *)&a)->sin6_port = 0;
		else
			((struct sockaddr_in *)&a)->sin_port = 0;
		k->fd = socket(a.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (k->fd < 0)
			return -errno;
		if (rcv > 0 && setsockopt(k->fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv)) < 0)
			return -errno;
		/* GRO: a train of GSO segments (or NIC-coalesced datagrams)
		 * arrives as one buffer, counted segment by segment. */
		(void)setsockopt(k->fd, IPPROTO_UDP, UDP_GRO, &one, sizeof(one));
		if (setsockopt(k->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
		    bind(k->fd, (struct sockaddr *)&a, l) < 0 ||
		    getsockname(k->fd, (struct sockaddr *)&a, &l) < 0)
			return -errno;
		k->port = ntohs(a.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&a)->sin6_port
							: ((struct sockaddr_in *)&a)->sin_port);
		l = sizeof(effective);
		if (getsockopt(k->fd, SOL_SOCKET, SO_RCVBUF, &effective, &l) < 0)
			return -errno;
	}
	for (unsigned i = 0; i < s->nsinks; i++) {
		int r = pthread_create(&s->sinks[i].thread, NULL, sink_thread, &s->sinks[i]);
		if (r != 0)
			return -r;
		s->sinks[i].started = true;
	}
	*ret_rcvbuf = (uint32_t)effective;
	return 0;
}

static uint64_t session_live(struct session *s)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < s->nsinks; i++)
		n += atomic_load_explicit(&s->sinks[i].live, memory_order_relaxed);
	return n;
}

/* Wait for the client's DONE (other clients are the dispatcher's,
 * serveloop.h). Returns the frame type (payload in buf) or -errno. */
static int wait_done(int cfd, const volatile sig_atomic_t *quit, uint8_t *buf, size_t cap, size_t *ret_len,
		     uint64_t deadline)
{
	while (!*quit) {
		struct pollfd p = {.fd = cfd, .events = POLLIN};
		uint64_t now = now_usec();
		int r;

		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&p, 1, 250);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0)
			continue;
		if (p.revents & (POLLIN | POLLHUP | POLLERR))
			return udpbench_recv_frame(cfd, buf, cap, ret_len,
						   now_usec() + UDPSINK_FRAME_TIMEOUT_USEC);
	}
	return -EINTR;
}

void udpsink_peer_name(int cfd, char *buf, size_t size)
{
	struct sockaddr_storage a;
	socklen_t l = sizeof(a);
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (getpeername(cfd, (struct sockaddr *)&a, &l) == 0) {
		if (a.ss_family == AF_INET6) {
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&a)->sin6_addr, host, sizeof(host));
			port = ntohs(((struct sockaddr_in6 *)&a)->sin6_port);
		} else if (a.ss_family == AF_INET) {
			inet_ntop(AF_INET, &((struct sockaddr_in *)&a)->sin_addr, host, sizeof(host));
			port = ntohs(((struct sockaddr_in *)&a)->sin_port);
		}
	}
	snprintf(buf, size, "%s:%u", host, port);
}

static int fail(char **ret_reason, int r, const char *what)
{
	const char *t = udpsink_error_text(r);

	if (t)
		*ret_reason = strprintf("%s: %s", what, t);
	else
		*ret_reason = strprintf("%s: %s", what, strerror(r < 0 ? -r : r));
	return r;
}

uint16_t udpsink_error_code(int r)
{
	return r == -EPROTONOSUPPORT ? UDPB_ERR_VERSION
	       : r == -ETIMEDOUT     ? UDPB_ERR_TIMEOUT
				     : UDPB_ERR_PROTOCOL;
}

int udpsink_session(int cfd, const struct udpb_setup *setup, const struct cpuset *cpus,
		    const volatile sig_atomic_t *quit, struct udpsink_summary *ret, char **ret_reason)
{
	_cleanup_free_ uint8_t *buf = malloc(UDPB_FRAME_HDR + UDPB_MAX_PAYLOAD);
	_cleanup_free_ struct udpb_report *rep = calloc(1, sizeof(*rep));
	_cleanup_free_ struct cpu_times *t0 = calloc(1, sizeof(*t0)), *t1 = calloc(1, sizeof(*t1));
	struct session s = {.nsinks = 0};
	struct udpb_ready ready = {0};
	struct udpb_done done;
	size_t len = 0;
	uint64_t sent = 0, drain_end, last_progress, last_live;
	bool have_times;
	int r, n;

	*ret = (struct udpsink_summary){.setup = *setup};
	*ret_reason = NULL;
	udpsink_peer_name(cfd, ret->peer, sizeof(ret->peer));
	if (!buf || !rep || !t0 || !t1)
		return fail(ret_reason, -ENOMEM, "setup");

	if (getrandom(&ready.cookie, sizeof(ready.cookie), GRND_NONBLOCK) != sizeof(ready.cookie))
		ready.cookie = now_usec() ^ ((uint64_t)getpid() << 32);
	have_times = read_cpu_times(t0) >= 0;
	r = session_open(&s, cfd, &ret->setup, ready.cookie, cpus, &ready.recv_buffer);
	if (r < 0) {
		session_stop(&s);
		udpsink_refuse(cfd, UDPB_ERR_RESOURCE, "cannot open the UDP sinks");
		return fail(ret_reason, r, "opening UDP sinks");
	}
	ready.streams = ret->setup.streams;
	for (unsigned i = 0; i < s.nsinks; i++)
		ready.ports[i] = s.sinks[i].port;
	n = udpbench_encode_ready(&ready, buf, UDPB_FRAME_HDR + UDPB_MAX_PAYLOAD);
	r = n < 0 ? n : udpbench_send_all(cfd, buf, (size_t)n, now_usec() + UDPSINK_FRAME_TIMEOUT_USEC);
	if (r < 0) {
		session_stop(&s);
		return fail(ret_reason, r, "sending ready");
	}

	r = wait_done(cfd, quit, buf, UDPB_MAX_PAYLOAD, &len,
		      now_usec() + (uint64_t)ret->setup.duration_s * 1000000 + UDPSINK_DONE_GRACE_USEC);
	if (r >= 0 && r != UDPB_DONE)
		r = -EPROTO;
	if (r >= 0)
		r = udpbench_decode_done(buf, len, &done);
	if (r >= 0 && done.streams != ret->setup.streams)
		r = -ERANGE;
	if (r < 0) {
		session_stop(&s);
		if (r != -ECONNRESET && r != -EINTR)
			udpsink_refuse(cfd, udpsink_error_code(r),
				       udpsink_error_text(r) ? udpsink_error_text(r) : "error");
		return fail(ret_reason, r, "waiting for done");
	}
	for (unsigned i = 0; i < done.streams; i++)
		sent += done.sent[i];
	ret->sent = sent;

	/* Drain what is still queued: until every sent datagram is counted,
	 * or nothing new arrived for 200 ms, or UDPSINK_DRAIN_MAX_USEC. */
	last_live = session_live(&s);
	last_progress = now_usec();
	drain_end = last_progress + UDPSINK_DRAIN_MAX_USEC;
	for (uint64_t now = now_usec(); now < drain_end && !*quit; now = now_usec()) {
		uint64_t live = session_live(&s);
		if (live >= sent)
			break;
		if (live != last_live) {
			last_live = live;
			last_progress = now;
		} else if (now - last_progress > 200000) {
			break;
		}
		usleep(5000);
	}
	session_stop(&s);

	rep->streams = ret->setup.streams;
	for (unsigned i = 0; i < rep->streams; i++) {
		struct sink *k = &s.sinks[i];
		uint64_t first = 0, last = 0;

		rep->stream[i] = (struct udpb_stream_report){
		    .datagrams = k->datagrams,
		    .bytes = k->bytes,
		    .seq_end = k->seq_end,
		    .reordered = k->reordered,
		    .window_usec = k->last_usec - k->first_usec,
		};
		ret->received += k->datagrams;
		ret->stray += k->stray;
		if (k->datagrams == 0)
			continue;
		first = k->first_usec;
		last = k->last_usec;
		for (unsigned j = 0; j < rep->streams; j++)
			if (s.sinks[j].datagrams) {
				if (s.sinks[j].first_usec < first)
					first = s.sinks[j].first_usec;
				if (s.sinks[j].last_usec > last)
					last = s.sinks[j].last_usec;
			}
		rep->window_usec = last - first;
	}
	if (have_times && read_cpu_times(t1) >= 0)
		softirq_load(t0, t1, rep);
	n = udpbench_encode_report(rep, buf, UDPB_FRAME_HDR + UDPB_MAX_PAYLOAD);
	r = n < 0 ? n : udpbench_send_all(cfd, buf, (size_t)n, now_usec() + UDPSINK_FRAME_TIMEOUT_USEC);
	if (r < 0)
		return fail(ret_reason, r, "sending report");
	ret->completed = true;
	return 0;
}
