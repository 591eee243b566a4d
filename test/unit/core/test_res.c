/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rt_res with libibverbs replaced (-Wl,--wrap): the attributes each QP
 * gets from a spec, the spec checks, and teardown of half-built state in
 * the order the device needs (QPs, SRQ, CQs, channels). XRC receive QPs
 * and XRC SRQs are left out: libibverbs makes them through the device's
 * extended context, which no fake provides. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>

#include "rdmatest/res.h"

/* ---- fakes: objects from pools, every call in one log ----------------- */

#define POOL 8

static struct ibv_context fake_ctx;
static struct ibv_device fake_dev;
static struct ibv_pd fake_pd;
static struct ibv_comp_channel chans[POOL];
static struct ibv_cq cqs[POOL];
static struct ibv_qp qps[POOL];
static struct ibv_srq srqs[POOL];
static struct ibv_qp_init_attr qp_seen[POOL];
static int cq_depth_seen[POOL];
static struct ibv_comp_channel *cq_chan_seen[POOL];
static int nchan, ncq, nqp, nsrq, narmed;
static int qp_fail_at; /* 1-based; 0: none */
static char calls[512];

static void called(const char *what)
{
	strncat(calls, what, sizeof(calls) - strlen(calls) - 1);
	strncat(calls, " ", sizeof(calls) - strlen(calls) - 1);
}

static int fake_arm(struct ibv_cq *cq, int solicited)
{
	(void)cq;
	(void)solicited;
	narmed++;
	return 0;
}

struct ibv_comp_channel *__wrap_ibv_create_comp_channel(struct ibv_context *c)
{
	(void)c;
	called("ch+");
	return &chans[nchan++];
}

int __wrap_ibv_destroy_comp_channel(struct ibv_comp_channel *ch)
{
	(void)ch;
	called("ch-");
	return 0;
}

struct ibv_cq *__wrap_ibv_create_cq(struct ibv_context *c, int depth, void *ctx,
				    struct ibv_comp_channel *ch, int vector)
{
	(void)ctx;
	(void)vector;
	called("cq+");
	cq_depth_seen[ncq] = depth;
	cq_chan_seen[ncq] = ch;
	cqs[ncq].context = c;
	return &cqs[ncq++];
}

int __wrap_ibv_destroy_cq(struct ibv_cq *cq)
{
	(void)cq;
	called("cq-");
	return 0;
}

struct ibv_srq *__wrap_ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *a)
{
	(void)pd;
	(void)a;
	called("srq+");
	return &srqs[nsrq++];
}

int __wrap_ibv_destroy_srq(struct ibv_srq *srq)
{
	(void)srq;
	called("srq-");
	return 0;
}

struct ibv_qp *__wrap_ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *a)
{
	(void)pd;
	if (nqp + 1 == qp_fail_at) {
		errno = ENOMEM;
		return NULL;
	}
	called("qp+");
	qp_seen[nqp] = *a;
	a->cap.max_inline_data = 64; /* what the device grants */
	qps[nqp].qp_num = (uint32_t)nqp + 1;
	return &qps[nqp++];
}

int __wrap_ibv_destroy_qp(struct ibv_qp *qp)
{
	(void)qp;
	called("qp-");
	return 0;
}

const char *__wrap_ibv_get_device_name(struct ibv_device *d)
{
	(void)d;
	return "fake0";
}

static int setup(void **state)
{
	(void)state;
	memset(cqs, 0, sizeof(cqs));
	memset(qp_seen, 0, sizeof(qp_seen));
	nchan = ncq = nqp = nsrq = narmed = qp_fail_at = 0;
	calls[0] = '\0';
	fake_ctx.device = &fake_dev;
	fake_ctx.ops.req_notify_cq = fake_arm;
	return 0;
}

static int create(struct rt_res *r, const struct rt_res_spec *s, struct rt_error *e)
{
	memset(r, 0, sizeof(*r));
	memset(e, 0, sizeof(*e));
	return rt_res_create_verbs(r, &fake_ctx, &fake_pd, NULL, NULL, s, e);
}

/* ---- tests --------------------------------------------------------------- */

