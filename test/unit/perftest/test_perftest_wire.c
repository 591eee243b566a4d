/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* perftest 4.5's out-of-band protocol: the key records, version and MTU
 * messages (good and malformed), the exchanges' order and bytes over
 * loopback TCP against a scripted perftest peer and against this module
 * itself in a child process, the BW report, the close, and the report
 * arithmetic against figures computed by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "perftest/perftest_wire.h"
#include "perftest/perftest_report.h"
#include "rdmatest/util.h"

/* ---- key records ---------------------------------------------------------- */

static const struct rt_pt_key key1 = {
	.lid = 0x11, .out_reads = 1, .qpn = 0xabcd, .psn = 0x123456,
	.rkey = 0x1234, .vaddr = 0x7f00aa001000ull, .srqn = 0,
	.gid = { .raw = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1 } },
};

/* What perftest 4.5's sprintf writes for key1, NUL included. */
static const char want59[RT_PT_KEY_LEN] =
	"0011:0001:00abcd:123456:00001234:00007f00aa001000:00000000";
static const char want108[RT_PT_KEY_GID_LEN] =
	"0011:0001:00abcd:123456:00001234:00007f00aa001000:"
	"00:00:00:00:00:00:00:00:00:00:ff:ff:c0:00:02:01:00000000:";

static void key_encode_exact(void **state)
{
	char out[RT_PT_KEY_GID_LEN];

	(void)state;
	assert_int_equal(rt_pt_key_len(false), 59);
	assert_int_equal(rt_pt_key_len(true), 108);
	rt_pt_key_encode(out, false, &key1);
	assert_memory_equal(out, want59, sizeof(want59));
	rt_pt_key_encode(out, true, &key1);
	assert_memory_equal(out, want108, sizeof(want108));
}

static void key_round_trip(void **state)
{
	struct rt_pt_key k;
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_pt_key_decode(want108, sizeof(want108), true, &k, "p", &err), 0);
	assert_int_equal(k.lid, key1.lid);
	assert_int_equal(k.out_reads, key1.out_reads);
	assert_int_equal(k.qpn, key1.qpn);
	assert_int_equal(k.psn, key1.psn);
	assert_int_equal(k.rkey, key1.rkey);
	assert_int_equal(k.vaddr, key1.vaddr);
	assert_int_equal(k.srqn, key1.srqn);
	assert_memory_equal(k.gid.raw, key1.gid.raw, 16);
	assert_int_equal(rt_pt_key_decode(want59, sizeof(want59), false, &k, "p", &err), 0);
	assert_int_equal(k.qpn, 0xabcd);
	assert_int_equal(k.vaddr, 0x7f00aa001000ull);
	assert_int_equal(k.gid.raw[15], 0);
	assert_false(err.set);
}

