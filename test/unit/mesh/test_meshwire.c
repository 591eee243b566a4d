/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "mesh/meshwire.h"
#include "rdmatest/portctr.h"
#include "rdmatest/oob.h"
#include "rdmatest/util.h"

static struct rt_meshmsg hello(void)
{
	struct rt_meshmsg m = {.type = RT_MESHMSG_HELLO};

	m.u.hello = (struct rt_mesh_hello){.rank = 3, .size = 8, .port = 7471,
					   .token = 0x0123456789abcdefull,
					   .payload_mbps = 392149};
	strcpy(m.u.hello.host, "gpu07.cluster");
	return m;
}

/* A host of two rails: an ACTIVE 4X NDR RoCE port and a DOWN one. */
static struct rt_meshmsg hello_rails(void)
{
	struct rt_meshmsg m = hello();

	m.u.hello.nrails = 2;
	m.u.hello.rails[0] = (struct rt_mesh_rail){.dev = "mlx5_0", .rail = 0, .port = 1,
		.state = RT_RAIL_ACTIVE, .link = RT_RAIL_ETHERNET, .lanes = 4, .gid_index = 3,
		.mtu = 4096, .speed_mbps = 400000, .payload_mbps = 392149, .want_gbps = 400,
		.addr = "10.0.0.7"};
	m.u.hello.rails[1] = (struct rt_mesh_rail){.dev = "mlx5_3", .rail = 3, .port = 1,
		.state = RT_RAIL_DOWN, .link = RT_RAIL_IB, .lanes = 0, .gid_index = 0,
		.mtu = 0, .addr = "fd00::3:7"};
	return m;
}

static struct rt_meshmsg assign(void)
{
	struct rt_meshmsg m = {.type = RT_MESHMSG_ASSIGN};

	m.u.assign = (struct rt_mesh_assign){.round = 4, .rounds = 7, .peer = 5,
					     .role = RT_MESH_CONNECT, .port = 7471,
					     .qps = 1, .conns = 1, .tests = 1};
	strcpy(m.u.assign.host, "10.0.0.5");
	return m;
}

/* A pair's two rails: this rank's rail 0 and 2 against the partner's. */
static struct rt_meshmsg assign_rails(void)
{
	struct rt_meshmsg m = assign();

	m.u.assign.nrails = 2;
	m.u.assign.conns = 2;
	m.u.assign.rails[0] = (struct rt_mesh_arail){.rail = 0, .rail_b = 0, .addr = "10.0.0.5"};
	m.u.assign.rails[1] = (struct rt_mesh_arail){.rail = 2, .rail_b = 2, .addr = "fd00::2:5"};
	return m;
}

static struct rt_meshmsg result(void)
{
	struct rt_meshmsg m = {.type = RT_MESHMSG_RESULT};

	m.u.result = (struct rt_mesh_result){.round = 2, .a = 1, .b = 6,
		.status = RT_MESH_OK, .flags = RT_MESH_HAS_RTT | RT_MESH_HAS_BW,
		.connect_ns = 812345, .rtt_p50_ns = 9000, .rtt_p99_ns = 15000,
		.mbps = 97000, .mbps_rev = 96000};
	return m;
}

static struct rt_meshmsg verdict(void)
{
	struct rt_meshmsg m = {.type = RT_MESHMSG_VERDICT};

	m.u.verdict = (struct rt_mesh_verdict){.ready = 0, .bad_nodes = 1,
					       .bad_links = 2, .absent = 1};
	return m;
}

static struct rt_meshmsg hello_inv(void);
static struct rt_meshmsg (*const samples[])(void) = {hello, assign, result, verdict,
						      hello_rails, assign_rails, hello_inv};

static void round_trip(void **state)
{
	static const size_t sizes[] = {320, 96, 64 + RT_MESH_CTR_WIRE, 28, 320 + 2 * 184, 96 + 2 * 20,
				       320 + 2 * 184};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(samples); i++) {
		struct rt_meshmsg m = samples[i](), back;
		uint8_t buf[RT_MESHMSG_MAX], again[RT_MESHMSG_MAX];
		struct rt_error err = {0};
		size_t len = rt_meshmsg_encode(&m, buf);

		assert_int_equal(len, sizes[i]);
		assert_true(len <= RT_MESHMSG_MAX);
		assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), 0);
		assert_int_equal(back.type, m.type);
		assert_int_equal(rt_meshmsg_encode(&back, again), len);
		assert_memory_equal(buf, again, len);
	}
}

/* Damages one field of an encoded message; the decoder must refuse it
 * and say which. */
static void expect_refused(struct rt_meshmsg m, size_t off, uint8_t val,
			   uint32_t size, const char *part)
{
	uint8_t buf[RT_MESHMSG_MAX];
	size_t len = rt_meshmsg_encode(&m, buf);
	struct rt_meshmsg back;
	struct rt_error err = {0};

	buf[off] = val;
	assert_int_equal(rt_meshmsg_decode(buf, len, size, &back, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	if (!strstr(err.reason, part))
		fail_msg("offset %zu = 0x%02x: reason '%s' lacks '%s'", off, val,
			 err.reason, part);
}

/* The token travels whole, big endian, after the port and its padding. */
static void hello_carries_the_token(void **state)
{
	struct rt_meshmsg m = hello(), back;
	uint8_t buf[RT_MESHMSG_MAX];
	struct rt_error err = {0};
	size_t len = rt_meshmsg_encode(&m, buf);

	(void)state;
	assert_int_equal(buf[20], 0x01);
	assert_int_equal(buf[27], 0xef);
	buf[27] = 0xee;
	assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), 0);
	assert_true(back.u.hello.token == 0x0123456789abcdeeull);
	assert_string_equal(back.u.hello.host, "gpu07.cluster");
}

