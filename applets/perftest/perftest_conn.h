/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The skeleton every ib_{send,write,read}_{bw,lat} applet runs on: the
 * connection as perftest 4.5 makes it (perftest's perftest_communication.c,
 * establish_connection), its printed information block and address lines
 * (perftest_parameters.c, ctx_print_test_info; ctx_print_pingpong_data), the result rows on stdout,
 * in --json and in --out_json, and the -w/-y thresholds.
 *
 * API for a test (one function per test kind, rt_pt_session_fn):
 *   rt_pt_main() (perftest_run.h) parses nothing itself: the applet's
 *   table filled a struct rt_pt_cfg; rt_pt_main checks it
 *   (perftest_opts.h), handles -h and -V, opens the connection up to INIT (rt_pt_conn_open: device,
 *   out-of-band channel, version/page/cache line/MTU handshake, one MR,
 *   Q QPs in INIT, this side's key records), prints the banner and the
 *   information block, then calls the test's session, which walks the
 *   test's own message sequence with rt_pt_conn_keys (all Q records each
 *   way), rt_pt_conn_up (RTR, and RTS when asked), rt_pt_conn_barrier (a
 *   repeated QP 0 record) and rt_pt_conn_close (the close exchange), and
 *   reports rows through rt_pt_out_* (struct rt_pt_out, perftest_run.h). Errors set
 *   run->err and return -1; rt_pt_main cleans up whatever was built.
 *
 * Memory: one buffer of 2 × Q slots (heap, huge pages or a mapped file,
 * one MR or one per QP: perftest_res.h), a slot being
 * round_up(max(size, page), cache line) with the negotiated page and
 * cache line, at most RT_PT_MAX_BUF bytes (a peer announcing a page that
 * would exceed it is refused; and at most half the host's memory, exit
 * 3); key arrays of Q records; -W's counters and -H/-U's samples as
 * perftest_runctl.h bounds them (the rows: perftest_run.h). */
#ifndef RDMATEST_PERFTEST_CONN_H
#define RDMATEST_PERFTEST_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "rdmatest/cqwait.h"
#include "rdmatest/json.h"
#include "rdmatest/oob.h"
#include "perftest/perftest_wire.h"
#include "perftest/perftest_dual.h"
#include "perftest/perftest_opts.h"
#include "perftest/perftest_runctl.h"
#include "rdmatest/res.h"
#include "rdmatest/run.h"
#include "rdmatest/vconn.h"

struct rt_pt_cm; /* perftest_cm.h */

struct rt_pt_conn {
	struct rt_run *run;
	const struct rt_pt_params *p;
	bool client;              /* the test's client: it sends (--reversed swaps it) */
	bool chan_client;         /* HOST given: connects, writes first on the channel */
	struct rt_vdev d;
	struct rt_pt_chan ch;     /* TCP, or with -R the RDMA CM */
	struct rt_vqp_spec spec;  /* shared values; the peer's per QP at rt_pt_conn_up */
	struct rt_pt_dual dual;   /* -O: port 2 (perftest_dual.h) */
	bool gid_auto;            /* the GID was chosen, not given with -x */
	bool gid;                 /* 108-byte key records (a GID is used) */
	struct rt_pt_sys sys;     /* after the handshake: the agreed values */
	unsigned out_reads;       /* this side's: 1, or -o / the device's for read */
	unsigned max_inline;
	uint16_t pkey_index;      /* --pkey_index in force (perftest_res.h) */
	struct rt_res res;        /* owns the CQs (-e: each on its channel),
				   * QPs and buffer below */
	struct ibv_cq *scq, *rcq; /* res's */
	struct rt_cqwait sw, rw;  /* bounded by --timeout */
	struct ibv_qp **qp;       /* res's p->opt.qps */
	struct ibv_mr *mr;        /* mem's first (the only one without --mr_per_qp) */
	struct rt_pt_mem mem;     /* the buffer's memory and MRs (perftest_res.h) */
	uint8_t *buf;             /* 2 × Q slots: send halves, then targets
				   * (--mr_per_qp: each QP's two side by side) */
	uint64_t slot, buf_size;
	struct ibv_mr *null_mr;   /* --use-null-mr's, or NULL */
	struct ibv_td *td;        /* --no_lock's thread domain, or NULL */
	struct ibv_pd *pad;       /* --no_lock's parent domain: the QPs' PD */
	uint8_t *payload;         /* --payload_file_path's pattern, or NULL */
	size_t payload_len;
	struct rt_pt_key *mine, *theirs; /* p->opt.qps each */
	struct rt_pt_cm *cm;      /* -R: the QPs' CM connections, else NULL */
	struct ibv_ah **ah;       /* UD sending sides: one per QP (perftest_ud.h) */
	bool pace_sw;             /* the software rate limiter paces the sends */
	double cpu_util;          /* --cpu_util with -D: the last run's, in % */
	char name[96];            /* "RDMA_Write BW Test" */
};

