/*
 * The Karmem paper's data-oriented comparison (its Table 3), in C, with
 * Karmem's own columns beside it (docs/benchmarks.md, "C: data layouts").
 *
 * One loop, `distance += speed` over every scooter {id u32, distance u32}
 * (8 bytes, two per 128-bit SIMD lane), over the same data organised as:
 *
 *   native      an array of structs (AoS), the loop written plainly;
 *   fixed       the same bytes as u32 words, stride 2 and offset 1 known
 *               at compile time (what reading serialised AoS data is);
 *   stride      the same, stride and offset known only at run time;
 *   fixed+simd  fixed, four words at a time with the lane mask {0,s,0,s};
 *   soa         a distances array (structure of arrays);
 *   soa+simd    soa, four at a time;
 *   aop         an array of pointers to separately allocated structs;
 *   karmem-soa  the Distance column of a Karmem message's SoA array,
 *               found through its directory (km_soa_columns) and updated
 *               in place as a native u32 array;
 *   karmem-aos  the same scooters as a Karmem AoS array of inline
 *               structs (`#aos`): the fixed loop over the message's bytes.
 *
 * Each variant runs ROUNDS times in a shuffled order (the paper ran its
 * tests in random order, repeatedly, on shared machines); the median per
 * variant is reported with its ratio to native, and the interquartile range.
 *
 * Build and run: scripts/bench-c.sh (natively with gcc-12 and clang-19,
 * and as a wasm32-wasi module under wasmtime, the paper's setting).
 */
#include "../karmem.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct scooter {
    uint32_t id;
    uint32_t distance;
} scooter;

/* Four u32 lanes: the 128-bit SIMD of WebAssembly and SSE. GCC and clang
 * vector extensions; the loops are otherwise standard C. */
typedef uint32_t u32x4 __attribute__((vector_size(16)));

enum { ROUNDS = 41, VARIANTS = 9 };

/* Scooters: the first argument, default 2^20 (the arrays then exceed the
 * caches; 10 000 fit in L2). */
static uint32_t count = 1u << 20;

/* Every variant has data of its own, so that none finds its data in a
 * cache because another variant just used it: with shared arrays, the
 * four AoS variants and the two SoA variants warmed each other's data in
 * the shuffled order, and out of cache the variants over a Karmem message
 * looked 50-90% slower than the same loops over shared plain arrays
 * (docs/benchmarks.md, "C: data layouts"). */
static scooter *aos;               /* native */
static uint32_t *aos_fixed;        /* fixed: an array of structs, as words */
static uint32_t *aos_stride;       /* stride */
static uint32_t *aos_simd;         /* fixed+simd */
static uint32_t *soa_distances;    /* soa */
static uint32_t *soa_simd_distances; /* soa+simd */
static scooter **aop;
static uint8_t *message; /* a Karmem message: SoA and AoS arrays of Scooter */
static size_t message_len;
static uint32_t karmem_aos;
/* The columns of Scooter {Id u32; Distance u32} as an SoA element: the
 * paths [0] and [1] (format.md §5.3; build_message checks the hashes). */
static const km_column scooter_columns[] = {{0x4b95f515u, 4, true}, {0xfb69b604u, 4, true}};
/* Volatile: the stride test's stride and offset, and the speed, are known
 * only at run time, as the host provides them to the guest in the paper. */
static volatile uint32_t runtime_stride = 2, runtime_offset = 1, runtime_speed = 3;

static void run_native(uint32_t speed) {
    for (uint32_t i = 0; i < count; i++) {
        aos[i].distance += speed;
    }
}

static void run_fixed(uint32_t speed) {
    for (uint32_t i = 1; i < 2 * count; i += 2) {
        aos_fixed[i] += speed;
    }
}

static void run_stride(uint32_t speed) {
    uint32_t stride = runtime_stride, offset = runtime_offset;
    for (uint32_t i = offset; i < 2 * count; i += stride) {
        aos_stride[i] += speed;
    }
}

static void add_lanes(uint32_t *words, uint32_t n, u32x4 mask) {
    for (uint32_t i = 0; i < n; i += 4) {
        u32x4 v;
        memcpy(&v, words + i, sizeof v);
        v += mask;
        memcpy(words + i, &v, sizeof v);
    }
}

