/* e2e-c-echo exports e2e.Echo and e2e.Voter (guests/polyglot.km) for the
 * C guest tests (crates/karmem-e2e/tests/c_guests.rs), behaving as
 * guests/go/e2e-go-echo does; its vote traps on the text "trap", so that
 * a fan-out can show a member that traps. */
#include <stdlib.h>
#include <string.h>

#include "e2e_guest.h"

static kmg_status echo(kmg_call *call, e2e_msg_tview m, e2e_msg *result) {
    (void)call;
    result->text = e2e_msg_tview_text(m);
    result->number = e2e_msg_tview_number(m) + 1;
    return KMG_OK;
}

/* Proves the argument was not copied: its bytes lie in this module's
 * window of the region, and the reply says where. */
static kmg_status peek(kmg_call *call, e2e_msg_view m, e2e_msg *result) {
    kmg_window window = e2e_echo_shared_window();
    kmg_bytes msg = kmg_arg(call, 0);
    if (msg.len == 0 || !kmg_window_holds(window, msg.ptr, msg.len)) {
        return kmg_fail("peek: the argument is not in the shared window");
    }
    result->text = e2e_msg_view_text(m);
    result->number = (uint32_t)(msg.ptr - window.ptr);
    return KMG_OK;
}

static kmg_status fail(kmg_call *call, e2e_msg_tview m, e2e_msg *result) {
    km_text text = e2e_msg_tview_text(m);
    (void)call;
    (void)result;
    kmg_fail("fail: ");
    kmg_error_add(text.ptr, text.len);
    return KMG_APPLICATION_ERROR;
}

/* Writes its result in place into the `out` region: the host passes it on
 * by position, without a copy. */
static kmg_status stamp(kmg_call *call, e2e_msg_tview m, kmg_bytes *result) {
    kmg_window window = e2e_echo_out_window();
    km_writer w;
    e2e_msg reply;
    (void)call;
    reply.text = e2e_msg_tview_text(m);
    reply.number = e2e_msg_tview_number(m) + 100;
    if (km_writer_init_fixed(&w, window.ptr, window.len) != KM_OK || e2e_msg_encode(&reply, &w) != KM_OK) {
        return kmg_fail("stamp: the out window is too small");
    }
    *result = (kmg_bytes){km_writer_bytes(&w), km_writer_len(&w)};
    return KMG_OK;
}

static bool text_is(km_text t, const char *s) {
    return t.len == strlen(s) && memcmp(t.ptr, s, t.len) == 0;
}

/* Writes into a read-only window, the way the text says: the host must
 * stop it. memset and memcpy of a length the compiler cannot see are
 * memory.fill and memory.copy (built with -mbulk-memory); the volatile
 * stores keep the compiler from dropping writes nobody reads. */
static kmg_status scribble(kmg_call *call, e2e_msg_view m) {
    kmg_bytes msg = kmg_arg(call, 0);
    uint8_t *p = (uint8_t *)(uintptr_t)msg.ptr;
    km_text text = e2e_msg_view_text(m);
    if (text_is(text, "fill")) {
        memset(p, 0, msg.len);
    } else if (text_is(text, "copy")) {
        uint8_t *src = malloc(msg.len + 1);
        if (src == NULL) {
            return kmg_fail("scribble: out of memory");
        }
        memset(src, 0xee, msg.len);
        memcpy(p, src, msg.len);
        free(src);
    } else {
        volatile uint8_t *v = p;
        for (uint32_t i = 0; i < msg.len; i++) {
            v[i] = 0xee;
        }
    }
    return KMG_OK;
}

/* Does nothing: the cheapest call there is. */
static kmg_status nop(kmg_call *call) {
    (void)call;
    return KMG_OK;
}

static kmg_status access(kmg_call *call, e2e_msg_tview m, e2e_msg *result) {
    char name[257];
    km_text text = e2e_msg_tview_text(m);
    (void)call;
    if (text.len >= sizeof name) {
        return kmg_fail("access: the region name is too long");
    }
    memcpy(name, text.ptr, text.len);
    name[text.len] = '\0';
    result->text = text;
    result->number = kmg_window_access(name);
    return KMG_OK;
}

static kmg_status vote(kmg_call *call, e2e_msg_tview q, e2e_msg *result) {
    km_text text = e2e_msg_tview_text(q);
    (void)call;
    if (text.len == 4 && memcmp(text.ptr, "trap", 4) == 0) {
        __builtin_trap();
    }
    result->text = (km_text){"c", 1};
    return KMG_OK;
}

static const e2e_echo_exports echo_ops = {echo, peek, fail, stamp, scribble, nop, access};
static const e2e_voter_exports voter_ops = {vote};

int kmg_init(void) {
    return e2e_echo_export(&echo_ops) != KMG_OK || e2e_voter_export(&voter_ops) != KMG_OK;
}
