/*
 * Karmem for C11: the runtime library of a zero-copy, little-endian,
 * bounds-checked binary format (docs/format.md, docs/c.md).
 *
 * Generated code (`karmem build --lang c`) is built from these pieces:
 *
 *   - km_reader: bounds-checked, zero-copy access to one message. Malformed
 *     data reads as zero or empty (format.md §4-§5), never as an
 *     out-of-bounds read. A reader never allocates.
 *   - km_validator: the state of one validation pass (traversal budget,
 *     depth limit, format.md §10-§11) behind the generated validators; it
 *     records where the message is wrong in a km_error.
 *   - km_trusted: reads after a validator accepted the message, without
 *     the per-access checks.
 *   - km_writer: a 64-byte aligned output buffer, growable (through a
 *     km_allocator, malloc by default) or fixed over a caller's buffer.
 *   - km_editor functions: in-place updates of table scalars.
 *
 * Views (text, native arrays over columns) point into the message: it must
 * stay alive and unchanged while they are in use. Messages must start at
 * an 8-byte aligned address (format.md §1).
 */
#ifndef KARMEM_H
#define KARMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Native arrays over columns reinterpret little-endian bytes: the library
 * builds for little-endian targets only (x86, ARM, wasm32, RISC-V). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "karmem.h: this library supports little-endian targets only"
#endif

/* ---- Format constants (format.md §1, §5, §7) ---------------------------- */

enum {
    /* Size of the message header; the root object starts right after it. */
    KM_HEADER_SIZE = 8,
    /* The format version read and written (the second edition). */
    KM_VERSION = 2,
    /* Largest alignment of an array block or SoA column: the widest scalar. */
    KM_ARRAY_ALIGN = 8,
    /* An array reference: offset, length, capacity (u32 each). */
    KM_ARRAY_REF_SIZE = 12,
    /* A union slot: tag, padding, u32 offset at 4 (format.md §7). */
    KM_UNION_SLOT_SIZE = 8,
    /* Alignment of an SoA directory (u32 words) and of a bunch table. */
    KM_DIRECTORY_ALIGN = 4,
    KM_BUNCH_TABLE_ALIGN = 8
};

/* The limit argument for arrays that are not limited ([]T, not [<N]T). */
#define KM_NO_LIMIT UINT32_MAX

/* ---- Errors -------------------------------------------------------------- */

/* What went wrong. KM_OK is 0, so `if (status)` tests for a failure. The
 * kinds are those of every Karmem library (Rust, Go, Zig). */
typedef enum km_status {
    KM_OK = 0,
    KM_ERR_TRUNCATED,
    KM_ERR_MISALIGNED,
    KM_ERR_BAD_MAGIC,
    KM_ERR_UNSUPPORTED_VERSION,
    KM_ERR_BAD_FLAGS,
    KM_ERR_BAD_SIZE,
    KM_ERR_MALFORMED_TABLE,
    KM_ERR_MALFORMED_ARRAY,
    KM_ERR_LIMIT_EXCEEDED,
    KM_ERR_INVALID_TEXT,
    KM_ERR_INVALID_BOOL,
    KM_ERR_INVALID_UNION,
    KM_ERR_DIRECTORY_TOO_LARGE,
    KM_ERR_DEPTH_EXCEEDED,
    KM_ERR_BUDGET_EXCEEDED,
    KM_ERR_TOO_LARGE,
    /* The writer's allocator returned NULL. */
    KM_ERR_NO_MEMORY
} km_status;

/* A problem located in a message: the kind, a byte offset in the message,
 * and an extra number (a length, tag, size or entry count) when the kind
 * has one. */
typedef struct km_error {
    km_status kind;
    uint32_t offset;
    uint64_t value;
} km_error;

/* A constant English description of a status ("karmem: malformed array"). */
const char *km_status_text(km_status status);

/* ---- Limits (format.md §10) ---------------------------------------------- */

typedef struct km_limits {
    /* Entries scanned in one SoA directory or bunch table. */
    uint32_t max_directory_entries;
    /* Nesting the validator and decoders follow. */
    uint32_t max_depth;
    /* A validation pass visits at most this many times the message size. */
    uint32_t traversal_budget_factor;
} km_limits;

/* 1024 directory entries, depth 64, budget factor 8. */
km_limits km_default_limits(void);

/* ---- Little-endian loads and stores -------------------------------------- */

/* Unaligned-safe loads from bytes: compilers turn memcpy of a constant size
 * into one load. */