/* The payload rate travels after the host, big endian; a peer's figure is bounded
 * by the fastest port there is (12X XDR: 2,400,000 Mbit/s). */
static void hello_carries_the_payload_rate(void **state)
{
	struct rt_meshmsg m = hello(), back;
	uint8_t buf[RT_MESHMSG_MAX];
	struct rt_error err = {0};
	size_t len = rt_meshmsg_encode(&m, buf);

	(void)state;
	assert_int_equal(len, 320);
	assert_memory_equal(buf + 92, "\x00\x05\xfb\xd5", 4); /* 392149 */
	assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), 0);
	assert_int_equal(back.u.hello.payload_mbps, 392149);
	m.u.hello.payload_mbps = 2400000;
	len = rt_meshmsg_encode(&m, buf);
	assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), 0);
	assert_int_equal(back.u.hello.payload_mbps, 2400000);
	m.u.hello.payload_mbps = 2400001;
	expect_refused(m, 0, 'R', 8, "payload rate 2400001 Mbit/s is above the fastest port's 2400000");
	expect_refused(hello(), 92, 0xff, 8, "payload rate");
}

static void strict_fields(void **state)
{
	struct rt_meshmsg m;
	uint8_t buf[RT_MESHMSG_MAX];
	struct rt_error err = {0};
	struct rt_meshmsg back;

	(void)state;
	expect_refused(hello(), 0, 'X', 8, "magic");
	/* version 1 results had one direction's bandwidth: refused by name */
	expect_refused(hello(), 2, 1, 8, "version 1, this build speaks 12");
	/* version 3 hellos had no job token: refused, never taken as tokenless */
	expect_refused(hello(), 2, 3, 8, "version 3, this build speaks 12");
	/* version 4 hellos had no payload rate */
	expect_refused(hello(), 2, 4, 8, "version 4, this build speaks 12");
	/* version 5 hellos had no rails */
	expect_refused(hello(), 2, 5, 8, "version 5, this build speaks 12");
	/* version 6 results had no port counters */
	expect_refused(result(), 2, 6, 8, "version 6, this build speaks 12");
	/* version 7 hellos had no inventory */
	expect_refused(hello(), 2, 7, 8, "version 7, this build speaks 12");
	/* version 8 hellos had no rail GPU */
	expect_refused(hello(), 2, 8, 8, "version 8, this build speaks 12");
	/* version 9 assignments had no connection counts */
	expect_refused(assign(), 2, 9, 8, "version 9, this build speaks 12");
	/* version 10 rank 0s would judge a congestion counter as a retransmit */
	expect_refused(result(), 2, 10, 8, "version 10, this build speaks 12");
	/* version 11 rank 0s would refuse a netdev's pause counter as unknown */
	expect_refused(result(), 2, 11, 8, "version 11, this build speaks 12");
	expect_refused(hello(), 3, 9, 8, "unknown type 9");
	expect_refused(hello(), 7, 84, 8, "length");
	expect_refused(hello(), 11, 9, 8, "rank 9 is not below the size 8");
	expect_refused(hello(), 15, 9, 8, "size 9");
	expect_refused(hello(), 15, 0, 0, "size 0");
	expect_refused(hello(), 18, 1, 8, "padding");
	expect_refused(hello(), 28, 0, 8, "host");          /* empty name */
	expect_refused(hello(), 30, ' ', 8, "host");        /* not a name */
	expect_refused(hello(), 48, 'x', 8, "after its end");
	expect_refused(assign(), 11, 7, 8, "round 7 of 7");
	expect_refused(assign(), 19, 9, 8, "peer 9");
	expect_refused(assign(), 20, 3, 8, "unknown role 3");
	expect_refused(assign(), 21, 1, 8, "padding");
	m = assign();
	m.u.assign.port = 0;
	rt_meshmsg_encode(&m, buf);
	assert_int_equal(rt_meshmsg_decode(buf, 96, 8, &back, &err), -1);
	assert_non_null(strstr(err.reason, "port 0"));
	m = assign(); /* a rest with a peer */
	m.u.assign.role = RT_MESH_REST;
	expect_refused(m, 19, 5, 8, "a rest round with a peer");
	m.u.assign.peer = RT_MESH_NO_PEER;
	m.u.assign.port = 0;
	m.u.assign.host[0] = '\0';
	expect_refused(m, 30, 'x', 8, "assign rest padding");
	m.u.assign.qps = 0;
	m.u.assign.conns = 0;
	m.u.assign.tests = 0;
	expect_refused(m, 90, 2, 8, "a rest round with connections");
	expect_refused(m, 91, 1, 8, "a rest round with connections");
	expect_refused(result(), 15, 8, 8, "rank 8");
	expect_refused(result(), 19, 1, 8, "paired with itself");
	expect_refused(result(), 20, 4, 8, "unknown status 4");
	expect_refused(result(), 20, RT_MESH_FAILED, 8, "figures in a failed test");
	expect_refused(result(), 21, 8, 8, "unknown flags");
	expect_refused(result(), 22, 32, 8, "rail 32 and 0, want below 32");
	expect_refused(result(), 23, 40, 8, "rail 0 and 40");
	expect_refused(result(), 38, 0xff, 8, "median above its p99");
	expect_refused(result(), 21, RT_MESH_HAS_RTT, 8, "bandwidth without its flag");
	expect_refused(result(), 21, 0, 8, "ok without its RTT figures");
	expect_refused(verdict(), 8, 2, 8, "ready is 2");
	expect_refused(verdict(), 9, 2, 8, "interrupted 2");
	expect_refused(verdict(), 10, 2, 8, "self 2");
	expect_refused(verdict(), 11, 1, 8, "verdict padding");
	expect_refused(verdict(), 8, 1, 8, "do not add up");
	m = (struct rt_meshmsg){.type = RT_MESHMSG_VERDICT, .u.verdict.ready = 1};
	expect_refused(m, 8, 2, 8, "ready is 2"); /* the clean one passes this far */
	/* ready, but interrupted */
	expect_refused(m, 9, 1, 8, "do not add up");
	/* ready, yet blaming the receiver's host */
	expect_refused(m, 10, 1, 8, "do not add up");
	expect_refused(verdict(), 15, 9, 8, "do not add up");

	/* a message cut short or with a byte more */
	m = result();
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_meshmsg_decode(buf, 4, 8, &back, &err), -1);
	assert_non_null(strstr(err.reason, "shorter than its header"));
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_meshmsg_decode(buf, rt_meshmsg_encode(&m, buf) + 1, 8,
					   &back, &err), -1);
	assert_non_null(strstr(err.reason, "header says 180"));
}

