/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ibv_xsrq_pingpong's wire without a device: the 66-byte record (layout
 * byte for byte, every malformed field named), upstream's address line,
 * the exchange order of both roles and the END handshake over a
 * socketpair. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "ibverbs/pingpong_xrc.h"
#include "rdmatest/util.h"

static const struct rt_pp_xrc_dest sample = {
	.lid = 0x1a2b, .recv_qpn = 0x000011, .send_qpn = 0xabcdef, .psn = 0x123456,
	.srqn = 0x00fe01,
	.gid = { .raw = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1 } },
};

static void test_encode_layout(void **state)
{
	char rec[RT_PP_XRC_REC_LEN];

	(void)state;
	memset(rec, 'x', sizeof(rec));
	rt_pp_xrc_rec_encode(rec, &sample);
	assert_string_equal(rec, "1a2b:000011:abcdef:123456:00fe01:"
			    "00000000000000000000ffffc0000201");
	assert_int_equal(strlen(rec), RT_PP_XRC_REC_LEN - 1);
}

static void test_roundtrip(void **state)
{
	char rec[RT_PP_XRC_REC_LEN];
	struct rt_pp_xrc_dest d;
	struct rt_error err = { 0 };

	(void)state;
	rt_pp_xrc_rec_encode(rec, &sample);
	assert_int_equal(rt_pp_xrc_rec_decode(rec, sizeof(rec), &d, "peer", &err), 0);
	assert_int_equal(d.lid, sample.lid);
	assert_int_equal(d.recv_qpn, sample.recv_qpn);
	assert_int_equal(d.send_qpn, sample.send_qpn);
	assert_int_equal(d.psn, sample.psn);
	assert_int_equal(d.srqn, sample.srqn);
	assert_memory_equal(d.gid.raw, sample.gid.raw, 16);
	/* upper-case digits, as sscanf("%x") accepts them */
	memcpy(rec, "1A2B", 4);
	assert_int_equal(rt_pp_xrc_rec_decode(rec, sizeof(rec), &d, "peer", &err), 0);
	assert_int_equal(d.lid, 0x1a2b);
}

