/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One pair's test of a mesh run over the RDMA CM (cm.h), the callback
 * rt_mesh_follow runs for every assignment (meshrun.h):
 *   listen   a listener on the rank's own port for one connection; it
 *            echoes every message until the partner disconnects
 *   connect  connects to the partner's host and port (a refusal is
 *            retried while the partner's listener comes up), times the
 *            connection's setup, sends `pings` messages of 8 bytes one at
 *            a time and times each echo (the sequence number must come
 *            back), then disconnects: connect time, RTT median and p99
 *   bandwidth (bw_bytes > 0, the same on every rank) after the pings: the
 *            connecting side RDMA WRITEs bw_bytes in RT_MESH_BW_CHUNK
 *            pieces, RT_MESH_BW_WINDOW at a time, into a window of the
 *            listener's memory that its echoes advertised, then RDMA
 *            READs bw_bytes from that window the same way: both
 *            directions, each timed by the connecting side alone, Mbit/s
 *            from the first post to the last completion (the result's
 *            mbps is the reads', listener to connector, mbps_rev the
 *            writes'; the connecting side is the result's b). Reads in
 *            flight are bounded by the devices' RDMA READ depth too.
 *            Both ways (RT_MESH_ASSIGN_BOTH_WAYS, --pattern bisection):
 *            the writes and the reads go at once, half the window each,
 *            both timed from the one start, so that each direction of
 *            the link carries traffic while the other does; on a GPU the
 *            window's first chunk is read once more after both, and that
 *            is what the data check reads
 *   rails    with rails in the assignment, all of them at once: the
 *            connecting side runs each rail in a reactor on a thread of
 *            its own (one thread in all with --gpu, whose driver context
 *            is the opening thread's), starting its connections from its
 *            own address on the rail (its hello's) to the partner's, each
 *            running the pings and the bandwidth above on its own; a rail
 *            that fails does not end the others; one result a rail. The
 *            listener, whose CPU moves no byte of the bandwidth, takes
 *            every connection on its one wildcard listener in one
 *            reactor and ends when all of them ended
 *   qps      (--qps) each rail opens qps connections, all at once; the
 *            rail's result is theirs together: every round trip, the
 *            bytes over the span from the first start to the last end,
 *            the slowest set-up, the first connection's counters; one
 *            that fails fails the rail
 *   incast   a listener takes the connections of every partner the
 *            assignment counts (its conns), each with its own window
 *   counters each side reads its own port's counters (portctr.h, meshctr.h)
 *            before the connection's traffic (the listener when the
 *            request comes, the connecting side once established) and
 *            after it (the connecting side when its figures are in, then
 *            its final ping RT_MESH_SEQ_FINAL; the listener when that
 *            ping comes, answering with its rises); the connecting side's
 *            result carries both ends' rises, a failed one too. A rail
 *            whose listener does not answer keeps its figures and its
 *            own end's rises
 * A reactor per test: nothing of one pair is left for the next. Each
 * test, listen or connect, ends within timeout_ms whatever the partner
 * does, so rank 0's round bound is 2 x timeout_ms plus a margin.
 * Memory: one latency histogram (58 KiB) and two readings of the port's
 * counters (16 KiB) a connection, and a reactor per test (a rail's
 * thread each); with bandwidth a chunk to send (64 KiB) and the window to
 * receive (1 MiB) a connection: at most RT_MESH_TEST_CONNS (64) of them
 * at either end, at most RT_MESH_RAILS_MAX threads. */
#ifndef RDMATEST_MESHTEST_H
#define RDMATEST_MESHTEST_H

#include <stddef.h>
#include <stdint.h>

#include "rdmatest/log.h"
#include "mesh/meshrun.h"

#define RT_MESH_PINGS_MAX 1000000u
#define RT_MESH_BW_CHUNK (64u << 10)
#define RT_MESH_BW_WINDOW 16u

struct rt_mesh_gpu;
struct rt_mesh_cm_test {
	unsigned port;         /* this rank's listening port (its hello's) */
	unsigned pings;        /* RTT samples per pair, >= 1 */
	uint64_t bw_bytes;     /* bytes written per pair, 0: no bandwidth */
	long long timeout_ms;  /* one test, all of it */
	/* the connections' type of service (RoCE v2: the IP TOS byte; the
	 * GRH's traffic class over verbs), -1: the CM's and the device's
	 * default */
	int tos;
	struct rt_log *log;
	/* this rank's rails (its hello's): the local address of each rail an
	 * assignment names */
	const struct rt_mesh_rail *rails;
	unsigned nrails;
	const char *sysfs;     /* "/sys": where the ports' counters are */
	/* mesh --gpu: the rails' GPU buffers (meshgpu.h) that bandwidth
	 * uses; NULL: host memory */
	struct rt_mesh_gpu *gpu;
};

/* The pair test's message: the ping's sequence number, and in the
 * listener's echoes its bandwidth window (address, rkey; 0 without one),
 * three 8-byte words in host order. */
#define RT_MESH_MSG_LEN 24u
/* The connecting side's last ping, once its figures are in: the
 * listener answers it with its port's rises (rt_mesh_ctr_msg_take). */
#define RT_MESH_SEQ_FINAL UINT64_MAX
#define RT_MESH_CTR_MSG_LEN (8u + RT_MESH_CTR_WIRE)
struct rt_mesh_echo {
	uint64_t seq;
	uint64_t raddr; /* 0: no window offered */
	uint32_t rkey;
};
/* Judges a message the partner sent, msg[0..len) as received: 0 with its
 * fields in *m, or -1 with the reason in why (len bytes, at most
 * RT_MESH_MSG_LEN read) when it is not RT_MESH_MSG_LEN bytes long or, on
 * the connecting side (want: the ping in flight; NULL on the listener's),
 * echoes another ping. */
int rt_mesh_echo_take(const uint8_t *msg, size_t len, const uint64_t *want,
		      struct rt_mesh_echo *m, char *why, size_t why_len);

/* Judges the listener's answer to the final ping, msg[0..len) as
 * received: 0 with its rises in *ctr (end a only, its packets sent at
 * most), or -1 with the reason in why. */
struct rt_mesh_ctrs;
int rt_mesh_ctr_msg_take(const uint8_t *msg, size_t len, struct rt_mesh_ctrs *ctr,
			 char *why, size_t why_len);

/* A measured result: status ok, the set-up time and the RTT median and
 * p99 of h. */
struct rt_hist;
void rt_mesh_result_rtt(struct rt_mesh_result *r, const struct rt_hist *h, uint64_t conn_ns);

/* rt_mesh_test_fn: ctx is a struct rt_mesh_cm_test. */
void rt_mesh_cm_test_run(void *ctx, const struct rt_mesh_assign *a,
			 uint32_t self, struct rt_mesh_result *r);

#endif
