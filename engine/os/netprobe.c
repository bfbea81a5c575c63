/* netprobe.c: bounded TCP and DF probes towards a peer (see netprobe.h).
 *
 * Owns: the sockets of those probes, closed before returning. Must never:
 * probe more than the one host given (each of its addresses at most once),
 * or block past its timeout once the name is resolved. */
#define _GNU_SOURCE
#include "netprobe.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <sys/socket.h>

static int resolve(const char *host, uint16_t port, int socktype, struct sockaddr_storage *ret,
		   socklen_t *ret_len, int family)
{
	struct addrinfo hints = {.ai_family = family, .ai_socktype = socktype}, *ai = NULL;
	char portbuf[8];

	if (!host || !*host)
		return -EINVAL;
	snprintf(portbuf, sizeof(portbuf), "%u", port);
	if (getaddrinfo(host, portbuf, &hints, &ai) != 0 || !ai)
		return -EINVAL;
	memcpy(ret, ai->ai_addr, ai->ai_addrlen);
	*ret_len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

/* One non-blocking connect to a, waiting until deadline. */
static int connect_one(const struct addrinfo *a, uint64_t deadline)
{
	_cleanup_close_ int fd = -1;
	struct pollfd pfd;
	uint64_t now;
	int r, soerr = 0;
	socklen_t l = sizeof(soerr);

	fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return -errno;
	now = now_usec();
	if (now >= deadline)
		return -ETIMEDOUT;
	pfd = (struct pollfd){.fd = fd, .events = POLLOUT};
	r = poll(&pfd, 1, (int)((deadline - now) / 1000) + 1);
	if (r < 0)
		return -errno;
	if (r == 0)
		return -ETIMEDOUT;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &l) < 0)
		return -errno;
	return soerr ? -soerr : 0;
}

int netprobe_tcp(const char *host, uint16_t port, unsigned timeout_ms)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai = NULL;
	char portbuf[8];
	uint64_t deadline;
	int r = -EINVAL;

	if (!host || !*host)
		return -EINVAL;
	snprintf(portbuf, sizeof(portbuf), "%u", port);
	/* Resolution is bounded only by the resolver (resolv.conf timeout
	 * and attempts): numeric addresses and /etc/hosts names never wait. */
	if (getaddrinfo(host, portbuf, &hints, &ai) != 0 || !ai)
		return -EINVAL;
	deadline = now_usec() + (uint64_t)timeout_ms * 1000;
	/* Every address in turn ("localhost" may give ::1 before 127.0.0.1
	 * and the server listen on one only), within the one time budget. */
	for (const struct addrinfo *a = ai; a; a = a->ai_next) {
		if (a != ai && now_usec() >= deadline)
			break;
		r = connect_one(a, deadline);
		if (r == 0)
			break;
	}
	freeaddrinfo(ai);
	return r;
}

static uint16_t icmp_checksum(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t sum = 0;

	for (; len > 1; len -= 2, p += 2)
		sum += (uint32_t)(p[0] << 8 | p[1]);
	if (len)
		sum += (uint32_t)p[0] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

/* An ICMP socket: unprivileged "ping" socket if allowed, else raw. */
static int icmp_socket(bool *ret_raw)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_ICMP);

	if (fd >= 0) {
		*ret_raw = false;
		return fd;
	}
	fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
	if (fd < 0)
		return -errno;
	*ret_raw = true;
	return fd;
}

/* 1 answered, 0 not within timeout, -EMSGSIZE refused locally, -errno. */
static int echo_once(int fd, bool raw, const struct sockaddr_in *to, size_t payload, uint16_t id,
		     uint16_t seq, unsigned timeout_ms)
{
	_cleanup_free_ uint8_t *pkt = calloc(1, sizeof(struct icmphdr) + payload);
	uint8_t buf[65536];
	struct icmphdr *h;
	uint64_t deadline = now_usec() + (uint64_t)timeout_ms * 1000;

	if (!pkt)
		return -ENOMEM;
	h = (struct icmphdr *)pkt;
	h->type = ICMP_ECHO;
	h->un.echo.id = htons(id);
	h->un.echo.sequence = htons(seq);
	for (size_t i = 0; i < payload; i++)
		pkt[sizeof(*h) + i] = (uint8_t)i;
	h->checksum = icmp_checksum(pkt, sizeof(*h) + payload);
	if (sendto(fd, pkt, sizeof(*h) + payload, 0, (const struct sockaddr *)to, sizeof(*to)) < 0)
		return -errno;
	for (;;) {
		uint64_t now = now_usec();
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		ssize_t n;
		size_t off = 0;

		if (now >= deadline)
			return 0;
		if (poll(&pfd, 1, (int)((deadline - now) / 1000) + 1) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EMSGSIZE)
				return -EMSGSIZE;
			continue;
		}
		if (raw) {
			if ((size_t)n < sizeof(struct iphdr))
				continue;
			off = (size_t)(((struct iphdr *)buf)->ihl) * 4;
		}
		if ((size_t)n < off + sizeof(struct icmphdr))
			continue;
		h = (struct icmphdr *)(buf + off);
		/* A ping socket rewrites the id; match the sequence there. */
		if (h->type == ICMP_ECHOREPLY && ntohs(h->un.echo.sequence) == seq &&
		    (!raw || ntohs(h->un.echo.id) == id))
			return 1;
	}
}

int netprobe_df(const char *host, uint32_t mtu, unsigned timeout_ms, enum df_result *ret,
		uint32_t *ret_path_mtu)
{
	struct sockaddr_storage sa;
	socklen_t salen;
	_cleanup_close_ int fd = -1;
	int pmtu = IP_PMTUDISC_DO, r, kmtu = 0;
	socklen_t l = sizeof(kmtu);
	bool raw = false;
	uint16_t id = (uint16_t)getpid();

	if (mtu < 68 || mtu > 65535)
		return -EINVAL;
	r = resolve(host, 0, SOCK_DGRAM, &sa, &salen, AF_INET);
	if (r < 0)
		return r;
	fd = icmp_socket(&raw);
	if (fd < 0)
		return fd;
	if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu)) < 0)
		return -errno;
	/* connect() so that IP_MTU reports the route's MTU. */
	if (connect(fd, (struct sockaddr *)&sa, salen) == 0 &&
	    getsockopt(fd, IPPROTO_IP, IP_MTU, &kmtu, &l) < 0)
		kmtu = 0;

	r = echo_once(fd, raw, (struct sockaddr_in *)&sa, mtu - 28, id, 1, timeout_ms);
	if (r == -EMSGSIZE) {
		*ret = DF_LOCAL_TOO_SMALL;
	} else if (r < 0) {
		return r;
	} else if (r == 1) {
		*ret = DF_PASSED;
	} else {
		r = echo_once(fd, raw, (struct sockaddr_in *)&sa, 56, id, 2, timeout_ms);
		if (r < 0 && r != -EMSGSIZE)
			return r;
		*ret = r == 1 ? DF_DROPPED : DF_NO_ECHO;
	}
	if (ret_path_mtu)
		*ret_path_mtu = kmtu > 0 ? (uint32_t)kmtu : 0;
	return 0;
}