/* Local send area and advertised target area of QP i, and the MR that
 * holds both. */
static inline uint8_t *rt_pt_conn_local(const struct rt_pt_conn *c, unsigned i)
{
	if (c->p->opt.res.mr_per_qp)
		return c->buf + 2ull * i * c->slot;
	return c->buf + (uint64_t)i * c->slot;
}
static inline uint8_t *rt_pt_conn_target(const struct rt_pt_conn *c, unsigned i)
{
	if (c->p->opt.res.mr_per_qp)
		return c->buf + (2ull * i + 1) * c->slot;
	return c->buf + ((uint64_t)c->p->opt.qps + i) * c->slot;
}
static inline struct ibv_mr *rt_pt_conn_mr(const struct rt_pt_conn *c, unsigned i)
{
	return c->mem.mrs[c->p->opt.res.mr_per_qp ? i : 0];
}

/* The lkey of what QP i posts from its local area: --use-null-mr's on
 * the sending side. */
static inline uint32_t rt_pt_conn_send_lkey(const struct rt_pt_conn *c, unsigned i)
{
	return c->null_mr ? c->null_mr->lkey : rt_pt_conn_mr(c, i)->lkey;
}

/* Device, port, out-of-band channel (the server prints perftest's
 * waiting banner and waits --accept-timeout; the client retries a refused
 * connect for --wait-server, or --timeout when that is 0), the handshake,
 * the buffer and Q QPs in INIT with perftest's attributes. With -R the
 * QPs are then connected with the RDMA CM (perftest_cm.h) between two
 * barriers, where perftest 4.5 does it: the server listens before the
 * first, the client connects after it, and both are in RTS at the
 * second; their records carry the send PSNs the CM chose. */
int rt_pt_conn_open(struct rt_pt_conn *c, struct rt_run *run,
		    struct rt_pt_params *p);
/* Q key records each way, in QP order; the first call fills c->theirs
 * (later ones must repeat it, as perftest repeats them). */
int rt_pt_conn_keys(struct rt_pt_conn *c, const char *step);
/* One record each way that must be the peer's QP 0 (a barrier). Before
 * any rt_pt_conn_keys it is taken as it comes. */
int rt_pt_conn_barrier(struct rt_pt_conn *c, const char *step);
/* Every QP to RTR with the peer's records, and to RTS when rts (perftest
 * leaves a BW server's QPs in RTR). With -R nothing: the CM did it. Then
 * (rts: a sending side) UD's address handles and the HW rate limit
 * (perftest_ud.h). */
int rt_pt_conn_up(struct rt_pt_conn *c, bool rts);
/* An idle side's wait for the peer's next message (the end of a run it
 * does not take part in, which may last long: -a, -D, a large -n): until
 * max_ms (-1: no fixed bound) as long as the peer lives. Liveness on TCP
 * is keepalive: probes once a second after --timeout / 2 of silence, so
 * a dead peer host ends the wait within about --timeout, a dead process
 * at once (its close); over the CM it is the connection's disconnect.
 * Expiry is exit 124. The message itself is read next
 * (rt_pt_conn_barrier), with its own bound. */
int rt_pt_conn_await_peer(struct rt_pt_conn *c, long long max_ms,
			  const char *what);
/* The close: a barrier, "done", the peer's close (perftest_wire.h). */
int rt_pt_conn_close(struct rt_pt_conn *c);
void rt_pt_conn_destroy(struct rt_pt_conn *c);

#endif
