/*
 * Karmem for C11: reader, validator, writer and editor (docs/c.md). Every
 * decision follows docs/format.md and is the same as the Rust and Go
 * libraries', function by function: the same messages are accepted, read
 * and charged alike.
 */
#include "karmem.h"

#include <stdlib.h>

/* Positions are computed in 64 bits, so that hostile 32-bit values cannot
 * wrap. */
static uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) & ~(a - 1); }

const char *km_status_text(km_status status) {
    switch (status) {
    case KM_OK: return "karmem: ok";
    case KM_ERR_TRUNCATED: return "karmem: message truncated";
    case KM_ERR_MISALIGNED: return "karmem: buffer is not aligned (a message needs 8 bytes)";
    case KM_ERR_BAD_MAGIC: return "karmem: not a Karmem message (bad magic)";
    case KM_ERR_UNSUPPORTED_VERSION: return "karmem: unsupported format version";
    case KM_ERR_BAD_FLAGS: return "karmem: reserved header flags set";
    case KM_ERR_BAD_SIZE: return "karmem: invalid message size in header";
    case KM_ERR_MALFORMED_TABLE: return "karmem: malformed table";
    case KM_ERR_MALFORMED_ARRAY: return "karmem: malformed array";
    case KM_ERR_LIMIT_EXCEEDED: return "karmem: limited array over its limit";
    case KM_ERR_INVALID_TEXT: return "karmem: invalid text";
    case KM_ERR_INVALID_BOOL: return "karmem: invalid bool";
    case KM_ERR_INVALID_UNION: return "karmem: invalid union";
    case KM_ERR_DIRECTORY_TOO_LARGE: return "karmem: directory has too many entries";
    case KM_ERR_DEPTH_EXCEEDED: return "karmem: nesting exceeds the depth limit";
    case KM_ERR_BUDGET_EXCEEDED: return "karmem: message exceeds the traversal budget";
    case KM_ERR_TOO_LARGE: return "karmem: message or array too large";
    case KM_ERR_NO_MEMORY: return "karmem: out of memory";
    }
    return "karmem: unknown status";
}

km_limits km_default_limits(void) {
    km_limits limits;
    limits.max_directory_entries = 1024;
    limits.max_depth = 64;
    limits.traversal_budget_factor = 8;
    return limits;
}

uint32_t km_path_hash(const uint32_t *path, size_t n) {
    uint32_t h = 0x811C9DC5u;
    for (size_t i = 0; i < n; i++) {
        for (unsigned k = 0; k < 4; k++) {
            h ^= (path[i] >> (8 * k)) & 0xFFu;
            h *= 0x01000193u;
        }
    }
    return h;
}

/* ---- Reader ----------------------------------------------------------------- */

static km_status open_message(km_reader *r, const void *buf, size_t len) {
    const uint8_t *b = (const uint8_t *)buf;
    uint32_t size;
    r->mem = NULL;
    r->size = 0;
    if (b == NULL || len < KM_HEADER_SIZE) {
        return KM_ERR_TRUNCATED;
    }
    if ((uintptr_t)b % 8 != 0) {
        return KM_ERR_MISALIGNED;
    }
    if (b[0] != 'K' || b[1] != 'M') {
        return KM_ERR_BAD_MAGIC;
    }
    if (b[2] != KM_VERSION) {
        return KM_ERR_UNSUPPORTED_VERSION;
    }
    if (b[3] != 0) {
        return KM_ERR_BAD_FLAGS;
    }
    size = km_load_u32(b + 4);
    if (size < KM_HEADER_SIZE || size % 8 != 0) {
        return KM_ERR_BAD_SIZE;
    }
    if ((uint64_t)size > (uint64_t)len) {
        return KM_ERR_TRUNCATED;
    }
    r->mem = b;
    r->size = size;
    return KM_OK;
}

km_status km_reader_open_limits(km_reader *r, const void *buf, size_t len, km_limits limits) {
    r->limits = limits;
    r->status = open_message(r, buf, len);
    return r->status;
}

km_status km_reader_open(km_reader *r, const void *buf, size_t len) {
    return km_reader_open_limits(r, buf, len, km_default_limits());
}

km_table km_table_at(const km_reader *r, uint32_t offset) {
    km_table t = {0, 0};
    uint32_t header;
    uint64_t total, unused;
    if (offset == 0 || offset % 8 != 0 || !km_fits(r, offset, 8)) {
        return t;
    }
    header = km_load_u32(r->mem + offset);
    total = (uint64_t)(header & 0x1FFFFFFFu) * 8;
    unused = header >> 29;
    if (total < 8 || total - unused < 4 || !km_fits(r, offset, total)) {
        return t;
    }
    t.offset = offset;
    t.used = (uint32_t)(total - unused);
    return t;
}

km_table km_field_table(const km_reader *r, km_table t, uint32_t offset) {
    if (!km_has(t, offset, 4)) {
        km_table none = {0, 0};
        return none;
    }
    return km_table_at(r, km_read_u32(r, t.offset + offset));
}

/* The checks of format.md §5 on an array reference. */
static bool array_ok(km_array a, uint32_t elem_size, uint32_t limit, uint32_t size) {
    if (a.len > a.cap || a.len > limit) {
        return false;
    }
    if (a.cap == 0) {
        return true;
    }
    return a.offset != 0 && a.offset % km_natural_align(elem_size) == 0 &&
           (uint64_t)a.offset + (uint64_t)a.cap * elem_size <= size;
}

km_array km_load_array_ref(const uint8_t *p) {
    km_array a;
    a.offset = km_load_u32(p);
    a.len = km_load_u32(p + 4);
    a.cap = km_load_u32(p + 8);
    if (a.cap == 0) {
        a.offset = 0;
        a.len = 0;
    }
    return a;
}

km_array km_check_array(const km_reader *r, km_array a, uint32_t elem_size, uint32_t limit) {
    if (a.cap == 0 || !array_ok(a, elem_size, limit, r->size)) {
        km_array empty = {0, 0, 0};
        return empty;
    }
    return a;
}

