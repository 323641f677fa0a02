/* The C member's old.km (docs/integrity.md): version.inc over the code
 * generated from testdata/integrity/old.km with the prefix integrity_old
 * (scripts/build-integrity-c.sh), so that both versions link into one
 * command. */
#include <stdlib.h>

#include "integrity_old.h"
#include "member.h"

#define T(x) integrity_old_##x
#define C(x) INTEGRITY_OLD_##x
#define KI_NEW 0
#define KI_VERSION ki_old
#define KI_NAME "old"
#include "version.inc"
