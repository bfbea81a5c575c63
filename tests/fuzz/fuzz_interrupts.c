/* fuzz_interrupts.c: the /proc/interrupts parser (engine/os/interrupts.h).
 *
 * Contract checked: failure is -EINVAL with a line number inside the text
 * (or -ENOMEM); a parsed table has one count per header column on every
 * numeric row, no IRQ twice, and every lookup stays in bounds. */
#include <errno.h>

#include "fuzz.h"
#include "os/interrupts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_interrupts_ struct interrupts *t = NULL;
	_cleanup_free_ char *text = fuzz_strndup(data, size);
	unsigned line = 0;
	int r;

	r = interrupts_parse(text, &t, &line);
	if (r < 0) {
		fuzz_check(r == -EINVAL || r == -ENOMEM);
		fuzz_check(t == NULL);
		if (r == -EINVAL)
			fuzz_check(line >= 1 && line <= fuzz_count_lines(text));
		return 0;
	}
	fuzz_check(t && t->ncpus > 0);
	for (unsigned i = 0; i < t->ncpus; i++)
		fuzz_check(t->cpus[i] <= t->max_cpu);
	for (size_t i = 0; i < t->nrows; i++) {
		const struct interrupts_row *row = &t->rows[i];

		fuzz_check(row->numeric && row->label && row->ncounts == t->ncpus);
		fuzz_check(interrupts_find(t, row->irq) == row);
		(void)interrupts_row_total(row);
		for (unsigned c = 0; c <= t->max_cpu + 1 && c < 4096; c++)
			(void)interrupts_count_on(t, row, c);
	}
	for (size_t i = 0; i < t->nother; i++) {
		fuzz_check(!t->other[i].numeric && t->other[i].ncounts <= t->ncpus);
		(void)interrupts_row_total(&t->other[i]);
		(void)interrupts_count_on(t, &t->other[i], 0);
	}
	return 0;
}
