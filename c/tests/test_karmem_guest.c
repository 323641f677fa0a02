/* Native tests of the C guest runtime (c/karmem_guest.c): this file plays
 * the host. It defines the `karmem` imports (kmg_host_*) and kmg_init,
 * then drives the ABI's exports as docs/abi.md says the host does:
 * start-up, descriptor, allocation, windows, dispatch with good and bad
 * arguments, and guest→guest calls with every kind of reply. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "karmem_guest.h"

static int failures, checks;

#define CHECK(cond)                                                          \
    do {                                                                     \
        checks++;                                                            \
        if (!(cond)) {                                                       \
            failures++;                                                      \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                    \
    } while (0)

/* ---- The fake host ---------------------------------------------------------- */

static uint8_t last_result[256];
static uint32_t last_result_len;
static char last_error[KMG_ERROR_CAP + 1];
static uint32_t results_reported, errors_reported, logs;

void kmg_host_result(const uint8_t *ptr, uint32_t len) {
    results_reported++;
    last_result_len = len < sizeof last_result ? len : (uint32_t)sizeof last_result;
    memcpy(last_result, ptr, last_result_len);
}

void kmg_host_error(const char *ptr, uint32_t len) {
    errors_reported++;
    memcpy(last_error, ptr, len);
    last_error[len] = '\0';
}

void kmg_host_log(uint32_t level, const char *ptr, uint32_t len) {
    (void)level;
    (void)ptr;
    (void)len;
    logs++;
}

/* What the next `call` answers: n callees with these entries, and the
 * bytes `take` hands over for each. */
static int32_t call_return;
static kmg_out_entry call_entries[4];
static const char *take_bytes[4];
static int32_t take_return;
static uint32_t last_call_function, last_call_count;
static kmg_bytes last_call_args[4];

int32_t kmg_host_call(uint32_t function, const kmg_bytes *args, uint32_t count, kmg_out_entry *out,
                      uint32_t out_cap) {
    last_call_function = function;
    last_call_count = count;
    for (uint32_t i = 0; i < count && i < 4; i++) {
        last_call_args[i] = args[i];
    }
    for (int32_t k = 0; k < call_return && (uint32_t)k < out_cap && k < 4; k++) {
        out[k] = call_entries[k];
    }
    return call_return;
}

int32_t kmg_host_take(uint32_t index, uint8_t *dst, uint32_t len) {
    if (index >= 4 || take_bytes[index] == NULL) {
        return -1;
    }
    if (take_return != 0) {
        return take_return;
    }
    memcpy(dst, take_bytes[index], len);
    return 0;
}

/* ---- A module: exports t.A (3 functions, region t.shared), imports t.B
 * (region t.shared again, and t.other) ---------------------------------- */

static abi_memory_desc shared_mem[] = {
    {{"t.shared", 8}, ABI_ACCESS_READ_WRITE, ABI_ACCESS_READ, 1},
};
static abi_memory_desc b_mems[] = {
    {{"t.shared", 8}, ABI_ACCESS_READ_WRITE, ABI_ACCESS_READ, 1},
    {{"t.other", 7}, ABI_ACCESS_READ, ABI_ACCESS_READ_WRITE, 2},
};
static abi_param_desc one_param[] = {{{"x", 1}, {"t.Msg", 5}, {"", 0}}};
static abi_function_desc a_functions[] = {
    {{"ok", 2}, {NULL, 0}, {{"r", 1}, {"t.Msg", 5}, {"", 0}}},
    {{"check", 5}, {one_param, 1}, {{"", 0}, {"", 0}, {"", 0}}},
    {{"boom", 4}, {NULL, 0}, {{"r", 1}, {"t.Msg", 5}, {"t.shared", 8}}},
};
static const abi_interface_desc iface_a = {
    {"t.A", 3}, 1, false, ABI_PATTERN_DIRECT, 0, {shared_mem, 1}, {a_functions, 3},
};
static const abi_interface_desc iface_b = {
    {"t.B", 3}, 2, false, ABI_PATTERN_FAN_OUT, 0, {b_mems, 2}, {a_functions, 1},
};

static _Alignas(8) uint8_t reply_msg[16] = {0};
static int implementation; /* any non-NULL impl pointer */

