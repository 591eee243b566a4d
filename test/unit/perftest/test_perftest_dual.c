/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* -O (--dualport) and --report-per-port (perftest_dual.h): which port
 * each QP runs on, port 2's GID choice (perftest's walk), the per-port
 * figures, row and header, the report's four more doubles on the wire,
 * the combination rules with -q doubled, and the device steps against a
 * fake two-port device (libibverbs' queries replaced with -Wl,--wrap):
 * the port count, port 2's state and link layer, port 2's local end and
 * which port and local end each QP takes. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "perftest/perftest_wire.h"
#include "perftest/perftest_conn.h"
#include "perftest/perftest_dual.h"
#include "perftest/perftest_opts.h"
#include "pt_parse.h"
#include "perftest/perftest_report.h"
#include "rdmatest/util.h"

#define RT_CFG struct rt_pt_cfg

static const struct rt_opt send_bw_opts[] = {
	RT_PT_OPTS_CONN, RT_PT_OPT_SIZE("65536"), RT_PT_OPT_ITERS("1000"),
	RT_PT_OPT_TX_DEPTH("128"), RT_PT_OPT_RX_DEPTH("512"), RT_PT_OPT_INLINE("0"),
	RT_PT_OPTS_RUN, RT_PT_OPTS_BW, RT_PT_OPTS_RES, RT_PT_OPTS_RES_BW,
	RT_PT_OPT_SRQ, RT_PT_OPTS_REPORT, RT_PT_OPTS_REPORT_BW, RT_PT_OPTS_MCG, { 0 },
};

static int send_bw(struct rt_pt_params *p, struct rt_error *err, ...)
{
	va_list ap;
	int rc;

	va_start(ap, err);
	rc = pt_vparse(p, err, send_bw_opts, "ib_send_bw",
		       (struct rt_pt_test){ RT_PT_SEND, RT_PT_BW }, ap);
	va_end(ap);
	return rc;
}

static void refused(int rc, const struct rt_error *err, const char *want)
{
	assert_int_equal(rc, -1);
	assert_int_equal(err->exit_code, RT_EXIT_USAGE);
	if (!strstr(err->reason, want))
		fail_msg("reason '%s' lacks '%s'", err->reason, want);
}

/* perftest: i % Q < Q / 2 on port 1, the rest on port 2. */
static void port_of_each_qp(void **state)
{
	(void)state;
	assert_int_equal(rt_pt_dual_slot(0, 2, true), 0);
	assert_int_equal(rt_pt_dual_slot(1, 2, true), 1);
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(rt_pt_dual_slot(i, 8, true), i < 4 ? 0 : 1);
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(rt_pt_dual_slot(i, 8, false), 0);
	assert_int_equal(rt_pt_dual_slot(0, 0, true), 0);
	/* 2 x 1024 QPs: the halves meet at 1024 */
	assert_int_equal(rt_pt_dual_slot(1023, 2048, true), 0);
	assert_int_equal(rt_pt_dual_slot(1024, 2048, true), 1);
}

#define V1(v4) { true, (v4), false }
#define V2(v4) { true, (v4), true }
#define NONE { false, false, false }

static void gid_walk(void **state)
{
	/* a RoCE port's usual table: link-local v1 and v2, then an IPv4
	 * address's v1 and v2 */
	const struct rt_pt_gid_cand roce[] = { V1(false), V2(false), V1(true), V2(true) };
	/* IB: every entry alike, the first stays */
	const struct rt_pt_gid_cand ib[] = { V1(false), V1(false) };
	/* perftest weighs versions across families: a v6 v2 entry beats a v4
	 * v1 one when no v4 v2 follows */
	const struct rt_pt_gid_cand mixed[] = { V1(true), V2(false) };
	const struct rt_pt_gid_cand holes[] = { NONE, V1(false), NONE, V2(true), NONE };
	const struct rt_pt_gid_cand empty[] = { NONE, NONE };

	(void)state;
	assert_int_equal(rt_pt_dual_best_gid(roce, 4, false), 3);
	assert_int_equal(rt_pt_dual_best_gid(roce, 4, true), 1);
	assert_int_equal(rt_pt_dual_best_gid(ib, 2, false), 0);
	assert_int_equal(rt_pt_dual_best_gid(mixed, 2, false), 1);
	assert_int_equal(rt_pt_dual_best_gid(holes, 5, false), 3);
	/* with --ipv6 a v4 v2 entry still beats a v6 v1 one (perftest's walk) */
	assert_int_equal(rt_pt_dual_best_gid(holes, 5, true), 3);
	assert_int_equal(rt_pt_dual_best_gid(empty, 2, false), -1);
	assert_int_equal(rt_pt_dual_best_gid(roce, 0, false), -1);
}

/* Each port over the total's window: 3 s, 64 KiB messages. */
static void per_port_figures(void **state)
{
	struct rt_pt_bw_report r = { 0 }, peer = { 0 };
	const uint64_t msgs[2] = { 30000, 15000 };
	char row[400];

	(void)state;
	rt_pt_bw_figures(&r, 65536, 45000, 3000000000ull, 0, false);
	rt_pt_dual_figures(&r, 65536, msgs, 3000000000ull, false);
	assert_float_equal(r.bw_port[0], 65536.0 * 10000 / 1048576, 1e-9);
	assert_float_equal(r.bw_port[1], 65536.0 * 5000 / 1048576, 1e-9);
	assert_float_equal(r.rate_port[0], 0.01, 1e-12);
	assert_float_equal(r.rate_port[1], 0.005, 1e-12);
	/* the ports add up to the total */
	assert_float_equal(r.bw_port[0] + r.bw_port[1], r.bw_avg, 1e-9);
	assert_float_equal(r.rate_port[0] + r.rate_port[1], r.msg_rate, 1e-12);
	rt_pt_dual_figures(&peer, 65536, msgs, 3000000000ull, true);
	assert_float_equal(peer.bw_port[0], 65536.0 * 8 * 10000 / 1e9, 1e-9);
	/* -b: the peer's added */
	rt_pt_dual_sum(&r, &peer);
	assert_float_equal(r.rate_port[1], 0.01, 1e-12);
	/* nothing in the window: zeros, no division by zero */
	rt_pt_dual_figures(&peer, 65536, (const uint64_t[2]){ 0, 0 }, 0, false);
	assert_true(peer.bw_port[0] == 0 && peer.rate_port[1] == 0);
	/* perftest's REPORT_FMT_PER_PORT */
	r = (struct rt_pt_bw_report){ .size = 65536, .iters = 45000, .bw_avg = 937.5,
				      .msg_rate = 0.015, .bw_port = { 625, 312.5 },
				      .rate_port = { 0.01, 0.005 } };
	rt_pt_dual_row(row, sizeof(row), &r);
	assert_string_equal(row, " 65536      45000          0.00               937.50 \t\t"
			    "   0.015000        625.00             0.010000              "
			    "312.50             0.005000");
	assert_non_null(strstr(rt_pt_dual_header(false), "BW Port1[MB/sec]   MsgRate "
			       "Port1[Mpps]   BW Port2[MB/sec]   MsgRate Port2[Mpps]"));
	assert_non_null(strstr(rt_pt_dual_header(true), "BW Port2[Gb/sec]"));
	assert_int_equal(strlen(RT_PT_DUAL_LINE), 163);
}

/* The four doubles, big-endian, port 1's BW and rate then port 2's; the
 * client writes first. */
static void report_on_the_wire(void **state)
{
	int sv[2];
	struct rt_pt_chan a = { .cm = NULL };
	struct rt_pt_bw_report mine = { .bw_port = { 1.5, 2.5 }, .rate_port = { 0.25, 0.5 } };
	struct rt_pt_bw_report theirs = { 0 };
	uint8_t wire[32], back[32] = { 0 };
	uint64_t bits;
	double one = 1.5;
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	rt_oob_init(&a.tcp, 2000);
	a.tcp.fd = sv[0];
	/* the peer (the server) answers with zeros after reading ours */
	assert_int_equal(write(sv[1], back, sizeof(back)), (ssize_t)sizeof(back));
	assert_int_equal(rt_pt_dual_report_xchg(&a, true, &mine, &theirs, &err), 0);
	assert_int_equal(read(sv[1], wire, sizeof(wire)), (ssize_t)sizeof(wire));
	memcpy(&bits, &one, sizeof(bits));
	assert_true(rt_get_be64(wire) == bits);
	memcpy(&bits, &(double){ 0.5 }, sizeof(bits));
	assert_true(rt_get_be64(wire + 24) == bits);
	assert_true(theirs.bw_port[0] == 0 && theirs.rate_port[1] == 0);
	/* a peer without --report-per-port sends something else: a NaN is
	 * named */
	memset(back, 0xff, sizeof(back));
	assert_int_equal(write(sv[1], back, sizeof(back)), (ssize_t)sizeof(back));
	assert_int_equal(rt_pt_dual_report_xchg(&a, true, &mine, &theirs, &err), -1);
	assert_non_null(strstr(err.reason, "per-port report"));
	close(sv[0]);
	close(sv[1]);
}

static void rules(void **state)
{
	struct rt_pt_params p;
	struct rt_error err;

	(void)state;
	/* -O doubles -q, on ports 1 and 2 */
	assert_int_equal(send_bw(&p, &err, "-O", "h", NULL), 0);
	assert_true(p.opt.dual.on);
	assert_int_equal(p.opt.qps, 2);
	assert_int_equal(p.opt.ib_port, 1);
	assert_int_equal(send_bw(&p, &err, "-O", "-q", "4", "h", NULL), 0);
	assert_int_equal(p.opt.qps, 8);
	assert_int_equal(send_bw(&p, &err, "-O", "-q", "1024", "h", NULL), 0);
	assert_int_equal(p.opt.qps, 2048);
	assert_int_equal(send_bw(&p, &err, "-O", "-i", "1", "h", NULL), 0);
	refused(send_bw(&p, &err, "-O", "-i", "2", "h", NULL), &err, "ports 1 and 2");
	refused(send_bw(&p, &err, "-O", "-R", "h", NULL), &err, "-R exclude");
	/* -g exits 3 before (perftest_ud.c: no multicast on RoCE); -O's own
	 * refusal of it stands for a device that has it */
	assert_int_equal(send_bw(&p, &err, "-O", "-g", "h", NULL), -1);
	/* UD and -z: the QPs are connected by hand, port by port */
	assert_int_equal(send_bw(&p, &err, "-O", "-c", "UD", "h", NULL), 0);
	assert_int_equal(send_bw(&p, &err, "-O", "-z", "h", NULL), 0);
	/* --report-per-port: -O and -D */
	assert_int_equal(send_bw(&p, &err, "-O", "-D", "4", "--report-per-port", "h",
				 NULL), 0);
	assert_true(p.opt.dual.per_port);
	refused(send_bw(&p, &err, "-D", "4", "--report-per-port", "h", NULL), &err,
		"-D and -O");
	refused(send_bw(&p, &err, "-O", "--report-per-port", "h", NULL), &err,
		"-D and -O");
	refused(send_bw(&p, &err, "-O", "-D", "4", "--report-per-port",
			"--run_infinitely", "h", NULL), &err, "--run_infinitely");
}

/* ---- a fake two-port device ---------------------------------------------- */

static struct ibv_context fake_ctx; /* abi_compat NULL: the legacy query path */
static struct ibv_device_attr fake_attr;
static struct ibv_port_attr fake_port[3];
/* port 2's GID table: link-local v1 and v2, then 192.0.2.7's v1 and v2 */
static union ibv_gid fake_gid[4];
static const enum ibv_gid_type fake_type[4] = {
	IBV_GID_TYPE_ROCE_V1, IBV_GID_TYPE_ROCE_V2, IBV_GID_TYPE_ROCE_V1,
	IBV_GID_TYPE_ROCE_V2,
};

int __wrap_ibv_query_device(struct ibv_context *c, struct ibv_device_attr *a)
{
	(void)c;
	*a = fake_attr;
	return 0;
}

int __wrap_ibv_query_port(struct ibv_context *c, uint8_t port, void *attr)
{
	(void)c;
	if (port < 1 || port > 2)
		return EINVAL;
	memcpy(attr, &fake_port[port], sizeof(fake_port[port]));
	return 0;
}

int __wrap_ibv_query_gid(struct ibv_context *c, uint8_t port, int index,
			 union ibv_gid *gid)
{
	(void)c;
	assert_int_equal(port, 2);
	if (index < 0 || index > 3)
		return EINVAL;
	*gid = fake_gid[index];
	return 0;
}

int __wrap__ibv_query_gid_ex(struct ibv_context *c, uint32_t port, uint32_t index,
			     struct ibv_gid_entry *e, uint32_t flags, size_t size)
{
	(void)c, (void)flags;
	assert_int_equal(port, 2);
	assert_true(size >= sizeof(*e));
	if (index > 3)
		return EINVAL;
	memset(e, 0, sizeof(*e));
	e->gid = fake_gid[index];
	e->gid_index = index;
	e->gid_type = fake_type[index];
	return 0;
}

static struct rt_run run;
static struct rt_pt_params params;

/* A two-port RoCE device, both ports ACTIVE, -O with -q 2 (4 QPs). */
static void fake_device(struct rt_pt_conn *c, enum ibv_port_state s2, uint8_t ll2)
{
	static const uint8_t v4[16] = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 7 };

	memset(&run, 0, sizeof(run));
	params = (struct rt_pt_params){ .opt = { .gid_index = -1, .qps = 4,
						    .dual.on = true } };
	fake_attr = (struct ibv_device_attr){ .phys_port_cnt = 2 };
	for (int i = 1; i <= 2; i++)
		fake_port[i] = (struct ibv_port_attr){ .state = IBV_PORT_ACTIVE,
			.link_layer = IBV_LINK_LAYER_ETHERNET, .gid_tbl_len = 4, .lid = 0 };
	fake_port[2].state = s2;
	fake_port[2].link_layer = ll2;
	for (int i = 0; i < 4; i++) {
		memset(&fake_gid[i], 0, sizeof(fake_gid[i]));
		fake_gid[i].raw[0] = 0xfe;
		fake_gid[i].raw[1] = 0x80;
		fake_gid[i].raw[15] = (uint8_t)i;
	}
	memcpy(fake_gid[2].raw, v4, 16);
	memcpy(fake_gid[3].raw, v4, 16);
	memset(c, 0, sizeof(*c));
	c->run = &run;
	c->p = &params;
	c->d = (struct rt_vdev){ .ctx = &fake_ctx, .port = 1, .attr = fake_port[1] };
	snprintf(c->d.name, sizeof(c->d.name), "mlx5_0");
	c->spec.local = (struct rt_vaddr){ .grh = true, .gid_index = 3 };
}

