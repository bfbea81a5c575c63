/* procsys.c: the managed sysctls, read and written through the sysroot
 * (see procsys.h).
 *
 * Owns: the table and the name -> /proc/sys path mapping. Must never:
 * accept a name outside the table, or write without reading back. */
#define _GNU_SOURCE
#include "procsys.h"

#include <inttypes.h>
#include <limits.h>

#include "sysroot.h"

/* Ranges as the kernel's handlers check them: the socket-buffer limits
 * are ints (and below 4096 a limit is meaningless), netdev_budget needs at
 * least one packet per poll, busy_read/busy_poll and netdev_budget_usecs
 * accept 0, udp_mem is three longs in pages, udp_rmem_min at least 1,
 * ipfrag_high_thresh a long (the kernel refuses one below
 * ipfrag_low_thresh: the write fails, and the apply is undone). */
static const struct sysctl_def sysctl_defs[_SYSCTL_MAX] = {
    [SYSCTL_RMEM_MAX] = {"net.core.rmem_max", 1, false, 4096, INT_MAX, "bytes",
			 "bytes: the largest receive buffer a program may ask for; SO_RCVBUF above it "
			 "(netperf -S 4M) is cut to it without an error"},
    [SYSCTL_WMEM_MAX] = {"net.core.wmem_max", 1, false, 4096, INT_MAX, "bytes",
			 "bytes: the largest send buffer a program may ask for; SO_SNDBUF above it (netperf "
			 "-s 4M) is cut to it without an error"},
    [SYSCTL_RMEM_DEFAULT] = {"net.core.rmem_default", 1, false, 4096, INT_MAX, "bytes",
			     "bytes: the receive buffer of a socket that does not ask for one"},
    [SYSCTL_WMEM_DEFAULT] = {"net.core.wmem_default", 1, false, 4096, INT_MAX, "bytes",
			     "bytes: the send buffer of a socket that does not ask for one"},
    [SYSCTL_NETDEV_MAX_BACKLOG] = {"net.core.netdev_max_backlog", 1, false, 1, INT_MAX, "packets",
				   "packets queued per CPU between the driver and the stack; beyond it they "
				   "are dropped (softnet_stat's dropped column)"},
    [SYSCTL_NETDEV_BUDGET] = {"net.core.netdev_budget", 1, false, 1, INT_MAX, "packets",
			      "packets per NAPI poll round"},
    [SYSCTL_NETDEV_BUDGET_USECS] = {"net.core.netdev_budget_usecs", 1, false, 0, INT_MAX, "microseconds",
				    "microseconds per NAPI poll round"},
    [SYSCTL_BUSY_READ] = {"net.core.busy_read", 1, false, 0, INT_MAX, "microseconds",
			  "microseconds of busy polling on a blocking read"},
    [SYSCTL_BUSY_POLL] = {"net.core.busy_poll", 1, false, 0, INT_MAX, "microseconds",
			  "microseconds of busy polling in poll/select"},
    [SYSCTL_UDP_MEM] = {"net.ipv4.udp_mem", 3, true, 1, LONG_MAX, "pages",
			"min, pressure, max in pages, not decreasing; exact only (no floor)"},
    [SYSCTL_UDP_RMEM_MIN] =
	{"net.ipv4.udp_rmem_min", 1, false, 1, INT_MAX, "bytes",
	 "bytes: the smallest receive buffer a UDP socket is held to under memory pressure"},
    [SYSCTL_IPFRAG_HIGH_THRESH] =
	{"net.ipv4.ipfrag_high_thresh", 1, false, 1, LONG_MAX, "bytes",
	 "bytes: the memory IPv4 reassembly may hold; beyond it fragments are dropped (IpReasmFails), so "
	 "datagrams larger than the MTU need room; not below net.ipv4.ipfrag_low_thresh"},
};

const struct sysctl_def *sysctl_def(enum sysctl_key k)
{
	return (unsigned)k < _SYSCTL_MAX ? &sysctl_defs[k] : NULL;
}

const char *sysctl_key_to_string(enum sysctl_key k)
{
	return (unsigned)k < _SYSCTL_MAX ? sysctl_defs[k].name : NULL;
}

int sysctl_key_from_string(const char *name, enum sysctl_key *ret)
{
	for (unsigned i = 0; i < _SYSCTL_MAX; i++)
		if (streq(sysctl_defs[i].name, name)) {
			*ret = (enum sysctl_key)i;
			return 0;
		}
	return -EINVAL;
}

