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
/* UD SEND_WITH_IMM to (ah, qpn, qkey). */
int rt_post_ud_send(struct rt_res *r, struct rt_buf *b, size_t off,
		    size_t len, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey,
		    uint32_t imm_be, uint64_t wr_id, bool signaled,
		    struct rt_error *err);

const char *rt_wr_kind_str(enum rt_wr_kind k);
/* Records a failed completion: "<peer>: RECV completion: <status> (hint)". */
int rt_wc_fail(const struct ibv_wc *wc, const char *peer, struct rt_error *err);

#endif
