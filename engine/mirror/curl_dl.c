/* curl_dl.c: load libcurl on first use (see curl_dl.h). */
#define _GNU_SOURCE
#include "curl_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#include "base/log.h"
#include "base/util.h"

/* The SONAME of libcurl 7.x and 8.x (Debian's libcurl4 package). */
#define CURL_SONAME "libcurl.so.4"

static const struct {
	const char *symbol;
	size_t offset;
} curl_symbols[] = {
    {"curl_global_init", offsetof(struct curl_api, global_init)},
    {"curl_easy_init", offsetof(struct curl_api, easy_init)},
    {"curl_easy_setopt", offsetof(struct curl_api, easy_setopt)},
    {"curl_easy_perform", offsetof(struct curl_api, easy_perform)},
    {"curl_easy_getinfo", offsetof(struct curl_api, easy_getinfo)},
    {"curl_easy_cleanup", offsetof(struct curl_api, easy_cleanup)},
    {"curl_easy_strerror", offsetof(struct curl_api, easy_strerror)},
    {"curl_slist_append", offsetof(struct curl_api, slist_append)},
    {"curl_slist_free_all", offsetof(struct curl_api, slist_free_all)},
    {"curl_url", offsetof(struct curl_api, url)},
    {"curl_url_set", offsetof(struct curl_api, url_set)},
    {"curl_url_get", offsetof(struct curl_api, url_get)},
    {"curl_url_cleanup", offsetof(struct curl_api, url_cleanup)},
    {"curl_free", offsetof(struct curl_api, free)},
};

static struct curl_api api;
static int load_result = -ENOPKG;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	void *lib = dlopen(CURL_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!lib) {
		log_debug("cannot load %s: %s", CURL_SONAME, dlerror());
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(curl_symbols); i++) {
		void *f = dlsym(lib, curl_symbols[i].symbol);
		if (!f) {
			log_debug("%s has no %s", CURL_SONAME, curl_symbols[i].symbol);
			return; /* the handle stays open: harmless, and dlclose is not needed */
		}
		memcpy((char *)&api + curl_symbols[i].offset, &f, sizeof(f));
	}
	/* libcurl (and its TLS library) would write every TLS session's
	 * secrets to $SSLKEYLOGFILE, world-readable: they decrypt a capture of
	 * the request, bearer key included. Never for cx5prof's requests. */
	if (getenv("SSLKEYLOGFILE") || getenv("GNUTLS_KEYLOGFILE"))
		log_debug("SSLKEYLOGFILE ignored: TLS session secrets would expose the key");
	unsetenv("SSLKEYLOGFILE");
	unsetenv("GNUTLS_KEYLOGFILE");
	if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return;
	load_result = 0;
}

int curl_dl_load(const struct curl_api **ret)
{
	pthread_once(&once, load);
	if (load_result < 0)
		return load_result;
	*ret = &api;
	return 0;
}
