/*
 * The Karmem paper's serialisation benchmark (its Tables 5 and 6) in a C
 * and C++ program: write a batch of N temperature readings, and read one
 * back, analyse it (average, maximum, minimum) and write the result, with
 *
 *   raw          the program's own array of structs: write is a copy into
 *                a buffer, read a loop over it (the floor);
 *   karmem       the generated C encoder; reading in place through the
 *                checked reader (karmem_side.c); also after the validator
 *                (trusted loads) and through the generated decoder;
 *   flatbuffers  flatc --cpp, readings as tables (the paper's schema) and
 *                as structs (FlatBuffers' form for fixed-size elements);
 *                read with and without its Verifier;
 *   json         nlohmann::json, build and dump; parse and walk.
 *
 * for N = 10 and 10 000, natively and as a wasm32-wasi module (the paper
 * measured inside a WebAssembly module). Each case runs ROUNDS samples of
 * enough iterations to last about a millisecond; the median time per
 * operation is printed with its ratio to Karmem's.
 *
 * Build and run: scripts/bench-batch.sh (docs/benchmarks.md, "Guests: the
 * paper's Tables 5 and 6").
 */
#include "batch_generated.h"
#include "karmem_side.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

namespace {

constexpr int ROUNDS = 21;

double now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

// Keeps results alive so the compiler cannot drop the work.
volatile size_t sink;
// `--check`: run every case once and check the analyses, without timing
// (scripts/test-c.sh keeps the benchmark building and correct).
bool check_only = false;

// The median nanoseconds per call of f.
double measure(const std::function<size_t()> &f) {
    if (check_only) {
        sink = sink + f();
        return 1;
    }
    size_t iters = 1;
    for (;;) {
        double t0 = now_ns();
        for (size_t i = 0; i < iters; i++) sink = sink + f();
        if (now_ns() - t0 > 1e6 || iters > (1u << 24)) break;
        iters *= 2;
    }
    std::vector<double> samples;
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now_ns();
        for (size_t i = 0; i < iters; i++) sink = sink + f();
        samples.push_back((now_ns() - t0) / double(iters));
    }
    std::sort(samples.begin(), samples.end());
    return samples[ROUNDS / 2];
}

std::vector<bench_reading> make_readings(uint32_t n) {
    std::vector<bench_reading> out(n);
    uint32_t seed = 2026;
    for (uint32_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        out[i].timestamp = 1764201600000 + int64_t(i) * 1000;
        out[i].value = 15.0f + float(seed >> 8) / float(1u << 24) * 20.0f;
    }
    return out;
}

// ---- raw: the program's array of structs ----------------------------------

std::vector<uint8_t> raw_buf;

size_t raw_write(const std::vector<bench_reading> &rs) {
    size_t n = rs.size() * sizeof(bench_reading);
    raw_buf.resize(n);
    std::memcpy(raw_buf.data(), rs.data(), n);
    return n;
}

bench_analysis analyse(const float *values, size_t stride, size_t n) {
    bench_analysis a{0, n ? values[0] : 0, n ? values[0] : 0};
    float sum = 0;
    for (size_t i = 0; i < n; i++) {
        float v = values[i * stride];
        sum += v;
        a.max = v > a.max ? v : a.max;
        a.min = v < a.min ? v : a.min;
    }
    a.average = n ? sum / float(n) : 0;
    return a;
}

size_t raw_read(const uint8_t *buf, size_t len, bench_analysis *a) {
    const auto *rs = reinterpret_cast<const bench_reading *>(buf);
    *a = analyse(&rs[0].value, sizeof(bench_reading) / sizeof(float), len / sizeof(bench_reading));
    return sizeof *a;
}

// ---- FlatBuffers ------------------------------------------------------------

namespace fb = BatchTemperature;
flatbuffers::FlatBufferBuilder builder(1 << 16);
flatbuffers::FlatBufferBuilder result_builder(64);

size_t fb_result(const bench_analysis &a) {
    result_builder.Clear();
    result_builder.Finish(fb::CreateAnalysisResult(result_builder, a.average, a.max, a.min));
    return result_builder.GetSize();
}

