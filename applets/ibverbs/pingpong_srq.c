/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <stdio.h>
#include <string.h>

#include "ibverbs/pingpong_srq.h"
#include "rdmatest/util.h"
#include "rdmatest/verify.h"
#include "rdmatest/xfer.h"

/* ---- the block of 256 records -------------------------------------------- */

void rt_pp_srq_block_encode(char *block, const struct rt_pp_dest *d, unsigned n)
{
	static const struct rt_pp_dest none;

	for (unsigned i = 0; i < RT_PP_SRQ_MAX_QP; i++)
		rt_pp_rec_encode(block + (size_t)i * RT_PP_REC_LEN, i < n ? &d[i] : &none);
}

int rt_pp_srq_block_decode(const char *block, unsigned n, struct rt_pp_dest *d,
			   const char *who, struct rt_error *err)
{
	unsigned theirs = RT_PP_SRQ_MAX_QP;

	for (unsigned i = 0; i < RT_PP_SRQ_MAX_QP; i++) {
		struct rt_pp_dest r;
		char what[96];

		snprintf(what, sizeof(what), "%s (record %u)", who, i);
		if (rt_pp_rec_decode(block + (size_t)i * RT_PP_REC_LEN, RT_PP_REC_LEN,
				     &r, what, err))
			return -1;
		if (!r.qpn && theirs == RT_PP_SRQ_MAX_QP)
			theirs = i;
		if (i < n)
			d[i] = r;
	}
	if (theirs != n)
		return rt_fail(err, RT_EXIT_FAIL, "%s has %u QPs (its -q), this side %u: "
			       "both sides must use the same -q%s", who, theirs, n,
			       theirs < n ? " (QP records from the peer have QPN 0)" : "");
	return 0;
}

/* ---- the loop ------------------------------------------------------------ */

#define FILL 0x7b /* upstream's buffer before any receive */
#define SEED_CLIENT 1
#define SEED_SERVER 2

enum { WAIT_RECV = 1, WAIT_SEND = 2 };

static uint8_t *send_area(const struct rt_pp_srq_loop *l)
{
	return l->check ? l->buf + l->size : l->buf;
}

static uint8_t *expect_area(const struct rt_pp_srq_loop *l)
{
	return l->buf + 2 * l->size;
}

/* One side's -c content: the pattern with 0 at the page starts. */
static void content(const struct rt_pp_srq_loop *l, uint8_t *to, bool mine)
{
	rt_pattern_fill(to, l->size, mine == l->client ? SEED_CLIENT : SEED_SERVER, 1);
	for (size_t i = 0; i < l->size; i += l->page)
		to[i] = 0;
}

int rt_pp_srq_post_receives(struct rt_pp_srq_loop *l, struct rt_error *err)
{
	memset(l->buf, FILL, RT_PP_SRQ_BUF_LEN(l->size));
	if (l->check) {
		content(l, send_area(l), true);
		content(l, expect_area(l), false);
	}
	for (unsigned i = 0; i < l->rx_depth; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)l->buf, .length = (uint32_t)l->size,
				       .lkey = l->mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = RT_WR_ID(RT_WR_RECV, i), .sg_list = &sge,
					  .num_sge = 1 };
		struct ibv_recv_wr *bad;
		int e = ibv_post_srq_recv(l->srq, &wr, &bad);

		if (e)
			return rt_fail_errno(err, RT_EXIT_FAIL, e, "ibv_post_srq_recv "
					     "(receive %u of %u)", i + 1, l->rx_depth);
	}
	return 0;
}

static int post_send(struct rt_pp_srq_loop *l, unsigned q, struct rt_error *err)
{
	struct ibv_sge sge = { .addr = (uintptr_t)send_area(l), .length = (uint32_t)l->size,
			       .lkey = l->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = RT_WR_ID(RT_WR_SEND, q), .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED | l->send_flags };
	struct ibv_send_wr *bad;
	int e = ibv_post_send(l->qp[q], &wr, &bad);

	if (e)
		return rt_fail_errno(err, RT_EXIT_FAIL, e, "ibv_post_send on QP %u "
				     "(message %llu)", q, (unsigned long long)l->sent + 1);
	l->pending[q] = WAIT_RECV | WAIT_SEND;
	l->t_send[q] = rt_now_ns();
	return 0;
}

/* An upstream peer's message: each byte ours (its buffer's last receive)
 * or its first fill (0x7b in some versions, 0 in others, and 0 at page
 * starts with its -c). */
static bool upstream_byte(const struct rt_pp_srq_loop *l, size_t i, uint8_t b)
{
	return (l->check && b == send_area(l)[i]) || b == FILL || b == 0;
}

static int check_data(struct rt_pp_srq_loop *l, unsigned q, struct rt_error *err)
{
	const uint8_t *got = l->buf, *want = expect_area(l);
	size_t i = 0;

	if (l->content != RT_PP_PEER_UPSTREAM && !memcmp(got, want, l->size)) {
		l->content = RT_PP_PEER_RDMATEST;
		return 0;
	}
	if (l->content != RT_PP_PEER_RDMATEST) {
		while (i < l->size && upstream_byte(l, i, got[i]))
			i++;
		if (i == l->size) {
			l->content = RT_PP_PEER_UPSTREAM;
			return 0;
		}
	} else {
		while (got[i] == want[i])
			i++;
	}
	return rt_fail(err, RT_EXIT_FAIL, "%s: message %llu (on QP %u): byte %zu is "
		       "0x%02x, want 0x%02x (-c)", l->peer,
		       (unsigned long long)l->received, q, i, got[i], want[i]);
}

