/* fuzz_iperf3.c: the iperf3 --json parser (engine/bench/parse_iperf3.h).
 *
 * Contract checked: failures are only the errnos the header lists (with an
 * error text for -EIO); a result has a positive, finite elapsed time and
 * finite figures; nothing leaks (LeakSanitizer). */
#include <errno.h>
#include <math.h>

#include "bench/parse_iperf3.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int errors[] = {EBUSY,   ECONNREFUSED, EHOSTUNREACH, EIO, EBADMSG,
				     ENODATA, EDOM,	    ENOMEM,	  0};
	_cleanup_free_ char *text = fuzz_strndup(data, size);
	_cleanup_free_ char *error = NULL;
	struct iperf3_report rep = {0};
	int r;

	r = parse_iperf3(text, &rep, &error);
	if (r < 0) {
		fuzz_check(fuzz_errno_in(r, errors));
		if (r == -EIO)
			fuzz_check(error != NULL);
		fuzz_check(rep.streams == NULL);
		return 0;
	}
	fuzz_check(r == 0);
	fuzz_check(rep.elapsed_sec > 0 && isfinite(rep.elapsed_sec));
	fuzz_check(isfinite(rep.send_mbps) && isfinite(rep.recv_mbps) && isfinite(rep.lost_percent));
	fuzz_check(memchr(rep.version, '\0', sizeof(rep.version)) != NULL);
	for (size_t i = 0; i < rep.n_streams; i++)
		fuzz_check(isfinite(rep.streams[i].send_mbps) && isfinite(rep.streams[i].recv_mbps));
	iperf3_report_done(&rep);

	/* Without ret_error the same text must parse the same way. */
	r = parse_iperf3(text, &rep, NULL);
	fuzz_check(r == 0);
	iperf3_report_done(&rep);
	return 0;
}