const char *sysctl_names(void)
{
	static char buf[512];

	if (!buf[0])
		table_names_join(sysctl_defs, sizeof(sysctl_defs[0]), _SYSCTL_MAX, buf, sizeof(buf));
	return buf;
}

/* The values joined by sep, then end. */
static int format_joined(const struct sysctl_value *v, const char *sep, const char *end, char **ret)
{
	char buf[SYSCTL_VALUES_MAX * 21 + 2] = "";
	char *s;

	for (unsigned i = 0; i < v->n && i < SYSCTL_VALUES_MAX; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%" PRIu64, i ? sep : "", v->v[i]);
	s = strprintf("%s%s", buf, end);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

int sysctl_value_format(const struct sysctl_value *v, char **ret)
{
	return format_joined(v, " ", "", ret);
}

int sysctl_value_parse(enum sysctl_key k, const char *s, struct sysctl_value *ret)
{
	const struct sysctl_def *d = sysctl_def(k);
	struct sysctl_value v = {0};
	const char *p = s;

	if (!d)
		return -EINVAL;
	for (;;) {
		char num[21];
		size_t len;

		p += strspn(p, " \t\n");
		if (!*p)
			break;
		len = strcspn(p, " \t\n");
		if (v.n == d->n_values || len >= sizeof(num))
			return -EINVAL;
		memcpy(num, p, len);
		num[len] = '\0';
		if (safe_atou64(num, &v.v[v.n]) < 0)
			return -EINVAL;
		v.n++;
		p += len;
	}
	if (v.n != d->n_values)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* "net.core.rmem_max" -> "/proc/sys/net/core/rmem_max". */
static int sysctl_path(enum sysctl_key k, char **ret)
{
	const char *name = sysctl_key_to_string(k);
	char *p;

	if (!name)
		return -EINVAL;
	p = strprintf("/proc/sys/%s", name);
	if (!p)
		return -ENOMEM;
	for (char *c = p + strlen("/proc/sys/"); *c; c++)
		if (*c == '.')
			*c = '/';
	*ret = p;
	return 0;
}

static int read_at(enum sysctl_key k, const char *path, struct sysctl_value *ret)
{
	_cleanup_free_ char *text = NULL;
	int r = sysroot_read_line(path, &text);

	return r < 0 ? r : sysctl_value_parse(k, text, ret);
}

int sysctl_read_value(enum sysctl_key k, struct sysctl_value *ret)
{
	_cleanup_free_ char *path = NULL;
	int r = sysctl_path(k, &path);

	return r < 0 ? r : read_at(k, path, ret);
}

bool sysctl_value_equal(const struct sysctl_value *a, const struct sysctl_value *b)
{
	if (a->n != b->n)
		return false;
	for (unsigned i = 0; i < a->n; i++)
		if (a->v[i] != b->v[i])
			return false;
	return true;
}

/* Does the file hold v? Under a sysroot it must be line byte for byte,
 * the whole file: a copy torn by a kill or an error between the write and
 * the cut to length ("212992\n\n") does not hold 212992 and is written
 * again. The kernel's own files cannot be torn: they are parsed. 1 yes,
 * 0 no, -errno. */
static int holds(enum sysctl_key k, const char *path, const struct sysctl_value *v, const char *line)
{
	struct sysctl_value cur;
	int r;

	if (!sysroot_is_live())
		return sysroot_read_is(path, line);
	r = read_at(k, path, &cur);
	return r < 0 ? r : sysctl_value_equal(&cur, v);
}

int sysctl_write_value(enum sysctl_key k, const struct sysctl_value *v)
{
	_cleanup_free_ char *path = NULL, *line = NULL;
	struct sysctl_value cur;
	int r;

	r = sysctl_path(k, &path);
	if (r < 0)
		return r;
	r = read_at(k, path, &cur);
	if (r < 0)
		return r;
	if (v->n != cur.n)
		return -EINVAL;
	/* the kernel's own rendering (tabs between values), so a sysroot copy
	 * reads back byte for byte as the kernel would show it */
	r = format_joined(v, "\t", "\n", &line);
	if (r < 0)
		return r;
	r = holds(k, path, v, line);
	if (r != 0)
		return r < 0 ? r : 0;
	r = sysroot_write(path, line);
	if (r < 0)
		return r;
	r = holds(k, path, v, line);
	if (r < 0)
		return r;
	return r ? 1 : -EIO;
}

int sysctl_read(enum sysctl_key k, uint64_t *ret)
{
	struct sysctl_value v;
	int r = sysctl_read_value(k, &v);

	if (r < 0)
		return r;
	if (v.n != 1)
		return -EINVAL;
	*ret = v.v[0];
	return 0;
}
