/* fuzz_snmp.c: the /proc/net/snmp and /proc/net/snmp6 parsers
 * (engine/os/snmp.h). Byte 0 even: snmp_parse() of the rest, odd:
 * snmp6_parse().
 *
 * Contract checked: failure is -EINVAL with a line number inside the text
 * (or -ENOMEM) and *ret untouched; a parsed table holds names of
 * [A-Za-z0-9_], and snmp_get finds each. */
#include <ctype.h>
#include <errno.h>

#include "fuzz.h"
#include "os/snmp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *text = NULL;
	struct snmp_table *t = NULL;
	unsigned line = 0;
	int r;

	if (size < 1)
		return 0;
	text = fuzz_strndup(data + 1, size - 1);
	r = (data[0] & 1 ? snmp6_parse : snmp_parse)(text, &t, &line);
	if (r < 0) {
		fuzz_check(r == -EINVAL || r == -ENOMEM);
		fuzz_check(t == NULL);
		if (r == -EINVAL)
			fuzz_check(line >= 1 && line <= fuzz_count_lines(text));
		return 0;
	}
	fuzz_check(t != NULL);
	for (size_t i = 0; i < t->n; i++) {
		uint64_t v;

		fuzz_check(t->v[i].name[0] != '\0');
		for (const char *p = t->v[i].name; *p; p++)
			fuzz_check(isalnum((unsigned char)*p) || *p == '_');
		fuzz_check(snmp_get(t, t->v[i].name, &v));
	}
	snmp_table_free(t);
	return 0;
}
