/* The C guest of the quick start (docs/quickstart.md): a WebAssembly
 * module exporting moderator.Moderator, built outside the repository and
 * run by `karmem run app.toml`. */
#include <string.h>

#include "moderator_guest.h"

/* The argument is a trusted view: the dispatcher validated the message. */
static kmg_status check(kmg_call *call, moderator_message_tview m, moderator_verdict *result) {
    (void)call;
    km_text text = moderator_message_tview_text(m);
    bool shouting = text.len > 0 && memchr(text.ptr, '!', text.len) != NULL;
    result->allowed = !shouting && moderator_reaction_tsoa_len(moderator_message_tview_reactions(m)) <= 100;
    result->reason = km_text_cstr(result->allowed ? "fine" : "too loud");
    return KMG_OK;
}

static const moderator_moderator_exports moderator = {check};

int kmg_init(void) {
    return moderator_moderator_export(&moderator) != KMG_OK;
}