/* A result whose ports' counters rose: rxe's retransmit counters at both
 * ends and a link counter, the packets sent. */
static struct rt_meshmsg result_ctrs(void)
{
	struct rt_meshmsg m = result();
	struct rt_mesh_ctrs *c = &m.u.result.ctr;

	m.u.result.flags |= RT_MESH_HAS_CTR;
	c->sent_known = 3;
	c->sent[0] = 100000;
	c->sent[1] = 250000;
	c->n = 3;
	c->more = 2;
	c->e[0] = (struct rt_mesh_ctr){(uint8_t)rt_portctr_id("link_downed"), RT_MESH_END_A, 1};
	c->e[1] = (struct rt_mesh_ctr){(uint8_t)rt_portctr_id("rcvd_seq_err"), RT_MESH_END_A, 52};
	c->e[2] = (struct rt_mesh_ctr){(uint8_t)rt_portctr_id("out_of_seq_request"),
				       RT_MESH_END_B, 40};
	return m;
}

/* The counter block travels whole and every field of it is checked. */
static void result_carries_counters(void **state)
{
	struct rt_meshmsg m = result_ctrs(), back;
	uint8_t buf[RT_MESHMSG_MAX];
	struct rt_error err = {0};
	size_t len = rt_meshmsg_encode(&m, buf);
	const size_t ctr = 64, e0 = ctr + 20, e1 = e0 + 12, e3 = e0 + 36;

	(void)state;
	assert_int_equal(len, RT_MESHMSG_SMALL);
	assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), 0);
	assert_int_equal(back.u.result.ctr.n, 3);
	assert_int_equal(back.u.result.ctr.more, 2);
	assert_true(back.u.result.ctr.sent[1] == 250000);
	assert_string_equal(rt_portctr_id_name(back.u.result.ctr.e[1].id), "rcvd_seq_err");
	assert_int_equal(back.u.result.ctr.e[1].delta, 52);
	assert_int_equal(back.u.result.ctr.e[2].end, RT_MESH_END_B);
	/* a congestion counter travels too, after the judged ones (meshctr.h):
	 * a mlx5 port's CNPs must not make the RESULT a stranger's */
	m = result_ctrs();
	m.u.result.ctr.n = 4;
	m.u.result.ctr.e[3] = m.u.result.ctr.e[2]; /* (end, number) order */
	m.u.result.ctr.e[2] = (struct rt_mesh_ctr){(uint8_t)rt_portctr_id("np_cnp_sent"),
						   RT_MESH_END_B, 7};
	len = rt_meshmsg_encode(&m, buf);
	assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), 0);
	assert_int_equal(back.u.result.ctr.n, 4);
	assert_string_equal(rt_portctr_id_name(back.u.result.ctr.e[2].id), "np_cnp_sent");
	assert_int_equal(back.u.result.ctr.e[2].delta, 7);
	/* a failed test keeps its counters: often what made it fail */
	m = result_ctrs();
	m.u.result.status = RT_MESH_TIMEOUT;
	m.u.result.flags = RT_MESH_HAS_CTR;
	m.u.result.rtt_p50_ns = m.u.result.rtt_p99_ns = m.u.result.mbps = m.u.result.mbps_rev = 0;
	len = rt_meshmsg_encode(&m, buf);
	assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), 0);
	assert_int_equal(back.u.result.ctr.n, 3);

	expect_refused(result_ctrs(), ctr + 1, 9, 8, "9 counters");
	expect_refused(result_ctrs(), ctr + 1, 0, 8, "0 counters and more");
	expect_refused(result(), ctr + 1, 1, 8, "some only with the flag");
	expect_refused(result_ctrs(), ctr, 4, 8, "packets sent without their bit");
	expect_refused(result_ctrs(), ctr, 2, 8, "packets sent without their bit");
	expect_refused(result_ctrs(), ctr + 3, 1, 8, "counters padding");
	expect_refused(result_ctrs(), e0 + 1, 2, 8, "end 2");
	expect_refused(result_ctrs(), e0, (uint8_t)rt_portctr_id("sent_pkts"), 8,
		       "a link or retransmit counter");
	expect_refused(result_ctrs(), e0, 250, 8, "counter 250");
	expect_refused(result_ctrs(), e0 + 2, 1, 8, "entry 0 is not zero");
	expect_refused(result_ctrs(), e1, (uint8_t)rt_portctr_id("link_downed"), 8,
		       "out of (end, counter) order");
	expect_refused(result_ctrs(), e3 + 11, 1, 8, "entry 3 is not zero");
	m = result_ctrs();
	m.u.result.ctr.e[1].delta = 0;
	expect_refused(m, 0, 'R', 8, "rise 0");
}

