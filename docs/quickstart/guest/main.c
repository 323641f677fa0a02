/* The C guest of the quick start (docs/quickstart.md): a WebAssembly
 * module exporting moderator.Moderator, built outside the repository and
 * run by `karmem run app.toml`. */
#include <string.h>

#include "moderator_guest.h"

static kmg_status check(kmg_call *call, const moderator_message *m, moderator_verdict *result) {
    (void)call;
    bool shouting = m->text.len > 0 && memchr(m->text.ptr, '!', m->text.len) != NULL;
    result->allowed = !shouting && m->reactions.len <= 100;
    result->reason = km_text_cstr(result->allowed ? "fine" : "too loud");
    return KMG_OK;
}

static const moderator_moderator_exports moderator = {check};

int kmg_init(void) {
    return moderator_moderator_export(&moderator) != KMG_OK;
}
