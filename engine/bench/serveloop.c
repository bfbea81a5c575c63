/* serveloop.c: `serve`'s connection dispatcher (see serveloop.h).
 *
 * One thread polls the listening socket and every waiting connection;
 * frames are read as their bytes come (non-blocking), answers are written
 * as the socket takes them, and a connection that sent an ERROR lingers
 * (reads and drops) for a moment so the ERROR is not destroyed by a reset.
 * The test itself runs in a second thread, which owns the connection
 * until the REPORT is sent. Must never: block in a read or a write on a
 * client's socket, or keep more than SERVE_MAX_PENDING connections. */
#define _GNU_SOURCE
#include "serveloop.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>

#include "base/log.h"
#include "base/util.h"
#include "ratelimit.h"
#include "udpsink.h"

#define LINGER_USEC  (200 * 1000ull)
#define ACCEPT_BATCH 64

enum conn_state { CONN_READING, CONN_WRITING, CONN_LINGER };

struct conn {
	int fd;
	enum conn_state state;
	bool linger_after_write; /* the answer being written is an ERROR */
	bool after_test;	 /* came back from a completed test */
	unsigned requests;	 /* frames answered so far */
	uint64_t since;		 /* accepted, or last answered: the oldest is closed first */
	uint64_t deadline;
	char peer[INET6_ADDRSTRLEN + 8];
	char source[INET6_ADDRSTRLEN];
	struct udpb_header hdr;
	size_t have;
	uint8_t *in;
	uint8_t *out;
	size_t out_len, out_off;
};

struct test {
	bool running;
	pthread_t thread;
	int fd;
	int wake; /* written once when the session returns */
	unsigned requests;
	char source[INET6_ADDRSTRLEN];
	struct udpb_setup setup;
	const struct cpuset *cpus;
	const volatile sig_atomic_t *quit;
	struct udpsink_summary sum;
	char *reason;
	int r;
};

struct loop {
	const struct serveloop_config *cfg;
	struct conn conns[SERVE_MAX_PENDING];
	size_t n;
	struct test test;
	struct peerstate_cache *state;
	struct ratelimit state_limit;
	int wake[2];
	unsigned tests_ended;
	int last;
};

static void conn_close(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->in);
	c->in = NULL;
	free(c->out);
	c->out = NULL;
}

/* The host part of "198.18.0.1:40312" (brackets are not used: the port
 * follows the last colon). */
static void source_of(const char *peer, char *buf, size_t size)
{
	const char *colon = strrchr(peer, ':');
	size_t len = colon ? (size_t)(colon - peer) : strlen(peer);

	if (len >= size)
		len = size - 1;
	memcpy(buf, peer, len);
	buf[len] = '\0';
}

static struct conn *conn_add(struct loop *l, int fd, uint64_t now)
{
	struct conn *c = &l->conns[l->n];

	*c = (struct conn){.fd = fd, .since = now, .deadline = now + UDPSINK_SETUP_TIMEOUT_USEC};
	c->in = malloc(UDPB_FRAME_HDR + UDPB_MAX_PAYLOAD);
	if (!c->in) {
		close(fd);
		return NULL;
	}
	udpsink_peer_name(fd, c->peer, sizeof(c->peer));
	source_of(c->peer, c->source, sizeof(c->source));
	l->n++;
	return c;
}

/* Queue a whole frame to write; it takes ownership of frame. */
static void conn_answer(struct conn *c, uint8_t *frame, size_t len, bool then_linger, uint64_t now)
{
	free(c->out);
	c->out = frame;
	c->out_len = len;
	c->out_off = 0;
	c->state = CONN_WRITING;
	c->linger_after_write = then_linger;
	c->deadline = now + UDPSINK_FRAME_TIMEOUT_USEC;
}

static void conn_refuse(struct conn *c, uint16_t code, const char *text, uint64_t now)
{
	uint8_t *frame = malloc(UDPB_FRAME_HDR + 4 + UDPB_MAX_ERROR_TEXT);
	int n = frame ? udpbench_encode_error(code, text, frame, UDPB_FRAME_HDR + 4 + UDPB_MAX_ERROR_TEXT)
		      : -ENOMEM;

	if (n < 0) {
		free(frame);
		conn_close(c);
		return;
	}
	conn_answer(c, frame, (size_t)n, true, now);
}