/* A HELLO's rails: each field travels, each is range-checked, and the
 * header's length must be the rail count's. */
static void hello_carries_rails(void **state)
{
	struct rt_meshmsg m = hello_rails(), back;
	uint8_t buf[RT_MESHMSG_MAX];
	struct rt_error err = {0};
	size_t len = rt_meshmsg_encode(&m, buf);
	const size_t r0 = 320, r1 = 320 + 184;

	(void)state;
	assert_int_equal(buf[96], 2);
	assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), 0);
	assert_int_equal(back.u.hello.nrails, 2);
	assert_string_equal(back.u.hello.rails[0].dev, "mlx5_0");
	assert_int_equal(back.u.hello.rails[0].gid_index, 3);
	assert_int_equal(back.u.hello.rails[0].mtu, 4096);
	assert_int_equal(back.u.hello.rails[0].lanes, 4);
	assert_int_equal(back.u.hello.rails[0].speed_mbps, 400000);
	assert_int_equal(back.u.hello.rails[0].payload_mbps, 392149);
	assert_int_equal(back.u.hello.rails[0].want_gbps, 400);
	assert_int_equal(back.u.hello.rails[1].want_gbps, 0);
	assert_string_equal(back.u.hello.rails[0].addr, "10.0.0.7");
	assert_int_equal(back.u.hello.rails[1].rail, 3);
	assert_int_equal(back.u.hello.rails[1].state, RT_RAIL_DOWN);
	assert_string_equal(back.u.hello.rails[1].addr, "fd00::3:7");
	assert_string_equal(rt_rail_link_name(back.u.hello.rails[1].link), "InfiniBand");
	/* the count and the length must agree */
	expect_refused(hello_rails(), 96, 1, 8, "1 rails in a message of 2");
	expect_refused(hello_rails(), 96, 3, 8, "3 rails in a message of 2");
	expect_refused(hello_rails(), 97, 1, 8, "padding");
	expect_refused(hello_rails(), 7, (uint8_t)(312 + 2 * 184 + 1), 8, "length");
	m = hello();
	m.u.hello.nrails = 1;
	m.u.hello.rails[0] = hello_rails().u.hello.rails[0];
	len = rt_meshmsg_encode(&m, buf);
	buf[7] = (uint8_t)(312 + 33 * 184); /* 33 rails: above the bound */
	buf[6] = (uint8_t)((312 + 33 * 184) >> 8);
	assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), -1);
	assert_non_null(strstr(err.reason, "length"));
	/* each field's range */
	expect_refused(hello_rails(), r0, 0, 8, "device is not a name");
	expect_refused(hello_rails(), r0 + 2, ' ', 8, "device is not a name");
	expect_refused(hello_rails(), r0 + 10, 'x', 8, "device is not a name");
	expect_refused(hello_rails(), r1 + 32, 0, 8, "rail 0 after rail 0");
	expect_refused(hello_rails(), r1 + 32, 32, 8, "rail 32 after rail 0");
	expect_refused(hello_rails(), r0 + 33, 0, 8, "port 0");
	expect_refused(hello_rails(), r0 + 34, 6, 8, "state 6");
	expect_refused(hello_rails(), r0 + 35, 3, 8, "link 3");
	expect_refused(hello_rails(), r0 + 36, 3, 8, "3 lanes");
	expect_refused(hello_rails(), r0 + 37, 5, 8, "family 5");
	expect_refused(hello_rails(), r0 + 38, 4, 8, "GID index 1027");
	expect_refused(hello_rails(), r0 + 41, 1, 8, "MTU 4097");
	expect_refused(hello_rails(), r0 + 42, 0xff, 8, "expected rate 65424 Gb/s (at most 2400)");
	expect_refused(hello_rails(), r0 + 44, 0xff, 8, "speed");
	expect_refused(hello_rails(), r0 + 48, 0x7f, 8, "speed");
	expect_refused(hello_rails(), r0 + 49, 0x07, 8, "payload not above speed");
	expect_refused(hello_rails(), r0 + 56, 1, 8, "bytes after its IPv4 address");
	/* a rail without an address: family 0, sixteen zero bytes, back as "" */
	m = hello_rails();
	m.u.hello.rails[1].addr[0] = '\0';
	len = rt_meshmsg_encode(&m, buf);
	assert_int_equal(buf[r1 + 37], 0);
	assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), 0);
	assert_string_equal(back.u.hello.rails[1].addr, "");
	assert_string_equal(back.u.hello.rails[0].addr, "10.0.0.7");
	buf[r1 + 52 + 15] = 1;
	err = (struct rt_error){0};
	assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), -1);
	assert_non_null(strstr(err.reason, "rail 3: an address where it says none"));
}

