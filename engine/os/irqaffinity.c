/* irqaffinity.c: the IRQs of a network device, and their affinity (see irqaffinity.h).
 *
 * Owns: the name table of mlx5/OFED interrupt handlers, discovery of an
 * interface's vectors (PCI function msi_irqs/ plus handler names in
 * /proc/interrupts), and /proc/irq/<n>/ affinity files, all through the
 * sysroot. Must never: write any file but /proc/irq/<n>/smp_affinity_list,
 * or key a setting by IRQ number across runs (callers key by queue index). */
#include "irqaffinity.h"

#include <ctype.h>

#include "sysroot.h"

static const char *const kind_names[_IRQ_KIND_MAX] = {
    [IRQ_KIND_COMPLETION] = "completion",
    [IRQ_KIND_ASYNC] = "async",
    [IRQ_KIND_CONTROL] = "control",
};

const char *irq_kind_to_string(enum irq_kind k)
{
	return k < _IRQ_KIND_MAX ? kind_names[k] : NULL;
}

/* Handler names before "@pci:<BDF>", from the kernel's pci_irq.c and older
 * eq.c. `queue`: the digits after the prefix are the completion queue;
 * otherwise digits are allowed and ignored ("mlx5_async0"). Longer prefixes
 * first where one is a prefix of another. */
static const struct {
	const char *prefix;
	enum irq_kind kind;
	bool queue;
} handler_names[] = {
    {"mlx5_comp", IRQ_KIND_COMPLETION, true},	  {"mlx5_sf_comp", IRQ_KIND_COMPLETION, true},
    {"mlx5_combined", IRQ_KIND_COMPLETION, true}, /* single-vector device: completions too */
    {"mlx5_async_eq", IRQ_KIND_ASYNC, false},	  {"mlx5_async", IRQ_KIND_ASYNC, false},
    {"mlx5_pages_eq", IRQ_KIND_CONTROL, false},	  {"mlx5_cmd_eq", IRQ_KIND_CONTROL, false},
    {"mlx5_sf_ctrl", IRQ_KIND_CONTROL, false},
};

static bool all_digits(const char *s, size_t len)
{
	if (len == 0 || len > 9)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

bool irq_classify(const char *name, const char *ifname, const char *pci_bdf, enum irq_kind *ret_kind,
		  int *ret_queue)
{
	const char *at;
	size_t base_len;

	if (!name)
		return false;
	at = strchr(name, '@');
	base_len = at ? (size_t)(at - name) : strlen(name);
	if (at) {
		if (strncmp(at + 1, "pci:", 4) != 0)
			return false;
		if (pci_bdf && !streq(at + 5, pci_bdf))
			return false;
	}
	for (size_t i = 0; i < ARRAY_SIZE(handler_names); i++) {
		size_t plen = strlen(handler_names[i].prefix);
		const char *rest = name + plen;
		size_t rest_len;

		if (base_len < plen || strncmp(name, handler_names[i].prefix, plen) != 0)
			continue;
		rest_len = base_len - plen;
		if (handler_names[i].queue) {
			if (!all_digits(rest, rest_len))
				continue;
			*ret_kind = handler_names[i].kind;
			*ret_queue = atoi(rest);
			return true;
		}
		if (rest_len > 0 && !all_digits(rest, rest_len))
			continue;
		*ret_kind = handler_names[i].kind;
		*ret_queue = -1;
		return true;
	}
	/* OFED: "<ifname>-<n>" is completion queue n. */
	if (!at && ifname) {
		size_t ilen = strlen(ifname);
		if (base_len > ilen + 1 && strncmp(name, ifname, ilen) == 0 && name[ilen] == '-' &&
		    all_digits(name + ilen + 1, base_len - ilen - 1)) {
			*ret_kind = IRQ_KIND_COMPLETION;
			*ret_queue = atoi(name + ilen + 1);
			return true;
		}
	}
	return false;
}

bool irq_name_is_device(const char *name, const char *ifname, const char *pci_bdf, enum irq_kind *ret_kind,
			int *ret_queue)
{
	size_t ilen = ifname ? strlen(ifname) : 0;

	if (!name)
		return false;
	if (strchr(name, '@'))
		return pci_bdf && irq_classify(name, NULL, pci_bdf, ret_kind, ret_queue);
	return ifname && strncmp(name, ifname, ilen) == 0 && name[ilen] == '-' &&
	       irq_classify(name, ifname, NULL, ret_kind, ret_queue);
}

static void vector_done(struct irq_vector *v)
{
	free(v->name);
	cpuset_done(&v->affinity);
	cpuset_done(&v->effective);
	free(v->counts);
}

void irq_list_free(struct irq_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		vector_done(&l->v[i]);
	free(l->v);
	free(l->ifname);
	free(l->pci_bdf);
	free(l);
}

int irq_list_new(const char *ifname, const char *pci_bdf, struct irq_list **ret)
{
	_cleanup_irq_list_ struct irq_list *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	if (ifname && !(l->ifname = strdup(ifname)))
		return -ENOMEM;
	if (pci_bdf && !(l->pci_bdf = strdup(pci_bdf)))
		return -ENOMEM;
	*ret = TAKE_PTR(l);
	return 0;
}

static int cmp_vector(const void *a, const void *b)
{
	const struct irq_vector *x = a, *y = b;
	bool cx = x->kind == IRQ_KIND_COMPLETION, cy = y->kind == IRQ_KIND_COMPLETION;

	if (cx != cy)
		return cx ? -1 : 1;
	if (cx && x->queue != y->queue)
		return x->queue < y->queue ? -1 : 1;
	return x->irq < y->irq ? -1 : x->irq > y->irq;
}

static void list_sort(struct irq_list *l)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), cmp_vector);
}