static void bad_key(const char *in, size_t len, bool gid, const char *want)
{
	struct rt_pt_key k;
	struct rt_error err = { 0 };

	assert_int_equal(rt_pt_key_decode(in, len, gid, &k, "peer", &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	if (!strstr(err.reason, want))
		fail_msg("reason \"%s\" lacks \"%s\"", err.reason, want);
}

static void key_malformed(void **state)
{
	char k[RT_PT_KEY_GID_LEN];

	(void)state;
	/* the other form: one side uses -x, the other not */
	bad_key(want59, sizeof(want59), true, "-x");
	bad_key(want108, sizeof(want108), false, "-x");
	memcpy(k, want59, sizeof(want59));
	k[10] = 'g';
	bad_key(k, sizeof(want59), false, "QPN");
	memcpy(k, want59, sizeof(want59));
	k[4] = '-';
	bad_key(k, sizeof(want59), false, "LID");
	memcpy(k, want59, sizeof(want59));
	k[58] = 'x'; /* no NUL */
	bad_key(k, sizeof(want59), false, "SRQN");
	memcpy(k, want108, sizeof(want108));
	k[50 + 3 * 7 + 1] = 'z';
	bad_key(k, sizeof(want108), true, "GID");
	memcpy(k, want108, sizeof(want108));
	k[107] = ':';
	bad_key(k, sizeof(want108), true, "SRQN");
	memcpy(k, want108, sizeof(want108));
	k[40] = ' ';
	bad_key(k, sizeof(want108), true, "vaddr");
}

/* ---- version and MTU ---------------------------------------------------- */

static int version_of(const char *text, unsigned *v, struct rt_error *err)
{
	char in[RT_PT_VERSION_LEN] = { 0 };

	memcpy(in, text, strlen(text));
	return rt_pt_version_decode(in, v, "peer", err);
}

/* -R's binary record: every field at perftest's offset, big-endian,
 * padding and the fields perftest ignores on receipt zero. */
static void key_binary(void **state)
{
	struct rt_pt_key k = { .lid = 0x1234, .out_reads = 0x10, .qpn = 0xabcdef,
			       .psn = 0x123456, .rkey = 0xdeadbeef,
			       .vaddr = 0x00007f00aa001000ULL }, back;
	uint8_t out[RT_PT_KEY_BIN_LEN];
	struct rt_error err = { 0 };
	static const uint8_t head[32] = {
		0, 0, 0x12, 0x34, 0, 0, 0, 0x10, 0, 0xab, 0xcd, 0xef, 0, 0x12, 0x34, 0x56,
		0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 0, 0, 0, 0x7f, 0x00, 0xaa, 0x00, 0x10, 0x00,
	};

	(void)state;
	for (int i = 0; i < 16; i++)
		k.gid.raw[i] = (uint8_t)(0xa0 + i);
	rt_pt_key_bin_encode(out, &k);
	assert_memory_equal(out, head, sizeof(head));
	assert_memory_equal(out + 32, k.gid.raw, 16);
	for (int i = 48; i < RT_PT_KEY_BIN_LEN; i++)
		assert_int_equal(out[i], 0);
	assert_int_equal(rt_pt_key_bin_decode(out, &back, "peer", &err), 0);
	assert_int_equal(back.lid, k.lid);
	assert_int_equal(back.out_reads, k.out_reads);
	assert_int_equal(back.qpn, k.qpn);
	assert_int_equal(back.psn, k.psn);
	assert_int_equal(back.rkey, k.rkey);
	assert_true(back.vaddr == k.vaddr);
	assert_memory_equal(back.gid.raw, k.gid.raw, 16);
	/* a QPN beyond 24 bits is no QP: named, exit 1 */
	out[8] = 1;
	assert_int_equal(rt_pt_key_bin_decode(out, &back, "peer", &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(err.reason, "QPN 0x1abcdef"));
}

static void version_messages(void **state)
{
	char out[RT_PT_VERSION_LEN], want[RT_PT_VERSION_LEN] = "6.06";
	struct rt_error err = { 0 };
	unsigned v;

	(void)state;
	rt_pt_version_encode(out);
	assert_memory_equal(out, want, sizeof(want));
	assert_int_equal(version_of("6.06", &v, &err), 0);
	assert_int_equal(v, 606);
	assert_int_equal(version_of("5.7", &v, &err), 0);
	assert_int_equal(v, 570);
	assert_int_equal(version_of("6.289", &v, &err), 0);
	assert_int_equal(v, 628);
	assert_false(err.set);
	assert_int_equal(version_of("5.60", &v, &err), -1);
	assert_non_null(strstr(err.reason, "older than 5.70"));
	memset(&err, 0, sizeof(err));
	assert_int_equal(version_of("v6.06", &v, &err), -1);
	assert_non_null(strstr(err.reason, "version message"));
	memset(&err, 0, sizeof(err));
	assert_int_equal(version_of("6.", &v, &err), -1);
	memset(&err, 0, sizeof(err));
	memset(out, '6', sizeof(out)); /* no NUL in 16 bytes */
	assert_int_equal(rt_pt_version_decode(out, &v, "peer", &err), -1);
}

static void mtu_messages(void **state)
{
	char out[RT_PT_MTU_LEN];
	struct rt_error err = { 0 };
	enum ibv_mtu m;

	(void)state;
	rt_pt_mtu_encode(out, IBV_MTU_4096);
	assert_memory_equal(out, "5", 2);
	assert_int_equal(rt_pt_mtu_decode("3", &m, "peer", &err), 0);
	assert_int_equal(m, IBV_MTU_1024);
	assert_int_equal(rt_pt_mtu_decode("6", &m, "peer", &err), -1);
	assert_non_null(strstr(err.reason, "MTU"));
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_pt_mtu_decode("0", &m, "peer", &err), -1);
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_pt_mtu_decode((const char[2]){ '3', '3' }, &m, "peer", &err), -1);
}

/* ---- exchanges over loopback TCP ------------------------------------------ */

struct pair {
	struct rt_pt_chan srv, cli; /* TCP */
	struct rt_error err;
};

static void connect_pair(struct pair *p, long long ms)
{
	memset(p, 0, sizeof(*p));
	rt_oob_init(&p->srv.tcp, ms);
	rt_oob_init(&p->cli.tcp, ms);
	assert_int_equal(rt_oob_listen(&p->srv.tcp, "127.0.0.1", 0, &p->err), 0);
	assert_int_equal(rt_oob_connect(&p->cli.tcp, "127.0.0.1", p->srv.tcp.port, 0, &p->err), 0);
	assert_int_equal(rt_oob_accept(&p->srv.tcp, &p->err), 0);
}

static void close_pair(struct pair *p)
{
	rt_oob_close(&p->srv.tcp);
	rt_oob_close(&p->cli.tcp);
}

static bool readable(const struct rt_oob *o)
{
	struct pollfd pf = { .fd = o->fd, .events = POLLIN };

	return poll(&pf, 1, 0) > 0;
}

/* The server reads first: alone it writes nothing and its wait is bounded;
 * the client writes its version first. */
static void handshake_order(void **state)
{
	struct pair p;
	struct rt_pt_sys s = { .cycle_buffer = 4096, .cache_line = 64, .mtu = IBV_MTU_1024 };
	char got[RT_PT_VERSION_LEN];

	(void)state;
	connect_pair(&p, 150);
	assert_int_equal(rt_pt_handshake(&p.srv, false, &s, &p.err), -1);
	assert_int_equal(p.err.exit_code, RT_EXIT_TIMEOUT);
	assert_false(readable(&p.cli.tcp));
	memset(&p.err, 0, sizeof(p.err));
	assert_int_equal(rt_pt_handshake(&p.cli, true, &s, &p.err), -1);
	assert_int_equal(p.err.exit_code, RT_EXIT_TIMEOUT);
	assert_int_equal(rt_oob_read(&p.srv.tcp, got, sizeof(got), &p.err), 0);
	assert_memory_equal(got, "6.06\0\0\0\0\0\0\0\0\0\0\0", sizeof(got));
	close_pair(&p);
}

/* The server against a scripted perftest 4.5 client: exact bytes both
 * ways, the larger cycle buffer and cache line, the smaller MTU. */
static void handshake_server_bytes(void **state)
{
	struct pair p;
	struct rt_pt_sys s = { .cycle_buffer = 4096, .cache_line = 64, .mtu = IBV_MTU_4096 };
	static const uint8_t client[] = {
		'6', '.', '0', '6', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0x20, 0, /* cycle buffer 8192 */
		0, 0, 0, 0x40, /* cache line 64 */
		'3', 0,        /* MTU 1024 */
	};
	static const uint8_t want[] = {
		'6', '.', '0', '6', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0x10, 0, 0, 0, 0, 0x40, '5', 0,
	};
	uint8_t got[sizeof(want)];

	(void)state;
	connect_pair(&p, 500);
	assert_int_equal(rt_oob_write(&p.cli.tcp, client, sizeof(client), &p.err), 0);
	assert_int_equal(rt_pt_handshake(&p.srv, false, &s, &p.err), 0);
	assert_int_equal(s.peer_version, 606);
	assert_int_equal(s.cycle_buffer, 8192);
	assert_int_equal(s.cache_line, 64);
	assert_int_equal(s.mtu, IBV_MTU_1024);
	assert_int_equal(rt_oob_read(&p.cli.tcp, got, sizeof(got), &p.err), 0);
	assert_memory_equal(got, want, sizeof(want));
	assert_false(readable(&p.cli.tcp));
	close_pair(&p);
}

static void handshake_bad_sys(void **state)
{
	struct pair p;
	struct rt_pt_sys s = { .cycle_buffer = 4096, .cache_line = 64, .mtu = IBV_MTU_4096 };
	static const uint8_t client[] = {
		'6', '.', '0', '6', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0x40, 0, 0, 0, /* a page of 1 GiB */
	};

	(void)state;
	connect_pair(&p, 500);
	assert_int_equal(rt_oob_write(&p.cli.tcp, client, sizeof(client), &p.err), 0);
	assert_int_equal(rt_pt_handshake(&p.srv, false, &s, &p.err), -1);
	assert_int_equal(p.err.exit_code, RT_EXIT_FAIL);
	assert_non_null(strstr(p.err.reason, "page size"));
	close_pair(&p);
}

/* Both sides of this module, the client in a child: they settle the same
 * values, and the keys, barrier, report and close go through. */
static int child_client(struct pair *p)
{
	struct rt_pt_sys s = { .cycle_buffer = 4096, .cache_line = 128, .mtu = IBV_MTU_2048 };
	struct rt_pt_key mine[2] = { key1, key1 }, theirs[2];
	struct rt_pt_bw_report r = { .size = 65536, .iters = 5000, .bw_peak = 1.5,
				     .bw_avg = 1.25, .msg_rate = 0.02 }, peer;

	mine[1].qpn = 0xabce;
	rt_oob_close(&p->srv.tcp);
	if (rt_pt_handshake(&p->cli, true, &s, &p->err) || s.mtu != IBV_MTU_1024 ||
	    s.cache_line != 128 || s.cycle_buffer != 4096 ||
	    rt_pt_keys_q(&p->cli, true, true, mine, theirs, 2, &p->err) ||
	    theirs[1].qpn != 0x99 ||
	    rt_pt_barrier(&p->cli, true, true, &mine[0], &theirs[0], "run", &p->err) ||
	    rt_pt_bw_report_xchg(&p->cli, true, s.peer_version, &r, &peer, &p->err) ||
	    rt_pt_close(&p->cli, true, true, &mine[0], &theirs[0], &p->err))
		return 1;
	return 0;
}

static void both_sides(void **state)
{
	struct pair p;
	struct rt_pt_sys s = { .cycle_buffer = 4096, .cache_line = 64, .mtu = IBV_MTU_1024 };
	struct rt_pt_key mine[2] = { key1, key1 }, theirs[2];
	struct rt_pt_bw_report r = { 0 }, peer;
	pid_t pid;
	int status;

	(void)state;
	connect_pair(&p, 2000);
	mine[0].qpn = 0x98;
	mine[1].qpn = 0x99;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child_client(&p));
	rt_oob_close(&p.cli.tcp);
	assert_int_equal(rt_pt_handshake(&p.srv, false, &s, &p.err), 0);
	assert_int_equal(s.cache_line, 128);
	assert_int_equal(rt_pt_keys_q(&p.srv, false, true, mine, theirs, 2, &p.err), 0);
	assert_int_equal(theirs[1].qpn, 0xabce);
	assert_int_equal(rt_pt_barrier(&p.srv, false, true, &mine[0], &theirs[0], "run",
				       &p.err), 0);
	assert_int_equal(rt_pt_bw_report_xchg(&p.srv, false, s.peer_version, &r, &peer,
					      &p.err), 0);
	assert_int_equal(peer.size, 65536);
	assert_int_equal(peer.iters, 5000);
	assert_true(peer.bw_peak == 1.5 && peer.bw_avg == 1.25 && peer.msg_rate == 0.02);
	if (rt_pt_close(&p.srv, false, true, &mine[0], &theirs[0], &p.err))
		fail_msg("%s", p.err.reason);
	rt_oob_close(&p.srv.tcp);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* A barrier that brings another QP's record: the peer has more QPs or
 * walks another test's sequence. */
static void barrier_names_mismatch(void **state)
{
	struct pair p;
	struct rt_pt_key other = key1, peer0 = key1;
	char msg[RT_PT_KEY_LEN];

	(void)state;
	connect_pair(&p, 500);
	other.qpn = 0xabcf;
	rt_pt_key_encode(msg, false, &other);
	assert_int_equal(rt_oob_write(&p.cli.tcp, msg, sizeof(msg), &p.err), 0);
	assert_int_equal(rt_pt_barrier(&p.srv, false, false, &key1, &peer0, "start",
				       &p.err), -1);
	assert_non_null(strstr(p.err.reason, "different test or -q"));
	assert_non_null(strstr(p.err.reason, "start"));
	close_pair(&p);
}

/* The report as perftest 4.5 sends it: 8-byte size and iterations, then
 * three big-endian doubles; a peer below 5.33 sends 4-byte iterations. */
static void bw_report_bytes(void **state)
{
	struct pair p;
	struct rt_pt_bw_report mine = { .size = 65536, .iters = 5000, .bw_peak = 1.0,
					.bw_avg = 0.5, .msg_rate = 2.0 }, theirs;
	uint8_t in[40] = { 0 }, got[36];

	(void)state;
	connect_pair(&p, 500);
	rt_put_be64(in, 4096);
	rt_put_be32(in + 8, 1000); /* 4-byte iterations */
	rt_put_be64(in + 12, 0x4000000000000000ull); /* 2.0 */
	rt_put_be64(in + 20, 0x3ff0000000000000ull); /* 1.0 */
	rt_put_be64(in + 28, 0x3fe0000000000000ull); /* 0.5 */
	assert_int_equal(rt_oob_write(&p.cli.tcp, in, 36, &p.err), 0);
	assert_int_equal(rt_pt_bw_report_xchg(&p.srv, false, 532, &mine, &theirs, &p.err), 0);
	assert_int_equal(theirs.size, 4096);
	assert_int_equal(theirs.iters, 1000);
	assert_true(theirs.bw_peak == 2.0 && theirs.bw_avg == 1.0 && theirs.msg_rate == 0.5);
	assert_int_equal(rt_oob_read(&p.cli.tcp, got, sizeof(got), &p.err), 0);
	assert_int_equal(rt_get_be64(got), 65536);
	assert_int_equal(rt_get_be32(got + 8), 5000);
	assert_int_equal(rt_get_be64(got + 12), 0x3ff0000000000000ull);
	/* a NaN average is refused */
	rt_put_be64(in, 4096);
	rt_put_be64(in + 8, 1000);
	rt_put_be64(in + 16, 0);
	rt_put_be64(in + 24, 0x7ff8000000000000ull);
	rt_put_be64(in + 32, 0);
	assert_int_equal(rt_oob_write(&p.cli.tcp, in, 40, &p.err), 0);
	assert_int_equal(rt_pt_bw_report_xchg(&p.srv, false, 606, &mine, &theirs, &p.err), 0);
	assert_int_equal(rt_pt_bw_report_check(&theirs, 4096, "peer", &p.err), -1);
	assert_non_null(strstr(p.err.reason, "finite"));
	/* a good report of another size names -s */
	memset(&p.err, 0, sizeof(p.err));
	theirs.bw_avg = 1.0;
	assert_int_equal(rt_pt_bw_report_check(&theirs, 4096, "peer", &p.err), 0);
	assert_int_equal(rt_pt_bw_report_check(&theirs, 65536, "peer", &p.err), -1);
	assert_non_null(strstr(p.err.reason, "-s differs"));
	close_pair(&p);
}

/* perftest 4.5 writes "done" and closes; newer perftest only closes;
 * anything else at the close is named. */
static void close_variants(void **state)
{
	struct pair p;
	char msg[RT_PT_KEY_LEN], got[RT_PT_KEY_LEN + RT_PT_DONE_LEN];

	(void)state;
	rt_pt_key_encode(msg, false, &key1);
	for (int v = 0; v < 3; v++) {
		connect_pair(&p, 500);
		assert_int_equal(rt_oob_write(&p.srv.tcp, msg, sizeof(msg), &p.err), 0);
		if (v == 0)
			assert_int_equal(rt_oob_write(&p.srv.tcp, "done", RT_PT_DONE_LEN, &p.err), 0);
		if (v == 2)
			assert_int_equal(rt_oob_write(&p.srv.tcp, "DONE", RT_PT_DONE_LEN, &p.err), 0);
		rt_oob_close(&p.srv.tcp);
		assert_int_equal(rt_pt_close(&p.cli, true, false, &key1, &key1, &p.err),
				 v == 2 ? -1 : 0);
		if (v == 2)
			assert_non_null(strstr(p.err.reason, "not \"done\""));
		rt_oob_close(&p.cli.tcp);
	}
	/* the server reads the client's record and done, and writes its own */
	connect_pair(&p, 500);
	assert_int_equal(rt_oob_write(&p.cli.tcp, msg, sizeof(msg), &p.err), 0);
	assert_int_equal(rt_oob_write(&p.cli.tcp, "done", RT_PT_DONE_LEN, &p.err), 0);
	if (rt_pt_close(&p.srv, false, false, &key1, &key1, &p.err))
		fail_msg("%s", p.err.reason);
	assert_int_equal(rt_oob_read(&p.cli.tcp, got, sizeof(got), &p.err), 0);
	assert_memory_equal(got, msg, sizeof(msg));
	assert_memory_equal(got + sizeof(msg), "done", RT_PT_DONE_LEN);
	close_pair(&p);
}

/* ---- report arithmetic ----------------------------------------------------------- */

static void bw_arithmetic(void **state)
{
	struct rt_pt_bw_report r;
	char row[160];

	(void)state;
	/* 5000 × 65536 B in 0.25 s: 1310720000 B/s = 1250 MiB/s, 0.02 Mpps;
	 * best 40 µs per message: 1638400000 B/s = 1562.5 MiB/s */
	rt_pt_bw_figures(&r, 65536, 5000, 250000000, 40000, false);
	assert_true(r.bw_avg > 1249.999 && r.bw_avg < 1250.001);
	assert_true(r.msg_rate > 0.019999 && r.msg_rate < 0.020001);
	assert_true(r.bw_peak > 1562.499 && r.bw_peak < 1562.501);
	rt_pt_bw_row(row, sizeof(row), &r, false);
	assert_string_equal(row, " 65536      5000             1562.50            1250.00"
			    "\t\t   0.020000");
	/* in Gb/s: 1310720000 B/s / 1.25e8 = 10.48576 */
	rt_pt_bw_figures(&r, 65536, 5000, 250000000, 0, true);
	assert_true(r.bw_avg > 10.4857 && r.bw_avg < 10.4858);
	assert_true(r.bw_peak == 0);
	/* below 0.1 Gb/s: six decimals. 1000 × 2 B in 1 s = 0.000016 Gb/s */
	rt_pt_bw_figures(&r, 2, 1000, 1000000000, 0, true);
	rt_pt_bw_row(row, sizeof(row), &r, true);
	assert_string_equal(row, " 2          1000           0.000000            0.000016"
			    "            0.001000");
	assert_non_null(strstr(rt_pt_bw_header(true), "BW average[Gb/sec]"));
	assert_non_null(strstr(rt_pt_bw_header(false), "BW average[MB/sec]"));
}

static void lat_arithmetic(void **state)
{
	struct rt_pt_lat l = { 0 };
	struct rt_pt_lat_figures f;
	char row[200];

	(void)state;
	assert_false(rt_pt_lat_figures(&l, 2, &f));
	/* round trips of 20, 22, ... 38 µs, then 90 and 100 µs: 12 samples,
	 * one way (÷2) 10..19, 45, 50. perftest drops 45 and 50: n = 10, mean
	 * 14.5, median (14 + 15) / 2 = 14.5, t_max the second largest, 45;
	 * index ceil(9.9) = 10 and ceil(9.99) = 10: 45 too. */
	for (int i = 0; i < 10; i++)
		rt_pt_lat_add(&l, (uint64_t)(20000 + 2000 * i));
	rt_pt_lat_add(&l, 100000);
	rt_pt_lat_add(&l, 90000);
	assert_true(rt_pt_lat_figures(&l, 2, &f));
	assert_int_equal(f.samples, 12);
	assert_true(f.t_min == 10.0);
	assert_true(f.t_max == 45.0);
	assert_true(f.max == 50.0);
	assert_true(f.t_avg > 14.4999 && f.t_avg < 14.5001);
	/* the kept samples 10..19 µs: variance 8.25, deviation 2.8723; perftest
	 * truncates each difference from 14.5 first: 4 3 2 1 0 0 1 2 3 4,
	 * squares summing to 60, root of 6 */
	assert_true(f.stdev > 2.8722 && f.stdev < 2.8724);
	assert_true(f.t_stdev > 2.4494 && f.t_stdev < 2.4495);
	/* 14 and 15 µs are exact only within a bucket: 28000 and 30000 ns
	 * round trips lie in buckets of 256 ns */
	assert_true(f.t_typical > 14.4 && f.t_typical < 14.6);
	assert_true(f.p99 == 45.0 && f.p999 == 45.0);
	/* over all 12: p50 is rank 6 (30 µs ÷ 2 = 15), p90 rank 11 (45),
	 * p99, p99.9, p99.99 rank 12 (50) */
	assert_true(f.p50 > 14.9 && f.p50 < 15.1);
	assert_true(f.p90 == 45.0);
	assert_true(f.p99_all == 50.0 && f.p9999_all == 50.0);
	rt_pt_lat_row(row, sizeof(row), 2, 13, &f);
	assert_non_null(strstr(row, " 2       13          10.00          45.00 "));
	assert_non_null(strstr(rt_pt_lat_header(), "t_typical[usec]"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(key_encode_exact),
		cmocka_unit_test(key_round_trip),
		cmocka_unit_test(key_malformed),
		cmocka_unit_test(key_binary),
		cmocka_unit_test(version_messages),
		cmocka_unit_test(mtu_messages),
		cmocka_unit_test(handshake_order),
		cmocka_unit_test(handshake_server_bytes),
		cmocka_unit_test(handshake_bad_sys),
		cmocka_unit_test(both_sides),
		cmocka_unit_test(barrier_names_mismatch),
		cmocka_unit_test(bw_report_bytes),
		cmocka_unit_test(close_variants),
		cmocka_unit_test(bw_arithmetic),
		cmocka_unit_test(lat_arithmetic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
