/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rdmatest/interrupt.h"
#include "ibverbs/pingpong.h"
#include "rdmatest/util.h"
#include "rdmatest/verify.h"
#include "rdmatest/xfer.h"

/* ---- the record ---------------------------------------------------------- */

void rt_pp_rec_encode(char out[RT_PP_REC_LEN], const struct rt_pp_dest *d)
{
	int n = snprintf(out, RT_PP_REC_LEN, "%04x:%06x:%06x:", d->lid,
			 d->qpn & 0xffffff, d->psn & 0xffffff);

	for (int i = 0; i < 16 && n >= 0; i++)
		n += snprintf(out + n, RT_PP_REC_LEN - (size_t)n, "%02x", d->gid.raw[i]);
}

/* n hex digits at p into *v; false at any other character. */
static bool hexfield(const char *p, int n, uint32_t *v)
{
	*v = 0;
	for (int i = 0; i < n; i++) {
		int h = rt_hex_digit(p[i]);

		if (h < 0)
			return false;
		*v = *v << 4 | (uint32_t)h;
	}
	return true;
}

int rt_pp_rec_decode(const char *in, size_t len, struct rt_pp_dest *d,
		     const char *who, struct rt_error *err)
{
	static const struct { int at, digits; const char *name; } f[] = {
		{ 0, 4, "LID" }, { 5, 6, "QPN" }, { 12, 6, "PSN" },
	};
	uint32_t v[3], g;

	if (len != RT_PP_REC_LEN)
		return rt_fail(err, RT_EXIT_FAIL, "%s: address record of %zu bytes, "
			       "want %d", who, len, RT_PP_REC_LEN);
	if (in[4] != ':' || in[11] != ':' || in[18] != ':' || in[51] != '\0')
		return rt_fail(err, RT_EXIT_FAIL, "%s: address record is not "
			       "LLLL:QQQQQQ:PPPPPP:GID (separators)", who);
	for (int i = 0; i < 3; i++)
		if (!hexfield(in + f[i].at, f[i].digits, &v[i]))
			return rt_fail(err, RT_EXIT_FAIL, "%s: address record: %s is "
				       "not %d hex digits", who, f[i].name, f[i].digits);
	for (int i = 0; i < 16; i++) {
		if (!hexfield(in + 19 + 2 * i, 2, &g))
			return rt_fail(err, RT_EXIT_FAIL, "%s: address record: GID "
				       "is not 32 hex digits", who);
		d->gid.raw[i] = (uint8_t)g;
	}
	d->lid = (uint16_t)v[0];
	d->qpn = v[1];
	d->psn = v[2];
	return 0;
}

void rt_pp_gid_str(const union ibv_gid *gid, char *buf, size_t len)
{
	if (!inet_ntop(AF_INET6, gid->raw, buf, (socklen_t)len))
		rt_strlcpy(buf, "?", len);
}

/* ---- the exchange -------------------------------------------------------- */

static const char done_msg[RT_PP_DONE_LEN] = "done";

int rt_pp_exchange(struct rt_oob *o, bool client, const char *mine,
		   char *theirs, size_t len, rt_pp_ready_fn *ready, void *arg,
		   struct rt_error *err)
{
	char done[RT_PP_DONE_LEN];

	rt_error_phase(err, "exchange");
	if (client)
		return rt_oob_write(o, mine, len, err) ||
		       rt_oob_read(o, theirs, len, err) ||
		       rt_oob_write(o, done_msg, sizeof(done_msg), err) ? -1 : 0;
	if (rt_oob_read(o, theirs, len, err) || ready(arg, theirs, len, err) ||
	    rt_oob_write(o, mine, len, err) || rt_oob_read(o, done, sizeof(done), err))
		return -1;
	if (memcmp(done, done_msg, sizeof(done)))
		return rt_fail(err, RT_EXIT_FAIL, "%s: sent %d bytes that are not "
			       "\"done\" after the address records", o->peer_name,
			       RT_PP_DONE_LEN);
	return 0;
}

/* ---- the loop ------------------------------------------------------------ */

#define UPSTREAM_FILL 0x7b /* what upstream's buffer holds before any receive */
#define SEED_CLIENT 1
#define SEED_SERVER 2

static size_t area(const struct rt_pp_loop *l)
{
	return l->grh + l->size;
}

static uint8_t *recv_area(const struct rt_pp_loop *l)
{
	return l->buf;
}

/* Without -c the send comes out of the receive area, as from upstream's
 * single buffer, so this side echoes what it received as upstream does. */
static uint8_t *send_data(const struct rt_pp_loop *l)
{
	return (l->check ? l->buf + area(l) : l->buf) + l->grh;
}

