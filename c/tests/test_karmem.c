/*
 * Unit tests of the C library (c/karmem.c): the same cases as the Go
 * library's tests (go/karmem_test.go), plus the C-specific paths (fixed
 * writer limits, a failing allocator). Run by scripts/test-c.sh under
 * AddressSanitizer and UndefinedBehaviorSanitizer with gcc and clang.
 *
 * Usage: test_karmem REPOSITORY_ROOT (for the golden vectors).
 */
#include "../karmem.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;
static int checks;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        checks++;                                                                          \
        if (!(cond)) {                                                                     \
            failures++;                                                                    \
            fprintf(stderr, "%s:%d: %s: check failed: %s\n", __FILE__, __LINE__, __func__, \
                    #cond);                                                                \
        }                                                                                  \
    } while (0)

#define CHECK_OK(expr) CHECK((expr) == KM_OK)

/* An 8-aligned scratch area for hand-built messages. */
static _Alignas(64) uint8_t scratch[4096];

/* A message of `size` bytes (a multiple of 8): a valid header, then body. */
static uint8_t *message(const uint8_t *body, size_t body_len, uint32_t size) {
    memset(scratch, 0, sizeof scratch);
    scratch[0] = 'K';
    scratch[1] = 'M';
    scratch[2] = KM_VERSION;
    km_store_u32(scratch + 4, size);
    if (body_len > 0) {
        memcpy(scratch + 8, body, body_len);
    }
    return scratch;
}

static void test_path_hash(void) {
    uint32_t p0[] = {0}, p12[] = {1, 2}, p00[] = {0, 0}, p02[] = {0, 2};
    CHECK(km_path_hash(NULL, 0) == 0x811c9dc5u);
    CHECK(km_path_hash(p0, 1) == 0x4b95f515u);
    CHECK(km_path_hash(p12, 2) == 0xded89066u);
    CHECK(km_path_hash(p00, 2) == 0x9be17165u);
    CHECK(km_path_hash(p02, 2) == 0x3c39ef87u);
}

static void test_header(void) {
    km_reader r;
    uint8_t *m = message(NULL, 0, 16);
    CHECK_OK(km_reader_open(&r, m, 16));
    CHECK(r.size == 16);
    CHECK(km_reader_open(&r, m, 7) == KM_ERR_TRUNCATED);
    CHECK(km_reader_open(&r, m, 15) == KM_ERR_TRUNCATED); /* size 16 > 15 bytes */
    CHECK(r.mem == NULL && r.size == 0 && km_read_u32(&r, 0) == 0);
    CHECK(km_reader_open(&r, m + 1, 16) == KM_ERR_MISALIGNED);
    CHECK(km_reader_open(&r, NULL, 0) == KM_ERR_TRUNCATED);
    m[0] = 'X';
    CHECK(km_reader_open(&r, m, 16) == KM_ERR_BAD_MAGIC);
    m = message(NULL, 0, 16);
    m[2] = 1;
    CHECK(km_reader_open(&r, m, 16) == KM_ERR_UNSUPPORTED_VERSION);
    m = message(NULL, 0, 16);
    m[3] = 1;
    CHECK(km_reader_open(&r, m, 16) == KM_ERR_BAD_FLAGS);
    m = message(NULL, 0, 12);
    CHECK(km_reader_open(&r, m, 16) == KM_ERR_BAD_SIZE);
    m = message(NULL, 0, 0);
    CHECK(km_reader_open(&r, m, 16) == KM_ERR_BAD_SIZE);
    /* Bytes after the message are not part of it. */
    m = message(NULL, 0, 8);
    CHECK_OK(km_reader_open(&r, m, 64));
    CHECK(r.size == 8 && !km_fits(&r, 8, 1));
    CHECK(strcmp(km_status_text(KM_ERR_MALFORMED_ARRAY), "karmem: malformed array") == 0);
}

static void test_tables(void) {
    /* A table at 8: 2 units (16 bytes), 4 unused: used 12. */
    const uint8_t body[] = {2, 0, 0, 0x80, 7, 0, 0, 0};
    const uint8_t too_big[] = {3, 0, 0, 0};
    const uint8_t too_small[] = {1, 0, 0, 0xA0};
    const uint32_t absent[] = {0, 4, 12, 16, 24, 1u << 31};
    km_reader r;
    km_table root;
    CHECK_OK(km_reader_open(&r, message(body, sizeof body, 24), 24));
    root = km_root(&r);
    CHECK(root.offset == 8 && root.used == 12);
    CHECK(km_field_u32(&r, root, 4) == 7);
    CHECK(km_field_u32(&r, root, 12) == 0); /* past the used size */
    CHECK(km_field_u64(&r, root, 8) == 0);
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
        CHECK(km_table_at(&r, absent[i]).used == 0);
    }
    CHECK_OK(km_reader_open(&r, message(too_big, sizeof too_big, 24), 24));
    CHECK(km_root(&r).used == 0);
    CHECK_OK(km_reader_open(&r, message(too_small, sizeof too_small, 24), 24));
    CHECK(km_root(&r).used == 0);
}

/* A message's bytes copied out of a writer into 8-aligned memory. */
static uint8_t *copy_out(const km_writer *w) {
    memset(scratch, 0, sizeof scratch);
    memcpy(scratch, km_writer_bytes(w), km_writer_len(w));
    return scratch;
}