/* The hand-written dispatcher generated code would be. */
static kmg_status dispatch_a(kmg_call *call, const void *impl) {
    (void)impl;
    switch (call->function) {
    case 0:
        return kmg_set_result(call, reply_msg, sizeof reply_msg);
    case 1: {
        km_reader r;
        bool present;
        kmg_status s = kmg_open_arg(call, 0, "x", &r, &present);
        if (s != KMG_OK) {
            return s;
        }
        return present ? KMG_OK : kmg_fail("x is absent");
    }
    case 2:
        /* A region-bound result outside the window. */
        return kmg_set_result(call, reply_msg, sizeof reply_msg);
    default:
        return kmg_unknown_function(call);
    }
}

static uint32_t import_b;

int kmg_init(void) {
    uint32_t again;
    int bad = 0;
    bad |= kmg_register_export(&iface_a, dispatch_a, &implementation) != KMG_OK;
    bad |= kmg_register_import(&iface_b, &import_b) != KMG_OK;
    bad |= kmg_register_import(&iface_b, &again) != KMG_OK || again != import_b;
    /* A second export of the same interface is refused (and logged), but
     * that would fail the start: try it after the test, not here. */
    return bad;
}

/* ---- Tests ---------------------------------------------------------------- */

static void test_start_and_descriptor(void) {
    abi_module_desc desc;
    km_reader r;
    km_arena arena;
    kmg_bytes d;
    CHECK(karmem_abi_version() == 1);
    CHECK(karmem_init() == 0);
    CHECK(karmem_init() == 0); /* idempotent */
    d = kmg_descriptor();
    CHECK(d.ptr != NULL && d.len > 0);
    km_arena_init_growable(&arena, NULL, 0, NULL);
    CHECK(km_reader_open(&r, d.ptr, d.len) == KM_OK);
    CHECK(abi_module_desc_validate(&r, NULL) == KM_OK);
    CHECK(abi_module_desc_decode(&desc, &r, &arena) == KM_OK);
    /* Regions deduplicated, in first-use order (exports first). */
    CHECK(desc.memories.len == 2);
    CHECK(desc.memories.len == 2 && desc.memories.ptr[0].name.len == 8 &&
          memcmp(desc.memories.ptr[1].name.ptr, "t.other", 7) == 0 && desc.memories.ptr[1].max_pages == 2);
    CHECK(desc.exports.len == 1 && desc.exports.ptr[0].functions.len == 3 && desc.exports.ptr[0].hash == 1);
    CHECK(desc.imports.len == 1 && desc.imports.ptr[0].pattern == ABI_PATTERN_FAN_OUT);
    CHECK(desc.exports.ptr[0].functions.ptr[2].result.memory.len == 8);
    km_arena_free(&arena);
    /* Registrations after start-up fail. */
    CHECK(kmg_register_export(&iface_b, dispatch_a, &implementation) != KMG_OK);
    {
        abi_interface_desc c = iface_b;
        uint32_t index;
        c.name = (km_text){"t.C", 3};
        CHECK(kmg_register_import(&c, &index) != KMG_OK);
        CHECK(kmg_register_import(&iface_b, &index) == KMG_OK && index == import_b);
    }
}

static void test_alloc_and_windows(void) {
    static const uint32_t aligns[] = {1, 8, 64, 65536};
    uint8_t *window;
    kmg_window w;
    for (size_t i = 0; i < sizeof aligns / sizeof aligns[0]; i++) {
        uint8_t *p = (uint8_t *)karmem_alloc(100, aligns[i]);
        CHECK(p != NULL && (uintptr_t)p % aligns[i] == 0);
        if (p != NULL) {
            memset(p, 0xab, 100); /* all of it is usable (ASan checks) */
        }
        if (aligns[i] > 64) {
            free(p); /* a window block: the runtime keeps it forever */
        }
    }
    CHECK(karmem_alloc(8, 3) == NULL);
    CHECK(karmem_alloc(8, 1u << 17) == NULL);
    CHECK(karmem_alloc(8, 0) == NULL);
    CHECK(karmem_alloc(UINT32_MAX, 64) == NULL || sizeof(size_t) > 4);
    CHECK(karmem_alloc(0, 8) != NULL);
    window = (uint8_t *)karmem_alloc(65536, 65536);
    CHECK(window != NULL);
    karmem_bind_memory(0, window, 65536);
    karmem_bind_memory(7, window, 65536); /* unknown index: ignored */
    w = kmg_window_of("t.shared");
    CHECK(w.ptr == window && w.len == 65536);
    CHECK(kmg_window_of("t.other").ptr == NULL);
    CHECK(kmg_window_of("t.nothing").ptr == NULL);
    CHECK(kmg_window_holds(w, window + 10, 20));
    CHECK(kmg_window_holds(w, window, 65536));
    CHECK(!kmg_window_holds(w, window + 1, 65536));
    CHECK(!kmg_window_holds(w, window - 1, 1));
    CHECK(!kmg_window_holds((kmg_window){NULL, 0}, window, 0));
}