/* A malformed record is exit 1 with the field named. */
static void bad(size_t at, char c, size_t len, const char *want)
{
	char rec[RT_PP_XRC_REC_LEN];
	struct rt_pp_xrc_dest d;
	struct rt_error err = { 0 };

	rt_pp_xrc_rec_encode(rec, &sample);
	rec[at] = c;
	assert_int_equal(rt_pp_xrc_rec_decode(rec, len, &d, "10.0.0.2:18515", &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	if (!strstr(err.reason, want))
		fail_msg("reason \"%s\" lacks \"%s\"", err.reason, want);
	assert_non_null(strstr(err.reason, "10.0.0.2:18515"));
}

static void test_decode_rejects(void **state)
{
	(void)state;
	bad(0, '0', 52, "of 52 bytes, want 66");
	bad(4, '-', RT_PP_XRC_REC_LEN, "separators");
	bad(32, '0', RT_PP_XRC_REC_LEN, "separators");
	bad(65, 'x', RT_PP_XRC_REC_LEN, "NUL");
	bad(2, 'g', RT_PP_XRC_REC_LEN, "LID");
	bad(6, ' ', RT_PP_XRC_REC_LEN, "receive QPN");
	bad(17, 'z', RT_PP_XRC_REC_LEN, "send QPN");
	bad(19, '\0', RT_PP_XRC_REC_LEN, "PSN");
	bad(31, ':', RT_PP_XRC_REC_LEN, "SRQ number");
	bad(64, 'q', RT_PP_XRC_REC_LEN, "GID");
}

static void test_addr_line(void **state)
{
	char b[192];

	(void)state;
	rt_pp_xrc_addr_line(b, sizeof(b), "local", &sample);
	assert_string_equal(b, "   local: LID 1a2b, QPN RECV 000011 SEND abcdef, PSN 123456, "
			    "SRQN 00fe01, GID ::ffff:192.0.2.1");
	rt_pp_xrc_addr_line(b, sizeof(b), "remote", &sample);
	assert_non_null(strstr(b, "  remote: LID"));
	assert_int_equal(strncmp(b, "  remote:", 9), 0);
}

/* ---- the exchange over a socketpair ------------------------------------ */

struct side {
	struct rt_oob o;
	int raw;                      /* the other end, driven by hand */
	struct rt_error err;
	struct rt_pp_xrc_dest got;
	int connects;
	bool mine_out_first;          /* server: own record sent before connect */
};

static void make_side(struct side *s, long long timeout_ms)
{
	int sv[2];

	memset(s, 0, sizeof(*s));
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	rt_oob_init(&s->o, timeout_ms);
	s->o.fd = sv[0];
	s->raw = sv[1];
	assert_int_equal(rt_set_nonblock(sv[0]), 0);
	snprintf(s->o.peer_name, sizeof(s->o.peer_name), "peer");
}

static void drop_side(struct side *s)
{
	rt_oob_close(&s->o);
	close(s->raw);
}

static bool readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

static int on_connect(void *arg, const struct rt_pp_xrc_dest *theirs, struct rt_error *err)
{
	struct side *s = arg;

	(void)err;
	s->got = *theirs;
	s->connects++;
	s->mine_out_first = readable(s->raw);
	return 0;
}

static void test_client_writes_first(void **state)
{
	char rec[RT_PP_XRC_REC_LEN], want[RT_PP_XRC_REC_LEN];
	struct side s;

	(void)state;
	make_side(&s, 100);
	/* nothing from the server: the client has written, then waits (bounded) */
	assert_int_equal(rt_pp_xrc_exchange(&s.o, true, &sample, on_connect, &s, &s.err), -1);
	assert_int_equal(s.err.exit_code, RT_EXIT_TIMEOUT);
	assert_int_equal(s.connects, 0);
	rt_pp_xrc_rec_encode(want, &sample);
	assert_int_equal(read(s.raw, rec, sizeof(rec)), RT_PP_XRC_REC_LEN);
	assert_memory_equal(rec, want, sizeof(rec));
	drop_side(&s);
}

static void test_client_connects_after_reply(void **state)
{
	struct rt_pp_xrc_dest srv = sample;
	char rec[RT_PP_XRC_REC_LEN];
	struct side s;

	(void)state;
	make_side(&s, 1000);
	srv.recv_qpn = 0x222222;
	rt_pp_xrc_rec_encode(rec, &srv);
	assert_int_equal(write(s.raw, rec, sizeof(rec)), RT_PP_XRC_REC_LEN);
	assert_int_equal(rt_pp_xrc_exchange(&s.o, true, &sample, on_connect, &s, &s.err), 0);
	assert_int_equal(s.connects, 1);
	assert_int_equal(s.got.recv_qpn, 0x222222);
	drop_side(&s);
}

static void test_server_reads_writes_connects(void **state)
{
	struct rt_pp_xrc_dest cli = sample;
	char rec[RT_PP_XRC_REC_LEN], want[RT_PP_XRC_REC_LEN];
	struct side s;

	(void)state;
	make_side(&s, 100);
	/* the server does not write before it has the client's record */
	assert_int_equal(rt_pp_xrc_exchange(&s.o, false, &sample, on_connect, &s, &s.err), -1);
	assert_int_equal(s.err.exit_code, RT_EXIT_TIMEOUT);
	assert_false(readable(s.raw));
	drop_side(&s);

	make_side(&s, 1000);
	cli.send_qpn = 0x333333;
	rt_pp_xrc_rec_encode(rec, &cli);
	/* split in two writes: the server reads until it has all 66 bytes */
	assert_int_equal(write(s.raw, rec, 10), 10);
	assert_int_equal(write(s.raw, rec + 10, sizeof(rec) - 10), RT_PP_XRC_REC_LEN - 10);
	assert_int_equal(rt_pp_xrc_exchange(&s.o, false, &sample, on_connect, &s, &s.err), 0);
	assert_int_equal(s.connects, 1);
	assert_true(s.mine_out_first); /* upstream's server replies, then connects */
	assert_int_equal(s.got.send_qpn, 0x333333);
	rt_pp_xrc_rec_encode(want, &sample);
	assert_int_equal(read(s.raw, rec, sizeof(rec)), RT_PP_XRC_REC_LEN);
	assert_memory_equal(rec, want, sizeof(rec));
	drop_side(&s);
}

static void test_server_rejects_bad_record(void **state)
{
	char rec[RT_PP_XRC_REC_LEN];
	struct side s;

	(void)state;
	make_side(&s, 1000);
	rt_pp_xrc_rec_encode(rec, &sample);
	rec[11] = '!';
	assert_int_equal(write(s.raw, rec, sizeof(rec)), RT_PP_XRC_REC_LEN);
	assert_int_equal(rt_pp_xrc_exchange(&s.o, false, &sample, on_connect, &s, &s.err), -1);
	assert_int_equal(s.err.exit_code, RT_EXIT_FAIL);
	assert_int_equal(s.connects, 0);
	assert_false(readable(s.raw)); /* nothing sent back to a bad peer */
	drop_side(&s);
}

static void test_end_marker(void **state)
{
	char b[8];
	struct side s;

	(void)state;
	make_side(&s, 1000);
	assert_int_equal(rt_pp_xrc_end_send(&s.o, &s.err), 0);
	assert_int_equal(read(s.raw, b, sizeof(b)), RT_PP_XRC_END_LEN);
	assert_memory_equal(b, "END", 4);
	assert_int_equal(write(s.raw, "END", 4), 4);
	assert_int_equal(rt_pp_xrc_end_recv(&s.o, &s.err), 0);
	assert_int_equal(write(s.raw, "ENDX", 4), 4);
	assert_int_equal(rt_pp_xrc_end_recv(&s.o, &s.err), -1);
	assert_int_equal(s.err.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(s.err.reason, "END"));
	drop_side(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_layout),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_decode_rejects),
		cmocka_unit_test(test_addr_line),
		cmocka_unit_test(test_client_writes_first),
		cmocka_unit_test(test_client_connects_after_reply),
		cmocka_unit_test(test_server_reads_writes_connects),
		cmocka_unit_test(test_server_rejects_bad_record),
		cmocka_unit_test(test_end_marker),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