static void test_writer_aligned_zeroed(void) {
    km_writer w;
    uint32_t a, b, c, at, big;
    const uint8_t header[] = {'K', 'M', KM_VERSION, 0, 72, 0, 0, 0};
    bool zero = true;
    CHECK_OK(km_writer_init(&w, 16, NULL));
    CHECK_OK(km_writer_begin(&w));
    CHECK_OK(km_alloc(&w, 100, 8, &a));
    memset(w.buf + a, 0xAB, 100);
    CHECK_OK(km_writer_finish(&w));
    CHECK((uintptr_t)km_writer_bytes(&w) % 64 == 0);
    CHECK_OK(km_writer_begin(&w));
    CHECK_OK(km_alloc(&w, 3, 1, &b));
    CHECK_OK(km_alloc(&w, 4, 64, &c));
    CHECK(b == 8 && c == 64);
    for (uint32_t i = 8; i < 68; i++) {
        zero = zero && w.buf[i] == 0;
    }
    CHECK(zero);
    CHECK_OK(km_writer_finish(&w));
    CHECK(memcmp(km_writer_bytes(&w), header, 8) == 0);
    /* Growth keeps what was written and the alignment. */
    CHECK_OK(km_writer_begin(&w));
    CHECK_OK(km_alloc(&w, 8, 8, &at));
    km_put_u64(&w, at, 0x0102030405060708u);
    CHECK_OK(km_alloc_array(&w, 10000, 8, &big));
    CHECK(big % 8 == 0 && (uintptr_t)(w.buf + big) % 8 == 0);
    CHECK(w.buf[at] == 8);
    CHECK_OK(km_alloc_array(&w, 0, 8, &big));
    CHECK(big == 0);
    CHECK(km_alloc_array(&w, (uint64_t)UINT32_MAX + 1, 1, &big) == KM_ERR_TOO_LARGE);
    CHECK(km_alloc_array(&w, 1u << 31, 4, &big) == KM_ERR_TOO_LARGE);
    km_writer_free(&w);
}

static void test_write_soa_directory(void) {
    km_writer w;
    uint32_t at, at2, at3, cols[2], block;
    const km_column columns[] = {{0x11, 4, false}, {0x22, 1, false}};
    const uint8_t dir[] = {2, 0, 0, 0, 0x11, 0, 0, 0, 0x22, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0};
    const uint8_t ref[] = {40, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0};
    CHECK_OK(km_writer_init(&w, 0, NULL));
    CHECK_OK(km_writer_begin(&w));
    CHECK_OK(km_alloc(&w, 12, 4, &at));
    CHECK_OK(km_write_soa(&w, at, 3, columns, 2, cols));
    /* The reference ends at 20: the directory starts there (20 bytes), the
     * block follows at 40 with the directory's offset, then each column at
     * the natural alignment of its size. */
    CHECK(cols[0] == 44 && cols[1] == 56);
    CHECK(memcmp(w.buf + 20, dir, sizeof dir) == 0);
    CHECK(km_load_u32(w.buf + 40) == 20);
    CHECK(memcmp(w.buf + 8, ref, sizeof ref) == 0);
    /* A second array of the same column list refers to the same directory. */
    CHECK_OK(km_alloc(&w, 12, 4, &at2));
    CHECK_OK(km_write_soa(&w, at2, 1, columns, 2, cols));
    block = km_load_u32(w.buf + at2);
    CHECK(km_load_u32(w.buf + block) == 20 && cols[0] == block + 4 && cols[1] == block + 8);
    /* A new message forgets the directories of the last one. */
    CHECK_OK(km_writer_begin(&w));
    CHECK_OK(km_alloc(&w, 12, 4, &at3));
    CHECK_OK(km_write_soa(&w, at3, 1, columns, 2, cols));
    CHECK(km_load_u32(w.buf + km_load_u32(w.buf + at3)) == at3 + 12);
    /* An empty SoA array has no block. */
    CHECK_OK(km_write_soa(&w, at3, 0, columns, 2, cols));
    CHECK(km_load_u32(w.buf + at3 + 8) == 0 && cols[0] == 0 && cols[1] == 0);
    km_writer_free(&w);
}

/* The trusted reads the generated trusted viewers use give, on a message
 * the validator accepted, what the checked reads give. */
static void test_trusted_reads(void) {
    km_writer w;
    km_reader r;
    km_validator v;
    km_trusted t;
    uint32_t at, cols[2], checked[3], trusted[3], tags, offs, ttags, toffs;
    const km_column columns[] = {{0x11, 4, false}, {0x22, 1, false}};
    const km_column wanted[] = {{0x22, 1, false}, {0x33, 8, false}, {0x11, 4, false}};
    const char *text = "h\xc3\xa9";
    const int16_t shorts[] = {-2, 300};
    const double d = -0.5;
    km_array a, ta;
    km_text s1, s2;
    km_i16_slice is;
    uint8_t *m;
    CHECK_OK(km_writer_init(&w, 0, NULL));
    CHECK_OK(km_writer_begin(&w));
    CHECK_OK(km_alloc(&w, 64, 8, &at));
    CHECK_OK(km_write_soa(&w, at, 3, columns, 2, cols));
    CHECK_OK(km_write_array(&w, at + 12, text, 3, 1));
    CHECK_OK(km_write_array(&w, at + 24, shorts, 2, 2));
    km_put_u64(&w, at + 40, km_f64_bits(d));
    km_put_u8(&w, at + 48, 0xFE);
    CHECK_OK(km_writer_finish(&w));
    m = copy_out(&w);
    CHECK_OK(km_reader_open(&r, m, km_writer_len(&w)));
    t = km_trust(&r);
    km_validator_init(&v, &r);
    a = km_array_at(&r, at, 0, KM_NO_LIMIT);
    CHECK_OK(km_check_soa(&v, a, wanted, 3, checked));
    km_trusted_soa_columns(t, km_trusted_view_array(t, at), wanted, 3, trusted);
    CHECK(checked[0] != 0 && checked[1] == 0 && checked[2] != 0);
    CHECK(memcmp(checked, trusted, sizeof checked) == 0);
    /* The same block as a union array: tags, then the offsets at 4. */
    CHECK(km_union_columns(&r, a, 1, &tags, &offs));
    CHECK(km_trusted_union_columns(t, a, 1, &ttags, &toffs) && ttags == tags && toffs == offs);
    ta.offset = ta.len = ta.cap = 0;
    CHECK(!km_trusted_union_columns(t, ta, 1, &ttags, &toffs) && ttags == 0 && toffs == 0);
    s1 = km_text_of(&r, km_array_at(&r, at + 12, 1, KM_NO_LIMIT));
    s2 = km_trusted_text(t, km_trusted_view_array(t, at + 12));
    CHECK(s2.len == 3 && s2.ptr == s1.ptr);
    s2 = km_trusted_text(t, km_trusted_view_array(t, 0)); /* absent */
    CHECK(s2.len == 0 && s2.ptr != NULL);
    is = km_trusted_i16_slice_of(t, km_trusted_view_array(t, at + 24));
    CHECK(is.len == 2 && is.ptr[0] == -2 && is.ptr[1] == 300);
    CHECK(km_trusted_i16_slice_of(t, ta).ptr == NULL);
    CHECK(km_trusted_f64(t, at + 40) == d && km_trusted_i8(t, at + 48) == -2);
    CHECK(km_trusted_bool(t, at + 48) && !km_trusted_bool(t, at + 49));
    CHECK(km_trusted_view_table(t, 0).offset == 0 && km_trusted_view_table(t, 0).used == 0);
    km_writer_free(&w);
}