static int refill(struct rt_pp_srq_loop *l, unsigned *routs, struct rt_error *err)
{
	for (; *routs < l->rx_depth; ++*routs) {
		struct ibv_sge sge = { .addr = (uintptr_t)l->buf, .length = (uint32_t)l->size,
				       .lkey = l->mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = RT_WR_ID(RT_WR_RECV, *routs),
					  .sg_list = &sge, .num_sge = 1 };
		struct ibv_recv_wr *bad;
		int e = ibv_post_srq_recv(l->srq, &wr, &bad);

		if (e)
			return rt_fail_errno(err, RT_EXIT_FAIL, e, "ibv_post_srq_recv");
	}
	return 0;
}

static int on_recv(struct rt_pp_srq_loop *l, const struct ibv_wc *wc, unsigned q,
		   unsigned *routs, struct rt_error *err)
{
	if (wc->byte_len != l->size)
		return rt_fail(err, RT_EXIT_FAIL, "%s: message %llu (on QP %u) has %u bytes, "
			       "want %zu: do both sides use the same -s?", l->peer,
			       (unsigned long long)l->received + 1, q, wc->byte_len, l->size);
	l->received++;
	if (l->client)
		rt_hist_add(&l->rtt, rt_now_ns() - l->t_send[q]);
	if (l->check && check_data(l, q, err))
		return -1;
	if (--*routs > l->num_qp)
		return 0;
	return refill(l, routs, err);
}

static int find_qp(const struct rt_pp_srq_loop *l, uint32_t qpn)
{
	for (unsigned i = 0; i < l->num_qp; i++)
		if (l->qp[i]->qp_num == qpn)
			return (int)i;
	return -1;
}

/* The likely cause of a failed completion. A message longer than -s
 * shows as a local length error on most devices; rxe reports it for SRQ
 * receives as a local QP operation error, and the sender then sees a
 * remote operation error (seen in the lab). */
static const char *hint(enum ibv_wc_status st)
{
	switch (st) {
	case IBV_WC_LOC_LEN_ERR:
	case IBV_WC_LOC_QP_OP_ERR:
		return " (a message longer than -s? do both sides use the same -s?)";
	case IBV_WC_REM_INV_REQ_ERR:
		return " (the peer refused the message: do both sides use the same -s?)";
	case IBV_WC_REM_OP_ERR:
		/* also what rxe answers while a killed peer's QPs go down */
		return " (the peer refused the message: peer gone, or do both sides use the same -s?)";
	case IBV_WC_RETRY_EXC_ERR:
		return " (peer gone, or the sides' -m differ?)";
	default:
		return "";
	}
}

static int on_wc(struct rt_pp_srq_loop *l, const struct ibv_wc *wc, unsigned *routs,
		 struct rt_error *err)
{
	enum rt_wr_kind k = RT_WR_KIND(wc->wr_id);
	int q = find_qp(l, wc->qp_num);

	if (wc->status != IBV_WC_SUCCESS) {
		rt_error_event(err, ibv_wc_status_str(wc->status), wc->status);
		return rt_fail(err, RT_EXIT_FAIL, "%s: %s completion on QP %d after %llu "
			       "sent and %llu received: %s%s", l->peer, rt_wr_kind_str(k), q,
			       (unsigned long long)l->sent, (unsigned long long)l->received,
			       ibv_wc_status_str(wc->status), hint(wc->status));
	}
	if (q < 0)
		return rt_fail(err, RT_EXIT_FAIL, "completion for unknown QPN 0x%06x",
			       wc->qp_num);
	if (k == RT_WR_SEND)
		l->sent++;
	else if (on_recv(l, wc, (unsigned)q, routs, err))
		return -1;
	l->pending[q] &= (uint8_t)~(k == RT_WR_SEND ? WAIT_SEND : WAIT_RECV);
	if (l->sent < l->iters && !l->pending[q])
		return post_send(l, (unsigned)q, err);
	return 0;
}

static int expired(const struct rt_pp_srq_loop *l, struct rt_error *err)
{
	return rt_fail(err, RT_EXIT_TIMEOUT, "%s: no completion within %lld ms after "
		       "%llu of %llu messages received and %llu sent over %u QPs (does "
		       "the peer use the same -n? is it still running?)", l->peer,
		       l->cqw->timeout_ms, (unsigned long long)l->received,
		       (unsigned long long)l->iters, (unsigned long long)l->sent, l->num_qp);
}

int rt_pp_srq_run(struct rt_pp_srq_loop *l, struct rt_error *err)
{
	unsigned routs = l->rx_depth;
	struct ibv_wc wc[16];
	uint64_t start;

	rt_error_phase(err, "transfer");
	l->sent = l->received = 0;
	l->content = RT_PP_PEER_UNKNOWN;
	for (unsigned q = 0; q < l->num_qp; q++) {
		l->pending[q] = WAIT_RECV;
		if (l->client && post_send(l, q, err))
			return -1;
	}
	start = rt_now_ns();
	while (l->sent < l->iters || l->received < l->iters) {
		int n = rt_cqwait_poll(l->cqw, wc, 16, err);

		if (n == 0)
			return expired(l, err);
		if (n < 0)
			return n;
		for (int i = 0; i < n; i++)
			if (on_wc(l, &wc[i], &routs, err))
				return -1;
	}
	l->elapsed_us = (rt_now_ns() - start) / 1000;
	return 0;
}

void rt_pp_srq_print_result(const struct rt_pp_srq_loop *l, char *buf, size_t len)
{
	struct rt_pp_loop same = { .size = l->size, .iters = l->iters,
				   .elapsed_us = l->elapsed_us };

	rt_pp_print_result(&same, buf, len);
}
