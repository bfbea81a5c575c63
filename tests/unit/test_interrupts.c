/* test_interrupts.c: the /proc/interrupts parser, IRQ name classification,
 * device IRQ discovery from the sysroot fixtures, and affinity writes on a
 * private sysroot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <sys/stat.h>

#include "os/irqaffinity.h"
#include "os/sysroot.h"

#define FIXTURES "tests/fixtures/sysroot"
/* Everything irq_discover can read, as `show` asks for it. */
#define ALL (IRQ_DISCOVER_AFFINITY | IRQ_DISCOVER_DETAILS)

/* Real lines from the reference (12-CPU host, newer kernel). */
static const char reference_table[] =
    "            CPU0       CPU1       CPU2       CPU3       CPU4       CPU5       CPU6       CPU7       "
    "CPU8   "
    "    CPU9       CPU10      CPU11      \n"
    "  98:          0          0          0          0          0          0          0          0          "
    "0    "
    "      0      23274          0  IR-PCI-MSIX-0000:01:00.0    0-edge      mlx5_async0@pci:0000:01:00.0\n"
    "  99:        324          0          0          0          0          0          0       4360          "
    "0    "
    "      0          0          0  IR-PCI-MSIX-0000:01:00.0    1-edge      mlx5_comp0@pci:0000:01:00.0\n"
    " 109:          0          2          0          0          0          0          0          0     "
    "395218    "
    "      0          0          0  IR-PCI-MSIX-0000:01:00.0    2-edge      mlx5_comp1@pci:0000:01:00.0\n"
    " 117:          0          0          0          0          0          0          0          0          "
    "0    "
    "      7          0     651437  IR-PCI-MSIX-0000:01:00.0   10-edge      mlx5_comp9@pci:0000:01:00.0\n"
    " NMI:          0          0          0          0          0          0          0          0          "
    "0    "
    "      0          0          0   Non-maskable interrupts\n"
    " ERR:          0\n"
    " MIS:          0\n";

static struct interrupts *parse_ok(const char *text)
{
	struct interrupts *t = NULL;
	unsigned line = 0;
	int r = interrupts_parse(text, &t, &line);

	if (r < 0)
		fail_msg("parse failed: %d at line %u", r, line);
	return t;
}

static void assert_parse_error(const char *text, unsigned want_line)
{
	struct interrupts *t = NULL;
	unsigned line = 0;

	assert_int_equal(interrupts_parse(text, &t, &line), -EINVAL);
	assert_null(t);
	assert_int_equal(line, want_line);
}

static void test_reference_lines(void **state)
{
	_cleanup_interrupts_ struct interrupts *t = parse_ok(reference_table);
	const struct interrupts_row *r;

	(void)state;
	assert_int_equal(t->ncpus, 12);
	assert_int_equal(t->max_cpu, 11);
	assert_int_equal(t->nrows, 4);
	assert_int_equal(t->nother, 3);
	r = interrupts_find(t, 109);
	assert_non_null(r);
	assert_string_equal(r->chip, "IR-PCI-MSIX-0000:01:00.0");
	assert_string_equal(r->hwirq, "2-edge");
	assert_string_equal(r->name, "mlx5_comp1@pci:0000:01:00.0");
	assert_int_equal(interrupts_count_on(t, r, 8), 395218);
	assert_int_equal(interrupts_count_on(t, r, 1), 2);
	assert_int_equal(interrupts_row_total(r), 395220);
	r = interrupts_find(t, 117);
	assert_string_equal(r->hwirq, "10-edge");
	assert_int_equal(interrupts_count_on(t, r, 11), 651437);
	assert_null(interrupts_find(t, 100));
	assert_string_equal(t->other[0].label, "NMI");
	assert_string_equal(t->other[0].name, "Non-maskable interrupts");
	assert_int_equal(t->other[0].ncounts, 12);
	assert_string_equal(t->other[1].label, "ERR");
	assert_int_equal(t->other[1].ncounts, 1);
	assert_null(t->other[1].name);
}

static void test_offline_cpus_by_label(void **state)
{
	/* CPU2 is offline: no column; the third column is CPU3. */
	_cleanup_interrupts_ struct interrupts *t =
	    parse_ok("           CPU0       CPU1       CPU3\n"
		     " 40:          1          2          3   PCI-MSI 1-edge  eth0-0\n");
	const struct interrupts_row *r = interrupts_find(t, 40);

	(void)state;
	assert_int_equal(t->ncpus, 3);
	assert_int_equal(t->cpus[2], 3);
	assert_int_equal(t->max_cpu, 3);
	assert_int_equal(interrupts_count_on(t, r, 3), 3);
	assert_int_equal(interrupts_count_on(t, r, 2), 0);
	assert_string_equal(r->name, "eth0-0");
}

