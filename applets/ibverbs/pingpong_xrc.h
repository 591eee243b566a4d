/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ibv_xsrq_pingpong's wire (rdma-core v44, libibverbs/examples/xsrq_pingpong.c): per
 * client one 66-byte text record each way, "LLLL:RRRRRR:SSSSSS:PPPPPP:
 * NNNNNN:<GID>" (LID, receive (TGT) QPN, send (INI) QPN, PSN, XRC SRQ
 * number, the GID's 16 bytes as 32 hex digits) and a NUL; the client writes
 * first, the server reads, writes, then connects. At the end the 4-byte
 * "END\0": the client sends it and waits for the server's; the server
 * takes every client's before answering them all.
 *
 * Memory: the session holds per client one record, two QPs and one TCP
 * connection, for at most RT_PP_XRC_MAX_CLIENTS clients. */
#ifndef RDMATEST_PINGPONG_XRC_H
#define RDMATEST_PINGPONG_XRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "rdmatest/error.h"
#include "rdmatest/oob.h"

#define RT_PP_XRC_REC_LEN 66
#define RT_PP_XRC_END_LEN 4
#define RT_PP_XRC_MAX_CLIENTS 1024

struct rt_pp_xrc_dest {
	uint16_t lid;
	uint32_t recv_qpn, send_qpn, psn, srqn; /* 24 bits each */
	union ibv_gid gid;
};

void rt_pp_xrc_rec_encode(char out[RT_PP_XRC_REC_LEN], const struct rt_pp_xrc_dest *d);
/* Untrusted bytes: exactly 66, the layout above; a bad record is exit 1
 * naming the field and `who`. */
int rt_pp_xrc_rec_decode(const char *in, size_t len, struct rt_pp_xrc_dest *d,
			 const char *who, struct rt_error *err);
/* Upstream's address line: "   local: LID 0001, QPN RECV 000012 SEND
 * 000013, PSN 0abcde, SRQN 000020, GID ::" (who right-aligned in 8). */
void rt_pp_xrc_addr_line(char *buf, size_t len, const char *who,
			 const struct rt_pp_xrc_dest *d);

/* One client's record exchange, in upstream's order; connect is called
 * with the peer's record once it is read (the server's after it wrote
 * its own). */
typedef int rt_pp_xrc_connect_fn(void *arg, const struct rt_pp_xrc_dest *theirs,
				 struct rt_error *err);
int rt_pp_xrc_exchange(struct rt_oob *o, bool client, const struct rt_pp_xrc_dest *mine,
		       rt_pp_xrc_connect_fn *connect, void *arg, struct rt_error *err);
/* The end marker, both ways. */
int rt_pp_xrc_end_send(struct rt_oob *o, struct rt_error *err);
int rt_pp_xrc_end_recv(struct rt_oob *o, struct rt_error *err);

/* True when the device can do XRC (IBV_DEVICE_XRC); exit 3 naming XRC
 * and the device otherwise. */
int rt_pp_xrc_capable(struct ibv_context *ctx, const char *dev, struct rt_error *err);

struct rt_run;

/* The options as given; the applet's option table writes into it
 * directly (field names as pingpong_opts.h expects). */
struct rt_pp_xrc_params {
	const char *server, *dev;
	long long port, ib_port, size, clients, tests, sl, gid_index;
	int mtu, events, odp;
};

/* The file ibv_open_xrcd ties the run's XRC domain to: an anonymous
 * memory file (memfd), close-on-exec, -1 with errno on failure. Upstream
 * opens /tmp/xrc_domain with O_CREAT, following whatever link another
 * user planted there; a file without a name cannot be planted. The
 * kernel keys a domain on the file's inode, so upstream's processes on
 * one host share a domain; a run needs none shared, each side's QPs
 * meeting over the wire. */
int rt_pp_xrc_domain_fd(void);

/* The whole run of ibv_xsrq_pingpong (applets/ibverbs/pingpong_xrc_run.c). */
int rt_pp_xrc_session(struct rt_run *run, const struct rt_pp_xrc_params *p);

#endif