static uint8_t *expect_area(const struct rt_pp_loop *l)
{
	return l->buf + 2 * area(l);
}

/* Where upstream's -c puts its 0 marks: page starts of its buffer, whose
 * data begins after the GRH space for UD; page starts of the data too, so
 * that either reading of ud's marks is covered. */
static bool mark(const struct rt_pp_loop *l, size_t i)
{
	return i % l->page == 0 || (i + l->grh) % l->page == 0;
}

/* rdmatest's -c payload: the pattern, and 0 at upstream's marks, so that
 * an upstream -c server finds what it checks for. */
static void pattern(const struct rt_pp_loop *l, uint8_t *data, uint64_t seed,
		    uint64_t seq)
{
	rt_pattern_fill(data, l->size, seed, seq);
	for (size_t i = 0; i < l->size; i++)
		if (mark(l, i))
			data[i] = 0;
}

static int post_recv(const struct rt_pp_loop *l, uint64_t n, struct rt_error *err)
{
	struct rt_res r = { .qp = l->qp };
	struct rt_buf b = { .addr = l->buf, .len = RT_PP_BUF_LEN(l->size), .mr = l->mr };

	return rt_post_recv(&r, &b, 0, area(l), n, err);
}

int rt_pp_post_receives(struct rt_pp_loop *l, struct rt_error *err)
{
	memset(l->buf, UPSTREAM_FILL, RT_PP_BUF_LEN(l->size));
	for (unsigned i = 0; i < l->rx_depth; i++)
		if (post_recv(l, i, err))
			return -1;
	return 0;
}

