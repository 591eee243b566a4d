/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The measurement of perftest 4.5's latency tests (ib_write_lat,
 * ib_read_lat, ib_send_lat, ib_atomic_lat; perftest's *_lat.c and
 * perftest_communication.c) over one connected RC QP: each verb's
 * ping-pong in perftest's order, so that either side may be perftest 4.5, in iteration mode (-n) or duration
 * mode (-D), and the rows the results print as.
 *
 *   write: both sides RDMA-WRITE `size` bytes into the other's advertised
 *          area; the last byte carries the sender's message count (1, 2,
 *          ... modulo 256) and the receiver spins on the last byte of its
 *          own area until it holds the count it expects. The server
 *          writes first, the client waits first. With --write_with_imm
 *          the writes carry an immediate and the receiver waits for each
 *          one's receive completion instead, checks it (perftest_imm.h)
 *          and then the last byte.
 *   send:  SENDs of `size` bytes; the client sends first; receives are
 *          re-posted while more messages are due.
 *   read:  the client alone RDMA-READs `size` bytes, one at a time.
 *   atomic: as read, with 8-byte atomics on one counter of the server's,
 *          every fetched value checked (perftest_atomic.h).
 *
 * Every wait is bounded: a wait for the peer ends after --timeout without
 * progress (exit 124), at an interrupt (RT_INTERRUPTED), or when the peer
 * closes the out-of-band connection during the run (exit 1, named).
 * Memory: nothing is allocated here; a measurement is one fixed histogram
 * (perftest_report.h) whatever -n or -D is. */
#ifndef RDMATEST_PERFTEST_LAT_H
#define RDMATEST_PERFTEST_LAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "rdmatest/cqwait.h"
#include "rdmatest/error.h"
#include "perftest/perftest_atomic.h"
#include "perftest/perftest_run.h"
#include "perftest/perftest_report.h"
#include "perftest/perftest_runctl.h"

enum rt_ptl_verb { RT_PTL_WRITE, RT_PTL_READ, RT_PTL_SEND, RT_PTL_ATOMIC };

/* perftest's round-trip factor: a write or send sample is a round trip,
 * a read one READ, an atomic one atomic. */
unsigned rt_ptl_rtt_factor(enum rt_ptl_verb v);

/* -a: sizes 2^1 .. 2^23, perftest's sweep. */
#define RT_PTL_SWEEP_FIRST 2u
#define RT_PTL_SWEEP_LAST (1u << 23)

/* ---- duration mode (-D) ---------------------------------------------- */

/* perftest's three alarms: warm-up for `margin`, the sample window for
 * duration - 2 margin, cool-down for `margin`; only the window counts. */
enum rt_ptl_phase { RT_PTL_WARMUP, RT_PTL_SAMPLE, RT_PTL_COOLDOWN, RT_PTL_END };

struct rt_ptl_window {
	uint64_t start_ns, margin_ns, duration_ns;
};

enum rt_ptl_phase rt_ptl_phase_at(const struct rt_ptl_window *w, uint64_t now_ns);

/* The one duration-mode row: t_avg = window / rtt factor / iterations
 * (µs), tps = iterations per second of the window. */
struct rt_ptl_dur {
	uint64_t size, iters;
	double t_avg, tps;
};

void rt_ptl_dur_figures(struct rt_ptl_dur *d, uint64_t size, uint64_t iters,
			uint64_t window_ns, unsigned rtt_factor);
const char *rt_ptl_dur_header(void);
const char *rt_ptl_dur_header_cpu(void); /* with --cpu_util's column */
void rt_ptl_dur_row(char *buf, size_t len, const struct rt_ptl_dur *d);

/* ---- one measurement ------------------------------------------------- */

struct rt_ptl_meas {
	bool duration;
	struct rt_ptl_window win;
	uint64_t last_post_ns;  /* 0 before the first post */
	uint64_t window_iters;  /* duration: completions inside the window */
	struct rt_pt_lat lat;   /* iterations: one sample per post after the first */
	struct rt_pt_atomic_seq seq; /* atomic: the values fetched */
};

/* Resets m for one size: iteration mode when duration_ns is 0. */
void rt_ptl_meas_start(struct rt_ptl_meas *m, uint64_t duration_ns,
		       uint64_t margin_ns, uint64_t now_ns);
/* A post at now: the time since the previous post is a sample, as
 * perftest's tposted[i + 1] - tposted[i]; in duration mode only inside
 * the window (perftest keeps none there: the maximum and percentiles are
 * rdmatest's). */
uint64_t rt_ptl_on_post(struct rt_ptl_meas *m, uint64_t now_ns);
/* A completion that counts at now: in duration mode one iteration if now
 * is inside the sample window. */
void rt_ptl_on_count(struct rt_ptl_meas *m, uint64_t now_ns);

/* ---- rows beyond perftest's ------------------------------------------ */

/* The line rdmatest prints after the table for each size: the true
 * maximum and percentiles of every sample (perftest drops the two
 * largest), e.g.
 *  rdmatest: 2 B, 999 samples: max 9.61 p50 5.02 p90 5.40 p99 6.90 p99.9 9.00 p99.99 9.61 usec */