km_array km_array_at(const km_reader *r, uint32_t at, uint32_t elem_size, uint32_t limit) {
    if (!km_fits(r, at, KM_ARRAY_REF_SIZE)) {
        km_array empty = {0, 0, 0};
        return empty;
    }
    return km_check_array(r, km_load_array_ref(r->mem + at), elem_size, limit);
}

km_array km_field_array(const km_reader *r, km_table t, uint32_t offset, uint32_t elem_size,
                        uint32_t limit) {
    if (!km_has(t, offset, KM_ARRAY_REF_SIZE)) {
        km_array empty = {0, 0, 0};
        return empty;
    }
    return km_array_at(r, t.offset + offset, elem_size, limit);
}

const uint8_t *km_bytes(const km_reader *r, uint32_t offset, uint64_t n) {
    if (offset == 0 || n == 0 || !km_fits(r, offset, n)) {
        return NULL;
    }
    return r->mem + offset;
}

/* What decode_rune gives for a byte that starts no valid sequence. */
#define INVALID_RUNE UINT32_MAX

/* Decodes one code point of UTF-8 at p[*i..n) and moves *i past it (RFC
 * 3629: no overlongs, no surrogates, nothing past U+10FFFF). An invalid
 * sequence gives INVALID_RUNE and moves one byte, as Go's range over a
 * string does, which the other libraries' writers follow. */
static uint32_t decode_rune(const uint8_t *p, size_t n, size_t *i) {
    uint8_t c = p[*i];
    uint32_t need, min, cp;
    if (c < 0x80) {
        *i += 1;
        return c;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        need = 1, min = 0x80, cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2, min = 0x800, cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3, min = 0x10000, cp = c & 0x07u;
    } else {
        *i += 1;
        return INVALID_RUNE;
    }
    if (n - *i <= need) {
        *i += 1;
        return INVALID_RUNE;
    }
    for (uint32_t k = 1; k <= need; k++) {
        uint8_t d = p[*i + k];
        if ((d & 0xC0u) != 0x80u) {
            *i += 1;
            return INVALID_RUNE;
        }
        cp = (cp << 6) | (d & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        *i += 1;
        return INVALID_RUNE;
    }
    *i += need + 1;
    return cp;
}

bool km_utf8_valid(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n;) {
        if (decode_rune(p, n, &i) == INVALID_RUNE) {
            return false;
        }
    }
    return true;
}

km_text km_text_of(const km_reader *r, km_array a) {
    km_text t = {"", 0};
    const uint8_t *p = km_bytes(r, a.offset, a.len);
    if (p != NULL && km_utf8_valid(p, a.len)) {
        t.ptr = (const char *)p;
        t.len = a.len;
    }
    return t;
}

/* The size of an SoA directory of n entries (format.md §5.3): n, then n
 * hashes, then n value sizes. */
static uint64_t directory_size(uint64_t n) { return 4 * (2 * n + 1); }

/* What reading a directory of n entries costs the budget, each time it is
 * read (format.md §10): the directory and the block's word pointing to it. */
static uint64_t directory_charge(uint64_t n) { return directory_size(n) + 4; }

/* The size of a bunch table of k entries (format.md §7.1). */
static uint64_t bunch_table_size(uint64_t k) { return 16 * (k + 1); }

/* The SoA directory of a: the one the first word of its block points to,
 * with *n entries. False when a has no block, or the word or the directory
 * is malformed (misaligned, past the end, too many entries). */
static bool find_directory(const km_reader *r, km_array a, uint32_t *dir, uint32_t *n) {
    if (a.cap == 0 || a.offset % KM_DIRECTORY_ALIGN != 0 || !km_fits(r, a.offset, 4)) {
        return false;
    }
    *dir = km_read_u32(r, a.offset);
    if (*dir == 0 || *dir % KM_DIRECTORY_ALIGN != 0 || !km_fits(r, *dir, 4)) {
        return false;
    }
    *n = km_read_u32(r, *dir);
    return *n <= r->limits.max_directory_entries && km_fits(r, *dir, directory_size(*n));
}

/* The directory entry a reader wants for entry k of a message's directory:
 * the same position is tried first (a writer of the same schema version),
 * then every wanted column. -1 when the reader does not know the hash. */
static long wanted_index(const km_column *wanted, size_t n_wanted, size_t k, uint32_t hash) {
    if (k < n_wanted && wanted[k].hash == hash) {
        return (long)k;
    }
    for (size_t i = 0; i < n_wanted; i++) {
        if (wanted[i].hash == hash) {
            return (long)i;
        }
    }
    return -1;
}

/* Lays out the block of a over the well-formed n-entry directory at dir
 * (format.md §5.3): each column at the natural alignment of its value size
 * after the end of the one before, the first after the block's word. out
 * (zero on entry) gets the first column of each wanted hash listed with the
 * wanted size. *fits is false when the block ends past the message;
 * *strict false when a wanted hash is listed twice or with another size. */
static void lay_out_columns(const km_reader *r, km_array a, uint32_t dir, uint32_t n,
                            const km_column *wanted, size_t n_wanted, uint32_t *out, bool *fits,
                            bool *strict) {
    uint64_t limit = r->size;
    uint64_t pos = (uint64_t)a.offset + 4;
    const uint8_t *entries = r->mem + dir + 4;
    *strict = true;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t hash = km_load_u32(entries + 4 * (uint64_t)k);
        uint32_t size = km_load_u32(entries + 4 * ((uint64_t)n + k));
        uint64_t col = align_up(pos, km_natural_align(size));
        long j;
        pos = col + (uint64_t)a.cap * size;
        if (col > limit) {
            *fits = false;
            return;
        }
        j = wanted_index(wanted, n_wanted, k, hash);
        if (j >= 0) {
            bool size_ok = wanted[j].size == size;
            *strict = *strict && out[j] == 0 && size_ok;
            if (out[j] == 0 && size_ok) {
                out[j] = (uint32_t)col;
            }
        }
    }
    *fits = pos <= limit;
}

void km_soa_columns(const km_reader *r, km_array a, const km_column *wanted, size_t n_wanted,
                    uint32_t *out) {
    uint32_t dir, n;
    bool fits, strict;
    memset(out, 0, n_wanted * sizeof *out);
    if (!find_directory(r, a, &dir, &n)) {
        return;
    }
    lay_out_columns(r, a, dir, n, wanted, n_wanted, out, &fits, &strict);
    if (!fits) {
        memset(out, 0, n_wanted * sizeof *out);
    }
}

