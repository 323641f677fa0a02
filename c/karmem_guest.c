/* Karmem guest runtime for C: see karmem_guest.h and docs/abi.md. */
#include "karmem_guest.h"

#include <stdlib.h>
#include <string.h>

#ifdef __wasm__
#define KMG_EXPORT(name) __attribute__((export_name(name)))
#define KMG_IMPORT(name) __attribute__((import_module("karmem"), import_name(name)))
/* The ABI's entries are {u32, u32} and {u32, u32, u32, u32}: the C types
 * are used as the host's arrays directly, so they must match exactly. */
_Static_assert(sizeof(kmg_bytes) == 8, "kmg_bytes must be the ABI's argument entry");
_Static_assert(sizeof(kmg_out_entry) == 16, "kmg_out_entry must be the ABI's out entry");
#else
#define KMG_EXPORT(name)
#endif

#ifdef __wasm__
KMG_IMPORT("call")
int32_t kmg_host_call(uint32_t function, const kmg_bytes *args, uint32_t count,
                      kmg_out_entry *out, uint32_t out_cap);
KMG_IMPORT("take") int32_t kmg_host_take(uint32_t index, uint8_t *dst, uint32_t len);
KMG_IMPORT("result") void kmg_host_result(const uint8_t *ptr, uint32_t len);
KMG_IMPORT("error") void kmg_host_error(const char *ptr, uint32_t len);
KMG_IMPORT("log") void kmg_host_log(uint32_t level, const char *ptr, uint32_t len);
#endif

/* ---- What the module registered ------------------------------------------ */

typedef struct kmg_export {
    const abi_interface_desc *desc;
    kmg_dispatcher dispatch;
    const void *impl;
} kmg_export;

static kmg_export exports[KMG_MAX_EXPORTS];
static uint32_t n_exports;
/* The descriptor's tables: copies of the registered interfaces (their
 * arrays stay the caller's static ones) and the distinct regions. */
static abi_interface_desc export_descs[KMG_MAX_EXPORTS];
static abi_interface_desc import_descs[KMG_MAX_IMPORTS];
static uint32_t n_imports;
static abi_memory_desc memories[KMG_MAX_MEMORIES];
static kmg_window windows[KMG_MAX_MEMORIES];
static abi_access window_access[KMG_MAX_MEMORIES];
static uint32_t n_memories;
/* The first registration problem; it fails karmem_init. */
static bool registration_failed;
static bool sealed;
static kmg_bytes encoded;

/* ---- The error message of the current dispatch --------------------------- */

static char error_buf[KMG_ERROR_CAP];
static uint32_t error_len;

void kmg_error_add(const char *text, size_t len) {
    size_t room = KMG_ERROR_CAP - error_len;
    if (len > room) {
        len = room;
    }
    memcpy(error_buf + error_len, text, len);
    error_len += (uint32_t)len;
}

void kmg_error_str(const char *text) { kmg_error_add(text, strlen(text)); }

static void error_text(km_text t) { kmg_error_add(t.ptr, t.len); }

/* Decimal, without printf (which would add tens of KiB to every module). */
static size_t format_u32(char *out, uint32_t v) {
    char digits[10];
    size_t n = 0, i;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    for (i = 0; i < n; i++) {
        out[i] = digits[n - 1 - i];
    }
    return n;
}

static void error_u32(uint32_t v) {
    char buf[10];
    kmg_error_add(buf, format_u32(buf, v));
}

kmg_status kmg_fail(const char *text) {
    error_len = 0;
    kmg_error_str(text);
    return KMG_APPLICATION_ERROR;
}

/* ---- Statuses -------------------------------------------------------------- */

