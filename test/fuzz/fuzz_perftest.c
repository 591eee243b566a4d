/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What a perftest peer sends before and after a run (perftest_wire.h). Input
 * byte 0 chooses:
 *   0  a key record, 59 bytes; 1  a key record, 108 bytes (-x)
 *   2  the 16-byte version   3  the 2-byte MTU
 *   4  a bandwidth report (40 bytes: size, iterations, three doubles)
 *      checked against a run of size from the next 8 bytes
 *   5  -R's binary key record, 56 bytes
 * A taken key encodes back to one taken the same way; a taken version
 * is at least 5.70, an MTU one of 256..4096; a taken report is finite
 * and not negative; a refusal is exit 1 with a reason. */
#include <math.h>

#include "fuzz.h"

#include "perftest/perftest_wire.h"

static void refused(const struct rt_error *err)
{
	FUZZ_CHECK(err->set && err->exit_code == RT_EXIT_FAIL && err->reason[0],
		   "a refusal without a reason");
}

static bool same_key(const struct rt_pt_key *a, const struct rt_pt_key *b, bool gid)
{
	return a->lid == b->lid && a->out_reads == b->out_reads && a->qpn == b->qpn &&
	       a->psn == b->psn && a->rkey == b->rkey && a->srqn == b->srqn &&
	       a->vaddr == b->vaddr &&
	       (!gid || !memcmp(a->gid.raw, b->gid.raw, sizeof(a->gid.raw)));
}

static void key(struct fuzz_in *in, bool gid)
{
	size_t len;
	char *rec = (char *)fuzz_bytes(in, in->n, &len), again[RT_PT_KEY_GID_LEN];
	struct rt_pt_key k, e;
	struct rt_error err = {0};

	if (rt_pt_key_decode(rec, len, gid, &k, "peer", &err)) {
		refused(&err);
	} else {
		FUZZ_CHECK(len == rt_pt_key_len(gid), "took %zu bytes", len);
		rt_pt_key_encode(again, gid, &k);
		FUZZ_CHECK(rt_pt_key_decode(again, len, gid, &e, "peer", &err) == 0 &&
			   same_key(&k, &e, gid), "taken but not re-encodable");
	}
	free(rec);
}

static void key_bin(struct fuzz_in *in)
{
	size_t len;
	uint8_t *raw = fuzz_bytes(in, RT_PT_KEY_BIN_LEN, &len);
	uint8_t rec[RT_PT_KEY_BIN_LEN] = {0}, again[RT_PT_KEY_BIN_LEN];
	struct rt_pt_key k, e;
	struct rt_error err = {0};

	memcpy(rec, raw, len);
	free(raw);
	if (rt_pt_key_bin_decode(rec, &k, "peer", &err)) {
		refused(&err);
		return;
	}
	rt_pt_key_bin_encode(again, &k);
	FUZZ_CHECK(rt_pt_key_bin_decode(again, &e, "peer", &err) == 0 &&
		   same_key(&k, &e, true), "taken but not re-encodable");
}

static void version(struct fuzz_in *in)
{
	size_t len;
	uint8_t *raw = fuzz_bytes(in, RT_PT_VERSION_LEN, &len);
	char v[RT_PT_VERSION_LEN] = {0};
	unsigned hundredths = 0;
	struct rt_error err = {0};

	memcpy(v, raw, len);
	if (rt_pt_version_decode(v, &hundredths, "peer", &err))
		refused(&err);
	else
		FUZZ_CHECK(hundredths >= 570, "took version %u", hundredths);
	free(raw);
}

static void mtu(struct fuzz_in *in)
{
	char m[RT_PT_MTU_LEN] = { (char)fuzz_u8(in), (char)fuzz_u8(in) };
	enum ibv_mtu got;
	struct rt_error err = {0};

	if (rt_pt_mtu_decode(m, &got, "peer", &err))
		refused(&err);
	else
		FUZZ_CHECK(got >= IBV_MTU_256 && got <= IBV_MTU_4096, "took MTU %d", got);
}

static double fuzz_double(struct fuzz_in *in)
{
	uint64_t bits = fuzz_u64(in, 8);
	double d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

static void report(struct fuzz_in *in)
{
	uint64_t size = fuzz_u64(in, 8);
	struct rt_pt_bw_report r = { .size = fuzz_u64(in, 8), .iters = fuzz_u64(in, 8) };
	struct rt_error err = {0};

	r.bw_peak = fuzz_double(in);
	r.bw_avg = fuzz_double(in);
	r.msg_rate = fuzz_double(in);
	if (rt_pt_bw_report_check(&r, size, "peer", &err))
		refused(&err);
	else
		FUZZ_CHECK(r.size == size && isfinite(r.bw_peak) && r.bw_peak >= 0 &&
			   isfinite(r.bw_avg) && r.bw_avg >= 0 &&
			   isfinite(r.msg_rate) && r.msg_rate >= 0, "took a bad report");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};

	switch (fuzz_u8(&in) % 6) {
	case 0:
	case 1:
		key(&in, data[0] % 6 == 1);
		break;
	case 2:
		version(&in);
		break;
	case 3:
		mtu(&in);
		break;
	case 4:
		report(&in);
		break;
	default:
		key_bin(&in);
	}
	return 0;
}
