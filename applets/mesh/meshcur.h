/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The cursor the mesh messages' writer and reader walk (meshwire.c, and
 * the counter block's in meshwirectr.c): big endian, no bounds of its
 * own, since every message has a fixed size per type that the header's
 * length is checked against before a field is read. Internal to those
 * two files. */
#ifndef RDMATEST_MESHCUR_H
#define RDMATEST_MESHCUR_H

#include <stdint.h>
#include <string.h>

#include "rdmatest/error.h"
#include "rdmatest/util.h"

/* A cursor; the writer and the reader walk the same field order. */
struct cur {
	uint8_t *w;
	const uint8_t *r;
};

static inline void put8(struct cur *c, uint8_t v) { *c->w++ = v; }
static inline void put16(struct cur *c, uint16_t v)
{
	*c->w++ = (uint8_t)(v >> 8);
	*c->w++ = (uint8_t)v;
}
static inline void put32(struct cur *c, uint32_t v) { rt_put_be32(c->w, v); c->w += 4; }
static inline void put64(struct cur *c, uint64_t v) { rt_put_be64(c->w, v); c->w += 8; }
static inline void put_zero(struct cur *c, size_t n) { memset(c->w, 0, n); c->w += n; }

static inline uint8_t get8(struct cur *c) { return *c->r++; }
static inline uint16_t get16(struct cur *c)
{
	uint16_t v = (uint16_t)(c->r[0] << 8 | c->r[1]);

	c->r += 2;
	return v;
}
static inline uint32_t get32(struct cur *c) { c->r += 4; return rt_get_be32(c->r - 4); }
static inline uint64_t get64(struct cur *c) { c->r += 8; return rt_get_be64(c->r - 8); }

static inline int zeros(struct cur *c, size_t n, const char *what, struct rt_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (get8(c))
			return rt_fail(err, RT_EXIT_FAIL, "mesh message: %s padding is not zero", what);
	return 0;
}

#endif