static void run_fixed_simd(uint32_t speed) {
    u32x4 mask = {0, speed, 0, speed};
    add_lanes(aos_simd, 2 * count, mask);
}

static void run_soa(uint32_t speed) {
    for (uint32_t i = 0; i < count; i++) {
        soa_distances[i] += speed;
    }
}

static void run_soa_simd(uint32_t speed) {
    u32x4 mask = {speed, speed, speed, speed};
    add_lanes(soa_simd_distances, count, mask);
}

static void run_aop(uint32_t speed) {
    for (uint32_t i = 0; i < count; i++) {
        aop[i]->distance += speed;
    }
}

/* The column is found again on every run, as a reader of a fresh message
 * would: the directory lookup is part of the cost. */
static uint32_t *karmem_distances(void) {
    km_reader r;
    km_array a;
    uint32_t cols[2];
    if (km_reader_open(&r, message, message_len) != KM_OK) {
        return NULL;
    }
    a = km_field_array(&r, km_root(&r), 4, 0, KM_NO_LIMIT);
    km_soa_columns(&r, a, scooter_columns, 2, cols);
    if (cols[1] == 0 || a.len != count) {
        return NULL;
    }
    /* The message is ours and writable: the column is a native array. */
    return (uint32_t *)(void *)(message + cols[1]);
}

static void run_karmem_soa(uint32_t speed) {
    uint32_t *d = karmem_distances();
    for (uint32_t i = 0; i < count; i++) {
        d[i] += speed;
    }
}

static void run_karmem_aos(uint32_t speed) {
    uint32_t *words = (uint32_t *)(void *)(message + karmem_aos);
    for (uint32_t i = 1; i < 2 * count; i += 2) {
        words[i] += speed;
    }
}

static const struct {
    const char *name;
    void (*run)(uint32_t);
} variants[VARIANTS] = {
    {"native", run_native},         {"fixed", run_fixed},       {"stride", run_stride},
    {"fixed+simd", run_fixed_simd}, {"soa", run_soa},           {"soa+simd", run_soa_simd},
    {"aop", run_aop},               {"karmem-soa", run_karmem_soa}, {"karmem-aos", run_karmem_aos},
};

/* The message: root table {Soa []Scooter #soa; Aos []Scooter #aos} written
 * with the C library (the paths [0] and [1] of Scooter hash to the column
 * hashes above; format.md §5.3). */
static int build_message(void) {
    km_writer w;
    uint32_t root, cols[2], block;
    uint32_t p0[] = {0}, p1[] = {1};
    if (km_path_hash(p0, 1) != scooter_columns[0].hash || km_path_hash(p1, 1) != scooter_columns[1].hash) {
        fprintf(stderr, "dod: column hashes are stale\n");
        return 1;
    }
    if (km_writer_init(&w, (size_t)20 << 20, NULL) != KM_OK || km_writer_begin(&w) != KM_OK ||
        km_alloc(&w, 32, 8, &root) != KM_OK) {
        return 1;
    }
    km_put_u32(&w, root, 4); /* 32 bytes, all used: header, two references */
    if (km_write_soa(&w, root + 4, count, scooter_columns, 2, cols) != KM_OK ||
        km_alloc_array_filled(&w, count, 8, &block) != KM_OK) {
        return 1;
    }
    for (uint32_t i = 0; i < count; i++) {
        km_put_u32(&w, cols[0] + 4 * i, i);
        km_put_u32(&w, cols[1] + 4 * i, 0);
        km_put_u32(&w, block + 8 * i, i);
        km_put_u32(&w, block + 8 * i + 4, 0);
    }
    km_put_array_ref(&w, root + 16, block, count, count);
    if (km_writer_finish(&w) != KM_OK) {
        return 1;
    }
    message = aligned_alloc(64, ((size_t)km_writer_len(&w) + 63) & ~(size_t)63);
    if (message == NULL) {
        return 1;
    }
    memcpy(message, km_writer_bytes(&w), km_writer_len(&w));
    message_len = km_writer_len(&w);
    karmem_aos = block;
    km_writer_free(&w);
    return 0;
}

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* n zeroed, 64-byte aligned words. */
static uint32_t *words(uint32_t n) {
    uint32_t *p = aligned_alloc(64, ((size_t)n * 4 + 63) & ~(size_t)63);
    if (p != NULL) {
        memset(p, 0, (size_t)n * 4);
    }
    return p;
}