static void test_directories_by_contents(void) {
    km_writer w;
    uint32_t at, out[2], blocks[4];
    km_column cols[] = {{0x11, 4, false}, {0x22, 1, false}};
    km_column copied[] = {{0x11, 4, false}, {0x22, 1, false}};
    CHECK_OK(km_writer_init(&w, 0, NULL));
    CHECK_OK(km_writer_begin(&w));
    CHECK_OK(km_alloc(&w, 48, 4, &at));
    CHECK_OK(km_write_soa(&w, at, 2, cols, 2, out));
    CHECK_OK(km_write_soa(&w, at + 12, 2, copied, 2, out));
    cols[1].hash = 0x33;
    cols[1].size = 2;
    CHECK_OK(km_write_soa(&w, at + 24, 2, cols, 2, out));
    CHECK_OK(km_write_soa(&w, at + 36, 2, cols, 2, out));
    for (uint32_t i = 0; i < 4; i++) {
        blocks[i] = km_load_u32(w.buf + km_load_u32(w.buf + at + 12 * i));
    }
    CHECK(blocks[0] == blocks[1]);
    CHECK(blocks[0] != blocks[2] && blocks[2] == blocks[3]);
    km_writer_free(&w);
}

static void test_arrays_and_slices(void) {
    km_writer w;
    km_reader r;
    uint32_t at;
    const float floats[] = {1.5f, 2.5f};
    const uint64_t big[] = {7};
    const char *text = "h\xc3\xa9";
    const float *f;
    km_text t;
    km_array a;
    uint8_t *m;
    CHECK_OK(km_writer_init(&w, 0, NULL));
    CHECK_OK(km_writer_begin(&w));
    CHECK_OK(km_alloc(&w, 48, 8, &at));
    CHECK_OK(km_write_array(&w, at, floats, 2, 4));
    CHECK_OK(km_write_array(&w, at + 12, text, 3, 1));
    CHECK_OK(km_write_array(&w, at + 24, big, 1, 8));
    CHECK_OK(km_writer_finish(&w));
    m = copy_out(&w);
    CHECK_OK(km_reader_open(&r, m, km_writer_len(&w)));
    a = km_array_at(&r, at, 4, KM_NO_LIMIT);
    f = km_slice_f32(&r, a.offset, a.len);
    CHECK(f != NULL && a.len == 2 && f[1] == 2.5f);
    t = km_text_of(&r, km_array_at(&r, at + 12, 1, KM_NO_LIMIT));
    CHECK(t.len == 3 && memcmp(t.ptr, text, 3) == 0);
    CHECK((const uint8_t *)t.ptr == m + km_read_u32(&r, at + 12)); /* a view */
    CHECK(km_array_at(&r, at + 12, 1, 2).len == 0); /* over its limit */
    a = km_array_at(&r, at + 24, 1u << 30, KM_NO_LIMIT);
    CHECK(a.offset == 0 && a.len == 0 && a.cap == 0); /* past the message */
    CHECK(km_slice_u64(&r, km_read_u32(&r, at + 24) + 4, 1) == NULL); /* misaligned */
    CHECK(km_slice_u64(&r, km_read_u32(&r, at + 24), 1u << 20) == NULL);
    CHECK(km_slice_u64(&r, 0, 1) == NULL);
    /* A zero capacity is empty whatever the offset and length say. */
    km_store_u32(m + at + 8, 0);
    a = km_array_at(&r, at, 4, KM_NO_LIMIT);
    CHECK(a.offset == 0 && a.len == 0);
    /* Invalid UTF-8 reads as empty text. */
    m[km_read_u32(&r, at + 12) + 1] = 0xFF;
    t = km_text_of(&r, km_array_at(&r, at + 12, 1, KM_NO_LIMIT));
    CHECK(t.len == 0 && t.ptr != NULL);
    km_writer_free(&w);
}

