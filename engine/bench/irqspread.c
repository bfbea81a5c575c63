/* irqspread.c: interrupt and softirq deltas over a run (see irqspread.h).
 *
 * Owns: the /proc/stat parser and the spread arithmetic. /proc/interrupts
 * is parsed by interrupts.c (never twice). Must never: write anything. */
#define _GNU_SOURCE
#include "irqspread.h"

#include "os/sysroot.h"

void procstat_free(struct proc_stat *s)
{
	if (!s)
		return;
	free(s->cpu);
	free(s);
}

int procstat_parse(const char *text, struct proc_stat **ret)
{
	_cleanup_free_ char *copy = NULL;
	struct proc_stat *s;
	char *save = NULL;

	if (!text)
		return -EINVAL;
	copy = strdup(text);
	s = calloc(1, sizeof(*s));
	if (!copy || !s) {
		free(s);
		return -ENOMEM;
	}
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[16], *fs = NULL;
		size_t n = 0;
		unsigned cpu;
		uint64_t v[8] = {0};
		struct cpu_time *nc;

		if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9')
			continue; /* the "cpu " total line and every other line */
		for (char *t = strtok_r(line, " \t", &fs); t && n < ARRAY_SIZE(f);
		     t = strtok_r(NULL, " \t", &fs))
			f[n++] = t;
		/* At least user..softirq (7 values; steal came with 2.6.11). */
		if (n < 8 || safe_atou32(f[0] + 3, &cpu) < 0)
			goto invalid;
		for (size_t k = 1; k < n && k <= 8; k++)
			if (safe_atou64(f[k], &v[k - 1]) < 0)
				goto invalid;
		nc = realloc(s->cpu, (s->n + 1) * sizeof(*s->cpu));
		if (!nc) {
			procstat_free(s);
			return -ENOMEM;
		}
		s->cpu = nc;
		s->cpu[s->n] = (struct cpu_time){.cpu = cpu, .softirq = v[6]};
		for (size_t k = 0; k < 8; k++)
			s->cpu[s->n].total += v[k];
		s->n++;
	}
	if (s->n == 0)
		goto invalid;
	*ret = s;
	return 0;
invalid:
	procstat_free(s);
	return -EINVAL;
}

int irqspread_snapshot_from_text(const char *interrupts, const char *stat, struct irqspread_snapshot *ret)
{
	struct irqspread_snapshot s = {.interrupts_r = -ENOENT, .stat_r = -ENOENT};

	if (interrupts) {
		s.interrupts_r = interrupts_parse(interrupts, &s.intr, NULL);
		if (s.interrupts_r >= 0 && !(s.interrupts_text = strdup(interrupts)))
			goto oom;
	}
	if (stat) {
		s.stat_r = procstat_parse(stat, &s.stat);
		if (s.stat_r >= 0 && !(s.stat_text = strdup(stat)))
			goto oom;
	}
	*ret = s;
	return 0;
oom:
	irqspread_snapshot_done(&s);
	return -ENOMEM;
}

int irqspread_snapshot_take(struct irqspread_snapshot *ret)
{
	_cleanup_free_ char *intr = NULL, *stat = NULL;
	int ri, rs, r;

	ri = sysroot_read_all("/proc/interrupts", &intr, NULL);
	rs = sysroot_read_all("/proc/stat", &stat, NULL);
	r = irqspread_snapshot_from_text(ri >= 0 ? intr : NULL, rs >= 0 ? stat : NULL, ret);
	if (r < 0)
		return r;
	if (ri < 0)
		ret->interrupts_r = ri;
	if (rs < 0)
		ret->stat_r = rs;
	return 0;
}

void irqspread_snapshot_done(struct irqspread_snapshot *s)
{
	interrupts_free(s->intr);
	free(s->interrupts_text);
	procstat_free(s->stat);
	free(s->stat_text);
	*s = (struct irqspread_snapshot){.interrupts_r = -ENOENT, .stat_r = -ENOENT};
}

void irqspread_result_done(struct irqspread_result *r)
{
	free(r->cpus);
	r->cpus = NULL;
	r->ncpus = 0;
}

static const struct cpu_time *stat_cpu(const struct proc_stat *s, unsigned cpu)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (s->cpu[i].cpu == cpu)
			return &s->cpu[i];
	return NULL;
}

