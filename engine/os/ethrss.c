/* ethrss.c: RSS indirection table and key through the ioctl or a
 * sysroot's `ethtool -x` text (see ethrss.h).
 *
 * Owns: the GRSSH/SRSSH buffers (the table, then the key, after the
 * header) and the text's table, key and hash function lines. Must never:
 * send an SRSSH that would change what the caller did not ask for (the
 * hash function ETH_RSS_HASH_NO_CHANGE when it stays, the key size 0 when
 * the key stays, the input transformation the one GRSSH gave). */
#define _GNU_SOURCE
#include "ethrss.h"

#include <ctype.h>
#include <linux/ethtool.h>

#include "ethops.h"
#include "ethsysroot.h"
#include "ethtool.h"

#define SYSROOT_FILE ETHSYSROOT_RSS
#define KEY_HEADER   "RSS hash key:\n"
#define HFUNC_HEADER "RSS hash function:\n"

/* The kernel's names of the hash functions (ETH_SS_RSS_HASH_FUNCS), bit i
 * of hfunc each, as `ethtool -x` lists them. */
static const char *const hfunc_names[] = {"toeplitz", "xor", "crc32"};

const char *eth_rss_hfunc_name(uint8_t hfunc)
{
	for (size_t i = 0; i < ARRAY_SIZE(hfunc_names); i++)
		if (hfunc == 1u << i)
			return hfunc_names[i];
	return NULL;
}

int eth_rss_hfunc_from_name(const char *name, uint8_t *ret)
{
	for (size_t i = 0; i < ARRAY_SIZE(hfunc_names); i++)
		if (streq(name, hfunc_names[i])) {
			*ret = (uint8_t)(1u << i);
			return 0;
		}
	return -EINVAL;
}
#define UNSUPPORTED "Operation not supported\n"

void eth_rss_done(struct eth_rss *r)
{
	free(r->indir);
	free(r->key);
	*r = (struct eth_rss){0};
}

bool eth_rss_is_default(const struct eth_rss *r)
{
	if (r->rings == 0 || r->indir_size == 0)
		return false;
	for (uint32_t i = 0; i < r->indir_size; i++)
		if (r->indir[i] != i % r->rings)
			return false;
	return true;
}

/* ---- the text ---- */

/* The table's rows: "%5u: " every 8 entries, " %5u" each, each below
 * the header's ring count (-ERANGE: not; so none with 0 rings). */
static int parse_rows(const char **pos, struct eth_rss *r)
{
	const char *p = *pos;

	if (strncmp(p, UNSUPPORTED, strlen(UNSUPPORTED)) == 0) {
		*pos = p + strlen(UNSUPPORTED);
		return 0;
	}
	while (*p && strncmp(p, KEY_HEADER, strlen(KEY_HEADER)) != 0) {
		const char *nl = strchr(p, '\n');
		char *end;
		unsigned long row;

		if (!nl)
			return -EBADMSG;
		row = strtoul(p, &end, 10);
		if (end == p || *end != ':' || row != r->indir_size)
			return -EBADMSG;
		for (p = end + 1; p < nl;) {
			unsigned long q;
			uint32_t *v;

			while (p < nl && *p == ' ')
				p++;
			if (p == nl)
				break;
			if (!isdigit((unsigned char)*p))
				return -EBADMSG;
			errno = 0;
			q = strtoul(p, &end, 10);
			if (end == p || end > nl || r->indir_size == ETH_RSS_INDIR_MAX)
				return -EBADMSG;
			if (errno || q >= r->rings)
				return -ERANGE; /* a queue the header's rings do not have */
			v = reallocarray(r->indir, r->indir_size + 1, sizeof(*v));
			if (!v)
				return -ENOMEM;
			r->indir = v;
			r->indir[r->indir_size++] = (uint32_t)q;
			p = end;
			while (p < nl && *p == ' ')
				p++;
		}
		p = nl + 1;
	}
	*pos = p;
	return 0;
}

/* "7c:9c:..." up to the newline, or "Operation not supported". */
static int parse_key(const char **pos, struct eth_rss *r)
{
	const char *p = *pos, *nl = strchr(p, '\n');

	if (!nl)
		return -EBADMSG;
	if (strncmp(p, UNSUPPORTED, strlen(UNSUPPORTED)) == 0) {
		*pos = nl + 1;
		return 0;
	}
	r->key = malloc(ETH_RSS_KEY_MAX);
	if (!r->key)
		return -ENOMEM;
	for (;;) {
		unsigned b;
		int n = 0;

		if (r->key_size == ETH_RSS_KEY_MAX || sscanf(p, "%2x%n", &b, &n) != 1 || n != 2)
			return -EBADMSG;
		r->key[r->key_size++] = (uint8_t)b;
		p += 2;
		if (p == nl)
			break;
		if (*p++ != ':')
			return -EBADMSG;
	}
	*pos = nl + 1;
	return 0;
}

