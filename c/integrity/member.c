/* The parts of the C member both schema versions share: the draws of §1,
 * the canonical stream of §3 and the line protocol of §4. */
#include "member.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "sha256.h"

/* ---- §1 ---- */

/* Every fourth seed, from 0, is a message of empty arrays and texts. */
static const uint32_t SIZES[4] = {0, 3, 16, 200};

/* §1's alphabet as UTF-8: ASCII, then 2-, 2-, 3-, 3- and 4-byte
 * characters, then a double quote. */
static const char *const ALPHABET[16] = {
    "a", "b", "c", "x", "y", "z", "0", "9", " ", "-",
    "\xc3\xa9", "\xc3\x9f", "\xe2\x82\xac", "\xe4\xb8\xad", "\xf0\x9f\x98\x80", "\"",
};

void ki_rng_init(ki_rng *g, uint64_t seed, km_arena *arena) {
    g->state = seed;
    g->max = SIZES[seed % 4];
    g->depth = 0;
    g->arena = arena;
    g->status = KM_OK;
}

uint32_t ki_length(ki_rng *g, uint32_t limit) {
    uint32_t largest = g->max;
    if (g->depth > 0 && largest > KI_NESTED_MAX) {
        largest = KI_NESTED_MAX;
    }
    if (largest > limit) {
        largest = limit;
    }
    return (uint32_t)ki_below(g, (uint64_t)largest + 1);
}

void *ki_array(ki_rng *g, uint32_t *n, size_t size) {
    void *p = NULL;
    km_status st = km_arena_array(g->arena, *n, size, &p);
    if (st != KM_OK) {
        if (g->status == KM_OK) {
            g->status = st;
        }
        *n = 0;
        return NULL;
    }
    return p;
}

km_text ki_text(ki_rng *g) {
    uint32_t n = ki_length(g, KI_NO_LIMIT);
    /* At most 4 bytes a character. */
    uint32_t room = n * 4;
    char *p = ki_array(g, &room, 1);
    km_text t = {p, 0};
    for (uint32_t i = 0; i < n; i++) {
        const char *c = ALPHABET[ki_below(g, 16)];
        size_t len = strlen(c);
        if (p != NULL) {
            memcpy(p + t.len, c, len);
            t.len += (uint32_t)len;
        }
    }
    return t;
}

/* ---- §3 ---- */

void ki_sink_free(ki_sink *s) {
    free(s->bytes);
    s->bytes = NULL;
    s->len = s->cap = 0;
}

void ki_put(ki_sink *s, const void *data, size_t n) {
    if (s->failed || n == 0) {
        return;
    }
    if (s->cap - s->len < n) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap - s->len < n) {
            cap *= 2;
        }
        uint8_t *p = realloc(s->bytes, cap);
        if (p == NULL) {
            s->failed = true;
            return;
        }
        s->bytes = p;
        s->cap = cap;
    }
    memcpy(s->bytes + s->len, data, n);
    s->len += n;
}

/* Little-endian whatever the host (karmem.h refuses big-endian hosts,
 * but the stream's order should not rest on that). */
static void put_le(ki_sink *s, uint64_t x, unsigned n) {
    uint8_t b[8];
    for (unsigned i = 0; i < n; i++) {
        b[i] = (uint8_t)(x >> (8 * i));
    }
    ki_put(s, b, n);
}

void ki_u8s(ki_sink *s, uint8_t x) { ki_put(s, &x, 1); }
void ki_u16s(ki_sink *s, uint16_t x) { put_le(s, x, 2); }
void ki_u32s(ki_sink *s, uint32_t x) { put_le(s, x, 4); }
void ki_u64s(ki_sink *s, uint64_t x) { put_le(s, x, 8); }

void ki_f32s(ki_sink *s, float x) {
    uint32_t bits;
    memcpy(&bits, &x, 4);
    ki_u32s(s, bits);
}

void ki_f64s(ki_sink *s, double x) {
    uint64_t bits;
    memcpy(&bits, &x, 8);
    ki_u64s(s, bits);
}

void ki_texts(ki_sink *s, km_text t) {
    ki_u32s(s, t.len);
    ki_put(s, t.ptr, t.len);
}

void ki_bytess(ki_sink *s, km_u8_slice b) {
    ki_u32s(s, b.len);
    ki_put(s, b.ptr, b.len);
}

void ki_units(ki_sink *s, km_u16_slice u) {
    ki_u32s(s, u.len);
    for (uint32_t i = 0; i < u.len; i++) {
        ki_u16s(s, u.ptr[i]);
    }
}

/* ---- §4 ---- */

/* A growable answer line: a sink of characters, NUL-terminated by
 * finish. */
typedef ki_sink line;

static void add(line *l, const char *s, size_t n) { ki_put(l, s, n); }

static void add_str(line *l, const char *s) { add(l, s, strlen(s)); }

static void add_hex(line *l, const uint8_t *b, size_t n) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        char pair[2] = {digits[b[i] >> 4], digits[b[i] & 15]};
        add(l, pair, 2);
    }
}

static char *finish(line *l) {
    ki_u8s(l, 0);
    if (l->failed) {
        ki_sink_free(l);
        return NULL;
    }
    return (char *)l->bytes;
}

static char *error_line(const char *reason) {
    line l = {0};
    add_str(&l, "error ");
    add_str(&l, reason);
    return finish(&l);
}

static char *status_line(const char *what, km_status st) {
    line l = {0};
    add_str(&l, "error ");
    add_str(&l, what);
    add_str(&l, ": ");
    add_str(&l, km_status_text(st));
    return finish(&l);
}

