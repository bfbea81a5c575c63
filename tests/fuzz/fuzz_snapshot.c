/* fuzz_snapshot.c: a snapshot's link records (engine/os/linkfacts.h,
 * snapshot.h) and the readers of its per-port facts (the change kinds'
 * show, kinds.h).
 *
 * Byte 0 even: the rest is the JSON "links" array of a marker
 * (linkfacts_from_json, then snapshot_check_links). Byte 0 odd: byte 1
 * picks a kind with a per-port fact, the rest is that fact's recorded
 * buffer (zero-filled to its size), on one link (snapshot_check_links).
 * Contract checked: refusal is -EINVAL with the field or record named
 * (or -ENOMEM); an accepted record goes back to JSON and reads back the
 * same, and every kind's show reads it without going past a buffer
 * (AddressSanitizer: each fact is a heap buffer of exactly its size) or
 * loading a bool that is none (UBSan). Nothing of the host is read: the
 * kinds shown read only their recorded fact. */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <unistd.h>

#include "base/output.h"
#include "fuzz.h"
#include "kinds/kinds.h"
#include "os/linkfacts.h"
#include "os/probe.h"
#include "os/snapshot.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	(void)argc;
	(void)argv;
	/* show writes its JSON document to stdout: not into the log. */
	if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
		abort();
	close(null);
	return 0;
}

/* Link l as the probe makes it of a record (probe.c: recorded_fact), shown
 * by every kind that reads a per-port fact. */
static void show(const struct link_facts *l, const struct probe_fact *const *facts)
{
	struct iface_fact f[n_change_kinds];
	struct iface_state s = {.name = (char *)l->link.name,
				.present = true,
				.link = l->link,
				.drvinfo_r = l->drvinfo_r,
				.drvinfo = l->drvinfo,
				.ethlink_r = l->ethlink_r,
				.ethlink = l->ethlink,
				.facts = f,
				.n_facts = n_change_kinds};

	for (size_t i = 0; i < n_change_kinds; i++) {
		f[i] = (struct iface_fact){.r = facts[i] ? -ENODATA : -ENOENT};
		if (!facts[i])
			continue;
		f[i].value = calloc(1, facts[i]->size);
		if (!f[i].value)
			abort();
		for (size_t j = 0; j < l->n_facts; j++)
			if (streq(l->facts[j].kind, facts[i]->name)) {
				if (l->facts[j].value)
					memcpy(f[i].value, l->facts[j].value, facts[i]->size);
				f[i].r = l->facts[j].r;
				f[i].kmsg = l->facts[j].kmsg;
			}
	}
	out_init(true);
	out_open_object(NULL);
	for (size_t i = 0; i < n_change_kinds; i++)
		if (facts[i] && change_kinds[i]->show_port)
			change_kinds[i]->show_port(&s);
	out_close_object();
	(void)out_finish();
	for (size_t i = 0; i < n_change_kinds; i++)
		free(f[i].value);
}

/* Accepted links: the same through JSON and back, and shown. */
static void accepted(const struct link_facts *v, size_t n, const struct probe_fact *const *facts)
{
	struct json_object *a = linkfacts_to_json(v, n);
	struct link_facts *w = NULL;
	size_t m = 0;
	char *field = NULL;

	fuzz_check(a != NULL);
	fuzz_check(linkfacts_from_json(a, &w, &m, &field) == 0);
	fuzz_check(m == n);
	for (size_t i = 0; i < n; i++) {
		fuzz_check(streq(w[i].link.name, v[i].link.name) && w[i].n_facts == v[i].n_facts);
		for (size_t j = 0; j < v[i].n_facts; j++) {
			fuzz_check(w[i].facts[j].r == v[i].facts[j].r &&
				   w[i].facts[j].size == v[i].facts[j].size);
			fuzz_check(!v[i].facts[j].value ||
				   memcmp(w[i].facts[j].value, v[i].facts[j].value, v[i].facts[j].size) == 0);
		}
		show(&v[i], facts);
	}
	linkfacts_free(w, m);
	json_object_put(a);
}

/* One link holding one fact of kind facts[k] with the given bytes. */
static int one_fact(const struct probe_fact *q, const uint8_t *data, size_t size, struct link_facts **ret)
{
	struct link_facts *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	*l = (struct link_facts){.link = {.name = "ens1f0", .ifindex = 2, .mtu = 1500}, .n_facts = 1};
	l->facts = calloc(1, sizeof(*l->facts));
	if (!l->facts || !(l->facts[0].kind = strdup(q->name)) || !(l->facts[0].value = calloc(1, q->size))) {
		linkfacts_free(l, 1);
		return -ENOMEM;
	}
	l->facts[0].layout = q->layout;
	l->facts[0].size = q->size;
	memcpy(l->facts[0].value, data, size < q->size ? size : q->size);
	*ret = l;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct probe_fact *facts[n_change_kinds + 1];
	const struct probe_fact *with[n_change_kinds];
	struct link_facts *v = NULL;
	size_t n = 0, n_with = 0;
	char *why = NULL;
	int r;

	if (size < 2)
		return 0;
	kinds_probe_facts(facts);
	for (size_t i = 0; i < n_change_kinds; i++)
		if (facts[i])
			with[n_with++] = facts[i];
	if (data[0] % 2 == 0) {
		_cleanup_free_ char *text = fuzz_strndup(data + 1, size - 1);
		struct json_object *a = json_tokener_parse(text);
		char *field = NULL;

		r = linkfacts_from_json(a, &v, &n, &field);
		json_object_put(a);
		if (r < 0) {
			fuzz_check(r == -EINVAL || r == -ENOMEM);
			fuzz_check(r == -ENOMEM || (field && strncmp(field, "links", 5) == 0));
			free(field);
			return 0;
		}
	} else {
		fuzz_check(n_with > 0);
		r = one_fact(with[data[1] % n_with], data + 2, size - 2, &v);
		if (r < 0)
			return 0;
		n = 1;
	}
	r = snapshot_check_links(v, n, facts, n_change_kinds, &why);
	if (r < 0) {
		fuzz_check(r == -EINVAL || r == -ENOMEM);
		fuzz_check(r == -ENOMEM || (why && strncmp(why, "cx5prof-snapshot.json: links[", 29) == 0));
	} else {
		fuzz_check(why == NULL);
		accepted(v, n, facts);
	}
	free(why);
	linkfacts_free(v, n);
	return 0;
}