static void test_dispatch(void) {
    /* A valid message: an empty root table. */
    km_writer w;
    abi_memory_desc m = {{"x", 1}, 0, 0, 1};
    kmg_bytes args[1];
    uint8_t *copy;
    CHECK(km_writer_init(&w, 64, NULL) == KM_OK);
    CHECK(abi_memory_desc_encode(&m, &w) == KM_OK);

    CHECK(karmem_dispatch(0, NULL, 0) == 0);
    CHECK(last_result_len == sizeof reply_msg);

    /* The argument lies where karmem_alloc put it, as the host does. */
    copy = (uint8_t *)karmem_alloc(km_writer_len(&w), 64);
    memcpy(copy, km_writer_bytes(&w), km_writer_len(&w));
    args[0] = (kmg_bytes){copy, km_writer_len(&w)};
    CHECK(karmem_dispatch(1, args, 1) == 0);

    errors_reported = 0;
    args[0] = (kmg_bytes){NULL, 0};
    CHECK(karmem_dispatch(1, args, 1) == (int32_t)KMG_APPLICATION_ERROR);
    CHECK(errors_reported == 1 && strcmp(last_error, "x is absent") == 0);

    args[0] = (kmg_bytes){(const uint8_t *)"\xff\xff\xff\xff\xff\xff\xff\xff", 8};
    CHECK(karmem_dispatch(1, args, 1) == (int32_t)KMG_BAD_ARGUMENT);
    CHECK(strncmp(last_error, "t.A.check: argument x: karmem: ", 31) == 0);

    CHECK(karmem_dispatch(1, NULL, 0) == (int32_t)KMG_BAD_ARGUMENT);
    CHECK(strcmp(last_error, "t.A.check: 0 arguments for 1 parameters") == 0);

    CHECK(karmem_dispatch(2, NULL, 0) == (int32_t)KMG_APPLICATION_ERROR);
    CHECK(strcmp(last_error, "t.A.boom: the result is not inside the window of t.shared") == 0);

    CHECK(karmem_dispatch(3, NULL, 0) == (int32_t)KMG_UNKNOWN_FUNCTION);
    CHECK(strcmp(last_error, "no export function 3") == 0);
    CHECK(karmem_dispatch(1u << 16, NULL, 0) == (int32_t)KMG_UNKNOWN_FUNCTION);
    CHECK(strcmp(last_error, "no export function 65536") == 0);
    km_writer_free(&w);

    /* A long error message is cut, not overflowed. */
    {
        static char big[KMG_ERROR_CAP * 2];
        memset(big, 'e', sizeof big - 1);
        CHECK(kmg_fail(big) == KMG_APPLICATION_ERROR);
        kmg_error_str("more");
        CHECK(karmem_dispatch(3, NULL, 0) == (int32_t)KMG_UNKNOWN_FUNCTION);
    }
}

