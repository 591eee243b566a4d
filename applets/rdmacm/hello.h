/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#ifndef RDMATEST_HELLO_H
#define RDMATEST_HELLO_H

/* The one-message RC exchanges of rdma_client/rdma_server and
 * rdma_xclient/rdma_xserver (RC mode) on the CM reactor: one connection in
 * the TCP port space, 16-byte messages, both sides disconnect when done.
 * Payloads are 16 zero bytes as upstream sends them; a receiver checks the
 * length only (upstream's content is never initialised data to check). */

#include <stdbool.h>

#include "rdmatest/opt.h"
#include "rdmatest/run.h"

#define RT_HELLO_BYTES 16
#define RT_HELLO_PORT 7471

struct rt_hello_spec {
	const char *prog;   /* printed as upstream: "<prog>: start" */
	const char *node;   /* client: the server; server: the bind address */
	long long port;
	bool server;
	bool reply;         /* the server answers the client's message (else one
			     * message, client to server: rdma_xclient) */
	int tos;            /* client: struct rt_cm_params.tos (-1: none) */
};

/* rdma_xclient/rdma_xserver's -c: r (RC) or x (XRC, which rdmatest
 * refuses: see rt_hello_refuse_xrc). */
enum { RT_HELLO_RC, RT_HELLO_XRC };
extern const struct rt_enum rt_hello_transports[];
#define RT_OPT_ROW_XRC_CHOICE(offset)                                          \
	{ 'c', "transport", RT_OPT_ENUM, (offset), 0, 0, "r", "r|x",             \
	  "r: RC; x: XRC (refused: not implemented by rdmatest)",               \
	  rt_hello_transports }

/* -c x: a usage error naming it (exit 2); returns -1 then, else 0. */
int rt_hello_refuse_xrc(struct rt_run *run, int transport);

/* Runs one exchange; returns 0 or -1 with run->err set. */
int rt_hello_run(struct rt_run *run, const struct rt_hello_spec *spec);

#endif
