/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The ping-pong module: the 52-byte record (good and malformed), the
 * exchange's order over loopback TCP, the loop engine against a fake CQ
 * and QP (libibverbs' inline post/poll go through the context's ops), and
 * the bounded completion wait. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <unistd.h>
#include <cmocka.h>

#include "rdmatest/cqwait.h"
#include "ibverbs/pingpong.h"
#include "rdmatest/util.h"
#include "rdmatest/xfer.h"

/* ---- the record ---------------------------------------------------------- */

static const char good[RT_PP_REC_LEN] =
	"0011:00abcd:123456:00000000000000000000ffffc0000201";

static void record_round_trip(void **state)
{
	struct rt_pp_dest d = { .lid = 0x11, .qpn = 0xabcd, .psn = 0x123456 }, back;
	struct rt_error err = { 0 };
	char rec[RT_PP_REC_LEN];

	(void)state;
	d.gid.raw[10] = d.gid.raw[11] = 0xff;
	d.gid.raw[12] = 192;
	d.gid.raw[15] = 1;
	d.gid.raw[14] = 2;
	rt_pp_rec_encode(rec, &d);
	assert_memory_equal(rec, good, RT_PP_REC_LEN);
	assert_int_equal(rt_pp_rec_decode(rec, sizeof(rec), &back, "peer", &err), 0);
	assert_int_equal(back.lid, 0x11);
	assert_int_equal(back.qpn, 0xabcd);
	assert_int_equal(back.psn, 0x123456);
	assert_memory_equal(back.gid.raw, d.gid.raw, 16);
	/* upper-case hex, as sscanf("%x") takes it, is accepted */
	memcpy(rec, "00AB:00ABCD:ABCDEF:", 19);
	assert_int_equal(rt_pp_rec_decode(rec, sizeof(rec), &back, "peer", &err), 0);
	assert_int_equal(back.psn, 0xabcdef);
}

