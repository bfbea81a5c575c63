/* ledger.c: the loss ledger and its bottleneck (see ledger.h).
 *
 * Owns: the table of stages (their counters and remedies), the
 * attribution, the document and its rendering. Must never: read a counter
 * itself (the snapshots come from netcounters.h, taken by the caller). */
#define _GNU_SOURCE
#include "ledger.h"

#include <inttypes.h>
#include <math.h>

#include "base/output.h"

#define MAX_VIEWS	   2
#define MAX_VIEW_COUNTERS  8
#define MAX_EVIDENCE	   4
#define LEDGER_MAX_CPUS	   8 /* per-CPU detail shown */
#define CPU_COUNTER_PREFIX "softnet.dropped.cpu"

static const char *const host_names[_LEDGER_HOST_MAX] = {
    [LEDGER_SENDER] = "sender", [LEDGER_RECEIVER] = "receiver"};

const char *ledger_host_to_string(enum ledger_host h)
{
	return (unsigned)h < _LEDGER_HOST_MAX ? host_names[h] : NULL;
}

struct ctx;

/* A stage: its counters (views of the same drops: the larger is kept),
 * counters that are evidence only, and its remedy. */
struct stage_def {
	const char *stage;
	const char *label;
	enum ledger_host host;
	const char *views[MAX_VIEWS][MAX_VIEW_COUNTERS];
	const char *evidence[MAX_EVIDENCE];
	uint64_t (*adjust)(const struct ctx *c, uint64_t raw); /* NULL: raw as counted */
	char *(*remedy)(const struct ctx *c);
};

struct ctx {
	const struct ledger_input *in;
	struct ledger *l;
};

/* ---- numbers ---- */

