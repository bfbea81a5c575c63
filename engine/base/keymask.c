/* keymask.c: the key hidden in foreign text (see keymask.h).
 *
 * The key and the text are compared as their "skeletons": their letters
 * and digits, lower-cased, with the position of each in the text kept, so
 * a match found in the skeleton masks the text from its first character to
 * its last, separators included. Must never: read past a text's end. */
#include "keymask.h"

#include <ctype.h>

static bool alnum(char c)
{
	return isalnum((unsigned char)c) && (unsigned char)c < 0x80;
}

/* The letters and digits of s, lower-cased; *ret_pos (when not NULL) the
 * index in s of each. NULL on out of memory. */
static char *skeleton(const char *s, size_t **ret_pos)
{
	size_t n = strlen(s), k = 0;
	char *sk = malloc(n + 1);
	size_t *pos = ret_pos ? malloc((n + 1) * sizeof(*pos)) : NULL;

	if (!sk || (ret_pos && !pos)) {
		free(sk);
		free(pos);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (alnum(s[i])) {
			if (pos)
				pos[k] = i;
			sk[k++] = (char)tolower((unsigned char)s[i]);
		}
	sk[k] = '\0';
	if (ret_pos)
		*ret_pos = pos;
	return sk;
}

/* The longest run of t, from its start, that is a piece of key. */
static size_t run_at(const char *t, const char *key, size_t kl)
{
	size_t best = 0;

	for (size_t j = 0; j < kl && best < kl - j; j++) {
		size_t n = 0;

		while (j + n < kl && t[n] && t[n] == key[j + n])
			n++;
		if (n > best)
			best = n;
	}
	return best;
}

/* A key without letters or digits: each occurrence of it, as it is. */
static char *mask_whole(const char *text, const char *key)
{
	size_t kl = strlen(key), len = strlen(text);
	char *out = malloc(len * (sizeof(KEYMASK) - 1) + 1), *o = out;

	if (!out)
		return NULL;
	for (const char *p = text; *p;)
		if (strncmp(p, key, kl) == 0) {
			memcpy(o, KEYMASK, sizeof(KEYMASK) - 1);
			o += sizeof(KEYMASK) - 1;
			p += kl;
		} else
			*o++ = *p++;
	*o = '\0';
	return out;
}

char *keymask_dup(const char *text, const char *key, size_t min_run)
{
	_cleanup_free_ char *k = key ? skeleton(key, NULL) : strdup(""), *t = NULL;
	_cleanup_free_ size_t *pos = NULL;
	_cleanup_free_ bool *masked = NULL;
	size_t len = strlen(text), kl, min;
	char *out, *o;

	if (!k)
		return NULL;
	kl = strlen(k);
	if (kl == 0)
		return key && *key ? mask_whole(text, key) : strdup(text);
	min = kl < min_run ? kl : min_run;
	t = skeleton(text, &pos);
	masked = calloc(len + 1, sizeof(*masked));
	if (!t || !masked)
		return NULL;
	for (size_t i = 0; t[i]; i++) {
		size_t n = run_at(t + i, k, kl);

		if (n >= min && n > 0)
			for (size_t x = pos[i]; x <= pos[i + n - 1]; x++)
				masked[x] = true;
	}
	out = malloc(len * (sizeof(KEYMASK) - 1) + 1);
	if (!out)
		return NULL;
	o = out;
	for (size_t i = 0; i < len;) {
		if (!masked[i]) {
			*o++ = text[i++];
			continue;
		}
		memcpy(o, KEYMASK, sizeof(KEYMASK) - 1);
		o += sizeof(KEYMASK) - 1;
		while (i < len && masked[i])
			i++;
	}
	*o = '\0';
	return out;
}

bool keymask_in_order(const char *text, const char *key, size_t max_span)
{
	_cleanup_free_ char *k = key ? skeleton(key, NULL) : NULL, *t = NULL;
	size_t kl = k ? strlen(k) : 0, n = 0;
	const char *p = text;

	if (key && !k) /* out of memory: say yes, the text is then dropped */
		return true;
	if (kl < KEYMASK_ORDER_MIN)
		return false;
	/* The text's letters and digits, its masks left out. */
	t = malloc(strlen(text) + 1);
	if (!t)
		return true;
	while (*p) {
		if (strncmp(p, KEYMASK, sizeof(KEYMASK) - 1) == 0) {
			p += sizeof(KEYMASK) - 1;
			continue;
		}
		if (alnum(*p))
			t[n++] = (char)tolower((unsigned char)*p);
		p++;
	}
	/* From each place the key's first character is, the shortest
	 * stretch holding it in order is found greedily. */
	for (size_t i = 0; i < n; i++) {
		size_t j = 0, x = i;

		if (t[i] != k[0])
			continue;
		for (; x < n && j < kl && (max_span == 0 || x - i < max_span); x++)
			if (t[x] == k[j])
				j++;
		if (j == kl)
			return true;
		if (max_span == 0) /* unbounded: a later start finds no more */
			return false;
	}
	return false;
}