/* hello_rails with the host's and its rails' inventory. */
static struct rt_meshmsg hello_inv(void)
{
	struct rt_meshmsg m = hello_rails();
	struct rt_mesh_rail *r = &m.u.hello.rails[0];

	strcpy(m.u.hello.inv.kernel, "6.8.0-45-generic");
	strcpy(m.u.hello.inv.rdma_core, "50.0");
	strcpy(r->fw, "28.39.1002");
	strcpy(r->gpu, "0000:3b:00.0");
	r->gpu_rel = RT_MESH_GPU_REL0 + 1; /* PIX */
	strcpy(r->driver, "mlx5_core");
	strcpy(r->pcie_speed, "32.0 GT/s PCIe");
	strcpy(r->pcie_width, "16");
	strcpy(m.u.hello.rails[1].driver, "ib_core"); /* the rest unknown */
	return m;
}

/* The inventory travels in fixed NUL-padded fields, each checked: printable,
 * terminated, zero after its end; a value too long is cut to its field. */
static void hello_carries_inventory(void **state)
{
	struct rt_meshmsg m = hello_inv(), back;
	uint8_t buf[RT_MESHMSG_MAX];
	struct rt_error err = {0};
	size_t len = rt_meshmsg_encode(&m, buf);
	const size_t kern = 100, core = 164, r0 = 320, fw = r0 + 68, r1 = r0 + 184;

	(void)state;
	assert_int_equal(len, 320 + 2 * 184);
	assert_memory_equal(buf + kern, "6.8.0-45-generic\0", 17);
	assert_memory_equal(buf + core, "50.0\0", 5);
	assert_memory_equal(buf + fw, "28.39.1002\0", 11);
	assert_memory_equal(buf + fw + 32, "mlx5_core\0", 10);
	assert_memory_equal(buf + fw + 64, "32.0 GT/s PCIe\0", 15);
	assert_memory_equal(buf + fw + 88, "16\0", 3);
	assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), 0);
	assert_string_equal(back.u.hello.inv.kernel, "6.8.0-45-generic");
	assert_string_equal(back.u.hello.inv.rdma_core, "50.0");
	assert_string_equal(back.u.hello.rails[0].fw, "28.39.1002");
	assert_string_equal(back.u.hello.rails[0].driver, "mlx5_core");
	assert_string_equal(back.u.hello.rails[0].pcie_speed, "32.0 GT/s PCIe");
	assert_string_equal(back.u.hello.rails[0].pcie_width, "16");
	assert_string_equal(back.u.hello.rails[1].fw, "");
	assert_string_equal(back.u.hello.rails[1].driver, "ib_core");
	assert_string_equal(back.u.hello.rails[0].gpu, "0000:3b:00.0");
	assert_string_equal(rt_mesh_gpu_rel_name(back.u.hello.rails[0].gpu_rel), "PIX");
	assert_string_equal(back.u.hello.rails[1].gpu, "");
	assert_int_equal(back.u.hello.rails[1].gpu_rel, RT_MESH_GPU_NONE);
	assert_memory_equal(buf + fw + 96, "0000:3b:00.0\0\0\0\0\3\0\0\0", 20);
	/* each refusal names its field */
	expect_refused(hello_inv(), kern, 0x01, 8, "kernel release is not printable");
	expect_refused(hello_inv(), kern + 3, 0xc3, 8, "kernel release is not printable");
	expect_refused(hello_inv(), kern + 63, 'x', 8, "kernel release has bytes after its end");
	expect_refused(hello_inv(), core + 1, '"', 8, "rdma-core release is not printable");
	expect_refused(hello_inv(), core + 2, '\\', 8, "rdma-core release is not printable");
	expect_refused(hello_inv(), fw + 31, '1', 8, "firmware has bytes after its end");
	expect_refused(hello_inv(), fw + 32, '\n', 8, "a rail's driver is not printable");
	expect_refused(hello_inv(), fw + 64 + 23, 'x', 8, "PCIe speed has bytes after");
	expect_refused(hello_inv(), r1 + 68 + 88 + 7, '8', 8, "PCIe width has bytes after");
	/* mesh --gpu's GPU: a bus id with its relation, or neither */
	expect_refused(hello_inv(), r1 + 68 + 96, '0', 8, "GPU '0' with relation 0");
	expect_refused(hello_inv(), r1 + 68 + 96 + 16, 3, 8, "GPU '' with relation 3");
	expect_refused(hello_inv(), r1 + 68 + 96 + 17, 1, 8, "hello rail GPU");
	expect_refused(hello_inv(), r1 + 68 + 96 + 15, 'x', 8, "a rail's GPU has bytes after");
	/* a field full to its last byte is not terminated */
	len = rt_meshmsg_encode(&m, buf);
	memset(buf + kern, 'x', RT_MESH_KERNEL_LEN);
	assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), -1);
	assert_non_null(strstr(err.reason, "at most 63 bytes"));
	/* the sender cuts a value to its field */
	memset(m.u.hello.inv.kernel, 'k', sizeof(m.u.hello.inv.kernel) - 1);
	m.u.hello.inv.kernel[sizeof(m.u.hello.inv.kernel) - 1] = '\0';
	strcpy(m.u.hello.rails[0].pcie_width, "1234567");
	len = rt_meshmsg_encode(&m, buf);
	err = (struct rt_error){0};
	assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), 0);
	assert_int_equal(strlen(back.u.hello.inv.kernel), 63);
	assert_string_equal(back.u.hello.rails[0].pcie_width, "1234567");
	assert_true(rt_mesh_inv_text_ok("16.0 GT/s PCIe", 24));
	assert_false(rt_mesh_inv_text_ok("a\tb", 24));
	assert_false(rt_mesh_inv_text_ok("12345678", 8));
}

