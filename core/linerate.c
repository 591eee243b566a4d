/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <stdio.h>
#include <string.h>

#include "rdmatest/linerate.h"

/*
 * One lane of each speed, in Gb/s.
 * nominal: the kernel's drivers/infiniband/core/sysfs.c rate_show (25, 50,
 *   100, 100, 140, 250, 500, 1000, 2000 tenths of Gb/s a lane).
 * signal: rdma-core's ibv_rate_to_mbps (libibverbs/verbs.c), which gives
 *   the signalling rates: 14062 for FDR, 25781 EDR, 53125 HDR, 425000 for
 *   4X NDR, 850000 for 4X XDR; FDR10 is 10.3125, 10GBASE-R's lane.
 * data: after line coding. SDR, DDR and QDR use 8b/10b (IBTA vol. 2:
 *   4X QDR is "40 Gb/s" signalling, 32 of data); FDR10, FDR and EDR
 *   64b/66b; HDR, NDR and XDR PAM4 with RS(544,514) FEC and 256b/257b
 *   transcoding, IEEE 802.3 clause 91/134's: 53.125 x 514/544 x 256/257
 *   is exactly 50, so their data rate is the nominal one.
 */
struct lane {
	unsigned code;
	const char *name;
	double nominal, signal, data;
};

static const struct lane lanes[] = {
	{ RT_SPEED_SDR, "SDR", 2.5, 2.5, 2.0 },
	{ RT_SPEED_DDR, "DDR", 5.0, 5.0, 4.0 },
	{ RT_SPEED_QDR, "QDR", 10.0, 10.0, 8.0 },
	{ RT_SPEED_FDR10, "FDR10", 10.0, 10.3125, 10.0 },
	{ RT_SPEED_FDR, "FDR", 14.0, 14.0625, 14.0625 * 64 / 66 },
	{ RT_SPEED_EDR, "EDR", 25.0, 25.78125, 25.0 },
	{ RT_SPEED_HDR, "HDR", 50.0, 53.125, 50.0 },
	{ RT_SPEED_NDR, "NDR", 100.0, 106.25, 100.0 },
	{ RT_SPEED_XDR, "XDR", 200.0, 212.5, 200.0 },
};

/*
 * Bytes each packet costs beyond its payload, the RETH of a WRITE's first
 * packet left out (16 bytes a message: under 0.03 % at 64 KiB), so that
 * the payload figure is the bound a long transfer tends to.
 * InfiniBand (IBTA vol. 1, ch. 7 and 9): LRH 8, BTH 12, ICRC 4, VCRC 2;
 *   no GRH (40) within a subnet; the start and end delimiters and the
 *   flow-control packets are left out too, so the figure is an upper one.
 * RoCE v2 (IBTA vol. 1 annex A17 over IEEE 802.3): preamble and SFD 8,
 *   MAC header 14, FCS 4, the minimum inter-packet gap 12; IPv4 20, UDP 8,
 *   BTH 12, ICRC 4. An 802.1Q tag would add 4: untagged is the bound.
 */
#define IB_PACKET_BYTES (8 + 12 + 4 + 2)
#define ROCE_PACKET_BYTES (8 + 14 + 4 + 12 + 20 + 8 + 12 + 4)

static const struct lane *lane_of(unsigned speed)
{
	for (size_t i = 0; i < sizeof(lanes) / sizeof(lanes[0]); i++)
		if (lanes[i].code == speed)
			return &lanes[i];
	return NULL;
}

static unsigned lanes_of(unsigned width)
{
	switch (width) {
	case RT_WIDTH_1X: return 1;
	case RT_WIDTH_2X: return 2;
	case RT_WIDTH_4X: return 4;
	case RT_WIDTH_8X: return 8;
	case RT_WIDTH_12X: return 12;
	}
	return 0;
}

static bool ib_mtu(unsigned mtu)
{
	return mtu >= 256 && mtu <= 4096 && !(mtu & (mtu - 1));
}

double rt_linerate_payload(double data_gbps, bool ethernet, unsigned mtu)
{
	unsigned hdr = ethernet ? ROCE_PACKET_BYTES : IB_PACKET_BYTES;

	return mtu ? data_gbps * mtu / (mtu + hdr) : 0;
}

/* Ethernet's speeds are MAC data rates, and a RoCE port reports the IB
 * speed whose nominal rate is its Ethernet speed (mlx5: 400GbE is 4X NDR,
 * 100GbE 4X EDR, 25GbE 1X EDR). Its lanes carry 64b/66b up to 25G and
 * PAM4 with RS(544,514) from 50G (IEEE 802.3 clauses 82, 107, 134). */
static void ethernet_rates(const struct lane *l, unsigned n, struct rt_linerate *r)
{
	r->data_gbps = l->nominal * n;
	r->signal_gbps = r->data_gbps * (l->nominal >= 50 ? 1.0625 : 66.0 / 64);
}

int rt_linerate_of(unsigned speed, unsigned width, bool ethernet, unsigned mtu,
		   struct rt_linerate *r)
{
	const struct lane *l = lane_of(speed);
	unsigned n = lanes_of(width);

	memset(r, 0, sizeof(*r));
	if (!l || !n || (mtu && !ib_mtu(mtu)))
		return -1;
	r->speed = l->name;
	r->lanes = n;
	r->ethernet = ethernet;
	r->mtu = mtu;
	r->nominal_gbps = l->nominal * n;
	r->signal_gbps = l->signal * n;
	r->data_gbps = l->data * n;
	if (ethernet)
		ethernet_rates(l, n, r);
	r->payload_gbps = rt_linerate_payload(r->data_gbps, ethernet, mtu);
	return 0;
}

static unsigned width_code(unsigned lanes)
{
	switch (lanes) {
	case 1: return RT_WIDTH_1X;
	case 2: return RT_WIDTH_2X;
	case 4: return RT_WIDTH_4X;
	case 8: return RT_WIDTH_8X;
	case 12: return RT_WIDTH_12X;
	}
	return 0;
}

int rt_linerate_parse(const char *rate, unsigned *speed, unsigned *width)
{
	const char *open = rate ? strchr(rate, '(') : NULL;
	char name[8], close = 0;
	unsigned n = 0;

	*speed = *width = 0;
	if (!open || sscanf(open, "(%2uX %7[A-Z0-9]%c", &n, name, &close) != 3 ||
	    close != ')')
		return -1;
	for (size_t i = 0; i < sizeof(lanes) / sizeof(lanes[0]); i++)
		if (!strcmp(lanes[i].name, name))
			*speed = lanes[i].code;
	*width = width_code(n);
	if (!*speed || !*width)
		return *speed = *width = 0, -1;
	return 0;
}