static void bad(const char *rec, size_t len, const char *want)
{
	struct rt_pp_dest d;
	struct rt_error err = { 0 };

	assert_int_equal(rt_pp_rec_decode(rec, len, &d, "192.0.2.2:18515", &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	if (!strstr(err.reason, want))
		fail_msg("reason '%s' lacks '%s'", err.reason, want);
}

static void record_malformed(void **state)
{
	char rec[RT_PP_REC_LEN];

	(void)state;
	bad(good, 51, "of 51 bytes, want 52");
	memcpy(rec, good, sizeof(rec));
	rec[4] = '-';
	bad(rec, sizeof(rec), "separators");
	memcpy(rec, good, sizeof(rec));
	rec[51] = 'x';
	bad(rec, sizeof(rec), "separators");
	memcpy(rec, good, sizeof(rec));
	rec[2] = 'g';
	bad(rec, sizeof(rec), "LID is not 4 hex digits");
	memcpy(rec, good, sizeof(rec));
	rec[10] = ' ';
	bad(rec, sizeof(rec), "QPN is not 6 hex digits");
	memcpy(rec, good, sizeof(rec));
	rec[12] = '+';
	bad(rec, sizeof(rec), "PSN is not 6 hex digits");
	memcpy(rec, good, sizeof(rec));
	rec[50] = '\0';
	bad(rec, sizeof(rec), "GID is not 32 hex digits");
	memset(rec, 0, sizeof(rec));
	bad(rec, sizeof(rec), "separators");
}

/* ---- the exchange ---------------------------------------------------------- */

struct pair {
	struct rt_oob srv, cli;
	struct rt_error err;
	bool ready_called, peer_had_reply;
};

static void connect_pair(struct pair *p)
{
	memset(p, 0, sizeof(*p));
	rt_oob_init(&p->srv, 500);
	rt_oob_init(&p->cli, 500);
	assert_int_equal(rt_oob_listen(&p->srv, "127.0.0.1", 0, &p->err), 0);
	assert_int_equal(rt_oob_connect(&p->cli, "127.0.0.1", p->srv.port, 0, &p->err), 0);
	assert_int_equal(rt_oob_accept(&p->srv, &p->err), 0);
}

/* The server's QP must reach RTS before it replies: nothing from the
 * server may be readable at the client yet. */
static int ready(void *arg, const char *theirs, size_t len, struct rt_error *err)
{
	struct pair *p = arg;
	struct pollfd pf = { .fd = p->cli.fd, .events = POLLIN };

	(void)err;
	assert_int_equal(len, RT_PP_REC_LEN);
	assert_memory_equal(theirs, good, RT_PP_REC_LEN);
	p->ready_called = true;
	p->peer_had_reply = poll(&pf, 1, 0) > 0;
	return 0;
}

static void exchange_server_order(void **state)
{
	struct pair p;
	char theirs[RT_PP_REC_LEN], got[RT_PP_REC_LEN + RT_PP_DONE_LEN];
	static const char mine[RT_PP_REC_LEN] =
		"0022:000001:000002:00000000000000000000ffffc0000202";

	(void)state;
	connect_pair(&p);
	/* the client's side as upstream writes it: record, then "done\0" */
	memcpy(got, good, RT_PP_REC_LEN);
	memcpy(got + RT_PP_REC_LEN, "done", RT_PP_DONE_LEN);
	assert_int_equal(rt_oob_write(&p.cli, got, RT_PP_REC_LEN, &p.err), 0);
	assert_int_equal(rt_oob_write(&p.cli, got + RT_PP_REC_LEN, RT_PP_DONE_LEN, &p.err), 0);
	assert_int_equal(rt_pp_exchange(&p.srv, false, mine, theirs, RT_PP_REC_LEN,
					ready, &p, &p.err), 0);
	assert_true(p.ready_called);
	assert_false(p.peer_had_reply);
	assert_int_equal(rt_oob_read(&p.cli, got, RT_PP_REC_LEN, &p.err), 0);
	assert_memory_equal(got, mine, RT_PP_REC_LEN);
	rt_oob_close(&p.srv);
	rt_oob_close(&p.cli);
}

static void exchange_client_order(void **state)
{
	struct pair p;
	char theirs[RT_PP_REC_LEN], got[RT_PP_REC_LEN + RT_PP_DONE_LEN];

	(void)state;
	connect_pair(&p);
	/* the server's reply is there already; the client still writes first */
	assert_int_equal(rt_oob_write(&p.srv, good, RT_PP_REC_LEN, &p.err), 0);
	assert_int_equal(rt_pp_exchange(&p.cli, true, good, theirs, RT_PP_REC_LEN,
					NULL, NULL, &p.err), 0);
	assert_memory_equal(theirs, good, RT_PP_REC_LEN);
	assert_int_equal(rt_oob_read(&p.srv, got, sizeof(got), &p.err), 0);
	assert_memory_equal(got, good, RT_PP_REC_LEN);
	assert_memory_equal(got + RT_PP_REC_LEN, "done", RT_PP_DONE_LEN);
	rt_oob_close(&p.srv);
	rt_oob_close(&p.cli);
}

static void exchange_bad_done(void **state)
{
	struct pair p;
	char theirs[RT_PP_REC_LEN];

	(void)state;
	connect_pair(&p);
	assert_int_equal(rt_oob_write(&p.cli, good, RT_PP_REC_LEN, &p.err), 0);
	assert_int_equal(rt_oob_write(&p.cli, "DONE", RT_PP_DONE_LEN, &p.err), 0);
	assert_int_equal(rt_pp_exchange(&p.srv, false, good, theirs, RT_PP_REC_LEN,
					ready, &p, &p.err), -1);
	assert_non_null(strstr(p.err.reason, "not \"done\""));
	rt_oob_close(&p.srv);
	rt_oob_close(&p.cli);
}

/* ---- a fake device: the peer answers every send at once ---------------- */

enum peer_mode { PEER_ECHO, PEER_PATTERN_WRONG, PEER_SHORT, PEER_SILENT, PEER_TOO_LONG };

static struct fake {
	struct ibv_context ctx;
	struct ibv_cq cq;
	struct ibv_qp qp;
	struct ibv_wc q[64];
	unsigned head, tail, posted_recv;
	uint8_t *recv_area, *last_sent;
	size_t size;
	enum peer_mode mode;
	uint64_t recv_id;
} fk;

static void push(enum rt_wr_kind k, uint32_t len)
{
	struct ibv_wc *wc = &fk.q[fk.tail++ % 64];

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = RT_WR_ID(k, 0);
	wc->byte_len = len;
}

static int fake_poll(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int got = 0;

	(void)cq;
	while (got < n && fk.head != fk.tail)
		wc[got++] = fk.q[fk.head++ % 64];
	return got;
}

static int fake_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	(void)qp;
	(void)bad_wr;
	fk.recv_area = (uint8_t *)(uintptr_t)wr->sg_list->addr;
	fk.posted_recv++;
	return 0;
}

/* The peer gets the message and answers with one of the same length. */
static int fake_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	const uint8_t *data = (const uint8_t *)(uintptr_t)wr->sg_list->addr;

	(void)qp;
	(void)bad_wr;
	push(RT_WR_SEND, 0);
	if (fk.mode == PEER_SILENT)
		return 0;
	memmove(fk.recv_area, data, fk.size);
	if (fk.mode == PEER_PATTERN_WRONG)
		fk.recv_area[fk.size / 2] ^= 1;
	push(RT_WR_RECV, fk.mode == PEER_SHORT ? (uint32_t)fk.size / 2 : (uint32_t)fk.size);
	/* rxe's report of a message longer than the receive */
	if (fk.mode == PEER_TOO_LONG)
		fk.q[(fk.tail - 1) % 64].status = IBV_WC_LOC_QP_OP_ERR;
	return 0;
}