static void device_checks(void **state)
{
	struct rt_pt_conn c;

	(void)state;
	fake_device(&c, IBV_PORT_ACTIVE, IBV_LINK_LAYER_ETHERNET);
	fake_attr.phys_port_cnt = 1;
	assert_int_equal(rt_pt_dual_device(&c), -1);
	assert_int_equal(run.err.exit_code, RT_EXIT_ENV);
	assert_string_equal(run.err.reason, "-O (--dualport): mlx5_0 has 1 port, a "
			    "dual-port run needs two");
	assert_false(c.dual.on);
	fake_device(&c, IBV_PORT_DOWN, IBV_LINK_LAYER_ETHERNET);
	assert_int_equal(rt_pt_dual_device(&c), -1);
	assert_int_equal(run.err.exit_code, RT_EXIT_ENV);
	assert_non_null(strstr(run.err.reason, "mlx5_0 port 2 is down, not ACTIVE"));
	fake_device(&c, IBV_PORT_ACTIVE, IBV_LINK_LAYER_INFINIBAND);
	assert_int_equal(rt_pt_dual_device(&c), -1);
	assert_int_equal(run.err.exit_code, RT_EXIT_ENV);
	assert_non_null(strstr(run.err.reason, "mlx5_0 port 2 is IB, port 1 is Ethernet"));
	/* without -O nothing is asked */
	fake_device(&c, IBV_PORT_DOWN, IBV_LINK_LAYER_INFINIBAND);
	params.opt.dual.on = false;
	assert_int_equal(rt_pt_dual_device(&c), 0);
	assert_false(c.dual.on);
	assert_ptr_equal(rt_pt_dual_dev(&c, 3), &c.d);
	assert_ptr_equal(rt_pt_dual_local(&c, 3), &c.spec.local);
}