static void test_calls(void) {
    _Alignas(8) static uint8_t region_bytes[32];
    static const char copied[] = "copied result!!";
    static const char failed[] = "no vote";
    kmg_reply replies[4];
    kmg_bytes args[1] = {{(const uint8_t *)"abcdefgh", 8}};
    km_arena arena;
    _Alignas(8) uint8_t small[8];
    int32_t n;

    km_arena_init_growable(&arena, NULL, 0, NULL);
    call_return = 3;
    call_entries[0] = (kmg_out_entry){KMG_OK, 5, sizeof copied, NULL};
    call_entries[1] = (kmg_out_entry){KMG_OK, 6, sizeof region_bytes, region_bytes};
    call_entries[2] = (kmg_out_entry){KMG_APPLICATION_ERROR, 7, sizeof failed - 1, NULL};
    take_bytes[0] = copied;
    take_bytes[1] = NULL;
    take_bytes[2] = failed;
    take_return = 0;
    n = kmg_call_import(import_b << 16 | 2, args, 1, replies, 4, &arena);
    CHECK(n == 3);
    CHECK(last_call_function == (import_b << 16 | 2) && last_call_count == 1 &&
          last_call_args[0].len == 8);
    CHECK(replies[0].status == KMG_OK && replies[0].callee == 5 && replies[0].msg.len == sizeof copied &&
          memcmp(replies[0].msg.ptr, copied, sizeof copied) == 0 && (uintptr_t)replies[0].msg.ptr % 8 == 0);
    CHECK(replies[1].status == KMG_OK && replies[1].msg.ptr == region_bytes);
    CHECK(replies[2].status == KMG_APPLICATION_ERROR && replies[2].callee == 7 &&
          replies[2].msg.len == sizeof failed - 1 && memcmp(replies[2].msg.ptr, failed, sizeof failed - 1) == 0);

    /* Fewer reply slots than callees: only cap are reported. */
    memset(replies, 0xcc, sizeof replies);
    CHECK(kmg_call_import(0, args, 1, replies, 1, &arena) == 3);
    CHECK(replies[0].callee == 5 && replies[1].callee == 0xcccccccc);

    /* The arena cannot hold a reply; the host refuses a take. */
    km_arena_free(&arena);
    km_arena_init(&arena, small, sizeof small);
    CHECK(kmg_call_import(0, args, 1, replies, 4, &arena) == 3);
    CHECK(replies[0].status == KMG_NO_MEMORY && replies[0].msg.len > 0);
    CHECK(replies[1].status == KMG_OK);
    CHECK(replies[2].status == KMG_APPLICATION_ERROR); /* its 7 bytes fit */
    km_arena_init_growable(&arena, NULL, 0, NULL);
    take_return = -2;
    CHECK(kmg_call_import(0, args, 1, replies, 4, &arena) == 3);
    CHECK(replies[0].status == KMG_TRAP && replies[2].status == KMG_TRAP);
    take_return = 0;

    /* One callee: its status; none, or a negative code: CALL_FAILED. */
    call_return = 1;
    CHECK(kmg_call_one(0, args, 1, &replies[0], &arena) == KMG_OK && replies[0].callee == 5);
    call_return = 0;
    CHECK(kmg_call_one(0, args, 1, &replies[0], &arena) == KMG_CALL_FAILED && replies[0].code == -5);
    call_return = -4;
    CHECK(kmg_call_import(0, args, 1, replies, 4, &arena) == -4);
    CHECK(kmg_call_one(0, args, 1, &replies[0], &arena) == KMG_CALL_FAILED && replies[0].code == -4);
    CHECK(strncmp((const char *)replies[0].msg.ptr, "re-entrant call", 15) == 0);

    /* An arena-backed writer: its bytes come from the arena. */
    {
        km_writer w;
        abi_memory_desc m = {{"y", 1}, 1, 2, 3};
        size_t before = km_arena_used(&arena);
        CHECK(kmg_arena_writer(&w, &arena, 16) == KM_OK);
        CHECK(abi_memory_desc_encode(&m, &w) == KM_OK);
        CHECK((uintptr_t)km_writer_bytes(&w) % 64 == 0 && km_arena_used(&arena) > before);
        km_writer_free(&w);
    }
    km_arena_free(&arena);
}

static void test_status_names(void) {
    CHECK(strcmp(kmg_status_name(KMG_OK), "OK") == 0);
    CHECK(strcmp(kmg_status_name(KMG_MEMORY_LIMIT), "MEMORY_LIMIT") == 0);
    CHECK(strcmp(kmg_status_name(KMG_BUDGET_EXCEEDED), "BUDGET_EXCEEDED") == 0);
    CHECK(strcmp(kmg_status_name(99), "status 99") == 0);
    CHECK(strcmp(kmg_call_error_text(-5), "no exporter is bound to this import") == 0);
    CHECK(strcmp(kmg_call_error_text(-77), "unknown call error") == 0);
}

int main(void) {
    test_start_and_descriptor();
    test_alloc_and_windows();
    test_dispatch();
    test_calls();
    test_status_names();
    if (failures != 0) {
        fprintf(stderr, "test_karmem_guest: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("test_karmem_guest: %d checks passed\n", checks);
    return 0;
}
