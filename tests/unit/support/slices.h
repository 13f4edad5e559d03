/*
 * tests/unit/support/slices.h — S("text"): a C string as a cf_slice, for tests;
 * S_EQ(s, "text"): whether slice s holds exactly those bytes.
 */
#ifndef CF_TEST_SLICES_H
#define CF_TEST_SLICES_H

#include <string.h>

#include "util/slice.h"

#define S(str) cf_slice_of((str), strlen(str))
#define S_EQ(s, str) cf_slice_eq((s), S(str))

#endif