static int post_send(struct rt_pp_loop *l, struct rt_error *err)
{
	struct ibv_sge sge = { .addr = (uintptr_t)send_data(l), .length = (uint32_t)l->size,
			       .lkey = l->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = RT_WR_ID(RT_WR_SEND, l->sent), .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;
	int e;

	if (l->check)
		pattern(l, send_data(l), l->client ? SEED_CLIENT : SEED_SERVER, l->sent + 1);
	if (l->ah) {
		wr.wr.ud.ah = l->ah;
		wr.wr.ud.remote_qpn = l->remote_qpn;
		wr.wr.ud.remote_qkey = l->qkey;
	}
	e = ibv_post_send(l->qp, &wr, &bad);
	if (e)
		return rt_fail_errno(err, RT_EXIT_FAIL, e, "ibv_post_send (message %llu)",
				     (unsigned long long)l->sent + 1);
	return 0;
}

/* True when the data is what an upstream client sends first: its fill,
 * with 0 at its page starts when it runs with -c. */
static bool upstream_first(const struct rt_pp_loop *l, const uint8_t *d)
{
	for (size_t i = 0; i < l->size; i++)
		if (d[i] != UPSTREAM_FILL && !(d[i] == 0 && mark(l, i)))
			return false;
	return true;
}

static size_t first_diff(const uint8_t *a, const uint8_t *b, size_t len)
{
	size_t i = 0;

	while (i < len && a[i] == b[i])
		i++;
	return i;
}

/* The received message against the peer kinds still possible; a failure
 * names the first bad byte of the closest candidate. */
static int check_data(struct rt_pp_loop *l, struct rt_error *err)
{
	const uint8_t *got = recv_area(l) + l->grh, *want = expect_area(l);
	uint64_t n = l->received;
	size_t ours = 0, echo = 0, bad;

	pattern(l, expect_area(l), l->client ? SEED_SERVER : SEED_CLIENT, n);
	if (l->content != RT_PP_PEER_UPSTREAM)
		ours = first_diff(got, want, l->size);
	/* an upstream peer sends what it received last: our previous message */
	if (l->content != RT_PP_PEER_RDMATEST)
		echo = l->client || n > 1 ? first_diff(got, send_data(l), l->size) :
		       upstream_first(l, got) ? l->size : 0;
	if (ours == l->size || echo == l->size) {
		l->content = ours == l->size ? RT_PP_PEER_RDMATEST : RT_PP_PEER_UPSTREAM;
		return 0;
	}
	if (echo > ours)
		want = send_data(l);
	bad = RT_MAX(ours, echo);
	return rt_fail(err, RT_EXIT_FAIL, "%s: message %llu: byte %zu is 0x%02x, want "
		       "0x%02x (-c)", l->peer, (unsigned long long)n, bad, got[bad], want[bad]);
}

static int on_recv(struct rt_pp_loop *l, const struct ibv_wc *wc, unsigned *routs,
		   uint64_t t_send, struct rt_error *err)
{
	if (wc->byte_len != area(l))
		return rt_fail(err, RT_EXIT_FAIL, "%s: message %llu has %u bytes, want "
			       "%zu: do both sides use the same -s?", l->peer,
			       (unsigned long long)l->received + 1,
			       wc->byte_len - (unsigned)l->grh, l->size);
	l->received++;
	if (l->client)
		rt_hist_add(&l->rtt, rt_now_ns() - t_send);
	if (l->check && check_data(l, err))
		return -1;
	if (--*routs > 1)
		return 0;
	for (; *routs < l->rx_depth; ++*routs)
		if (post_recv(l, *routs, err))
			return -1;
	return 0;
}

/* The hint for a failed completion of the ping-pong. Devices differ in
 * how they report a message longer than the receive: mlx5 and the spec
 * give a local length error, rxe a local QP operation error at the
 * receiver and a remote operation error at the sender. */
static const char *why(const struct ibv_wc *wc, enum rt_wr_kind k)
{
	switch (wc->status) {
	case IBV_WC_LOC_LEN_ERR:
	case IBV_WC_LOC_QP_OP_ERR:
		return k == RT_WR_RECV ? " (a message longer than -s? do both sides "
		       "use the same -s?)" : "";
	case IBV_WC_REM_INV_REQ_ERR:
	case IBV_WC_REM_OP_ERR:
		return " (the peer could not take the message: do both sides use the "
		       "same -s?)";
	case IBV_WC_RETRY_EXC_ERR:
		return " (peer gone, or the sides' -m differ?)";
	default:
		return "";
	}
}

static int on_wc(struct rt_pp_loop *l, const struct ibv_wc *wc, unsigned *pending,
		 unsigned *routs, uint64_t *t_send, struct rt_error *err)
{
	enum rt_wr_kind k = RT_WR_KIND(wc->wr_id);

	if (wc->status != IBV_WC_SUCCESS) {
		rt_error_event(err, ibv_wc_status_str(wc->status), wc->status);
		return rt_fail(err, RT_EXIT_FAIL, "%s: %s completion (message %llu): "
			       "%s%s", l->peer, rt_wr_kind_str(k),
			       (unsigned long long)(k == RT_WR_SEND ? l->sent : l->received) + 1,
			       ibv_wc_status_str(wc->status), why(wc, k));
	}
	if (k == RT_WR_SEND)
		l->sent++;
	else if (k == RT_WR_RECV && on_recv(l, wc, routs, *t_send, err))
		return -1;
	*pending &= ~(1u << k);
	if (l->sent < l->iters && !*pending) {
		*pending = 1u << RT_WR_RECV | 1u << RT_WR_SEND;
		*t_send = rt_now_ns();
		return post_send(l, err);
	}
	return 0;
}

static int expired(const struct rt_pp_loop *l, struct rt_error *err)
{
	return rt_fail(err, RT_EXIT_TIMEOUT, "%s: no completion within %lld ms after "
		       "%llu of %llu messages received and %llu sent (does the peer "
		       "use the same -n? is it still running?)", l->peer,
		       l->cqw->timeout_ms, (unsigned long long)l->received,
		       (unsigned long long)l->iters, (unsigned long long)l->sent);
}

int rt_pp_run(struct rt_pp_loop *l, struct rt_error *err)
{
	unsigned pending = 1u << RT_WR_RECV, routs = l->rx_depth;
	uint64_t t_send = 0, start;
	struct ibv_wc wc[2];

	rt_error_phase(err, "transfer");
	l->sent = l->received = 0;
	l->content = RT_PP_PEER_UNKNOWN;
	if (l->client) {
		pending |= 1u << RT_WR_SEND;
		t_send = rt_now_ns();
		if (post_send(l, err))
			return -1;
	}
	start = rt_now_ns();
	while (l->sent < l->iters || l->received < l->iters) {
		int n = rt_cqwait_poll(l->cqw, wc, 2, err);

		if (n == 0)
			return expired(l, err);
		if (n < 0)
			return n;
		for (int i = 0; i < n; i++)
			if (on_wc(l, &wc[i], &pending, &routs, &t_send, err))
				return -1;
	}
	l->elapsed_us = (rt_now_ns() - start) / 1000;
	return 0;
}

void rt_pp_print_result(const struct rt_pp_loop *l, char *buf, size_t len)
{
	double us = (double)(l->elapsed_us ? l->elapsed_us : 1);
	unsigned long long bytes = (unsigned long long)l->size * l->iters * 2;

	snprintf(buf, len, "%llu bytes in %.2f seconds = %.2f Mbit/sec\n"
		 "%llu iters in %.2f seconds = %.2f usec/iter", bytes, us / 1e6,
		 (double)bytes * 8.0 / us, (unsigned long long)l->iters, us / 1e6,
		 us / (double)(l->iters ? l->iters : 1));
}
