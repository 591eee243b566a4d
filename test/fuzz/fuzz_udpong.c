/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* udpong's server, one datagram after another (rt_udpong_take): any
 * bytes from any peer keep the client table in bounds, and an answer is
 * the datagram itself with only id (login) or data (end) rewritten.
 * Input: datagrams, each a 2-byte big-endian length then its bytes. */
#include "fuzz.h"

#include "rdmacm/udpong.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	struct rt_udpong_clients *t = calloc(1, sizeof(*t));
	struct rt_udpong_msg m, before;

	FUZZ_CHECK(t, "out of memory");
	while (in.n) {
		size_t n = fuzz_u64(&in, 2) % (sizeof(m) + 1), len;
		uint8_t *d = fuzz_bytes(&in, n, &len);
		unsigned byes = t->byes;
		enum rt_udpong_take v;

		memset(&m, 0, sizeof(m));
		memcpy(&m, d, len);
		before = m;
		v = rt_udpong_take(t, &m, len);
		FUZZ_CHECK(v <= RT_UDPONG_BYE, "verdict %d", v);
		FUZZ_CHECK(v != RT_UDPONG_FOREIGN || len < RT_UDPONG_HDR || m.op > 5,
			   "a %zu-byte op %u ignored", len, m.op);
		FUZZ_CHECK(m.op == before.op && m.seqno == before.seqno &&
			   !memcmp(m.buf, before.buf, sizeof(m.buf)), "answer rewrote the payload");
		FUZZ_CHECK(v == RT_UDPONG_LOGIN || m.id == before.id, "id rewritten");
		FUZZ_CHECK(t->byes <= byes + 1, "a goodbye counted twice");
		free(d);
	}
	free(t);
	return 0;
}