static struct irqspread_cpu *cpu_slot(struct irqspread_result *r, unsigned cpu)
{
	struct irqspread_cpu *n;
	size_t i = 0;

	while (i < r->ncpus && r->cpus[i].cpu < cpu)
		i++;
	if (i < r->ncpus && r->cpus[i].cpu == cpu)
		return &r->cpus[i];
	n = realloc(r->cpus, (r->ncpus + 1) * sizeof(*n));
	if (!n)
		return NULL;
	r->cpus = n;
	memmove(&n[i + 1], &n[i], (r->ncpus - i) * sizeof(*n));
	n[i] = (struct irqspread_cpu){.cpu = cpu, .softirq_percent = -1};
	r->ncpus++;
	return &n[i];
}

int irqspread_compute(const struct irqspread_snapshot *before, const struct irqspread_snapshot *after,
		      const struct irqspread_irq *irqs, size_t nirqs, struct irqspread_result *ret)
{
	struct irqspread_result r = {
	    .planned_percent = -1,
	    .max_cpu = -1,
	    .max_cpu_percent = -1,
	    .softirq_max_cpu = -1,
	    .softirq_max_percent = -1,
	};
	uint64_t on_planned = 0;
	bool any_plan = false;

	if (before->interrupts_r >= 0 && after->interrupts_r >= 0) {
		const struct interrupts *a = after->intr, *b = before->intr;

		for (size_t i = 0; i < nirqs; i++) {
			const struct interrupts_row *ra = interrupts_find(a, irqs[i].irq);
			const struct interrupts_row *rb = interrupts_find(b, irqs[i].irq);
			bool planned_known = cpuset_count(&irqs[i].planned) > 0;

			if (!ra)
				continue;
			any_plan |= planned_known;
			for (unsigned c = 0; c < a->ncpus; c++) {
				unsigned cpu = a->cpus[c];
				uint64_t now = interrupts_count_on(a, ra, cpu);
				uint64_t then = rb ? interrupts_count_on(b, rb, cpu) : 0;
				uint64_t d = now > then ? now - then : 0;
				struct irqspread_cpu *slot;

				if (d == 0)
					continue;
				slot = cpu_slot(&r, cpu);
				if (!slot)
					goto oom;
				slot->interrupts += d;
				r.interrupts += d;
				if (planned_known && cpuset_has(&irqs[i].planned, cpu))
					on_planned += d;
			}
		}
		for (size_t i = 0; i < nirqs; i++)
			CPUSET_FOREACH(cpu, &irqs[i].planned)
			{
				struct irqspread_cpu *slot = cpu_slot(&r, (unsigned)cpu);
				if (!slot)
					goto oom;
				slot->planned = true;
			}
	}
	if (r.interrupts > 0) {
		if (any_plan)
			r.planned_percent = 100.0 * (double)on_planned / (double)r.interrupts;
		for (size_t i = 0; i < r.ncpus; i++) {
			r.cpus[i].irq_percent = 100.0 * (double)r.cpus[i].interrupts / (double)r.interrupts;
			if (r.cpus[i].irq_percent > r.max_cpu_percent) {
				r.max_cpu_percent = r.cpus[i].irq_percent;
				r.max_cpu = (int)r.cpus[i].cpu;
			}
		}
	}
	if (before->stat_r >= 0 && after->stat_r >= 0) {
		for (size_t i = 0; i < after->stat->n; i++) {
			const struct cpu_time *ta = &after->stat->cpu[i];
			const struct cpu_time *tb = stat_cpu(before->stat, ta->cpu);
			struct irqspread_cpu *slot;
			uint64_t dt, ds;

			if (!tb || ta->total <= tb->total)
				continue; /* no time passed on this CPU (or a static file) */
			dt = ta->total - tb->total;
			ds = ta->softirq > tb->softirq ? ta->softirq - tb->softirq : 0;
			slot = cpu_slot(&r, ta->cpu);
			if (!slot)
				goto oom;
			slot->softirq_percent = 100.0 * (double)ds / (double)dt;
			if (slot->softirq_percent > r.softirq_max_percent) {
				r.softirq_max_percent = slot->softirq_percent;
				r.softirq_max_cpu = (int)ta->cpu;
			}
		}
	}
	*ret = r;
	return 0;
oom:
	irqspread_result_done(&r);
	return -ENOMEM;
}
