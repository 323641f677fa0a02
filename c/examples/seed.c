/*
 * The first Karmem README's example, in C: encode an account with three
 * profiles, validate the message once, and print each username read in
 * place through the generated viewers (nothing is decoded or copied). The
 * schema is the README's, unchanged (testdata/vectors/seed/schema.km);
 * `karmem build --lang c` writes app.h and app.c from it. docs/c.md, "The seed README's example".
 *
 * With `--hex`, prints the message instead, in the golden vectors' hex
 * form: scripts/test-c.sh checks it against testdata/vectors/seed.
 */
#include "app.h"

#include <stdio.h>
#include <string.h>

/* The golden vectors' hex form: "0000: 4b 4d ..." sixteen bytes a line. */
static void print_hex(const uint8_t *p, uint32_t n) {
    for (uint32_t line = 0; line < n; line += 16) {
        printf("%04x:", (unsigned)line);
        for (uint32_t i = line; i < n && i < line + 16; i++) {
            printf(" %02x", p[i]);
        }
        printf("\n");
    }
}

int main(int argc, char **argv) {
    app_profile profiles[] = {
        {{APP_SOCIAL_NETWORK_FACEBOOK, km_text_cstr("inkeliz"), 123}},
        {{APP_SOCIAL_NETWORK_FACEBOOK, km_text_cstr("karmem"), 231}},
        {{APP_SOCIAL_NETWORK_INSTAGRAM, km_text_cstr("inkeliz"), 312}},
    };
    app_account_data content = {42, km_text_cstr("example@email.com"), {profiles, 3}};

    /* Encode: a growable writer, reused for every message it writes. */
    km_writer writer;
    km_status s = km_writer_init(&writer, 1024, NULL);
    if (s == KM_OK) {
        s = app_account_data_encode(&content, &writer);
    }
    if (s != KM_OK) {
        fprintf(stderr, "encode: %s\n", km_status_text(s));
        return 1;
    }
    const uint8_t *encoded = km_writer_bytes(&writer);
    uint32_t size = km_writer_len(&writer);
    if (argc > 1 && strcmp(argv[1], "--hex") == 0) {
        print_hex(encoded, size);
        km_writer_free(&writer);
        return 0;
    }

    /* Read: open the message, validate it once, then read it in place
     * through the generated viewers: nothing is decoded or copied. */
    km_reader reader;
    km_error err;
    s = km_reader_open(&reader, encoded, size);
    if (s == KM_OK) {
        s = app_account_data_validate(&reader, &err);
    }
    if (s != KM_OK) {
        fprintf(stderr, "validate: %s\n", km_status_text(s));
        return 1;
    }
    app_account_data_view account = app_account_data_view_root(&reader);
    km_text email = app_account_data_view_email(account);
    printf("account %llu <%.*s>, %u bytes\n",
           (unsigned long long)app_account_data_view_id(account), (int)email.len, email.ptr, size);
    app_profile_view_array views = app_account_data_view_profiles(account);
    for (uint32_t i = 0; i < app_profile_view_array_len(views); i++) {
        app_profile_data_view data = app_profile_view_data(app_profile_view_array_at(views, i));
        km_text username = app_profile_data_view_username(data);
        printf("%.*s\n", (int)username.len, username.ptr);
    }
    km_writer_free(&writer);
    return 0;
}
