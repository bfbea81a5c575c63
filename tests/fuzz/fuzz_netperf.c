/* fuzz_netperf.c: the netperf output parser (engine/bench/parse_netperf.h).
 *
 * Contract checked: failures are only the errnos the header lists; a
 * result has a positive, finite elapsed time, finite rates and a
 * NUL-terminated unit. */
#include <errno.h>
#include <math.h>

#include "bench/parse_netperf.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int errors[] = {ECONNREFUSED,    EHOSTUNREACH, ENODATA, EDOM,
				     EPROTONOSUPPORT, EBADMSG,	    ENOMEM,  0};
	_cleanup_free_ char *text = fuzz_strndup(data, size);
	struct netperf_report rep;
	double factor;
	int r;

	memset(&rep, 0xa5, sizeof(rep));
	r = parse_netperf(text, &rep);
	if (r < 0) {
		fuzz_check(fuzz_errno_in(r, errors));
		return 0;
	}
	fuzz_check(r == 0);
	fuzz_check(rep.elapsed_sec > 0 && isfinite(rep.elapsed_sec));
	fuzz_check(isfinite(rep.send_mbps) && isfinite(rep.recv_mbps));
	fuzz_check(memchr(rep.unit, '\0', sizeof(rep.unit)) != NULL);
	if (rep.unit[0])
		fuzz_check(netperf_unit_factor(rep.unit, &factor) == 0);

	/* The unit table on its own, with arbitrary text. */
	r = netperf_unit_factor(text, &factor);
	fuzz_check(r == 0 || r == -EPROTONOSUPPORT);
	if (r == 0)
		fuzz_check(factor > 0 && isfinite(factor));
	return 0;
}
