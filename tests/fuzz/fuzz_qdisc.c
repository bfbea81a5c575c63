/* fuzz_qdisc.c: the RTM_NEWQDISC dump parser (engine/os/qdisc.h).
 *
 * Bytes 0-3: the ifindex asked for (little-endian), the rest: a dump as
 * the kernel answers it (the seeds are real ones). Contract checked:
 * failure is -EBADMSG or -ENOMEM with *ret untouched; on success the kind
 * is printable and NUL-terminated, no root without its device counted,
 * and the same bytes parse the same way twice. */
#include <errno.h>

#include "fuzz.h"
#include "os/qdisc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct qdisc_stats st = {.drops = 0xdead}, again;
	int ifindex, r;

	if (size < 4)
		return 0;
	ifindex = (int)((uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 |
			(uint32_t)data[3] << 24);
	r = qdisc_parse_dump(data + 4, size - 4, ifindex, &st);
	if (r < 0) {
		fuzz_check(r == -EBADMSG || r == -ENOMEM);
		fuzz_check(st.drops == 0xdead);
		return 0;
	}
	fuzz_check(memchr(st.kind, '\0', sizeof(st.kind)) != NULL);
	for (const char *p = st.kind; *p; p++)
		fuzz_check(*p >= 0x20 && *p < 0x7f);
	fuzz_check(!st.has_root || st.count >= 1);
	fuzz_check(qdisc_parse_dump(data + 4, size - 4, ifindex, &again) == 0);
	fuzz_check(memcmp(&st, &again, sizeof(st)) == 0);
	return 0;
}