static inline uint16_t km_load_u16(const uint8_t *p) {
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline uint32_t km_load_u32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline uint64_t km_load_u64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline float km_bits_f32(uint32_t bits) {
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}
static inline double km_bits_f64(uint64_t bits) {
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}
static inline uint32_t km_f32_bits(float v) {
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits;
}
static inline uint64_t km_f64_bits(double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits;
}
static inline void km_store_u16(uint8_t *p, uint16_t v) { memcpy(p, &v, sizeof v); }
static inline void km_store_u32(uint8_t *p, uint32_t v) { memcpy(p, &v, sizeof v); }
static inline void km_store_u64(uint8_t *p, uint64_t v) { memcpy(p, &v, sizeof v); }

/* The alignment of an array block or SoA column of elements of `size`
 * bytes (format.md §5): the largest power of two dividing it, at most 8; 1
 * for 0 (blocks sized by their own checks: SoA, SoA unions, bunches). */
static inline uint32_t km_natural_align(uint32_t size) {
    uint32_t low;
    if (size == 0) {
        return 1;
    }
    low = size & (0u - size);
    return low < KM_ARRAY_ALIGN ? low : KM_ARRAY_ALIGN;
}

/* FNV-1a (32-bit) over the little-endian u32 encoding of each index of an
 * SoA column's position path (format.md §5.3). */
uint32_t km_path_hash(const uint32_t *path, size_t n);

/* ---- Reader (format.md §1-§7) -------------------------------------------- */

/* One message, opened by km_reader_open. A reader whose header is invalid
 * (its status is not KM_OK) behaves as an empty message: every read gives
 * zero. */
typedef struct km_reader {
    const uint8_t *mem; /* the message, header included; NULL if not opened */
    uint32_t size;      /* the message size from its header; 0 if not opened */
    km_status status;   /* why the message could not be opened, or KM_OK */
    km_limits limits;
} km_reader;

/* A table at `offset` whose first `used` bytes hold fields. {0, 0} is an
 * absent or malformed table: every field reads as zero. */
typedef struct km_table {
    uint32_t offset;
    uint32_t used;
} km_table;

/* A checked array reference: len elements at offset, room for cap. {0,0,0}
 * is the empty array. */
typedef struct km_array {
    uint32_t offset;
    uint32_t len;
    uint32_t cap;
} km_array;

/* UTF-8 text viewed in the message: not NUL-terminated. */
typedef struct km_text {
    const char *ptr;
    uint32_t len;
} km_text;

/* One SoA column a reader knows (format.md §5.3): the hash of its position
 * path, the size of one value, and whether a writer fills every value
 * itself (dense columns are not zeroed first). */
typedef struct km_column {
    uint32_t hash;
    uint32_t size;
    bool dense;
} km_column;

/* Opens the message in buf[0..len) with the default limits (it may be
 * followed by unrelated bytes: the header's size bounds every access). buf
 * must be 8-byte aligned. Returns the header check's result, also kept in
 * r->status. */
km_status km_reader_open(km_reader *r, const void *buf, size_t len);
/* km_reader_open with other limits. */
km_status km_reader_open_limits(km_reader *r, const void *buf, size_t len, km_limits limits);

/* Whether n bytes at offset lie inside the message. */
static inline bool km_fits(const km_reader *r, uint32_t offset, uint64_t n) {
    return (uint64_t)offset + n <= (uint64_t)r->size;
}

/* Scalar loads: out of bounds reads as zero. */
static inline uint8_t km_read_u8(const km_reader *r, uint32_t at) {
    return km_fits(r, at, 1) ? r->mem[at] : 0;
}
static inline uint16_t km_read_u16(const km_reader *r, uint32_t at) {
    return km_fits(r, at, 2) ? km_load_u16(r->mem + at) : 0;
}
static inline uint32_t km_read_u32(const km_reader *r, uint32_t at) {
    return km_fits(r, at, 4) ? km_load_u32(r->mem + at) : 0;
}
static inline uint64_t km_read_u64(const km_reader *r, uint32_t at) {
    return km_fits(r, at, 8) ? km_load_u64(r->mem + at) : 0;
}
static inline int8_t km_read_i8(const km_reader *r, uint32_t at) {
    return (int8_t)km_read_u8(r, at);
}
static inline int16_t km_read_i16(const km_reader *r, uint32_t at) {
    return (int16_t)km_read_u16(r, at);
}
static inline int32_t km_read_i32(const km_reader *r, uint32_t at) {
    return (int32_t)km_read_u32(r, at);
}
static inline int64_t km_read_i64(const km_reader *r, uint32_t at) {
    return (int64_t)km_read_u64(r, at);
}
static inline bool km_read_bool(const km_reader *r, uint32_t at) { return km_read_u8(r, at) != 0; }
static inline float km_read_f32(const km_reader *r, uint32_t at) {
    return km_bits_f32(km_read_u32(r, at));
}
static inline double km_read_f64(const km_reader *r, uint32_t at) {
    return km_bits_f64(km_read_u64(r, at));
}

/* The table at offset; {0, 0} when absent (offset 0) or malformed
 * (format.md §4). */
km_table km_table_at(const km_reader *r, uint32_t offset);
/* The root table, at offset 8. */
static inline km_table km_root(const km_reader *r) { return km_table_at(r, KM_HEADER_SIZE); }

/* Whether a field at offset of size bytes is in the used part of t: a field
 * past it (an older writer) reads as zero. */
static inline bool km_has(km_table t, uint32_t offset, uint32_t size) {
    return (uint64_t)offset + size <= (uint64_t)t.used;
}

/* Scalar fields of a table; absent fields read as zero. */
#define KM_FIELD_LOAD(name, type, size)                                                  \
    static inline type km_field_##name(const km_reader *r, km_table t, uint32_t offset) { \
        return km_has(t, offset, size) ? km_read_##name(r, t.offset + offset) : (type)0;  \
    }
