/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The two ways mesh results reach rank 0 or `mesh report` (meshwire.h,
 * meshparse.h). Input byte 0 chooses:
 *   even  the rest is binary messages, each a size byte (the mesh's rank
 *         count, 0: any) and up to RT_MESHMSG_MAX bytes, the length in two
 *         bytes (big endian) first, so that a HELLO with rails fits:
 *         a message the decoder takes must encode back to the same bytes
 *   odd   the rest is a report (per-rank JSON lines): whatever it holds,
 *         reading, judging and the document never fail unsafely, and the
 *         document is valid JSON. */
#include "fuzz.h"

#include "mesh/meshdoc.h"
#include "mesh/meshparse.h"
#include "mesh/meshwire.h"

static void binary(struct fuzz_in *in)
{
	while (in->n) {
		uint32_t size = fuzz_u8(in);
		size_t len, elen;
		uint8_t *msg = fuzz_bytes(in, fuzz_u64(in, 2) % (RT_MESHMSG_MAX + 1), &len);
		uint8_t again[RT_MESHMSG_MAX];
		struct rt_meshmsg m;
		struct rt_error err = {0};

		if (rt_meshmsg_decode(msg, len, size, &m, &err)) {
			FUZZ_CHECK(err.set && err.exit_code == RT_EXIT_FAIL &&
				   err.reason[0], "a refusal without a reason");
		} else {
			elen = rt_meshmsg_encode(&m, again);
			FUZZ_CHECK(elen == len && !memcmp(again, msg, len),
				   "taken but encodes differently (type %u)", m.type);
		}
		free(msg);
	}
}

static void report(const uint8_t *data, size_t size)
{
	struct rt_mesh_limits lim = {.min_gbps = 10, .max_rtt_us = 50,
				     .rtt_factor = 2.1, .bw_fraction = 0.93};
	FILE *f = fmemopen((void *)(uintptr_t)data, size, "r");
	struct rt_mesh_agg g;
	struct rt_error err = {0};
	struct rt_json j;
	const char *why;

	if (!f)
		return;
	FUZZ_CHECK(rt_mesh_agg_init(&g, 0, 4096, &err) == 0, "init");
	if (rt_mesh_report_read(f, &g, &err) == 0 && g.n <= 4096 &&
	    rt_mesh_judge(&g, &lim, &err) == 0) {
		rt_json_init(&j);
		rt_mesh_document(&j, &g, &lim, NULL);
		why = fuzz_json_invalid(rt_json_text(&j), strlen(rt_json_text(&j)));
		FUZZ_CHECK(!why, "document: %s", why);
		rt_json_free(&j);
	} else if (err.set) {
		FUZZ_CHECK(err.exit_code == RT_EXIT_FAIL && err.reason[0],
			   "a refusal without a reason");
	}
	fclose(f);
	rt_mesh_agg_free(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};

	if (size == 0)
		return 0;
	if (data[0] % 2 == 0) {
		fuzz_u8(&in);
		binary(&in);
	} else if (size > 1) {
		report(data + 1, size - 1);
	}
	return 0;
}
