/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The ping-pong address records a peer sends (pingpong.h,
 * pingpong_srq.h, pingpong_xrc.h). Input byte 0 chooses the record:
 *   0  the 52-byte record of rc/uc/ud/srq ping-pong (rt_pp_rec_decode)
 *   1  srq_pingpong's block of 256 records, byte 1 giving -q
 *   2  the 66-byte record of xsrq_pingpong (rt_pp_xrc_rec_decode)
 * A record the decoder takes encodes back to one it takes the same way;
 * a refusal is exit 1 with a reason. */
#include "fuzz.h"

#include "ibverbs/pingpong.h"
#include "ibverbs/pingpong_srq.h"
#include "ibverbs/pingpong_xrc.h"

static void refused(const struct rt_error *err)
{
	FUZZ_CHECK(err->set && err->exit_code == RT_EXIT_FAIL && err->reason[0],
		   "a refusal without a reason");
}

/* Field by field: padding is not the decoder's to clear. */
static bool same_dest(const struct rt_pp_dest *a, const struct rt_pp_dest *b)
{
	return a->lid == b->lid && a->qpn == b->qpn && a->psn == b->psn &&
	       !memcmp(a->gid.raw, b->gid.raw, sizeof(a->gid.raw));
}

static bool same_xrc(const struct rt_pp_xrc_dest *a, const struct rt_pp_xrc_dest *b)
{
	return a->lid == b->lid && a->recv_qpn == b->recv_qpn &&
	       a->send_qpn == b->send_qpn && a->psn == b->psn && a->srqn == b->srqn &&
	       !memcmp(a->gid.raw, b->gid.raw, sizeof(a->gid.raw));
}

static void one_record(struct fuzz_in *in)
{
	size_t len;
	char *rec = (char *)fuzz_bytes(in, in->n, &len), again[RT_PP_REC_LEN];
	struct rt_pp_dest d, e;
	struct rt_error err = {0};

	if (rt_pp_rec_decode(rec, len, &d, "peer", &err)) {
		refused(&err);
	} else {
		rt_pp_rec_encode(again, &d);
		FUZZ_CHECK(rt_pp_rec_decode(again, sizeof(again), &e, "peer", &err) == 0 &&
			   same_dest(&d, &e), "taken but not re-encodable");
	}
	free(rec);
}

static bool same_block(const struct rt_pp_dest *a, const struct rt_pp_dest *b,
		       unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!same_dest(&a[i], &b[i]))
			return false;
	return true;
}

static void srq_block(struct fuzz_in *in)
{
	unsigned n = fuzz_u8(in) % RT_PP_SRQ_MAX_QP + 1;
	size_t len;
	uint8_t *raw = fuzz_bytes(in, RT_PP_SRQ_BLOCK, &len);
	char *block = calloc(1, RT_PP_SRQ_BLOCK), *again = calloc(1, RT_PP_SRQ_BLOCK);
	struct rt_pp_dest *d = calloc(n, sizeof(*d)), *e = calloc(n, sizeof(*e));
	struct rt_error err = {0};

	FUZZ_CHECK(block && again && d && e, "out of memory");
	memcpy(block, raw, len);
	if (rt_pp_srq_block_decode(block, n, d, "peer", &err)) {
		refused(&err);
	} else {
		rt_pp_srq_block_encode(again, d, n);
		FUZZ_CHECK(rt_pp_srq_block_decode(again, n, e, "peer", &err) == 0 &&
			   same_block(d, e, n), "taken but not re-encodable");
	}
	free(raw), free(block), free(again), free(d), free(e);
}

static void xrc_record(struct fuzz_in *in)
{
	size_t len;
	char *rec = (char *)fuzz_bytes(in, in->n, &len), again[RT_PP_XRC_REC_LEN];
	struct rt_pp_xrc_dest d, e;
	struct rt_error err = {0};

	if (rt_pp_xrc_rec_decode(rec, len, &d, "peer", &err)) {
		refused(&err);
	} else {
		rt_pp_xrc_rec_encode(again, &d);
		FUZZ_CHECK(rt_pp_xrc_rec_decode(again, sizeof(again), &e, "peer", &err) == 0 &&
			   same_xrc(&d, &e), "taken but not re-encodable");
	}
	free(rec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};

	switch (fuzz_u8(&in) % 3) {
	case 0:
		one_record(&in);
		break;
	case 1:
		srq_block(&in);
		break;
	default:
		xrc_record(&in);
	}
	return 0;
}
