/* curl_dl.h: libcurl, loaded the first time the mirror needs it.
 *
 * Owns: the one dlopen() of libcurl and the table of the functions cx5prof
 * calls. Why: libcurl brings some 30 shared libraries (TLS, Kerberos, LDAP,
 * SSH, ...); linking it made every `show`, `plan` and `apply` load them, for
 * about 4 MiB of resident memory and a third of the start-up time, although
 * only the TaoToken mirror talks HTTP. Also: SSLKEYLOGFILE (and
 * GNUTLS_KEYLOGFILE) unset before libcurl initialises, so no TLS session
 * secret of a request carrying the key is ever written. Must never: be
 * used by any module but taotoken.c; call into libcurl before
 * curl_dl_load() succeeded. */
#ifndef CX5_CURL_DL_H
#define CX5_CURL_DL_H

/* The calls go through the table below; curl.h's type-checking macros
 * would hide them. */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

struct curl_api {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
	CURLcode (*easy_perform)(CURL *curl);
	CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
	void (*easy_cleanup)(CURL *curl);
	const char *(*easy_strerror)(CURLcode code);
	struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
	void (*slist_free_all)(struct curl_slist *list);
	CURLU *(*url)(void);
	CURLUcode (*url_set)(CURLU *u, CURLUPart part, const char *content, unsigned int flags);
	CURLUcode (*url_get)(const CURLU *u, CURLUPart part, char **content, unsigned int flags);
	void (*url_cleanup)(CURLU *u);
	void (*free)(void *p);
};

/* Load libcurl (once; thread-safe) and run curl_global_init. 0 and *ret,
 * or -ENOPKG when the library or one of its functions cannot be found. */
int curl_dl_load(const struct curl_api **ret);

#endif
