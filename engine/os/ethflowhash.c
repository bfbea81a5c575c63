/* ethflowhash.c: the UDP flow hash fields through the ioctl or a
 * sysroot's `ethtool -n` text (see ethflowhash.h).
 *
 * Owns: the table of fields (bit, letter, the line ethtool prints). Must
 * never: send SRXFH for a flow type it was not asked about. */
#define _GNU_SOURCE
#include "ethflowhash.h"

#include <inttypes.h>
#include <linux/ethtool.h>

#include "ethops.h"
#include "ethsysroot.h"
#include "ethtool.h"

static const char *const flow_names[_ETH_FLOW_MAX] = {[ETH_FLOW_UDP4] = "udp4", [ETH_FLOW_UDP6] = "udp6"};
static const uint32_t flow_types[_ETH_FLOW_MAX] = {
    [ETH_FLOW_UDP4] = UDP_V4_FLOW, [ETH_FLOW_UDP6] = UDP_V6_FLOW};

/* In ethtool's order, with the lines `ethtool -n` prints for them. */
static const struct field {
	uint64_t bit;
	char letter;
	const char *line;
} fields[] = {
    {RXH_L2DA, 'm', "L2DA"},
    {RXH_VLAN, 'v', "VLAN tag"},
    {RXH_L3_PROTO, 't', "L3 proto"},
    {RXH_IP_SRC, 's', "IP SA"},
    {RXH_IP_DST, 'd', "IP DA"},
    {RXH_L4_B_0_1, 'f', "L4 bytes 0 & 1 [TCP/UDP src port]"},
    {RXH_L4_B_2_3, 'n', "L4 bytes 2 & 3 [TCP/UDP dst port]"},
    {RXH_DISCARD, 'r', NULL},
};

const char *eth_flow_to_string(enum eth_flow f)
{
	return (unsigned)f < _ETH_FLOW_MAX ? flow_names[f] : NULL;
}

const char *eth_flow_hash_letters(void)
{
	return "m v t s d f n r";
}

bool eth_flow_hash_has_ports(uint64_t v)
{
	return (v & (RXH_L4_B_0_1 | RXH_L4_B_2_3)) == (RXH_L4_B_0_1 | RXH_L4_B_2_3);
}

int eth_flow_hash_parse(const char *s, uint64_t *ret)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		size_t i;

		for (i = 0; i < ARRAY_SIZE(fields) && fields[i].letter != *s; i++)
			;
		if (i == ARRAY_SIZE(fields) || (v & fields[i].bit))
			return -EINVAL;
		v |= fields[i].bit;
	}
	*ret = v;
	return 0;
}

char *eth_flow_hash_format(uint64_t v)
{
	char buf[32];
	size_t n = 0;
	uint64_t known = 0;

	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		known |= fields[i].bit;
		if (v & fields[i].bit)
			buf[n++] = fields[i].letter;
	}
	buf[n] = '\0';
	if (v & ~known)
		return strprintf("0x%" PRIx64, v);
	return strdup(buf);
}

/* ---- the text ---- */

#define TEXT_HEAD " use these fields for computing Hash flow key:\n"

int eth_flow_hash_text_parse(const char *text, uint64_t *ret)
{
	const char *p = strchr(text, '\n');
	uint64_t v = 0;

	if (!p || (size_t)(p + 1 - text) < strlen(TEXT_HEAD) ||
	    strncmp(p + 1 - strlen(TEXT_HEAD), TEXT_HEAD, strlen(TEXT_HEAD)) != 0)
		return -EBADMSG;
	for (p++; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p), i;

		if (len == 0 || (len == 4 && strncmp(p, "None", 4) == 0)) {
			p += len + (nl ? 1 : 0);
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(fields); i++)
			if (fields[i].line && strlen(fields[i].line) == len &&
			    strncmp(p, fields[i].line, len) == 0)
				break;
		if (i == ARRAY_SIZE(fields))
			return -EBADMSG;
		v |= fields[i].bit;
		p += len + (nl ? 1 : 0);
	}
	*ret = v;
	return 0;
}

/* How many newlines end s. */
static size_t trailing_newlines(const char *s)
{
	size_t n = strlen(s), k = 0;

	while (k < n && s[n - 1 - k] == '\n')
		k++;
	return k;
}

/* As ethtool prints it: the first line, a line per field ("None" for no
 * field), then an empty line. */