/* "1,182,340" */
static const char *fmt_count(uint64_t v, char buf[static 32])
{
	char digits[24];
	int n = snprintf(digits, sizeof(digits), "%" PRIu64, v), k = 0;

	for (int i = 0; i < n; i++) {
		if (i > 0 && (n - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = digits[i];
	}
	buf[k] = '\0';
	return buf;
}

/* "97%", "3.2%", "<0.1%" */
static const char *fmt_percent(double p, char buf[static 16])
{
	if (p > 0 && p < 0.05)
		snprintf(buf, 16, "<0.1%%");
	else if (p >= 9.95 || p == 0)
		snprintf(buf, 16, "%.0f%%", p);
	else
		snprintf(buf, 16, "%.1f%%", p);
	return buf;
}

/* A share, rounded to a tenth as build_shares adds them up: "97%",
 * "3.2%", "<0.1%" (a share too small for a tenth). */
static const char *fmt_share(double p, char buf[static 16])
{
	long long t = llround(p * 10);

	if (t > 1000)
		t = 1000; /* a stored document's figure: never over 100% */
	if (t <= 0)
		snprintf(buf, 16, "<0.1%%");
	else if (t % 10 == 0)
		snprintf(buf, 16, "%d%%", (int)(t / 10));
	else
		snprintf(buf, 16, "%d.%d%%", (int)(t / 10), (int)(t % 10));
	return buf;
}

/* ---- remedies ---- */

static char *size_text(uint64_t bytes)
{
	if (bytes == 0)
		return strdup("not set: the socket's default");
	return strprintf("%" PRIu64, bytes);
}

static char *remedy_sender_socket(const struct ctx *c)
{
	_cleanup_free_ char *now = size_text(c->in->send_buffer);

	return now ? strprintf("raise net.core.wmem_max and %s (now %s)",
			       c->in->send_buffer_setting ? c->in->send_buffer_setting
							  : "verify.socket_buffer.send",
			       now)
		   : NULL;
}

static char *remedy_qdisc(const struct ctx *c)
{
	(void)c;
	return strdup(
	    "the transmit queue overflowed: raise link.txqueuelen and the tx ring (link.rings.tx), or "
	    "send fewer streams per queue");
}

static char *remedy_sender_device(const struct ctx *c)
{
	(void)c;
	return strdup("the sending NIC discarded frames: raise the tx ring (link.rings.tx) and check the "
		      "link and the switch port (pause frames)");
}

static char *remedy_wire(const struct ctx *c)
{
	(void)c;
	return strdup("frames arrived damaged: reseat or replace the cable and the transceivers");
}

static char *remedy_receiver_nic(const struct ctx *c)
{
	(void)c;
	return strdup("the receiving host did not drain the NIC: spread the completion IRQs over NUMA-local "
		      "cores (irq.policy) and raise the rx ring (link.rings.rx)");
}

static char *remedy_backlog(const struct ctx *c)
{
	(void)c;
	return strdup("the receiving CPUs fell behind: spread the completion IRQs (irq.policy) or raise "
		      "net.core.netdev_max_backlog");
}

static char *remedy_reassembly(const struct ctx *c)
{
	uint32_t mtu = c->in->mtu;

	if (mtu > 28 && c->in->message_size + 28 > mtu)
		return strprintf(
		    "%" PRIu64 "-byte datagrams are cut into fragments at MTU %u: send datagrams "
		    "that fit (verify.message_size <= %u) or raise the MTU on both hosts (link.mtu)",
		    c->in->message_size, mtu, mtu - 28);
	return strdup("fragments were lost or reassembly ran out of memory: send datagrams that fit the MTU "
		      "(verify.message_size), raise the MTU on both hosts (link.mtu) or give reassembly more "
		      "memory on the receiver (sysctl net.ipv4.ipfrag_high_thresh for IPv4)");
}

static char *remedy_receiver_ip(const struct ctx *c)
{
	(void)c;
	return strdup("the receiver's IP layer discarded them: check its firewall, rp_filter and addresses");
}

static char *remedy_socket_buffer(const struct ctx *c)
{
	_cleanup_free_ char *now = size_text(c->in->recv_buffer);
	const char *setting =
	    c->in->recv_buffer_setting ? c->in->recv_buffer_setting : "verify.socket_buffer.receive";

	if (!now)
		return NULL;
	if (c->in->recv_buffer_actual)
		return strprintf("raise net.core.rmem_max and %s (now %s; the socket got %" PRIu64 ")",
				 setting, now, c->in->recv_buffer_actual);
	return strprintf("raise net.core.rmem_max and %s (now %s)", setting, now);
}

static char *remedy_socket_memory(const struct ctx *c)
{
	(void)c;
	return strdup("the receiver's UDP memory ran out: raise net.ipv4.udp_mem");
}

static char *remedy_checksum(const struct ctx *c)
{
	(void)c;
	return strdup("datagrams arrived with bad checksums: check the path and the NIC's checksum offload");
}

static char *remedy_socket_other(const struct ctx *c)
{
	(void)c;
	return strdup("the receiving socket refused them (UdpInErrors): check the receiver's socket options "
		      "and filters");
}

static char *remedy_no_socket(const struct ctx *c)
{
	(void)c;
	return strdup(
	    "datagrams arrived for a port nobody listened on: the receiver closed its socket before "
	    "the sender stopped, or the traffic was not the benchmark's");
}

/* The sender's socket: SndbufErrors also count the sends that failed in
 * the application, which are not in `sent`. */
static uint64_t adjust_sender_socket(const struct ctx *c, uint64_t raw)
{
	return raw > c->in->send_errors ? raw - c->in->send_errors : 0;
}

static uint64_t net_of(const struct ctx *c, enum ledger_host h, const char *name, bool *ret_present);

/* InErrors also count the three causes that have lines of their own. */
static uint64_t adjust_socket_other(const struct ctx *c, uint64_t raw)
{
	static const char *const parts[] = {"UdpRcvbufErrors",	"UdpMemErrors",	 "UdpInCsumErrors",
					    "Udp6RcvbufErrors", "Udp6MemErrors", "Udp6InCsumErrors"};
	uint64_t sum = 0;

	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		if (__builtin_add_overflow(sum, net_of(c, LEDGER_RECEIVER, parts[i], NULL), &sum))
			sum = UINT64_MAX;
	return raw > sum ? raw - sum : 0;
}

/* Path order. */
static const struct stage_def stages[] = {
    {"sender-socket",
     "sender socket",
     LEDGER_SENDER,
     {{"UdpSndbufErrors", "Udp6SndbufErrors"}},
     {NULL},
     adjust_sender_socket,
     remedy_sender_socket},
    {"sender-qdisc",
     "sender qdisc",
     LEDGER_SENDER,
     {{"qdisc.drops"}},
     {"qdisc.overlimits", "qdisc.requeues"},
     NULL,
     remedy_qdisc},
    {"sender-device",
     "sender device",
     LEDGER_SENDER,
     {{"nic.tx_discards_phy", "nic.tx_queue_dropped"},
      {"link.tx_dropped", "link.tx_fifo_errors", "link.tx_aborted_errors", "link.tx_carrier_errors"}},
     {NULL},
     NULL,
     remedy_sender_device},
    {"wire",
     "wire",
     LEDGER_RECEIVER,
     {{"nic.rx_crc_errors_phy"}, {"link.rx_crc_errors", "link.rx_frame_errors", "link.rx_length_errors"}},
     {NULL},
     NULL,
     remedy_wire},
    {"receiver-nic",
     "receiver NIC",
     LEDGER_RECEIVER,
     {{"nic.rx_discards_phy", "nic.rx_out_of_buffer", "nic.rx_buff_alloc_err"},
      {"link.rx_dropped", "link.rx_missed_errors", "link.rx_fifo_errors", "link.rx_over_errors"}},
     {"nic.rx_buffer_passed_thres_phy"},
     NULL,
     remedy_receiver_nic},
    {"receiver-backlog",
     "receiver backlog",
     LEDGER_RECEIVER,
     {{"softnet.dropped"}},
     {"softnet.time_squeeze"},
     NULL,
     remedy_backlog},
    {"reassembly",
     "IP reassembly",
     LEDGER_RECEIVER,
     {{"IpReasmFails", "Ip6ReasmFails"}},
     {"IpReasmTimeout", "IpReasmReqds", "IpReasmOKs", "Ip6ReasmTimeout"},
     NULL,
     remedy_reassembly},
    {"receiver-ip",
     "receiver IP",
     LEDGER_RECEIVER,
     {{"IpInDiscards", "IpInHdrErrors", "IpInAddrErrors", "Ip6InDiscards", "Ip6InHdrErrors",
       "Ip6InAddrErrors"}},
     {NULL},
     NULL,
     remedy_receiver_ip},
    {"receiver-socket-buffer",
     "receiver socket buffer",
     LEDGER_RECEIVER,
     {{"UdpRcvbufErrors", "Udp6RcvbufErrors"}},
     {NULL},
     NULL,
     remedy_socket_buffer},
    {"receiver-socket-memory",
     "receiver socket memory",
     LEDGER_RECEIVER,
     {{"UdpMemErrors", "Udp6MemErrors"}},
     {NULL},
     NULL,
     remedy_socket_memory},
    {"receiver-checksum",
     "receiver checksum",
     LEDGER_RECEIVER,
     {{"UdpInCsumErrors", "Udp6InCsumErrors"}},
     {NULL},
     NULL,
     remedy_checksum},
    {"receiver-socket-other",
     "receiver socket (other)",
     LEDGER_RECEIVER,
     {{"UdpInErrors", "Udp6InErrors"}},
     {NULL},
     adjust_socket_other,
     remedy_socket_other},
    {"no-socket",
     "receiver without socket",
     LEDGER_RECEIVER,
     {{"UdpNoPorts", "Udp6NoPorts"}},
     {NULL},
     NULL,
     remedy_no_socket},
};

static const char *stage_names[ARRAY_SIZE(stages)];

const char *const *ledger_stages(size_t *ret_n)
{
	for (size_t i = 0; i < ARRAY_SIZE(stages); i++)
		stage_names[i] = stages[i].stage;
	*ret_n = ARRAY_SIZE(stages);
	return stage_names;
}

const char *ledger_stage_label(const char *stage)
{
	static const char *const verdicts[][2] = {
	    {"unaccounted", "unaccounted"}, {"sender", "sender"}, {"path", "path"}, {"unknown", "unknown"}};

	for (size_t i = 0; stage && i < ARRAY_SIZE(stages); i++)
		if (streq(stages[i].stage, stage))
			return stages[i].label;
	for (size_t i = 0; stage && i < ARRAY_SIZE(verdicts); i++)
		if (streq(verdicts[i][0], stage))
			return verdicts[i][1];
	return NULL;
}

/* ---- arithmetic ---- */

struct rise {
	bool present;
	bool reset; /* it went back: unknown, its rise 0 */
	uint64_t rise, idle, net;
};

/* A snapshot holds every CPU that dropped: fewer per-CPU entries than
 * netcounters keeps (it keeps the CPUs with the most drops since boot). */
static bool cpus_complete(const struct netcounters *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += strncmp(s->v[i].name, CPU_COUNTER_PREFIX, strlen(CPU_COUNTER_PREFIX)) == 0;
	return n < NETCOUNTERS_MAX_CPUS;
}

/* A counter of a snapshot; a per-CPU entry is absent while its CPU has
 * not dropped: 0, unless the snapshot left CPUs out (then unknown, never 0:
 * a CPU that left or entered the kept ones would show a false rise). */
static bool value_of(const struct netcounters *s, const char *name, uint64_t *ret)
{
	if (netcounters_get(s, name, ret))
		return true;
	*ret = 0;
	return strncmp(name, CPU_COUNTER_PREFIX, strlen(CPU_COUNTER_PREFIX)) == 0 && cpus_complete(s);
}

/* The source a counter comes from: the part of its name before the first
 * dot ("softnet", "qdisc", "link", "nic"), or "" for /proc/net/snmp's
 * (UdpRcvbufErrors, IpReasmFails). */
static size_t family_len(const char *name)
{
	const char *dot = strchr(name, '.');

	return dot ? (size_t)(dot - name) + 1 : 0;
}

static bool family_in(const struct netcounters *s, const char *name)
{
	size_t n = family_len(name);

	for (size_t i = 0; i < s->n; i++)
		if (n ? strncmp(s->v[i].name, name, n) == 0 : !strchr(s->v[i].name, '.'))
			return true;
	return false;
}

/* Whether a host reported the source of counter name at all: a counter
 * missing from a source that was read is 0 (a kernel without it), one
 * from a source the host never reported is not measured. */
static bool family_reported(const struct ledger_side *s, const char *name)
{
	return s->before && s->after && family_in(s->before, name) && family_in(s->after, name);
}

static struct rise rise_of(const struct ledger_side *s, const char *name)
{
	uint64_t b, a, i;
	struct rise r = {0};

	if (!s->before || !s->after || !value_of(s->before, name, &b) || !value_of(s->after, name, &a))
		return r;
	r.present = true;
	if (!netcounter_delta(name, b, a, &r.rise)) {
		r.reset = true;
		return r;
	}
	if (s->idle && s->idle->taken_usec < s->before->taken_usec &&
	    s->before->taken_usec < s->after->taken_usec && value_of(s->idle, name, &i)) {
		double rate = (double)netcounter_rise(name, i, b) /
			      (double)(s->before->taken_usec - s->idle->taken_usec);
		double expect = rate * (double)(s->after->taken_usec - s->before->taken_usec);

		r.idle = expect >= 1e18 ? (uint64_t)1e18 : (uint64_t)llround(expect);
	}
	r.net = r.rise > r.idle ? r.rise - r.idle : 0;
	return r;
}

static uint64_t net_of(const struct ctx *c, enum ledger_host h, const char *name, bool *ret_present)
{
	struct rise r = rise_of(&c->in->side[h], name);

	if (ret_present)
		*ret_present = r.present;
	return r.net;
}

static int add_counter(struct ledger_line *line, const char *name, const struct rise *r)
{
	struct ledger_counter *n;

	if (r->net == 0)
		return 0;
	for (size_t i = 0; i < line->n_counters; i++)
		if (streq(line->counters[i].name, name))
			return 0;
	n = realloc(line->counters, (line->n_counters + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	line->counters = n;
	n = &n[line->n_counters++];
	*n = (struct ledger_counter){.rise = r->rise, .idle = r->idle, .net = r->net};
	snprintf(n->name, sizeof(n->name), "%s", name);
	return 0;
}

/* "CPU 0 +1,234, CPU 3 +5": the CPUs whose backlog dropped, most first;
 * only CPUs whose count both snapshots know (value_of). */
static int cpu_detail(const struct ctx *c, struct ledger_line *line, bool *ret_reset)
{
	const struct netcounters *after = c->in->side[line->host].after;
	struct {
		unsigned cpu;
		uint64_t net;
	} top[LEDGER_MAX_CPUS] = {{0}};
	size_t n = 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	for (size_t i = 0; after && i < after->n; i++) {
		const char *name = after->v[i].name;
		struct rise r;
		unsigned cpu;
		size_t k;

		if (strncmp(name, CPU_COUNTER_PREFIX, strlen(CPU_COUNTER_PREFIX)) != 0 ||
		    sscanf(name + strlen(CPU_COUNTER_PREFIX), "%u", &cpu) != 1)
			continue;
		r = rise_of(&c->in->side[line->host], name);
		if (r.reset) {
			*ret_reset = true;
			return 0;
		}
		if (r.net == 0)
			continue;
		for (k = n; k > 0 && top[k - 1].net < r.net; k--)
			if (k < LEDGER_MAX_CPUS)
				top[k] = top[k - 1];
		if (k < LEDGER_MAX_CPUS) {
			top[k].cpu = cpu;
			top[k].net = r.net;
			if (n < LEDGER_MAX_CPUS)
				n++;
		}
	}
	if (n == 0)
		return 0;
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		char b[32];
		fprintf(f, "%sCPU %u +%s", i ? ", " : "", top[i].cpu, fmt_count(top[i].net, b));
	}
	if (!cpus_complete(after) || !cpus_complete(c->in->side[line->host].before))
		fprintf(f, "; maybe not every CPU: only the %d with the most drops since boot are read",
			NETCOUNTERS_MAX_CPUS);
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	line->detail = buf;
	return 0;
}

static int fill_line(const struct ctx *c, const struct stage_def *d, struct ledger_line *line)
{
	const struct ledger_side *s = &c->in->side[d->host];
	uint64_t best = 0;
	bool reset = false, overflow = false, present = false;
	int r;

	*line = (struct ledger_line){
	    .stage = d->stage, .label = d->label, .scope = netcounter_scope(d->views[0][0]), .host = d->host};
	line->known = s->before && s->after;
	line->remedy = d->remedy(c);
	if (!line->remedy)
		return -ENOMEM;
	if (!line->known) {
		line->why_unknown = "counters not read";
		return 0;
	}
	for (size_t v = 0; v < MAX_VIEWS && d->views[v][0]; v++) {
		uint64_t sum = 0;

		for (size_t k = 0; k < MAX_VIEW_COUNTERS && d->views[v][k]; k++) {
			struct rise rr = rise_of(s, d->views[v][k]);

			present |= rr.present || family_reported(s, d->views[v][k]);
			reset |= rr.reset;
			/* The document holds up to INT64_MAX: a rise beyond is
			 * no count either. */
			overflow |= __builtin_add_overflow(sum, rr.net, &sum) || rr.net > INT64_MAX;
			if (add_counter(line, d->views[v][k], &rr) < 0)
				return -ENOMEM;
		}
		if (sum > best)
			best = sum;
	}
	overflow |= best > INT64_MAX;
	for (size_t k = 0; k < MAX_EVIDENCE && d->evidence[k]; k++) {
		struct rise rr = rise_of(s, d->evidence[k]);

		/* Evidence is printed too: one figure in the JSON and the text. */
		overflow |= rr.net > INT64_MAX;
		if (add_counter(line, d->evidence[k], &rr) < 0)
			return -ENOMEM;
	}
	line->raw = d->adjust ? d->adjust(c, best) : best;
	/* Counters a line takes only part of (InErrors beyond its causes,
	 * SndbufErrors beyond the failed sends) are no evidence of it when
	 * that part is nothing. */
	if (d->adjust && line->raw == 0) {
		free(line->counters);
		line->counters = NULL;
		line->n_counters = 0;
	}
	if (streq(d->stage, "receiver-backlog")) {
		r = cpu_detail(c, line, &reset);
		if (r < 0)
			return r;
	}
	if (reset || overflow || !present) {
		/* Never a wrapped or a reset number: the stage is unknown; nor
		 * 0 for a stage whose counters' sources its host did not report
		 * at all (a peer that sent its snmp counters but no link or
		 * softnet ones): not measured. A device without a qdisc
		 * reports qdisc counters of 0, a veth without NIC counters its
		 * link counters: those are measured. */
		line->known = false;
		line->why_unknown = overflow ? "counter overflow" : reset ? "counter reset" : "not reported";
		line->raw = 0;
		free(line->counters);
		line->counters = NULL;
		line->n_counters = 0;
		free(line->detail);
		line->detail = NULL;
	}
	return 0;
}

static int cmp_share(const void *a, const void *b)
{
	const struct ledger_share *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->stage, y->stage);
}

/* The shares in tenths of a percent, adding up to 100% as printed: each
 * rounded down, then the largest remainders get the tenths left over. */
static int round_shares(struct ledger *l)
{
	_cleanup_free_ uint64_t *rem = calloc(l->n_shares + 1, sizeof(*rem));
	uint64_t tenths[l->n_shares + 1], given = 0;

	if (!rem)
		return -ENOMEM;
	if (l->lost == 0)
		return 0;
	for (size_t i = 0; i < l->n_shares; i++) {
		unsigned __int128 t = (unsigned __int128)l->shares[i].count * 1000;

		tenths[i] = (uint64_t)(t / l->lost);
		rem[i] = (uint64_t)(t % l->lost);
		given += tenths[i];
	}
	while (given < 1000) {
		size_t best = l->n_shares;

		for (size_t i = 0; i < l->n_shares; i++)
			if (rem[i] > 0 && (best == l->n_shares || rem[i] > rem[best]))
				best = i;
		if (best == l->n_shares)
			break;
		tenths[best]++;
		rem[best] = 0;
		given++;
	}
	for (size_t i = 0; i < l->n_shares; i++)
		l->shares[i].percent = (double)tenths[i] / 10.0;
	return 0;
}

static int build_shares(struct ledger *l)
{
	l->shares = calloc(l->n_lines + 1, sizeof(*l->shares));
	if (!l->shares)
		return -ENOMEM;
	for (size_t i = 0; i < l->n_lines; i++)
		if (l->lines[i].count > 0)
			l->shares[l->n_shares++] =
			    (struct ledger_share){l->lines[i].stage, l->lines[i].label, l->lines[i].count, 0};
	if (l->unaccounted > 0)
		l->shares[l->n_shares++] =
		    (struct ledger_share){"unaccounted", "unaccounted", l->unaccounted, 0};
	qsort(l->shares, l->n_shares, sizeof(*l->shares), cmp_share);
	return round_shares(l);
}

/* "UdpRcvbufErrors +1,182,340" for the counters of a line, the counted
 * ones first. */
static char *evidence_text(const struct ledger_line *line)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < line->n_counters; i++) {
		char b[32];
		fprintf(f, "%s%s +%s", i ? ", " : "", line->counters[i].name,
			fmt_count(line->counters[i].net, b));
	}
	if (line->detail)
		fprintf(f, " (%s)", line->detail);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static const struct ledger_line *line_of(const struct ledger *l, const char *stage)
{
	for (size_t i = 0; i < l->n_lines; i++)
		if (streq(l->lines[i].stage, stage))
			return &l->lines[i];
	return NULL;
}

static bool any_counter_rose(const struct ledger *l)
{
	for (size_t i = 0; i < l->n_lines; i++)
		if (l->lines[i].raw > 0)
			return true;
	return false;
}

/* The stages whose counters are unknown at or after index from, in path
 * order: "the receiver backlog is unknown (counter reset)"; NULL for
 * none. */
static char *unknown_after(const struct ledger *l, size_t from)
{
	char *buf = NULL;
	size_t len = 0, n = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (size_t i = from; i < l->n_lines; i++) {
		if (l->lines[i].known)
			continue;
		fprintf(f, "%s%s (%s)", n++ ? ", " : "", l->lines[i].label, l->lines[i].why_unknown);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	if (n == 0) {
		free(buf);
		return strdup("");
	}
	if (n == 1) {
		/* "receiver backlog (counter reset)" -> "the receiver backlog is unknown (counter reset)" */
		char *paren = strrchr(buf, '(');
		char *t = strprintf("the %.*s is unknown %s", (int)(paren - buf - 1), buf, paren);

		free(buf);
		return t;
	}
	{
		char *t = strprintf("these stages are unknown: %s", buf);

		free(buf);
		return t;
	}
}

/* Unaccounted loss, or a stage with a stage after it whose counters are
 * unknown (it may have explained them first), is no verdict: unknown.
 * 1: named; 0: not this case. */
static int unknown_verdict(struct ledger *l, const struct ledger_share *top, const char *pct)
{
	_cleanup_free_ char *list = NULL;
	size_t from = 0;

	if (!streq(top->stage, "unaccounted")) {
		const struct ledger_line *line = line_of(l, top->stage);

		if (streq(top->stage, "sender-qdisc"))
			return 0;
		from = (size_t)(line - l->lines) + 1;
	}
	list = unknown_after(l, from);
	if (!list)
		return -ENOMEM;
	if (!*list)
		return 0;
	l->limited_by = "unknown";
	if (streq(top->stage, "unaccounted"))
		l->bottleneck = strprintf("unknown: %s of the lost datagrams are unaccounted and %s: the "
					  "loss cannot be placed",
					  pct, list);
	else
		l->bottleneck = strprintf("unknown: the %s explains %s of the lost datagrams, but %s and "
					  "may explain them first: the loss cannot be placed",
					  top->label, pct, list);
	return l->bottleneck ? 1 : -ENOMEM;
}

static int name_bottleneck(const struct ctx *c, struct ledger *l)
{
	_cleanup_free_ char *ev = NULL, *cpu = NULL;
	char pct[16];
	double loss = l->sent ? 100.0 * (double)l->lost / (double)l->sent : 0;
	const struct ledger_share *top;
	const struct ledger_line *line;
	int r;

	if (l->sent == 0)
		return 0;
	if (l->lost == 0 || loss < LEDGER_NEGLIGIBLE_PERCENT) {
		char lossp[16];

		fmt_percent(loss, lossp);
		l->limited_by = "sender";
		if (c->in->sender_cpu_percent >= 0)
			cpu = strprintf("; the sender used %.0f%% of a CPU", c->in->sender_cpu_percent);
		l->bottleneck =
		    strprintf("sender: the sender reached only %.0f Mbps with %s%s%s: the sending host or "
			      "the runner limits the rate%s",
			      c->in->send_mbps, l->lost ? "no loss that matters (" : "no loss",
			      l->lost ? lossp : "", l->lost ? " lost)" : "", cpu ? cpu : "");
		return l->bottleneck ? 0 : -ENOMEM;
	}
	top = &l->shares[0];
	fmt_share(top->percent, pct);
	/* Without the receiver's counters, a drop there can also show on the
	 * sender: UDP reports a virtual device's full peer backlog as ENOBUFS
	 * (SndbufErrors) and the device counts it as tx_dropped. Only the
	 * qdisc, before the device, is the sender's own for sure. */
	if (!l->known[LEDGER_RECEIVER] && !streq(top->stage, "sender-qdisc")) {
		l->limited_by = "unknown";
		l->bottleneck =
		    strprintf("unknown: the receiver's counters were not read (%s), so %s of the lost "
			      "datagrams cannot be placed: run `cx5prof serve` on the peer",
			      strna(l->why_unknown[LEDGER_RECEIVER]), pct);
		return l->bottleneck ? 0 : -ENOMEM;
	}
	r = unknown_verdict(l, top, pct);
	if (r != 0)
		return r < 0 ? r : 0;
	if (streq(top->stage, "unaccounted")) {
		l->limited_by = "path";
		l->bottleneck =
		    strprintf("path: %s unaccounted %s; check the switches and the path between the "
			      "hosts (MTU, congestion, filters)",
			      pct,
			      any_counter_rose(l) ? "that no counter on either host explains"
						  : "with no counter rising on either host");
		return l->bottleneck ? 0 : -ENOMEM;
	}
	line = line_of(l, top->stage);
	ev = evidence_text(line);
	if (!ev)
		return -ENOMEM;
	l->limited_by = line->stage;
	l->bottleneck =
	    strprintf("%s: %s = %s of the lost datagrams; %s", line->label, ev, pct, line->remedy);
	return l->bottleneck ? 0 : -ENOMEM;
}

/* _cleanup_free_ on an array frees its first element only. */
static void whys_free(char *(*why)[_LEDGER_HOST_MAX])
{
	for (int h = 0; h < _LEDGER_HOST_MAX; h++)
		free((*why)[h]);
}

int ledger_compute(const struct ledger_input *given, struct ledger **ret)
{
	_cleanup_ledger_ struct ledger *l = calloc(1, sizeof(*l));
	_cleanup_(whys_free) char *why[_LEDGER_HOST_MAX] = {NULL};
	struct ledger_input eff = *given, *in = &eff;
	struct ctx c = {.in = in, .l = l};
	uint64_t left;
	int r;

	if (!l)
		return -ENOMEM;
	/* A snapshot with no counter (a peer that sent none, none in its
	 * "after" reply, or only names this version does not know) measured
	 * nothing: its host is unknown, never 0 everywhere. */
	for (int h = 0; h < _LEDGER_HOST_MAX; h++) {
		struct ledger_side *s = &eff.side[h];

		if (!s->before || !s->after || (s->before->n > 0 && s->after->n > 0))
			continue;
		why[h] = strprintf("%s measured no counter", s->source ? s->source : host_names[h]);
		if (!why[h])
			return -ENOMEM;
		*s = (struct ledger_side){.source = s->source, .why_unknown = why[h]};
	}
	l->sent = in->sent;
	l->received = in->received;
	l->lost = in->sent > in->received ? in->sent - in->received : 0;
	l->surplus = in->received > in->sent ? in->received - in->sent : 0;
	l->send_mbps = in->send_mbps;
	for (int h = 0; h < _LEDGER_HOST_MAX; h++) {
		const struct ledger_side *s = &in->side[h];

		l->known[h] = s->before && s->after;
		l->source[h] = s->source ? strdup(s->source) : NULL;
		l->why_unknown[h] = !l->known[h] && s->why_unknown ? strdup(s->why_unknown) : NULL;
		if ((s->source && !l->source[h]) || (!l->known[h] && s->why_unknown && !l->why_unknown[h]))
			return -ENOMEM;
		if (l->known[h] && s->idle)
			l->idle_subtracted = true;
		for (const struct netcounters *snap = s->after; snap; snap = NULL)
			for (char **u = snap->unavailable; u && *u; u++)
				if (strv_pushf(&l->unavailable, "%s: %s", host_names[h], *u) < 0)
					return -ENOMEM;
	}
	l->lines = calloc(ARRAY_SIZE(stages), sizeof(*l->lines));
	if (!l->lines)
		return -ENOMEM;
	for (size_t i = 0; i < ARRAY_SIZE(stages); i++) {
		r = fill_line(&c, &stages[i], &l->lines[i]);
		l->n_lines = i + 1;
		if (r < 0)
			return r;
	}
	/* From the receiving end back: a stage explains what the stages after
	 * it left unexplained, at most. */
	left = l->lost;
	for (size_t i = l->n_lines; i-- > 0;) {
		struct ledger_line *line = &l->lines[i];

		if (!line->known)
			continue;
		line->count = line->raw < left ? line->raw : left;
		left -= line->count;
		l->dropped += line->count;
	}
	l->unaccounted = left;
	r = build_shares(l);
	if (r < 0)
		return r;
	r = name_bottleneck(&c, l);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(l);
	return 0;
}

void ledger_free(struct ledger *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n_lines; i++) {
		free(l->lines[i].counters);
		free(l->lines[i].detail);
		free(l->lines[i].remedy);
	}
	free(l->lines);
	for (int h = 0; h < _LEDGER_HOST_MAX; h++) {
		free(l->source[h]);
		free(l->why_unknown[h]);
	}
	strv_free(l->unavailable);
	free(l->shares);
	free(l->bottleneck);
	free(l);
}

/* ---- the document ---- */

static struct json_object *u64(uint64_t v)
{
	return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

static struct json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static struct json_object *line_json(const struct ledger_line *line)
{
	struct json_object *o = json_object_new_object(), *cs = json_object_new_array();

	json_object_object_add(o, "stage", json_object_new_string(line->stage));
	json_object_object_add(o, "label", json_object_new_string(line->label));
	json_object_object_add(o, "host", json_object_new_string(host_names[line->host]));
	json_object_object_add(o, "scope", json_object_new_string(line->scope));
	json_object_object_add(o, "known", json_object_new_boolean(line->known));
	json_object_object_add(o, "count", line->known ? u64(line->count) : NULL);
	json_object_object_add(o, "raw", line->known ? u64(line->raw) : NULL);
	json_object_object_add(o, "why_unknown", str_or_null(line->why_unknown));
	for (size_t i = 0; i < line->n_counters; i++) {
		struct json_object *c = json_object_new_object();

		json_object_object_add(c, "name", json_object_new_string(line->counters[i].name));
		json_object_object_add(c, "rise", u64(line->counters[i].rise));
		json_object_object_add(c, "idle", u64(line->counters[i].idle));
		json_object_object_add(c, "net", u64(line->counters[i].net));
		json_object_array_add(cs, c);
	}
	json_object_object_add(o, "counters", cs);
	json_object_object_add(o, "detail", str_or_null(line->detail));
	json_object_object_add(o, "remedy", json_object_new_string(line->remedy));
	return o;
}

struct json_object *ledger_to_json(const struct ledger *l)
{
	struct json_object *o = json_object_new_object(), *lines = json_object_new_array(),
			   *shares = json_object_new_array(), *hosts = json_object_new_object(), *un;

	if (!o || !lines || !shares || !hosts) {
		json_object_put(o);
		json_object_put(lines);
		json_object_put(shares);
		json_object_put(hosts);
		return NULL;
	}
	json_object_object_add(o, "sent", u64(l->sent));
	json_object_object_add(o, "received", u64(l->received));
	json_object_object_add(o, "lost", u64(l->lost));
	json_object_object_add(o, "dropped", u64(l->dropped));
	json_object_object_add(o, "unaccounted", u64(l->unaccounted));
	json_object_object_add(o, "surplus", u64(l->surplus));
	json_object_object_add(o, "send_mbps", json_object_new_double(l->send_mbps));
	for (size_t i = 0; i < l->n_lines; i++)
		json_object_array_add(lines, line_json(&l->lines[i]));
	json_object_object_add(o, "lines", lines);
	for (int h = 0; h < _LEDGER_HOST_MAX; h++) {
		struct json_object *s = json_object_new_object();

		json_object_object_add(s, "known", json_object_new_boolean(l->known[h]));
		json_object_object_add(s, "source", str_or_null(l->source[h]));
		json_object_object_add(s, "why_unknown", str_or_null(l->why_unknown[h]));
		json_object_object_add(hosts, host_names[h], s);
	}
	json_object_object_add(o, "hosts", hosts);
	un = json_object_new_array();
	for (char **u = l->unavailable; u && *u; u++)
		json_object_array_add(un, json_object_new_string(*u));
	json_object_object_add(o, "unavailable", un);
	json_object_object_add(o, "idle_subtracted", json_object_new_boolean(l->idle_subtracted));
	for (size_t i = 0; i < l->n_shares; i++) {
		struct json_object *s = json_object_new_object();

		json_object_object_add(s, "stage", json_object_new_string(l->shares[i].stage));
		json_object_object_add(s, "label", json_object_new_string(l->shares[i].label));
		json_object_object_add(s, "count", u64(l->shares[i].count));
		json_object_object_add(s, "percent", json_object_new_double(l->shares[i].percent));
		json_object_array_add(shares, s);
	}
	json_object_object_add(o, "shares", shares);
	json_object_object_add(o, "limited_by", str_or_null(l->limited_by));
	json_object_object_add(o, "bottleneck", str_or_null(l->bottleneck));
	return o;
}

/* ---- reading a document ---- */

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v) ? v
												      : NULL;
}