/* A failed request: one log line, and an ERROR unless the client left. A
 * client that closes between requests after a test or an answer just
 * ended its conversation. */
static void conn_fail(struct conn *c, int r, uint64_t now)
{
	const char *what = c->requests == 0 ? "setup" : "request";
	const char *text = udpsink_error_text(r);

	if (r == -ECONNRESET && c->requests > 0) {
		log_debug("serve: client %s: closed the connection", c->peer);
		conn_close(c);
		return;
	}
	log_warn("serve: client %s: %s: %s; connection closed", c->peer, what, text ? text : strerror(-r));
	if (r == -ECONNRESET || r == -ENOTCONN || r == -EPIPE)
		conn_close(c);
	else
		conn_refuse(c, udpsink_error_code(r), text ? text : "error", now);
}

static void *test_thread(void *arg)
{
	struct test *t = arg;
	char byte = 1;

	t->r = udpsink_session(t->fd, &t->setup, t->cpus, t->quit, &t->sum, &t->reason);
	/* The pipe has room for this one byte: nobody else writes to it. */
	(void)!write(t->wake, &byte, 1);
	return NULL;
}

static void test_start(struct loop *l, struct conn *c, const struct udpb_setup *setup, uint64_t now)
{
	struct test *t = &l->test;
	int r;

	*t = (struct test){.fd = c->fd,
			   .wake = l->wake[1],
			   .requests = c->requests + 1,
			   .setup = *setup,
			   .cpus = l->cfg->cpus,
			   .quit = l->cfg->quit};
	snprintf(t->source, sizeof(t->source), "%s", c->source);
	r = pthread_create(&t->thread, NULL, test_thread, t);
	if (r != 0) {
		log_warn("serve: client %s: setup: cannot start the test: %s; connection closed", c->peer,
			 strerror(r));
		conn_refuse(c, UDPB_ERR_RESOURCE, "cannot start the test", now);
		return;
	}
	t->running = true;
	c->fd = -1; /* the test thread owns it now */
	conn_close(c);
}

/* Refuse a STATE request with an ERROR when serve gives no state, or when
 * its address, or all addresses together, asked too often; the client
 * that ran a test on this connection is not counted. */
static bool state_refused(struct loop *l, struct conn *c, uint64_t now)
{
	char text[160];
	int r;

	if (l->cfg->state == PEERSTATE_OFF) {
		log_info("serve: client %s: state request refused (--state off)", c->peer);
		conn_refuse(c, UDPB_ERR_DENIED, "this serve gives no state (serve --state off)", now);
		return true;
	}
	r = c->after_test ? 0 : ratelimit_take(&l->state_limit, c->source, now);
	if (r == 0)
		return false;
	log_info("serve: client %s: state request refused: too many from %s", c->peer,
		 r == -EAGAIN ? "its address" : "all addresses");
	if (r == -EAGAIN)
		snprintf(text, sizeof(text),
			 "too many state requests from this address (%u at once, then one every %" PRIu64
			 " ms): retry later",
			 l->state_limit.per_source.burst, l->state_limit.per_source.interval_usec / 1000);
	else
		snprintf(text, sizeof(text),
			 "too many state requests from all addresses (%u at once, then one every %" PRIu64
			 " ms): retry later",
			 l->state_limit.global.burst, l->state_limit.global.interval_usec / 1000);
	conn_refuse(c, UDPB_ERR_LIMIT, text, now);
	return true;
}

static void dispatch(struct loop *l, struct conn *c, uint64_t now)
{
	const uint8_t *p = c->in + UDPB_FRAME_HDR;
	struct udpb_setup setup;
	uint8_t *frame = NULL;
	int r, version;

	c->have = 0;
	switch (c->hdr.type) {
	case UDPB_SETUP:
		r = udpbench_decode_setup(p, c->hdr.length, &setup);
		if (r < 0)
			break;
		if (l->test.running) {
			log_info("serve: refused a second client while a test runs");
			c->requests++;
			conn_refuse(c, UDPB_ERR_BUSY, "busy: another test is running, retry later", now);
			return;
		}
		test_start(l, c, &setup, now);
		return;
	case UDPB_STATE_REQUEST:
		version = udpbench_decode_state_request(p, c->hdr.length);
		if (version < 0) {
			r = version;
			break;
		}
		c->requests++;
		if (state_refused(l, c, now))
			return;
		r = peerstate_answer(l->state, c->fd, now, (uint16_t)version, &frame);
		if (r < 0)
			break;
		c->since = now;
		conn_answer(c, frame, (size_t)r, false, now);
		return;
	default:
		r = -EPROTO;
		break;
	}
	conn_fail(c, r, now);
}