/* Where the offset column of an SoA union array starts: after the tag
 * column, at the alignment of a u32 (format.md §7.1). */
static uint64_t union_offset_column(km_array a, uint32_t tag_size) {
    return align_up((uint64_t)a.offset + (uint64_t)a.cap * tag_size, 4);
}

bool km_union_columns(const km_reader *r, km_array a, uint32_t tag_size, uint32_t *tags,
                      uint32_t *offsets) {
    uint64_t offs;
    *tags = 0;
    *offsets = 0;
    if (a.cap == 0) {
        return false;
    }
    offs = union_offset_column(a, tag_size);
    if (a.offset % km_natural_align(tag_size) != 0 || offs + 4 * (uint64_t)a.cap > r->size) {
        return false;
    }
    *tags = a.offset;
    *offsets = (uint32_t)offs;
    return true;
}

/* The number of entries of the bunch table of a (format.md §7.1) into *k;
 * false when a is empty or its table is malformed (misaligned, over the
 * entry limit, past the end): its variants then read as empty. */
static bool bunch_entries(const km_reader *r, km_array a, uint32_t *k) {
    if (a.cap == 0) {
        return false;
    }
    *k = km_read_u32(r, a.offset);
    return a.offset % KM_BUNCH_TABLE_ALIGN == 0 && *k <= r->limits.max_directory_entries &&
           km_fits(r, a.offset, bunch_table_size(*k));
}

km_array km_bunch_entry(const km_reader *r, km_array a, uint32_t tag, uint32_t elem_size) {
    km_array empty = {0, 0, 0};
    uint32_t k;
    if (!bunch_entries(r, a, &k)) {
        return empty;
    }
    for (uint32_t e = 1; e <= k; e++) {
        uint32_t entry = a.offset + 16 * e;
        if (km_read_u32(r, entry) == tag) {
            return km_array_at(r, entry + 4, elem_size, KM_NO_LIMIT);
        }
    }
    return empty;
}

/* ---- Trusted reads of a validated message ----------------------------------- */

void km_trusted_soa_columns(km_trusted t, km_array a, const km_column *wanted, size_t n_wanted,
                            uint32_t *out) {
    uint32_t dir, n;
    uint64_t pos = (uint64_t)a.offset + 4;
    memset(out, 0, n_wanted * sizeof *out);
    if (a.cap == 0) {
        return;
    }
    dir = km_trusted_u32(t, a.offset);
    n = km_trusted_u32(t, dir);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t hash = km_trusted_u32(t, dir + 4 + 4 * k);
        uint32_t size = km_trusted_u32(t, dir + 4 + 4 * (n + k));
        uint64_t col = align_up(pos, km_natural_align(size));
        /* km_check_soa refused a known hash listed twice or with another
         * size, so the first match is the only one. */
        long j = wanted_index(wanted, n_wanted, k, hash);
        pos = col + (uint64_t)a.cap * size;
        if (j >= 0) {
            out[j] = (uint32_t)col;
        }
    }
}

bool km_trusted_union_columns(km_trusted t, km_array a, uint32_t tag_size, uint32_t *tags,
                              uint32_t *offsets) {
    (void)t;
    *tags = 0;
    *offsets = 0;
    if (a.cap == 0) {
        return false;
    }
    *tags = a.offset;
    *offsets = (uint32_t)union_offset_column(a, tag_size);
    return true;
}

km_array km_trusted_bunch_entry(km_trusted t, km_array a, uint32_t tag) {
    km_array empty = {0, 0, 0};
    uint32_t k;
    if (a.cap == 0) {
        return empty;
    }
    k = km_trusted_u32(t, a.offset);
    for (uint32_t e = 1; e <= k; e++) {
        uint32_t entry = a.offset + 16 * e;
        if (km_trusted_u32(t, entry) == tag) {
            return km_trusted_array(t, entry + 4);
        }
    }
    return empty;
}

/* ---- Validator -------------------------------------------------------------- */

void km_validator_init(km_validator *v, const km_reader *r) {
    v->r = r;
    v->budget = (uint64_t)r->size * r->limits.traversal_budget_factor;
    v->depth = 0;
    v->error.kind = KM_OK;
    v->error.offset = 0;
    v->error.value = 0;
}

km_status km_fail(km_validator *v, km_status kind, uint32_t offset, uint64_t value) {
    v->error.kind = kind;
    v->error.offset = offset;
    v->error.value = value;
    return kind;
}

km_status km_charge(km_validator *v, uint64_t n) {
    /* At least one unit per object, so empty objects count too. */
    if (n == 0) {
        n = 1;
    }
    if (n > v->budget) {
        return km_fail(v, KM_ERR_BUDGET_EXCEEDED, 0, 0);
    }
    v->budget -= n;
    return KM_OK;
}

/* units × n, or UINT64_MAX past it. */
static uint64_t times_saturating(uint32_t n, uint64_t units) {
    if (n != 0 && units > UINT64_MAX / n) {
        return UINT64_MAX;
    }
    return units * n;
}

km_status km_charge_each(km_validator *v, uint32_t n, uint64_t units) {
    uint64_t total = times_saturating(n, units);
    return total == 0 ? KM_OK : km_charge(v, total);
}

km_status km_reserve_each(km_validator *v, uint32_t n, uint64_t units) {
    if (times_saturating(n, units) > v->budget) {
        return km_fail(v, KM_ERR_BUDGET_EXCEEDED, 0, 0);
    }
    return KM_OK;
}

km_status km_enter(km_validator *v) {
    v->depth++;
    if (v->depth > v->r->limits.max_depth) {
        return km_fail(v, KM_ERR_DEPTH_EXCEEDED, 0, v->depth);
    }
    return KM_OK;
}

km_status km_check_table(km_validator *v, uint32_t offset, uint32_t full, km_table *out) {
    km_table t = km_table_at(v->r, offset);
    uint64_t total;
    *out = t;
    if (t.used == 0) {
        return km_fail(v, KM_ERR_MALFORMED_TABLE, offset, 0);
    }
    total = (uint64_t)(km_read_u32(v->r, offset) & 0x1FFFFFFFu) * 8;
    return km_charge(v, total > full ? total : full);
}

