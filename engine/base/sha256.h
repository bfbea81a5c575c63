/* sha256.h: SHA-256 (FIPS 180-4) of a byte string, as lowercase hex.
 *
 * Owns: the digest only (used for key fingerprints: never show a secret,
 * show a short digest of it). Must never: log or keep its input. */
#ifndef CX5_SHA256_H
#define CX5_SHA256_H

#include "util.h"

#define SHA256_HEX_LEN 64

/* hex must hold SHA256_HEX_LEN + 1 bytes. */
void sha256_hex(const void *data, size_t len, char hex[static SHA256_HEX_LEN + 1]);

#endif
