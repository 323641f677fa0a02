/* The C member's new.km (docs/integrity.md): version.inc over the code
 * generated from testdata/integrity/new.km with the prefix integrity_new
 * (scripts/build-integrity-c.sh), so that both versions link into one
 * command. */
#include <stdlib.h>

#include "integrity_new.h"
#include "member.h"

#define T(x) integrity_new_##x
#define C(x) INTEGRITY_NEW_##x
#define KI_NEW 1
#define KI_VERSION ki_new
#define KI_NAME "new"
#include "version.inc"
