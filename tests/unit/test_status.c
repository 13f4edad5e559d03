/* tests/unit/test_status.c — util/status: codes, messages, errno mapping, wrapping. */
#include "support/cmocka_prelude.h"

#include <errno.h>
#include <string.h>

#include "util/status.h"

static void
ok_is_null(void **state)
{
	(void) state;
	assert_int_equal(cf_status_code(NULL), CF_OK);
	assert_string_equal(cf_status_msg(NULL), "OK");
	cf_status_free(NULL);		/* must be harmless */
}

static void
make_formats_message(void **state)
{
	cf_status  *s = cf_status_make(CF_ERR_INVALID, "LongType needs 8 bytes, got %d", 7);

	(void) state;
	assert_non_null(s);
	assert_int_equal(cf_status_code(s), CF_ERR_INVALID);
	assert_string_equal(cf_status_msg(s), "LongType needs 8 bytes, got 7");
	cf_status_free(s);
}

static void
ok_code_becomes_internal(void **state)
{
	cf_status  *s = cf_status_make(CF_OK, "not an error");

	(void) state;
	assert_int_equal(cf_status_code(s), CF_ERR_INTERNAL);
	cf_status_free(s);
}

static void
long_message_is_cut_and_marked(void **state)
{
	char		big[CF_STATUS_MSG_MAX * 2];
	cf_status  *s;

	(void) state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	s = cf_status_make(CF_ERR_IO, "%s", big);
	assert_int_equal(strlen(cf_status_msg(s)), CF_STATUS_MSG_MAX);
	assert_string_equal(cf_status_msg(s) + CF_STATUS_MSG_MAX - 3, "...");
	cf_status_free(s);
}

static void
errno_maps_to_codes(void **state)
{
	static const struct
	{
		int			err;
		cf_code		code;
	}			cases[] = {
		{ENOENT, CF_ERR_NOT_FOUND}, {ENOSPC, CF_ERR_NO_SPACE}, {EDQUOT, CF_ERR_NO_SPACE},
		{ENOMEM, CF_ERR_NO_MEMORY}, {EADDRINUSE, CF_ERR_BUSY}, {ETIMEDOUT, CF_ERR_TIMEOUT},
		{EINTR, CF_ERR_CANCELLED}, {EIO, CF_ERR_IO}, {EACCES, CF_ERR_AUTHORIZATION},
		{EFBIG, CF_ERR_TOO_LARGE},
	};

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		cf_status  *s = cf_status_errno(cases[i].err, "open %s", "x.db");

		assert_int_equal(cf_status_code(s), cases[i].code);
		assert_memory_equal(cf_status_msg(s), "open x.db: ", 11);
		assert_string_equal(cf_status_msg(s) + 11, strerror(cases[i].err));
		cf_status_free(s);
	}
}

static void
wrap_prefixes_and_keeps_code(void **state)
{
	cf_status  *s = cf_status_make(CF_ERR_CORRUPTION, "bad block checksum");

	(void) state;
	s = cf_status_wrap(s, "reading %s", "ks-cf-3-Data.db");
	assert_int_equal(cf_status_code(s), CF_ERR_CORRUPTION);
	assert_string_equal(cf_status_msg(s), "reading ks-cf-3-Data.db: bad block checksum");
	s = cf_status_wrap(s, "compaction");
	assert_string_equal(cf_status_msg(s),
						"compaction: reading ks-cf-3-Data.db: bad block checksum");
	cf_status_free(s);
	assert_null(cf_status_wrap(NULL, "nothing to wrap"));
}

static void
code_names_are_stable(void **state)
{
	(void) state;
	assert_string_equal(cf_code_name(CF_OK), "OK");
	assert_string_equal(cf_code_name(CF_ERR_NOT_FOUND), "NOT_FOUND");
	assert_string_equal(cf_code_name(CF_ERR_NO_SPACE), "NO_SPACE");
	assert_string_equal(cf_code_name((cf_code) 999), "UNKNOWN");
	/* every code has a name */
	for (int c = 0; c < CF_CODE_COUNT_; c++)
		assert_string_not_equal(cf_code_name((cf_code) c), "UNKNOWN");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ok_is_null),
		cmocka_unit_test(make_formats_message),
		cmocka_unit_test(ok_code_becomes_internal),
		cmocka_unit_test(long_message_is_cut_and_marked),
		cmocka_unit_test(errno_maps_to_codes),
		cmocka_unit_test(wrap_prefixes_and_keeps_code),
		cmocka_unit_test(code_names_are_stable),
	};

	return cmocka_run_group_tests_name("util/status", tests, NULL, NULL);
}