const char *kmg_status_name(kmg_status status) {
    static char unknown[24];
    size_t n;
    switch (status) {
    case KMG_OK: return "OK";
    case KMG_UNKNOWN_FUNCTION: return "UNKNOWN_FUNCTION";
    case KMG_BAD_ARGUMENT: return "BAD_ARGUMENT";
    case KMG_APPLICATION_ERROR: return "APPLICATION_ERROR";
    case KMG_TRAP: return "TRAP";
    case KMG_TIMEOUT: return "TIMEOUT";
    case KMG_MEMORY_LIMIT: return "MEMORY_LIMIT";
    case KMG_READ_ONLY_VIOLATION: return "READ_ONLY_VIOLATION";
    case KMG_SUSPENDED: return "SUSPENDED";
    case KMG_BUDGET_EXCEEDED: return "BUDGET_EXCEEDED";
    case KMG_CALL_FAILED: return "CALL_FAILED";
    case KMG_BAD_RESULT: return "BAD_RESULT";
    case KMG_NO_MEMORY: return "NO_MEMORY";
    default: break;
    }
    memcpy(unknown, "status ", 7);
    n = 7 + format_u32(unknown + 7, status);
    unknown[n] = '\0';
    return unknown;
}

const char *kmg_call_error_text(int32_t code) {
    switch (code) {
    case -1: return "unknown import function id";
    case -2: return "an argument is out of range or outside its window";
    case -3: return "the out array is out of range";
    case -4: return "re-entrant call: the callee instance is already on this call stack";
    case -5: return "no exporter is bound to this import";
    case -6: return "too many nested calls";
    case KMG_CALL_NOT_IMPORTED: return "the interface is not imported (register it in kmg_init)";
    case KMG_CALL_BAD_ARGUMENT: return "an argument could not be encoded";
    default: return "unknown call error";
    }
}

/* ---- Registration and the descriptor ------------------------------------- */

static bool text_eq(km_text a, const char *b, size_t n) {
    return a.len == n && (n == 0 || memcmp(a.ptr, b, n) == 0);
}

static void registration_error(const char *what, km_text name) {
    char line[320];
    size_t n = 0, w = strlen(what), k = name.len > 256 ? 256 : name.len;
    registration_failed = true;
    memcpy(line, "karmem guest: ", 14);
    n = 14;
    memcpy(line + n, name.ptr, k);
    n += k;
    line[n++] = ':';
    line[n++] = ' ';
    if (w > sizeof line - n) {
        w = sizeof line - n;
    }
    memcpy(line + n, what, w);
    kmg_log(KMG_LOG_ERROR, line, n + w);
}

static int32_t memory_index(const char *name, size_t n) {
    for (uint32_t i = 0; i < n_memories; i++) {
        if (text_eq(memories[i].name, name, n)) {
            return (int32_t)i;
        }
    }
    return -1;
}

/* Appends the regions of iface not seen yet: their position is the index
 * the host binds them by (docs/abi.md §2, step 5). */
static bool add_memories(const abi_interface_desc *iface) {
    for (uint32_t i = 0; i < iface->memories.len; i++) {
        const abi_memory_desc *m = &iface->memories.ptr[i];
        if (memory_index(m->name.ptr, m->name.len) >= 0) {
            continue;
        }
        if (n_memories == KMG_MAX_MEMORIES) {
            registration_error("too many regions (KMG_MAX_MEMORIES)", iface->name);
            return false;
        }
        memories[n_memories++] = *m;
    }
    return true;
}

kmg_status kmg_register_export(const abi_interface_desc *iface, kmg_dispatcher dispatch,
                               const void *impl) {
    if (sealed) {
        registration_error("export registered after karmem_init", iface->name);
        return KMG_APPLICATION_ERROR;
    }
    for (uint32_t i = 0; i < n_exports; i++) {
        if (text_eq(export_descs[i].name, iface->name.ptr, iface->name.len)) {
            registration_error("export registered twice", iface->name);
            return KMG_APPLICATION_ERROR;
        }
    }
    if (n_exports == KMG_MAX_EXPORTS || iface->functions.len > 0xffff) {
        registration_error("too many exports or functions", iface->name);
        return KMG_APPLICATION_ERROR;
    }
    if (dispatch == NULL || impl == NULL) {
        registration_error("export without an implementation", iface->name);
        return KMG_APPLICATION_ERROR;
    }
    if (!add_memories(iface)) {
        return KMG_APPLICATION_ERROR;
    }
    exports[n_exports] = (kmg_export){iface, dispatch, impl};
    export_descs[n_exports++] = *iface;
    return KMG_OK;
}