static void fake_loop(struct rt_pp_loop *l, struct rt_cqwait *w, uint8_t *buf,
		      size_t size, enum peer_mode mode)
{
	static struct ibv_mr mr;
	struct rt_error err = { 0 };

	memset(&fk, 0, sizeof(fk));
	fk.ctx.ops.poll_cq = fake_poll;
	fk.ctx.ops.post_send = fake_send;
	fk.ctx.ops.post_recv = fake_recv;
	fk.cq.context = &fk.ctx;
	fk.qp.context = &fk.ctx;
	fk.size = size;
	fk.mode = mode;
	assert_int_equal(rt_cqwait_init(w, &fk.cq, NULL, 100, &err), 0);
	memset(l, 0, sizeof(*l));
	l->qp = &fk.qp;
	l->cqw = w;
	l->mr = &mr;
	l->buf = buf;
	l->size = size;
	l->rx_depth = 4;
	l->iters = 10;
	l->client = true;
	l->page = 4096;
	l->peer = "peer";
	assert_int_equal(rt_pp_post_receives(l, &err), 0);
	assert_int_equal(fk.posted_recv, 4);
}

static void loop_echo_peer_checked(void **state)
{
	static uint8_t buf[RT_PP_BUF_LEN(8192)];
	struct rt_pp_loop l;
	struct rt_cqwait w;
	struct rt_error err = { 0 };
	char text[256];

	(void)state;
	fake_loop(&l, &w, buf, 8192, PEER_ECHO);
	l.check = true;
	assert_int_equal(rt_pp_run(&l, &err), 0);
	assert_int_equal(l.sent, 10);
	assert_int_equal(l.received, 10);
	assert_int_equal(l.content, RT_PP_PEER_UPSTREAM);
	assert_int_equal(l.rtt.count, 10);
	/* receives were topped up: 4 first, then refills as they ran low */
	assert_true(fk.posted_recv > 10);
	/* upstream's -c marks: 0 at every page start of what was sent */
	assert_int_equal(buf[8192], 0); /* the send area follows the receive area */
	assert_int_equal(buf[8192 + 4096], 0);
	assert_int_not_equal(buf[8192 + 1] | buf[8192 + 2] | buf[8192 + 3], 0);
	l.elapsed_us = 2000000;
	rt_pp_print_result(&l, text, sizeof(text));
	assert_string_equal(text, "163840 bytes in 2.00 seconds = 0.66 Mbit/sec\n"
			    "10 iters in 2.00 seconds = 200000.00 usec/iter");
}

