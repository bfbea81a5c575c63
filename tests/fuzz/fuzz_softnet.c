/* fuzz_softnet.c: the /proc/net/softnet_stat parser (engine/os/softnet.h).
 *
 * Contract checked: failure is -EINVAL with a line number inside the text,
 * -ENODATA for no line, or -ENOMEM, and *ret untouched; a parsed table has
 * SOFTNET_MIN_COLUMNS..SOFTNET_MAX_COLUMNS columns, at least one line, no
 * CPU twice and every CPU below SOFTNET_MAX_CPUS. */
#include <errno.h>

#include "fuzz.h"
#include "os/softnet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *text = fuzz_strndup(data, size);
	struct softnet *t = NULL;
	unsigned line = 0;
	int r;

	r = softnet_parse(text, &t, &line);
	if (r < 0) {
		fuzz_check(r == -EINVAL || r == -ENODATA || r == -ENOMEM);
		fuzz_check(t == NULL);
		if (r == -EINVAL)
			fuzz_check(line >= 1 && line <= fuzz_count_lines(text));
		return 0;
	}
	fuzz_check(t && t->n >= 1);
	fuzz_check(t->columns >= SOFTNET_MIN_COLUMNS && t->columns <= SOFTNET_MAX_COLUMNS);
	for (size_t i = 0; i < t->n; i++) {
		fuzz_check(t->cpu[i].cpu < SOFTNET_MAX_CPUS);
		for (size_t k = 0; k < i; k++)
			fuzz_check(t->cpu[k].cpu != t->cpu[i].cpu);
	}
	free(t);
	return 0;
}
