/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rping's advert, the 16-byte {address, rkey, length} a peer SENDs before
 * every RDMA READ or WRITE: rping_advert_decode must accept exactly the
 * messages that describe a buffer the local side may touch, and
 * rping_fill must stay inside the buffer for any size and ping number.
 *
 * Input: bytes 0..7 the local buffer size (-S) bound, 8..15 the ping
 * number, 16..17 a fill size (up to 4 KiB); the rest is the received message, of any
 * length. */
#include <endian.h>

#include "fuzz.h"

/* applets/rdmacm/rping.c (non-static for tests) */
struct rping_advert {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
};
void rping_advert_encode(uint8_t out[16], const struct rping_advert *a);
int rping_advert_decode(const uint8_t *buf, size_t len, uint64_t max,
			struct rping_advert *a, const char **why);
void rping_fill(uint8_t *buf, size_t size, uint64_t n);

static void check_decode(const uint8_t *msg, size_t len, uint64_t max)
{
	struct rping_advert a;
	const char *why = NULL;
	uint8_t again[16];
	int rc = rping_advert_decode(msg, len, max, &a, &why);

	if (rc) {
		FUZZ_CHECK(rc == -1 && why && *why, "rejected without a reason");
		return;
	}
	FUZZ_CHECK(!why, "accepted with a reason: %s", why);
	FUZZ_CHECK(len == 16, "accepted %zu bytes", len);
	FUZZ_CHECK(a.len > 0 && a.len <= max, "accepted length %u (max %llu)",
		   a.len, (unsigned long long)max);
	FUZZ_CHECK(a.addr + a.len >= a.addr, "accepted a wrapping buffer");
	rping_advert_encode(again, &a);
	FUZZ_CHECK(!memcmp(again, msg, 16), "re-encoding differs");
}

static void check_fill(size_t size, uint64_t n)
{
	uint8_t *buf = malloc(size ? size : 1);
	char prefix[40];
	size_t plen;

	if (!buf)
		abort();
	rping_fill(buf, size, n);
	if (size) {
		FUZZ_CHECK(buf[size - 1] == '\0', "size %zu: no NUL at the end", size);
		/* the text up to the NUL: the upstream prefix, then A..z */
		plen = (size_t)snprintf(prefix, sizeof(prefix), "rdma-ping-%llu: ",
					(unsigned long long)n);
		for (size_t i = 0; i + 1 < size; i++) {
			if (i < plen)
				FUZZ_CHECK(buf[i] == (uint8_t)prefix[i], "size %zu: byte %zu", size, i);
			else
				FUZZ_CHECK(buf[i] >= 'A' && buf[i] <= 'z', "size %zu: byte %zu = %u",
					   size, i, buf[i]);
		}
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	uint64_t max = fuzz_u64(&in, 8), n = fuzz_u64(&in, 8);
	size_t fill = (size_t)fuzz_u64(&in, 2) % 4097, len; /* past the prefix it repeats */
	uint8_t *msg;

	if (size > 1024)
		return 0;
	msg = fuzz_bytes(&in, in.n, &len);
	check_decode(msg, len, max);
	check_decode(msg, len, max & 0xffffffff);
	check_decode(msg, len, 1u << 24); /* rping's largest -S */
	free(msg);
	/* the whole input as a message too: the seeds are 16-byte adverts */
	msg = malloc(size ? size : 1);
	if (!msg)
		abort();
	if (size)
		memcpy(msg, data, size);
	check_decode(msg, size, 64);
	free(msg);
	check_fill(fill, n);
	check_fill(fill & 0x3f, n);
	return 0;
}