KM_FIELD_LOAD(u8, uint8_t, 1)
KM_FIELD_LOAD(u16, uint16_t, 2)
KM_FIELD_LOAD(u32, uint32_t, 4)
KM_FIELD_LOAD(u64, uint64_t, 8)
KM_FIELD_LOAD(i8, int8_t, 1)
KM_FIELD_LOAD(i16, int16_t, 2)
KM_FIELD_LOAD(i32, int32_t, 4)
KM_FIELD_LOAD(i64, int64_t, 8)
KM_FIELD_LOAD(bool, bool, 1)
KM_FIELD_LOAD(f32, float, 4)
KM_FIELD_LOAD(f64, double, 8)
#undef KM_FIELD_LOAD

/* The table a field of t refers to ({0, 0} if absent or malformed). */
km_table km_field_table(const km_reader *r, km_table t, uint32_t offset);

/* A raw array reference from 12 bytes (offset, length, capacity); a zero
 * capacity means no data block whatever the offset says, so it gives the
 * empty array. */
km_array km_load_array_ref(const uint8_t *p);
/* Checks a (format.md §5): elem_size bytes per element of its block (0
 * where the block is a directory or bunch table, checked on use), limit the
 * N of [<N]T or KM_NO_LIMIT. Malformed gives the empty array. */
km_array km_check_array(const km_reader *r, km_array a, uint32_t elem_size, uint32_t limit);
/* The array reference stored at `at`, checked. */
km_array km_array_at(const km_reader *r, uint32_t at, uint32_t elem_size, uint32_t limit);
/* An array field of a table (empty when absent). */
km_array km_field_array(const km_reader *r, km_table t, uint32_t offset, uint32_t elem_size,
                        uint32_t limit);

/* n bytes at offset, or NULL when offset is 0, n is 0 or the range is not
 * inside the message. */
const uint8_t *km_bytes(const km_reader *r, uint32_t offset, uint64_t n);

/* Native arrays of n values at offset, over the message (no copy); NULL when
 * offset is 0, n is 0, the range is outside the message or misaligned
 * (unreachable for messages opened by km_reader_open). bool arrays are read
 * as bytes (km_bytes): a hostile byte 2 is not a valid C bool. */
#define KM_SLICE(name, type)                                                              \
    static inline const type *km_slice_##name(const km_reader *r, uint32_t offset,        \
                                              uint32_t n) {                               \
        const uint8_t *p = km_bytes(r, offset, (uint64_t)n * sizeof(type));               \
        return (p != NULL && ((uintptr_t)p % _Alignof(type)) == 0) ? (const type *)(const void *)p \
                                                                   : NULL;                \
    }
KM_SLICE(u16, uint16_t)
KM_SLICE(u32, uint32_t)
KM_SLICE(u64, uint64_t)
KM_SLICE(i8, int8_t)
KM_SLICE(i16, int16_t)
KM_SLICE(i32, int32_t)
KM_SLICE(i64, int64_t)
KM_SLICE(f32, float)
KM_SLICE(f64, double)
#undef KM_SLICE

/* UTF-8 text of an array; text that is not valid UTF-8 reads as empty
 * (format.md §6), as in every other implementation. */
km_text km_text_of(const km_reader *r, km_array a);
/* Whether n bytes are valid UTF-8 (RFC 3629: no surrogates, no overlongs). */
bool km_utf8_valid(const uint8_t *p, size_t n);

/* Resolves SoA columns in one pass over the directory of a (format.md §5.3):
 * out[j] gets the offset of column wanted[j], or 0 when it is absent or
 * malformed (it then reads as zeros). */
void km_soa_columns(const km_reader *r, km_array a, const km_column *wanted, size_t n_wanted,
                    uint32_t *out);
/* The tag and offset columns of an SoA array of unions (format.md §7.1);
 * false if the array is empty or its block does not fit. */
bool km_union_columns(const km_reader *r, km_array a, uint32_t tag_size, uint32_t *tags,
                      uint32_t *offsets);
/* The array of one variant in a bunch table (format.md §7.1), checked like
 * any array; empty if the variant has no entry. */
km_array km_bunch_entry(const km_reader *r, km_array a, uint32_t tag, uint32_t elem_size);
/* Whether an inline struct of size bytes can be read at offset (non-zero,
 * 8-aligned, inside the message): the check of inline union values. */
static inline bool km_inline_at(const km_reader *r, uint32_t offset, uint32_t size) {
    return offset != 0 && offset % 8 == 0 && km_fits(r, offset, size);
}

/* ---- Viewer helpers (generated viewers, docs/c.md "Viewers") ------------ */

/* Generated viewers find a slot at a position `at`, 0 when the slot is not
 * there (an absent field or SoA column: no slot lies in the header), and
 * read it through these. */

/* The table whose offset is stored at `at` ({0, 0} for at == 0). */
static inline km_table km_view_table(const km_reader *r, uint32_t at) {
    return km_table_at(r, at != 0 ? km_read_u32(r, at) : 0u);
}
/* The checked array reference stored at `at` (empty for at == 0). */
static inline km_array km_view_array(const km_reader *r, uint32_t at, uint32_t elem_size,
                                     uint32_t limit) {
    km_array empty = {0u, 0u, 0u};
    return at != 0 ? km_array_at(r, at, elem_size, limit) : empty;
}

