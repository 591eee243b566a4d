/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mesh/png.h"

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The standard check values of both checksums. */
static void checksums_known_values(void **state)
{
	(void)state;
	assert_int_equal(rt_crc32(0, (const uint8_t *)"123456789", 9), 0xcbf43926u);
	assert_int_equal(rt_crc32(0, (const uint8_t *)"IEND", 4), 0xae426082u);
	assert_int_equal(rt_adler32(1, (const uint8_t *)"Wikipedia", 9), 0x11e60398u);
	/* continued in pieces, the same */
	assert_int_equal(rt_crc32(rt_crc32(0, (const uint8_t *)"1234", 4),
				  (const uint8_t *)"56789", 5), 0xcbf43926u);
}

static uint32_t gradient(const void *ctx, uint32_t x, uint32_t y)
{
	(void)ctx;
	return (x * 7u & 0xffu) << 16 | (y * 3u & 0xffu) << 8 | ((x ^ y) & 0xffu);
}

/* Reads the file back as a decoder would: every chunk's CRC, IHDR, the
 * zlib stream of stored blocks with its Adler-32, and every pixel. */
static void decode_and_compare(const uint8_t *buf, size_t len, uint32_t w, uint32_t h)
{
	static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	uint8_t *z = malloc(len), *raw = malloc((size_t)h * (1 + 3 * w) + 1);
	size_t zn = 0, rn = 0, off = 8, zo = 2;
	bool end = false;

	assert_memory_equal(buf, sig, 8);
	while (off + 12 <= len) {
		uint32_t n = rd32(buf + off);
		const uint8_t *type = buf + off + 4;

		assert_true(off + 12 + n <= len);
		assert_int_equal(rt_crc32(0, type, 4 + n), rd32(buf + off + 8 + n));
		if (!memcmp(type, "IHDR", 4)) {
			assert_int_equal(rd32(type + 4), w);
			assert_int_equal(rd32(type + 8), h);
			assert_int_equal(type[12], 8);
			assert_int_equal(type[13], 2);
		} else if (!memcmp(type, "IDAT", 4)) {
			memcpy(z + zn, type + 4, n);
			zn += n;
		} else if (!memcmp(type, "IEND", 4)) {
			end = true;
		}
		off += 12 + n;
	}
	assert_true(end);
	assert_int_equal(off, len);
	assert_int_equal((z[0] * 256 + z[1]) % 31, 0);
	for (bool final = false; !final;) {
		uint32_t bl = z[zo + 1] | (uint32_t)z[zo + 2] << 8;

		final = z[zo] & 1;
		assert_int_equal(z[zo] >> 1, 0); /* stored */
		assert_int_equal(bl ^ 0xffffu, z[zo + 3] | (uint32_t)z[zo + 4] << 8);
		memcpy(raw + rn, z + zo + 5, bl);
		rn += bl;
		zo += 5 + bl;
	}
	assert_int_equal(rn, (size_t)h * (1 + 3 * w));
	assert_int_equal(zo + 4, zn);
	assert_int_equal(rt_adler32(1, raw, rn), rd32(z + zo));
	for (uint32_t y = 0; y < h; y++) {
		const uint8_t *row = raw + (size_t)y * (1 + 3 * w);

		assert_int_equal(row[0], 0);
		for (uint32_t x = 0; x < w; x++) {
			uint32_t c = gradient(NULL, x, y);

			assert_int_equal(row[1 + 3 * x], c >> 16);
			assert_int_equal(row[2 + 3 * x], (c >> 8) & 0xff);
			assert_int_equal(row[3 + 3 * x], c & 0xff);
		}
	}
	free(z);
	free(raw);
}

static void write_and_read(uint32_t w, uint32_t h)
{
	struct rt_error err = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(rt_png_write(f, w, h, gradient, NULL, &err), 0);
	fclose(f);
	decode_and_compare((const uint8_t *)buf, len, w, h);
	free(buf);
}

static void small_image(void **state)
{
	(void)state;
	write_and_read(2, 3);
	write_and_read(1, 1);
}

/* 200 x 200: 120,200 bytes of rows, so two stored blocks, the first one
 * ending inside a row. */
static void image_over_one_block(void **state)
{
	(void)state;
	write_and_read(200, 200);
}

static void bad_sizes_refused(void **state)
{
	struct rt_error err = { 0 };
	FILE *f = tmpfile();

	(void)state;
	assert_int_not_equal(rt_png_write(f, 0, 5, gradient, NULL, &err), 0);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	memset(&err, 0, sizeof(err));
	assert_int_not_equal(rt_png_write(f, 5, RT_PNG_MAX_SIDE + 1, gradient, NULL, &err), 0);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(checksums_known_values),
		cmocka_unit_test(small_image),
		cmocka_unit_test(image_over_one_block),
		cmocka_unit_test(bad_sizes_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