kmg_status kmg_register_import(const abi_interface_desc *iface, uint32_t *index) {
    for (uint32_t i = 0; i < n_imports; i++) {
        if (text_eq(import_descs[i].name, iface->name.ptr, iface->name.len)) {
            *index = i;
            return KMG_OK;
        }
    }
    *index = 0;
    if (sealed) {
        registration_error("import registered after karmem_init", iface->name);
        return KMG_APPLICATION_ERROR;
    }
    if (n_imports == KMG_MAX_IMPORTS) {
        registration_error("too many imports (KMG_MAX_IMPORTS)", iface->name);
        return KMG_APPLICATION_ERROR;
    }
    if (!add_memories(iface)) {
        return KMG_APPLICATION_ERROR;
    }
    *index = n_imports;
    import_descs[n_imports++] = *iface;
    return KMG_OK;
}

/* Encodes the descriptor once; later registrations fail. */
static bool seal(void) {
    static km_writer w;
    abi_module_desc desc;
    if (sealed) {
        return !registration_failed && encoded.ptr != NULL;
    }
    sealed = true;
    if (registration_failed) {
        return false;
    }
    desc.memories.ptr = memories;
    desc.memories.len = n_memories;
    desc.exports.ptr = export_descs;
    desc.exports.len = n_exports;
    desc.imports.ptr = import_descs;
    desc.imports.len = n_imports;
    if (km_writer_init(&w, 1024, NULL) != KM_OK || abi_module_desc_encode(&desc, &w) != KM_OK) {
        static const char msg[] = "karmem guest: cannot encode the module descriptor";
        kmg_log(KMG_LOG_ERROR, msg, sizeof msg - 1);
        return false;
    }
    encoded = (kmg_bytes){km_writer_bytes(&w), km_writer_len(&w)};
    return true;
}

kmg_bytes kmg_descriptor(void) { return encoded; }

/* ---- Exports the host calls (docs/abi.md §2) ------------------------------ */

KMG_EXPORT("karmem_abi_version") int32_t karmem_abi_version(void) { return KMG_ABI_VERSION; }

KMG_EXPORT("karmem_init") int32_t karmem_init(void) {
    static bool called;
    if (!called) {
        called = true;
        if (kmg_init() != 0) {
            static const char msg[] = "karmem guest: kmg_init failed";
            kmg_log(KMG_LOG_ERROR, msg, sizeof msg - 1);
            registration_failed = true;
        }
    }
    return seal() ? 0 : 1;
}

#ifdef __wasm__
KMG_EXPORT("karmem_describe") int64_t karmem_describe(void) {
    return (int64_t)((uint64_t)(uintptr_t)encoded.ptr | ((uint64_t)encoded.len << 32));
}
#endif

/* Argument memory: blocks of at most 64-byte alignment (what the host asks
 * for arguments and argument arrays, docs/abi.md §5.1) carry a 64-byte
 * header linking them, and are freed when the dispatch returns (§5.2: they
 * belong to the guest after the call). Blocks aligned to more (the host
 * asks 65536 only for windows, §2 step 5) are never freed: a window must
 * stay where it is for the life of the instance (§6). */
#define KMG_BLOCK_HEADER 64u

typedef struct kmg_block {
    struct kmg_block *next;
} kmg_block;

static kmg_block *transient;