static void conn_read(struct loop *l, struct conn *c, uint64_t now)
{
	size_t want = c->have < UDPB_FRAME_HDR ? UDPB_FRAME_HDR : UDPB_FRAME_HDR + c->hdr.length;
	ssize_t n = recv(c->fd, c->in + c->have, want - c->have, MSG_DONTWAIT);
	int r;

	if (n == 0) {
		conn_fail(c, c->have == 0 ? -ECONNRESET : -ENODATA, now);
		return;
	}
	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			conn_fail(c, -errno, now);
		return;
	}
	c->have += (size_t)n;
	if (c->have == UDPB_FRAME_HDR) {
		r = udpbench_decode_header(c->in, UDPB_FRAME_HDR, &c->hdr);
		if (r < 0) {
			conn_fail(c, r, now);
			return;
		}
		want = UDPB_FRAME_HDR + c->hdr.length;
	}
	if (c->have == want)
		dispatch(l, c, now);
}

static void conn_write(struct conn *c, uint64_t now)
{
	ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_DONTWAIT | MSG_NOSIGNAL);

	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			conn_close(c);
		return;
	}
	c->out_off += (size_t)n;
	if (c->out_off < c->out_len)
		return;
	free(c->out);
	c->out = NULL;
	if (c->linger_after_write) {
		/* Lingering close: unread client bytes would make close()
		 * send a reset that destroys the ERROR frame in flight. */
		if (shutdown(c->fd, SHUT_WR) < 0) {
			conn_close(c);
			return;
		}
		c->state = CONN_LINGER;
		c->deadline = now + LINGER_USEC;
	} else if (c->requests >= SERVE_MAX_REQUESTS) {
		conn_close(c);
	} else {
		c->state = CONN_READING;
		c->deadline = now + UDPSINK_SETUP_TIMEOUT_USEC;
	}
}

static void conn_drain(struct conn *c)
{
	uint8_t sink[4096];
	ssize_t n = recv(c->fd, sink, sizeof(sink), MSG_DONTWAIT);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		conn_close(c);
}

static void conn_expire(struct conn *c, uint64_t now)
{
	if (c->fd < 0 || now < c->deadline)
		return;
	switch (c->state) {
	case CONN_READING:
		conn_fail(c, -ETIMEDOUT, now);
		break;
	case CONN_WRITING:
		log_warn("serve: client %s: sending the answer: %s; connection closed", c->peer,
			 udpsink_error_text(-ETIMEDOUT));
		conn_close(c);
		break;
	case CONN_LINGER:
		conn_close(c);
		break;
	}
}

