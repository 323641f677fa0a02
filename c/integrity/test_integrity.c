/* The C member's own tests: SHA-256 against FIPS 180-4's vectors, and the
 * protocol (docs/integrity.md §4) on good and bad requests, including
 * damaged messages, which must give an error or a digest and never a bad
 * read (this test runs under AddressSanitizer and UBSan). The agreement
 * with the other languages is the harness's job
 * (crates/karmem-integrity/tests/suite.rs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "member.h"
#include "sha256.h"

static int failures = 0;
static int checks = 0;

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        checks++;                                                             \
        if (!(cond)) {                                                        \
            failures++;                                                       \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                  \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
        }                                                                     \
    } while (0)

static void hex(const uint8_t *b, size_t n, char *out) {
    for (size_t i = 0; i < n; i++) {
        snprintf(out + 2 * i, 3, "%02x", b[i]);
    }
}

static void digest_is(const char *data, size_t len, const char *want) {
    uint8_t d[32];
    char got[65];
    sha256_of((const uint8_t *)data, len, d);
    hex(d, 32, got);
    CHECK(strcmp(got, want) == 0, "sha256 of %zu bytes: %s, want %s", len, got, want);
}

static void test_sha256(void) {
    digest_is("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    digest_is("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    digest_is(two, strlen(two), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const char *four = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    digest_is(four, strlen(four), "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
    /* A million 'a', fed in uneven pieces across block boundaries. */
    sha256 s;
    sha256_init(&s);
    static char a[1000];
    memset(a, 'a', sizeof a);
    size_t fed = 0, piece = 1;
    while (fed < 1000000) {
        size_t n = piece < 1000000 - fed ? piece : 1000000 - fed;
        n = n < sizeof a ? n : sizeof a;
        sha256_update(&s, (const uint8_t *)a, n);
        fed += n;
        piece = piece * 7 % 997 + 1;
    }
    uint8_t d[32];
    char got[65];
    sha256_final(&s, d);
    hex(d, 32, got);
    CHECK(strcmp(got, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0, "a million a: %s", got);
    /* 55, 56 and 64 bytes: the padding's boundary cases. */
    digest_is(a, 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
    digest_is(a, 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
    digest_is(a, 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

static char *ask(const char *request) {
    char *a = ki_answer(request, strlen(request));
    CHECK(a != NULL, "%s: no answer", request);
    return a;
}

static bool is_error(const char *a) { return a != NULL && strncmp(a, "error ", 6) == 0; }

static char *request(const char *cmd, const char *version, const char *arg) {
    size_t n = strlen(cmd) + strlen(version) + strlen(arg) + 3;
    char *r = malloc(n);
    if (r == NULL) {
        abort();
    }
    snprintf(r, n, "%s %s %s", cmd, version, arg);
    return r;
}

static void test_protocol(void) {
    static const char *bad[] = {
        "produce old nope", "produce ancient 1", "consume new zz", "consume new 4b4d",
        "consume old 00000000000000000000000000000000", "unknown new 00", "consume", "",
        "produce old 18446744073709551616", "produce old -1", "produce old 1 2", "consume new 0",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *a = ask(bad[i]);
        CHECK(is_error(a), "%s answered %s", bad[i], a ? a : "nothing");
        free(a);
    }
    char *max = ask("produce new 18446744073709551615");
    CHECK(!is_error(max), "the largest seed: %s", max);
    free(max);

    for (uint64_t seed = 0; seed < 8; seed++) {
        for (int pv = 0; pv < 2; pv++) {
            const char *version = pv ? "new" : "old";
            char arg[24];
            snprintf(arg, sizeof arg, "%llu", (unsigned long long)seed);
            char *req = request("produce", version, arg);
            char *msg = ask(req);
            free(req);
            CHECK(!is_error(msg) && strlen(msg) % 16 == 0, "seed %s: %s", arg, msg);
            /* Both versions read it; its own version round-trips it. */
            for (int cv = 0; cv < 2; cv++) {
                req = request("consume", cv ? "new" : "old", msg);
                char *digest = ask(req);
                free(req);
                CHECK(!is_error(digest) && strlen(digest) == 64, "seed %s: consume %s", arg, digest);
                /* consume is the SHA-256 of stream's bytes. */
                req = request("stream", cv ? "new" : "old", msg);
                char *stream = ask(req);
                free(req);
                size_t n = strlen(stream) / 2;
                uint8_t *b = malloc(n + 1);
                for (size_t i = 0; b != NULL && i < n; i++) {
                    unsigned x;
                    sscanf(stream + 2 * i, "%2x", &x);
                    b[i] = (uint8_t)x;
                }
                uint8_t d[32];
                char got[65];
                sha256_of(b, n, d);
                hex(d, 32, got);
                CHECK(strcmp(got, digest) == 0, "seed %s: the digest is not the stream's", arg);
                free(b);
                free(stream);
                free(digest);
            }
            req = request("roundtrip", version, msg);
            char *ok = ask(req);
            free(req);
            CHECK(ok != NULL && strcmp(ok, "ok") == 0, "seed %s %s: roundtrip %s", arg, version, ok);
            free(ok);

            /* Damaged copies of the smaller messages (seeds 1, 2, 5 and
             * 6): every byte in turn changed (in the first 1 KB, where the
             * root table and most references are), and every truncation to
             * a multiple of 8 bytes: an error or a digest, never a bad
             * read. */
            size_t len = strlen(msg);
            if (seed % 4 == 0 || seed % 4 == 3) {
                free(msg);
                continue;
            }
            for (size_t at = 0; at < len && at < 2048; at += 2) {
                char saved = msg[at];
                msg[at] = saved == 'f' ? '0' : 'f';
                req = request("consume", version, msg);
                char *a = ask(req);
                CHECK(a != NULL && (is_error(a) || strlen(a) == 64), "damaged at %zu: %s", at / 2, a);
                free(a);
                free(req);
                msg[at] = saved;
            }
            for (size_t cut = 0; cut < len; cut += 16) {
                char saved = msg[cut];
                msg[cut] = '\0';
                req = request("stream", version, msg);
                char *a = ask(req);
                CHECK(a != NULL && (cut == len || is_error(a) || strlen(a) % 2 == 0), "cut at %zu: %s", cut / 2, a);
                free(a);
                free(req);
                msg[cut] = saved;
            }
            free(msg);
        }
    }
}

int main(void) {
    test_sha256();
    test_protocol();
    printf("test_integrity: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