static int nibble(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* The message of a hex argument, in a buffer that malloc aligns for any
 * type (so at 8 bytes, as km_reader_open wants); NULL and *bad set when
 * it is not hex. */
static uint8_t *unhex(const char *s, size_t n, size_t *len, bool *bad) {
    *bad = false;
    if (n % 2 != 0) {
        *bad = true;
        return NULL;
    }
    uint8_t *b = malloc(n / 2 + 1);
    if (b == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < n / 2; i++) {
        int hi = nibble(s[2 * i]), lo = nibble(s[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(b);
            *bad = true;
            return NULL;
        }
        b[i] = (uint8_t)(hi << 4 | lo);
    }
    *len = n / 2;
    return b;
}

/* The request's words: exactly three, separated by spaces or tabs. */
static size_t split(const char *s, size_t n, const char *word[3], size_t len[3]) {
    size_t count = 0, i = 0;
    while (i < n) {
        while (i < n && (s[i] == ' ' || s[i] == '\t')) {
            i++;
        }
        if (i == n) {
            break;
        }
        size_t start = i;
        while (i < n && s[i] != ' ' && s[i] != '\t') {
            i++;
        }
        if (count < 3) {
            word[count] = s + start;
            len[count] = i - start;
        }
        count++;
    }
    return count;
}

static bool is(const char *w, size_t n, const char *s) { return n == strlen(s) && memcmp(w, s, n) == 0; }

static char *produce_line(const ki_version *v, const char *arg, size_t n) {
    uint64_t seed = 0;
    if (n == 0 || n > 20) {
        return error_line("the seed is not a u64");
    }
    for (size_t i = 0; i < n; i++) {
        if (arg[i] < '0' || arg[i] > '9') {
            return error_line("the seed is not a u64");
        }
        uint64_t d = (uint64_t)(arg[i] - '0');
        if (seed > (UINT64_MAX - d) / 10) {
            return error_line("the seed is not a u64");
        }
        seed = seed * 10 + d;
    }
    km_arena arena;
    km_arena_init_growable(&arena, NULL, 0, NULL);
    km_writer w;
    km_status st = km_writer_init(&w, 4096, NULL);
    if (st == KM_OK) {
        st = v->produce(seed, &w, &arena);
    }
    char *out = NULL;
    if (st == KM_OK) {
        line l = {0};
        add_hex(&l, km_writer_bytes(&w), km_writer_len(&w));
        out = finish(&l);
    } else {
        out = status_line("producing", st);
    }
    km_writer_free(&w);
    km_arena_free(&arena);
    return out;
}

static char *message_line(const ki_version *v, const char *cmd, size_t cmd_len, const uint8_t *msg, size_t len) {
    km_reader r;
    km_status st = km_reader_open(&r, msg, len);
    if (st != KM_OK) {
        return status_line("opening the message", st);
    }
    if (is(cmd, cmd_len, "roundtrip")) {
        km_arena arena;
        km_arena_init_growable(&arena, NULL, 0, NULL);
        km_writer w;
        st = km_writer_init(&w, len > 0 ? len : 8, NULL);
        if (st == KM_OK) {
            st = v->reencode(&r, &arena, &w);
        }
        char *out;
        if (st != KM_OK) {
            out = status_line("round trip", st);
        } else if (km_writer_len(&w) != len || memcmp(km_writer_bytes(&w), msg, len) != 0) {
            out = error_line("decoding and encoding again changed the message");
        } else {
            line l = {0};
            add_str(&l, "ok");
            out = finish(&l);
        }
        km_writer_free(&w);
        km_arena_free(&arena);
        return out;
    }
    ki_sink s = {0};
    km_error err;
    memset(&err, 0, sizeof err);
    st = v->stream(&r, &s, &err);
    char *out;
    if (st != KM_OK) {
        char reason[128];
        snprintf(reason, sizeof reason, "invalid message: %s at byte %" PRIu32, km_status_text(st), err.offset);
        out = error_line(reason);
    } else if (s.failed) {
        out = error_line("out of memory");
    } else {
        line l = {0};
        if (is(cmd, cmd_len, "stream")) {
            add_hex(&l, s.bytes, s.len);
        } else {
            uint8_t digest[32];
            sha256_of(s.bytes, s.len, digest);
            add_hex(&l, digest, sizeof digest);
        }
        out = finish(&l);
    }
    ki_sink_free(&s);
    return out;
}

char *ki_answer(const char *s, size_t n) {
    const char *word[3];
    size_t len[3];
    if (split(s, n, word, len) != 3) {
        return error_line("expected `<command> <old|new> <argument>`");
    }
    const ki_version *v = is(word[1], len[1], "old") ? &ki_old : is(word[1], len[1], "new") ? &ki_new : NULL;
    if (v == NULL) {
        return error_line("unknown version (want old or new)");
    }
    if (is(word[0], len[0], "produce")) {
        return produce_line(v, word[2], len[2]);
    }
    if (!is(word[0], len[0], "consume") && !is(word[0], len[0], "stream") && !is(word[0], len[0], "roundtrip")) {
        return error_line("unknown command");
    }
    size_t msg_len = 0;
    bool bad = false;
    uint8_t *msg = unhex(word[2], len[2], &msg_len, &bad);
    if (msg == NULL) {
        return error_line(bad ? "the message is not hex" : "out of memory");
    }
    char *out = message_line(v, word[0], len[0], msg, msg_len);
    free(msg);
    return out;
}
