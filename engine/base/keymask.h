/* keymask.h: the key hidden in text that came from elsewhere (a gateway's
 * error message, its answer).
 *
 * Owns: finding the key, or any piece of it, in a text however it is cut
 * up, spaced or cased (a server may echo it whole, in pieces, one
 * character at a time, upper-cased), and replacing it with "<key>"; and
 * telling whether a text still holds the key's characters in order. The
 * comparison looks only at letters and digits, without case: separators
 * (spaces, punctuation, anything else) between them are ignored, in the
 * text and in the key. Must never: keep a piece of the key it was asked to
 * mask, or fail to end (any key, any text). */
#ifndef CX5_KEYMASK_H
#define CX5_KEYMASK_H

#include "util.h"

#define KEYMASK "<key>"
/* A key with fewer letters and digits is not checked for its characters
 * in order (too short: any text would hold them). */
#define KEYMASK_ORDER_MIN 16

/* A copy of text in which each place that spells a piece of the key at
 * least min_run letters and digits long (all of the key when it has fewer)
 * is replaced by KEYMASK, from its first to its last letter or digit. A
 * key without letters and digits: each occurrence of it as it is; a NULL
 * or empty key: a plain copy. NULL on out of memory. */
char *keymask_dup(const char *text, const char *key, size_t min_run);

/* Do the key's letters and digits appear in text in order, one after the
 * other, whatever lies between them (KEYMASK's own letters aside), within
 * max_span letters and digits of the text (0: anywhere)? false for a key
 * with fewer than KEYMASK_ORDER_MIN; true when out of memory (the caller
 * then drops the text). */
bool keymask_in_order(const char *text, const char *key, size_t max_span);

#endif