/* Native arrays in the message: ptr is NULL and len 0 when the array is
 * empty, absent or malformed. bool arrays are km_u8_slice (a hostile byte 2
 * is not a valid C bool: test `!= 0`), UTF-16 text km_u16_slice. */
#define KM_VIEW_SLICE(name, type)                                                         \
    typedef struct km_##name##_slice {                                                    \
        const type *ptr;                                                                  \
        uint32_t len;                                                                     \
    } km_##name##_slice;                                                                  \
    static inline km_##name##_slice km_##name##_slice_at(const km_reader *r,              \
                                                         uint32_t offset, uint32_t n) {   \
        km_##name##_slice s;                                                              \
        s.ptr = (const type *)(const void *)km_bytes(r, offset, (uint64_t)n * sizeof(type)); \
        if (s.ptr != NULL && ((uintptr_t)s.ptr % _Alignof(type)) != 0) {                  \
            s.ptr = NULL;                                                                 \
        }                                                                                 \
        s.len = s.ptr != NULL ? n : 0u;                                                   \
        return s;                                                                         \
    }                                                                                     \
    static inline km_##name##_slice km_##name##_slice_of(const km_reader *r, km_array a) { \
        return km_##name##_slice_at(r, a.offset, a.len);                                  \
    }
KM_VIEW_SLICE(u8, uint8_t)
KM_VIEW_SLICE(u16, uint16_t)
KM_VIEW_SLICE(u32, uint32_t)
KM_VIEW_SLICE(u64, uint64_t)
KM_VIEW_SLICE(i8, int8_t)
KM_VIEW_SLICE(i16, int16_t)
KM_VIEW_SLICE(i32, int32_t)
KM_VIEW_SLICE(i64, int64_t)
KM_VIEW_SLICE(f32, float)
KM_VIEW_SLICE(f64, double)
#undef KM_VIEW_SLICE

/* ---- Validator (format.md §10-§11) --------------------------------------- */

/* The state of one validation pass; lives on the caller's stack. Every
 * function returns KM_OK or the kind of the first problem, which is also
 * recorded in `error` with its location. */
typedef struct km_validator {
    const km_reader *r;
    uint64_t budget;
    uint32_t depth;
    km_error error;
} km_validator;

/* Starts a pass over r: budget = traversal_budget_factor × message size. A
 * reader that could not be opened fails the first check with its status. */
void km_validator_init(km_validator *v, const km_reader *r);
/* Records a problem and returns its kind (for generated code). */
km_status km_fail(km_validator *v, km_status kind, uint32_t offset, uint64_t value);
/* Accounts for n bytes visited (at least 1); fails once the budget is spent. */
km_status km_charge(km_validator *v, uint64_t n);
/* Charges units for each of n elements (what the zero values of n
 * elements hold, format.md §10), nothing when the product is 0; a product
 * past 2^64 - 1 is charged as that, and refused. */
km_status km_charge_each(km_validator *v, uint32_t n, uint64_t units);
/* Fails with KM_ERR_BUDGET_EXCEEDED, charging nothing, when the budget left
 * cannot pay units for each of n elements: a decoder about to allocate n
 * elements that will each be charged at least units (a table at least its
 * zero value's size) refuses before allocating what it would refuse
 * anyway. */
km_status km_reserve_each(km_validator *v, uint32_t n, uint64_t units);
/* Descends one nesting level; fails past the depth limit. */
km_status km_enter(km_validator *v);
static inline void km_leave(km_validator *v) { v->depth--; }

/* The table at offset must be well formed (offset 0 is malformed: a writer
 * always writes a table), of a type whose full size (the table a writer of
 * the reader's schema writes) is full; charged max(total × 8, full), as a
 * decoder builds every field of the reader's schema (format.md §10). */
km_status km_check_table(km_validator *v, uint32_t offset, uint32_t full, km_table *out);
/* The root table: the header must have opened, then as km_check_table. */
km_status km_check_root(km_validator *v, uint32_t full, km_table *out);
/* The array reference at `at` must be well formed and within limit. */
km_status km_check_array_at(km_validator *v, uint32_t at, uint32_t elem_size, uint32_t limit,
                            km_array *out);
/* An array field of a table (absent = empty, valid). */
km_status km_check_field_array(km_validator *v, km_table t, uint32_t offset,
                               uint32_t elem_size, uint32_t limit, km_array *out);
/* An SoA directory, resolving the known columns into out as
 * km_soa_columns; a known column that is present must be well formed. */
km_status km_check_soa(km_validator *v, km_array a, const km_column *wanted, size_t n_wanted,
                       uint32_t *out);
/* n bytes at offset must be valid UTF-8. */
km_status km_check_utf8(km_validator *v, uint32_t offset, uint32_t n);
/* n code units at offset must be valid UTF-16 (no unpaired surrogate). */
km_status km_check_utf16(km_validator *v, uint32_t offset, uint32_t n);
/* The byte at offset must be 0 or 1; km_check_bools: n of them. */
km_status km_check_bool(km_validator *v, uint32_t offset);
km_status km_check_bools(km_validator *v, uint32_t offset, uint32_t n);
/* The tag and offset columns of an SoA array of unions; *tags = *offsets =
 * 0 for an empty array. */