KMG_EXPORT("karmem_alloc") void *karmem_alloc(uint32_t size, uint32_t align) {
    uint64_t total;
    if (align == 0 || (align & (align - 1)) != 0 || align > 65536) {
        return NULL;
    }
    if (size == 0) {
        size = 1; /* a distinct, non-zero address */
    }
    if (align <= KMG_BLOCK_HEADER) {
        kmg_block *b;
        total = ((uint64_t)size + KMG_BLOCK_HEADER + 63) & ~(uint64_t)63;
        if (total > SIZE_MAX) {
            return NULL;
        }
        b = (kmg_block *)aligned_alloc(KMG_BLOCK_HEADER, (size_t)total);
        if (b == NULL) {
            return NULL;
        }
        b->next = transient;
        transient = b;
        return (uint8_t *)b + KMG_BLOCK_HEADER;
    }
    total = ((uint64_t)size + align - 1) & ~(uint64_t)(align - 1);
    if (total > SIZE_MAX) {
        return NULL;
    }
    return aligned_alloc(align, (size_t)total);
}

static void release_transient(void) {
    while (transient != NULL) {
        kmg_block *next = transient->next;
        free(transient);
        transient = next;
    }
}

KMG_EXPORT("karmem_bind_memory") void karmem_bind_memory(uint32_t index, uint8_t *ptr, uint32_t len) {
    if (index < n_memories) {
        windows[index] = (kmg_window){ptr, len};
    }
}

KMG_EXPORT("karmem_bind_access") void karmem_bind_access(uint32_t index, uint32_t access) {
    if (index < n_memories && access <= ABI_ACCESS_READ_WRITE) {
        window_access[index] = (abi_access)access;
    }
}

/* The decoded arguments of a dispatch (and whatever a handler puts in
 * call->arena): a static first block, then blocks from malloc. */
static _Alignas(8) uint8_t arena_first[4096];
static km_arena dispatch_arena;
static bool arena_ready;

static km_writer result_writer;
static bool result_writer_ready;

km_writer *kmg_result_writer(void) {
    if (!result_writer_ready) {
        if (km_writer_init(&result_writer, 256, NULL) != KM_OK) {
            return NULL;
        }
        result_writer_ready = true;
    }
    return &result_writer;
}

static void error_function(const kmg_call *call) {
    error_text(call->iface->name);
    kmg_error_add(".", 1);
    error_text(call->iface->functions.ptr[call->function].name);
    kmg_error_add(": ", 2);
}

kmg_bytes kmg_arg(const kmg_call *call, uint32_t k) {
    if (k >= call->count) {
        return (kmg_bytes){NULL, 0};
    }
    return call->args[k];
}

kmg_status kmg_bad_argument(kmg_call *call, const char *param, km_status why) {
    error_len = 0;
    error_function(call);
    kmg_error_str("argument ");
    kmg_error_str(param);
    kmg_error_add(": ", 2);
    kmg_error_str(km_status_text(why));
    return KMG_BAD_ARGUMENT;
}

kmg_status kmg_unknown_function(kmg_call *call) {
    error_len = 0;
    error_function(call);
    kmg_error_str("not implemented by this module");
    return KMG_UNKNOWN_FUNCTION;
}

kmg_status kmg_result_failed(kmg_call *call, km_status why) {
    error_len = 0;
    error_function(call);
    kmg_error_str("encoding the result: ");
    kmg_error_str(km_status_text(why));
    return KMG_APPLICATION_ERROR;
}

kmg_status kmg_open_arg(kmg_call *call, uint32_t k, const char *param, km_reader *r,
                        bool *present) {
    kmg_bytes a = kmg_arg(call, k);
    km_status s;
    *present = a.len != 0;
    s = km_reader_open(r, a.ptr, a.len);
    if (!*present) {
        return KMG_OK;
    }
    return s == KM_OK ? KMG_OK : kmg_bad_argument(call, param, s);
}

bool kmg_window_holds(kmg_window w, const void *ptr, size_t len) {
    uintptr_t p = (uintptr_t)ptr, start = (uintptr_t)w.ptr;
    return w.ptr != NULL && p >= start && len <= w.len && p - start <= w.len - len;
}