static void test_utf8(void) {
    static const struct {
        const char *bytes;
        bool valid;
    } cases[] = {
        {"", true},
        {"abc", true},
        {"\xc3\xa9", true},
        {"\xe6\x97\xa5", true},
        {"\xf0\x9f\x98\x80", true},
        {"\xc0\xaf", false},          /* overlong */
        {"\xe0\x80\xaf", false},      /* overlong */
        {"\xed\xa0\x80", false},      /* surrogate */
        {"\xf4\x90\x80\x80", false},  /* past U+10FFFF */
        {"\xc3", false},              /* truncated */
        {"\xe6\x97", false},          /* truncated */
        {"\x80", false},              /* lone continuation */
        {"\xff", false},
        {"a\xc3(", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *s = cases[i].bytes;
        CHECK(km_utf8_valid((const uint8_t *)s, strlen(s)) == cases[i].valid);
    }
}

static void test_utf16(void) {
    static const char *texts[] = {"", "abc", "\xc3\xb1 and \xf0\x9f\x98\x80", "\xe6\x97\xa5"};
    static const uint32_t units[] = {0, 3, 8, 1};
    for (size_t i = 0; i < 4; i++) {
        km_writer w;
        km_reader r;
        km_validator v;
        km_array a;
        uint32_t at;
        CHECK_OK(km_writer_init(&w, 0, NULL));
        CHECK_OK(km_writer_begin(&w));
        CHECK_OK(km_alloc(&w, 12, 4, &at));
        CHECK_OK(km_write_utf16(&w, at, texts[i], strlen(texts[i])));
        CHECK_OK(km_writer_finish(&w));
        CHECK_OK(km_reader_open(&r, copy_out(&w), km_writer_len(&w)));
        a = km_array_at(&r, at, 2, KM_NO_LIMIT);
        CHECK(a.len == units[i]);
        km_validator_init(&v, &r);
        CHECK_OK(km_check_utf16(&v, a.offset, a.len));
        if (i == 2) {
            const uint16_t *u = km_slice_u16(&r, a.offset, a.len);
            CHECK(u != NULL && u[6] == 0xD83D && u[7] == 0xDE00);
        }
        km_writer_free(&w);
    }
    {
        /* Invalid UTF-8 is written as U+FFFD; unpaired surrogates are refused. */
        km_writer w;
        km_reader r;
        km_validator v;
        uint32_t at, off;
        CHECK_OK(km_writer_init(&w, 0, NULL));
        CHECK_OK(km_writer_begin(&w));
        CHECK_OK(km_alloc(&w, 12, 4, &at));
        CHECK_OK(km_write_utf16(&w, at, "a\xff\xe6\x97", 4));
        off = km_load_u32(w.buf + at);
        CHECK(km_load_u32(w.buf + at + 4) == 4);
        CHECK(km_load_u16(w.buf + off + 2) == 0xFFFD && km_load_u16(w.buf + off + 6) == 0xFFFD);
        km_put_u16(&w, off, 0xD800);
        CHECK_OK(km_writer_finish(&w));
        CHECK_OK(km_reader_open(&r, copy_out(&w), km_writer_len(&w)));
        km_validator_init(&v, &r);
        CHECK(km_check_utf16(&v, off, 4) == KM_ERR_INVALID_TEXT);
        CHECK(v.error.kind == KM_ERR_INVALID_TEXT && v.error.offset == off && v.error.value == 0);
        km_writer_free(&w);
    }
}

static void test_utf8_outside_the_message(void) {
    const uint8_t body[] = {1, 0, 0, 0x80};
    km_reader r;
    km_validator v;
    CHECK_OK(km_reader_open(&r, message(body, sizeof body, 16), 16));
    km_validator_init(&v, &r);
    CHECK_OK(km_check_utf8(&v, 8, 0));
    CHECK(km_check_utf8(&v, 16, 1) == KM_ERR_MALFORMED_ARRAY);
    CHECK(km_check_utf8(&v, 12, 5) == KM_ERR_MALFORMED_ARRAY);
    CHECK(km_check_utf8(&v, UINT32_MAX - 2, 8) == KM_ERR_MALFORMED_ARRAY);
}

/* A message whose root table (at 8) holds one array reference at 12. */
static void one_array_root(km_writer *w, uint32_t *at) {
    CHECK_OK(km_writer_init(w, 0, NULL));
    CHECK_OK(km_writer_begin(w));
    CHECK_OK(km_alloc(w, 16, 8, at));
    km_put_u32(w, *at, 2);
}

/* A root holding one bunch array of length n over a bunch table of the
 * given (tag, length) entries; returns the reference's position. */
static uint32_t bunch_message(km_reader *r, uint32_t n, const uint32_t (*entries)[2],
                              uint32_t count) {
    km_writer w;
    uint32_t at, table;
    one_array_root(&w, &at);
    CHECK_OK(km_write_bunch_table(&w, count, &table));
    for (uint32_t i = 0; i < count; i++) {
        uint32_t entry = table + 16 * (i + 1), data;
        CHECK_OK(km_alloc(&w, 64, 64, &data));
        km_put_u32(&w, entry, entries[i][0]);
        km_put_array_ref(&w, entry + 4, data, entries[i][1], entries[i][1]);
    }
    km_put_array_ref(&w, at + 4, table, n, n > 0 ? n : 1);
    CHECK_OK(km_writer_finish(&w));
    CHECK_OK(km_reader_open(r, copy_out(&w), km_writer_len(&w)));
    km_writer_free(&w);
    return at + 4;
}

static void test_bunch(void) {
    static const uint32_t known[] = {1, 4};
    static const uint32_t three[][2] = {{1, 2}, {9, 3}, {4, 1}};
    static const uint32_t wraps[][2] = {{1, UINT32_MAX}, {4, 2}};
    static const uint32_t huge[][2] = {{1, UINT32_MAX}, {4, UINT32_MAX}, {5, 1}};
    static const uint32_t twice1[][2] = {{1, 1}, {4, 1}, {1, 1}};
    static const uint32_t twice4[][2] = {{4, 1}, {4, 1}};
    static const uint32_t empty_twice[][2] = {{1, 1}, {1, 0}};
    static const uint32_t unknown_twice[][2] = {{9, 1}, {1, 1}, {9, 1}, {4, 1}};
    static const uint32_t billion[][2] = {{1, 1000000000}};
    static const struct {
        uint32_t n;
        const uint32_t (*entries)[2];
        uint32_t count;
        bool ok;
    } cases[] = {
        {6, three, 3, true},   {0, NULL, 0, true},  {7, three, 3, false},
        {5, three, 3, false},  {1, NULL, 0, false}, {1, wraps, 2, false},
        {UINT32_MAX, huge, 3, false},               {3, twice1, 3, false},
        {2, twice4, 2, false}, {1, empty_twice, 2, false}, {4, unknown_twice, 4, true},
    };
    km_reader r;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        km_validator v;
        uint32_t at = bunch_message(&r, cases[i].n, cases[i].entries, cases[i].count), k;
        km_array a = km_array_at(&r, at, 0, KM_NO_LIMIT);
        km_status s;
        CHECK(a.len == cases[i].n);
        km_validator_init(&v, &r);
        s = km_check_bunch(&v, a, known, 2, &k);
        if (cases[i].ok) {
            CHECK(s == KM_OK && k == cases[i].count);
        } else {
            CHECK(s == KM_ERR_MALFORMED_ARRAY);
        }
    }
    {
        /* Not validated, an entry claiming a billion elements reads as
         * empty; a reader uses the first entry of a tag. */
        uint32_t at = bunch_message(&r, 1, billion, 1);
        km_array e = km_bunch_entry(&r, km_array_at(&r, at, 0, KM_NO_LIMIT), 1, 4);
        CHECK(e.offset == 0 && e.len == 0 && e.cap == 0);
        at = bunch_message(&r, 3, twice1, 3);
        e = km_bunch_entry(&r, km_array_at(&r, at, 0, KM_NO_LIMIT), 1, 4);
        CHECK(e.len == 1);
    }
}

/* An SoA array of 3 elements with the given directory; returns the array. */
static km_array soa_message(km_reader *r, const km_column *columns, size_t n, uint32_t *cols) {
    km_writer w;
    uint32_t at;
    one_array_root(&w, &at);
    CHECK_OK(km_write_soa(&w, at + 4, 3, columns, n, cols));
    CHECK_OK(km_writer_finish(&w));
    CHECK_OK(km_reader_open(r, copy_out(&w), km_writer_len(&w)));
    km_writer_free(&w);
    return km_array_at(r, at + 4, 0, KM_NO_LIMIT);
}

