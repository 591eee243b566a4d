/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cmtime's protocol of rdma-core 51 and older (Debian 12): no payload and
 * no sync, only the CM. The client opens -c RC connections to the server's
 * port, then disconnects them all; the server accepts each with a small QP
 * and answers every DREQ, and ends once -c connections came and went (or
 * on --accept-timeout). */
#ifndef RDMATEST_CMTIME_V44_H
#define RDMATEST_CMTIME_V44_H

#include "rdmacm/cmtime_conn.h"

/* The server's run on a listening reactor: 0, or -1 with the run's error. */
int rt_cmt_v44_serve(struct rt_cmt_ctx *x);
/* The client's run: -c connections to ai, up, down and destroyed. */
int rt_cmt_v44_connect(struct rt_cmt_ctx *x, struct rdma_addrinfo *ai);

#endif