/* "RSS hash function:" and a line "    NAME: on|off" per function (ethtool
 * 4.11 and later; older texts end at the key): the one on, 0 when none is
 * or the section is absent. */
static int parse_hfunc(const char *p, struct eth_rss *r)
{
	if (strncmp(p, HFUNC_HEADER, strlen(HFUNC_HEADER)) != 0)
		return 0;
	p += strlen(HFUNC_HEADER);
	while (*p == ' ') {
		const char *nl = strchr(p, '\n'), *colon = strchr(p, ':');
		char name[16];
		size_t n;
		uint8_t bit;

		if (!nl)
			break; /* a last line without its newline: read no further */
		if (!colon || colon > nl)
			return -EBADMSG;
		while (*p == ' ')
			p++;
		n = (size_t)(colon - p);
		if (n == 0 || n >= sizeof(name))
			return -EBADMSG;
		memcpy(name, p, n);
		name[n] = '\0';
		if (strncmp(colon, ": on\n", 5) == 0 && eth_rss_hfunc_from_name(name, &bit) == 0) {
			if (r->hfunc)
				return -EBADMSG; /* two on */
			r->hfunc = bit;
		} else if (strncmp(colon, ": on\n", 5) != 0 && strncmp(colon, ": off\n", 6) != 0)
			return -EBADMSG;
		p = nl + 1;
	}
	return 0;
}

/* The text's parts: the header line, and where the key line ends. */
static int parse_text(const char *text, struct eth_rss *ret, size_t *ret_head, size_t *ret_tail)
{
	_cleanup_(eth_rss_done) struct eth_rss r = {0};
	const char *p = strchr(text, '\n'), *with;
	uint64_t rings = 0;
	const char *d;
	int e;

	if (!p || strncmp(text, "RX flow hash indirection table for ", 35) != 0)
		return -EBADMSG;
	with = memmem(text, (size_t)(p - text), " with ", 6);
	if (!with)
		return -EBADMSG;
	/* Digits only (no sign: "-1" is no ring count), checked for range
	 * digit by digit (4294967359 is not 63). */
	for (d = with + 6; isdigit((unsigned char)*d); d++) {
		rings = rings * 10 + (uint64_t)(*d - '0');
		if (rings > ETH_RSS_RINGS_MAX)
			return -EOVERFLOW;
	}
	if (d == with + 6 || strncmp(d, " RX ring(s)", 11) != 0)
		return -EOVERFLOW;
	r.rings = (uint32_t)rings;
	*ret_head = (size_t)(p + 1 - text);
	p++;
	e = parse_rows(&p, &r);
	if (e == -ERANGE || e == -ENOMEM)
		return e;
	if (e < 0 || strncmp(p, KEY_HEADER, strlen(KEY_HEADER)) != 0)
		return -EBADMSG;
	p += strlen(KEY_HEADER);
	if (parse_key(&p, &r) < 0)
		return -EBADMSG;
	*ret_tail = (size_t)(p - text);
	e = parse_hfunc(p, &r);
	if (e < 0)
		return e;
	*ret = r;
	r = (struct eth_rss){0};
	return 0;
}

int eth_rss_parse(const char *text, struct eth_rss *ret)
{
	size_t head, tail;
	return parse_text(text, ret, &head, &tail);
}

static int append(char **s, size_t *len, const char *fmt, ...) _printf_(3, 4);
static int append(char **s, size_t *len, const char *fmt, ...)
{
	va_list ap;
	char *piece;
	char *n;
	size_t plen;

	va_start(ap, fmt);
	piece = vstrprintf(fmt, ap);
	va_end(ap);
	if (!piece)
		return -ENOMEM;
	plen = strlen(piece);
	n = realloc(*s, *len + plen + 1);
	if (!n) {
		free(piece);
		return -ENOMEM;
	}
	memcpy(n + *len, piece, plen + 1);
	*len += plen;
	*s = n;
	free(piece);
	return 0;
}

