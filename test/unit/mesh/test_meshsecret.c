/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A mesh run's secret from --token-file (meshsecret.h): the refusals of a
 * file others may read, of another owner, empty or too long, and the
 * secret RFC 5869's HKDF-Extract gives. The HMAC is the kernel's, or
 * OpenSSL's where the kernel has no AF_ALG (afalg_fake.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "mesh/meshsecret.h"
#include "../afalg_fake.h"

static struct rt_hmac mac = RT_HMAC_INIT;
static char dir[] = "/tmp/test_meshsecret.XXXXXX";
static char path[64];

static int setup(void **state)
{
	struct rt_error err = {0};

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/token", dir);
	return rt_hmac_open(&mac, &err);
}

static int teardown(void **state)
{
	(void)state;
	rt_hmac_close(&mac);
	unlink(path);
	return rmdir(dir);
}

static void write_file(const void *bytes, size_t n, mode_t mode)
{
	FILE *f;

	unlink(path);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(bytes, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static void secret_is_hkdf_extract(void **state)
{
	static const char salt[] = "rdmatest mesh token file";
	uint8_t s1[RT_MESH_AUTH_SECRET], s2[RT_MESH_AUTH_SECRET], want[RT_HMAC_LEN];
	struct iovec ikm = { (void *)"k3y-bytes", 9 };
	struct rt_error err = {0};

	(void)state;
	write_file("k3y-bytes\n", 10, 0600);
	assert_int_equal(rt_mesh_secret_file(&mac, path, s1, &err), 0);
	assert_int_equal(rt_hmac_sha256(&mac, (const uint8_t *)salt, sizeof(salt) - 1, &ikm, 1,
					want, &err), 0);
	assert_memory_equal(s1, want, RT_HMAC_LEN);
	/* one trailing newline is not part of it; read-only is fine */
	write_file("k3y-bytes", 9, 0400);
	assert_int_equal(rt_mesh_secret_file(&mac, path, s2, &err), 0);
	assert_memory_equal(s1, s2, RT_HMAC_LEN);
	/* another byte, another secret */
	write_file("k3y-bytez", 9, 0600);
	assert_int_equal(rt_mesh_secret_file(&mac, path, s2, &err), 0);
	assert_memory_not_equal(s1, s2, RT_HMAC_LEN);
	assert_false(err.set);
}

static void refuse(const char *why)
{
	uint8_t s[RT_MESH_AUTH_SECRET];
	struct rt_error err = {0};

	assert_int_equal(rt_mesh_secret_file(&mac, path, s, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	if (!strstr(err.reason, why))
		fail_msg("want '%s', got '%s'", why, err.reason);
	assert_null(strchr(err.reason, '\n'));
}

static void open_to_group_or_others(void **state)
{
	char want[300];

	(void)state;
	write_file("secret", 6, 0640);
	snprintf(want, sizeof(want), "--token-file %s: open to its group or others (mode 0640): "
		 "chmod 600 %s", path, path);
	refuse(want);
	write_file("secret", 6, 0604);
	refuse("(mode 0604)");
	write_file("secret", 6, 0620);
	refuse("(mode 0620)");
	write_file("secret", 6, 0601);
	refuse("(mode 0601)");
}

static void another_owner(void **state)
{
	(void)state;
	write_file("secret", 6, 0600);
	if (geteuid() == 0) {
		/* root can give it away; anyone else cannot make the case */
		assert_int_equal(chown(path, 4321, 4321), 0);
		refuse("owned by uid 4321, not by this user (uid 0)");
	} else {
		skip();
	}
}

static void empty_long_and_missing(void **state)
{
	static uint8_t big[RT_MESH_SECRET_FILE_MAX + 2];
	uint8_t s[RT_MESH_AUTH_SECRET];
	struct rt_error err = {0};

	(void)state;
	write_file("", 0, 0600);
	refuse(": empty");
	write_file("\n", 1, 0600);
	refuse(": empty");
	memset(big, 'x', sizeof(big));
	write_file(big, RT_MESH_SECRET_FILE_MAX + 1, 0600);
	refuse("longer than 4096 bytes");
	/* exactly the bound, and the bound and its newline, are taken */
	write_file(big, RT_MESH_SECRET_FILE_MAX, 0600);
	assert_int_equal(rt_mesh_secret_file(&mac, path, s, &err), 0);
	big[RT_MESH_SECRET_FILE_MAX] = '\n';
	write_file(big, RT_MESH_SECRET_FILE_MAX + 1, 0600);
	refuse("longer than 4096 bytes");
	unlink(path);
	refuse("No such file or directory");
	assert_int_equal(mkdir(path, 0700), 0);
	refuse("not a regular file");
	assert_int_equal(rmdir(path), 0);
}

static void mode_names(void **state)
{
	struct rt_error err = {0};

	(void)state;
	assert_string_equal(rt_mesh_auth_mode_name(RT_MESH_AUTH_NONE), "none");
	assert_string_equal(rt_mesh_auth_mode_name(RT_MESH_AUTH_FILE), "file");
	assert_string_equal(rt_mesh_auth_mode_name(RT_MESH_AUTH_MUNGE), "munge");
	assert_string_equal(rt_mesh_auth_mode_name(3), "?");
	assert_int_equal(rt_mesh_auth_mode_parse("munge", &err), RT_MESH_AUTH_MUNGE);
	assert_int_equal(rt_mesh_auth_mode_parse("none", &err), RT_MESH_AUTH_NONE);
	assert_int_equal(rt_mesh_auth_mode_parse("kerberos", &err), -1);
	assert_string_equal(err.reason, "--auth kerberos: want munge, file or none");
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(secret_is_hkdf_extract),
		cmocka_unit_test(open_to_group_or_others),
		cmocka_unit_test(another_owner),
		cmocka_unit_test(empty_long_and_missing),
		cmocka_unit_test(mode_names),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
