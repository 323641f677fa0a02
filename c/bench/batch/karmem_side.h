/*
 * The Karmem side of the serialisation benchmark (karmem_side.c), callable
 * from the C++ harness (main.cpp) with plain C types: the generated C code
 * and karmem.h are C11 and stay in C translation units.
 */
#ifndef KARMEM_BENCH_BATCH_SIDE_H
#define KARMEM_BENCH_BATCH_SIDE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One reading, as the program holds it before writing. */
typedef struct bench_reading {
    int64_t timestamp;
    float value;
} bench_reading;

/* avg, max, min of a batch's values. */
typedef struct bench_analysis {
    float average;
    float max;
    float min;
} bench_analysis;

/* Prepares a reusable writer and arena; 0 on success. */
int kb_init(void);

/* Writes a TemperatureBatch of readings[0..n) with the generated encoder;
 * the message is *out (valid until the next write), its length returned
 * (0 on failure). */
size_t kb_write(const bench_reading *readings, uint32_t n, const uint8_t **out);

/* Reads a TemperatureBatch message in place with the checked reader (the
 * Value column as a native float array), analyses it and writes the
 * AnalysisResult message; the result's length (0 on failure). */
size_t kb_read(const uint8_t *msg, size_t len, bench_analysis *a);

/* The same through the generated decoder (objects in an arena): the
 * copying path, and the check that both agree. */
size_t kb_read_decode(const uint8_t *msg, size_t len, bench_analysis *a);

/* The same through the generated trusted viewers, after _trust validated
 * the message. */
size_t kb_read_validated(const uint8_t *msg, size_t len, bench_analysis *a);

#ifdef __cplusplus
}
#endif

#endif
