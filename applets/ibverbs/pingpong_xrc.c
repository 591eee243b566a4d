/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "ibverbs/pingpong.h"
#include "ibverbs/pingpong_xrc.h"

void rt_pp_xrc_rec_encode(char out[RT_PP_XRC_REC_LEN], const struct rt_pp_xrc_dest *d)
{
	int n = snprintf(out, RT_PP_XRC_REC_LEN, "%04x:%06x:%06x:%06x:%06x:", d->lid,
			 d->recv_qpn & 0xffffff, d->send_qpn & 0xffffff,
			 d->psn & 0xffffff, d->srqn & 0xffffff);

	for (int i = 0; i < 16 && n >= 0; i++)
		n += snprintf(out + n, RT_PP_XRC_REC_LEN - (size_t)n, "%02x", d->gid.raw[i]);
}

/* The digits from `at` to the next ':' (or `n` of them) as a number;
 * -1 when one is not a hex digit. */
static long long hex_at(const char *in, size_t at, size_t n)
{
	long long v = 0;

	for (size_t i = at; i < at + n; i++) {
		unsigned char c = (unsigned char)in[i];

		if (!isxdigit(c))
			return -1;
		v = v * 16 + (isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
	}
	return v;
}

int rt_pp_xrc_rec_decode(const char *in, size_t len, struct rt_pp_xrc_dest *d,
			 const char *who, struct rt_error *err)
{
	static const struct { size_t at, n; const char *name; } f[] = {
		{ 0, 4, "LID" }, { 5, 6, "receive QPN" }, { 12, 6, "send QPN" },
		{ 19, 6, "PSN" }, { 26, 6, "SRQ number" },
	};
	long long v[5];

	if (len != RT_PP_XRC_REC_LEN)
		return rt_fail(err, RT_EXIT_FAIL, "%s: XRC address record of %zu bytes, "
			       "want %d", who, len, RT_PP_XRC_REC_LEN);
	for (size_t i = 0; i < 5; i++)
		if (in[f[i].at + f[i].n] != ':')
			return rt_fail(err, RT_EXIT_FAIL, "%s: XRC address record is not "
				       "LID:RQPN:SQPN:PSN:SRQN:GID (separators)", who);
	if (in[RT_PP_XRC_REC_LEN - 1] != '\0')
		return rt_fail(err, RT_EXIT_FAIL, "%s: XRC address record does not end "
			       "in a NUL", who);
	for (size_t i = 0; i < 5; i++)
		if ((v[i] = hex_at(in, f[i].at, f[i].n)) < 0)
			return rt_fail(err, RT_EXIT_FAIL, "%s: XRC address record: %s is "
				       "not %zu hex digits", who, f[i].name, f[i].n);
	for (size_t i = 0; i < 16; i++) {
		long long g = hex_at(in, 33 + 2 * i, 2);

		if (g < 0)
			return rt_fail(err, RT_EXIT_FAIL, "%s: XRC address record: GID "
				       "is not 32 hex digits", who);
		d->gid.raw[i] = (uint8_t)g;
	}
	d->lid = (uint16_t)v[0];
	d->recv_qpn = (uint32_t)v[1];
	d->send_qpn = (uint32_t)v[2];
	d->psn = (uint32_t)v[3];
	d->srqn = (uint32_t)v[4];
	return 0;
}

void rt_pp_xrc_addr_line(char *buf, size_t len, const char *who,
			 const struct rt_pp_xrc_dest *d)
{
	char gid[64];

	rt_pp_gid_str(&d->gid, gid, sizeof(gid));
	snprintf(buf, len, "%8s: LID %04x, QPN RECV %06x SEND %06x, PSN %06x, SRQN %06x, "
		 "GID %s", who, d->lid, d->recv_qpn, d->send_qpn, d->psn, d->srqn, gid);
}

int rt_pp_xrc_exchange(struct rt_oob *o, bool client, const struct rt_pp_xrc_dest *mine,
		       rt_pp_xrc_connect_fn *connect, void *arg, struct rt_error *err)
{
	char out[RT_PP_XRC_REC_LEN], in[RT_PP_XRC_REC_LEN];
	struct rt_pp_xrc_dest theirs;

	rt_error_phase(err, "exchange");
	rt_pp_xrc_rec_encode(out, mine);
	if (client && rt_oob_write(o, out, sizeof(out), err))
		return -1;
	if (rt_oob_read(o, in, sizeof(in), err) ||
	    rt_pp_xrc_rec_decode(in, sizeof(in), &theirs, o->peer_name, err))
		return -1;
	if (!client && rt_oob_write(o, out, sizeof(out), err))
		return -1;
	return connect(arg, &theirs, err);
}

static const char end_msg[RT_PP_XRC_END_LEN] = "END";

int rt_pp_xrc_end_send(struct rt_oob *o, struct rt_error *err)
{
	return rt_oob_write(o, end_msg, sizeof(end_msg), err);
}

int rt_pp_xrc_end_recv(struct rt_oob *o, struct rt_error *err)
{
	char got[RT_PP_XRC_END_LEN];

	if (rt_oob_read(o, got, sizeof(got), err))
		return -1;
	if (memcmp(got, end_msg, sizeof(got)))
		return rt_fail(err, RT_EXIT_FAIL, "%s: sent 4 bytes that are not the "
			       "\"END\" termination ack", o->peer_name);
	return 0;
}

int rt_pp_xrc_capable(struct ibv_context *ctx, const char *dev, struct rt_error *err)
{
	struct ibv_device_attr a;

	if (ibv_query_device(ctx, &a))
		return rt_fail(err, RT_EXIT_FAIL, "ibv_query_device on %s failed", dev);
	if (!(a.device_cap_flags & IBV_DEVICE_XRC))
		return rt_fail(err, RT_EXIT_ENV, "XRC is not supported by %s (no "
			       "IBV_DEVICE_XRC in its capabilities)", dev);
	return 0;
}
