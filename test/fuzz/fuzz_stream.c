/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The 16-byte sync block an rstream/riostream peer sends before each row
 * (stream.h): whatever it holds, decoding and checking it against a row
 * never read past the block, and a block taken as rdmatest's encodes
 * back to the same bytes. Input: the block, then the row (size, count,
 * iterations) and byte 0's low bit for the role. */
#include "fuzz.h"

#include "rdmacm/stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	char role = fuzz_u8(&in) & 1 ? 'c' : 's';
	size_t len;
	uint8_t *raw = fuzz_bytes(&in, RT_STREAM_SYNC_LEN, &len);
	uint8_t *block = calloc(1, RT_STREAM_SYNC_LEN), again[RT_STREAM_SYNC_LEN];
	struct rt_stream_row row = {0};
	struct rt_stream_sync s, peer;
	enum rt_sync_verdict v;

	FUZZ_CHECK(block, "out of memory");
	memcpy(block, raw, len);
	row.size = fuzz_u64(&in, 4);
	row.count = fuzz_u64(&in, 4);
	row.iters = fuzz_u64(&in, 4);
	if (rt_stream_sync_decode(block, &s)) {
		struct rt_stream_row back = { .size = s.size, .count = s.count,
					      .iters = s.iters };

		FUZZ_CHECK(s.role == 'c' || s.role == 's', "role %d", s.role);
		rt_stream_sync_encode(again, s.role, &back);
		FUZZ_CHECK(!memcmp(again, block, RT_STREAM_SYNC_LEN),
			   "taken but encodes differently");
	}
	v = rt_stream_sync_check(block, role, &row, &peer);
	FUZZ_CHECK(v == RT_SYNC_OK || v == RT_SYNC_VERIFIES || v == RT_SYNC_DIFFERS,
		   "verdict %d", v);
	free(raw);
	free(block);
	return 0;
}
