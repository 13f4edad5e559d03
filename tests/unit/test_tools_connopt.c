/*
 * tests/unit/test_tools_connopt.c — the connection options the colfam subcommands
 * share (tools/connopt.h): the defaults, each option taken, a bad port refused with
 * the range, -P without -u, other options left to the command; and the connect: an
 * unreachable address named (an IPv6 literal in brackets), an overlong host refused.
 */
#include "support/cmocka_prelude.h"

#include <stdio.h>
#include <string.h>

#include "tools/connopt.h"
#include "util/log.h"

/* cft_connopt_take with the message (if any) in err. */
static int
take(cft_connopt *o, int c, const char *arg, char *err, size_t size)
{
	FILE	   *f = fmemopen(err, size, "w");
	int			rc = cft_connopt_take(o, c, arg, "cmd", f);

	fclose(f);
	return rc;
}

static void
options(void **state)
{
	cft_connopt o;
	char		err[256] = "";

	(void) state;
	cft_connopt_init(&o);
	assert_string_equal(o.host, "localhost");
	assert_int_equal(o.port, CFC_DEFAULT_PORT);
	assert_false(o.given);
	assert_null(o.keyspace);
	assert_null(o.user);
	assert_null(o.password);

	assert_int_equal(take(&o, 'x', "v", err, sizeof(err)), 0);
	assert_int_equal(take(&o, 'o', "v", err, sizeof(err)), 0);
	assert_false(o.given);
	assert_string_equal(err, "");

	assert_int_equal(take(&o, 'h', "::1", err, sizeof(err)), 1);
	assert_int_equal(take(&o, 'p', "9999", err, sizeof(err)), 1);
	assert_int_equal(take(&o, 'k', "K", err, sizeof(err)), 1);
	assert_int_equal(take(&o, 'u', "me", err, sizeof(err)), 1);
	assert_int_equal(take(&o, 'P', "pw", err, sizeof(err)), 1);
	assert_true(o.given);
	assert_string_equal(o.host, "::1");
	assert_int_equal(o.port, 9999);
	assert_string_equal(o.keyspace, "K");
	assert_string_equal(o.user, "me");
	assert_string_equal(o.password, "pw");
	assert_true(cft_connopt_check(&o, "cmd", stderr));

	assert_int_equal(take(&o, 'p', "0", err, sizeof(err)), -1);
	assert_string_equal(err, "colfam cmd: port must be 1-65535, not \"0\"\n");
	assert_int_equal(take(&o, 'p', "65536", err, sizeof(err)), -1);
	assert_int_equal(take(&o, 'p', "", err, sizeof(err)), -1);
	assert_int_equal(take(&o, 'p', "80x", err, sizeof(err)), -1);
	assert_int_equal(o.port, 9999);
}

static void
password_needs_user(void **state)
{
	cft_connopt o;
	char		err[256] = "";
	FILE	   *f;

	(void) state;
	cft_connopt_init(&o);
	assert_int_equal(take(&o, 'P', "pw", err, sizeof(err)), 1);
	f = fmemopen(err, sizeof(err), "w");
	assert_false(cft_connopt_check(&o, "cmd", f));
	fclose(f);
	assert_string_equal(err, "colfam cmd: -P needs -u USER\n");
}

static void
port_needs_a_host_name(void **state)
{
	cft_connopt o;
	char		err[256] = "";
	FILE	   *f;

	(void) state;
	cft_connopt_init(&o);
	assert_int_equal(take(&o, 'h', "/run/colfamd.sock", err, sizeof(err)), 1);
	assert_true(cft_connopt_check(&o, "cmd", stderr));	/* the default port is no matter */
	assert_int_equal(take(&o, 'p', "9160", err, sizeof(err)), 1);
	f = fmemopen(err, sizeof(err), "w");
	assert_false(cft_connopt_check(&o, "cmd", f));
	fclose(f);
	assert_string_equal(err, "colfam cmd: -p does not apply to the unix socket "
						"/run/colfamd.sock; drop -p, or give -h a host name\n");
}

/* cft_connopt_connect fails with code and a message holding part; *out is NULL. */
static void
connect_fails(const cft_connopt *o, cf_code code, const char *part)
{
	cfc_conn   *c = (cfc_conn *) o;	/* not NULL, so the reset is seen */
	cf_status  *s = cft_connopt_connect(o, &c);

	assert_non_null(s);
	assert_null(c);
	assert_int_equal(cf_status_code(s), code);
	if (strstr(cf_status_msg(s), part) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", cf_status_msg(s), part);
	cf_status_free(s);
}

static void
connect_errors(void **state)
{
	cft_connopt o;
	char		host[1024];

	(void) state;
	cft_connopt_init(&o);
	o.host = "127.0.0.1";
	o.port = 1;
	connect_fails(&o, CF_ERR_IO, "127.0.0.1:1");
	o.host = "::1";
	connect_fails(&o, CF_ERR_IO, "[::1]:1");
	memset(host, 'a', sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	o.host = host;
	connect_fails(&o, CF_ERR_INVALID, "host name too long");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(options),
		cmocka_unit_test(password_needs_user),
		cmocka_unit_test(port_needs_a_host_name),
		cmocka_unit_test(connect_errors),
	};

	cf_log_set_level(CF_LOG_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