char *eth_rss_rewrite(const char *text, const struct eth_rss *r)
{
	_cleanup_(eth_rss_done) struct eth_rss old = {0};
	_cleanup_free_ char *out = NULL;
	size_t head, tail, len = 0;
	int e = 0;

	if (parse_text(text, &old, &head, &tail) < 0)
		return NULL;
	e = append(&out, &len, "%.*s", (int)head, text);
	if (r->indir_size == 0 && e >= 0)
		e = append(&out, &len, UNSUPPORTED);
	for (uint32_t i = 0; e >= 0 && i < r->indir_size; i++) {
		if (i % 8 == 0)
			e = append(&out, &len, "%5u: ", i);
		if (e >= 0)
			e = append(&out, &len, " %5u%s", r->indir[i],
				   i % 8 == 7 || i == r->indir_size - 1 ? "\n" : "");
	}
	if (e >= 0)
		e = append(&out, &len, KEY_HEADER);
	if (r->key_size == 0 && e >= 0)
		e = append(&out, &len, UNSUPPORTED);
	for (uint32_t i = 0; e >= 0 && i < r->key_size; i++)
		e = append(&out, &len, "%02x%s", r->key[i], i == r->key_size - 1 ? "\n" : ":");
	/* The hash function's lines: each "NAME: on" or "off" as r has it. */
	if (e >= 0 && r->hfunc && strncmp(text + tail, HFUNC_HEADER, strlen(HFUNC_HEADER)) == 0) {
		const char *p = text + tail + strlen(HFUNC_HEADER);

		e = append(&out, &len, HFUNC_HEADER);
		while (e >= 0 && *p == ' ') {
			const char *nl = strchr(p, '\n'), *colon = strchr(p, ':');
			const char *name = p + strspn(p, " ");
			uint8_t bit = 0;

			if (!nl || !colon)
				break; /* kept as it is (a last line without its newline) */
			_cleanup_free_ char *nm = strndup(name, (size_t)(colon - name));

			if (!nm) {
				e = -ENOMEM;
				break;
			}
			(void)eth_rss_hfunc_from_name(nm, &bit);
			/* (parse_text checked each line: "NAME: on|off") */
			e = append(&out, &len, "%.*s: %s\n", (int)(colon - p), p,
				   bit == r->hfunc ? "on" : "off");
			p = nl + 1;
		}
		tail = (size_t)(p - text);
	}
	if (e >= 0)
		e = append(&out, &len, "%s", text + tail);
	return e < 0 ? NULL : TAKE_PTR(out);
}

/* ---- ioctl ---- */

static int ioctl_get(const char *ifname, struct eth_rss *ret)
{
	_cleanup_(eth_rss_done) struct eth_rss r = {0};
	struct ethtool_rxnfc rings = {.cmd = ETHTOOL_GRXRINGS};
	struct ethtool_rxfh head = {.cmd = ETHTOOL_GRSSH};
	_cleanup_free_ struct ethtool_rxfh *full = NULL;
	size_t size;
	int e;

	e = ethtool_request(ifname, &rings);
	if (e < 0)
		return e;
	e = ethtool_request(ifname, &head);
	if (e < 0)
		return e;
	if (head.indir_size == 0)
		return -EOPNOTSUPP;
	if (head.indir_size > ETH_RSS_INDIR_MAX || head.key_size > ETH_RSS_KEY_MAX)
		return -EPROTO;
	size = sizeof(*full) + head.indir_size * sizeof(uint32_t) + head.key_size;
	full = calloc(1, size);
	r.indir = calloc(head.indir_size, sizeof(uint32_t));
	r.key = malloc(head.key_size ? head.key_size : 1);
	if (!full || !r.indir || !r.key)
		return -ENOMEM;
	*full = (struct ethtool_rxfh){
	    .cmd = ETHTOOL_GRSSH, .indir_size = head.indir_size, .key_size = head.key_size};
	e = ethtool_request(ifname, full);
	if (e < 0)
		return e;
	if (full->indir_size != head.indir_size || full->key_size != head.key_size)
		return -EAGAIN; /* changed between the two calls */
	r.rings = (uint32_t)rings.data;
	r.input_xfrm = full->rsvd8[0];
	r.hfunc = full->hfunc;
	r.indir_size = head.indir_size;
	memcpy(r.indir, full->rss_config, r.indir_size * sizeof(uint32_t));
	r.key_size = head.key_size;
	memcpy(r.key, (const char *)full->rss_config + r.indir_size * sizeof(uint32_t), r.key_size);
	*ret = r;
	r = (struct eth_rss){0};
	return 0;
}

struct ethtool_rxfh *eth_rss_set_request(const struct eth_rss_change *c, uint8_t input_xfrm)
{
	uint32_t n = c->set_indir && c->indir ? c->indir_size : 0;
	uint32_t k = c->key ? c->key_size : 0;
	struct ethtool_rxfh *q = calloc(1, sizeof(*q) + n * sizeof(uint32_t) + k);

	if (!q)
		return NULL;
	q->cmd = ETHTOOL_SRSSH;
	q->indir_size = c->set_indir ? n : ETH_RXFH_INDIR_NO_CHANGE;
	q->key_size = k;
	/* input_xfrm since Linux 6.8 (rsvd8[0] before, which GRSSH gave as 0):
	 * 0 would turn a symmetric hash off */
	q->rsvd8[0] = input_xfrm;
	q->hfunc = c->hfunc; /* 0: ETH_RSS_HASH_NO_CHANGE */
	if (n)
		memcpy(q->rss_config, c->indir, n * sizeof(uint32_t));
	if (k)
		memcpy((char *)q->rss_config + n * sizeof(uint32_t), c->key, k);
	return q;
}