/* mesh --expect's outcome: none, or checked with its differences and
 * the first one's text; anything between is refused. */
static void hello_carries_the_expect_outcome(void **state)
{
	struct rt_meshmsg m = hello(), back;
	uint8_t buf[RT_MESHMSG_MAX];
	struct rt_error err = {0};
	size_t len;
	const size_t at = 196;

	(void)state;
	m.u.hello.inv.expect = 1;
	m.u.hello.inv.expect_diffs = 2;
	strcpy(m.u.hello.inv.expect_first, "rxe0 port 1: rate 10 Gb/s, expected 400");
	len = rt_meshmsg_encode(&m, buf);
	assert_memory_equal(buf + at, "\x01\x00\x00\x02rxe0 port 1:", 16);
	assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), 0);
	assert_int_equal(back.u.hello.inv.expect, 1);
	assert_int_equal(back.u.hello.inv.expect_diffs, 2);
	assert_string_equal(back.u.hello.inv.expect_first, "rxe0 port 1: rate 10 Gb/s, expected 400");
	expect_refused(m, at, 2, 8, "expected state checked 2");
	expect_refused(m, at, 0, 8, "expected state checked 0, 2 differences");
	expect_refused(m, at + 1, 1, 8, "padding");
	expect_refused(m, at + 3, 0, 8, "0 differences, a text");
	expect_refused(m, at + 4 + 119, 'x', 8, "has bytes after its end");
	m.u.hello.inv.expect_first[0] = '\0';
	expect_refused(m, 0, 'R', 8, "2 differences, no text");
	m.u.hello.inv.expect_diffs = 0; /* checked, no difference */
	len = rt_meshmsg_encode(&m, buf);
	assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), 0);
	assert_int_equal(back.u.hello.inv.expect, 1);
	expect_refused(hello(), at + 4, 'x', 8, "expected state checked 0, 0 differences, a text");
}

/* The largest HELLO, 32 rails with every field full, is RT_MESHMSG_MAX. */
static void largest_hello_fits(void **state)
{
	struct rt_meshmsg m = hello_inv(), back;
	static uint8_t buf[RT_MESHMSG_MAX];
	struct rt_error err = {0};

	(void)state;
	memset(m.u.hello.inv.kernel, 'k', RT_MESH_KERNEL_LEN - 1);
	memset(m.u.hello.inv.rdma_core, 'r', RT_MESH_RDMA_CORE_LEN - 1);
	m.u.hello.inv.expect = 1;
	m.u.hello.inv.expect_diffs = 65535;
	memset(m.u.hello.inv.expect_first, 'e', RT_MESH_EXPECT_TEXT - 1);
	m.u.hello.nrails = RT_MESH_RAILS_MAX;
	for (unsigned i = 0; i < RT_MESH_RAILS_MAX; i++) {
		struct rt_mesh_rail *r = &m.u.hello.rails[i];

		*r = hello_inv().u.hello.rails[0];
		r->rail = (uint8_t)i;
		memset(r->dev, 'd', RT_MESH_DEV_LEN - 1);
		memset(r->fw, 'f', RT_MESH_FW_LEN - 1);
		memset(r->driver, 'v', RT_MESH_DRIVER_LEN - 1);
		memset(r->pcie_speed, 's', RT_MESH_PCIE_SPEED_LEN - 1);
		memset(r->pcie_width, 'w', RT_MESH_PCIE_WIDTH_LEN - 1);
	}
	assert_int_equal(RT_MESHMSG_MAX, 6208);
	assert_int_equal(rt_meshmsg_encode(&m, buf), RT_MESHMSG_MAX);
	assert_int_equal(rt_meshmsg_decode(buf, RT_MESHMSG_MAX, 8, &back, &err), 0);
	assert_int_equal(strlen(back.u.hello.rails[31].fw), RT_MESH_FW_LEN - 1);
}