/* perftest's shape: Q QPs on a send and a receive CQ, each on a channel
 * of its own, and the inline size the device granted. */
static void split_cqs_with_own_channels(void **state)
{
	struct rt_res_spec s = { .qp_type = IBV_QPT_RC, .send_depth = 128,
				 .recv_depth = 512, .cq_depth = 256, .qps = 2,
				 .recv_cq_depth = 1024, .max_inline = 32,
				 .own_channels = RT_RES_CHANNEL | RT_RES_RECV_CHANNEL };
	struct rt_res r;
	struct rt_error e;

	(void)state;
	assert_int_equal(create(&r, &s, &e), 0);
	assert_int_equal(r.nqps, 2);
	assert_ptr_equal(r.qp, r.qps[0]);
	assert_int_equal(cq_depth_seen[0], 256);
	assert_int_equal(cq_depth_seen[1], 1024);
	assert_ptr_equal(cq_chan_seen[0], r.ch);
	assert_ptr_equal(cq_chan_seen[1], r.rch);
	assert_int_equal(narmed, 2);
	for (int i = 0; i < 2; i++) {
		assert_ptr_equal(qp_seen[i].send_cq, r.cq);
		assert_ptr_equal(qp_seen[i].recv_cq, r.rcq);
		assert_int_equal(qp_seen[i].cap.max_send_wr, 128);
		assert_int_equal(qp_seen[i].cap.max_recv_wr, 512);
		assert_int_equal(qp_seen[i].cap.max_send_sge, 1);
		assert_int_equal(qp_seen[i].cap.max_recv_sge, 1);
		assert_int_equal(qp_seen[i].cap.max_inline_data, 32);
		assert_int_equal(qp_seen[i].sq_sig_all, 0);
	}
	assert_int_equal(r.cap.max_inline_data, 64);
	rt_res_destroy(&r);
	assert_string_equal(calls, "ch+ ch+ cq+ cq+ qp+ qp+ qp- qp- cq- cq- ch- ch- ");
}

/* srq_pingpong's shape: the QPs take no receives of their own. */
static void srq_qps_take_no_receives(void **state)
{
	struct rt_res_spec s = { .qp_type = IBV_QPT_RC, .send_depth = 1,
				 .cq_depth = 504, .qps = 4, .srq_depth = 500,
				 .busy_poll = true };
	struct rt_res r;
	struct rt_error e;

	(void)state;
	assert_int_equal(create(&r, &s, &e), 0);
	assert_int_equal(narmed, 0);
	assert_null(cq_chan_seen[0]);
	for (int i = 0; i < 4; i++) {
		assert_ptr_equal(qp_seen[i].srq, r.srq);
		assert_ptr_equal(qp_seen[i].recv_cq, r.cq);
		assert_int_equal(qp_seen[i].cap.max_recv_wr, 0);
		assert_int_equal(qp_seen[i].cap.max_recv_sge, 0);
	}
	rt_res_destroy(&r);
	assert_string_equal(calls, "cq+ srq+ qp+ qp+ qp+ qp+ qp- qp- qp- qp- srq- cq- ");
}

/* A refused third QP: the message names it and the spec's exit status;
 * destroy takes down the two made and everything under them, once. */
static void half_built_teardown(void **state)
{
	struct rt_res_spec s = { .qp_type = IBV_QPT_RC, .send_depth = 8,
				 .recv_depth = 8, .qps = 4, .recv_cq_depth = 1,
				 .own_channels = RT_RES_CHANNEL | RT_RES_RECV_CHANNEL,
				 .refusal_exit = RT_EXIT_ENV };
	struct rt_res r;
	struct rt_error e;

	(void)state;
	qp_fail_at = 3;
	assert_int_equal(create(&r, &s, &e), -1);
	assert_int_equal(e.exit_code, RT_EXIT_ENV);
	assert_int_equal(e.err_no, ENOMEM);
	assert_non_null(strstr(e.reason, "ibv_create_qp 3 of 4 (send 8, receive 8, "
				 "inline 0)"));
	rt_res_destroy(&r);
	assert_string_equal(calls, "ch+ ch+ cq+ cq+ qp+ qp+ qp- qp- cq- cq- ch- ch- ");
	calls[0] = '\0';
	rt_res_destroy(&r);
	assert_string_equal(calls, "");
}