static void test_row_forms(void **state)
{
	_cleanup_interrupts_ struct interrupts *t =
	    parse_ok("     CPU0   CPU1\n"
		     " 33:   5   6   PCI-MSI 12582912-edge      mlx5_async@pci:0000:18:00.0\n"
		     " 34:   0   0   IR-PCI-MSI 1-edge\n" /* no handler name */
		     " 35:   0   0   GICv3  27 Level     arch_timer\n"
		     " 36:   0   0   IO-APIC-edge      timer\n" /* 2.6/3.x kernels */
		     " 37:   0   0   IO-APIC   9-fasteoi   acpi, i801_smbus\n"
		     " 38:   0   0\n" /* counts only */
		     "\n"
		     "IPI0:   10   11   Rescheduling interrupts\n"
		     " PIN:   0   0\n");
	const struct interrupts_row *r;

	(void)state;
	r = interrupts_find(t, 33);
	assert_string_equal(r->chip, "PCI-MSI");
	assert_string_equal(r->hwirq, "12582912-edge");
	assert_string_equal(r->name, "mlx5_async@pci:0000:18:00.0");
	r = interrupts_find(t, 34);
	assert_string_equal(r->hwirq, "1-edge");
	assert_null(r->name);
	r = interrupts_find(t, 35);
	assert_string_equal(r->chip, "GICv3");
	assert_string_equal(r->hwirq, "27 Level");
	assert_string_equal(r->name, "arch_timer");
	r = interrupts_find(t, 36);
	assert_string_equal(r->chip, "IO-APIC-edge");
	assert_null(r->hwirq);
	assert_string_equal(r->name, "timer");
	r = interrupts_find(t, 37);
	assert_string_equal(r->hwirq, "9-fasteoi");
	assert_string_equal(r->name, "acpi, i801_smbus");
	r = interrupts_find(t, 38);
	assert_null(r->chip);
	assert_null(r->name);
	assert_int_equal(t->nother, 2);
	assert_string_equal(t->other[0].label, "IPI0");
	assert_int_equal(t->other[0].counts[1], 11);
}

static void test_malformed(void **state)
{
	(void)state;
	assert_parse_error("", 1);
	assert_parse_error("\n", 1);
	assert_parse_error("garbage\n", 1);
	assert_parse_error("  CPU0  CPUx\n", 1);
	assert_parse_error("  CPU0  CPU0\n", 1);
	assert_parse_error("  CPU0  CPU1\n 10: 1 2 chip 1-edge a\n 11: 1", 3); /* truncated last line */
	assert_parse_error("  CPU0  CPU1\n 10: 1 2 x\n 11 1 2\n", 3);	       /* no colon */
	assert_parse_error("  CPU0  CPU1\n 10: 1 2 x\n : 1 2\n", 3);	       /* empty label */
	assert_parse_error("  CPU0  CPU1\n 10: 1 2 x\n 10: 1 2 y\n", 3);       /* the same IRQ twice */
	assert_parse_error("  CPU0\n 10: 99999999999999999999999 x\n", 2);     /* count overflows u64 */
	assert_parse_error("  CPU0\n 10: 18446744073709551616 x\n", 2);	       /* UINT64_MAX + 1 */
	assert_parse_error("  CPU0\n 12: 1 x\n 10: 1 y\n 12: 1 z\n", 4);       /* twice, out of order */
	assert_parse_error("  CPU0\n 99999999999: 1 x\n", 2);		       /* IRQ number overflows */
	assert_parse_error("  CPU0\n 1 0: 1 x\n", 2);
	assert_parse_error("  CPU0  CPU8192\n", 1); /* beyond CPUSET_MAX_CPUS */
}

/* Rows out of IRQ order (not what the kernel prints) are still found,
 * and the largest count is read exactly. */
static void test_row_order(void **state)
{
	_cleanup_interrupts_ struct interrupts *t =
	    parse_ok("  CPU0\n 30: 1 a\n 10: 18446744073709551615 b\n 20: 3 c\n NMI: 4 d\n");
	_cleanup_interrupts_ struct interrupts *sorted = parse_ok("  CPU0\n 10: 1 a\n 20: 2 b\n 30: 3 c\n");

	(void)state;
	assert_false(t->ascending);
	assert_int_equal(t->nrows, 3);
	assert_string_equal(interrupts_find(t, 10)->chip, "b");
	assert_int_equal(interrupts_find(t, 10)->counts[0], UINT64_MAX);
	assert_string_equal(interrupts_find(t, 20)->chip, "c");
	assert_string_equal(interrupts_find(t, 30)->chip, "a");
	assert_null(interrupts_find(t, 15));
	assert_true(sorted->ascending);
	for (unsigned irq = 10; irq <= 30; irq += 10)
		assert_int_equal(interrupts_find(sorted, irq)->counts[0], irq / 10);
	assert_null(interrupts_find(sorted, 5));
	assert_null(interrupts_find(sorted, 25));
	assert_null(interrupts_find(sorted, 35));
}