/* RoCE: port 2's GID by perftest's walk (192.0.2.7's v2, entry 3), or
 * -x's entry; QPs 0 and 1 on port 1 with its local end, 2 and 3 on port 2. */
static void roce_two_ports(void **state)
{
	struct rt_pt_conn c;

	(void)state;
	fake_device(&c, IBV_PORT_ACTIVE, IBV_LINK_LAYER_ETHERNET);
	assert_int_equal(rt_pt_dual_device(&c), 0);
	assert_true(c.dual.on);
	assert_int_equal(c.dual.d2.port, 2);
	assert_ptr_equal(c.dual.d2.ctx, &fake_ctx);
	assert_int_equal(rt_pt_dual_path(&c), 0);
	assert_true(c.dual.gid_auto2 && c.dual.local2.grh);
	assert_int_equal(c.dual.local2.gid_index, 3);
	assert_memory_equal(c.dual.local2.gid.raw, fake_gid[3].raw, 16);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(rt_pt_dual_dev(&c, i)->port, i < 2 ? 1 : 2);
		assert_ptr_equal(rt_pt_dual_local(&c, i), i < 2 ? &c.spec.local :
				 &c.dual.local2);
	}
	/* --ipv6: the v2 link-local entry */
	params.opt.res.ipv6 = true;
	assert_int_equal(rt_pt_dual_path(&c), 0);
	assert_int_equal(c.dual.local2.gid_index, 1);
	/* -x 2: that entry on port 2 too, as perftest's use_gid_user */
	params.opt.res.ipv6 = false;
	params.opt.gid_index = 2;
	assert_int_equal(rt_pt_dual_path(&c), 0);
	assert_false(c.dual.gid_auto2);
	assert_int_equal(c.dual.local2.gid_index, 2);
	/* an entry port 2 lacks is named */
	params.opt.gid_index = 9;
	assert_int_equal(rt_pt_dual_path(&c), -1);
	assert_int_equal(run.err.exit_code, RT_EXIT_ENV);
}