/* Best effort, never waiting: the client was idle. */
static void tell_busy(int fd)
{
	uint8_t frame[UDPB_FRAME_HDR + 4 + UDPB_MAX_ERROR_TEXT];
	int n = udpbench_encode_error(UDPB_ERR_BUSY, "busy: too many waiting connections, retry later", frame,
				      sizeof(frame));

	if (n > 0)
		(void)!send(fd, frame, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* A connection that came back from a completed test is its client's, who
 * is about to ask for the state after the run: it is never closed to make
 * room. */
static bool evictable(const struct conn *c)
{
	return c->fd >= 0 && !c->after_test;
}

/* How many evictable connections source has waiting, and the oldest. */
static unsigned source_count(struct loop *l, const char *source, struct conn **ret_oldest)
{
	struct conn *oldest = NULL;
	unsigned n = 0;

	for (size_t i = 0; i < l->n; i++) {
		struct conn *c = &l->conns[i];
		if (!evictable(c) || !streq(c->source, source))
			continue;
		n++;
		if (!oldest || c->since < oldest->since)
			oldest = c;
	}
	*ret_oldest = oldest;
	return n;
}

static size_t live_count(const struct loop *l)
{
	size_t n = 0;

	for (size_t i = 0; i < l->n; i++)
		n += l->conns[i].fd >= 0;
	return n;
}

/* Make room for one more connection from source: the oldest waiting one
 * from the same address when it has SERVE_MAX_PER_SOURCE, else, when the
 * table is full, the oldest of the address with the most waiting (ties:
 * the oldest connection). A client that floods connections thus only
 * closes its own, and a real client, with one connection from its
 * address, is the last to go. -EBUSY when nothing may be closed. */
static int make_room(struct loop *l, const char *source)
{
	struct conn *victim = NULL;
	unsigned most = 0;

	if (source_count(l, source, &victim) < SERVE_MAX_PER_SOURCE) {
		victim = NULL;
		if (live_count(l) < SERVE_MAX_PENDING)
			return 0;
		for (size_t i = 0; i < l->n; i++) {
			struct conn *oldest;
			unsigned k;

			if (!evictable(&l->conns[i]))
				continue;
			k = source_count(l, l->conns[i].source, &oldest);
			if (k > most || (k == most && oldest->since < victim->since)) {
				most = k;
				victim = oldest;
			}
		}
	}
	if (!victim)
		return -EBUSY;
	log_info("serve: client %s: closed to make room for a new connection (at most %d waiting, %d "
		 "per address)",
		 victim->peer, SERVE_MAX_PENDING, SERVE_MAX_PER_SOURCE);
	if (victim->state == CONN_READING)
		tell_busy(victim->fd);
	conn_close(victim);
	return 0;
}

static void compact(struct loop *l)
{
	size_t k = 0;

	for (size_t i = 0; i < l->n; i++)
		if (l->conns[i].fd >= 0)
			l->conns[k++] = l->conns[i];
	l->n = k;
}

/* The test thread returned: log its line, and give a completed test's
 * connection back to the waiting ones (its client asks for the state
 * after the run), closing another waiting one if the table is full. Runs
 * between poll rounds: it may move connections in the table. */
static void test_end(struct loop *l, uint64_t now)
{
	struct test *t = &l->test;
	struct conn *c;
	char byte;

	while (read(l->wake[0], &byte, 1) > 0)
		;
	if (!t->running)
		return;
	pthread_join(t->thread, NULL);
	t->running = false;
	l->tests_ended++;
	l->last = t->r;
	if (l->state)
		peerstate_cache_expire(l->state);
	if (t->r < 0) {
		log_warn("serve: client %s: %s; connection closed", t->sum.peer, strna(t->reason));
		close(t->fd);
	} else {
		log_notice("serve: client %s: %u s, %u-byte messages, %u stream(s): received %llu of "
			   "%llu datagrams",
			   t->sum.peer, t->sum.setup.duration_s, t->sum.setup.message_size,
			   t->sum.setup.streams, (unsigned long long)t->sum.received,
			   (unsigned long long)t->sum.sent);
		c = make_room(l, t->source) >= 0 ? (compact(l), conn_add(l, t->fd, now)) : NULL;
		if (c) {
			c->after_test = true;
			c->requests = t->requests;
		} else {
			log_warn("serve: client %s: no room to wait for its state request; connection "
				 "closed",
				 t->sum.peer);
			close(t->fd);
		}
	}
	t->fd = -1;
	free(t->reason);
	t->reason = NULL;
}

static void accept_new(struct loop *l, uint64_t now)
{
	for (unsigned i = 0; i < ACCEPT_BATCH; i++) {
		char peer[INET6_ADDRSTRLEN + 8], source[INET6_ADDRSTRLEN];
		struct conn *c;
		int fd = accept4(l->cfg->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (fd < 0)
			return;
		udpsink_peer_name(fd, peer, sizeof(peer));
		source_of(peer, source, sizeof(source));
		if (make_room(l, source) < 0) {
			log_info("serve: client %s: refused: every waiting connection is a finished "
				 "test's",
				 peer);
			tell_busy(fd);
			close(fd);
			continue;
		}
		compact(l);
		c = conn_add(l, fd, now);
		/* A real client sends its request right after connecting:
		 * read it now, before later connections can push it out. */
		if (c)
			conn_read(l, c, now);
	}
}

static bool once_finished(const struct loop *l)
{
	if (!l->cfg->once || l->tests_ended == 0 || l->test.running)
		return false;
	for (size_t i = 0; i < l->n; i++)
		if (l->conns[i].fd >= 0 && l->conns[i].after_test)
			return false;
	return true;
}

static int poll_timeout(const struct loop *l, uint64_t now)
{
	uint64_t next = now + 500000;

	for (size_t i = 0; i < l->n; i++)
		if (l->conns[i].deadline < next)
			next = l->conns[i].deadline;
	return next <= now ? 0 : (int)((next - now + 999) / 1000);
}

static void loop_round(struct loop *l)
{
	struct pollfd pfd[2 + SERVE_MAX_PENDING];
	size_t n = l->n;
	uint64_t now;

	pfd[0] = (struct pollfd){.fd = l->cfg->lfd, .events = POLLIN};
	pfd[1] = (struct pollfd){.fd = l->wake[0], .events = POLLIN};
	for (size_t i = 0; i < n; i++)
		pfd[2 + i] = (struct pollfd){.fd = l->conns[i].fd,
					     .events = l->conns[i].state == CONN_WRITING ? POLLOUT : POLLIN};
	if (poll(pfd, 2 + n, poll_timeout(l, now_usec())) < 0)
		return; /* EINTR: a signal; the caller checks quit */
	now = now_usec();
	for (size_t i = 0; i < n; i++) {
		struct conn *c = &l->conns[i];
		if (c->fd < 0 || !(pfd[2 + i].revents & (POLLIN | POLLOUT | POLLHUP | POLLERR)))
			continue;
		if (c->state == CONN_READING)
			conn_read(l, c, now);
		else if (c->state == CONN_WRITING)
			conn_write(c, now);
		else
			conn_drain(c);
	}
	for (size_t i = 0; i < l->n; i++)
		conn_expire(&l->conns[i], now);
	compact(l);
	if (pfd[1].revents & POLLIN)
		test_end(l, now);
	if (pfd[0].revents & POLLIN)
		accept_new(l, now);
	compact(l);
}

/* Tests only: CX5PROF_TEST_SLOW_REFILL=N (1 to 1000) makes the STATE
 * rate limits refill N times slower, so a test's burst exhausts them
 * whatever the load of the machine running it. */
static uint32_t state_refill_slowdown(void)
{
	const char *env = getenv("CX5PROF_TEST_SLOW_REFILL");
	uint32_t v;

	if (!env || safe_atou32(env, &v) < 0 || v == 0 || v > 1000)
		return 1;
	return v;
}

int serveloop_run(const struct serveloop_config *cfg, int *ret_test_r)
{
	struct loop *l = calloc(1, sizeof(*l));
	uint32_t slow;
	int r;

	if (!l)
		return -ENOMEM;
	l->cfg = cfg;
	slow = state_refill_slowdown();
	ratelimit_init(&l->state_limit,
		       (struct ratelimit_rate){SERVE_STATE_BURST, SERVE_STATE_INTERVAL_MS * 1000ull * slow},
		       (struct ratelimit_rate){SERVE_STATE_GLOBAL_BURST,
					       SERVE_STATE_GLOBAL_INTERVAL_MS * 1000ull * slow});
	r = cfg->state == PEERSTATE_OFF ? 0
					: peerstate_cache_new(cfg->state, cfg->state_refresh_ms, &l->state);
	if (r >= 0 && pipe2(l->wake, O_CLOEXEC | O_NONBLOCK) < 0)
		r = -errno;
	if (r < 0) {
		peerstate_cache_free(l->state);
		free(l);
		return r;
	}
	while (!*cfg->quit && !once_finished(l))
		loop_round(l);
	if (l->test.running) {
		/* *quit is set: the session sees it within a poll round. */
		pthread_join(l->test.thread, NULL);
		close(l->test.fd);
		free(l->test.reason);
	}
	for (size_t i = 0; i < l->n; i++)
		conn_close(&l->conns[i]);
	close(l->wake[0]);
	close(l->wake[1]);
	peerstate_cache_free(l->state);
	*ret_test_r = l->last;
	free(l);
	return 0;
}