km_status km_check_root(km_validator *v, uint32_t full, km_table *out) {
    if (v->r->status != KM_OK) {
        km_table none = {0, 0};
        *out = none;
        return km_fail(v, v->r->status, 0, 0);
    }
    return km_check_table(v, KM_HEADER_SIZE, full, out);
}

km_status km_check_array_at(km_validator *v, uint32_t at, uint32_t elem_size, uint32_t limit,
                            km_array *out) {
    km_array a;
    km_array empty = {0, 0, 0};
    *out = empty;
    /* Word by word, as every library reads it: a reference cut by the end
     * of the message has its missing words read as zero. */
    a.offset = km_read_u32(v->r, at);
    a.len = km_read_u32(v->r, at + 4);
    a.cap = km_read_u32(v->r, at + 8);
    if (a.len > limit) {
        return km_fail(v, KM_ERR_LIMIT_EXCEEDED, at, a.len);
    }
    if (!array_ok(a, elem_size, limit, v->r->size)) {
        return km_fail(v, KM_ERR_MALFORMED_ARRAY, at, 0);
    }
    if (km_charge(v, (uint64_t)a.cap * elem_size) != KM_OK) {
        return KM_ERR_BUDGET_EXCEEDED;
    }
    if (a.cap != 0) {
        *out = a;
    }
    return KM_OK;
}

km_status km_check_field_array(km_validator *v, km_table t, uint32_t offset,
                               uint32_t elem_size, uint32_t limit, km_array *out) {
    if (!km_has(t, offset, KM_ARRAY_REF_SIZE)) {
        km_array empty = {0, 0, 0};
        *out = empty;
        return KM_OK;
    }
    return km_check_array_at(v, t.offset + offset, elem_size, limit, out);
}

km_status km_check_soa(km_validator *v, km_array a, const km_column *wanted, size_t n_wanted,
                       uint32_t *out) {
    const km_reader *r = v->r;
    uint32_t dir = 0, n = 0;
    bool fits = false, strict = false;
    memset(out, 0, n_wanted * sizeof *out);
    if (a.cap == 0) {
        return KM_OK;
    }
    if (!find_directory(r, a, &dir, &n)) {
        if (a.offset % KM_DIRECTORY_ALIGN == 0 && km_fits(r, a.offset, 4)) {
            uint32_t d = km_read_u32(r, a.offset);
            if (d != 0 && km_read_u32(r, d) > r->limits.max_directory_entries) {
                return km_fail(v, KM_ERR_DIRECTORY_TOO_LARGE, d, km_read_u32(r, d));
            }
        }
        return km_fail(v, KM_ERR_MALFORMED_ARRAY, a.offset, 0);
    }
    if (km_charge(v, directory_charge(n)) != KM_OK) {
        return KM_ERR_BUDGET_EXCEEDED;
    }
    /* Two entries for one known column are ambiguous, and one with another
     * value size would be misread (format.md §5.3). */
    lay_out_columns(r, a, dir, n, wanted, n_wanted, out, &fits, &strict);
    if (!fits || !strict) {
        memset(out, 0, n_wanted * sizeof *out);
        return km_fail(v, KM_ERR_MALFORMED_ARRAY, a.offset, 0);
    }
    /* An element is at least one unit, also without columns: a huge
     * capacity of nothing is no free work (format.md §10). */
    if (n_wanted == 0) {
        return km_charge(v, a.cap);
    }
    /* Every known column is charged, present or not: absent columns read
     * as zeros and decoders allocate them (format.md §10). */
    for (size_t j = 0; j < n_wanted; j++) {
        if (km_charge(v, (uint64_t)a.cap * wanted[j].size) != KM_OK) {
            return KM_ERR_BUDGET_EXCEEDED;
        }
    }
    return KM_OK;
}

km_status km_check_utf8(km_validator *v, uint32_t offset, uint32_t n) {
    const uint8_t *p;
    if (n == 0) {
        return KM_OK;
    }
    p = km_bytes(v->r, offset, n);
    /* Callers check the array first; text outside the message is refused
     * all the same, not read as empty and valid. */
    if (p == NULL) {
        return km_fail(v, KM_ERR_MALFORMED_ARRAY, offset, 0);
    }
    if (!km_utf8_valid(p, n)) {
        return km_fail(v, KM_ERR_INVALID_TEXT, offset, 0);
    }
    return KM_OK;
}

km_status km_check_utf16(km_validator *v, uint32_t offset, uint32_t n) {
    const uint8_t *p = km_bytes(v->r, offset, (uint64_t)n * 2);
    if (p == NULL) {
        return KM_OK; /* as an empty view: the array check decides */
    }
    for (uint32_t i = 0; i < n; i++) {
        uint16_t u = km_load_u16(p + 2 * (size_t)i);
        if (u < 0xD800 || u > 0xDFFF) {
            continue;
        }
        if (u < 0xDC00 && i + 1 < n) {
            uint16_t low = km_load_u16(p + 2 * ((size_t)i + 1));
            if (low >= 0xDC00 && low <= 0xDFFF) {
                i++;
                continue;
            }
        }
        return km_fail(v, KM_ERR_INVALID_TEXT, offset, i);
    }
    return KM_OK;
}

km_status km_check_bool(km_validator *v, uint32_t offset) {
    if (km_read_u8(v->r, offset) > 1) {
        return km_fail(v, KM_ERR_INVALID_BOOL, offset, 0);
    }
    return KM_OK;
}

km_status km_check_bools(km_validator *v, uint32_t offset, uint32_t n) {
    const uint8_t *p = km_bytes(v->r, offset, n);
    if (p == NULL) {
        return KM_OK;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (p[i] > 1) {
            return km_fail(v, KM_ERR_INVALID_BOOL, offset + i, 0);
        }
    }
    return KM_OK;
}

km_status km_decode_bunch_charge(km_validator *v, km_array a) {
    uint32_t k;
    if (!bunch_entries(v->r, a, &k)) {
        return KM_OK;
    }
    return km_charge(v, bunch_table_size(k));
}

