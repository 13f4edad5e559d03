/* tests/unit/support/statusexpect.c — see statusexpect.h. */
#include "support/cmocka_prelude.h"

#include <string.h>

#include "support/statusexpect.h"

void
test_check(cf_status *s)
{
	if (s)
		fail_msg("unexpected error: %s", cf_status_msg(s));
}

void
test_expect(cf_status *s, cf_code code, const char *part)
{
	if (s == NULL)
		fail_msg("expected %s (\"%s\"), got success", cf_code_name(code), part);
	if (cf_status_code(s) != code || strstr(cf_status_msg(s), part) == NULL)
		fail_msg("expected %s with \"%s\", got %s: %s", cf_code_name(code), part,
				 cf_code_name(cf_status_code(s)), cf_status_msg(s));
	cf_status_free(s);
}
