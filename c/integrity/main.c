/* karmem-integrity-c: the C member's command of the cross-language
 * integrity suite (docs/integrity.md §4). It reads requests from standard
 * input, one per line, and answers each with one line on standard output,
 * flushed at once (the harness waits for it before the next request),
 * until the input ends. Lines carry whole messages as hex (hundreds of
 * kilobytes), so a line is read into a buffer that grows as needed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "member.h"

/* The next line without its line end (a final line may have none) in
 * *buf; false at the end of the input or when memory runs out. */
static bool read_line(char **buf, size_t *cap, size_t *len) {
    *len = 0;
    for (;;) {
        if (*cap - *len < 2) {
            size_t cap2 = *cap ? *cap * 2 : 1 << 16;
            char *p = realloc(*buf, cap2);
            if (p == NULL) {
                return false;
            }
            *buf = p;
            *cap = cap2;
        }
        int room = *cap - *len > (size_t)1 << 30 ? 1 << 30 : (int)(*cap - *len);
        if (fgets(*buf + *len, room, stdin) == NULL) {
            return *len > 0;
        }
        *len += strlen(*buf + *len);
        if (*len > 0 && (*buf)[*len - 1] == '\n') {
            (*len)--;
            if (*len > 0 && (*buf)[*len - 1] == '\r') {
                (*len)--;
            }
            return true;
        }
    }
}

int main(void) {
    char *buf = NULL;
    size_t cap = 0, len = 0;
    while (read_line(&buf, &cap, &len)) {
        /* A blank line is no request (as the Rust and Go members treat it). */
        size_t i = 0;
        while (i < len && (buf[i] == ' ' || buf[i] == '\t')) {
            i++;
        }
        if (i == len) {
            continue;
        }
        char *answer = ki_answer(buf, len);
        if (fputs(answer != NULL ? answer : "error out of memory", stdout) == EOF || putchar('\n') == EOF ||
            fflush(stdout) == EOF) {
            free(answer);
            free(buf);
            return 1;
        }
        free(answer);
    }
    free(buf);
    return ferror(stdin) ? 1 : 0;
}