km_status km_check_union_columns(km_validator *v, km_array a, uint32_t tag_size, uint32_t *tags,
                                 uint32_t *offsets);
/* A bunch table: its size, entry lengths adding up to the array's length,
 * no known tag twice; *entries gets its number of entries. A known tag
 * without an entry costs one unit, as a decoder charges its empty array
 * (format.md §10). */
km_status km_check_bunch(km_validator *v, km_array a, const uint32_t *known, size_t n_known,
                         uint32_t *entries);

/* ---- Decoding helpers (generated decoders) ------------------------------- */

/* km_soa_columns for an object decoder: the same columns, and the
 * directory charged to the budget of v (8 × (n + 1) units, format.md §10)
 * whenever it is well formed. A malformed directory is not charged and
 * gives no columns. */
km_status km_decode_soa_columns(km_validator *v, km_array a, const km_column *wanted,
                                size_t n_wanted, uint32_t *out);
/* Charges the bunch table of a once, as a decoder reads it (format.md §10):
 * 16 × (k + 1) for a well-formed table of k entries, nothing for an empty or
 * malformed one (whose variants read as empty). */
km_status km_decode_bunch_charge(km_validator *v, km_array a);
/* Compares the bytes of the two text arrays whose references are at a and
 * b, as a map's keys are ordered (format.md §5.5: bytes, shorter first on a
 * common prefix): <0, 0 or >0. Malformed references compare as empty. */
int km_compare_text(const km_reader *r, uint32_t a, uint32_t b);
/* The same order over two texts of an object: <0, 0 or >0 (an encoder
 * checks that a map's text keys increase). */
int km_text_cmp(km_text a, km_text b);
/* The text of a NUL-terminated C string, for an object an encoder writes
 * (the encoder copies it into the message; the string is not copied
 * here). NULL is the empty text. A string of 4 GiB or more is given the
 * length UINT32_MAX, which no message can hold: the encoder refuses it. */
km_text km_text_cstr(const char *s);

/* Evaluates a km_status expression and returns it from the calling
 * function when it is not KM_OK. */
#define KM_TRY(expr)                                                                      \
    do {                                                                                  \
        km_status km_try_status_ = (expr);                                                \
        if (km_try_status_ != KM_OK) {                                                    \
            return km_try_status_;                                                        \
        }                                                                                 \
    } while (0)

/* ---- Trusted reads (after validation) ------------------------------------ */

/* A message a validator accepted: loads without bounds checks. Obtain one
 * only from km_trust (or a generated trust function). The message must not
 * change while it is in use. */
typedef struct km_trusted {
    const uint8_t *mem;
    uint32_t size;
} km_trusted;

/* The trusted view of r, for a message a validator accepted. */
static inline km_trusted km_trust(const km_reader *r) {
    km_trusted t;
    t.mem = r->mem;
    t.size = r->size;
    return t;
}
static inline uint8_t km_trusted_u8(km_trusted t, uint32_t at) { return t.mem[at]; }
static inline uint16_t km_trusted_u16(km_trusted t, uint32_t at) { return km_load_u16(t.mem + at); }
static inline uint32_t km_trusted_u32(km_trusted t, uint32_t at) { return km_load_u32(t.mem + at); }
static inline uint64_t km_trusted_u64(km_trusted t, uint32_t at) { return km_load_u64(t.mem + at); }
/* A table a validator checked (offset non-zero): its used size from the
 * header; {0, 0} for offset 0 (absent). */
static inline km_table km_trusted_table(km_trusted t, uint32_t offset) {
    km_table out = {0, 0};
    if (offset != 0) {
        uint32_t header = km_load_u32(t.mem + offset);
        out.offset = offset;
        out.used = (header & 0x1FFFFFFFu) * 8u - (header >> 29);
    }
    return out;
}
static inline km_array km_trusted_array(km_trusted t, uint32_t at) {
    return km_load_array_ref(t.mem + at);
}

/* What the generated trusted viewers (docs/c.md, "Trusted viewers") read
 * through: the km_read_*, km_view_*, km_*_slice_*, km_text_of,
 * km_soa_columns, km_union_columns and km_bunch_entry of a checked viewer,
 * without the checks a validator made once for the whole message (bounds,
 * alignment, UTF-8, array sizes and limits, directories, bunch tables).
 * What a valid message may still lack reads as it does through a
 * km_reader: a position `at` of 0 is an absent slot, and an absent table,
 * array or SoA column reads as zero or empty. */