static const char *get_str(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static bool get_u64(struct json_object *o, const char *key, uint64_t *ret)
{
	struct json_object *v = get(o, key);

	if (!v || !json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
		return false;
	*ret = (uint64_t)json_object_get_int64(v);
	return true;
}

const char *ledger_doc_limited_by(struct json_object *doc)
{
	return get_str(doc, "limited_by");
}

const char *ledger_doc_bottleneck(struct json_object *doc)
{
	return get_str(doc, "bottleneck");
}

bool ledger_doc_count(struct json_object *doc, const char *stage, uint64_t *ret)
{
	struct json_object *lines = get(doc, "lines");

	if (streq(stage, "unaccounted"))
		return get_u64(doc, "unaccounted", ret);
	if (!lines || !json_object_is_type(lines, json_type_array))
		return false;
	for (size_t i = 0; i < json_object_array_length(lines); i++) {
		struct json_object *line = json_object_array_get_idx(lines, i);

		if (streq_ptr(get_str(line, "stage"), stage))
			return get_u64(line, "count", ret);
	}
	return false;
}

/* ---- rendering ---- */

static void print_doc(FILE *f, struct json_object *doc, const char *indent)
{
	struct json_object *lines = get(doc, "lines"), *hosts = get(doc, "hosts"),
			   *shares = get(doc, "shares");
	uint64_t sent = 0, received = 0, lost = 0, unaccounted = 0, surplus = 0;
	char b[32];

	get_u64(doc, "sent", &sent);
	get_u64(doc, "received", &received);
	get_u64(doc, "lost", &lost);
	get_u64(doc, "unaccounted", &unaccounted);
	get_u64(doc, "surplus", &surplus);
	fprintf(f, "%-26s %14s  by the sending application\n", "  sent", fmt_count(sent, b));
	for (size_t i = 0; lines && i < json_object_array_length(lines); i++) {
		struct json_object *line = json_object_array_get_idx(lines, i), *cs = get(line, "counters");
		const char *detail = get_str(line, "detail");
		uint64_t count = 0, raw = 0;

		const char *why = get_str(line, "why_unknown");

		if (!get_u64(line, "count", &count) && why && !streq(why, "counters not read")) {
			/* A stage whose counters went back or overflowed. */
			fprintf(f, "  %-24s %14s  %s\n", strna(get_str(line, "label")), "unknown", why);
			continue;
		}
		if (!get_u64(line, "count", &count)) {
			/* One line for a host whose counters are unknown. */
			const char *host = strna(get_str(line, "host"));
			_cleanup_free_ char *label = strprintf("%s stages", host);
			struct json_object *prev = i > 0 ? json_object_array_get_idx(lines, i - 1) : NULL;

			if (prev && !get(prev, "count") && streq_ptr(get_str(prev, "host"), host) &&
			    (!get_str(prev, "why_unknown") ||
			     streq(get_str(prev, "why_unknown"), "counters not read")))
				continue;
			fprintf(f, "  %-24s %14s  the %s's counters were not read\n", strna(label), "unknown",
				host);
			continue;
		}
		get_u64(line, "raw", &raw);
		fprintf(f, "  %-24s %14s", strna(get_str(line, "label")), fmt_count(count, b));
		for (size_t k = 0; cs && k < json_object_array_length(cs); k++) {
			struct json_object *c = json_object_array_get_idx(cs, k);
			uint64_t net = 0;

			get_u64(c, "net", &net);
			fprintf(f, "%s%s +%s", k ? ", " : "  ", strna(get_str(c, "name")), fmt_count(net, b));
		}
		if (cs && json_object_array_length(cs) && streq_ptr(get_str(line, "scope"), "host"))
			fputs(" host-wide", f);
		if (detail)
			fprintf(f, " (%s)", detail);
		if (raw > count)
			fprintf(f, " (+%s beyond what was left to explain)", fmt_count(raw - count, b));
		fputc('\n', f);
	}
	fprintf(f, "%-26s %14s  by the receiving application", "  received", fmt_count(received, b));
	if (surplus)
		fprintf(f, " (%s more than sent: not only the benchmark's)", fmt_count(surplus, b));
	fputc('\n', f);
	fprintf(f, "%-26s %14s  no counter explains them\n", "  unaccounted", fmt_count(unaccounted, b));
	for (int h = 0; h < _LEDGER_HOST_MAX; h++) {
		struct json_object *s = get(hosts, host_names[h]), *known = get(s, "known");

		if (known && json_object_get_boolean(known))
			fprintf(f, "  %s counters: %s\n", host_names[h], strna(get_str(s, "source")));
		else
			fprintf(f, "  %s counters: unknown (%s)\n", host_names[h],
				strna(get_str(s, "why_unknown")));
	}
	fprintf(f, "  every counter is shared with other traffic: %s\n",
		get(doc, "idle_subtracted") && json_object_get_boolean(get(doc, "idle_subtracted"))
		    ? "the rate measured while idle is subtracted"
		    : "no idle rate was measured, nothing is subtracted");
	for (size_t i = 0; lost && shares && i < json_object_array_length(shares); i++) {
		struct json_object *s = json_object_array_get_idx(shares, i), *p = get(s, "percent");
		char pct[16];

		fprintf(f, "%s%s %s",
			i ? ", " : "  the lost datagrams by share: ", strna(get_str(s, "label")),
			fmt_share(p ? json_object_get_double(p) : 0, pct));
		if (i + 1 == json_object_array_length(shares))
			fputc('\n', f);
	}
	if (ledger_doc_bottleneck(doc))
		fprintf(f, "%s%s\n", indent, ledger_doc_bottleneck(doc));
}

char *ledger_text(struct json_object *doc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!doc)
		return NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	print_doc(f, doc, "limited by: ");
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

void ledger_render(struct json_object *doc)
{
	_cleanup_free_ char *text = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	out_json("ledger", doc ? json_object_get(doc) : NULL);
	if (!doc || out_is_json())
		return;
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	fprintf(f, "ledger      where the lost datagrams went\n");
	print_doc(f, doc, "limited by  ");
	if (fclose(f) != 0) {
		free(buf);
		return;
	}
	text = buf;
	out_text("%s", text);
}
