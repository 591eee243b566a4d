/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A dependency-free PNG writer for small images (mesh's heatmap): 8-bit
 * RGB, no filtering, the zlib stream made of stored (uncompressed)
 * deflate blocks. Memory: nothing beyond one row at a time; the file is
 * 3 x width x height bytes plus 5 per 65535 and the headers. */
#ifndef RDMATEST_PNG_H
#define RDMATEST_PNG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rdmatest/error.h"

#define RT_PNG_MAX_SIDE 4096u

/* The pixel at (x, y) as 0xRRGGBB. */
typedef uint32_t rt_png_pixel_fn(const void *ctx, uint32_t x, uint32_t y);

/* Writes a w x h image (1..RT_PNG_MAX_SIDE each, else exit 2) to f;
 * a write error is exit 1. */
int rt_png_write(FILE *f, uint32_t w, uint32_t h, rt_png_pixel_fn *px,
		 const void *ctx, struct rt_error *err);

/* The checksums PNG uses, continued from a previous value (start: crc 0,
 * adler 1). */
uint32_t rt_crc32(uint32_t crc, const uint8_t *p, size_t n);
uint32_t rt_adler32(uint32_t adler, const uint8_t *p, size_t n);

#endif
