/* kinds/cpufreq.c: the "cpufreq" kind, host.cpufreq.governor|cpus:
 * object "cpu8", key "scaling_governor", values governor names
 * ("powersave" -> "performance"); an old value carries the governor's
 * tunables after its name ("schedutil rate_limit_us=500": the kernel
 * makes them afresh with its defaults when the governor comes back, so
 * the undo writes the governor first, then them). An old value of the
 * name alone (recorded before tunables were) restores the name only. A NIC's local cores at a low frequency
 * cap a single UDP stream; mlnx_tune and tuned both set `performance`.
 * cpus: nic-local (the default: the NUMA-local CPUs of the ports the
 * profile matches), all (every online CPU) or a CPU list. Each CPU is a
 * change of its own, recorded and rolled back like a sysctl. Read and
 * written through governor.h (the sysroot), which reads back. A host with
 * no cpufreq driver at all (no policyN directory: the firmware or the
 * hypervisor sets the frequency) gets a plan warning and no change; CPUs
 * without cpufreq on a host that has a driver are a problem. */
#define _GNU_SOURCE
#include "kinds.h"

#include <errno.h>
#include <stdio.h>

#include "base/cpuset.h"
#include "base/exitcode.h"
#include "base/output.h"
#include "os/governor.h"
#include "os/probe.h"
#include "os/sysroot.h"
#include "os/topology.h"
#include "changes.h"
#include "profile.h"

struct cpufreq_want {
	struct profile_string governor;
	struct profile_string cpus; /* "nic-local" (unset), "all" or a CPU list */
};

static const char *check_governor(const char *s)
{
	return governor_name_valid(s) ? NULL
				      : "a governor name (lower-case letters, digits, '_'; like performance)";
}

static const char *check_cpus(const char *s)
{
	_cleanup_cpuset_ struct cpuset c = CPUSET_INIT;

	if (streq(s, "nic-local") || streq(s, "all") || (*s && cpuset_parse_list(s, &c) >= 0))
		return NULL;
	return "nic-local, all or a CPU list (like \"8-15,24-31\")";
}

#define W(member) offsetof(struct cpufreq_want, member)

static const struct profile_key cpufreq_children[] = {
    {.name = "governor",
     .type = KT_TEXT,
     .offset = W(governor),
     .min = 1,
     .max = 15,
     .check = check_governor,
     .pattern = "^[a-z0-9_]{1,15}$",
     .help = "the CPU frequency governor (cpuN/cpufreq/scaling_governor), one the CPUs offer "
	     "(scaling_available_governors): performance keeps the cores at their top frequency"},
    {.name = "cpus",
     .type = KT_TEXT,
     .offset = W(cpus),
     .min = 1,
     .max = 4096,
     .check = check_cpus,
     .int_ok = true,
     .pattern = "^(nic-local|all|[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*)$",
     .help = "which CPUs: nic-local (the default: the NUMA-local CPUs of the matched ports), all (every "
	     "online CPU) or a CPU list"},
    {0},
};

static const struct profile_key cpufreq_keys[] = {
    PROFILE_KEY_SECTION("cpufreq", cpufreq_children,
			"the CPU frequency governor of the CPUs that carry the traffic, recorded and rolled "
			"back per CPU; on a host with no cpufreq driver at all (the firmware or the "
			"hypervisor sets the frequency) a plan warning, nothing changed"),
    {0},
};

extern const struct change_kind kind_cpufreq;

static const struct cpufreq_want *want_of(const struct profile *p)
{
	return kind_want(p, &kind_cpufreq);
}

static int cpufreq_profile_check(void *want, const char *file, struct profile_error *err)
{
	const struct cpufreq_want *w = want;

	if (!file && w->cpus.set && !w->governor.set)
		return profile_fail_at(err, &w->cpus.at,
				       "host.cpufreq: cpus needs governor (the governor to set on them)");
	return 0;
}

static int cpu_of(const char *object, unsigned *ret)
{
	uint32_t c;

	if (strncmp(object, "cpu", 3) != 0 || safe_atou32(object + 3, &c) < 0)
		return -EINVAL;
	*ret = c;
	return 0;
}