/* A 320-CPU host with CPUs 100-109 offline. */
static void test_large_host(void **state)
{
	size_t cap = 64 * 1024, n = 0;
	_cleanup_free_ char *text = malloc(cap);
	_cleanup_interrupts_ struct interrupts *t = NULL;
	const struct interrupts_row *r;

	(void)state;
	assert_non_null(text);
	n += (size_t)sprintf(text + n, "     ");
	for (unsigned c = 0; c < 320; c++)
		if (c < 100 || c >= 110)
			n += (size_t)sprintf(text + n, " CPU%-7u", c);
	n += (size_t)sprintf(text + n, "\n 500:");
	for (unsigned c = 0; c < 320; c++)
		if (c < 100 || c >= 110)
			n += (size_t)sprintf(text + n, " %10u", c == 299 ? 4294967295u : c);
	n += (size_t)sprintf(text + n, "  IR-PCI-MSIX-0000:af:00.0   5-edge  mlx5_comp4@pci:0000:af:00.0\n");
	assert_true(n < cap);
	t = parse_ok(text);
	assert_int_equal(t->ncpus, 310);
	assert_int_equal(t->max_cpu, 319);
	r = interrupts_find(t, 500);
	assert_int_equal(interrupts_count_on(t, r, 299), 4294967295u);
	assert_int_equal(interrupts_count_on(t, r, 110), 110);
	assert_int_equal(interrupts_count_on(t, r, 105), 0);
	assert_string_equal(r->name, "mlx5_comp4@pci:0000:af:00.0");
}

static void test_fixture_tables(void **state)
{
	static const char *const names[] = {"cx5-2port", "cx5-8node", "cx5-nonuma"};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		_cleanup_free_ char *dir = strprintf(FIXTURES "/%s", names[i]);
		_cleanup_interrupts_ struct interrupts *t = NULL;
		unsigned line = 0;

		assert_int_equal(sysroot_set(dir), 0);
		assert_int_equal(interrupts_read(0, &t, &line), 0);
		assert_true(t->nrows > 0);
		assert_true(t->nother > 0);
	}
	assert_int_equal(sysroot_set(NULL), 0);
}

/* The table read in pieces equals the same text parsed whole: rows,
 * names, counts, or the error and its line. */
