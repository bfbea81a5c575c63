/* parse_iperf3.c: iperf3 --json UDP results to numbers (see
 * parse_iperf3.h).
 *
 * Owns: reading iperf3's JSON with json-c and the table of iperf3's error
 * messages. Must never: trust a key's type without checking it (a missing
 * or mistyped key is "absent", not zero). */
#define _GNU_SOURCE
#include "parse_iperf3.h"

#include <json-c/json.h>
#include <math.h>

static const struct {
	const char *needle;
	int err;
} failures[] = {
    /* First match wins: the errno text before the generic "unable to connect". */
    {"server is busy", -EBUSY},
    {"Network is unreachable", -EHOSTUNREACH},
    {"No route to host", -EHOSTUNREACH},
    {"Connection timed out", -EHOSTUNREACH},
    {"unable to resolve", -EHOSTUNREACH},
    {"Name or service not known", -EHOSTUNREACH},
    {"Connection refused", -ECONNREFUSED},
    {"unable to connect", -ECONNREFUSED},
};

static int failure_code(const char *msg)
{
	for (size_t i = 0; i < ARRAY_SIZE(failures); i++)
		if (strstr(msg, failures[i].needle))
			return failures[i].err;
	return -EIO;
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

/* A finite number: json-c reads "1e999" as infinity, which is no figure. */
static bool get_number(struct json_object *o, const char *key, double *ret)
{
	struct json_object *v = get(o, key);
	double d;

	if (!v || !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return false;
	d = json_object_get_double(v);
	if (!isfinite(d))
		return false;
	*ret = d;
	return true;
}

static bool get_count(struct json_object *o, const char *key, uint64_t *ret)
{
	double d;

	if (!get_number(o, key, &d) || !isfinite(d) || d < 0 || d > 1.8e19)
		return false;
	*ret = (uint64_t)d;
	return true;
}

/* iperf3's own lost_percent when it is a percentage, else computed from
 * the counts: a damaged figure ("1e308...") must not reach a threshold. */
static double lost_percent(struct json_object *o, uint64_t lost, uint64_t total)
{
	double d;

	if (get_number(o, "lost_percent", &d) && isfinite(d) && d >= 0 && d <= 100)
		return d;
	return total ? 100.0 * (double)lost / (double)total : 0;
}

void iperf3_report_done(struct iperf3_report *r)
{
	free(r->streams);
	r->streams = NULL;
	r->n_streams = 0;
}

static int parse_streams(struct json_object *end, struct iperf3_report *rep)
{
	struct json_object *arr = get(end, "streams");
	size_t n;

	if (!arr || !json_object_is_type(arr, json_type_array))
		return 0;
	n = json_object_array_length(arr);
	if (n == 0)
		return 0;
	rep->streams = calloc(n, sizeof(*rep->streams));
	if (!rep->streams)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *udp = get(json_object_array_get_idx(arr, i), "udp");
		struct iperf3_stream *s = &rep->streams[rep->n_streams];
		uint64_t packets, lost = 0;
		double bps;

		if (!udp || !get_count(udp, "packets", &packets) || !get_number(udp, "bits_per_second", &bps))
			continue;
		(void)get_count(udp, "lost_packets", &lost);
		s->sent = packets;
		s->received = packets > lost ? packets - lost : 0;
		s->send_mbps = bps / 1e6;
		s->recv_mbps = packets ? s->send_mbps * (double)s->received / (double)packets : 0;
		rep->n_streams++;
	}
	return 0;
}

/* iperf3 3.11+: exact figures of both sides. */
static int parse_sum_sent_received(struct json_object *sent, struct json_object *recv,
				   struct iperf3_report *rep)
{
	uint64_t rpackets, rlost;
	double bps, rbps, secs;

	if (!get_count(sent, "packets", &rep->sent) || !get_number(sent, "bits_per_second", &bps) ||
	    !get_count(recv, "packets", &rpackets) || !get_count(recv, "lost_packets", &rlost) ||
	    !get_number(recv, "bits_per_second", &rbps) || !get_number(recv, "seconds", &secs))
		return -ENODATA;
	rep->received = rpackets > rlost ? rpackets - rlost : 0;
	rep->lost_packets = rlost;
	rep->lost_percent = lost_percent(recv, rlost, rpackets);
	rep->send_mbps = bps / 1e6;
	rep->recv_mbps = rbps / 1e6;
	rep->elapsed_sec = secs;
	rep->has_sum_received = true;
	return 0;
}

/* Older iperf3: one client-side sum carrying the server's lost count. */
static int parse_sum(struct json_object *sum, struct iperf3_report *rep)
{
	uint64_t lost = 0;
	double bps, secs;

	if (!get_count(sum, "packets", &rep->sent) || !get_number(sum, "bits_per_second", &bps) ||
	    !get_number(sum, "seconds", &secs))
		return -ENODATA;
	(void)get_count(sum, "lost_packets", &lost);
	rep->lost_percent = lost_percent(sum, lost, rep->sent);
	rep->received = rep->sent > lost ? rep->sent - lost : 0;
	rep->lost_packets = lost;
	rep->send_mbps = bps / 1e6;
	rep->recv_mbps = rep->sent ? rep->send_mbps * (double)rep->received / (double)rep->sent : 0;
	rep->elapsed_sec = secs;
	return 0;
}

/* "iperf3: error - the server is busy ..." printed without --json. */
static int plain_error(const char *text, char **ret_error)
{
	const char *p = strstr(text, "iperf3: error - ");
	size_t n;

	if (!p)
		return -EBADMSG;
	p += strlen("iperf3: error - ");
	n = strcspn(p, "\n");
	if (ret_error) {
		*ret_error = strndup(p, n);
		if (!*ret_error)
			return -ENOMEM;
	}
	return failure_code(p);
}

int parse_iperf3(const char *text, struct iperf3_report *ret, char **ret_error)
{
	struct iperf3_report rep = {.host_cpu_percent = -1, .remote_cpu_percent = -1};
	struct json_tokener *tok;
	struct json_object *root, *end, *start, *err, *ss, *sr, *sum, *v;
	const char *brace;
	int r;

	if (ret_error)
		*ret_error = NULL;
	if (!text)
		return -EINVAL;
	brace = strchr(text, '{');
	if (!brace)
		return plain_error(text, ret_error);
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	root = json_tokener_parse_ex(tok, brace, (int)strnlen(brace, 64u << 20));
	r = json_tokener_get_error(tok);
	json_tokener_free(tok);
	if (r != json_tokener_success || !root || !json_object_is_type(root, json_type_object)) {
		json_object_put(root);
		return plain_error(text, ret_error); /* truncated JSON: -EBADMSG */
	}

	err = get(root, "error");
	if (err && json_object_is_type(err, json_type_string)) {
		const char *msg = json_object_get_string(err);
		r = failure_code(msg);
		if (ret_error && !(*ret_error = strdup(msg)))
			r = -ENOMEM;
		json_object_put(root);
		return r;
	}

	start = get(root, "start");
	v = get(start, "version");
	if (v && json_object_is_type(v, json_type_string))
		snprintf(rep.version, sizeof(rep.version), "%s", json_object_get_string(v));
	(void)get_count(get(start, "test_start"), "blksize", &rep.blksize);
	(void)get_count(start, "sndbuf_actual", &rep.sndbuf_actual);
	(void)get_count(start, "rcvbuf_actual", &rep.rcvbuf_actual);

	end = get(root, "end");
	ss = get(end, "sum_sent");
	sr = get(end, "sum_received");
	sum = get(end, "sum");
	if (ss && sr)
		r = parse_sum_sent_received(ss, sr, &rep);
	else if (sum)
		r = parse_sum(sum, &rep);
	else
		r = -ENODATA;
	if (r == 0) {
		struct json_object *cpu = get(end, "cpu_utilization_percent");
		(void)get_number(cpu, "host_total", &rep.host_cpu_percent);
		(void)get_number(cpu, "remote_total", &rep.remote_cpu_percent);
		r = parse_streams(end, &rep);
	}
	json_object_put(root);
	if (r == 0 && (!(rep.elapsed_sec > 0) || !isfinite(rep.send_mbps) || !isfinite(rep.recv_mbps)))
		r = -EDOM;
	if (r == 0) {
		/* A negative rate is no measurement (it would make a floor n/a). */
		const char *neg = rep.send_mbps < 0   ? (rep.has_sum_received ? "end.sum_sent" : "end.sum")
				  : rep.recv_mbps < 0 ? "end.sum_received"
						      : NULL;
		for (size_t i = 0; !neg && i < rep.n_streams; i++)
			if (rep.streams[i].send_mbps < 0)
				neg = "end.streams[].udp";
		if (neg) {
			r = -EDOM;
			if (ret_error && !(*ret_error = strprintf("negative bits_per_second in %s", neg)))
				r = -ENOMEM;
		}
	}
	if (r < 0) {
		iperf3_report_done(&rep);
		return r;
	}
	*ret = rep;
	return 0;
}
