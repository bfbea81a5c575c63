/* txqueues.c: transmit queues' XPS masks (see txqueues.h).
 *
 * Owns: the queues/ listing and the xps_cpus format. Must never: write a
 * mask wider or narrower than the kernel prints it (a sysroot copy must
 * read back byte for byte after an undo). */
#define _GNU_SOURCE
#include "txqueues.h"

#include <ctype.h>
#include <stdio.h>

#include "sysroot.h"

void xps_state_done(struct xps_state *s)
{
	for (unsigned i = 0; s->tx && i < s->n_tx; i++)
		cpuset_done(&s->tx[i]);
	free(s->tx);
	free(s->tx_r);
	*s = (struct xps_state){0};
}

/* The last CPU + 1 of a sysfs CPU list file (possible, online). */
static int cpu_list_width(const char *path, unsigned *ret)
{
	_cleanup_cpuset_ struct cpuset s = CPUSET_INIT;
	_cleanup_free_ char *line = NULL;
	int r = sysroot_read_line(path, &line);

	if (r < 0)
		return r;
	r = cpuset_parse_list(line, &s);
	if (r < 0)
		return r;
	if (cpuset_last(&s) < 0)
		return -EBADMSG;
	*ret = (unsigned)cpuset_last(&s) + 1;
	return 0;
}

/* How many CPUs wide the kernel prints this queue's mask (nr_cpu_ids):
 * 4 per hex digit of its current text, which cpuset_format_mask then
 * reproduces digit for digit; without a text, the possible CPUs; without
 * those (a sysroot that has no cpu/possible), the last online CPU + 1. */
static int mask_width(const char *text, unsigned *ret)
{
	unsigned digits = 0;

	for (const char *c = text; c && *c; c++)
		if (isxdigit((unsigned char)*c))
			digits++;
	if (digits > 0) {
		*ret = digits * 4;
		return 0;
	}
	if (cpu_list_width("/sys/devices/system/cpu/possible", ret) >= 0)
		return 0;
	return cpu_list_width("/sys/devices/system/cpu/online", ret);
}

static char *queue_path(const char *ifname, unsigned q)
{
	return strprintf("/sys/class/net/%s/queues/tx-%u/xps_cpus", ifname, q);
}

static int read_queue_text(const char *ifname, unsigned q, char **ret)
{
	_cleanup_free_ char *path = NULL;

	if (!ifname_valid(ifname))
		return -EINVAL;
	path = queue_path(ifname, q);
	if (!path)
		return -ENOMEM;
	return sysroot_read_all(path, ret, NULL);
}

int xps_read_queue(const char *ifname, unsigned q, struct cpuset *ret)
{
	_cleanup_free_ char *text = NULL;
	int r = read_queue_text(ifname, q, &text);

	if (r < 0)
		return r;
	return cpuset_parse_mask(text, ret) < 0 ? -EBADMSG : 0;
}

int xps_write_queue(const char *ifname, unsigned q, const struct cpuset *cpus)
{
	_cleanup_cpuset_ struct cpuset cur = CPUSET_INIT;
	_cleanup_free_ char *text = NULL, *path = NULL, *mask = NULL, *line = NULL;
	bool parsed;
	unsigned ncpus;
	int r;

	r = read_queue_text(ifname, q, &text);
	if (r == -ENOENT || r == -ENOMEM || r == -EINVAL)
		return r;
	parsed = r >= 0 && cpuset_parse_mask(text, &cur) >= 0;
	if (parsed && cpuset_equal(&cur, cpus))
		return 0;
	r = mask_width(parsed ? text : NULL, &ncpus);
	if (r < 0)
		return r;
	r = cpuset_format_mask(cpus, ncpus, &mask);
	if (r < 0)
		return r;
	path = queue_path(ifname, q);
	line = strprintf("%s\n", mask);
	if (!path || !line)
		return -ENOMEM;
	r = sysroot_write(path, line);
	if (r < 0)
		return r;
	cpuset_clear(&cur);
	r = xps_read_queue(ifname, q, &cur);
	if (r == -EBADMSG)
		return -EIO;
	if (r < 0)
		return r;
	return cpuset_equal(&cur, cpus) ? 1 : -EIO;
}

/* Count "rx-N" and "tx-N" (queue N + 1 of its kind). */
static void count_queue(const char *name, unsigned *n_rx, unsigned *n_tx)
{
	uint32_t q;
	bool tx = strncmp(name, "tx-", 3) == 0;

	if ((!tx && strncmp(name, "rx-", 3) != 0) || safe_atou32(name + 3, &q) < 0 || q >= XPS_QUEUES_MAX)
		return;
	if (tx && q + 1 > *n_tx)
		*n_tx = q + 1;
	if (!tx && q + 1 > *n_rx)
		*n_rx = q + 1;
}

int xps_read(const char *ifname, struct xps_state *ret)
{
	_cleanup_strv_free_ char **names = NULL;
	_cleanup_free_ char *dir = NULL;
	struct xps_state s = {0};
	int r;

	if (!ifname_valid(ifname))
		return -EINVAL;
	dir = strprintf("/sys/class/net/%s/queues", ifname);
	if (!dir)
		return -ENOMEM;
	r = sysroot_listdir(dir, &names);
	if (r < 0)
		return r;
	for (char **n = names; n && *n; n++)
		count_queue(*n, &s.n_rx, &s.n_tx);
	s.tx = calloc(s.n_tx ? s.n_tx : 1, sizeof(*s.tx));
	s.tx_r = calloc(s.n_tx ? s.n_tx : 1, sizeof(*s.tx_r));
	if (!s.tx || !s.tx_r) {
		xps_state_done(&s);
		return -ENOMEM;
	}
	for (unsigned q = 0; q < s.n_tx; q++) {
		s.tx_r[q] = xps_read_queue(ifname, q, &s.tx[q]);
		if (s.tx_r[q] == -ENOMEM) {
			xps_state_done(&s);
			return -ENOMEM;
		}
	}
	*ret = s;
	return 0;
}

int xps_follow_irqs(unsigned n_tx, unsigned channels, const int *vector_cpu, unsigned n_vectors,
		    struct cpuset *ret)
{
	int r;

	if (channels == 0 || n_vectors == 0)
		return -EINVAL;
	for (unsigned q = 0; q < n_tx; q++) {
		unsigned c = q % channels;

		cpuset_clear(&ret[q]);
		/* a channel beyond the vectors shares one, as the driver does */
		for (unsigned v = c % n_vectors; v < n_vectors; v += channels) {
			if (vector_cpu[v] >= 0 && (r = cpuset_add(&ret[q], (unsigned)vector_cpu[v])) < 0)
				return r;
			if (c >= n_vectors)
				break;
		}
	}
	return 0;
}