int main(int argc, char **argv) {
    static double samples[VARIANTS][ROUNDS];
    uint32_t order[VARIANTS];
    uint64_t rng = 0x9E3779B97F4A7C15u;
    double native;
    if (argc > 1) {
        count = (uint32_t)strtoul(argv[1], NULL, 10) & ~3u; /* whole SIMD lanes */
    }
    if (count < 16) {
        fprintf(stderr, "dod: at least 16 scooters\n");
        return 1;
    }
    aos = aligned_alloc(64, (sizeof(scooter) * count + 63) & ~(size_t)63);
    aos_fixed = words(2 * count);
    aos_stride = words(2 * count);
    aos_simd = words(2 * count);
    soa_distances = words(count);
    soa_simd_distances = words(count);
    aop = malloc(sizeof(scooter *) * count);
    if (aos == NULL || aos_fixed == NULL || aos_stride == NULL || aos_simd == NULL ||
        soa_distances == NULL || soa_simd_distances == NULL || aop == NULL || build_message() != 0) {
        fprintf(stderr, "dod: out of memory\n");
        return 1;
    }
    for (uint32_t i = 0; i < count; i++) {
        aos[i].id = i;
        aos[i].distance = 0;
        aos_fixed[2 * i] = aos_stride[2 * i] = aos_simd[2 * i] = i;
        aos_fixed[2 * i + 1] = aos_stride[2 * i + 1] = aos_simd[2 * i + 1] = 0;
        soa_distances[i] = soa_simd_distances[i] = 0;
        aop[i] = malloc(sizeof(scooter));
        if (aop[i] == NULL) {
            return 1;
        }
        aop[i]->id = i;
        aop[i]->distance = 0;
    }
    for (uint32_t v = 0; v < VARIANTS; v++) {
        order[v] = v;
        variants[v].run(runtime_speed); /* warm up: touch every page */
    }
    for (uint32_t round = 0; round < ROUNDS; round++) {
        for (uint32_t v = VARIANTS - 1; v > 0; v--) { /* Fisher-Yates, xorshift */
            uint32_t j, t;
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            j = (uint32_t)(rng % (v + 1));
            t = order[v];
            order[v] = order[j];
            order[j] = t;
        }
        for (uint32_t k = 0; k < VARIANTS; k++) {
            double start = now_ns();
            variants[order[k]].run(runtime_speed);
            samples[order[k]][round] = now_ns() - start;
        }
    }
    /* Every variant added the same speeds to the same scooters. */
    {
        uint32_t want = runtime_speed * (ROUNDS + 1), *kd = karmem_distances();
        uint32_t *ka = (uint32_t *)(void *)(message + karmem_aos);
        if (aos[count - 1].distance != want || aos_fixed[2 * 11 + 1] != want ||
            aos_stride[2 * 13 + 1] != want || aos_simd[2 * (count - 1) + 1] != want ||
            soa_distances[7] != want || soa_simd_distances[count - 1] != want ||
            aop[3]->distance != want || kd[5] != want || ka[2 * 9 + 1] != want) {
            fprintf(stderr, "dod: the variants disagree\n");
            return 1;
        }
    }
    for (uint32_t v = 0; v < VARIANTS; v++) {
        qsort(samples[v], ROUNDS, sizeof(double), compare);
    }
    native = samples[0][ROUNDS / 2];
    printf("%u scooters, %u rounds, median (interquartile range) per run\n", count, ROUNDS);
    printf("%-12s %12s %10s %18s\n", "variant", "median_us", "vs_native", "iqr_us");
    for (uint32_t v = 0; v < VARIANTS; v++) {
        double median = samples[v][ROUNDS / 2];
        printf("%-12s %12.1f %+9.1f%% %8.1f-%-8.1f\n", variants[v].name, median / 1e3,
               (median / native - 1) * 100, samples[v][ROUNDS / 4] / 1e3,
               samples[v][3 * ROUNDS / 4] / 1e3);
    }
    return 0;
}