/* A value: the governor, then its tunables, space-separated
 * ("schedutil rate_limit_us=500"); a value of the governor alone is one
 * recorded before the tunables were (and the profile's new values). */
struct governor_value {
	char **words; /* [0] the governor, then "NAME=VALUE" each */
};

static void governor_value_done(struct governor_value *v)
{
	strv_free(v->words);
	v->words = NULL;
}

static int governor_value_parse(const char *value, struct governor_value *ret)
{
	_cleanup_strv_free_ char **w = NULL;
	_cleanup_free_ char *copy = strdup(value);
	char *save = NULL;
	int r;

	if (!copy)
		return -ENOMEM;
	if (!*value && (r = strv_extend(&w, "")) < 0) /* an empty governor: refused by its checks */
		return r;
	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
		if ((r = strv_extend(&w, t)) < 0)
			return r;
	for (size_t i = 1; w && w[i]; i++)
		if (!governor_tunable_valid(w[i]))
			return -EINVAL;
	ret->words = TAKE_PTR(w);
	return 0;
}

/* The object and key of a change: its CPU. */
static int change_cpu(const char *object, const char *key, unsigned *ret)
{
	int r = cpu_of(object, ret);

	return r >= 0 && !streq(key, "scaling_governor") ? -EINVAL : r;
}

static int cpufreq_read(const char *object, const char *key, char **ret, char **kmsg _unused_)
{
	unsigned cpu;
	int r = change_cpu(object, key, &cpu);

	return r < 0 ? r : governor_read(cpu, ret);
}

static int tunable_write(unsigned cpu, const char *gov, char *tunable)
{
	char *eq = strchr(tunable, '=');
	int r;

	*eq = '\0';
	r = governor_tunable_write(cpu, gov, tunable, eq + 1);
	*eq = '=';
	return r;
}

/* The governor first (the kernel makes its tunables afresh with it), then
 * each tunable: 1 when anything changed. A tunable the kernel refuses
 * (EINVAL) is written again after the others: some bound each other
 * (conservative's down_threshold stays below its up_threshold, which may
 * still hold the default), so a pass that lands any lets the next try the
 * rest. */
static int cpufreq_write(const char *object, const char *key, const char *value, char **kmsg _unused_)
{
	_cleanup_(governor_value_done) struct governor_value v = {0};
	_cleanup_free_ int *last = NULL;
	unsigned cpu;
	size_t n;
	int r = change_cpu(object, key, &cpu), changed;
	bool progress = true;

	if (r >= 0)
		r = governor_value_parse(value, &v);
	if (r < 0)
		return r;
	n = strv_length(v.words);
	last = calloc(n, sizeof(*last));
	if (!last)
		return -ENOMEM;
	r = changed = governor_write(cpu, v.words[0]);
	if (r < 0)
		return r;
	for (size_t i = 1; i < n; i++)
		last[i] = -EINVAL; /* not written yet */
	while (progress) {
		progress = false;
		for (size_t i = 1; i < n; i++) {
			if (last[i] != -EINVAL)
				continue;
			last[i] = tunable_write(cpu, v.words[0], v.words[i]);
			if (last[i] >= 0) {
				changed |= last[i] > 0;
				progress = true;
			}
		}
	}
	for (size_t i = 1; i < n; i++)
		if (last[i] < 0)
			return last[i];
	return changed;
}

static int cpufreq_verify(const struct change_kind *k _unused_, const char *object, const char *key,
			  const char *value, char **kmsg _unused_)
{
	_cleanup_(governor_value_done) struct governor_value v = {0};
	_cleanup_strv_free_ char **now = NULL;
	_cleanup_free_ char *cur = NULL;
	unsigned cpu;
	int r = change_cpu(object, key, &cpu);

	if (r >= 0)
		r = governor_value_parse(value, &v);
	if (r >= 0)
		r = governor_read(cpu, &cur);
	if (r < 0)
		return r;
	if (!streq(cur, v.words[0]))
		return -EIO;
	if (!v.words[1])
		return 0;
	r = governor_tunables_read(cpu, cur, &now);
	if (r < 0)
		return r;
	for (size_t i = 1; v.words[i]; i++)
		if (!strv_contains(now, v.words[i]))
			return -EIO;
	return 0;
}