km_status km_check_union_columns(km_validator *v, km_array a, uint32_t tag_size, uint32_t *tags,
                                 uint32_t *offsets) {
    *tags = 0;
    *offsets = 0;
    if (a.cap == 0) {
        return KM_OK;
    }
    if (!km_union_columns(v->r, a, tag_size, tags, offsets)) {
        return km_fail(v, KM_ERR_MALFORMED_ARRAY, a.offset, 0);
    }
    return km_charge(v, (uint64_t)a.cap * ((uint64_t)tag_size + 4));
}

km_status km_check_bunch(km_validator *v, km_array a, const uint32_t *known, size_t n_known,
                         uint32_t *entries) {
    const km_reader *r = v->r;
    uint32_t k;
    uint64_t block, total = 0, missing = 0;
    *entries = 0;
    if (a.cap == 0) {
        return n_known == 0 ? KM_OK : km_charge(v, n_known);
    }
    k = km_read_u32(r, a.offset);
    if (k > r->limits.max_directory_entries) {
        return km_fail(v, KM_ERR_DIRECTORY_TOO_LARGE, a.offset, k);
    }
    block = bunch_table_size(k);
    if (a.offset % KM_BUNCH_TABLE_ALIGN != 0 || !km_fits(r, a.offset, block)) {
        return km_fail(v, KM_ERR_MALFORMED_ARRAY, a.offset, 0);
    }
    if (km_charge(v, block) != KM_OK) {
        return KM_ERR_BUDGET_EXCEEDED;
    }
    /* The array's length is the number of stored elements: the entries'
     * lengths, unknown tags included, add up to it (format.md §7.1); summed
     * in 64 bits, which k < 2^32 values below 2^32 cannot wrap. */
    for (uint32_t e = 1; e <= k; e++) {
        total += km_read_u32(r, a.offset + 16 * e + 8);
    }
    if (total != a.len) {
        return km_fail(v, KM_ERR_MALFORMED_ARRAY, a.offset, 0);
    }
    /* A known variant with two entries would be ambiguous (format.md §7.1);
     * unknown tags may repeat: no reader of this schema looks at them. */
    for (size_t j = 0; j < n_known; j++) {
        uint32_t seen = 0;
        for (uint32_t e = 1; e <= k; e++) {
            seen += km_read_u32(r, a.offset + 16 * e) == known[j];
        }
        if (seen > 1) {
            return km_fail(v, KM_ERR_MALFORMED_ARRAY, a.offset, 0);
        }
        missing += seen == 0;
    }
    *entries = k;
    return missing == 0 ? KM_OK : km_charge(v, missing);
}

/* ---- Writer ----------------------------------------------------------------- */

/* The alignment of the writer's own buffers: a cache line, so that no
 * column shares a line with data before the message. */
enum { LINE_SIZE = 64 };

static void *default_alloc(void *ctx, size_t size) {
    (void)ctx;
    /* aligned_alloc wants a multiple of the alignment. */
    return aligned_alloc(LINE_SIZE, (size_t)align_up(size, LINE_SIZE));
}

static void default_free(void *ctx, void *p, size_t size) {
    (void)ctx;
    (void)size;
    free(p);
}

static void writer_defaults(km_writer *w) {
    memset(w, 0, sizeof *w);
    w->dirs = w->dirs_inline;
    w->dirs_cap = KM_WRITER_DIRECTORIES;
}

km_status km_writer_init(km_writer *w, size_t capacity, const km_allocator *allocator) {
    writer_defaults(w);
    if (allocator != NULL) {
        w->allocator = *allocator;
    } else {
        w->allocator.alloc = default_alloc;
        w->allocator.free = default_free;
    }
    if (capacity < LINE_SIZE) {
        capacity = LINE_SIZE;
    }
    if (capacity > UINT32_MAX) {
        return KM_ERR_TOO_LARGE;
    }
    w->buf = (uint8_t *)w->allocator.alloc(w->allocator.ctx, capacity);
    if (w->buf == NULL) {
        return KM_ERR_NO_MEMORY;
    }
    w->cap = (uint32_t)capacity;
    return KM_OK;
}

km_status km_writer_init_fixed(km_writer *w, void *buf, size_t len) {
    writer_defaults(w);
    w->fixed = true;
    if (buf == NULL || len < KM_HEADER_SIZE) {
        return KM_ERR_TOO_LARGE;
    }
    if ((uintptr_t)buf % KM_ARRAY_ALIGN != 0) {
        return KM_ERR_MISALIGNED;
    }
    w->buf = (uint8_t *)buf;
    w->cap = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
    return KM_OK;
}

void km_writer_free(km_writer *w) {
    if (!w->fixed && w->buf != NULL) {
        w->allocator.free(w->allocator.ctx, w->buf, w->cap);
    }
    if (w->dirs != w->dirs_inline && w->dirs != NULL) {
        w->allocator.free(w->allocator.ctx, w->dirs, w->dirs_cap * sizeof *w->dirs);
    }
    writer_defaults(w);
}

/* Makes room for end bytes, keeping what was written. */
static km_status grow(km_writer *w, uint64_t end) {
    uint64_t want;
    uint8_t *buf;
    if (end <= w->cap) {
        return KM_OK;
    }
    if (w->fixed || end > UINT32_MAX || w->buf == NULL) {
        return KM_ERR_TOO_LARGE;
    }
    want = 2 * (uint64_t)w->cap;
    if (want < end) {
        want = end;
    }
    if (want > UINT32_MAX) {
        want = UINT32_MAX;
    }
    buf = (uint8_t *)w->allocator.alloc(w->allocator.ctx, (size_t)want);
    if (buf == NULL) {
        return KM_ERR_NO_MEMORY;
    }
    memcpy(buf, w->buf, w->len);
    w->allocator.free(w->allocator.ctx, w->buf, w->cap);
    w->buf = buf;
    w->cap = (uint32_t)want;
    return KM_OK;
}

km_status km_writer_begin(km_writer *w) {
    w->len = 0;
    w->n_dirs = 0;
    if (w->buf == NULL || w->cap < KM_HEADER_SIZE) {
        return KM_ERR_TOO_LARGE;
    }
    memset(w->buf, 0, KM_HEADER_SIZE);
    w->len = KM_HEADER_SIZE;
    return KM_OK;
}