size_t fb_write_tables(const std::vector<bench_reading> &rs) {
    builder.Clear();
    std::vector<flatbuffers::Offset<fb::TemperatureReading>> offsets(rs.size());
    for (size_t i = 0; i < rs.size(); i++) {
        offsets[i] = fb::CreateTemperatureReading(builder, rs[i].timestamp, rs[i].value);
    }
    builder.Finish(fb::CreateTemperatureBatch(builder, builder.CreateVector(offsets)));
    return builder.GetSize();
}

size_t fb_write_structs(const std::vector<bench_reading> &rs) {
    builder.Clear();
    fb::ReadingStruct *out = nullptr;
    auto vec = builder.CreateUninitializedVectorOfStructs(rs.size(), &out);
    for (size_t i = 0; i < rs.size(); i++) out[i] = fb::ReadingStruct(rs[i].timestamp, rs[i].value);
    builder.Finish(fb::CreateTemperatureBatchStructs(builder, vec));
    return builder.GetSize();
}

// Analyses a vector of readings (tables or structs) and writes the result.
template <class Vector>
size_t fb_analyse(const Vector *readings, bench_analysis *a) {
    uint32_t n = readings ? readings->size() : 0;
    float sum = 0, max = 0, min = 0;
    for (uint32_t i = 0; i < n; i++) {
        float v = readings->Get(i)->value();
        if (i == 0) max = min = v;
        sum += v;
        max = v > max ? v : max;
        min = v < min ? v : min;
    }
    *a = {n ? sum / float(n) : 0, max, min};
    return fb_result(*a);
}

size_t fb_read_tables(const uint8_t *buf, size_t len, bool verify, bench_analysis *a) {
    if (verify) {
        flatbuffers::Verifier v(buf, len);
        if (!fb::VerifyTemperatureBatchBuffer(v)) return 0;
    }
    return fb_analyse(fb::GetTemperatureBatch(buf)->readings(), a);
}

size_t fb_read_structs(const uint8_t *buf, size_t len, bool verify, bench_analysis *a) {
    if (verify) {
        flatbuffers::Verifier v(buf, len);
        if (!v.VerifyBuffer<fb::TemperatureBatchStructs>(nullptr)) return 0;
    }
    return fb_analyse(flatbuffers::GetRoot<fb::TemperatureBatchStructs>(buf)->readings(), a);
}

// ---- JSON (nlohmann::json) ----------------------------------------------------

std::string json_text;

size_t json_write(const std::vector<bench_reading> &rs) {
    nlohmann::json readings = nlohmann::json::array();
    for (const auto &r : rs) readings.push_back({{"timestamp", r.timestamp}, {"value", r.value}});
    json_text = nlohmann::json{{"readings", std::move(readings)}}.dump();
    return json_text.size();
}

size_t json_read(const std::string &text, bench_analysis *a) {
    auto doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded()) return 0;
    const auto &readings = doc["readings"];
    float sum = 0, max = 0, min = 0;
    size_t n = readings.size();
    for (size_t i = 0; i < n; i++) {
        float v = readings[i]["value"].get<float>();
        if (i == 0) max = min = v;
        sum += v;
        max = v > max ? v : max;
        min = v < min ? v : min;
    }
    *a = {n ? sum / float(n) : 0, max, min};
    return nlohmann::json{{"average_temperature", a->average}, {"max_temperature", a->max},
                          {"min_temperature", a->min}}
        .dump()
        .size();
}

struct Row {
    std::string name;
    double ns;
    size_t bytes;
};

void print_rows(const char *what, uint32_t n, const std::vector<Row> &rows, double karmem_ns) {
    if (check_only) return;
    std::printf("\n%s, %u readings\n", what, n);
    std::printf("  %-28s %14s %10s %10s\n", "", "ns/op", "vs karmem", "bytes");
    for (const auto &r : rows) {
        std::printf("  %-28s %14.1f %9.2fx %10zu\n", r.name.c_str(), r.ns, r.ns / karmem_ns, r.bytes);
    }
}

bool same(const bench_analysis &a, const bench_analysis &b) {
    return std::fabs(a.average - b.average) <= 1e-3f * std::fabs(b.average) && a.max == b.max &&
           a.min == b.min;
}

}  // namespace