kmg_status kmg_set_result(kmg_call *call, const uint8_t *ptr, uint32_t len) {
    if (call->result_memory != UINT32_MAX) {
        if (!kmg_window_holds(windows[call->result_memory], ptr, len)) {
            error_len = 0;
            error_function(call);
            kmg_error_str("the result is not inside the window of ");
            error_text(memories[call->result_memory].name);
            return KMG_APPLICATION_ERROR;
        }
    }
    call->result = (kmg_bytes){ptr, len};
    return KMG_OK;
}

/* Address 0 is never an argument's (karmem_alloc returns 0 only when out
 * of memory): an entry {0, len > 0} is refused like any bad argument,
 * as every guest library does (docs/abi.md §5.1). */
static kmg_status null_argument(kmg_call *call, const abi_function_desc *fn) {
    for (uint32_t k = 0; k < call->count; k++) {
        if (call->args[k].ptr == NULL && call->args[k].len > 0) {
            error_function(call);
            kmg_error_str("argument ");
            error_text(fn->params.ptr[k].name);
            kmg_error_add(": ", 2);
            error_u32(call->args[k].len);
            kmg_error_str(" bytes at address 0");
            return KMG_BAD_ARGUMENT;
        }
    }
    return KMG_OK;
}

KMG_EXPORT("karmem_dispatch")
int32_t karmem_dispatch(uint32_t function, const kmg_bytes *args, uint32_t count) {
    uint32_t e = function >> 16, f = function & 0xffffu;
    kmg_status status;
    kmg_call call = {0};
    error_len = 0;
    if (!arena_ready) {
        km_arena_init_growable(&dispatch_arena, arena_first, sizeof arena_first, NULL);
        arena_ready = true;
    }
    if (e >= n_exports || f >= exports[e].desc->functions.len) {
        kmg_error_str("no export function ");
        error_u32(function);
        status = KMG_UNKNOWN_FUNCTION;
    } else {
        const abi_function_desc *fn = &exports[e].desc->functions.ptr[f];
        call.iface = exports[e].desc;
        call.function = f;
        call.args = args;
        call.count = count;
        call.arena = &dispatch_arena;
        call.result_memory = UINT32_MAX;
        if (fn->result.memory.len > 0) {
            int32_t m = memory_index(fn->result.memory.ptr, fn->result.memory.len);
            call.result_memory = m >= 0 ? (uint32_t)m : UINT32_MAX;
        }
        /* The checks of docs/abi.md §5.2, in its order: the function id
         * (above), the number of arguments, then each argument. */
        if (count != fn->params.len) {
            error_function(&call);
            error_u32(count);
            kmg_error_str(" arguments for ");
            error_u32(fn->params.len);
            kmg_error_str(" parameters");
            status = KMG_BAD_ARGUMENT;
        } else if (count > 0 && args == NULL) {
            error_function(&call);
            kmg_error_str("the argument array is at address 0");
            status = KMG_BAD_ARGUMENT;
        } else {
            status = null_argument(&call, fn);
            if (status == KMG_OK) {
                status = exports[e].dispatch(&call, exports[e].impl);
            }
        }
        /* Only the dispatch statuses go back to the host; anything else a
         * handler returns (a failed import's status, say) is its
         * application error. */
        if (status > KMG_APPLICATION_ERROR) {
            if (error_len == 0) {
                error_function(&call);
                kmg_error_str(kmg_status_name(status));
            }
            status = KMG_APPLICATION_ERROR;
        }
    }
    if (status == KMG_OK) {
        if (call.result.len > 0) {
            kmg_host_result(call.result.ptr, call.result.len);
        }
    } else {
        kmg_host_error(error_buf, error_len);
    }
    release_transient();
    km_arena_reset(&dispatch_arena);
    return (int32_t)status;
}

/* ---- Windows ---------------------------------------------------------------- */

kmg_window kmg_window_of(const char *name) {
    int32_t i = memory_index(name, strlen(name));
    if (i < 0) {
        return (kmg_window){NULL, 0};
    }
    return windows[i];
}

abi_access kmg_window_access(const char *name) {
    int32_t i = memory_index(name, strlen(name));
    if (i < 0 || windows[i].ptr == NULL) {
        return ABI_ACCESS_NONE;
    }
    return window_access[i];
}