/* An ASSIGN's rails: each travels, in order, each field checked. */
static void assign_carries_rails(void **state)
{
	struct rt_meshmsg m = assign_rails(), back;
	uint8_t buf[RT_MESHMSG_MAX];
	struct rt_error err = {0};
	size_t len = rt_meshmsg_encode(&m, buf);
	const size_t r0 = 96, r1 = 96 + 20;

	(void)state;
	assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), 0);
	assert_int_equal(back.u.assign.nrails, 2);
	assert_int_equal(back.u.assign.rails[1].rail, 2);
	assert_int_equal(back.u.assign.rails[1].rail_b, 2);
	assert_string_equal(back.u.assign.rails[0].addr, "10.0.0.5");
	assert_string_equal(back.u.assign.rails[1].addr, "fd00::2:5");
	expect_refused(assign_rails(), 88, 1, 8, "1 rails in a message of 2");
	expect_refused(assign_rails(), 89, 2, 8, "unknown flags 0x2");
	expect_refused(assign_rails(), 91, 0, 8, "0 tests in a round (1 to 65)");
	expect_refused(assign_rails(), 91, 66, 8, "66 tests in a round (1 to 65)");
	expect_refused(assign_rails(), 94, 1, 8, "padding");
	/* connections: 1 to 16 a rail; the connecting side's exactly its rails'
	 * times that, a listener's at least, any test's at most 64 */
	expect_refused(assign_rails(), 90, 0, 8, "0 connections a rail");
	expect_refused(assign_rails(), 90, 17, 8, "17 connections a rail (1 to 16)");
	expect_refused(assign_rails(), 93, 3, 8, "3 connections for 2 rails of 1 each");
	{ /* qps and a listener's connections travel */
		struct rt_meshmsg m = assign_rails(), back;
		uint8_t buf[RT_MESHMSG_MAX];
		struct rt_error err = {0};
		size_t len;

		m.u.assign.role = RT_MESH_LISTEN;
		m.u.assign.qps = 4;
		m.u.assign.conns = 24; /* three senders of two rails, four each */
		m.u.assign.tests = 9;  /* alltoall: a listen, eight connects */
		len = rt_meshmsg_encode(&m, buf);
		assert_int_equal(buf[90], 4);
		assert_int_equal(buf[91], 9);
		assert_int_equal(buf[92] << 8 | buf[93], 24);
		assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), 0);
		assert_int_equal(back.u.assign.qps, 4);
		assert_int_equal(back.u.assign.conns, 24);
		assert_int_equal(back.u.assign.tests, 9);
		m.u.assign.conns = 7; /* fewer than its own rails' */
		expect_refused(m, 93, 7, 8, "7 connections for 2 rails of 4 each");
		expect_refused(m, 93, 65, 8, "65 connections for 2 rails of 4 each");
	}
	{ /* the flags travel */
		struct rt_meshmsg m = assign_rails(), back;
		uint8_t buf[RT_MESHMSG_MAX];
		struct rt_error err = {0};
		size_t len;

		m.u.assign.flags = RT_MESH_ASSIGN_BOTH_WAYS;
		len = rt_meshmsg_encode(&m, buf);
		assert_int_equal(buf[89], RT_MESH_ASSIGN_BOTH_WAYS);
		assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), 0);
		assert_int_equal(back.u.assign.flags, RT_MESH_ASSIGN_BOTH_WAYS);
	}
	expect_refused(assign_rails(), r0, 32, 8, "rail 32 to 0");
	expect_refused(assign_rails(), r0 + 1, 32, 8, "rail 0 to 32");
	buf[r1] = buf[r1 + 1] = 0; /* (0, 0) twice */
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), -1);
	assert_non_null(strstr(err.reason, "rail 0 to 0 (family 6) out of range or order"));
	expect_refused(assign_rails(), r1 + 2, 5, 8, "family 5");
	expect_refused(assign_rails(), r0 + 3, 1, 8, "assign rail padding");
	expect_refused(assign_rails(), r0 + 8, 1, 8, "bytes after its IPv4 address");
	/* a rest names no rail */
	m = assign_rails();
	m.u.assign.role = RT_MESH_REST;
	m.u.assign.peer = RT_MESH_NO_PEER;
	m.u.assign.port = 0;
	m.u.assign.host[0] = '\0';
	len = rt_meshmsg_encode(&m, buf);
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), -1);
	assert_non_null(strstr(err.reason, "a rest round with rails"));
}

/* --cross-rails: a full wave of 32 crossed rails in one ASSIGN, (own,
 * partner) increasing, and a RESULT of rail 3 against rail 1, travel
 * whole; the wave out of order is refused. */