/* Append a classified vector (unsorted). */
static int list_append(struct irq_list *l, unsigned irq, const char *name, struct irq_vector **ret)
{
	struct irq_vector *nv, *v;
	enum irq_kind kind;
	int queue;

	if (!irq_classify(name, l->ifname, l->pci_bdf, &kind, &queue)) {
		kind = IRQ_KIND_CONTROL;
		queue = -1;
	}
	nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	l->v = nv;
	v = &nv[l->n];
	*v = (struct irq_vector){.irq = irq, .kind = kind, .queue = queue};
	if (name && !(v->name = strdup(name)))
		return -ENOMEM;
	l->n++;
	*ret = v;
	return 0;
}

int irq_list_add(struct irq_list *l, unsigned irq, const char *name, const char *affinity_list)
{
	struct irq_vector *v;
	int r;

	if (irq_list_by_irq(l, irq))
		return -EEXIST;
	r = list_append(l, irq, name, &v);
	if (r < 0)
		return r;
	if (affinity_list) {
		r = cpuset_parse_list(affinity_list, &v->affinity);
		if (r < 0) {
			vector_done(v);
			l->n--;
			return r;
		}
		v->has_affinity = true;
	}
	list_sort(l);
	return 0;
}

/* A completion vector whose affinity is known. */
static bool mappable(const struct irq_vector *v)
{
	return v->kind == IRQ_KIND_COMPLETION && v->has_affinity && cpuset_count(&v->affinity) > 0;
}

/* Vector b continues the run a..b-1 starting at a: the next queue, and
 * either the same CPUs as a, or the CPU after its predecessor's. */
static bool continues(const struct irq_vector *a, const struct irq_vector *prev, const struct irq_vector *b,
		      bool same)
{
	if (!mappable(b) || b->queue != prev->queue + 1)
		return false;
	if (same)
		return cpuset_equal(&a->affinity, &b->affinity);
	return cpuset_count(&b->affinity) == 1 && cpuset_count(&prev->affinity) == 1 &&
	       cpuset_last(&b->affinity) == cpuset_last(&prev->affinity) + 1;
}

int irq_list_format_map(const struct irq_list *l, char **ret)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *sep = "";

	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < l->n;) {
		const struct irq_vector *a = &l->v[i];
		_cleanup_free_ char *cpus = NULL, *first = NULL;
		size_t j = i + 1, label;
		bool same;

		if (!mappable(a)) {
			i++;
			continue;
		}
		same = j < l->n && continues(a, a, &l->v[j], true);
		while (j < l->n && continues(a, &l->v[j - 1], &l->v[j], same))
			j++;
		if (cpuset_format_list(&a->affinity, &first) < 0)
			break;
		if (!same && j > i + 1)
			cpus = strprintf("%s-%d", first, cpuset_last(&l->v[j - 1].affinity));
		label = a->name ? strcspn(a->name, "@") : 0;
		while (label > 0 && isdigit((unsigned char)a->name[label - 1]))
			label--;
		if (label)
			fprintf(f, "%s%.*s%d", sep, (int)label, a->name, a->queue);
		else
			fprintf(f, "%sq%d", sep, a->queue);
		if (j > i + 1)
			fprintf(f, "-%d", l->v[j - 1].queue);
		fprintf(f, " -> %s", cpus ? cpus : first);
		sep = ", ";
		i = j;
	}
	if (fclose(f) != 0)
		return -ENOMEM;
	*ret = TAKE_PTR(buf);
	return 0;
}