void rt_ptl_extra_line(char *buf, size_t len, uint64_t size,
		       const struct rt_pt_lat_figures *f);
/* The JSON fields of a row (rt_pt_out_row): perftest's columns under
 * their --out_json names, then rdmatest's (samples, stdev, max, p50 ...
 * p99_99); f NULL leaves rdmatest's out (fewer than 3 samples). Returns
 * the count, at most RT_PTL_FIELDS. */
#define RT_PTL_FIELDS 17
size_t rt_ptl_fields(struct rt_pt_field *out, uint64_t size, uint64_t iters,
		     const struct rt_pt_lat_figures *f);
size_t rt_ptl_dur_fields(struct rt_pt_field *out, const struct rt_ptl_dur *d,
			 const struct rt_pt_lat_figures *f);

/* ---- the data plane -------------------------------------------------- */

/* One connected RC QP and its buffers, as the applet set them up. */
struct rt_ptl_path {
	enum rt_ptl_verb verb;
	enum rt_pt_atomic atomic;  /* atomic: which one */
	bool imm;                  /* write: --write_with_imm (perftest_imm.h) */
	bool device_mem;           /* the buffers are a GPU's (perftest_gpu.h): the
				    * CPU writes no marks and checks no bytes or
				    * fetched values there */
	bool client;
	struct ibv_qp *qp;
	struct ibv_srq *srq;       /* --use-srq: receives go there; else NULL */
	struct rt_cqwait *sw, *rw; /* qp's send and receive completions (may be one) */
	uint8_t *local;            /* what is sent or read (or fetched) into: size bytes */
	volatile uint8_t *target;  /* this side's advertised area: the peer
				    * writes here (write), receives land here (send) */
	uint32_t lkey;
	uint64_t raddr;            /* the peer's advertised area */
	uint32_t rkey;
	uint32_t max_inline;       /* sizes up to this go inline (-I; 0 on rxe) */
	unsigned cq_mod;           /* send: every cq_mod-th send is signalled */
	unsigned rx_depth;         /* send, imm: receives posted ahead (>= 1) */
	int oob_fd;                /* the peer's close of it names a dead peer; -1 */
	struct ibv_ah *ah;         /* UD: the peer's address handle, else NULL */
	uint32_t remote_qpn;       /* UD: the peer's QP */
	uint32_t grh;              /* UD: bytes in front of a receive (40), else 0 */
	unsigned gap_us;           /* --latency_gap: spin this long before each post */
	struct rt_pt_samples *samples; /* -H/-U: every sample kept, or NULL */
	struct rt_pt_cpu_mark *cpu;    /* --cpu_util with -D, or NULL */
	long long timeout_ms;      /* --timeout: longest wait without progress */
	const char *peer;          /* for messages */
};

/* What one size's run is. */
struct rt_ptl_plan {
	uint64_t size, iters;      /* iters: -n (iteration mode) */
	uint64_t duration_ns, margin_ns; /* -D, -f; 0: iteration mode */
};

/* send and write with immediate: the receives of one size (min(rx_depth,
 * iters); rx_depth in duration mode), posted before the barrier that lets
 * the peer send. */
int rt_ptl_post_receives(const struct rt_ptl_path *p, const struct rt_ptl_plan *plan,
			 struct rt_error *err);
/* Runs one size. 0, -1 with err set, or RT_INTERRUPTED. m holds the
 * result. */
int rt_ptl_run(const struct rt_ptl_path *p, const struct rt_ptl_plan *plan,
	       struct rt_ptl_meas *m, struct rt_error *err);

/* ---- the tests' sequences (applets/perftest/perftest_lat_run.c) ------------------- */

/* The sessions of rt_pt_main (perftest_conn.h), each perftest 4.5's
 * message sequence of its test around rt_ptl_run:
 *   write: barrier; keys; RTR/RTS; keys; barrier; the sizes; no close
 *          exchange (perftest has none).
 *   read:  as write up to the last barrier; then the server closes at
 *          once (it waits in the close for the client's whole run, bounded
 *          by --timeout plus the run's allowance, a dead client found by
 *          its close or TCP keepalive), the client runs the sizes and
 *          closes.
 *   send:  keys; RTR/RTS; barrier; keys; per size: receives, barrier, run;
 *          close. */
int rt_ptl_write_session(struct rt_pt_conn *c, struct rt_pt_out *o);
int rt_ptl_read_session(struct rt_pt_conn *c, struct rt_pt_out *o);
int rt_ptl_send_session(struct rt_pt_conn *c, struct rt_pt_out *o);

/* -q in a latency table: perftest's latency tests run one QP (and refuse
 * -q); the row keeps the letter from meaning --quiet. */
#define RT_PTL_OPT_QP \
	{ 'q', "qp", RT_OPT_INT, RT_L(qps), 1, 1, "1", "N", \
	  "number of QPs: one in the latency tests, as in perftest", NULL }

/* RT_PT_APPLET for a latency test (perftest_opts.c refuses what these
 * tests do not take). */
#define RT_PTL_APPLET(n, verb, session, summary_, synopsis_, description_) \
	RT_PT_APPLET(n, verb, RT_PT_LAT, session, summary_, synopsis_, description_)

#endif