static void assert_read_like_parse(const char *text)
{
	char dir[] = "/tmp/cx5t-intr-XXXXXX";
	_cleanup_interrupts_ struct interrupts *whole = NULL, *read = NULL, *bare = NULL;
	_cleanup_free_ char *cmd = NULL, *path = NULL;
	unsigned line_whole = 0, line_read = 0;
	int r_whole, r_read;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	cmd = strprintf("mkdir -p %s/proc", dir);
	assert_int_equal(system(cmd), 0);
	path = strprintf("%s/proc/interrupts", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	fclose(f);
	assert_int_equal(sysroot_set(dir), 0);
	r_whole = interrupts_parse(text, &whole, &line_whole);
	r_read = interrupts_read(0, &read, &line_read);
	assert_int_equal(r_read, r_whole);
	if (r_whole < 0) {
		assert_int_equal(line_read, line_whole);
	} else {
		assert_int_equal(interrupts_read(INTERRUPTS_NO_COUNTS, &bare, NULL), 0);
		assert_int_equal(read->ncpus, whole->ncpus);
		assert_int_equal(read->nrows, whole->nrows);
		assert_int_equal(read->nother, whole->nother);
		assert_int_equal(bare->nrows, whole->nrows);
		for (size_t i = 0; i < whole->nrows; i++) {
			const struct interrupts_row *a = &whole->rows[i], *b = &read->rows[i],
						    *c = &bare->rows[i];

			assert_int_equal(b->irq, a->irq);
			assert_int_equal(c->irq, a->irq);
			assert_string_equal(strna(b->name), strna(a->name));
			assert_string_equal(strna(c->name), strna(a->name));
			assert_int_equal(b->ncounts, a->ncounts);
			assert_memory_equal(b->counts, a->counts, a->ncounts * sizeof(uint64_t));
			assert_null(c->counts);
			assert_int_equal(c->ncounts, 0);
		}
	}
	assert_int_equal(sysroot_set(NULL), 0);
	free(cmd);
	cmd = strprintf("rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* Tables bigger than the read's 64 KiB pieces: lines cut across pieces,
 * a line longer than a piece, no final newline, a NUL, an error far in. */
static void test_read_in_pieces(void **state)
{
	size_t cap = 4 << 20, n = 0;
	_cleanup_free_ char *text = malloc(cap);
	static const unsigned ncpus[] = {320, 7000}, nrows[] = {300, 3};

	(void)state;
	assert_non_null(text);
	for (size_t k = 0; k < ARRAY_SIZE(ncpus); k++) {
		n = (size_t)sprintf(text, "    ");
		for (unsigned c = 0; c < ncpus[k]; c++)
			n += (size_t)sprintf(text + n, " CPU%-7u", c);
		for (unsigned irq = 30; irq < 30 + nrows[k]; irq++) {
			n += (size_t)sprintf(text + n, "\n %u:", irq);
			for (unsigned c = 0; c < ncpus[k]; c++)
				n +=
				    (size_t)sprintf(text + n, " %10u", (irq * 7 + c) % 13 == 0 ? irq * c : 0);
			n += (size_t)sprintf(
			    text + n, "  IR-PCI-MSIX-0000:af:00.0 %u-edge  mlx5_comp%u@pci:0000:af:00.0", irq,
			    irq - 30);
			assert_true(n < cap - 100000);
		}
		assert_read_like_parse(text); /* no final newline */
		n += (size_t)sprintf(text + n, "\n NMI: 1 2 Non-maskable interrupts\n");
		assert_read_like_parse(text);
	}
	/* Only the text before a NUL counts, as in a C string. */
	assert_read_like_parse("  CPU0 CPU1\n 10: 1 2 a\n 11: 3 4 b\0 12: 5 6 c\n");
	/* An error past the first piece reports its own line. */
	n = (size_t)sprintf(text, "  CPU0\n");
	for (unsigned irq = 0; irq < 20000; irq++)
		n += (size_t)sprintf(text + n, " %u: %u x\n", irq, irq);
	sprintf(text + n, " 20000: bad x\n");
	assert_read_like_parse(text);
	assert_read_like_parse("");
	assert_read_like_parse("\n");
}

static void assert_class(const char *name, const char *ifname, const char *bdf, bool ok, enum irq_kind kind,
			 int queue)
{
	enum irq_kind k = _IRQ_KIND_MAX;
	int q = -100;

	if (irq_classify(name, ifname, bdf, &k, &q) != ok)
		fail_msg("%s: classify %s", name, ok ? "failed" : "matched");
	if (!ok)
		return;
	if (k != kind || q != queue)
		fail_msg("%s: kind %d queue %d, want %d %d", name, k, q, kind, queue);
}

static void test_classify(void **state)
{
	const char *b = "0000:af:00.0";

	(void)state;
	assert_class("mlx5_comp0@pci:0000:af:00.0", NULL, b, true, IRQ_KIND_COMPLETION, 0);
	assert_class("mlx5_comp15@pci:0000:af:00.0", NULL, b, true, IRQ_KIND_COMPLETION, 15);
	assert_class("mlx5_comp15@pci:0000:af:00.1", NULL, b, false, 0, 0);
	assert_class("mlx5_comp15@pci:0000:af:00.1", NULL, NULL, true, IRQ_KIND_COMPLETION, 15);
	assert_class("mlx5_async0@pci:0000:af:00.0", NULL, b, true, IRQ_KIND_ASYNC, -1);
	assert_class("mlx5_async@pci:0000:af:00.0", NULL, b, true, IRQ_KIND_ASYNC, -1);
	assert_class("mlx5_async_eq@pci:0000:af:00.0", NULL, b, true, IRQ_KIND_ASYNC, -1);
	assert_class("mlx5_pages_eq@pci:0000:af:00.0", NULL, b, true, IRQ_KIND_CONTROL, -1);
	assert_class("mlx5_cmd_eq@pci:0000:af:00.0", NULL, b, true, IRQ_KIND_CONTROL, -1);
	assert_class("mlx5_combined0@pci:0000:af:00.0", NULL, b, true, IRQ_KIND_COMPLETION, 0);
	assert_class("mlx5_sf_comp3@pci:0000:af:00.0", NULL, b, true, IRQ_KIND_COMPLETION, 3);
	assert_class("mlx5_sf_ctrl0@pci:0000:af:00.0", NULL, b, true, IRQ_KIND_CONTROL, -1);
	assert_class("mlx5_comp0", NULL, NULL, true, IRQ_KIND_COMPLETION, 0);
	assert_class("ens1f0-3", "ens1f0", b, true, IRQ_KIND_COMPLETION, 3);
	assert_class("ens1f0-3", "ens1f1", b, false, 0, 0);
	assert_class("ens1f0-", "ens1f0", b, false, 0, 0);
	assert_class("eno1-TxRx-0", "eno1", NULL, false, 0, 0);
	assert_class("mlx5_compX@pci:0000:af:00.0", NULL, b, false, 0, 0);
	assert_class("mlx5_comp@pci:0000:af:00.0", NULL, b, false, 0, 0);
	assert_class("mlx5_comp1@usb:1", NULL, NULL, false, 0, 0);
	assert_class(NULL, NULL, NULL, false, 0, 0);
	assert_string_equal(irq_kind_to_string(IRQ_KIND_COMPLETION), "completion");
	assert_string_equal(irq_kind_to_string(IRQ_KIND_CONTROL), "control");
	assert_null(irq_kind_to_string(_IRQ_KIND_MAX));
}

static void test_discover_2port(void **state)
{
	_cleanup_irq_list_ struct irq_list *l = NULL, *l1 = NULL, *lo = NULL;
	const struct irq_vector *v;
	_cleanup_free_ char *aff = NULL;

	(void)state;
	assert_int_equal(sysroot_set(FIXTURES "/cx5-2port"), 0);
	assert_int_equal(irq_discover("ens1f0", NULL, ALL, &l), 0);
	assert_string_equal(l->pci_bdf, "0000:af:00.0");
	assert_int_equal(l->n, 17);
	assert_int_equal(irq_list_count(l, IRQ_KIND_COMPLETION), 16);
	assert_int_equal(irq_list_count(l, IRQ_KIND_ASYNC), 1);
	/* sorted: completions by queue, then the rest */
	assert_int_equal(l->v[0].queue, 0);
	assert_int_equal(l->v[0].irq, 99);
	assert_int_equal(l->v[1].irq, 109); /* numbers are not contiguous */
	assert_int_equal(l->v[16].kind, IRQ_KIND_ASYNC);
	assert_int_equal(l->v[16].irq, 98);
	v = irq_list_by_queue(l, 15);
	assert_non_null(v);
	assert_int_equal(v->irq, 123);
	assert_string_equal(v->name, "mlx5_comp15@pci:0000:af:00.0");
	assert_true(v->has_affinity);
	assert_int_equal(cpuset_format_list(&v->affinity, &aff), 0);
	assert_string_equal(aff, "0");
	assert_int_equal(v->ncounts, 32);
	assert_null(irq_list_by_queue(l, 16));
	assert_ptr_equal(irq_list_by_irq(l, 98), &l->v[16]);

	assert_int_equal(irq_discover("ens1f1", NULL, ALL, &l1), 0);
	assert_string_equal(l1->pci_bdf, "0000:af:00.1");
	assert_int_equal(irq_list_count(l1, IRQ_KIND_COMPLETION), 16);
	assert_int_equal(irq_list_by_queue(l1, 0)->irq, 127);

	assert_int_equal(irq_discover("lo", NULL, ALL, &lo), 0); /* virtual: no IRQs */
	assert_int_equal(lo->n, 0);
	assert_null(lo->pci_bdf);
	assert_int_equal(irq_discover("nope0", NULL, ALL, &lo), -ENODEV);
	assert_int_equal(irq_discover("../x", NULL, ALL, &lo), -EINVAL);
	assert_int_equal(sysroot_set(NULL), 0);
}

static void test_discover_8node_and_ofed(void **state)
{
	_cleanup_irq_list_ struct irq_list *l = NULL, *o = NULL;

	(void)state;
	assert_int_equal(sysroot_set(FIXTURES "/cx5-8node"), 0);
	assert_int_equal(irq_discover("enp216s0f0np0", NULL, ALL, &l), 0);
	assert_int_equal(irq_list_count(l, IRQ_KIND_COMPLETION), 63);
	assert_int_equal(irq_list_count(l, IRQ_KIND_CONTROL), 2); /* pages_eq, cmd_eq */
	assert_int_equal(irq_list_count(l, IRQ_KIND_ASYNC), 1);	  /* async_eq */
	assert_int_equal(irq_list_by_queue(l, 62)->irq, 232);
	/* 95 columns: CPU 47 offline has none, counts are indexed by CPU number */
	assert_int_equal(l->v[0].ncounts, 96);
	assert_int_equal(l->v[0].counts[47], 0);

	assert_int_equal(sysroot_set(FIXTURES "/cx5-nonuma"), 0);
	assert_int_equal(irq_discover("ens1f0", NULL, ALL, &o), 0);
	/* OFED <ifname>-<n> completions, older mlx5_async@pci */
	assert_int_equal(irq_list_count(o, IRQ_KIND_COMPLETION), 4);
	assert_int_equal(irq_list_count(o, IRQ_KIND_ASYNC), 1);
	assert_string_equal(irq_list_by_queue(o, 3)->name, "ens1f0-3");
	assert_int_equal(irq_list_by_queue(o, 0)->irq, 37);
	assert_int_equal(sysroot_set(NULL), 0);
}

/* Each flag reads only what it names: planning (affinity) and the
 * rollback's ownership check (nothing) skip the other files. */
static void test_discover_flags(void **state)
{
	_cleanup_irq_list_ struct irq_list *bare = NULL, *aff = NULL, *all = NULL;

	(void)state;
	assert_int_equal(sysroot_set(FIXTURES "/cx5-2port"), 0);
	assert_int_equal(irq_discover("ens1f0", NULL, 0, &bare), 0);
	assert_int_equal(irq_discover("ens1f0", NULL, IRQ_DISCOVER_AFFINITY, &aff), 0);
	assert_int_equal(irq_discover("ens1f0", NULL, ALL, &all), 0);
	assert_int_equal(bare->n, 17);
	assert_int_equal(aff->n, 17);
	assert_int_equal(irq_list_by_queue(bare, 15)->irq, 123);
	assert_false(bare->v[0].has_affinity);
	assert_false(bare->v[0].has_effective);
	assert_null(bare->v[0].counts);
	assert_true(aff->v[0].has_affinity);
	assert_false(aff->v[0].has_effective);
	assert_null(aff->v[0].counts);
	assert_int_equal(aff->v[0].total, 0);
	assert_true(all->v[0].has_affinity);
	assert_true(all->v[0].has_effective);
	assert_int_equal(all->v[0].ncounts, 32);
	assert_int_equal(sysroot_set(NULL), 0);
}

static void write_file(const char *dir, const char *rel, const char *content)
{
	_cleanup_free_ char *p = strprintf("%s%s", dir, rel);
	FILE *f;

	assert_non_null(p);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static void test_write_affinity(void **state)
{
	char dir[] = "/tmp/cx5t-irq-XXXXXX";
	_cleanup_cpuset_ struct cpuset want = CPUSET_INIT, got = CPUSET_INIT;
	_cleanup_free_ char *cmd = NULL, *p = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	p = strprintf("%s/proc/irq/99", dir);
	assert_int_equal(system(cmd = strprintf("mkdir -p %s %s/proc/irq/100 %s/proc/irq/101", p, dir, dir)),
			 0);
	write_file(dir, "/proc/irq/99/smp_affinity_list", "0-31\n");
	write_file(dir, "/proc/irq/99/smp_affinity", "ffffffff\n");
	write_file(dir, "/proc/irq/100/smp_affinity", "00000000,003f0000\n"); /* mask only */
	/* a symlink to a host file: never written through under a sysroot */
	free(p);
	p = strprintf("%s/proc/irq/101/smp_affinity_list", dir);
	assert_int_equal(symlink("/dev/null", p), 0);
	assert_int_equal(sysroot_set(dir), 0);

	assert_int_equal(irq_read_affinity(99, &got), 0);
	assert_int_equal(cpuset_count(&got), 32);
	assert_int_equal(irq_read_affinity(100, &got), 0);
	assert_int_equal(cpuset_count(&got), 6);
	assert_true(cpuset_has(&got, 16));

	assert_int_equal(cpuset_parse_list("8", &want), 0);
	assert_int_equal(irq_write_affinity(99, &want), 1);
	assert_int_equal(irq_read_affinity(99, &got), 0);
	assert_true(cpuset_equal(&got, &want));
	assert_int_equal(irq_write_affinity(99, &want), 0); /* already so */
	assert_int_equal(irq_write_affinity(101, &want), -ELOOP);
	assert_int_equal(irq_write_affinity(100, &want), -ENOENT); /* no smp_affinity_list */
	assert_int_equal(irq_write_affinity(12345, &want), -ENOENT);
	cpuset_clear(&want);
	assert_int_equal(irq_write_affinity(99, &want), -EINVAL);

	assert_int_equal(sysroot_set(NULL), 0);
	free(cmd);
	cmd = strprintf("rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* A copied sysroot whose files or directories lead out of it (a final
 * symlink to /etc/shadow, /proc/irq/<n> a link to a host directory): the
 * write is refused and the outside file keeps its content. */
static void test_write_stays_in_sysroot(void **state)
{
	char dir[] = "/tmp/cx5t-irqsr-XXXXXX", out[] = "/tmp/cx5t-irqout-XXXXXX";
	_cleanup_cpuset_ struct cpuset want = CPUSET_INIT;
	_cleanup_free_ char *cmd = NULL, *link1 = NULL, *link2 = NULL, *target = NULL, *text = NULL;
	_cleanup_free_ char *outfile = NULL, *inside = NULL;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_non_null(mkdtemp(out));
	cmd = strprintf("mkdir -p %s/proc/irq/98 %s/proc/irq/97", dir, dir);
	assert_int_equal(system(cmd), 0);
	write_file(out, "/shadow", "root:secret\n");
	write_file(out, "/smp_affinity_list", "0-31\n");
	write_file(dir, "/proc/irq/97/smp_affinity_list", "0-31\n");
	/* the file itself a symlink out of the sysroot */
	link1 = strprintf("%s/proc/irq/98/smp_affinity_list", dir);
	target = strprintf("%s/shadow", out);
	assert_int_equal(symlink(target, link1), 0);
	/* the IRQ's directory a symlink out of the sysroot */
	link2 = strprintf("%s/proc/irq/99", dir);
	assert_int_equal(symlink(out, link2), 0);
	/* a symlinked directory that stays inside is fine */
	inside = strprintf("%s/proc/irq/100", dir);
	assert_int_equal(symlink("97", inside), 0);
	assert_int_equal(sysroot_set(dir), 0);

	assert_int_equal(cpuset_parse_list("8", &want), 0);
	assert_int_equal(irq_write_affinity(98, &want), -ELOOP);
	assert_int_equal(irq_write_affinity(99, &want), -EXDEV);
	assert_int_equal(sysroot_write("/proc/irq/98/smp_affinity_list", "8\n"), -ELOOP);
	assert_int_equal(sysroot_write("/proc/irq/99/smp_affinity_list", "8\n"), -EXDEV);
	assert_int_equal(irq_write_affinity(100, &want), 1);
	/* reads are confined the same way: the outside files are never read */
	{
		_cleanup_cpuset_ struct cpuset got = CPUSET_INIT;
		_cleanup_strv_free_ char **names = NULL;
		_cleanup_free_ char *s = NULL;
		struct stat st;

		assert_int_equal(irq_read_affinity(99, &got), -EXDEV);
		assert_int_equal(sysroot_read_all("/proc/irq/98/smp_affinity_list", &s, NULL), -EXDEV);
		assert_int_equal(sysroot_stat("/proc/irq/99", true, &st), -EXDEV);
		assert_int_equal(sysroot_listdir("/proc/irq/99", &names), -EXDEV);
		assert_true(sysroot_exists("/proc/irq/99/smp_affinity_list")); /* there, out of reach */
		assert_int_equal(sysroot_stat("/proc/irq/98/smp_affinity_list", false, &st), 0);
		assert_true(S_ISLNK(st.st_mode));
		assert_int_equal(irq_read_affinity(100, &got), 0); /* a link that stays inside */
		assert_true(cpuset_equal(&got, &want));
	}
	assert_int_equal(sysroot_read_all("/proc/irq/97/smp_affinity_list", &text, NULL), 0);
	assert_string_equal(text, "8\n");
	assert_int_equal(sysroot_set(NULL), 0);

	free(text);
	text = NULL;
	f = fopen(target, "r");
	assert_non_null(f);
	assert_true(getdelim(&text, &(size_t){0}, '\0', f) > 0);
	fclose(f);
	assert_string_equal(text, "root:secret\n");
	outfile = strprintf("%s/smp_affinity_list", out);
	free(text);
	text = NULL;
	f = fopen(outfile, "r");
	assert_non_null(f);
	assert_true(getdelim(&text, &(size_t){0}, '\0', f) > 0);
	fclose(f);
	assert_string_equal(text, "0-31\n");
	/* the live host ("/") is not confined */
	assert_int_equal(sysroot_confine("/proc/irq/0/smp_affinity_list"), 0);

	free(cmd);
	cmd = strprintf("rm -rf %s %s", dir, out);
	assert_int_equal(system(cmd), 0);
}

static void test_in_memory_list(void **state)
{
	_cleanup_irq_list_ struct irq_list *l = NULL;

	(void)state;
	assert_int_equal(irq_list_new("ens1f0", "0000:af:00.0", &l), 0);
	assert_int_equal(irq_list_add(l, 50, "mlx5_comp1@pci:0000:af:00.0", "3"), 0);
	assert_int_equal(irq_list_add(l, 40, "mlx5_async0@pci:0000:af:00.0", NULL), 0);
	assert_int_equal(irq_list_add(l, 60, "mlx5_comp0@pci:0000:af:00.0", "0-3,8"), 0);
	assert_int_equal(irq_list_add(l, 61, "something-else", NULL), 0);
	assert_int_equal(irq_list_add(l, 61, "dup", NULL), -EEXIST);
	assert_int_equal(irq_list_add(l, 62, "mlx5_comp2@pci:0000:af:00.0", "x"), -EINVAL);
	assert_int_equal(l->n, 4);
	assert_int_equal(l->v[0].irq, 60);
	assert_int_equal(l->v[1].irq, 50);
	assert_int_equal(l->v[2].irq, 40);
	assert_int_equal(l->v[3].kind, IRQ_KIND_CONTROL);
	assert_int_equal(cpuset_count(&l->v[0].affinity), 5);
}

static char *map_of(const char *const *affinity, size_t n)
{
	_cleanup_irq_list_ struct irq_list *l = NULL;
	char name[64], *map = NULL;

	assert_int_equal(irq_list_new("ens1f0", "0000:af:00.0", &l), 0);
	assert_int_equal(irq_list_add(l, 30, "mlx5_async0@pci:0000:af:00.0", "0"), 0);
	for (size_t q = 0; q < n; q++) {
		snprintf(name, sizeof(name), "mlx5_comp%zu@pci:0000:af:00.0", q);
		assert_int_equal(irq_list_add(l, 100 + (unsigned)q, name, affinity[q]), 0);
	}
	assert_int_equal(irq_list_format_map(l, &map), 0);
	return map;
}

/* The IRQ map of a run: ranges, never cut mid-token (issue 16). */
static void test_format_map(void **state)
{
	static const char *const spread[] = {"8", "9", "10", "11", "12", "13", "14", "15"};
	static const char *const piled[] = {"0", "0", "0", "0"};
	static const char *const mixed[] = {"8", "9", "0-15", "0-15", "24", "3", "4", "4"};
	_cleanup_free_ char *a = map_of(spread, 8), *b = map_of(piled, 4), *c = map_of(mixed, 8),
			    *d = map_of(spread, 1), *e = map_of(spread, 0);
	_cleanup_irq_list_ struct irq_list *l = NULL;
	_cleanup_free_ char *f = NULL;

	(void)state;
	assert_string_equal(a, "mlx5_comp0-7 -> 8-15");
	assert_string_equal(b, "mlx5_comp0-3 -> 0");
	assert_string_equal(
	    c, "mlx5_comp0-1 -> 8-9, mlx5_comp2-3 -> 0-15, mlx5_comp4 -> 24, mlx5_comp5-6 -> 3-4, "
	       "mlx5_comp7 -> 4");
	assert_string_equal(d, "mlx5_comp0 -> 8");
	assert_string_equal(e, "");
	/* vectors without a handler name are labelled by queue */
	assert_int_equal(irq_list_new("eth0", NULL, &l), 0);
	l->v = calloc(2, sizeof(*l->v));
	assert_non_null(l->v);
	l->n = 2;
	for (int q = 0; q < 2; q++) {
		l->v[q] = (struct irq_vector){
		    .irq = 40 + (unsigned)q, .kind = IRQ_KIND_COMPLETION, .queue = q, .has_affinity = true};
		assert_int_equal(cpuset_add(&l->v[q].affinity, 6 + (unsigned)q), 0);
	}
	assert_int_equal(irq_list_format_map(l, &f), 0);
	assert_string_equal(f, "q0-1 -> 6-7");
}

/* Deterministic mutations of a real table (truncation, byte changes,
 * deleted ranges): the parser returns 0 or -EINVAL with a line number,
 * never crashes (run under `make asan` too). */
static void test_mutations(void **state)
{
	_cleanup_free_ char *orig = NULL;
	static const char alphabet[] = " :\n\t0123456789abcfxCPU-@,";
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	size_t len = 0;

	(void)state;
	assert_int_equal(sysroot_set(FIXTURES "/cx5-nonuma"), 0);
	assert_int_equal(sysroot_read_all("/proc/interrupts", &orig, &len), 0);
	assert_int_equal(sysroot_set(NULL), 0);
	for (int round = 0; round < 3000; round++) {
		_cleanup_free_ char *m = strdup(orig);
		struct interrupts *t = NULL;
		size_t n = len;
		unsigned line = 0;
		int r;

		assert_non_null(m);
		for (int k = 0; k < 1 + round % 4; k++) {
			size_t pos;
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			pos = n ? (size_t)(seed >> 33) % n : 0;
			switch ((seed >> 20) % 3) {
			case 0: /* truncate */
				m[pos] = '\0';
				n = pos;
				break;
			case 1: /* change a byte */
				if (n)
					m[pos] = alphabet[(seed >> 8) % (sizeof(alphabet) - 1)];
				break;
			default: /* delete up to 40 bytes */
				if (n) {
					size_t d = 1 + (seed >> 12) % 40;
					if (pos + d > n)
						d = n - pos;
					memmove(m + pos, m + pos + d, n - pos - d + 1);
					n -= d;
				}
			}
		}
		r = interrupts_parse(m, &t, &line);
		if (r == 0) {
			assert_non_null(t);
			interrupts_free(t);
		} else {
			assert_int_equal(r, -EINVAL);
			assert_true(line >= 1);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reference_lines),
	    cmocka_unit_test(test_offline_cpus_by_label),
	    cmocka_unit_test(test_row_forms),
	    cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_row_order),
	    cmocka_unit_test(test_large_host),
	    cmocka_unit_test(test_fixture_tables),
	    cmocka_unit_test(test_read_in_pieces),
	    cmocka_unit_test(test_classify),
	    cmocka_unit_test(test_discover_2port),
	    cmocka_unit_test(test_discover_8node_and_ofed),
	    cmocka_unit_test(test_discover_flags),
	    cmocka_unit_test(test_write_affinity),
	    cmocka_unit_test(test_write_stays_in_sysroot),
	    cmocka_unit_test(test_in_memory_list),
	    cmocka_unit_test(test_format_map),
	    cmocka_unit_test(test_mutations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