static inline int8_t km_trusted_i8(km_trusted t, uint32_t at) { return (int8_t)km_trusted_u8(t, at); }
static inline int16_t km_trusted_i16(km_trusted t, uint32_t at) {
    return (int16_t)km_trusted_u16(t, at);
}
static inline int32_t km_trusted_i32(km_trusted t, uint32_t at) {
    return (int32_t)km_trusted_u32(t, at);
}
static inline int64_t km_trusted_i64(km_trusted t, uint32_t at) {
    return (int64_t)km_trusted_u64(t, at);
}
/* A validated bool byte is 0 or 1; != 0 keeps a C bool valid regardless. */
static inline bool km_trusted_bool(km_trusted t, uint32_t at) { return t.mem[at] != 0; }
static inline float km_trusted_f32(km_trusted t, uint32_t at) {
    return km_bits_f32(km_trusted_u32(t, at));
}
static inline double km_trusted_f64(km_trusted t, uint32_t at) {
    return km_bits_f64(km_trusted_u64(t, at));
}
/* The table whose offset is stored at `at` ({0, 0} for at == 0 or offset 0). */
static inline km_table km_trusted_view_table(km_trusted t, uint32_t at) {
    return km_trusted_table(t, at != 0 ? km_trusted_u32(t, at) : 0u);
}
/* The validated array reference stored at `at` (empty for at == 0). */
static inline km_array km_trusted_view_array(km_trusted t, uint32_t at) {
    km_array empty = {0u, 0u, 0u};
    return at != 0 ? km_trusted_array(t, at) : empty;
}
/* UTF-8 text the validator checked (empty: ptr "", len 0, as km_text_of). */
static inline km_text km_trusted_text(km_trusted t, km_array a) {
    km_text s = {"", 0u};
    if (a.len != 0) {
        s.ptr = (const char *)(t.mem + a.offset);
        s.len = a.len;
    }
    return s;
}
/* Native arrays over a validated block (aligned and inside the message):
 * ptr NULL and len 0 when offset is 0 or n is 0, as the checked ones. */
#define KM_TRUSTED_SLICE(name, type)                                                      \
    static inline km_##name##_slice km_trusted_##name##_slice_at(km_trusted t,            \
                                                                 uint32_t offset, uint32_t n) { \
        km_##name##_slice s;                                                              \
        s.ptr = NULL;                                                                     \
        s.len = 0u;                                                                       \
        if (offset != 0 && n != 0) {                                                      \
            s.ptr = (const type *)(const void *)(t.mem + offset);                         \
            s.len = n;                                                                    \
        }                                                                                 \
        return s;                                                                         \
    }                                                                                     \
    static inline km_##name##_slice km_trusted_##name##_slice_of(km_trusted t, km_array a) { \
        return km_trusted_##name##_slice_at(t, a.offset, a.len);                          \
    }
KM_TRUSTED_SLICE(u8, uint8_t)
KM_TRUSTED_SLICE(u16, uint16_t)
KM_TRUSTED_SLICE(u32, uint32_t)
KM_TRUSTED_SLICE(u64, uint64_t)
KM_TRUSTED_SLICE(i8, int8_t)
KM_TRUSTED_SLICE(i16, int16_t)
KM_TRUSTED_SLICE(i32, int32_t)
KM_TRUSTED_SLICE(i64, int64_t)
KM_TRUSTED_SLICE(f32, float)
KM_TRUSTED_SLICE(f64, double)
#undef KM_TRUSTED_SLICE
/* km_soa_columns over a directory and block km_check_soa accepted: every
 * known column is listed at most once, with its size, inside the message. */
void km_trusted_soa_columns(km_trusted t, km_array a, const km_column *wanted, size_t n_wanted,
                            uint32_t *out);
/* km_union_columns over a block the validator checked; false when empty. */
bool km_trusted_union_columns(km_trusted t, km_array a, uint32_t tag_size, uint32_t *tags,
                              uint32_t *offsets);
/* km_bunch_entry over a bunch table the validator checked (its entries'
 * arrays have the variants' element sizes); empty without an entry. */
km_array km_trusted_bunch_entry(km_trusted t, km_array a, uint32_t tag);

/* ---- Writer --------------------------------------------------------------- */

/* Where a growable writer gets its memory: alloc returns `size` bytes at an
 * address aligned to 64, or NULL; free releases what alloc returned. A NULL
 * allocator argument means aligned_alloc/free. */
typedef struct km_allocator {
    void *(*alloc)(void *ctx, size_t size);
    void (*free)(void *ctx, void *p, size_t size);
    void *ctx;
} km_allocator;

/* A directory written in the current message, and the column list it was
 * first written for. */
typedef struct km_written_directory {
    const km_column *columns;
    uint32_t offset;
} km_written_directory;

/* SoA directories a writer remembers without allocating (a fixed writer
 * without an allocator remembers no more: a message with more distinct SoA
 * element types fails with KM_ERR_TOO_LARGE rather than write different
 * bytes than other writers). */
#define KM_WRITER_DIRECTORIES 64

/* An output buffer for messages (format.md §8). Everything it hands out is
 * zero-filled: padding and unused capacity are zero and nothing of a
 * previous message leaks into the next. Offsets are positions in the
 * message. */
typedef struct km_writer {
    uint8_t *buf;
    uint32_t cap;
    uint32_t len;
    bool fixed;
    km_allocator allocator;
    km_written_directory dirs_inline[KM_WRITER_DIRECTORIES];
    km_written_directory *dirs; /* dirs_inline or an allocation */
    uint32_t n_dirs;
    uint32_t dirs_cap;
} km_writer;

