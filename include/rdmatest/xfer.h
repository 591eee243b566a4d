/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Posting work requests and judging completions. Every completion's
 * status is checked; a failure names the status and the operation. */
#ifndef RDMATEST_XFER_H
#define RDMATEST_XFER_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "rdmatest/error.h"
#include "rdmatest/res.h"

/* Posting functions put the operation's kind in the top byte of wr_id
 * (the caller's value keeps the low 56 bits), so a failed completion, whose
 * opcode field is undefined, can still be named. */
enum rt_wr_kind { RT_WR_RECV = 1, RT_WR_SEND, RT_WR_READ, RT_WR_WRITE, RT_WR_UD_SEND };
#define RT_WR_ID(kind, n) (((uint64_t)(kind) << 56) | ((uint64_t)(n) & ((1ULL << 56) - 1)))
#define RT_WR_KIND(wr_id) ((enum rt_wr_kind)((wr_id) >> 56))
#define RT_WR_N(wr_id) ((wr_id) & ((1ULL << 56) - 1))

int rt_post_recv(struct rt_res *r, struct rt_buf *b, size_t off, size_t len,
		 uint64_t wr_id, struct rt_error *err);
int rt_post_send(struct rt_res *r, struct rt_buf *b, size_t off, size_t len,
		 uint64_t wr_id, bool signaled, struct rt_error *err);
/* RDMA READ or WRITE between the local buffer and (raddr, rkey). */
int rt_post_rdma(struct rt_res *r, enum ibv_wr_opcode op, struct rt_buf *b,
		 size_t off, size_t len, uint64_t raddr, uint32_t rkey,
		 uint64_t wr_id, struct rt_error *err);
/* Where UD sends go, and the immediate data they carry. */
struct rt_ud_dest {
	struct ibv_ah *ah;
	uint32_t qpn, qkey;
	uint32_t imm_be;
};
/* Work requests one post may chain (so its arrays live on the stack). */
#define RT_POST_LIST_MAX 16
/* n signalled UD SEND_WITH_IMMs to `to` in one post, a single doorbell (a
 * system call on rxe): datagram i is len bytes at offs[i], its wr_id
 * first_id + i. *posted is how many went out, on failure too (those
 * before the one the provider refused). */
int rt_post_ud_sends(struct rt_res *r, struct rt_buf *b, const size_t *offs,
		     size_t n, size_t len, const struct rt_ud_dest *to,
		     uint64_t first_id, size_t *posted, struct rt_error *err);

const char *rt_wr_kind_str(enum rt_wr_kind k);
/* Records a failed completion: "<peer>: RECV completion: <status> (hint)". */
int rt_wc_fail(const struct ibv_wc *wc, const char *peer, struct rt_error *err);

#endif
