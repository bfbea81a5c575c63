/* fuzz_taotoken.c: the TaoToken reply parser (engine/mirror/taotoken.h).
 *
 * Input: 2 bytes pick the HTTP status (one of the statuses the parser
 * treats specially, or any value), 1 byte the Retry-After, the rest is the
 * body, passed WITHOUT a terminating NUL (the contract says the body need
 * not be NUL-terminated; AddressSanitizer catches a read past it).
 * Contract checked: 0 with content, or one of the listed errnos with a
 * kind and a one-line, NUL-terminated message. No network: only the parser
 * is called. */
#include <errno.h>

#include "fuzz.h"
#include "mirror/taotoken.h"

static const long statuses[] = {200, 201, 204, 299, 301, 400, 401, 403,
				404, 408, 429, 500, 502, 503, 599, 600};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int errors[] = {EPROTO, EACCES, ENOENT, EAGAIN, EDQUOT, ENOMEM, 0};
	const struct taotoken_config c = {
	    .source = "fuzz",
	    .base_url = "http://127.0.0.1:9/api",
	    .api_key_env = "CX5PROF_FUZZ_KEY",
	    .model_id = "fuzz-model",
	    .task = "cx5prof",
	};
	struct taotoken_reply rep = {0};
	struct taotoken_error err;
	int64_t retry_after;
	uint8_t *body;
	long status;
	int r;

	if (size < 3)
		return 0;
	status = data[0] < 0xf0 ? statuses[data[0] % ARRAY_SIZE(statuses)] : (long)data[1] * 3 - 100;
	retry_after = data[2] == 0xff ? -1 : (int64_t)data[2];
	size -= 3;
	body = malloc(size ? size : 1);
	if (!body)
		abort();
	memcpy(body, data + 3, size);
	memset(&err, 0xa5, sizeof(err));

	r = taotoken_parse_reply(&c, status, (const char *)body, size, retry_after, &rep, &err);
	if (r == 0) {
		fuzz_check(status >= 200 && status <= 299);
		fuzz_check(rep.content != NULL);
		taotoken_reply_done(&rep);
	} else {
		fuzz_check(fuzz_errno_in(r, errors));
		if (r != -ENOMEM) {
			fuzz_check(err.kind > TT_OK && err.kind < _TT_KIND_MAX);
			fuzz_check(memchr(err.message, '\0', sizeof(err.message)) != NULL);
			fuzz_check(strchr(err.message, '\n') == NULL);
			fuzz_check(taotoken_error_kind_to_string(err.kind) != NULL);
		}
		fuzz_check(rep.content == NULL && rep.id == NULL);
	}
	/* err may be NULL: the same reply must not crash without it. */
	r = taotoken_parse_reply(&c, status, (const char *)body, size, retry_after, &rep, NULL);
	if (r == 0)
		taotoken_reply_done(&rep);
	free(body);
	return 0;
}