/* "schedutil (rate_limit_us=500)": the governor, its tunables after it. */
static char *cpufreq_human(const char *value, const char *counterpart _unused_)
{
	const char *sp = strchr(value, ' ');

	return sp ? strprintf("%.*s (%s)", (int)(sp - value), value, sp + 1) : strdup(value);
}

/* The value a change records as its old one: the CPU's governor and its
 * tunables. */
static int governor_state(unsigned cpu, const char *gov, char **ret)
{
	_cleanup_strv_free_ char **t = NULL;
	_cleanup_free_ char *s = NULL;
	int r = governor_name_valid(gov) ? governor_tunables_read(cpu, gov, &t) : 0;

	if (r < 0)
		return r;
	s = strdup(gov);
	for (size_t i = 0; s && t && t[i]; i++) {
		char *n = strprintf("%s %s", s, t[i]);
		free(s);
		s = n;
	}
	if (!s)
		return -ENOMEM;
	*ret = TAKE_PTR(s);
	return 0;
}

/* ---- planning ---- */

static char *join(char *const *v);

/* The governor a CPU runs now can be written back: a governor's name
 * the CPU offers. */
static int cpufreq_old_writable(const char *object, const char *key, const char *value, char **ret_why)
{
	_cleanup_(governor_value_done) struct governor_value v = {0};
	_cleanup_strv_free_ char **avail = NULL;
	_cleanup_free_ char *offered = NULL;
	const char *old;
	unsigned cpu;
	int r = change_cpu(object, key, &cpu);

	if (r >= 0)
		r = governor_value_parse(value, &v);
	if (r == -EINVAL) {
		*ret_why = strdup("a governor's tunable that is not NAME=NUMBER");
		return *ret_why ? -EINVAL : -ENOMEM;
	}
	if (r < 0)
		return r;
	old = v.words[0];
	if (!governor_name_valid(old)) {
		*ret_why = strdup("not a governor name");
		return *ret_why ? -EINVAL : -ENOMEM;
	}
	r = governor_available(cpu, &avail);
	if (r < 0)
		return r;
	if (strv_contains(avail, old))
		return 0;
	offered = join(avail);
	*ret_why = offered ? strprintf("not a governor this CPU offers (%s)", offered) : NULL;
	return *ret_why ? -EINVAL : -ENOMEM;
}

/* The CPUs of cpus: the matched ports' local CPUs, every online CPU, or
 * the list (each online). 1 with a problem added when there are none. */
static int wanted_cpus(struct plan_ctx *ctx, const struct topology *topo, struct cpuset *ret)
{
	const struct cpufreq_want *w = want_of(ctx->profile);
	const char *cpus = w->cpus.set ? w->cpus.value : "nic-local";
	int r;

	if (streq(cpus, "all"))
		return cpuset_copy(&topo->online, ret);
	if (!streq(cpus, "nic-local")) {
		_cleanup_cpuset_ struct cpuset off = CPUSET_INIT;
		_cleanup_free_ char *l = NULL;

		if (cpuset_parse_list(cpus, ret) < 0 || cpuset_copy(ret, &off) < 0)
			return -ENOMEM;
		cpuset_andnot(&off, &topo->online);
		if (cpuset_count(&off) == 0)
			return 0;
		if (cpuset_format_list(&off, &l) < 0)
			return -ENOMEM;
		r = plan_add_problem(ctx->plan, EXIT_PRECONDITION, "cpufreq", "list online CPUs only",
				     "host.cpufreq.cpus: CPUs %s are not online", l);
		return r < 0 ? r : 1;
	}
	for (char **n = ctx->plan->interfaces; n && *n; n++) {
		const struct iface_state *s = host_state_iface(ctx->host, *n);
		_cleanup_cpuset_ struct cpuset local = CPUSET_INIT;

		if (!s || !s->has_nic || !s->nic.local_cpulist ||
		    cpuset_parse_list(s->nic.local_cpulist, &local) < 0)
			continue;
		if ((r = cpuset_or(ret, &local)) < 0)
			return r;
	}
	cpuset_and(ret, &topo->online);
	if (cpuset_count(ret) > 0)
		return 0;
	r = plan_add_problem(
	    ctx->plan, EXIT_UNSUPPORTED, "cpufreq", "set host.cpufreq.cpus to all or a CPU list",
	    "host.cpufreq.cpus: nic-local, and no matched port has NUMA-local CPUs in sysfs");
	return r < 0 ? r : 1;
}