km_status km_writer_finish(km_writer *w) {
    uint64_t end = align_up(w->len, 8);
    km_status s = grow(w, end);
    if (s != KM_OK) {
        return s;
    }
    memset(w->buf + w->len, 0, (size_t)(end - w->len));
    w->len = (uint32_t)end;
    w->buf[0] = 'K';
    w->buf[1] = 'M';
    w->buf[2] = KM_VERSION;
    w->buf[3] = 0;
    km_store_u32(w->buf + 4, w->len);
    return KM_OK;
}

static km_status reserve(km_writer *w, uint64_t size, uint32_t align, bool zero,
                         uint32_t *offset) {
    uint64_t start = align_up(w->len, align);
    uint64_t end = start + size;
    km_status s = grow(w, end);
    if (s != KM_OK) {
        return s;
    }
    memset(w->buf + w->len, 0, (size_t)(start - w->len));
    if (zero) {
        memset(w->buf + start, 0, (size_t)size);
    }
    w->len = (uint32_t)end;
    *offset = (uint32_t)start;
    return KM_OK;
}

km_status km_alloc(km_writer *w, uint32_t size, uint32_t align, uint32_t *offset) {
    return reserve(w, size, align, true, offset);
}

km_status km_alloc_filled(km_writer *w, uint32_t size, uint32_t align, uint32_t *offset) {
    return reserve(w, size, align, false, offset);
}

static km_status alloc_array(km_writer *w, uint64_t count, uint32_t elem_size, bool zero,
                             uint32_t *offset) {
    uint64_t bytes;
    *offset = 0;
    if (count == 0) {
        return KM_OK;
    }
    if (count > UINT32_MAX) {
        return KM_ERR_TOO_LARGE;
    }
    bytes = count * elem_size;
    if (bytes > UINT32_MAX) {
        return KM_ERR_TOO_LARGE;
    }
    return reserve(w, bytes, km_natural_align(elem_size), zero, offset);
}

km_status km_alloc_array(km_writer *w, uint64_t count, uint32_t elem_size, uint32_t *offset) {
    return alloc_array(w, count, elem_size, true, offset);
}

km_status km_alloc_array_filled(km_writer *w, uint64_t count, uint32_t elem_size,
                                uint32_t *offset) {
    return alloc_array(w, count, elem_size, false, offset);
}

km_status km_write_array(km_writer *w, uint32_t at, const void *values, uint32_t n,
                         uint32_t elem_size) {
    uint32_t offset;
    km_status s = km_alloc_array_filled(w, n, elem_size, &offset);
    if (s != KM_OK) {
        return s;
    }
    if (n != 0) {
        memcpy(w->buf + offset, values, (size_t)n * elem_size);
    }
    km_put_array_ref(w, at, offset, n, n);
    return KM_OK;
}

km_status km_write_bools(km_writer *w, uint32_t at, const bool *values, uint32_t n) {
    uint32_t offset;
    km_status s = km_alloc_array_filled(w, n, 1, &offset);
    if (s != KM_OK) {
        return s;
    }
    for (uint32_t i = 0; i < n; i++) {
        w->buf[offset + i] = values[i] ? 1 : 0;
    }
    km_put_array_ref(w, at, offset, n, n);
    return KM_OK;
}

/* The UTF-16 code point of the next rune: invalid UTF-8 becomes U+FFFD. */
static uint32_t next_rune(const uint8_t *p, size_t n, size_t *i) {
    uint32_t cp = decode_rune(p, n, i);
    return cp == INVALID_RUNE ? 0xFFFD : cp;
}

uint64_t km_utf16_len(const char *text, size_t len) {
    const uint8_t *p = (const uint8_t *)text;
    uint64_t units = 0;
    for (size_t i = 0; i < len;) {
        units += next_rune(p, len, &i) >= 0x10000 ? 2 : 1;
    }
    return units;
}

km_status km_write_utf16(km_writer *w, uint32_t at, const char *text, size_t len) {
    const uint8_t *p = (const uint8_t *)text;
    uint64_t units = km_utf16_len(text, len);
    uint32_t offset, o;
    km_status s;
    s = km_alloc_array_filled(w, units, 2, &offset);
    if (s != KM_OK) {
        return s;
    }
    o = offset;
    for (size_t i = 0; i < len;) {
        uint32_t c = next_rune(p, len, &i);
        if (c >= 0x10000) {
            c -= 0x10000;
            km_put_u16(w, o, (uint16_t)(0xD800 + (c >> 10)));
            km_put_u16(w, o + 2, (uint16_t)(0xDC00 + (c & 0x3FF)));
            o += 4;
        } else {
            km_put_u16(w, o, (uint16_t)c);
            o += 2;
        }
    }
    km_put_array_ref(w, at, offset, (uint32_t)units, (uint32_t)units);
    return KM_OK;
}

/* Whether the directory at d lists exactly these columns. */
static bool lists(const km_writer *w, uint32_t d, const km_column *columns, size_t n) {
    if (km_load_u32(w->buf + d) != n) {
        return false;
    }
    for (size_t k = 0; k < n; k++) {
        const uint8_t *e = w->buf + d + 4 + 4 * k;
        if (km_load_u32(e) != columns[k].hash || km_load_u32(e + 4 * n) != columns[k].size) {
            return false;
        }
    }
    return true;
}

/* The directory of this column list written earlier in the message: the
 * one written for the same list (generated code passes one static array
 * every time) first, then by bytes. 0 when there is none (a directory is
 * never at offset 0). */
static uint32_t find_written_directory(const km_writer *w, const km_column *columns, size_t n) {
    for (uint32_t i = 0; i < w->n_dirs; i++) {
        if (w->dirs[i].columns == columns && lists(w, w->dirs[i].offset, columns, n)) {
            return w->dirs[i].offset;
        }
    }
    for (uint32_t i = 0; i < w->n_dirs; i++) {
        if (lists(w, w->dirs[i].offset, columns, n)) {
            return w->dirs[i].offset;
        }
    }
    return 0;
}