static void loop_corrupt_named(void **state)
{
	static uint8_t buf[RT_PP_BUF_LEN(1000)];
	struct rt_pp_loop l;
	struct rt_cqwait w;
	struct rt_error err = { 0 };

	(void)state;
	fake_loop(&l, &w, buf, 1000, PEER_PATTERN_WRONG);
	l.check = true;
	assert_int_equal(rt_pp_run(&l, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(err.reason, "message 1: byte 500"));
	/* without -c the same bytes pass: upstream checks nothing either */
	fake_loop(&l, &w, buf, 1000, PEER_PATTERN_WRONG);
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_pp_run(&l, &err), 0);
}

static void loop_short_names_size(void **state)
{
	static uint8_t buf[RT_PP_BUF_LEN(1000)];
	struct rt_pp_loop l;
	struct rt_cqwait w;
	struct rt_error err = { 0 };

	(void)state;
	fake_loop(&l, &w, buf, 1000, PEER_SHORT);
	assert_int_equal(rt_pp_run(&l, &err), -1);
	assert_non_null(strstr(err.reason, "message 1 has 500 bytes, want 1000"));
	assert_non_null(strstr(err.reason, "same -s"));
}

static void loop_too_long_names_size(void **state)
{
	static uint8_t buf[RT_PP_BUF_LEN(1000)];
	struct rt_pp_loop l;
	struct rt_cqwait w;
	struct rt_error err = { 0 };

	(void)state;
	fake_loop(&l, &w, buf, 1000, PEER_TOO_LONG);
	assert_int_equal(rt_pp_run(&l, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(err.reason, "RECV completion (message 1): local QP "
			       "operation error (a message longer than -s?"));
}

static void loop_silent_peer_bounded(void **state)
{
	static uint8_t buf[RT_PP_BUF_LEN(64)];
	struct rt_pp_loop l;
	struct rt_cqwait w;
	struct rt_error err = { 0 };
	uint64_t t0 = rt_now_ns(), ms;

	(void)state;
	fake_loop(&l, &w, buf, 64, PEER_SILENT);
	assert_int_equal(rt_pp_run(&l, &err), -1);
	ms = (rt_now_ns() - t0) / 1000000;
	assert_int_equal(err.exit_code, RT_EXIT_TIMEOUT);
	assert_non_null(strstr(err.reason, "after 0 of 10 messages received and 1 sent"));
	assert_true(ms >= 90 && ms < 2000);
}

/* ---- the bounded wait in event mode -------------------------------------------- */

static int fake_notify(struct ibv_cq *cq, int solicited)
{
	(void)cq;
	(void)solicited;
	return 0;
}

static void cqwait_event_mode_bounded(void **state)
{
	struct ibv_comp_channel ch;
	struct rt_cqwait w;
	struct rt_error err = { 0 };
	struct ibv_wc wc;
	int fds[2];
	uint64_t t0, ms;

	(void)state;
	memset(&fk, 0, sizeof(fk));
	fk.ctx.ops.poll_cq = fake_poll;
	fk.ctx.ops.req_notify_cq = fake_notify;
	fk.cq.context = &fk.ctx;
	assert_int_equal(pipe(fds), 0);
	ch.fd = fds[0];
	assert_int_equal(rt_cqwait_init(&w, &fk.cq, &ch, 80, &err), 0);
	t0 = rt_now_ns();
	assert_int_equal(rt_cqwait_poll(&w, &wc, 1, &err), 0);
	ms = (rt_now_ns() - t0) / 1000000;
	assert_true(ms >= 70 && ms < 2000);
	assert_true(w.armed);
	assert_false(err.set);
	/* a completion already there is returned without sleeping */
	push(RT_WR_RECV, 7);
	assert_int_equal(rt_cqwait_poll(&w, &wc, 1, &err), 1);
	assert_int_equal(wc.byte_len, 7);
	rt_cqwait_done(&w);
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(record_round_trip),
		cmocka_unit_test(record_malformed),
		cmocka_unit_test(exchange_server_order),
		cmocka_unit_test(exchange_client_order),
		cmocka_unit_test(exchange_bad_done),
		cmocka_unit_test(loop_echo_peer_checked),
		cmocka_unit_test(loop_corrupt_named),
		cmocka_unit_test(loop_short_names_size),
		cmocka_unit_test(loop_too_long_names_size),
		cmocka_unit_test(loop_silent_peer_bounded),
		cmocka_unit_test(cqwait_event_mode_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