/* A growable writer with room for `capacity` bytes before it grows; its
 * memory comes from allocator (NULL: aligned_alloc). */
km_status km_writer_init(km_writer *w, size_t capacity, const km_allocator *allocator);
/* A writer over the caller's buffer: messages are encoded into it in place
 * and it never grows (KM_ERR_TOO_LARGE when full). buf must be 8-byte
 * aligned (KM_ERR_MISALIGNED) and hold the 8-byte header. */
km_status km_writer_init_fixed(km_writer *w, void *buf, size_t len);
/* Releases a growable writer's memory (nothing for a fixed one). */
void km_writer_free(km_writer *w);
/* Starts a message: resets the writer and reserves the header; the root
 * object is allocated next (at offset 8). */
km_status km_writer_begin(km_writer *w);
/* Pads the message to 8 bytes and fills in the header (format.md §1). */
km_status km_writer_finish(km_writer *w);
/* The bytes written (the message after km_writer_finish); they stay valid
 * until the next allocation. */
static inline const uint8_t *km_writer_bytes(const km_writer *w) { return w->buf; }
static inline uint32_t km_writer_len(const km_writer *w) { return w->len; }

/* Reserves size zeroed bytes at the next multiple of align (a power of two,
 * the gap before zeroed too); *offset gets their position. */
km_status km_alloc(km_writer *w, uint32_t size, uint32_t align, uint32_t *offset);
/* km_alloc for a block the caller fills completely (only the gap is
 * zeroed). */
km_status km_alloc_filled(km_writer *w, uint32_t size, uint32_t align, uint32_t *offset);
/* A zeroed array block of count elements of elem_size bytes at their
 * natural alignment (format.md §5); 0 for an empty array (no block). */
km_status km_alloc_array(km_writer *w, uint64_t count, uint32_t elem_size, uint32_t *offset);
km_status km_alloc_array_filled(km_writer *w, uint64_t count, uint32_t elem_size,
                                uint32_t *offset);

/* Stores at a position inside an earlier allocation. */
static inline void km_put_u8(km_writer *w, uint32_t at, uint8_t v) { w->buf[at] = v; }
static inline void km_put_u16(km_writer *w, uint32_t at, uint16_t v) { km_store_u16(w->buf + at, v); }
static inline void km_put_u32(km_writer *w, uint32_t at, uint32_t v) { km_store_u32(w->buf + at, v); }
static inline void km_put_u64(km_writer *w, uint32_t at, uint64_t v) { km_store_u64(w->buf + at, v); }
static inline void km_put_bool(km_writer *w, uint32_t at, bool v) { w->buf[at] = v ? 1 : 0; }
static inline void km_put_f32(km_writer *w, uint32_t at, float v) { km_put_u32(w, at, km_f32_bits(v)); }
static inline void km_put_f64(km_writer *w, uint32_t at, double v) { km_put_u64(w, at, km_f64_bits(v)); }
static inline void km_put_array_ref(km_writer *w, uint32_t at, uint32_t offset, uint32_t len,
                                    uint32_t cap) {
    km_put_u32(w, at, offset);
    km_put_u32(w, at + 4, len);
    km_put_u32(w, at + 8, cap);
}

/* A plain array of n elements of elem_size bytes copied from values (on a
 * little-endian target, numbers as they are in memory; text as UTF-8
 * bytes): data block and reference at `at`. */
km_status km_write_array(km_writer *w, uint32_t at, const void *values, uint32_t n,
                         uint32_t elem_size);
/* A bool array (one byte each, 0 or 1). */
km_status km_write_bools(km_writer *w, uint32_t at, const bool *values, uint32_t n);
/* UTF-8 text written as UTF-16 code units ([]u16 @string); invalid UTF-8
 * bytes become U+FFFD. */
km_status km_write_utf16(km_writer *w, uint32_t at, const char *text, size_t len);
/* The number of UTF-16 code units km_write_utf16 writes for text: what the
 * limit of a [<N]u16 @string counts. */
uint64_t km_utf16_len(const char *text, size_t len);
/* The block of an SoA array of count elements (format.md §5.3): the
 * directory of `columns` (written before the block the first time the
 * message has this column list, shared after), then one column per entry;
 * the reference goes to `at` and the column offsets to out. Dense columns
 * are not zeroed: the caller writes every value. */
km_status km_write_soa(km_writer *w, uint32_t at, uint32_t count, const km_column *columns,
                       size_t n_columns, uint32_t *out);
/* A bunch table of `entries` entries (format.md §7.1) with its count
 * stored; entry e (0-based) starts at *table + 16 × (e + 1). */
km_status km_write_bunch_table(km_writer *w, uint32_t entries, uint32_t *table);

/* ---- Arena: the memory of decoded objects ------------------------------- */

/* A bump allocator for generated decoders: every array, optional table,
 * union value and converted text of a decoded object comes from here, so
 * a whole object is released at once (km_arena_reset) and decoding
 * allocates nowhere else. It starts in the caller's buffer (which may be
 * NULL/0) and, when growable, continues in blocks from a km_allocator;
 * a fixed arena that is full fails with KM_ERR_NO_MEMORY. Everything it
 * hands out is zeroed and 8-byte aligned (the widest member of a
 * generated type). */