/* Remembers a directory for the rest of the message. */
static km_status remember_directory(km_writer *w, const km_column *columns, uint32_t offset) {
    if (w->n_dirs == w->dirs_cap) {
        km_written_directory *more;
        uint32_t cap = 2 * w->dirs_cap;
        /* A fixed writer has no allocator: it cannot remember more, and
         * writing the directory again would give other bytes than every
         * other writer. */
        if (w->fixed) {
            return KM_ERR_TOO_LARGE;
        }
        more = (km_written_directory *)w->allocator.alloc(w->allocator.ctx,
                                                          cap * sizeof *more);
        if (more == NULL) {
            return KM_ERR_NO_MEMORY;
        }
        memcpy(more, w->dirs, w->n_dirs * sizeof *more);
        if (w->dirs != w->dirs_inline) {
            w->allocator.free(w->allocator.ctx, w->dirs, w->dirs_cap * sizeof *w->dirs);
        }
        w->dirs = more;
        w->dirs_cap = cap;
    }
    w->dirs[w->n_dirs].columns = columns;
    w->dirs[w->n_dirs].offset = offset;
    w->n_dirs++;
    return KM_OK;
}

km_status km_write_soa(km_writer *w, uint32_t at, uint32_t count, const km_column *columns,
                       size_t n_columns, uint32_t *out) {
    uint32_t dir, block;
    km_status s;
    if (count == 0) {
        km_put_array_ref(w, at, 0, 0, 0);
        memset(out, 0, n_columns * sizeof *out);
        return KM_OK;
    }
    dir = find_written_directory(w, columns, n_columns);
    if (dir == 0) {
        uint32_t n = (uint32_t)n_columns;
        if (n_columns > UINT32_MAX / 2 - 1) {
            return KM_ERR_TOO_LARGE;
        }
        s = km_alloc(w, (uint32_t)directory_size(n), KM_DIRECTORY_ALIGN, &dir);
        if (s != KM_OK) {
            return s;
        }
        km_put_u32(w, dir, n);
        for (uint32_t k = 0; k < n; k++) {
            km_put_u32(w, dir + 4 + 4 * k, columns[k].hash);
            km_put_u32(w, dir + 4 + 4 * (n + k), columns[k].size);
        }
        s = remember_directory(w, columns, dir);
        if (s != KM_OK) {
            return s;
        }
    }
    s = km_alloc(w, 4, KM_DIRECTORY_ALIGN, &block);
    if (s != KM_OK) {
        return s;
    }
    km_put_u32(w, block, dir);
    for (size_t k = 0; k < n_columns; k++) {
        s = columns[k].dense ? km_alloc_array_filled(w, count, columns[k].size, &out[k])
                             : km_alloc_array(w, count, columns[k].size, &out[k]);
        if (s != KM_OK) {
            return s;
        }
    }
    km_put_array_ref(w, at, block, count, count);
    return KM_OK;
}

km_status km_write_bunch_table(km_writer *w, uint32_t entries, uint32_t *table) {
    km_status s;
    if (entries > UINT32_MAX / 16 - 1) {
        return KM_ERR_TOO_LARGE;
    }
    s = km_alloc(w, (uint32_t)bunch_table_size(entries), KM_BUNCH_TABLE_ALIGN, table);
    if (s != KM_OK) {
        return s;
    }
    km_put_u32(w, *table, entries);
    return KM_OK;
}

/* ---- Editor ----------------------------------------------------------------- */

km_status km_editor_open(km_editor *e, void *buf, size_t len) {
    e->mem = (uint8_t *)buf;
    return km_reader_open(&e->r, buf, len);
}

km_status km_edit_field(km_editor *e, km_table t, uint32_t offset, const void *value,
                        uint32_t size) {
    if (e->r.status != KM_OK || t.used == 0 || !km_has(t, offset, size) ||
        !km_fits(&e->r, t.offset + offset, size)) {
        return KM_ERR_MALFORMED_TABLE;
    }
    memcpy(e->mem + t.offset + offset, value, size);
    return KM_OK;
}

km_status km_edit_len(km_editor *e, uint32_t at, uint32_t elem_size, uint32_t len) {
    km_array a = km_array_at(&e->r, at, elem_size, KM_NO_LIMIT);
    uint32_t lo, hi;
    if (e->r.status != KM_OK || !km_fits(&e->r, at, KM_ARRAY_REF_SIZE) ||
        (a.cap == 0 && km_read_u32(&e->r, at + 8) != 0)) {
        return KM_ERR_MALFORMED_ARRAY;
    }
    if (len > a.cap) {
        return KM_ERR_TOO_LARGE;
    }
    /* Both ways the elements between the old and the new length are
     * zeroed: dropped ones so that unused capacity stays zero, exposed ones
     * because a message from elsewhere may hold anything there. */
    lo = len < a.len ? len : a.len;
    hi = len < a.len ? a.len : len;
    if (hi > lo) {
        memset(e->mem + a.offset + (size_t)lo * elem_size, 0, (size_t)(hi - lo) * elem_size);
    }
    km_store_u32(e->mem + at + 4, len);
    return KM_OK;
}

/* ---- Decoding helpers -------------------------------------------------------- */

km_status km_decode_soa_columns(km_validator *v, km_array a, const km_column *wanted,
                                size_t n_wanted, uint32_t *out) {
    uint32_t dir, n;
    bool fits = true, strict;
    memset(out, 0, n_wanted * sizeof *out);
    if (!find_directory(v->r, a, &dir, &n)) {
        return KM_OK;
    }
    lay_out_columns(v->r, a, dir, n, wanted, n_wanted, out, &fits, &strict);
    if (!fits) {
        memset(out, 0, n_wanted * sizeof *out);
    }
    /* Charged as read, whether its block fits or not (as Go's decoder). */
    return km_charge(v, directory_charge(n));
}

int km_compare_text(const km_reader *r, uint32_t a, uint32_t b) {
    km_array x = km_array_at(r, a, 1, KM_NO_LIMIT);
    km_array y = km_array_at(r, b, 1, KM_NO_LIMIT);
    uint32_t n = x.len < y.len ? x.len : y.len;
    if (n != 0) {
        int c = memcmp(r->mem + x.offset, r->mem + y.offset, n);
        if (c != 0) {
            return c;
        }
    }
    return x.len < y.len ? -1 : (x.len > y.len ? 1 : 0);
}

