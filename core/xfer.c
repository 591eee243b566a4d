/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "rdmatest/xfer.h"

static struct ibv_sge sge_of(struct rt_buf *b, size_t off, size_t len)
{
	return (struct ibv_sge){ .addr = (uintptr_t)(b->addr + off),
				 .length = (uint32_t)len,
				 .lkey = b->mr->lkey };
}

static int range_ok(struct rt_buf *b, size_t off, size_t len,
		    struct rt_error *err)
{
	if (off > b->len || len > b->len - off || len > UINT32_MAX)
		return rt_fail(err, RT_EXIT_FAIL,
			       "internal: %zu bytes at %zu outside a %zu-byte buffer",
			       len, off, b->len);
	return 0;
}

int rt_post_recv(struct rt_res *r, struct rt_buf *b, size_t off, size_t len,
		 uint64_t wr_id, struct rt_error *err)
{
	struct ibv_sge sge = sge_of(b, off, len);
	struct ibv_recv_wr wr = { .wr_id = RT_WR_ID(RT_WR_RECV, wr_id), .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int ret;

	if (range_ok(b, off, len, err))
		return -1;
	ret = ibv_post_recv(r->qp, &wr, &bad);
	if (ret)
		return rt_fail_errno(err, RT_EXIT_FAIL, ret, "ibv_post_recv");
	return 0;
}

/* Posts the chain wr; on failure *refused (if asked for) is the work
 * request the provider refused, those before it went out. */
static int post_send_list(struct rt_res *r, struct ibv_send_wr *wr, const char *what,
			  struct ibv_send_wr **refused, struct rt_error *err)
{
	struct ibv_send_wr *bad = NULL;
	int ret = ibv_post_send(r->qp, wr, &bad);

	if (refused)
		*refused = bad;
	if (ret)
		return rt_fail_errno(err, RT_EXIT_FAIL, ret, "ibv_post_send (%s)", what);
	return 0;
}

static int post_send(struct rt_res *r, struct ibv_send_wr *wr,
		     const char *what, struct rt_error *err)
{
	return post_send_list(r, wr, what, NULL, err);
}

int rt_post_send(struct rt_res *r, struct rt_buf *b, size_t off, size_t len,
		 uint64_t wr_id, bool signaled, struct rt_error *err)
{
	struct ibv_sge sge = sge_of(b, off, len);
	struct ibv_send_wr wr = {
		.wr_id = RT_WR_ID(RT_WR_SEND, wr_id), .sg_list = &sge,
		.num_sge = len ? 1 : 0, .opcode = IBV_WR_SEND,
		.send_flags = signaled ? IBV_SEND_SIGNALED : 0,
	};

	if (range_ok(b, off, len, err))
		return -1;
	return post_send(r, &wr, "SEND", err);
}

int rt_post_rdma(struct rt_res *r, enum ibv_wr_opcode op, struct rt_buf *b,
		 size_t off, size_t len, uint64_t raddr, uint32_t rkey,
		 uint64_t wr_id, struct rt_error *err)
{
	struct ibv_sge sge = sge_of(b, off, len);
	struct ibv_send_wr wr = {
		.wr_id = RT_WR_ID(op == IBV_WR_RDMA_READ ? RT_WR_READ : RT_WR_WRITE, wr_id),
		.sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	};

	if (range_ok(b, off, len, err))
		return -1;
	return post_send(r, &wr, op == IBV_WR_RDMA_READ ? "RDMA READ" : "RDMA WRITE", err);
}

int rt_post_ud_sends(struct rt_res *r, struct rt_buf *b, const size_t *offs,
		     size_t n, size_t len, const struct rt_ud_dest *to,
		     uint64_t first_id, size_t *posted, struct rt_error *err)
{
	struct ibv_sge sge[RT_POST_LIST_MAX];
	struct ibv_send_wr wr[RT_POST_LIST_MAX], *bad;

	*posted = 0;
	if (!n)
		return 0;
	if (n > RT_POST_LIST_MAX)
		return rt_fail(err, RT_EXIT_FAIL, "internal: a list of %zu sends "
			       "(at most %d)", n, RT_POST_LIST_MAX);
	for (size_t i = 0; i < n; i++) {
		if (range_ok(b, offs[i], len, err))
			return -1;
		sge[i] = sge_of(b, offs[i], len);
		wr[i] = (struct ibv_send_wr){
			.wr_id = RT_WR_ID(RT_WR_UD_SEND, first_id + i), .sg_list = &sge[i],
			.num_sge = 1, .opcode = IBV_WR_SEND_WITH_IMM, .imm_data = to->imm_be,
			.send_flags = IBV_SEND_SIGNALED, .next = i + 1 < n ? &wr[i + 1] : NULL,
			.wr.ud = { .ah = to->ah, .remote_qpn = to->qpn, .remote_qkey = to->qkey },
		};
	}
	if (!post_send_list(r, wr, "UD SEND", &bad, err)) {
		*posted = n;
		return 0;
	}
	*posted = bad >= wr && bad < wr + n ? (size_t)(bad - wr) : 0;
	return -1;
}

const char *rt_wr_kind_str(enum rt_wr_kind k)
{
	switch (k) {
	case RT_WR_RECV:
		return "RECV";
	case RT_WR_SEND:
		return "SEND";
	case RT_WR_READ:
		return "RDMA READ";
	case RT_WR_WRITE:
		return "RDMA WRITE";
	case RT_WR_UD_SEND:
		return "UD SEND";
	}
	return "work request";
}

/* The likely cause, in the words of the test rather than of the verbs
 * spec. Providers differ in which status a too-long message produces. */
static const char *wc_hint(enum ibv_wc_status s, enum rt_wr_kind kind)
{
	bool recv = kind == RT_WR_RECV;

	switch (s) {
	case IBV_WC_RNR_RETRY_EXC_ERR:
		return " (the peer had no receive posted: does its message count match?)";
	case IBV_WC_LOC_LEN_ERR:
	case IBV_WC_LOC_QP_OP_ERR:
		return recv ? " (a message was larger than the receive buffer: "
			      "does the peer's message size match?)" : "";
	case IBV_WC_REM_OP_ERR:
	case IBV_WC_REM_INV_REQ_ERR:
		return recv ? "" : " (the peer's QP refused it: the peer went away or "
				   "failed, or the message is larger than its receive "
				   "buffer: does its message size match?)";
	case IBV_WC_REM_ACCESS_ERR:
		return " (the peer refused the remote access: bad rkey, address or length, or its process ended and its memory went with it)";
	case IBV_WC_RETRY_EXC_ERR:
		return " (the peer stopped answering: transport retries exhausted)";
	default:
		return "";
	}
}

int rt_wc_fail(const struct ibv_wc *wc, const char *peer, struct rt_error *err)
{
	int rc = rt_fail(err, RT_EXIT_FAIL, "%s: %s completion failed: %s%s",
			 peer, rt_wr_kind_str(RT_WR_KIND(wc->wr_id)),
			 ibv_wc_status_str(wc->status),
			 wc_hint(wc->status, RT_WR_KIND(wc->wr_id)));

	rt_error_event(err, ibv_wc_status_str(wc->status), wc->status);
	return rc;
}