static void test_soa_known_hashes_once(void) {
    static const km_column wanted[] = {{0xA1, 4, false}, {0xB2, 4, false}, {0xC3, 2, false}};
    static const km_column twice[] = {{0xA1, 4, false}, {0xA1, 4, false}, {0xC3, 2, false}};
    static const km_column unknown[] = {
        {0xEE, 8, false}, {0xA1, 4, false}, {0xEE, 8, false}, {0xB2, 4, false}, {0xC3, 2, false}};
    static const km_column other_size[] = {{0xA1, 8, false}, {0xB2, 4, false}, {0xC3, 2, false}};
    km_reader r;
    km_validator v;
    uint32_t cols[5], got[3];
    km_array a = soa_message(&r, twice, 3, cols);
    km_validator_init(&v, &r);
    CHECK(km_check_soa(&v, a, wanted, 3, got) == KM_ERR_MALFORMED_ARRAY);
    km_soa_columns(&r, a, wanted, 3, got);
    CHECK(got[0] == cols[0] && got[1] == 0 && got[2] == cols[2]);
    a = soa_message(&r, unknown, 5, cols);
    km_validator_init(&v, &r);
    CHECK_OK(km_check_soa(&v, a, wanted, 3, got));
    CHECK(got[0] == cols[1] && got[1] == cols[3] && got[2] == cols[4]);
    km_soa_columns(&r, a, wanted, 3, got);
    CHECK(got[0] == cols[1] && got[1] == cols[3] && got[2] == cols[4]);
    /* A known column listed with another size is absent to readers and
     * malformed to validators. */
    a = soa_message(&r, other_size, 3, cols);
    km_soa_columns(&r, a, wanted, 3, got);
    CHECK(got[0] == 0 && got[1] == cols[1]);
    km_validator_init(&v, &r);
    CHECK(km_check_soa(&v, a, wanted, 3, got) == KM_ERR_MALFORMED_ARRAY);
}

static void test_soa_hostile_directories(void) {
    static const km_column wanted[] = {{0xA1, 4, false}};
    km_reader r;
    km_validator v;
    uint32_t cols[1], got[1], dir;
    km_array a = soa_message(&r, wanted, 1, cols);
    uint8_t *m = scratch;
    dir = km_read_u32(&r, a.offset);
    /* Too many entries. */
    km_store_u32(m + dir, 1025);
    km_soa_columns(&r, a, wanted, 1, got);
    CHECK(got[0] == 0);
    km_validator_init(&v, &r);
    CHECK(km_check_soa(&v, a, wanted, 1, got) == KM_ERR_DIRECTORY_TOO_LARGE);
    CHECK(v.error.offset == dir && v.error.value == 1025);
    km_store_u32(m + dir, 1);
    /* A misaligned directory, one past the end, none. */
    km_store_u32(m + a.offset, dir + 1);
    km_soa_columns(&r, a, wanted, 1, got);
    CHECK(got[0] == 0);
    /* The count read at the misaligned offset (0xA1000000) names the
     * error, as in the other libraries. */
    km_validator_init(&v, &r);
    CHECK(km_check_soa(&v, a, wanted, 1, got) == KM_ERR_DIRECTORY_TOO_LARGE);
    km_store_u32(m + a.offset, r.size);
    km_soa_columns(&r, a, wanted, 1, got);
    CHECK(got[0] == 0);
    km_store_u32(m + a.offset, 0);
    km_validator_init(&v, &r);
    CHECK(km_check_soa(&v, a, wanted, 1, got) == KM_ERR_MALFORMED_ARRAY);
    km_store_u32(m + a.offset, dir);
    /* A capacity whose columns end past the message. */
    a.cap = 1000;
    km_soa_columns(&r, a, wanted, 1, got);
    CHECK(got[0] == 0);
    km_validator_init(&v, &r);
    CHECK(km_check_soa(&v, a, wanted, 1, got) == KM_ERR_MALFORMED_ARRAY);
}

static void test_union_columns(void) {
    km_writer w;
    km_reader r;
    km_validator v;
    uint32_t at, block, tags, offsets;
    km_array a;
    one_array_root(&w, &at);
    CHECK_OK(km_alloc(&w, 3 + 1 + 12, 4, &block));
    km_put_array_ref(&w, at + 4, block, 3, 3);
    CHECK_OK(km_writer_finish(&w));
    CHECK_OK(km_reader_open(&r, copy_out(&w), km_writer_len(&w)));
    a = km_array_at(&r, at + 4, 0, KM_NO_LIMIT);
    CHECK(km_union_columns(&r, a, 1, &tags, &offsets) && tags == block && offsets == block + 4);
    km_validator_init(&v, &r);
    CHECK_OK(km_check_union_columns(&v, a, 1, &tags, &offsets));
    a.cap = 100;
    CHECK(!km_union_columns(&r, a, 1, &tags, &offsets) && tags == 0);
    CHECK(km_check_union_columns(&v, a, 1, &tags, &offsets) == KM_ERR_MALFORMED_ARRAY);
    km_writer_free(&w);
}