static void crossed_rails_travel(void **state)
{
	struct rt_meshmsg m = assign(), back;
	uint8_t buf[RT_MESHMSG_MAX];
	struct rt_error err = {0};
	size_t len;

	(void)state;
	m.u.assign.nrails = RT_MESH_RAILS_MAX;
	m.u.assign.conns = RT_MESH_RAILS_MAX;
	for (unsigned i = 0; i < RT_MESH_RAILS_MAX; i++) /* rails 0..3 of this rank x 8 */
		m.u.assign.rails[i] = (struct rt_mesh_arail){.rail = (uint8_t)(i / 8),
			.rail_b = (uint8_t)(i % 8), .addr = "10.0.0.5"};
	len = rt_meshmsg_encode(&m, buf);
	assert_int_equal(len, 96 + 32 * 20);
	assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), 0);
	assert_int_equal(back.u.assign.nrails, 32);
	assert_int_equal(back.u.assign.rails[31].rail, 3);
	assert_int_equal(back.u.assign.rails[31].rail_b, 7);
	assert_int_equal(back.u.assign.rails[9].rail_b, 1);
	m.u.assign.rails[1] = m.u.assign.rails[0]; /* (0, 0) then (0, 0) */
	m.u.assign.rails[0].rail_b = 1;            /* (0, 1) then (0, 0) */
	len = rt_meshmsg_encode(&m, buf);
	assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), -1);
	assert_non_null(strstr(err.reason, "rail 0 to 0 (family 4) out of range or order"));

	m = (struct rt_meshmsg){.type = RT_MESHMSG_RESULT,
		.u.result = {.round = 4, .a = 1, .b = 6, .status = RT_MESH_TIMEOUT,
			     .rail = 3, .rail_b = 1}};
	len = rt_meshmsg_encode(&m, buf);
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_meshmsg_decode(buf, len, 8, &back, &err), 0);
	assert_true(back.u.result.rail == 3 && back.u.result.rail_b == 1);
	assert_int_equal(back.u.result.status, RT_MESH_TIMEOUT);
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Fuzz-style: every single-byte change and random damage of valid
 * messages, and random bytes behind a valid header. A message the
 * decoder takes must encode back to the same bytes (nothing ignored),
 * and nothing crashes (run under the sanitizers and valgrind too). */
static void fuzz_damage(void **state)
{
	uint64_t x = 7;
	unsigned taken = 0, refused = 0;

	(void)state;
	for (int round = 0; round < 200000; round++) {
		struct rt_meshmsg m = samples[round % ARRAY_SIZE(samples)](), back;
		uint8_t buf[RT_MESHMSG_MAX], again[RT_MESHMSG_MAX];
		struct rt_error err = {0};
		size_t len = rt_meshmsg_encode(&m, buf), cut;
		uint64_t r = xorshift(&x);

		if (round % 3 == 0) {
			buf[r % len] = (uint8_t)(r >> 16);
		} else if (round % 3 == 1) {
			for (size_t i = RT_MESHMSG_HDR; i < len; i++)
				buf[i] = (uint8_t)xorshift(&x);
		} else {
			buf[r % len] ^= (uint8_t)(1u << (r >> 8) % 8);
			buf[(r >> 24) % len] ^= (uint8_t)(1u << (r >> 32) % 8);
		}
		cut = r >> 40 & 1 ? len : (r >> 41) % (len + 1);
		if (rt_meshmsg_decode(buf, cut, (r >> 48) & 1 ? 8 : 0, &back, &err)) {
			assert_true(err.set && err.exit_code == RT_EXIT_FAIL);
			refused++;
			continue;
		}
		taken++;
		assert_int_equal(rt_meshmsg_encode(&back, again), cut);
		assert_memory_equal(buf, again, cut);
	}
	assert_true(taken > 1000 && refused > 1000);
}

/* Over a connection: a message arrives whole; a header with a bad
 * length is refused before any payload is waited for; silence is a
 * timeout, not a hang. */
static void over_a_connection(void **state)
{
	int sv[2];
	struct rt_oob o;
	struct rt_meshmsg m = result(), back;
	uint8_t buf[RT_MESHMSG_MAX];
	struct rt_error err = {0};
	size_t len;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	rt_oob_init(&o, 200);
	o.fd = sv[0];
	assert_int_equal(rt_set_nonblock(o.fd), 0); /* as rt_oob_connect leaves it */
	len = rt_meshmsg_encode(&m, buf);
	assert_int_equal(write(sv[1], buf, len), (ssize_t)len);
	assert_int_equal(rt_meshmsg_read(&o, 8, &back, &err), 0);
	assert_int_equal(back.u.result.mbps, 97000);
	assert_int_equal(back.u.result.mbps_rev, 96000);

	buf[7] = 200; /* would ask for 200 payload bytes */
	assert_int_equal(write(sv[1], buf, RT_MESHMSG_HDR), RT_MESHMSG_HDR);
	assert_int_equal(rt_meshmsg_read(&o, 8, &back, &err), -1);
	assert_non_null(strstr(err.reason, "length 200"));

	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_meshmsg_read(&o, 8, &back, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_TIMEOUT);

	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_meshmsg_write(&o, &m, &err), 0);
	assert_int_equal(read(sv[1], buf, sizeof(buf)), (ssize_t)len);
	close(sv[1]);
	rt_oob_close(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(hello_carries_the_token),
		cmocka_unit_test(hello_carries_the_payload_rate),
		cmocka_unit_test(hello_carries_rails),
		cmocka_unit_test(hello_carries_inventory),
		cmocka_unit_test(largest_hello_fits),
		cmocka_unit_test(hello_carries_the_expect_outcome),
		cmocka_unit_test(assign_carries_rails),
		cmocka_unit_test(crossed_rails_travel),
		cmocka_unit_test(strict_fields),
		cmocka_unit_test(result_carries_counters),
		cmocka_unit_test(fuzz_damage),
		cmocka_unit_test(over_a_connection),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