/* xsrq_pingpong's send QPs, one per call: send-only, on the send CQ,
 * appended in creation order. */
static void xrc_send_qps_append(void **state)
{
	struct rt_res_spec q = { .cq_depth = 2, .recv_cq_depth = 2, .busy_poll = true };
	struct rt_res_spec s = { .qp_type = IBV_QPT_XRC_SEND, .send_depth = 2000 };
	struct rt_res r = { 0 };
	struct rt_error e = { 0 };

	(void)state;
	assert_int_equal(rt_res_create_queues(&r, &fake_ctx, &fake_pd, NULL, NULL,
					      &q, &e), 0);
	assert_int_equal(rt_res_add_qps(&r, &fake_ctx, &s, &e), 0);
	assert_int_equal(rt_res_add_qps(&r, &fake_ctx, &s, &e), 0);
	assert_int_equal(r.nqps, 2);
	assert_ptr_equal(r.qps[1], &qps[1]);
	assert_ptr_equal(r.qp, &qps[0]);
	for (int i = 0; i < 2; i++) {
		assert_ptr_equal(qp_seen[i].send_cq, r.cq);
		assert_null(qp_seen[i].recv_cq);
		assert_null(qp_seen[i].srq);
		assert_int_equal(qp_seen[i].cap.max_send_wr, 2000);
		assert_int_equal(qp_seen[i].cap.max_recv_wr, 0);
		assert_int_equal(qp_seen[i].cap.max_recv_sge, 0);
	}
	rt_res_destroy(&r);
	assert_string_equal(calls, "cq+ cq+ qp+ qp+ qp- qp- cq- cq- ");
}

static void destroying_nothing_calls_nothing(void **state)
{
	struct rt_res r = { 0 };

	(void)state;
	rt_res_destroy(&r);
	assert_string_equal(calls, "");
}

static void refused_exit_defaults_to_fail(void **state)
{
	struct rt_res_spec s = { .qp_type = IBV_QPT_RC, .busy_poll = true };
	struct rt_res r;
	struct rt_error e;

	(void)state;
	qp_fail_at = 1;
	assert_int_equal(create(&r, &s, &e), -1);
	assert_int_equal(e.exit_code, RT_EXIT_FAIL);
	rt_res_destroy(&r);
	assert_string_equal(calls, "cq+ cq- ");
}

static void spec_checks(void **state)
{
	struct rt_error e = { 0 };

	(void)state;
	assert_int_equal(rt_res_spec_check(&(struct rt_res_spec){ .qps = 2 },
					   false, &e), -1);
	assert_int_equal(e.exit_code, RT_EXIT_FAIL);
	assert_int_equal(rt_res_spec_check(&(struct rt_res_spec){ .srq_depth = 1 },
					   false, &e), -1);
	assert_int_equal(rt_res_spec_check(&(struct rt_res_spec){ .qps = 2,
					   .srq_depth = 1, .recv_cq_depth = 1 },
					   true, &e), 0);
	assert_int_equal(rt_res_spec_check(&(struct rt_res_spec){
					   .own_channels = RT_RES_CHANNEL, .busy_poll = true },
					   true, &e), -1);
	assert_int_equal(rt_res_spec_check(&(struct rt_res_spec){ .qps = 1 },
					   false, &e), 0);
	/* nothing is made from a spec that fails its check */
	assert_int_equal(create(&(struct rt_res){ 0 }, &(struct rt_res_spec){
				.own_channels = RT_RES_CHANNEL, .busy_poll = true }, &e), -1);
	assert_string_equal(calls, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(split_cqs_with_own_channels, setup),
		cmocka_unit_test_setup(srq_qps_take_no_receives, setup),
		cmocka_unit_test_setup(half_built_teardown, setup),
		cmocka_unit_test_setup(xrc_send_qps_append, setup),
		cmocka_unit_test_setup(destroying_nothing_calls_nothing, setup),
		cmocka_unit_test_setup(refused_exit_defaults_to_fail, setup),
		cmocka_unit_test_setup(spec_checks, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