const struct irq_vector *irq_list_by_queue(const struct irq_list *l, unsigned queue)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].kind == IRQ_KIND_COMPLETION && l->v[i].queue == (int)queue)
			return &l->v[i];
	return NULL;
}

const struct irq_vector *irq_list_by_irq(const struct irq_list *l, unsigned irq)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].irq == irq)
			return &l->v[i];
	return NULL;
}

size_t irq_list_count(const struct irq_list *l, enum irq_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < l->n; i++)
		n += l->v[i].kind == kind;
	return n;
}

/* A CPU set from <base>_list, else from the <base> mask. */
static int read_irq_cpuset(unsigned irq, const char *base, struct cpuset *ret)
{
	_cleanup_free_ char *s = NULL;
	int r;

	r = sysroot_read_linef(&s, "/proc/irq/%u/%s_list", irq, base);
	if (r >= 0)
		return cpuset_parse_list(s, ret);
	if (r != -ENOENT)
		return r;
	r = sysroot_read_linef(&s, "/proc/irq/%u/%s", irq, base);
	if (r < 0)
		return r;
	return cpuset_parse_mask(s, ret);
}

int irq_read_affinity(unsigned irq, struct cpuset *ret)
{
	return read_irq_cpuset(irq, "smp_affinity", ret);
}

int irq_vector_cpu(const struct irq_vector *v)
{
	_cleanup_cpuset_ struct cpuset eff = CPUSET_INIT;
	int r;

	if (!v->has_affinity || cpuset_count(&v->affinity) == 0)
		return -ENODATA;
	if (cpuset_count(&v->affinity) == 1)
		return cpuset_last(&v->affinity);
	if (v->has_effective)
		r = cpuset_copy(&v->effective, &eff);
	else
		r = read_irq_cpuset(v->irq, "effective_affinity", &eff);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || cpuset_count(&eff) != 1)
		return -EDOM;
	return cpuset_last(&eff);
}

/* The whole file as one CPU list: exactly one line, as the kernel prints
 * it; anything after it (a torn write in a sysroot copy) is -EBADMSG. */
static int read_list_whole(const char *path, struct cpuset *ret)
{
	_cleanup_free_ char *s = NULL;
	size_t len = 0;
	char *nl;
	int r;

	r = sysroot_read_all(path, &s, &len);
	if (r < 0)
		return r;
	nl = memchr(s, '\n', len);
	/* One line: with its newline, or (a copied sysroot file that has
	 * none, written back alike: sysroot_write) without. */
	if (nl && (size_t)(nl - s) != len - 1)
		return -EBADMSG;
	if (nl)
		*nl = '\0';
	return cpuset_parse_list(s, ret);
}

int irq_write_affinity(unsigned irq, const struct cpuset *cpus)
{
	_cleanup_cpuset_ struct cpuset cur = CPUSET_INIT, back = CPUSET_INIT;
	_cleanup_free_ char *list = NULL, *line = NULL, *path = NULL;
	int r;

	if (cpuset_count(cpus) == 0)
		return -EINVAL;
	path = strprintf("/proc/irq/%u/smp_affinity_list", irq);
	if (!path)
		return -ENOMEM;
	/* The file written is the file read: its absence is -ENOENT (an
	 * unreadable or odd value is simply written over; the write refuses
	 * a path out of the sysroot). */
	r = read_list_whole(path, &cur);
	if (r == -ENOENT)
		return r;
	if (r >= 0 && cpuset_equal(&cur, cpus))
		return 0;
	r = cpuset_format_list(cpus, &list);
	if (r < 0)
		return r;
	/* With the newline, as `echo` writes it and as the kernel prints it
	 * back: a sysroot copy then reads exactly like /proc. */
	line = strprintf("%s\n", list);
	if (!line)
		return -ENOMEM;
	r = sysroot_write(path, line);
	if (r == -EIO)
		return IRQ_AFFINITY_FIXED;
	if (r < 0)
		return r;
	r = read_list_whole(path, &back);
	if (r == -EBADMSG)
		return IRQ_AFFINITY_MISMATCH;
	if (r < 0)
		return r;
	if (!cpuset_equal(&back, cpus))
		return IRQ_AFFINITY_MISMATCH;
	return 1;
}

