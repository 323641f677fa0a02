/*
 * The Karmem side of the serialisation benchmark (docs/benchmarks.md,
 * "Guests: the paper's Tables 5 and 6"). Writing uses the generated
 * encoder (`karmem build --lang c` of batch.km, into the build directory).
 * Reading in place uses the generated checked viewers: the Readings array's
 * Value column is a native float slice over the message. The validated
 * variant reads the same column through the generated trusted viewers,
 * after batch_temperature_batch_trust validated the message (docs/c.md,
 * "Trusted viewers").
 */
#include "karmem_side.h"

#include "batch.h"

#include <string.h>

static km_writer writer;
static km_writer result_writer;
static km_arena arena;

int kb_init(void) {
    if (km_writer_init(&writer, 1u << 16, NULL) != KM_OK ||
        km_writer_init(&result_writer, 64, NULL) != KM_OK) {
        return -1;
    }
    km_arena_init_growable(&arena, NULL, 0, NULL);
    /* Every reader agrees on what the generated encoder writes. */
    bench_reading one = {42, 1.5f};
    const uint8_t *msg;
    size_t len = kb_write(&one, 1, &msg);
    bench_analysis a;
    if (len == 0 || kb_read_validated(msg, len, &a) == 0 || a.max != 1.5f) {
        return -2;
    }
    return 0;
}

size_t kb_write(const bench_reading *readings, uint32_t n, const uint8_t **out) {
    /* bench_reading and the generated struct have the same members; the
     * program's array is passed to the encoder as is. */
    _Static_assert(sizeof(bench_reading) == sizeof(batch_temperature_reading), "same layout");
    batch_temperature_batch batch;
    batch.readings.ptr = (batch_temperature_reading *)(uintptr_t)readings;
    batch.readings.len = n;
    if (batch_temperature_batch_encode(&batch, &writer) != KM_OK) {
        return 0;
    }
    *out = km_writer_bytes(&writer);
    return km_writer_len(&writer);
}

/* Analyses n values `stride` floats apart and writes the AnalysisResult. */
static size_t write_result(bench_analysis *a, const float *values, size_t stride, uint32_t n) {
    float sum = 0, max = n ? values[0] : 0, min = n ? values[0] : 0;
    for (uint32_t i = 0; i < n; i++) {
        float v = values[i * stride];
        sum += v;
        max = v > max ? v : max;
        min = v < min ? v : min;
    }
    a->average = n ? sum / (float)n : 0;
    a->max = max;
    a->min = min;
    batch_analysis_result result = {a->average, a->max, a->min};
    if (batch_analysis_result_encode(&result, &result_writer) != KM_OK) {
        return 0;
    }
    return km_writer_len(&result_writer);
}

size_t kb_read(const uint8_t *msg, size_t len, bench_analysis *a) {
    km_reader r;
    if (km_reader_open(&r, msg, len) != KM_OK) {
        return 0;
    }
    batch_temperature_reading_soa readings =
        batch_temperature_batch_view_readings(batch_temperature_batch_view_root(&r));
    /* Empty when the column is absent: it then reads as zeros. */
    km_f32_slice values = batch_temperature_reading_soa_value_column(readings);
    static const float none[1] = {0};
    return write_result(a, values.len ? values.ptr : none, 1, values.len);
}

size_t kb_read_decode(const uint8_t *msg, size_t len, bench_analysis *a) {
    km_reader r;
    batch_temperature_batch batch;
    km_arena_reset(&arena);
    if (km_reader_open(&r, msg, len) != KM_OK ||
        batch_temperature_batch_decode(&batch, &r, &arena) != KM_OK) {
        return 0;
    }
    static const batch_temperature_reading none = {0, 0};
    const batch_temperature_reading *rs = batch.readings.len ? batch.readings.ptr : &none;
    return write_result(a, &rs[0].value, sizeof *rs / sizeof(float), batch.readings.len);
}

size_t kb_read_validated(const uint8_t *msg, size_t len, bench_analysis *a) {
    km_reader r;
    km_error err;
    batch_temperature_batch_tview batch;
    if (km_reader_open(&r, msg, len) != KM_OK ||
        batch_temperature_batch_trust(&r, &err, &batch) != KM_OK) {
        return 0;
    }
    /* Empty when the column is absent: it then reads as zeros. */
    km_f32_slice values = batch_temperature_reading_tsoa_value_column(
        batch_temperature_batch_tview_readings(batch));
    static const float none[1] = {0};
    return write_result(a, values.len ? values.ptr : none, 1, values.len);
}
