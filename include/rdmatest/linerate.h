/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A port's line rate and the most RDMA payload it can carry: from the
 * speed and width a port reports, its link layer and the MTU in use, the
 * signalling rate, the data rate after line coding, and the RDMA WRITE
 * payload rate once every packet's headers are paid. Arithmetic only (no
 * verbs call), so that doctor, mesh and the tests share one set of
 * figures; where each number comes from is said in core/linerate.c. */
#ifndef RDMATEST_LINERATE_H
#define RDMATEST_LINERATE_H

#include <stdbool.h>

/* The speed codes of ibv_port_attr.active_speed (active_speed_ex for
 * XDR, which does not fit its 8 bits), the kernel's enum ib_port_speed. */
enum rt_port_speed {
	RT_SPEED_SDR = 1, RT_SPEED_DDR = 2, RT_SPEED_QDR = 4, RT_SPEED_FDR10 = 8,
	RT_SPEED_FDR = 16, RT_SPEED_EDR = 32, RT_SPEED_HDR = 64, RT_SPEED_NDR = 128,
	RT_SPEED_XDR = 256,
};

/* The width codes of ibv_port_attr.active_width (enum ib_port_width). */
enum rt_port_width {
	RT_WIDTH_1X = 1, RT_WIDTH_4X = 2, RT_WIDTH_8X = 4, RT_WIDTH_12X = 8,
	RT_WIDTH_2X = 16,
};

/* The fastest port there is, 12X XDR: a bound for figures a peer sends. */
#define RT_LINERATE_MAX_GBPS 2400.0

struct rt_linerate {
	const char *speed;   /* "SDR" ... "XDR" */
	unsigned lanes;      /* 1, 2, 4, 8 or 12 */
	bool ethernet;       /* RoCE v2: Ethernet's headers and coding */
	unsigned mtu;        /* the IB MTU the payload figure is for, bytes (0: none) */
	double nominal_gbps; /* what the kernel's rate file says: "400 Gb/sec" */
	double signal_gbps;  /* the bits on the wire, all lanes */
	double data_gbps;    /* after line coding and FEC */
	double payload_gbps; /* the most RDMA WRITE payload at `mtu` */
};

/* The figures for a port of `speed` and `width` codes carrying RoCE v2
 * (`ethernet`) or InfiniBand at IB MTU `mtu` (256 to 4096 bytes; 0: the
 * MTU is not known, payload_gbps is 0). -1 for a code or MTU it does not
 * know; *r is then zeroed. */
int rt_linerate_of(unsigned speed, unsigned width, bool ethernet, unsigned mtu,
		   struct rt_linerate *r);
/* The most RDMA WRITE payload a link of `data_gbps` carries at IB MTU
 * `mtu`: the share of each packet that is payload. */
double rt_linerate_payload(double data_gbps, bool ethernet, unsigned mtu);
/* The speed and width codes from sysfs' ports/N/rate, "400 Gb/sec (4X
 * NDR)" (the kernel's rate_show). -1 when it is not of that form. */
int rt_linerate_parse(const char *rate, unsigned *speed, unsigned *width);

#endif
