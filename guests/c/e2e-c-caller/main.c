/* e2e-c-caller exports e2e.Driver (guests/polyglot.km); its run calls
 * e2e.Echo (direct, with a copied and a region-bound argument) and
 * e2e.Voter (fan-out) from inside a guest, and answers in exactly the
 * format of guests/go/e2e-go-caller, so that the same assertions hold
 * whichever language drives. */
#include <string.h>

#include "e2e_guest.h"

/* The answer, built without printf (which would triple the module). */
typedef struct text_builder {
    char buf[8192];
    uint32_t len;
} text_builder;

static text_builder answer;

static void add(const char *p, size_t n) {
    size_t room = sizeof answer.buf - answer.len;
    if (n > room) {
        n = room;
    }
    memcpy(answer.buf + answer.len, p, n);
    answer.len += (uint32_t)n;
}

static void add_str(const char *s) { add(s, strlen(s)); }
static void add_text(km_text t) { add(t.ptr, t.len); }

static void add_u32(uint32_t v) {
    char digits[10];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0) {
        add(&digits[--n], 1);
    }
}

/* A failed import fails run with "<what>: <the callee's message>". */
static kmg_status failed(const char *what, const kmg_reply *reply) {
    kmg_fail(what);
    kmg_error_add(": ", 2);
    kmg_error_add((const char *)reply->msg.ptr, reply->msg.len);
    return KMG_APPLICATION_ERROR;
}

/* Where run writes the message it passes by position. */
#define PEEK_AT 4096u

/* Run answers `echo=<text>/<n> peek=<text>@<offset> votes=<callee>:<status>:<text>,...`. */
static kmg_status run(kmg_call *call, e2e_msg_tview view, e2e_msg *result) {
    e2e_msg in, got, peeked;
    const e2e_msg *m = &in;
    kmg_reply reply;
    kmg_reply replies[16];
    e2e_msg votes[16];
    kmg_window window = e2e_echo_shared_window();
    km_writer w;
    int32_t n;

    answer.len = 0;
    /* The calls below send a message object: the argument's fields, as read. */
    in.text = e2e_msg_tview_text(view);
    in.number = e2e_msg_tview_number(view);
    if (e2e_echo_call_echo(m, &got, call->arena, &reply) != KMG_OK) {
        return failed("echo", &reply);
    }
    add_str("echo=");
    add_text(got.text);
    add_str("/");
    add_u32(got.number);

    /* A region-bound argument is written into this module's window of the
     * region and passed by position. */
    if (window.len < PEEK_AT || km_writer_init_fixed(&w, window.ptr + PEEK_AT, window.len - PEEK_AT) != KM_OK ||
        e2e_msg_encode(m, &w) != KM_OK) {
        return kmg_fail("peek: the shared window is missing or too small");
    }
    if (e2e_echo_call_peek((kmg_bytes){km_writer_bytes(&w), km_writer_len(&w)}, &peeked, call->arena, &reply) !=
        KMG_OK) {
        return failed("peek", &reply);
    }
    add_str(" peek=");
    add_text(peeked.text);
    add_str("@");
    add_u32(peeked.number);

    n = e2e_voter_call_vote(m, replies, votes, 16, call->arena);
    if (n < 0) {
        kmg_fail("vote: ");
        kmg_error_str(kmg_call_error_text(n));
        return KMG_APPLICATION_ERROR;
    }
    add_str(" votes=");
    for (uint32_t k = 0; k < (uint32_t)n && k < 16; k++) {
        const kmg_reply *r = &replies[k];
        if (k > 0) {
            add_str(",");
        }
        add_u32(r->callee);
        add_str(":");
        add_str(kmg_status_name(r->status));
        add_str(":");
        if (r->status == KMG_OK) {
            add_text(votes[k].text);
        } else {
            /* As the Go library words a callee's failure. */
            add_str("callee ");
            add_u32(r->callee);
            add_str(": ");
            add_str(r->status == KMG_BAD_RESULT ? "invalid result" : kmg_status_name(r->status));
            if (r->msg.len > 0) {
                add_str(": ");
                add((const char *)r->msg.ptr, r->msg.len);
            }
        }
    }
    result->text = (km_text){answer.buf, answer.len};
    return KMG_OK;
}

static const e2e_driver_exports driver_ops = {run};

int kmg_init(void) {
    return e2e_driver_export(&driver_ops) != KMG_OK || e2e_echo_import() != KMG_OK ||
           e2e_voter_import() != KMG_OK;
}
