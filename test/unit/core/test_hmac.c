/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* core/hmac.c against RFC 4231's HMAC-SHA256 test vectors (section 4),
 * through the kernel's AF_ALG where it has one, else against OpenSSL
 * standing in for the kernel (afalg_fake.h); the test prints which. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rdmatest/hmac.h"
#include "rdmatest/random.h"
#include "../afalg_fake.h"

struct vector {
	const char *name;
	uint8_t key[131];
	size_t key_len;
	const char *data;
	size_t data_len; /* 0: strlen(data) */
	uint8_t fill, fill_len; /* data of fill_len bytes of fill instead */
	const char *mac; /* hex; test case 5 gives the first 128 bits only */
};

static void hex(const char *s, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		assert_int_equal(sscanf(s + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
}

static void check(struct rt_hmac *h, const struct vector *v)
{
	uint8_t data[200], want[RT_HMAC_LEN], got[RT_HMAC_LEN];
	size_t n = v->fill_len ? v->fill_len : strlen(v->data);
	size_t mac_len = strlen(v->mac) / 2;
	struct rt_error err = {0};
	struct iovec whole = { data, n };
	struct iovec split[3] = { { data, 1 }, { data + 1, 0 }, { data + 1, n - 1 } };

	if (v->fill_len)
		memset(data, v->fill, n);
	else
		memcpy(data, v->data, n);
	hex(v->mac, want, mac_len);
	assert_int_equal(rt_hmac_sha256(h, v->key, v->key_len, &whole, 1, got, &err), 0);
	if (memcmp(got, want, mac_len))
		fail_msg("%s: wrong HMAC", v->name);
	/* the same message in parts, one of them empty, gives the same MAC */
	memset(got, 0, sizeof(got));
	assert_int_equal(rt_hmac_sha256(h, v->key, v->key_len, split, 3, got, &err), 0);
	if (memcmp(got, want, mac_len))
		fail_msg("%s: wrong HMAC in parts", v->name);
}

static void rfc4231_vectors(void **state)
{
	static const struct vector v[] = {
		{ "1", { [0 ... 19] = 0x0b }, 20, "Hi There", 0, 0, 0,
		  "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7" },
		{ "2", "Jefe", 4, "what do ya want for nothing?", 0, 0, 0,
		  "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" },
		{ "3", { [0 ... 19] = 0xaa }, 20, NULL, 0, 0xdd, 50,
		  "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe" },
		{ "4", { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
			 20, 21, 22, 23, 24, 25 }, 25, NULL, 0, 0xcd, 50,
		  "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b" },
		{ "5", { [0 ... 19] = 0x0c }, 20, "Test With Truncation", 0, 0, 0,
		  "a3b6167473100ee06e0c796c2955552b" },
		{ "6", { [0 ... 130] = 0xaa }, 131,
		  "Test Using Larger Than Block-Size Key - Hash Key First", 0, 0, 0,
		  "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54" },
		{ "7", { [0 ... 130] = 0xaa }, 131,
		  "This is a test using a larger than block-size key and a larger than "
		  "block-size data. The key needs to be hashed before being used by the "
		  "HMAC algorithm.", 0, 0, 0,
		  "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2" },
	};
	struct rt_hmac h = RT_HMAC_INIT;
	struct rt_error err = {0};

	(void)state;
	assert_int_equal(rt_hmac_open(&h, &err), 0);
	print_message("HMAC-SHA256 from %s\n", afalg_fake.faked ?
		      "OpenSSL standing in for a kernel without AF_ALG" : "the kernel (AF_ALG)");
	/* twice over: one bound socket serves key after key */
	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
			check(&h, &v[i]);
	rt_hmac_close(&h);
	assert_int_equal(h.alg, -1);
}

static void empty_message_and_bounds(void **state)
{
	struct rt_hmac h = RT_HMAC_INIT;
	struct rt_error err = {0};
	uint8_t key[RT_HMAC_KEY_MAX + 1] = {1}, a[RT_HMAC_LEN], b[RT_HMAC_LEN];
	struct iovec none = { key, 0 };
	struct iovec many[RT_HMAC_PARTS_MAX + 1];

	(void)state;
	assert_int_equal(rt_hmac_open(&h, &err), 0);
	/* an empty message has a MAC, the same given as no parts or one empty */
	assert_int_equal(rt_hmac_sha256(&h, key, 8, NULL, 0, a, &err), 0);
	assert_int_equal(rt_hmac_sha256(&h, key, 8, &none, 1, b, &err), 0);
	assert_memory_equal(a, b, RT_HMAC_LEN);
	/* another key, another MAC (not a longer one of zeros: HMAC pads a
	 * short key with zeros, RFC 2104 section 2, so those are the same) */
	key[7] = 7;
	assert_int_equal(rt_hmac_sha256(&h, key, 8, NULL, 0, b, &err), 0);
	assert_memory_not_equal(a, b, RT_HMAC_LEN);

	assert_int_equal(rt_hmac_sha256(&h, key, 0, NULL, 0, a, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, "HMAC key of 0 bytes"));
	err = (struct rt_error){0};
	assert_int_equal(rt_hmac_sha256(&h, key, sizeof(key), NULL, 0, a, &err), -1);
	assert_non_null(strstr(err.reason, "HMAC key of 257 bytes"));
	err = (struct rt_error){0};
	for (int i = 0; i <= RT_HMAC_PARTS_MAX; i++)
		many[i] = (struct iovec){ key, 1 };
	assert_int_equal(rt_hmac_sha256(&h, key, 8, many, RT_HMAC_PARTS_MAX + 1, a, &err), -1);
	assert_non_null(strstr(err.reason, "parts"));
	err = (struct rt_error){0};
	many[0].iov_len = RT_HMAC_DATA_MAX;
	assert_int_equal(rt_hmac_sha256(&h, key, 8, many, 2, a, &err), -1);
	assert_non_null(strstr(err.reason, "more than 65536 bytes"));
	rt_hmac_close(&h);
	rt_hmac_close(&h); /* twice is harmless */
}

static void kernel_without_af_alg(void **state)
{
	struct rt_hmac h = RT_HMAC_INIT;
	struct rt_error err = {0};
	uint8_t out[RT_HMAC_LEN];

	(void)state;
	afalg_fake_refuse = 1;
	assert_int_equal(rt_hmac_open(&h, &err), -1);
	afalg_fake_refuse = 0;
	assert_int_equal(err.exit_code, RT_EXIT_ENV);
	assert_string_equal(err.reason, "HMAC-SHA256 from the kernel (AF_ALG): the kernel has "
			    "no CONFIG_CRYPTO_USER_API_HASH (modprobe algif_hash): Address "
			    "family not supported by protocol");
	assert_int_equal(h.alg, -1);
	err = (struct rt_error){0};
	assert_int_equal(rt_hmac_sha256(&h, (const uint8_t *)"k", 1, NULL, 0, out, &err), -1);
	assert_non_null(strstr(err.reason, "not open"));
}

static void equal_compares_every_byte(void **state)
{
	uint8_t a[RT_HMAC_LEN], b[RT_HMAC_LEN];
	struct rt_error err = {0};

	(void)state;
	assert_int_equal(rt_random_bytes(a, sizeof(a), &err), 0);
	memcpy(b, a, sizeof(a));
	assert_true(rt_hmac_equal(a, b, sizeof(a)));
	assert_true(rt_hmac_equal(a, b, 0));
	for (size_t i = 0; i < sizeof(a); i++)
		for (int bit = 0; bit < 8; bit++) {
			b[i] ^= (uint8_t)(1u << bit);
			assert_false(rt_hmac_equal(a, b, sizeof(a)));
			b[i] ^= (uint8_t)(1u << bit);
		}
}

static void random_bytes(void **state)
{
	uint8_t a[32] = {0}, b[32] = {0}, big[RT_RANDOM_MAX + 1];
	struct rt_error err = {0};

	(void)state;
	assert_int_equal(rt_random_bytes(a, sizeof(a), &err), 0);
	assert_int_equal(rt_random_bytes(b, sizeof(b), &err), 0);
	/* two draws of 256 bits are equal with probability 2^-256 */
	assert_memory_not_equal(a, b, sizeof(a));
	assert_int_equal(rt_random_bytes(big, sizeof(big), &err), -1);
	assert_non_null(strstr(err.reason, "at most 256"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfc4231_vectors),
		cmocka_unit_test(empty_message_and_bounds),
		cmocka_unit_test(kernel_without_af_alg),
		cmocka_unit_test(equal_compares_every_byte),
		cmocka_unit_test(random_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
