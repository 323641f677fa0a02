/* The C member of the cross-language integrity suite (docs/integrity.md):
 * the draws of §1, the canonical stream of §3, and the functions each
 * schema version provides (old.c and new.c, both from version.inc). */
#ifndef KARMEM_INTEGRITY_MEMBER_H
#define KARMEM_INTEGRITY_MEMBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "karmem.h"

/* ---- §1: SplitMix64 and its draws ---- */

/* One generator per message. max is the largest length of the message's
 * arrays and texts; depth counts the array elements and map entries around
 * the current draw (inside one, lengths are at most KI_NESTED_MAX). The
 * arena holds the object being built; status is its first failure (an
 * allocation), after which the draws go on but the message is refused. */
typedef struct ki_rng {
    uint64_t state;
    uint32_t max;
    int depth;
    km_arena *arena;
    km_status status;
} ki_rng;

#define KI_NESTED_MAX 8u
#define KI_NO_LIMIT UINT32_MAX

void ki_rng_init(ki_rng *g, uint64_t seed, km_arena *arena);

/* Unsigned arithmetic in C wraps modulo 2^64, as §1 requires. */
static inline uint64_t ki_next(ki_rng *g) {
    g->state += 0x9E3779B97F4A7C15u;
    uint64_t z = g->state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static inline uint64_t ki_below(ki_rng *g, uint64_t n) { return ki_next(g) % n; }
static inline bool ki_bool(ki_rng *g) { return (ki_next(g) & 1) == 1; }
/* x's low `bits` bits as a signed value (two's complement), computed
 * without C11's implementation-defined conversion of an out-of-range value
 * to a signed type. */
static inline int64_t ki_signed(uint64_t x, unsigned bits) {
    uint64_t sign = (uint64_t)1 << (bits - 1);
    x &= sign | (sign - 1);
    return (x & sign) != 0 ? -(int64_t)(~x & (sign - 1)) - 1 : (int64_t)x;
}
/* The integer draws keep the low bits of next(). */
static inline uint8_t ki_u8(ki_rng *g) { return (uint8_t)ki_next(g); }
static inline uint16_t ki_u16(ki_rng *g) { return (uint16_t)ki_next(g); }
static inline uint32_t ki_u32(ki_rng *g) { return (uint32_t)ki_next(g); }
static inline uint64_t ki_u64(ki_rng *g) { return ki_next(g); }
static inline int8_t ki_i8(ki_rng *g) { return (int8_t)ki_signed(ki_next(g), 8); }
static inline int16_t ki_i16(ki_rng *g) { return (int16_t)ki_signed(ki_next(g), 16); }
static inline int32_t ki_i32(ki_rng *g) { return (int32_t)ki_signed(ki_next(g), 32); }
static inline int64_t ki_i64(ki_rng *g) { return ki_signed(ki_next(g), 64); }
/* A 24-bit integer over 256 (f32) or a 53-bit one over 1024 (f64): the
 * conversions and the divisions by a power of two are exact, so every
 * language computes the same bits. The shifted values fit the signed types
 * (24 and 53 bits), so the conversions are defined. */
static inline float ki_f32(ki_rng *g) {
    return (float)((int32_t)(ki_next(g) >> 40) - 8388608) / 256.0f;
}
static inline double ki_f64(ki_rng *g) {
    return (double)((int64_t)(ki_next(g) >> 11) - INT64_C(4503599627370496)) / 1024.0;
}

/* A length: at most max (KI_NESTED_MAX inside an element or entry), and
 * at most limit for a `[<N]` array. */
uint32_t ki_length(ki_rng *g, uint32_t limit);
/* Text: a length in characters, then each character of §1's alphabet, as
 * UTF-8 in the arena (the C object type holds UTF-16 text as UTF-8 too). */
km_text ki_text(ki_rng *g);
/* n zeroed elements of size bytes from the arena; on failure, records it
 * in g->status, sets *n to 0 and returns NULL (the caller's loop then
 * draws nothing). */
void *ki_array(ki_rng *g, uint32_t *n, size_t size);

/* ---- §3: the canonical stream ---- */

/* The canonical form of the values a consumer reads: fixed-size values
 * little-endian, lengths as u32 before what they count. The digest is its
 * SHA-256; `stream` answers it as it is. failed: an allocation failed (the
 * answer is then an error, never a wrong stream). */
typedef struct ki_sink {
    uint8_t *bytes;
    size_t len;
    size_t cap;
    bool failed;
} ki_sink;

void ki_sink_free(ki_sink *s);
void ki_put(ki_sink *s, const void *data, size_t n);
void ki_u8s(ki_sink *s, uint8_t x);
void ki_u16s(ki_sink *s, uint16_t x);
void ki_u32s(ki_sink *s, uint32_t x);
void ki_u64s(ki_sink *s, uint64_t x);
static inline void ki_i8s(ki_sink *s, int8_t x) { ki_u8s(s, (uint8_t)x); }
static inline void ki_i16s(ki_sink *s, int16_t x) { ki_u16s(s, (uint16_t)x); }
static inline void ki_i32s(ki_sink *s, int32_t x) { ki_u32s(s, (uint32_t)x); }
static inline void ki_i64s(ki_sink *s, int64_t x) { ki_u64s(s, (uint64_t)x); }
static inline void ki_bools(ki_sink *s, bool x) { ki_u8s(s, x ? 1 : 0); }
/* Floats as their IEEE bits: -0.0 and NaN payloads are told apart. */
void ki_f32s(ki_sink *s, float x);
void ki_f64s(ki_sink *s, double x);
/* UTF-8 text or a []u8: the length in bytes, then the bytes. */
void ki_texts(ki_sink *s, km_text t);
void ki_bytess(ki_sink *s, km_u8_slice b);
/* []u16 @string: the number of code units, then each unit. */
void ki_units(ki_sink *s, km_u16_slice u);

/* ---- the functions of a schema version (old.c, new.c) ---- */

typedef struct ki_version {
    const char *name;
    /* The message of seed (§2), written by w (reset first). */
    km_status (*produce)(uint64_t seed, km_writer *w, km_arena *arena);
    /* Validates the message of r, then walks its root with the checked
     * viewers into s (§3). err gets a validation failure's location. */
    km_status (*stream)(const km_reader *r, ki_sink *s, km_error *err);
    /* Decodes r's message into the object type and encodes it with w. */
    km_status (*reencode)(const km_reader *r, km_arena *arena, km_writer *w);
} ki_version;

extern const ki_version ki_old;
extern const ki_version ki_new;

/* The answer line to one request line of §4 (without line ends), in a
 * buffer the caller frees; NULL when memory ran out. */
char *ki_answer(const char *line, size_t len);

#endif