/* IB without -x: port 2's LID alone, no GRH; LID 0 is named. */
static void ib_two_ports(void **state)
{
	struct rt_pt_conn c;

	(void)state;
	fake_device(&c, IBV_PORT_ACTIVE, IBV_LINK_LAYER_INFINIBAND);
	fake_port[1].link_layer = IBV_LINK_LAYER_INFINIBAND;
	c.d.attr = fake_port[1];
	fake_port[2].lid = 7;
	assert_int_equal(rt_pt_dual_device(&c), 0);
	assert_int_equal(rt_pt_dual_path(&c), 0);
	assert_false(c.dual.gid_auto2 || c.dual.local2.grh);
	assert_int_equal(c.dual.local2.lid, 7);
	fake_port[2].lid = 0;
	assert_int_equal(rt_pt_dual_device(&c), 0);
	assert_int_equal(rt_pt_dual_path(&c), -1);
	assert_non_null(strstr(run.err.reason, "port 2 has LID 0"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(port_of_each_qp),
		cmocka_unit_test(gid_walk),
		cmocka_unit_test(per_port_figures),
		cmocka_unit_test(report_on_the_wire),
		cmocka_unit_test(rules),
		cmocka_unit_test(device_checks),
		cmocka_unit_test(roce_two_ports),
		cmocka_unit_test(ib_two_ports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