static void test_validator_limits(void) {
    km_writer w;
    km_reader r;
    km_validator v;
    km_table t;
    km_array a;
    uint32_t at, data;
    one_array_root(&w, &at);
    CHECK_OK(km_alloc_array(&w, 4, 1, &data));
    km_put_array_ref(&w, at + 4, data, 4, 4);
    w.buf[data + 2] = 2;
    CHECK_OK(km_writer_finish(&w));
    CHECK_OK(km_reader_open(&r, copy_out(&w), km_writer_len(&w)));
    km_validator_init(&v, &r);
    CHECK_OK(km_check_root(&v, 0, &t));
    CHECK(t.offset == 8 && t.used == 16);
    CHECK_OK(km_check_field_array(&v, t, 4, 1, KM_NO_LIMIT, &a));
    CHECK(a.len == 4);
    CHECK(km_check_bools(&v, a.offset, a.len) == KM_ERR_INVALID_BOOL);
    CHECK(v.error.offset == data + 2);
    CHECK(km_check_bool(&v, data + 2) == KM_ERR_INVALID_BOOL);
    CHECK_OK(km_check_bool(&v, data + 1));
    CHECK(km_check_field_array(&v, t, 4, 1, 3, &a) == KM_ERR_LIMIT_EXCEEDED);
    CHECK(v.error.value == 4 && a.len == 0);
    CHECK(km_check_field_array(&v, t, 4, 8, KM_NO_LIMIT, &a) == KM_ERR_MALFORMED_ARRAY);
    CHECK_OK(km_check_field_array(&v, t, 16, 1, KM_NO_LIMIT, &a)); /* absent: empty */
    CHECK(km_check_table(&v, 0, 0, &t) == KM_ERR_MALFORMED_TABLE);
    /* The budget: factor × size, one unit at least per charge. */
    km_validator_init(&v, &r);
    CHECK(v.budget == 8u * r.size);
    CHECK_OK(km_charge(&v, v.budget - 1));
    CHECK_OK(km_charge(&v, 0));
    CHECK(km_charge(&v, 1) == KM_ERR_BUDGET_EXCEEDED);
    /* A table is charged max(total × 8, its type's full size): 16 for the
     * root, or the full size of a longer type (format.md §10). */
    km_validator_init(&v, &r);
    CHECK_OK(km_check_root(&v, 8, &t));
    CHECK(v.budget == 8u * r.size - 16);
    CHECK_OK(km_check_root(&v, 40, &t));
    CHECK(v.budget == 8u * r.size - 56);
    CHECK(km_check_root(&v, (uint32_t)v.budget + 1, &t) == KM_ERR_BUDGET_EXCEEDED);
    /* Per element, saturating; a reservation charges nothing. */
    km_validator_init(&v, &r);
    CHECK_OK(km_charge_each(&v, 0, UINT64_MAX));
    CHECK_OK(km_charge_each(&v, 3, 0));
    CHECK(v.budget == 8u * r.size);
    CHECK_OK(km_charge_each(&v, 3, 5));
    CHECK(v.budget == 8u * r.size - 15);
    CHECK_OK(km_reserve_each(&v, 1, v.budget));
    CHECK(km_reserve_each(&v, 2, v.budget / 2 + 1) == KM_ERR_BUDGET_EXCEEDED);
    CHECK(km_reserve_each(&v, UINT32_MAX, UINT64_MAX / 2) == KM_ERR_BUDGET_EXCEEDED);
    CHECK(km_charge_each(&v, 2, UINT64_MAX) == KM_ERR_BUDGET_EXCEEDED);
    CHECK(v.budget == 8u * r.size - 15);
    /* The depth. */
    km_validator_init(&v, &r);
    for (int i = 0; i < 64; i++) {
        CHECK_OK(km_enter(&v));
    }
    CHECK(km_enter(&v) == KM_ERR_DEPTH_EXCEEDED);
    /* A reader that could not be opened fails the root check with its status. */
    CHECK(km_reader_open(&r, scratch, 4) == KM_ERR_TRUNCATED);
    km_validator_init(&v, &r);
    CHECK(km_check_root(&v, 0, &t) == KM_ERR_TRUNCATED);
    km_writer_free(&w);
}

static void test_editor(void) {
    km_writer w;
    km_editor e;
    km_table t;
    uint32_t root;
    const int32_t values[] = {1, 2, 3};
    int32_t v = -9;
    uint64_t one = 1;
    const int32_t *s;
    km_array a;
    CHECK_OK(km_writer_init(&w, 0, NULL));
    CHECK_OK(km_writer_begin(&w));
    CHECK_OK(km_alloc(&w, 24, 8, &root));
    km_put_u32(&w, root, 3); /* 24 bytes, all used */
    CHECK_OK(km_write_array(&w, root + 4, values, 3, 4));
    CHECK_OK(km_writer_finish(&w));
    CHECK_OK(km_editor_open(&e, copy_out(&w), km_writer_len(&w)));
    t = km_root(&e.r);
    CHECK_OK(km_edit_field(&e, t, 16, &v, 4));
    CHECK(km_field_i32(&e.r, t, 16) == -9);
    CHECK(km_edit_field(&e, t, 20, &one, 8) == KM_ERR_MALFORMED_TABLE);
    a = km_array_at(&e.r, root + 4, 4, KM_NO_LIMIT);
    km_store_u32(e.mem + a.offset, 42);
    CHECK_OK(km_edit_len(&e, root + 4, 4, 1));
    s = km_slice_i32(&e.r, a.offset, 3);
    CHECK(s != NULL && s[0] == 42 && s[1] == 0 && s[2] == 0);
    CHECK(km_edit_len(&e, root + 4, 4, 4) == KM_ERR_TOO_LARGE);
    /* Bytes a hostile writer left in unused capacity are not exposed. */
    memset(e.mem + a.offset + 4, 0xBA, 8);
    CHECK_OK(km_edit_len(&e, root + 4, 4, 3));
    CHECK(s[1] == 0 && s[2] == 0);
    CHECK(km_editor_open(&e, scratch + 8, 4) == KM_ERR_TRUNCATED);
    km_writer_free(&w);
}

static void test_fixed_writer(void) {
    static _Alignas(64) uint8_t buf[136];
    km_writer w;
    uint32_t at;
    CHECK(km_writer_init_fixed(&w, buf + 4, 68) == KM_ERR_MISALIGNED);
    CHECK(km_writer_init_fixed(&w, buf, 7) == KM_ERR_TOO_LARGE);
    CHECK_OK(km_writer_init_fixed(&w, buf, 128));
    CHECK_OK(km_writer_begin(&w));
    CHECK_OK(km_alloc(&w, 120, 8, &at));
    CHECK_OK(km_writer_begin(&w));
    memset(buf + 128, 0xEE, 8);
    CHECK(km_alloc(&w, 121, 8, &at) == KM_ERR_TOO_LARGE);
    CHECK(buf[128] == 0xEE); /* nothing written past the buffer */
    CHECK_OK(km_writer_begin(&w));
    CHECK_OK(km_alloc(&w, 8, 8, &at));
    km_put_u32(&w, at, 1u | 4u << 29);
    CHECK_OK(km_writer_finish(&w));
    CHECK(km_writer_bytes(&w) == buf && km_writer_len(&w) == 16);
    km_writer_free(&w); /* nothing to free: the buffer is the caller's */
}

