/* The C side of the quick start (docs/quickstart.md): reads the message
 * the Go program wrote (the file named by the first argument), validates
 * it once, reads it in place and prints it as the other languages do. */
#include "chat.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    static uint64_t buf[4096]; /* 8-byte aligned, as a reader needs */
    FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
    if (f == NULL) {
        fprintf(stderr, "usage: reader MESSAGE\n");
        return 1;
    }
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);

    km_reader r;
    km_status s = km_reader_open(&r, buf, len);
    if (s != KM_OK) {
        fprintf(stderr, "not a message: %s\n", km_status_text(s));
        return 1;
    }
    km_error err;
    if (chat_message_validate(&r, &err) != KM_OK) {
        fprintf(stderr, "invalid message: %s at %u\n", km_status_text(err.kind), err.offset);
        return 1;
    }
    chat_message_view m = chat_message_view_root(&r);
    km_text text = chat_message_view_text(m);
    printf("message %llu \"%.*s\" tags [", (unsigned long long)chat_message_view_id(m), (int)text.len,
           text.ptr);
    chat_message_tags_entry_view_array tags = chat_message_view_tags(m);
    for (uint32_t i = 0; i < chat_message_tags_entry_view_array_len(tags); i++) {
        chat_message_tags_entry_view e = chat_message_tags_entry_view_array_at(tags, i);
        km_text key = chat_message_tags_entry_view_key(e);
        printf("%s%.*s=%u", i ? " " : "", (int)key.len, key.ptr, chat_message_tags_entry_view_value(e));
    }
    printf("] reactions [");
    chat_reaction_soa reactions = chat_message_view_reactions(m);
    for (uint32_t i = 0; i < chat_reaction_soa_len(reactions); i++) {
        chat_reaction_soa_item it = chat_reaction_soa_at(reactions, i);
        km_text emoji = chat_reaction_soa_item_emoji(it);
        printf("%s%.*s=%u", i ? " " : "", (int)emoji.len, emoji.ptr, chat_reaction_soa_item_count(it));
    }
    bool edited = chat_message_view_edited_at_has(m);
    printf("] edited %llu %s\n", (unsigned long long)chat_message_view_edited_at(m), edited ? "true" : "false");
    return 0;
}
