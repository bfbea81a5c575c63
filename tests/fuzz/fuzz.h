/* fuzz.h: what every libFuzzer harness in tests/fuzz/ shares.
 *
 * A harness feeds bytes to one parser and checks the parser's documented
 * contract on the result (success or a -errno from its list). A broken
 * contract is a crash (fuzz_check), so libFuzzer saves the input. Harnesses
 * must never touch the host: no sysroot, no network, no writes. */
#ifndef CX5_FUZZ_H
#define CX5_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A contract violation: report it and abort so libFuzzer keeps the input. */
#define fuzz_check(cond)                                                                                     \
	do {                                                                                                 \
		if (!(cond)) {                                                                               \
			fprintf(stderr, "%s:%d: contract broken: %s\n", __FILE__, __LINE__, #cond);          \
			abort();                                                                             \
		}                                                                                            \
	} while (0)

/* The input as a NUL-terminated string, in a buffer of exactly size + 1
 * bytes so AddressSanitizer sees any read past the end. */
static inline char *fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* How many lines text has (a parser's error line must be one of them). */
static inline unsigned fuzz_count_lines(const char *s)
{
	unsigned n = 1;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Is the errno one of the list (0-terminated)? */
static inline int fuzz_errno_in(int r, const int *list)
{
	for (; *list; list++)
		if (r == -*list)
			return 1;
	return 0;
}

#endif
