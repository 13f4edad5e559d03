/*
 * tests/unit/support/cmocka_prelude.h — the includes cmocka needs, in the order it
 * needs them; every unit test starts with this.
 */
#ifndef CF_TEST_CMOCKA_PRELUDE_H
#define CF_TEST_CMOCKA_PRELUDE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#endif