/* A fixed writer remembers KM_WRITER_DIRECTORIES column lists; one more
 * fails rather than writing a directory twice, while a growable writer
 * keeps sharing them. */
static void test_many_directories(void) {
    static _Alignas(64) uint8_t buf[16384];
    km_column lists[KM_WRITER_DIRECTORIES + 2][1];
    km_writer fixed, grown;
    uint32_t at, out[1], first = 0, again = 0;
    km_status last = KM_OK;
    for (uint32_t i = 0; i < KM_WRITER_DIRECTORIES + 2; i++) {
        lists[i][0].hash = i + 1;
        lists[i][0].size = 4;
        lists[i][0].dense = false;
    }
    CHECK_OK(km_writer_init_fixed(&fixed, buf, sizeof buf));
    CHECK_OK(km_writer_init(&grown, 0, NULL));
    CHECK_OK(km_writer_begin(&fixed));
    CHECK_OK(km_writer_begin(&grown));
    for (uint32_t i = 0; i < KM_WRITER_DIRECTORIES + 1; i++) {
        CHECK_OK(km_alloc(&fixed, 12, 4, &at));
        last = km_write_soa(&fixed, at, 1, lists[i], 1, out);
        CHECK(i < KM_WRITER_DIRECTORIES ? last == KM_OK : last == KM_ERR_TOO_LARGE);
        CHECK_OK(km_alloc(&grown, 12, 4, &at));
        CHECK_OK(km_write_soa(&grown, at, 1, lists[i], 1, out));
        if (i == 0) {
            first = km_load_u32(grown.buf + km_load_u32(grown.buf + at));
        }
    }
    CHECK_OK(km_alloc(&grown, 12, 4, &at));
    CHECK_OK(km_write_soa(&grown, at, 1, lists[0], 1, out));
    again = km_load_u32(grown.buf + km_load_u32(grown.buf + at));
    CHECK(first == again && grown.n_dirs == KM_WRITER_DIRECTORIES + 1);
    km_writer_free(&grown);
    km_writer_free(&fixed);
}

static void *failing_alloc(void *ctx, size_t size) {
    int *budget = (int *)ctx;
    if (*budget == 0) {
        return NULL;
    }
    (*budget)--;
    return aligned_alloc(64, (size + 63) & ~(size_t)63);
}

static void counting_free(void *ctx, void *p, size_t size) {
    (void)ctx;
    (void)size;
    free(p);
}

static void test_failing_allocator(void) {
    int budget = 1;
    km_allocator allocator = {failing_alloc, counting_free, &budget};
    km_writer w;
    uint32_t at;
    CHECK_OK(km_writer_init(&w, 64, &allocator));
    CHECK_OK(km_writer_begin(&w));
    CHECK(km_alloc(&w, 1000, 8, &at) == KM_ERR_NO_MEMORY);
    CHECK(km_writer_len(&w) == 8); /* the message is as before */
    km_writer_free(&w);
    budget = 0;
    CHECK(km_writer_init(&w, 64, &allocator) == KM_ERR_NO_MEMORY);
    km_writer_free(&w);
}

/* The arena of decoded objects: zeroed 8-aligned memory from the caller's
 * buffer, then (growable) from the allocator; a fixed arena that is full
 * refuses; reset starts over and releases the blocks. */
static void test_arena(void) {
    _Alignas(8) uint8_t buf[64];
    km_arena a;
    void *p, *q;
    int budget = 2;
    km_allocator allocator = {failing_alloc, counting_free, &budget};
    memset(buf, 0xAA, sizeof buf);
    km_arena_init(&a, buf, sizeof buf);
    CHECK_OK(km_arena_alloc(&a, 3, &p));
    CHECK(p == buf);
    CHECK(((uint8_t *)p)[0] == 0 && ((uint8_t *)p)[2] == 0);
    CHECK_OK(km_arena_alloc(&a, 8, &q));
    CHECK(q == buf + 8); /* 8-aligned after the first 3 bytes */
    CHECK(km_arena_used(&a) == 16);
    CHECK(km_arena_alloc(&a, 64, &p) == KM_ERR_NO_MEMORY);
    CHECK(p == NULL);
    CHECK_OK(km_arena_alloc(&a, 0, &p));
    CHECK(p == NULL);
    CHECK(km_arena_array(&a, UINT64_MAX / 2, 4, &p) == KM_ERR_NO_MEMORY);
    km_arena_reset(&a);
    CHECK(km_arena_used(&a) == 0);
    CHECK_OK(km_arena_alloc(&a, 48, &p));
    CHECK(p == buf);
    km_arena_free(&a);

    /* Growable, starting without a buffer: blocks from the allocator
     * until it fails. */
    km_arena_init_growable(&a, NULL, 0, &allocator);
    CHECK_OK(km_arena_alloc(&a, 100, &p));
    CHECK(p != NULL && (uintptr_t)p % 8 == 0);
    memset(p, 1, 100);
    CHECK_OK(km_arena_alloc(&a, 10000, &q));
    CHECK(q != NULL && ((uint8_t *)q)[9999] == 0);
    CHECK(km_arena_used(&a) >= 10100);
    CHECK(km_arena_alloc(&a, 100000, &p) == KM_ERR_NO_MEMORY);
    km_arena_reset(&a);
    CHECK(km_arena_used(&a) == 0);
    km_arena_free(&a);

    /* The default allocator. */
    km_arena_init_growable(&a, buf, sizeof buf, NULL);
    for (int i = 0; i < 100; i++) {
        CHECK_OK(km_arena_alloc(&a, 1000, &p));
    }
    CHECK(km_arena_used(&a) >= 100000);
    km_arena_free(&a);
}

/* UTF-16 text decoded into the arena as UTF-8: a surrogate pair, an
 * unpaired surrogate as U+FFFD. */
