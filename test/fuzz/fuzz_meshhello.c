/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The mesh gathering's hello reassembly (rt_mesh_hello_took), as rank 0
 * reads a connection in whatever chunks TCP delivers: it never wants
 * more than RT_MESHMSG_MAX bytes, and the verdict does not depend on the
 * chunking (the same bytes in one piece each time the reader asks give
 * the same verdict and message). An odd seed reads a sealed hello (an
 * authenticated run's: the frame's trailer after the payload) and never
 * wants more than RT_MESH_AUTH_FRAME_MAX.
 * Input: byte 0 seeds the chunk sizes; the rest is what the peer sent. */
#include "fuzz.h"

#include "mesh/meshgather.h"

static enum rt_mesh_hello_step feed(struct rt_mesh_hello_in *h, const uint8_t *d,
				    size_t n, uint8_t seed)
{
	enum rt_mesh_hello_step s = RT_MESH_HELLO_MORE;
	struct rt_error e = {0};
	size_t at = 0;

	while (s == RT_MESH_HELLO_MORE && at < n) {
		size_t room = h->want - h->got, k;

		FUZZ_CHECK(room > 0 && h->want <= RT_MESHMSG_MAX + h->trailer &&
			   h->want <= sizeof(h->buf), "want %zu, got %zu", h->want, h->got);
		k = seed ? 1 + (seed + at * 7) % room : room;
		if (k > n - at)
			k = n - at;
		memcpy(h->buf + h->got, d + at, k);
		at += k;
		s = rt_mesh_hello_took(h, k, &e);
		FUZZ_CHECK(s != RT_MESH_HELLO_REFUSED || e.reason[0], "refused without a reason");
	}
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rt_mesh_hello_in *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	uint8_t seed = size ? data[0] : 0;
	enum rt_mesh_hello_step sa, sb;

	FUZZ_CHECK(a && b, "out of memory");
	*a = (struct rt_mesh_hello_in)RT_MESH_HELLO_IN_INIT;
	*b = (struct rt_mesh_hello_in)RT_MESH_HELLO_IN_INIT;
	a->trailer = b->trailer = seed & 1 ? RT_MESH_AUTH_TRAILER : 0;
	if (size)
		data++, size--;
	sa = feed(a, data, size, seed);
	sb = feed(b, data, size, 0);
	FUZZ_CHECK(sa == sb && a->got == b->got, "chunking changed the verdict (%d, %d)",
		   sa, sb);
	if (sa == RT_MESH_HELLO_WHOLE) {
		struct rt_error e = {0};
		struct rt_meshmsg m;

		FUZZ_CHECK(a->got == a->want, "whole at %zu of %zu", a->got, a->want);
		(void)rt_meshmsg_decode(a->buf, a->got - a->trailer, 1 + seed, &m, &e);
	}
	free(a);
	free(b);
	return 0;
}
