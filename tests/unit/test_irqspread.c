/* test_irqspread.c: interrupt and softirq deltas over a run: planned share,
 * busiest CPU, softirq saturation, and "unknown" (never 0) without data. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>

#include "bench/irqspread.h"

static const char intr_before[] =
    "           CPU0       CPU1       CPU2       CPU3\n"
    "  98:         10          0          0          0  IR-PCI-MSIX-0000:01:00.0    0-edge      "
    "mlx5_async0@pci:0000:01:00.0\n"
    "  99:        100          0          0          0  IR-PCI-MSIX-0000:01:00.0    1-edge      "
    "mlx5_comp0@pci:0000:01:00.0\n"
    " 109:          0        200          0          0  IR-PCI-MSIX-0000:01:00.0    2-edge      "
    "mlx5_comp1@pci:0000:01:00.0\n"
    "NMI:          0          0          0          0   Non-maskable interrupts\n";
static const char intr_after[] =
    "           CPU0       CPU1       CPU2       CPU3\n"
    "  98:         50          0          0          0  IR-PCI-MSIX-0000:01:00.0    0-edge      "
    "mlx5_async0@pci:0000:01:00.0\n"
    "  99:        100          0        700          0  IR-PCI-MSIX-0000:01:00.0    1-edge      "
    "mlx5_comp0@pci:0000:01:00.0\n"
    " 109:          0        300          0          0  IR-PCI-MSIX-0000:01:00.0    2-edge      "
    "mlx5_comp1@pci:0000:01:00.0\n"
    "NMI:          0          0          0          0   Non-maskable interrupts\n";
static const char stat_before[] = "cpu  100 0 100 3700 0 0 100 0 0 0\n"
				  "cpu0 100 0 100 700 0 0 100 0 0 0\n"
				  "cpu1 0 0 0 1000 0 0 0 0 0 0\n"
				  "cpu2 0 0 0 1000 0 0 0 0 0 0\n"
				  "cpu3 0 0 0 1000 0 0 0 0 0 0\n"
				  "intr 12345\nctxt 1\nsoftirq 1 2 3\n";
static const char stat_after[] = "cpu  150 0 150 6100 0 0 500 0 0 0\n"
				 "cpu0 150 0 150 1300 0 0 400 0 0 0\n"
				 "cpu1 0 0 0 1900 0 0 100 0 0 0\n"
				 "cpu2 0 0 0 1000 0 0 0 0 0 0\n"
				 "cpu3 0 0 0 1900 0 0 100 0 0 0\n"
				 "intr 12345\n";

#define assert_near(a, b) assert_true(fabs((a) - (b)) < 1e-9)

static void test_procstat(void **state)
{
	struct proc_stat *s = NULL;

	(void)state;
	assert_int_equal(procstat_parse(stat_before, &s), 0);
	assert_int_equal(s->n, 4);
	assert_int_equal(s->cpu[0].cpu, 0);
	assert_int_equal(s->cpu[0].softirq, 100);
	assert_int_equal(s->cpu[0].total, 1000);
	procstat_free(s);
	/* An old kernel's 7 columns (no steal) are enough. */
	assert_int_equal(procstat_parse("cpu0 1 2 3 4 5 6 7\n", &s), 0);
	assert_int_equal(s->cpu[0].softirq, 7);
	assert_int_equal(s->cpu[0].total, 28);
	procstat_free(s);
	assert_int_equal(procstat_parse("cpu0 1 2 3\n", &s), -EINVAL);
	assert_int_equal(procstat_parse("cpu0 1 2 x 4 5 6 7\n", &s), -EINVAL);
	assert_int_equal(procstat_parse("intr 1\n", &s), -EINVAL);
	assert_int_equal(procstat_parse(NULL, &s), -EINVAL);
}

static void test_spread(void **state)
{
	struct irqspread_snapshot b, a;
	struct irqspread_irq irqs[2] = {{.irq = 99, .planned = CPUSET_INIT},
					{.irq = 109, .planned = CPUSET_INIT}};
	struct irqspread_result r;

	(void)state;
	assert_int_equal(irqspread_snapshot_from_text(intr_before, stat_before, &b), 0);
	assert_int_equal(irqspread_snapshot_from_text(intr_after, stat_after, &a), 0);
	assert_int_equal(b.interrupts_r, 0);
	assert_int_equal(b.stat_r, 0);
	assert_int_equal(cpuset_parse_list("2", &irqs[0].planned), 0);
	assert_int_equal(cpuset_parse_list("3", &irqs[1].planned), 0);

	assert_int_equal(irqspread_compute(&b, &a, irqs, 2, &r), 0);
	assert_int_equal(r.interrupts, 800);  /* the async IRQ 98 is not watched */
	assert_near(r.planned_percent, 87.5); /* 700 of 800 on IRQ 99's CPU 2 */
	assert_int_equal(r.max_cpu, 2);
	assert_near(r.max_cpu_percent, 87.5);
	assert_int_equal(r.softirq_max_cpu, 0);
	assert_near(r.softirq_max_percent, 30.0); /* 300 of 1000 jiffies */
	/* CPUs 0..3: 0 (softirq), 1 (irqs, softirq), 2 (irqs, planned), 3 (planned, softirq) */
	assert_int_equal(r.ncpus, 4);
	assert_int_equal(r.cpus[1].interrupts, 100);
	assert_near(r.cpus[1].irq_percent, 12.5);
	assert_near(r.cpus[1].softirq_percent, 10.0);
	assert_true(r.cpus[2].planned);
	assert_true(r.cpus[2].softirq_percent < 0); /* no time passed on CPU 2 */
	assert_false(r.cpus[1].planned);
	irqspread_result_done(&r);

	/* Without plans: the share on planned CPUs is unknown, not 0. */
	cpuset_clear(&irqs[0].planned);
	cpuset_clear(&irqs[1].planned);
	assert_int_equal(irqspread_compute(&b, &a, irqs, 2, &r), 0);
	assert_true(r.planned_percent < 0);
	assert_near(r.max_cpu_percent, 87.5);
	irqspread_result_done(&r);

	/* A static sysroot: no interrupts, no time: everything unknown. */
	assert_int_equal(irqspread_compute(&b, &b, irqs, 2, &r), 0);
	assert_int_equal(r.interrupts, 0);
	assert_true(r.planned_percent < 0);
	assert_true(r.max_cpu_percent < 0);
	assert_int_equal(r.max_cpu, -1);
	assert_true(r.softirq_max_percent < 0);
	irqspread_result_done(&r);

	cpuset_done(&irqs[0].planned);
	cpuset_done(&irqs[1].planned);
	irqspread_snapshot_done(&a);
	irqspread_snapshot_done(&b);
}

static void test_missing_files(void **state)
{
	struct irqspread_snapshot none, b;
	struct irqspread_result r;

	(void)state;
	assert_int_equal(irqspread_snapshot_from_text(NULL, NULL, &none), 0);
	assert_int_equal(none.interrupts_r, -ENOENT);
	assert_int_equal(irqspread_snapshot_from_text(intr_before, "garbage\n", &b), 0);
	assert_int_equal(b.stat_r, -EINVAL);
	assert_int_equal(irqspread_compute(&none, &b, NULL, 0, &r), 0);
	assert_true(r.max_cpu_percent < 0);
	assert_true(r.softirq_max_percent < 0);
	irqspread_result_done(&r);
	irqspread_snapshot_done(&b);
	irqspread_snapshot_done(&none);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_procstat),
	    cmocka_unit_test(test_spread),
	    cmocka_unit_test(test_missing_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