static int ioctl_set(const char *ifname, const struct eth_rss_change *c, uint8_t input_xfrm)
{
	_cleanup_free_ struct ethtool_rxfh *q = eth_rss_set_request(c, input_xfrm);

	return q ? ethtool_request(ifname, q) : -ENOMEM;
}

/* The ioctl path of ethops.h's rows (the kernel has no netlink message). */
struct rss_set {
	const struct eth_rss_change *c;
	uint8_t input_xfrm;
};

int ethrss_ioctl_get(const char *ifname, void *arg)
{
	return ioctl_get(ifname, arg);
}

int ethrss_ioctl_set(const char *ifname, void *arg)
{
	const struct rss_set *rs = arg;
	return ioctl_set(ifname, rs->c, rs->input_xfrm);
}

/* ---- both, and the sysroot ---- */

int ethtool_get_rss(const char *ifname, struct eth_rss *ret, char **ret_kmsg)
{
	_cleanup_free_ char *text = NULL;
	int r;

	if (ret_kmsg)
		*ret_kmsg = NULL;
	r = ethsysroot_read(ifname, SYSROOT_FILE, &text);
	if (r < 0)
		return r;
	if (!text)
		return ethtool_op_run(ETHOP_RSS_GET, ifname, ret, ret_kmsg);
	r = eth_rss_parse(text, ret);
	if (r >= 0 && ret->indir_size == 0) {
		eth_rss_done(ret);
		return -EOPNOTSUPP;
	}
	return r;
}

/* cur as c would leave it, into want (its table and key point into c or
 * a table of its own: free want.indir when it is not c's). */
static int apply_change(const struct eth_rss *cur, const struct eth_rss_change *c, struct eth_rss *want)
{
	*want = *cur;
	want->indir = cur->indir;
	if (c->set_indir) {
		if (c->indir && c->indir_size != cur->indir_size)
			return -EINVAL;
		want->indir = calloc(cur->indir_size, sizeof(uint32_t));
		if (!want->indir)
			return -ENOMEM;
		for (uint32_t i = 0; i < cur->indir_size; i++) {
			want->indir[i] = c->indir ? c->indir[i] : i % (cur->rings ? cur->rings : 1);
			if (want->indir[i] >= cur->rings) {
				free(want->indir);
				return -EINVAL;
			}
		}
	}
	if (c->key) {
		if (c->key_size != cur->key_size) {
			if (c->set_indir)
				free(want->indir);
			return -EINVAL;
		}
		want->key = (uint8_t *)c->key;
	}
	if (c->hfunc)
		want->hfunc = c->hfunc;
	return 0;
}

static bool rss_equal(const struct eth_rss *a, const struct eth_rss *b)
{
	return a->indir_size == b->indir_size && a->key_size == b->key_size && a->hfunc == b->hfunc &&
	       memcmp(a->indir, b->indir, a->indir_size * sizeof(uint32_t)) == 0 &&
	       (a->key_size == 0 || memcmp(a->key, b->key, a->key_size) == 0);
}

static int sysroot_set(const char *ifname, const struct eth_rss *want)
{
	_cleanup_free_ char *text = NULL, *next = NULL;
	int r = ethsysroot_read(ifname, SYSROOT_FILE, &text);

	if (r < 0)
		return r;
	if (!text)
		return -ENOENT;
	next = eth_rss_rewrite(text, want);
	return next ? ethsysroot_write(ifname, SYSROOT_FILE, next) : -EBADMSG;
}

int ethtool_set_rss(const char *ifname, const struct eth_rss_change *c, char **ret_kmsg)
{
	_cleanup_(eth_rss_done) struct eth_rss cur = {0}, back = {0};
	_cleanup_free_ char *path = NULL;
	struct eth_rss want;
	bool same;
	int r;

	r = ethtool_get_rss(ifname, &cur, ret_kmsg);
	if (r < 0)
		return r;
	r = apply_change(&cur, c, &want);
	if (r < 0)
		return r;
	same = rss_equal(&cur, &want);
	r = 0;
	if (!same) {
		r = ethsysroot_file(ifname, SYSROOT_FILE, &path);
		if (r > 0)
			r = sysroot_set(ifname, &want);
		else if (r == 0) {
			struct rss_set rs = {c, cur.input_xfrm};
			r = ethtool_op_run(ETHOP_RSS_SET, ifname, &rs, ret_kmsg);
		}
	}
	if (r >= 0 && !same)
		r = ethtool_get_rss(ifname, &back, ret_kmsg);
	if (r >= 0 && !same)
		r = rss_equal(&back, &want) ? 1 : -EIO;
	if (want.indir != cur.indir)
		free(want.indir);
	return r;
}
