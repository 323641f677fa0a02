/*
 * libFuzzer target for the C library's reader and validator (c/karmem.c):
 * any bytes are a message; every reader and validator function is called
 * at every 4-byte position with the element sizes the format uses, under
 * AddressSanitizer and UndefinedBehaviorSanitizer (scripts/test-c.sh).
 *
 * Beyond "no crash, no out-of-bounds read", it checks what the format
 * promises (docs/format.md §5, §10, §11):
 *   - every view a reader returns lies inside the message;
 *   - an array reference the validator accepts reads the same through the
 *     reader (non-empty ones), and one the reader finds well formed is
 *     accepted by the validator;
 *   - SoA columns the validator accepts are those the reader resolves;
 *   - non-empty text the reader returns is valid UTF-8;
 *   - a bunch table the validator accepts gives every known variant's
 *     entry through the reader;
 *   - what the validator accepted reads alike through the trusted reader
 *     (km_trusted_*, which the generated trusted viewers use): tables,
 *     arrays, text, SoA and union columns, bunch entries.
 */
#include "../karmem.h"

#include <stdio.h>
#include <stdlib.h>

#define REQUIRE(cond)                                                               \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "fuzz_reader: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                \
        }                                                                           \
    } while (0)

static _Alignas(64) uint8_t buf[1 << 16];

static const uint32_t elem_sizes[] = {0, 1, 2, 4, 8, 12, 24};
static const km_column wanted[] = {{0x4b95f515u, 4, false}, {0x9be17165u, 12, false},
                                   {0x3c39ef87u, 1, false}};
static const uint32_t known_tags[] = {1, 2};

static void inside(const km_reader *r, const void *p, uint64_t n) {
    const uint8_t *b = (const uint8_t *)p;
    if (p == NULL || n == 0) {
        return;
    }
    REQUIRE(b >= r->mem && (uint64_t)(b - r->mem) + n <= r->size);
}

static void check_position(const km_reader *r, uint32_t at) {
    km_validator v;
    km_table t = km_table_at(r, at), checked;
    uint32_t cols[3], vcols[3], tcols[3], tags, offsets, entries, ttags, toffsets;
    km_trusted tr = km_trust(r);
    if (t.used != 0) {
        km_table tt = km_trusted_table(tr, at);
        inside(r, r->mem + t.offset, t.used);
        km_validator_init(&v, r);
        REQUIRE(km_check_table(&v, at, 0, &checked) == KM_OK);
        REQUIRE(checked.offset == t.offset && checked.used == t.used);
        REQUIRE(tt.offset == t.offset && tt.used == t.used);
        (void)km_field_u64(r, t, 8);
        (void)km_field_table(r, t, 4);
    }
    for (size_t i = 0; i < sizeof elem_sizes / sizeof elem_sizes[0]; i++) {
        uint32_t es = elem_sizes[i];
        km_array a = km_array_at(r, at, es, KM_NO_LIMIT), va;
        km_status s;
        km_validator_init(&v, r);
        s = km_check_array_at(&v, at, es, KM_NO_LIMIT, &va);
        if (a.cap != 0) {
            REQUIRE(s == KM_OK || s == KM_ERR_BUDGET_EXCEEDED);
            inside(r, r->mem + a.offset, (uint64_t)a.cap * es);
        }
        if (s == KM_OK && va.cap != 0) {
            km_array ta = km_trusted_view_array(tr, at);
            REQUIRE(va.offset == a.offset && va.len == a.len && va.cap == a.cap);
            REQUIRE(ta.offset == a.offset && ta.len == a.len && ta.cap == a.cap);
        }
        if (es == 1) {
            km_text text = km_text_of(r, a);
            if (text.len != 0) {
                inside(r, text.ptr, text.len);
                REQUIRE(km_utf8_valid((const uint8_t *)text.ptr, text.len));
                REQUIRE(km_check_utf8(&v, a.offset, a.len) == KM_OK);
                if (s == KM_OK) {
                    km_text tt = km_trusted_text(tr, a);
                    REQUIRE(tt.ptr == text.ptr && tt.len == text.len);
                }
            }
            (void)km_check_bools(&v, a.offset, a.len);
        }
        if (es == 2) {
            inside(r, km_slice_u16(r, a.offset, a.len), 2 * (uint64_t)a.len);
            (void)km_check_utf16(&v, a.offset, a.len);
        }
        if (es == 8) {
            inside(r, km_slice_f64(r, a.offset, a.len), 8 * (uint64_t)a.len);
        }
        if (es == 0) {
            km_soa_columns(r, a, wanted, 3, cols);
            for (int j = 0; j < 3; j++) {
                if (cols[j] != 0) {
                    inside(r, r->mem + cols[j], (uint64_t)a.cap * wanted[j].size);
                }
            }
            km_validator_init(&v, r);
            if (km_check_soa(&v, a, wanted, 3, vcols) == KM_OK) {
                REQUIRE(memcmp(cols, vcols, sizeof cols) == 0);
                km_trusted_soa_columns(tr, a, wanted, 3, tcols);
                REQUIRE(memcmp(cols, tcols, sizeof cols) == 0);
            }
            if (km_union_columns(r, a, 1, &tags, &offsets)) {
                inside(r, r->mem + tags, a.cap);
                inside(r, r->mem + offsets, 4 * (uint64_t)a.cap);
            }
            km_validator_init(&v, r);
            if (km_check_union_columns(&v, a, 2, &tags, &offsets) == KM_OK && a.cap != 0) {
                REQUIRE(km_trusted_union_columns(tr, a, 2, &ttags, &toffsets));
                REQUIRE(ttags == tags && toffsets == offsets);
            }
            km_validator_init(&v, r);
            if (km_check_bunch(&v, a, known_tags, 2, &entries) == KM_OK) {
                for (int j = 0; j < 2; j++) {
                    km_array e = km_bunch_entry(r, a, known_tags[j], 4);
                    inside(r, r->mem + e.offset, 4 * (uint64_t)e.cap);
                    /* A generated validator also checks each entry's array
                     * with its variant's size: compare those it accepts. */
                    if (e.cap != 0) {
                        km_array te = km_trusted_bunch_entry(tr, a, known_tags[j]);
                        REQUIRE(te.offset == e.offset && te.len == e.len && te.cap == e.cap);
                    }
                }
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    km_reader r;
    km_validator v;
    km_table root;
    if (size > sizeof buf) {
        return 0;
    }
    memcpy(buf, data, size);
    if (km_reader_open(&r, buf, size) != KM_OK) {
        km_validator_init(&v, &r);
        REQUIRE(km_check_root(&v, 0, &root) == r.status);
        return 0;
    }
    /* Every position of the first 4 KiB (the budget of one input). */
    for (uint32_t at = 0; at < r.size && at < 4096; at += 4) {
        check_position(&r, at);
    }
    km_validator_init(&v, &r);
    (void)km_check_root(&v, 0, &root);
    return 0;
}
