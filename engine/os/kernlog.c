/* kernlog.c: the kernel's message buffer (see kernlog.h).
 *
 * Owns: nothing but reading it. Must never: write to /dev/kmsg, or run
 * journalctl under a sysroot. */
#define _GNU_SOURCE
#include "kernlog.h"

#include <fcntl.h>
#include <stdio.h>

#include "base/child.h"
#include "sysroot.h"

#define KMSG_PATH	     "/dev/kmsg"
#define KMSG_MAX_BYTES	     (16u << 20) /* the ring buffer is a few MiB at most */
#define JOURNALCTL_TIMEOUT_S 10

int kernlog_from_kmsg(const char *raw, size_t len, char **ret)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < len;) {
		const char *line = raw + i, *nl = memchr(line, '\n', len - i);
		size_t n = nl ? (size_t)(nl - line) : len - i;
		const char *semi = memchr(line, ';', n);

		i += n + (nl ? 1 : 0);
		if (n == 0 || *line == ' ') /* a record's KEY=value continuation */
			continue;
		if (semi) {
			n -= (size_t)(semi + 1 - line);
			line = semi + 1;
		}
		fwrite(line, 1, n, f);
		fputc('\n', f);
	}
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	*ret = buf;
	return 0;
}

/* Every record there is, then EAGAIN (a live /dev/kmsg) or EOF (a file). */
static int read_kmsg(char **ret)
{
	_cleanup_free_ char *raw = NULL;
	_cleanup_close_ int fd = sysroot_open_read_device(KMSG_PATH);
	size_t len = 0, cap = 0;

	if (fd < 0)
		return fd;
	/* at the end of the buffer a read waits for the next message */
	if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		if (cap - len < 8192) {
			char *nr;

			if (cap >= KMSG_MAX_BYTES)
				break;
			nr = realloc(raw, cap + 65536);
			if (!nr)
				return -ENOMEM;
			raw = nr;
			cap += 65536;
		}
		n = read(fd, raw + len, cap - len);
		if (n < 0 && (errno == EINTR || errno == EPIPE)) /* EPIPE: a record was overwritten */
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	return kernlog_from_kmsg(raw ? raw : "", len, ret);
}

static int read_journal(char **ret)
{
	static const char *const argv[] = {"journalctl", "-k", "-b", "-q", "--no-pager", "-o", "cat", NULL};
	_cleanup_(child_done) struct child c = {.out_fd = -1};
	int r;

	r = child_spawn(argv[0], (char *const *)argv, &(struct child_options){.stderr_discard = true}, &c);
	if (r < 0)
		return r;
	r = child_wait_all(&c, 1, now_usec() + (uint64_t)JOURNALCTL_TIMEOUT_S * 1000000);
	if (r < 0)
		return r;
	if (c.timed_out || c.exit_status != 0)
		return -ENOENT;
	*ret = c.output ? TAKE_PTR(c.output) : strdup("");
	return *ret ? 0 : -ENOMEM;
}

int kernlog_read(char **ret_text, const char **ret_source)
{
	int r = read_kmsg(ret_text);

	if (r >= 0) {
		*ret_source = "the kernel ring buffer (" KMSG_PATH ")";
		return 0;
	}
	if (r == -ENOMEM || !sysroot_is_live())
		return r == -ENOMEM ? r : -ENOENT;
	r = read_journal(ret_text);
	if (r < 0)
		return r == -ENOMEM ? r : -ENOENT;
	*ret_source = "the kernel ring buffer (journalctl -k)";
	return 0;
}