/* "powersave performance" */
static char *join(char *const *v)
{
	_cleanup_free_ char *s = strdup("");

	for (size_t i = 0; s && v && v[i]; i++) {
		char *n = strprintf("%s%s%s", s, i ? " " : "", v[i]);
		free(s);
		s = n;
	}
	return TAKE_PTR(s);
}

/* A problem for the CPUs of set that fail one way, listed together. */
static int problem_cpus(struct plan *p, const struct cpuset *set, int code, const char *remedy,
			const char *what)
{
	_cleanup_free_ char *l = NULL;

	if (cpuset_count(set) == 0)
		return 0;
	if (cpuset_format_list(set, &l) < 0)
		return -ENOMEM;
	return plan_add_problem(p, code, "cpufreq", remedy, "host.cpufreq: CPUs %s: %s", l, what);
}

static int cpufreq_diff(struct plan_ctx *ctx, const struct iface_state *port)
{
	const struct cpufreq_want *w = want_of(ctx->profile);
	_cleanup_cpuset_ struct cpuset cpus = CPUSET_INIT, none = CPUSET_INIT, not_offered = CPUSET_INIT;
	_cleanup_topology_ struct topology *topo = NULL;
	_cleanup_free_ char *offered = NULL;
	int r;

	(void)port;
	if (!w->governor.set)
		return 0;
	r = topology_read(&topo);
	if (r < 0)
		return plan_add_problem(
		    ctx->plan, EXIT_ERROR, "cpufreq", "check /sys/devices/system/cpu",
		    "host.cpufreq: cannot read the CPU topology (/sys/devices/system/cpu): %s",
		    sysroot_strerror(r));
	r = wanted_cpus(ctx, topo, &cpus);
	if (r != 0)
		return r < 0 ? r : 0;
	CPUSET_FOREACH(cpu, &cpus)
	{
		_cleanup_strv_free_ char **avail = NULL;
		_cleanup_free_ char *cur = NULL, *old = NULL;
		char object[32];

		r = governor_read((unsigned)cpu, &cur);
		if (r == -ENOENT) {
			if ((r = cpuset_add(&none, (unsigned)cpu)) < 0)
				return r;
			continue;
		}
		if (r >= 0)
			r = governor_available((unsigned)cpu, &avail);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			return plan_add_problem(ctx->plan, EXIT_ERROR, "cpufreq", "check the cpufreq driver",
						"host.cpufreq: CPU %d: cannot read its governors: %s", cpu,
						sysroot_strerror(r));
		if (!strv_contains(avail, w->governor.value)) {
			if (!offered && !(offered = join(avail)))
				return -ENOMEM;
			if ((r = cpuset_add(&not_offered, (unsigned)cpu)) < 0)
				return r;
			continue;
		}
		if (streq(cur, w->governor.value))
			continue;
		snprintf(object, sizeof(object), "cpu%d", cpu);
		r = governor_state((unsigned)cpu, cur, &old);
		if (r < 0)
			return r;
		r = plan_add_change(ctx->plan, "cpufreq", object, "scaling_governor", old, w->governor.value);
		if (r < 0)
			return r;
	}
	if (cpuset_count(&none) == cpuset_count(&cpus) && (r = governor_driver_present()) <= 0) {
		/* No driver at all: the firmware sets the frequency (or a VM's
		 * host does); there is nothing to set, so nothing to refuse. */
		_cleanup_free_ char *l = NULL;

		if (r < 0 && r != -ENOMEM)
			return plan_add_problem(
			    ctx->plan, EXIT_ERROR, "cpufreq", "check /sys/devices/system/cpu/cpufreq",
			    "host.cpufreq: cannot list the cpufreq policies: %s", sysroot_strerror(r));
		if (r < 0 || cpuset_format_list(&none, &l) < 0)
			return -ENOMEM;
		return strv_pushf(&ctx->plan->warnings,
				  "host.cpufreq not applied: CPUs %s: no cpufreq driver (no "
				  "/sys/devices/system/cpu/cpufreq/policyN): the firmware or the hypervisor "
				  "sets the frequency",
				  l);
	}
	r = problem_cpus(
	    ctx->plan, &none, EXIT_UNSUPPORTED,
	    "load the CPU's cpufreq driver, or list only the CPUs that have one in host.cpufreq.cpus",
	    "no cpufreq (cpuN/cpufreq absent, though the host has a cpufreq driver)");
	if (r >= 0 && offered) {
		_cleanup_free_ char *what =
		    strprintf("the governor %s is not offered (they offer: %s)", w->governor.value, offered);
		r = what ? problem_cpus(ctx->plan, &not_offered, EXIT_UNSUPPORTED,
					"choose one of the offered governors (scaling_available_governors)",
					what)
			 : -ENOMEM;
	}
	return r;
}