int km_text_cmp(km_text a, km_text b) {
    uint32_t n = a.len < b.len ? a.len : b.len;
    if (n != 0) {
        int c = memcmp(a.ptr, b.ptr, n);
        if (c != 0) {
            return c;
        }
    }
    return a.len < b.len ? -1 : (a.len > b.len ? 1 : 0);
}

km_text km_text_cstr(const char *s) {
    km_text t = {s, 0};
    if (s != NULL) {
        size_t n = strlen(s);
#if SIZE_MAX > UINT32_MAX
        /* Only where size_t is wider than the format's lengths. */
        if (n > UINT32_MAX) {
            n = UINT32_MAX;
        }
#endif
        t.len = (uint32_t)n;
    }
    return t;
}

/* ---- Arena ---------------------------------------------------------------------- */

/* The header of a block from the allocator; the block's bytes follow it. */
struct km_arena_block {
    km_arena_block *next;
    size_t size; /* bytes after the header */
    size_t used; /* bytes handed out when the arena moved to a newer block */
    size_t pad;  /* keeps the bytes after the header 16-aligned */
};

void km_arena_init(km_arena *a, void *buf, size_t len) {
    uintptr_t p = (uintptr_t)buf;
    size_t skip = (size_t)((8 - p % 8) % 8);
    memset(a, 0, sizeof *a);
    if (buf == NULL || len < skip) {
        return;
    }
    a->first = (uint8_t *)buf + skip;
    a->first_cap = len - skip;
    a->buf = a->first;
    a->cap = a->first_cap;
}

void km_arena_init_growable(km_arena *a, void *buf, size_t len, const km_allocator *allocator) {
    km_arena_init(a, buf, len);
    a->growable = true;
    if (allocator != NULL) {
        a->allocator = *allocator;
    } else {
        a->allocator.alloc = default_alloc;
        a->allocator.free = default_free;
    }
}

km_status km_arena_alloc(km_arena *a, size_t size, void **out) {
    size_t start;
    *out = NULL;
    if (size == 0) {
        return KM_OK;
    }
    start = (a->len + 7) & ~(size_t)7;
    if (a->buf == NULL || start > a->cap || size > a->cap - start) {
        /* A new block: twice the last one, at least what is asked. */
        km_arena_block *b;
        size_t want = a->cap * 2 < 4096 ? 4096 : a->cap * 2;
        if (!a->growable || size > SIZE_MAX / 2 - sizeof *b) {
            return KM_ERR_NO_MEMORY;
        }
        if (want < size) {
            want = size;
        }
        b = (km_arena_block *)a->allocator.alloc(a->allocator.ctx, sizeof *b + want);
        if (b == NULL) {
            return KM_ERR_NO_MEMORY;
        }
        b->next = a->blocks;
        b->size = want;
        b->used = 0;
        if (a->blocks != NULL) {
            a->blocks->used = a->len;
        }
        a->blocks = b;
        a->buf = (uint8_t *)(b + 1);
        a->cap = want;
        a->len = 0;
        start = 0;
    }
    memset(a->buf + start, 0, size);
    a->len = start + size;
    *out = a->buf + start;
    return KM_OK;
}

km_status km_arena_array(km_arena *a, uint64_t count, size_t elem_size, void **out) {
    *out = NULL;
    if (elem_size != 0 && count > SIZE_MAX / elem_size) {
        return KM_ERR_NO_MEMORY;
    }
    return km_arena_alloc(a, (size_t)count * elem_size, out);
}

void km_arena_free(km_arena *a) {
    km_arena_block *b = a->blocks;
    while (b != NULL) {
        km_arena_block *next = b->next;
        a->allocator.free(a->allocator.ctx, b, sizeof *b + b->size);
        b = next;
    }
    a->blocks = NULL;
    a->buf = a->first;
    a->cap = a->first_cap;
    a->len = 0;
}

void km_arena_reset(km_arena *a) { km_arena_free(a); }

size_t km_arena_used(const km_arena *a) {
    size_t n = a->len;
    if (a->blocks != NULL) {
        /* The caller's buffer was left when the first block was taken. */
        n += a->first_cap;
        for (const km_arena_block *b = a->blocks->next; b != NULL; b = b->next) {
            n += b->used;
        }
    }
    return n;
}

/* Appends code point c as UTF-8 to out (room for 4 bytes). */
static size_t put_utf8(uint8_t *out, uint32_t c) {
    if (c < 0x80) {
        out[0] = (uint8_t)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (uint8_t)(0xC0 | (c >> 6));
        out[1] = (uint8_t)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (uint8_t)(0xE0 | (c >> 12));
        out[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (uint8_t)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | (c >> 18));
    out[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (uint8_t)(0x80 | (c & 0x3F));
    return 4;
}

km_status km_arena_utf16(km_arena *arena, const km_reader *r, km_array a, km_text *out) {
    const uint8_t *units = km_bytes(r, a.offset, (uint64_t)a.len * 2);
    uint8_t *text;
    void *p;
    size_t n = 0;
    out->ptr = "";
    out->len = 0;
    if (units == NULL) {
        return KM_OK;
    }
    /* At most 3 bytes of UTF-8 per unit (a pair of 2 units gives 4). */
    KM_TRY(km_arena_array(arena, a.len, 3, &p));
    text = (uint8_t *)p;
    for (uint32_t i = 0; i < a.len; i++) {
        uint32_t c = km_load_u16(units + 2 * (size_t)i);
        if (c >= 0xD800 && c <= 0xDFFF) {
            uint32_t d = i + 1 < a.len ? km_load_u16(units + 2 * (size_t)(i + 1)) : 0;
            if (c < 0xDC00 && d >= 0xDC00 && d <= 0xDFFF) {
                c = 0x10000 + ((c - 0xD800) << 10) + (d - 0xDC00);
                i++;
            } else {
                c = 0xFFFD;
            }
        }
        n += put_utf8(text + n, c);
    }
    out->ptr = (const char *)text;
    out->len = (uint32_t)n;
    return KM_OK;
}
