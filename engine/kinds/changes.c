/* changes.c: the plan container (see changes.h). */
#define _GNU_SOURCE
#include "changes.h"

#include <stdarg.h>

#include "base/exitcode.h"
#include "kinds.h"

static void plan_change_done(struct plan_change *c)
{
	free(c->object);
	free(c->key);
	free(c->old_value);
	free(c->new_value);
	free(c->note);
}

void plan_free(struct plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_changes; i++)
		plan_change_done(&p->changes[i]);
	free(p->changes);
	for (size_t i = 0; i < p->n_problems; i++) {
		free(p->problems[i].object);
		free(p->problems[i].message);
		free(p->problems[i].remedy);
	}
	free(p->problems);
	strv_free(p->warnings);
	free(p->boot_unit);
	strv_free(p->interfaces);
	free(p);
}

int plan_add_change(struct plan *p, const char *kind, const char *object, const char *key,
		    const char *old_value, const char *new_value)
{
	const struct change_kind *k = change_kind_find(kind);
	struct plan_change *v, c = {.kind = k};

	if (!k)
		return -EINVAL;
	/* grow by doubling: an IRQ plan adds hundreds of changes */
	if ((p->n_changes & (p->n_changes - 1)) == 0) {
		v = realloc(p->changes, (p->n_changes ? 2 * p->n_changes : 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->changes = v;
	}
	c.object = strdup(object);
	c.key = strdup(key);
	c.old_value = strdup(old_value);
	c.new_value = strdup(new_value);
	if (!c.object || !c.key || !c.old_value || !c.new_value) {
		plan_change_done(&c);
		return -ENOMEM;
	}
	p->changes[p->n_changes++] = c;
	return 0;
}

int plan_add_problem(struct plan *p, int exit_code, const char *object, const char *remedy, const char *fmt,
		     ...)
{
	struct plan_problem *v, q = {.exit_code = exit_code};
	va_list ap;

	v = realloc(p->problems, (p->n_problems + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->problems = v;
	va_start(ap, fmt);
	q.message = vstrprintf(fmt, ap);
	va_end(ap);
	q.object = strdup(object);
	q.remedy = strdup(remedy);
	if (!q.message || !q.object || !q.remedy) {
		free(q.message);
		free(q.object);
		free(q.remedy);
		return -ENOMEM;
	}
	p->problems[p->n_problems++] = q;
	return 0;
}

int plan_problems_exit_code(const struct plan *p)
{
	static const int precedence[] = {EXIT_NOT_FOUND, EXIT_UNSUPPORTED, EXIT_PRECONDITION, EXIT_INVALID};

	if (p->n_problems == 0)
		return EXIT_OK;
	for (size_t k = 0; k < ARRAY_SIZE(precedence); k++)
		for (size_t i = 0; i < p->n_problems; i++)
			if (p->problems[i].exit_code == precedence[k])
				return precedence[k];
	return p->problems[0].exit_code;
}

static int change_rank_cmp(const void *a, const void *b)
{
	const struct plan_change *x = a, *y = b;
	return x->kind->rank - y->kind->rank;
}

void plan_order(struct plan *p)
{
	/* qsort is not stable: sort (rank, original index) by insertion. */
	for (size_t i = 1; i < p->n_changes; i++)
		for (size_t j = i; j > 0 && change_rank_cmp(&p->changes[j - 1], &p->changes[j]) > 0; j--) {
			struct plan_change t = p->changes[j];
			p->changes[j] = p->changes[j - 1];
			p->changes[j - 1] = t;
		}
	for (size_t i = 0; i < p->n_changes; i++)
		if (!p->changes[i].note && p->changes[i].kind->order_note)
			p->changes[i].note = strdup(p->changes[i].kind->order_note);
}