int main(int argc, char **argv) {
    check_only = argc > 1 && std::string(argv[1]) == "--check";
    if (kb_init() != 0) {
        std::fprintf(stderr, "karmem side: setup failed\n");
        return 1;
    }
    for (uint32_t n : {10u, 10000u}) {
        auto rs = make_readings(n);

        // Write.
        const uint8_t *kmsg = nullptr;
        std::vector<Row> w;
        w.push_back({"raw struct (memcpy)", measure([&] { return raw_write(rs); }), raw_write(rs)});
        double karmem_w = measure([&] { return kb_write(rs.data(), n, &kmsg); });
        w.push_back({"karmem", karmem_w, kb_write(rs.data(), n, &kmsg)});
        w.push_back({"flatbuffers (tables)", measure([&] { return fb_write_tables(rs); }), fb_write_tables(rs)});
        w.push_back({"flatbuffers (structs)", measure([&] { return fb_write_structs(rs); }), fb_write_structs(rs)});
        w.push_back({"json (nlohmann)", measure([&] { return json_write(rs); }), json_write(rs)});
        print_rows("write", n, w, karmem_w);

        // Read: each library's message of the same readings, made before timing.
        size_t klen = kb_write(rs.data(), n, &kmsg);
        std::vector<uint8_t> kbuf(kmsg, kmsg + klen);
        // An 8-byte aligned copy: Karmem readers need aligned messages.
        std::vector<uint64_t> kaligned((klen + 7) / 8);
        std::memcpy(kaligned.data(), kbuf.data(), klen);
        const auto *km = reinterpret_cast<const uint8_t *>(kaligned.data());
        fb_write_tables(rs);
        std::vector<uint8_t> fbt(builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize());
        fb_write_structs(rs);
        std::vector<uint8_t> fbs(builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize());
        json_write(rs);
        std::string js = json_text;
        raw_write(rs);
        std::vector<uint8_t> raw = raw_buf;

        bench_analysis want{}, got{};
        raw_read(raw.data(), raw.size(), &want);
        struct Reader {
            const char *name;
            std::function<size_t(bench_analysis *)> f;
        };
        std::vector<Reader> readers = {
            {"raw struct", [&](bench_analysis *a) { return raw_read(raw.data(), raw.size(), a); }},
            {"karmem (checked, in place)", [&](bench_analysis *a) { return kb_read(km, klen, a); }},
            {"karmem (validate+trusted)", [&](bench_analysis *a) { return kb_read_validated(km, klen, a); }},
            {"karmem (decode to objects)", [&](bench_analysis *a) { return kb_read_decode(km, klen, a); }},
            {"flatbuffers (tables)", [&](bench_analysis *a) { return fb_read_tables(fbt.data(), fbt.size(), false, a); }},
            {"flatbuffers (tables+verify)", [&](bench_analysis *a) { return fb_read_tables(fbt.data(), fbt.size(), true, a); }},
            {"flatbuffers (structs)", [&](bench_analysis *a) { return fb_read_structs(fbs.data(), fbs.size(), false, a); }},
            {"flatbuffers (structs+verify)", [&](bench_analysis *a) { return fb_read_structs(fbs.data(), fbs.size(), true, a); }},
            {"json (nlohmann)", [&](bench_analysis *a) { return json_read(js, a); }},
        };
        std::vector<Row> r;
        double karmem_r = 0;
        for (const auto &reader : readers) {
            // Every reader must find the same analysis before it is timed.
            if (reader.f(&got) == 0 || !same(got, want)) {
                std::fprintf(stderr, "%s: wrong analysis (avg %g max %g min %g, want %g %g %g)\n", reader.name,
                             double(got.average), double(got.max), double(got.min), double(want.average),
                             double(want.max), double(want.min));
                return 1;
            }
            double ns = measure([&] { return reader.f(&got); });
            if (std::string(reader.name) == "karmem (checked, in place)") karmem_r = ns;
            r.push_back({reader.name, ns, 0});
        }
        r[0].bytes = raw.size();
        r[1].bytes = r[2].bytes = r[3].bytes = klen;
        r[4].bytes = r[5].bytes = fbt.size();
        r[6].bytes = r[7].bytes = fbs.size();
        r[8].bytes = js.size();
        print_rows("read + analyse + write the result", n, r, karmem_r);
    }
    return 0;
}
