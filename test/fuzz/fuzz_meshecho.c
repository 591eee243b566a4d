/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A mesh pair test's messages from the partner (meshtest.h): pings the
 * listener echoes and echoes (with the bandwidth window advert) the
 * connecting side checks, to rt_mesh_echo_take. Only a 24-byte message is
 * taken, on the connecting side only the echo of the ping in flight, and
 * its fields are its words; a refusal gives one printable line; nothing
 * is read past the message (an exactly sized copy).
 *
 * Input: records, each a control byte (bit 0: the connecting side), the
 * 8-byte ping in flight, a 2-byte length and that many bytes. */
#include "fuzz.h"

#include "mesh/meshtest.h"

static void take(const uint8_t *msg, size_t len, const uint64_t *want)
{
	struct rt_mesh_echo m = { 1, 2, 3 };
	char why[96];
	uint64_t w[3];
	size_t n;
	int rc;

	memset(why, 0, sizeof(why));
	rc = rt_mesh_echo_take(msg, len, want, &m, why, sizeof(why));
	if (rc == 0) {
		FUZZ_CHECK(len == RT_MESH_MSG_LEN, "a message of %zu bytes taken", len);
		memcpy(w, msg, sizeof(w));
		FUZZ_CHECK(m.seq == w[0] && m.raddr == w[1] && m.rkey == (uint32_t)w[2],
			   "fields not the message's words");
		FUZZ_CHECK(!want || m.seq == *want, "echo of %llu taken for %llu",
			   (unsigned long long)m.seq, (unsigned long long)*want);
		return;
	}
	FUZZ_CHECK(rc == -1, "verdict %d", rc);
	if (len == RT_MESH_MSG_LEN) {
		memcpy(w, msg, sizeof(w));
		FUZZ_CHECK(want && *want != w[0], "the echo of the ping in flight refused: %s",
			   why);
	}
	n = strnlen(why, sizeof(why));
	FUZZ_CHECK(n > 0 && n < sizeof(why), "reason of %zu bytes", n);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(why[i] >= 0x20 && why[i] < 0x7f, "byte 0x%02x in the reason",
			   (unsigned char)why[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};

	while (in.n) {
		bool connecting = fuzz_u8(&in) & 1;
		uint64_t want = fuzz_u64(&in, 8);
		size_t n = fuzz_u64(&in, 2), len;
		uint8_t *msg = fuzz_bytes(&in, n, &len);

		take(msg, len, connecting ? &want : NULL);
		free(msg);
	}
	return 0;
}