/* ---- show ---- */

/* Online CPUs grouped by governor: "cpufreq  performance 0-7  powersave
 * 8-31"; JSON {"status", "governors": {NAME: "CPU list"}}. */
static void cpufreq_show(const struct host_state *h)
{
	_cleanup_topology_ struct topology *topo = NULL;
	char *names[64];
	struct cpuset sets[64];
	size_t n = 0;
	int r;

	(void)h;
	r = topology_read(&topo);
	out_open_object("cpufreq");
	out_text("cpufreq     ");
	if (r >= 0)
		CPUSET_FOREACH(cpu, &topo->online)
		{
			char *g = NULL;
			size_t i;

			if (governor_read((unsigned)cpu, &g) < 0)
				continue;
			for (i = 0; i < n && !streq(names[i], g); i++)
				;
			if (i == n && n == ARRAY_SIZE(names)) {
				free(g);
				continue;
			}
			if (i == n) {
				names[n] = g;
				sets[n++] = (struct cpuset)CPUSET_INIT;
			} else
				free(g);
			(void)cpuset_add(&sets[i], (unsigned)cpu);
		}
	if (r >= 0 && n == 0)
		r = -EOPNOTSUPP;
	kind_show_status(r);
	if (r == -EOPNOTSUPP)
		out_text(" (no cpufreq driver)");
	out_open_object("governors");
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *l = NULL;

		if (cpuset_format_list(&sets[i], &l) >= 0) {
			out_string(OUT_JSON, names[i], NULL, l);
			out_text("%s%s %s", i ? "  " : "", names[i], l);
		}
		free(names[i]);
		cpuset_done(&sets[i]);
	}
	out_close_object();
	out_text("\n");
	out_close_object();
}

/* What show writes of it (kinds.h: show_schema; `make docs` puts it into
 * schemas/state.schema.json). */
static const char cpufreq_show_schema[] =
    "{"
    " \"cpufreq\": {"
    "  \"type\": \"object\","
    "  \"required\": [\"status\", \"error\", \"governors\"],"
    "  \"additionalProperties\": false,"
    "  \"description\": \"The CPU frequency governor of each online CPU "
    "(/sys/devices/system/cpu/cpuN/cpufreq/scaling_governor under the sysroot), grouped.\","
    "  \"x-cx5prof-status\": \"no cpufreq driver (most virtual machines)\","
    "  \"properties\": {"
    "   \"governors\": {"
    "    \"type\": \"object\","
    "    \"additionalProperties\": {\"type\": \"string\"},"
    "    \"description\": \"each governor in use and the CPU list running it (\\\"performance\\\": "
    "\\\"0-31\\\")\""
    "   }"
    "  }"
    " }"
    "}";

const struct change_kind kind_cpufreq = {
    .name = "cpufreq",
    .rank = 12,
    .scope = KIND_SCOPE_HOST,
    .profile_section = "host",
    .keys = cpufreq_keys,
    .want_size = sizeof(struct cpufreq_want),
    .profile_check = cpufreq_profile_check,
    .read = cpufreq_read,
    .write = cpufreq_write,
    .undo = kind_undo_by_write,
    .verify = cpufreq_verify,
    .write_reads_back = true,
    .diff = cpufreq_diff,
    .old_writable = cpufreq_old_writable,
    .human = cpufreq_human,
    .show_host = cpufreq_show,
    .show_schema = cpufreq_show_schema,
};
