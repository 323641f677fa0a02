/* SHA-256 (FIPS 180-4) for the C member of the integrity suite
 * (docs/integrity.md §3): the digest of a consumer's canonical stream.
 * Small and dependency-free so that the member needs the C standard
 * library only, as c/karmem.c does; tested against the FIPS vectors in
 * test_integrity.c. */
#ifndef KARMEM_INTEGRITY_SHA256_H
#define KARMEM_INTEGRITY_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct sha256 {
    uint32_t h[8];
    uint64_t total;      /* bytes fed so far */
    uint8_t block[64];   /* the block being filled */
    size_t used;         /* bytes of it filled */
} sha256;

void sha256_init(sha256 *s);
void sha256_update(sha256 *s, const uint8_t *data, size_t len);
void sha256_final(sha256 *s, uint8_t out[32]);
/* The digest of data[0..len) in one call. */
void sha256_of(const uint8_t *data, size_t len, uint8_t out[32]);

#endif