typedef struct km_arena_block km_arena_block;
typedef struct km_arena {
    uint8_t *buf;            /* the block being filled */
    size_t cap;              /* its size */
    size_t len;              /* bytes of it handed out */
    uint8_t *first;          /* the caller's buffer */
    size_t first_cap;
    bool growable;
    km_allocator allocator;
    km_arena_block *blocks;  /* blocks from the allocator, newest first */
} km_arena;

/* An arena over buf[0..len) only (buf is aligned up to 8 if needed). */
void km_arena_init(km_arena *a, void *buf, size_t len);
/* An arena that starts in buf[0..len) (may be NULL, 0) and then grows
 * through allocator (NULL: aligned_alloc/free). */
void km_arena_init_growable(km_arena *a, void *buf, size_t len, const km_allocator *allocator);
/* size zeroed bytes, 8-aligned; *out is NULL for size 0. */
km_status km_arena_alloc(km_arena *a, size_t size, void **out);
/* count elements of elem_size bytes (KM_ERR_NO_MEMORY if the product
 * overflows); *out is NULL for count 0. */
km_status km_arena_array(km_arena *a, uint64_t count, size_t elem_size, void **out);
/* Forgets every object: the next allocation starts over in the caller's
 * buffer; the allocated blocks are released. */
void km_arena_reset(km_arena *a);
/* Releases the allocated blocks (the arena may be initialised again). */
void km_arena_free(km_arena *a);
/* Bytes handed out since the last reset (padding included). */
size_t km_arena_used(const km_arena *a);
/* The UTF-16 text of array a as UTF-8 in the arena, unpaired surrogates
 * as U+FFFD (format.md §6). */
km_status km_arena_utf16(km_arena *arena, const km_reader *r, km_array a, km_text *out);

/* ---- In-place edits (format.md §12) -------------------------------------- */

/* A writable message: scalars of present table fields, and array lengths
 * within capacity. Every write is checked like a read; a write that does not
 * fit fails instead of touching other bytes. */
typedef struct km_editor {
    km_reader r; /* the message, read through the usual checks */
    uint8_t *mem;
} km_editor;

/* Opens buf (8-byte aligned, as for km_reader_open) for updates. */
km_status km_editor_open(km_editor *e, void *buf, size_t len);
/* Sets the size-byte field at offset of table t to the bytes at value (a
 * little-endian scalar). A field the message does not hold (an older
 * writer) cannot grow in place: KM_ERR_MALFORMED_TABLE. */
km_status km_edit_field(km_editor *e, km_table t, uint32_t offset, const void *value,
                        uint32_t size);
/* Changes the length of the array whose reference is at `at`, within its
 * capacity (KM_ERR_TOO_LARGE beyond it); the elements between the old and
 * the new length are zeroed. */
km_status km_edit_len(km_editor *e, uint32_t at, uint32_t elem_size, uint32_t len);

/* Writable native arrays in an editor's message, for the generated
 * `_edit_<field>` functions: elements [0, len) may be overwritten in place
 * (format.md §12); cap is the capacity, what km_edit_len may grow len to
 * (elements past len are zeroed by it when exposed, so write them after).
 * ptr is NULL and len and cap 0 when the array reference at `at` is
 * absent (at 0), empty or malformed, or over `limit` (KM_NO_LIMIT or the N
 * of [<N]T). bool arrays are bytes (km_u8_edit): write 0 or 1. */
#define KM_EDIT_SLICE(name, type)                                                         \
    typedef struct km_##name##_edit {                                                     \
        type *ptr;                                                                        \
        uint32_t len;                                                                     \
        uint32_t cap;                                                                     \
    } km_##name##_edit;                                                                   \
    static inline km_##name##_edit km_edit_##name##_slice(km_editor *e, uint32_t at,      \
                                                          uint32_t limit) {               \
        km_##name##_edit s = {NULL, 0u, 0u};                                              \
        km_array a;                                                                       \
        if (at == 0) {                                                                    \
            return s;                                                                     \
        }                                                                                 \
        a = km_array_at(&e->r, at, (uint32_t)sizeof(type), limit);                        \
        if (a.cap != 0) {                                                                 \
            s.ptr = (type *)(void *)(e->mem + a.offset);                                  \
            s.len = a.len;                                                                \
            s.cap = a.cap;                                                                \
        }                                                                                 \
        return s;                                                                         \
    }
KM_EDIT_SLICE(u8, uint8_t)
KM_EDIT_SLICE(u16, uint16_t)
KM_EDIT_SLICE(u32, uint32_t)
KM_EDIT_SLICE(u64, uint64_t)
KM_EDIT_SLICE(i8, int8_t)
KM_EDIT_SLICE(i16, int16_t)
KM_EDIT_SLICE(i32, int32_t)
KM_EDIT_SLICE(i64, int64_t)
KM_EDIT_SLICE(f32, float)
KM_EDIT_SLICE(f64, double)
#undef KM_EDIT_SLICE

#ifdef __cplusplus
}
#endif

#endif /* KARMEM_H */