static char *render(const char *text, uint64_t v)
{
	const char *nl = strchr(text, '\n');
	_cleanup_free_ char *out = NULL;

	if (!nl || (size_t)(nl + 1 - text) < strlen(TEXT_HEAD) ||
	    strncmp(nl + 1 - strlen(TEXT_HEAD), TEXT_HEAD, strlen(TEXT_HEAD)) != 0)
		return NULL;
	out = strndup(text, (size_t)(nl + 1 - text));
	for (size_t i = 0; out && i < ARRAY_SIZE(fields); i++) {
		char *n;

		if (!(v & fields[i].bit) || !fields[i].line)
			continue;
		n = strprintf("%s%s\n", out, fields[i].line);
		free(out);
		out = n;
	}
	if (out) {
		char *n = strprintf("%s%s\n", out, v ? "" : "None");
		free(out);
		out = n;
	}
	return TAKE_PTR(out);
}

/* The text's own end kept: one that lacks the empty line (or has more
 * newlines) than ethtool prints keeps that difference, so a value written
 * back restores the text byte for byte (sysroot_write keeps a missing
 * final newline). */
char *eth_flow_hash_text_rewrite(const char *text, uint64_t v)
{
	_cleanup_free_ char *was = NULL, *out = NULL;
	uint64_t v0;
	size_t have, canon, n;

	out = render(text, v);
	if (!out || eth_flow_hash_text_parse(text, &v0) < 0 || !(was = render(text, v0)))
		return TAKE_PTR(out);
	have = trailing_newlines(text);
	canon = trailing_newlines(was);
	n = strlen(out);
	if (have < canon) {
		size_t cut = canon - have;

		while (cut > 0 && n > 1 && out[n - 1] == '\n' && out[n - 2] == '\n') {
			out[--n] = '\0';
			cut--;
		}
	} else if (have > canon) {
		char *more = strprintf("%s%.*s", out, (int)(have - canon), "\n\n\n\n\n\n\n\n");

		free(out);
		out = more;
	}
	return TAKE_PTR(out);
}

/* ---- the kernel and the sysroot ---- */

static const char *sysroot_file(enum eth_flow f)
{
	return f == ETH_FLOW_UDP4 ? ETHSYSROOT_FLOW_HASH_UDP4 : ETHSYSROOT_FLOW_HASH_UDP6;
}

/* The ioctl path of ethops.h's rows (the kernel has no netlink message):
 * arg is the struct ethtool_rxnfc, its cmd set (ETHTOOL_GRXFH, SRXFH). */
int ethflowhash_ioctl_get(const char *ifname, void *arg)
{
	return ethtool_request(ifname, arg);
}

int ethflowhash_ioctl_set(const char *ifname, void *arg)
{
	return ethtool_request(ifname, arg);
}

int ethtool_get_flow_hash(const char *ifname, enum eth_flow f, uint64_t *ret, char **ret_kmsg)
{
	struct ethtool_rxnfc q = {.cmd = ETHTOOL_GRXFH};
	_cleanup_free_ char *text = NULL;
	int r;

	if (ret_kmsg)
		*ret_kmsg = NULL;
	if ((unsigned)f >= _ETH_FLOW_MAX)
		return -EINVAL;
	r = ethsysroot_read(ifname, sysroot_file(f), &text);
	if (r < 0)
		return r;
	if (text)
		return eth_flow_hash_text_parse(text, ret);
	q.flow_type = flow_types[f];
	r = ethtool_op_run(ETHOP_FLOWHASH_GET, ifname, &q, ret_kmsg);
	if (r < 0)
		return r;
	*ret = q.data;
	return 0;
}

int ethtool_set_flow_hash(const char *ifname, enum eth_flow f, uint64_t v, char **ret_kmsg)
{
	_cleanup_free_ char *text = NULL, *next = NULL;
	struct ethtool_rxnfc q = {.cmd = ETHTOOL_SRXFH};
	uint64_t cur;
	int r;

	if (ret_kmsg)
		*ret_kmsg = NULL;
	if ((unsigned)f >= _ETH_FLOW_MAX)
		return -EINVAL;
	r = ethsysroot_read(ifname, sysroot_file(f), &text);
	if (r < 0)
		return r;
	if (text) {
		/* the whole text decides, never its parse: a torn write's tail
		 * makes it differ, and it is written again whole */
		next = eth_flow_hash_text_rewrite(text, v);
		if (!next)
			return -EBADMSG;
		if (streq(next, text))
			return 0;
		r = ethsysroot_write(ifname, sysroot_file(f), next);
		return r < 0 ? r : 1;
	}
	r = ethtool_get_flow_hash(ifname, f, &cur, ret_kmsg);
	if (r < 0)
		return r;
	if (cur == v)
		return 0;
	q.flow_type = flow_types[f];
	q.data = v;
	r = ethtool_op_run(ETHOP_FLOWHASH_SET, ifname, &q, ret_kmsg);
	if (r < 0)
		return r;
	r = ethtool_get_flow_hash(ifname, f, &cur, ret_kmsg);
	if (r < 0)
		return r;
	return cur == v ? 1 : -EIO;
}