static int fill_vector(struct irq_vector *v, const struct interrupts *table, unsigned flags)
{
	const struct interrupts_row *row;
	int r;

	if (flags & IRQ_DISCOVER_AFFINITY) {
		r = read_irq_cpuset(v->irq, "smp_affinity", &v->affinity);
		if (r >= 0)
			v->has_affinity = true;
		else if (r != -ENOENT && r != -EINVAL)
			return r;
	}
	if (!(flags & IRQ_DISCOVER_DETAILS))
		return 0;
	r = read_irq_cpuset(v->irq, "effective_affinity", &v->effective);
	if (r >= 0)
		v->has_effective = true;
	else if (r != -ENOENT && r != -EINVAL)
		return r;
	row = interrupts_find(table, v->irq);
	if (!row || !row->counts)
		return 0; /* not in the table, or a table read without counts */
	v->ncounts = table->max_cpu + 1;
	v->counts = calloc(v->ncounts, sizeof(uint64_t));
	if (!v->counts)
		return -ENOMEM;
	for (unsigned i = 0; i < table->ncpus && i < row->ncounts; i++)
		v->counts[table->cpus[i]] = row->counts[i];
	v->total = interrupts_row_total(row);
	return 0;
}

int irq_discover(const char *ifname, const struct interrupts *table, unsigned flags, struct irq_list **ret)
{
	_cleanup_interrupts_ struct interrupts *own = NULL;
	_cleanup_irq_list_ struct irq_list *l = NULL;
	_cleanup_strv_free_ char **msi = NULL;
	_cleanup_free_ char *bdf = NULL, *path = NULL;
	int r;

	if (!ifname_valid(ifname))
		return -EINVAL;
	path = strprintf("/sys/class/net/%s", ifname);
	if (!path)
		return -ENOMEM;
	if (!sysroot_exists(path))
		return -ENODEV;
	free(path);
	path = strprintf("/sys/class/net/%s/device", ifname);
	if (!path)
		return -ENOMEM;
	r = sysroot_readlink_base(path, &bdf);
	if (r < 0 && r != -ENOENT && r != -EINVAL)
		return r;
	r = irq_list_new(ifname, bdf, &l);
	if (r < 0)
		return r;
	if (!bdf) {
		/* A virtual interface (veth, bridge): no device IRQs. */
		*ret = TAKE_PTR(l);
		return 0;
	}
	if (!table) {
		r = interrupts_read(flags & IRQ_DISCOVER_DETAILS ? 0 : INTERRUPTS_NO_COUNTS, &own, NULL);
		if (r < 0)
			return r;
		table = own;
	}

	free(path);
	path = strprintf("/sys/class/net/%s/device/msi_irqs", ifname);
	if (!path)
		return -ENOMEM;
	r = sysroot_listdir(path, &msi);
	if (r < 0 && r != -ENOENT)
		return r;
	for (char **m = msi; m && *m; m++) {
		const struct interrupts_row *row;
		struct irq_vector *v;
		uint32_t irq;

		if (safe_atou32(*m, &irq) < 0)
			continue;
		row = interrupts_find(table, irq);
		r = list_append(l, irq, row ? row->name : NULL, &v);
		if (r < 0)
			return r;
	}
	/* Vectors named after this device but missing from msi_irqs/ (older
	 * kernels, OFED <ifname>-<n>). */
	for (size_t i = 0; i < table->nrows; i++) {
		const struct interrupts_row *row = &table->rows[i];
		struct irq_vector *v;
		enum irq_kind kind;
		int queue;

		/* The name first: it rejects the other ports' rows at once,
		 * where the list search would scan this port's 64 vectors. */
		if (!irq_name_is_device(row->name, ifname, bdf, &kind, &queue) ||
		    irq_list_by_irq(l, row->irq))
			continue;
		r = list_append(l, row->irq, row->name, &v);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < l->n; i++) {
		r = fill_vector(&l->v[i], table, flags);
		if (r < 0)
			return r;
	}
	list_sort(l);
	*ret = TAKE_PTR(l);
	return 0;
}
