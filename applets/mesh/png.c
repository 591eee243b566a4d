/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* PNG writer (png.h). Stored deflate blocks cost 5 bytes per 65535 of
 * data and need no compressor: a heatmap is small and read by a viewer. */
#include <stdlib.h>
#include <string.h>

#include "mesh/png.h"
#include "rdmatest/util.h"

#define STORED_MAX 65535u

uint32_t rt_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
	}
	return ~crc;
}

uint32_t rt_adler32(uint32_t adler, const uint8_t *p, size_t n)
{
	uint32_t a = adler & 0xffffu, b = adler >> 16;

	for (size_t i = 0; i < n; i++) {
		a = (a + p[i]) % 65521u;
		b = (b + a) % 65521u;
	}
	return (b << 16) | a;
}

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* A chunk's length, type and CRC around data written by the caller: the
 * writer keeps the running CRC of the IDAT chunk itself. */
struct png_out {
	FILE *f;
	uint32_t crc;   /* of the chunk being written */
	uint32_t adler; /* of the zlib data */
	uint32_t block_left; /* bytes left in the stored block */
	uint64_t data_left;  /* uncompressed bytes still to come */
	bool bad;
};

static void put(struct png_out *o, const void *p, size_t n)
{
	o->crc = rt_crc32(o->crc, p, n);
	if (fwrite(p, 1, n, o->f) != n)
		o->bad = true;
}

static void chunk_begin(struct png_out *o, const char *type, uint32_t len)
{
	uint8_t h[4];

	be32(h, len);
	if (fwrite(h, 1, 4, o->f) != 4)
		o->bad = true;
	o->crc = 0;
	put(o, type, 4);
}

static void chunk_end(struct png_out *o)
{
	uint8_t c[4];

	be32(c, o->crc);
	if (fwrite(c, 1, 4, o->f) != 4)
		o->bad = true;
}

/* Image bytes into stored blocks, a block header each 65535 bytes. */
static void data(struct png_out *o, const uint8_t *p, size_t n)
{
	o->adler = rt_adler32(o->adler, p, n);
	while (n) {
		size_t k;

		if (!o->block_left) {
			uint32_t len = o->data_left > STORED_MAX ? STORED_MAX : (uint32_t)o->data_left;
			uint8_t h[5] = { o->data_left == len, (uint8_t)len, (uint8_t)(len >> 8),
					 (uint8_t)~len, (uint8_t)(~len >> 8) };

			put(o, h, sizeof(h));
			o->block_left = len;
		}
		k = n < o->block_left ? n : o->block_left;
		put(o, p, k);
		p += k;
		n -= k;
		o->block_left -= (uint32_t)k;
		o->data_left -= k;
	}
}

static void header(struct png_out *o, uint32_t w, uint32_t h)
{
	static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	uint8_t ihdr[13] = { 0 };

	if (fwrite(sig, 1, sizeof(sig), o->f) != sizeof(sig))
		o->bad = true;
	be32(ihdr, w);
	be32(ihdr + 4, h);
	ihdr[8] = 8; /* bits per sample */
	ihdr[9] = 2; /* RGB */
	chunk_begin(o, "IHDR", sizeof(ihdr));
	put(o, ihdr, sizeof(ihdr));
	chunk_end(o);
}

int rt_png_write(FILE *f, uint32_t w, uint32_t h, rt_png_pixel_fn *px,
		 const void *ctx, struct rt_error *err)
{
	struct png_out o = { .f = f, .adler = 1 };
	uint64_t raw = (uint64_t)h * (1 + 3ull * w);
	uint64_t blocks = (raw + STORED_MAX - 1) / STORED_MAX;
	static const uint8_t zhdr[2] = { 0x78, 0x01 }; /* deflate, 32K window, no dict */
	uint8_t *row, tail[4];

	if (!w || !h || w > RT_PNG_MAX_SIDE || h > RT_PNG_MAX_SIDE)
		return rt_fail(err, RT_EXIT_USAGE, "png: %ux%u is not 1..%u on a side", w, h,
			       RT_PNG_MAX_SIDE);
	row = rt_xmalloc(1 + 3 * (size_t)w);
	header(&o, w, h);
	chunk_begin(&o, "IDAT", (uint32_t)(2 + raw + 5 * blocks + 4));
	put(&o, zhdr, sizeof(zhdr));
	o.data_left = raw;
	for (uint32_t y = 0; y < h; y++) {
		row[0] = 0; /* filter: none */
		for (uint32_t x = 0; x < w; x++) {
			uint32_t c = px(ctx, x, y);

			row[1 + 3 * x] = (uint8_t)(c >> 16);
			row[2 + 3 * x] = (uint8_t)(c >> 8);
			row[3 + 3 * x] = (uint8_t)c;
		}
		data(&o, row, 1 + 3 * (size_t)w);
	}
	be32(tail, o.adler);
	put(&o, tail, sizeof(tail));
	chunk_end(&o);
	chunk_begin(&o, "IEND", 0);
	chunk_end(&o);
	free(row);
	if (o.bad || fflush(f))
		return rt_fail(err, RT_EXIT_FAIL, "png: write error");
	return 0;
}