static void test_arena_utf16(void) {
    uint8_t body[24] = {0};
    km_reader r;
    km_arena a;
    km_text t;
    _Alignas(8) uint8_t buf[64];
    km_array arr = {16, 4, 4};
    /* "é", U+1F600 (D83D DE00), an unpaired D800 */
    km_store_u16(body + 8, 0x00E9);
    km_store_u16(body + 10, 0xD83D);
    km_store_u16(body + 12, 0xDE00);
    km_store_u16(body + 14, 0xD800);
    CHECK_OK(km_reader_open(&r, message(body, sizeof body, 32), 32));
    km_arena_init(&a, buf, sizeof buf);
    CHECK_OK(km_arena_utf16(&a, &r, arr, &t));
    CHECK(t.len == 2 + 4 + 3);
    CHECK(memcmp(t.ptr, "\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbd", 9) == 0);
}

/* The decoders' SoA column lookup charges the directory once per array,
 * and not a malformed one. */
static void test_decode_soa_columns(void) {
    uint8_t body[40] = {0};
    km_reader r;
    km_validator v;
    km_column want[1] = {{0x4b95f515u, 4, true}};
    uint32_t cols[1];
    km_array a = {28, 1, 1};
    uint64_t before;
    /* directory at 16: n = 1, hash, size 4; block at 28: directory 16, value */
    km_store_u32(body + 8, 1);
    km_store_u32(body + 12, 0x4b95f515u);
    km_store_u32(body + 16, 4);
    km_store_u32(body + 20, 16);
    km_store_u32(body + 24, 7);
    CHECK_OK(km_reader_open(&r, message(body, sizeof body, 48), 48));
    km_validator_init(&v, &r);
    before = v.budget;
    CHECK_OK(km_decode_soa_columns(&v, a, want, 1, cols));
    CHECK(cols[0] == 32 && km_read_u32(&r, cols[0]) == 7);
    CHECK(before - v.budget == 16);
    a.offset = 30; /* misaligned: no columns, no charge */
    before = v.budget;
    CHECK_OK(km_decode_soa_columns(&v, a, want, 1, cols));
    CHECK(cols[0] == 0 && v.budget == before);
}

/* Map keys as text compare by bytes, shorter first. */
static void test_compare_text(void) {
    uint8_t body[40] = {0};
    km_reader r;
    km_store_u32(body + 0, 32);
    km_store_u32(body + 4, 2);
    km_store_u32(body + 8, 2);
    km_store_u32(body + 12, 32);
    km_store_u32(body + 16, 3);
    km_store_u32(body + 20, 3);
    memcpy(body + 24, "abc", 3);
    CHECK_OK(km_reader_open(&r, message(body, sizeof body, 48), 48));
    CHECK(km_compare_text(&r, 8, 20) < 0);
    CHECK(km_compare_text(&r, 20, 8) > 0);
    CHECK(km_compare_text(&r, 8, 8) == 0);
    {
        km_text a = {"ab", 2}, b = {"abc", 3}, e = {NULL, 0};
        CHECK(km_text_cmp(a, b) < 0 && km_text_cmp(b, a) > 0 && km_text_cmp(a, a) == 0);
        CHECK(km_text_cmp(e, a) < 0 && km_text_cmp(e, e) == 0);
        km_text c = km_text_cstr("abc"), n = km_text_cstr(NULL);
        CHECK(c.len == 3 && km_text_cmp(c, b) == 0);
        CHECK(n.len == 0 && km_text_cmp(n, e) == 0);
    }
    /* "é" is one unit, U+1F600 two. */
    CHECK(km_utf16_len("\xc3\xa9\xf0\x9f\x98\x80", 6) == 3);
}

/* Reads a .hex vector (docs: testdata/vectors/README.md) into buf. */
static size_t read_hex(const char *path, uint8_t *buf, size_t cap) {
    FILE *f = fopen(path, "r");
    char line[512];
    size_t n = 0;
    if (f == NULL) {
        return 0;
    }
    while (fgets(line, sizeof line, f) != NULL) {
        char *p = strchr(line, ':');
        p = p != NULL ? p + 1 : line;
        for (;;) {
            unsigned value;
            int used;
            if (sscanf(p, " %2x%n", &value, &used) != 1 || n == cap) {
                break;
            }
            buf[n++] = (uint8_t)value;
            p += used;
        }
    }
    fclose(f);
    return n;
}

/* Every golden vector opens, with the size its header states. Hostile
 * vectors open too: their headers are valid by construction. */
static void test_golden_headers(const char *root) {
    static _Alignas(8) uint8_t buf[1 << 20];
    char dir_path[1024];
    DIR *top;
    struct dirent *topic;
    int opened = 0;
    snprintf(dir_path, sizeof dir_path, "%s/testdata/vectors", root);
    top = opendir(dir_path);
    CHECK(top != NULL);
    if (top == NULL) {
        return;
    }
    while ((topic = readdir(top)) != NULL) {
        char topic_path[2048];
        DIR *d;
        struct dirent *file;
        if (topic->d_name[0] == '.') {
            continue;
        }
        snprintf(topic_path, sizeof topic_path, "%s/%s", dir_path, topic->d_name);
        d = opendir(topic_path);
        if (d == NULL) {
            continue;
        }
        while ((file = readdir(d)) != NULL) {
            char path[4096];
            size_t len = strlen(file->d_name), n;
            km_reader r;
            if (len < 4 || strcmp(file->d_name + len - 4, ".hex") != 0) {
                continue;
            }
            snprintf(path, sizeof path, "%s/%s", topic_path, file->d_name);
            n = read_hex(path, buf, sizeof buf);
            CHECK(km_reader_open(&r, buf, n) == KM_OK && r.size == n);
            opened++;
        }
        closedir(d);
    }
    closedir(top);
    CHECK(opened >= 64); /* the vectors' count when this test was written */
}

int main(int argc, char **argv) {
    test_path_hash();
    test_header();
    test_tables();
    test_writer_aligned_zeroed();
    test_write_soa_directory();
    test_trusted_reads();
    test_directories_by_contents();
    test_arrays_and_slices();
    test_utf8();
    test_utf16();
    test_utf8_outside_the_message();
    test_bunch();
    test_soa_known_hashes_once();
    test_soa_hostile_directories();
    test_union_columns();
    test_validator_limits();
    test_editor();
    test_fixed_writer();
    test_many_directories();
    test_failing_allocator();
    test_arena();
    test_arena_utf16();
    test_decode_soa_columns();
    test_compare_text();
    test_golden_headers(argc > 1 ? argv[1] : "..");
    if (failures != 0) {
        fprintf(stderr, "test_karmem: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("test_karmem: %d checks passed\n", checks);
    return 0;
}