/* ---- Imports ---------------------------------------------------------------- */

static kmg_out_entry out_entries[KMG_MAX_CALLEES];

static const char no_memory_text[] = "karmem guest: the arena cannot hold the reply";
static const char take_failed_text[] = "karmem guest: the host refused to hand over the reply";

int32_t kmg_call_import(uint32_t function, const kmg_bytes *args, uint32_t count,
                        kmg_reply *replies, uint32_t cap, km_arena *arena) {
    int32_t n = kmg_host_call(function, args, count, out_entries, KMG_MAX_CALLEES);
    uint32_t m;
    if (n < 0) {
        return n;
    }
    m = (uint32_t)n;
    if (m > cap) {
        m = cap;
    }
    if (m > KMG_MAX_CALLEES) {
        m = KMG_MAX_CALLEES;
    }
    for (uint32_t k = 0; k < m; k++) {
        const kmg_out_entry *e = &out_entries[k];
        kmg_reply *r = &replies[k];
        r->callee = e->callee;
        r->status = e->status;
        r->code = 0;
        r->msg = (kmg_bytes){NULL, 0};
        if (e->status == KMG_OK && e->ptr != NULL) {
            /* Region-bound: already in this module's window. */
            r->msg = (kmg_bytes){e->ptr, e->len};
        } else if (e->len > 0) {
            void *dst;
            if (km_arena_alloc(arena, e->len, &dst) != KM_OK) {
                r->status = KMG_NO_MEMORY;
                r->msg = (kmg_bytes){(const uint8_t *)no_memory_text, sizeof no_memory_text - 1};
                continue;
            }
            if (kmg_host_take(k, (uint8_t *)dst, e->len) != 0) {
                r->status = KMG_TRAP;
                r->msg = (kmg_bytes){(const uint8_t *)take_failed_text, sizeof take_failed_text - 1};
                continue;
            }
            r->msg = (kmg_bytes){(const uint8_t *)dst, e->len};
        }
    }
    return n;
}

kmg_status kmg_reply_fail(kmg_reply *reply, kmg_status status, int32_t code, const char *text) {
    reply->status = status;
    reply->code = code;
    reply->msg = (kmg_bytes){(const uint8_t *)text, (uint32_t)strlen(text)};
    return status;
}

kmg_status kmg_call_one(uint32_t function, const kmg_bytes *args, uint32_t count,
                        kmg_reply *reply, km_arena *arena) {
    int32_t n;
    memset(reply, 0, sizeof *reply);
    n = kmg_call_import(function, args, count, reply, 1, arena);
    if (n < 0) {
        return kmg_reply_fail(reply, KMG_CALL_FAILED, n, kmg_call_error_text(n));
    }
    if (n == 0) {
        return kmg_reply_fail(reply, KMG_CALL_FAILED, -5, kmg_call_error_text(-5));
    }
    return reply->status;
}

/* A km_allocator over an arena: 64-byte aligned pieces (what a writer
 * needs), released only with the arena. */
static void *arena_piece(void *ctx, size_t size) {
    void *p;
    if (size > SIZE_MAX - 64 || km_arena_alloc((km_arena *)ctx, size + 56, &p) != KM_OK) {
        return NULL;
    }
    return (void *)(((uintptr_t)p + 63) & ~(uintptr_t)63);
}

static void arena_piece_free(void *ctx, void *p, size_t size) {
    (void)ctx;
    (void)p;
    (void)size;
}

km_status kmg_arena_writer(km_writer *w, km_arena *arena, size_t capacity) {
    km_allocator a;
    a.alloc = arena_piece;
    a.free = arena_piece_free;
    a.ctx = arena;
    return km_writer_init(w, capacity, &a);
}

void kmg_log(uint32_t level, const char *text, size_t len) {
    kmg_host_log(level, text, len > UINT32_MAX ? UINT32_MAX : (uint32_t)len);
}
