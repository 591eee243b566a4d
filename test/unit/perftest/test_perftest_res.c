/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The ib_* applets' addressing and resource options (perftest_res.h):
 * their values, their combination rules, which side makes an SRQ, the
 * refusals that name what an option needs, -X's rules and the vector
 * check, and --flow_label's list. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>
#include <cmocka.h>

#include "perftest/perftest_wire.h"
#include "perftest/perftest_conn.h"
#include "perftest/perftest_opts.h"
#include "pt_parse.h"
#include "perftest/perftest_res.h"

#define RT_CFG struct rt_pt_cfg

static const struct rt_opt send_bw_opts[] = {
	RT_PT_OPTS_CONN, RT_PT_OPT_SIZE("65536"), RT_PT_OPT_ITERS("1000"),
	RT_PT_OPT_TX_DEPTH("128"), RT_PT_OPT_RX_DEPTH("512"), RT_PT_OPT_INLINE("0"),
	RT_PT_OPTS_RUN, RT_PT_OPTS_BW, RT_PT_OPTS_RES, RT_PT_OPTS_RES_BW,
	RT_PT_OPT_SRQ, { 0 },
};

static const struct rt_opt write_lat_opts[] = {
	RT_PT_OPTS_CONN, RT_PT_OPT_SIZE("2"), RT_PT_OPT_ITERS("1000"),
	RT_PT_OPT_TX_DEPTH("1"), RT_PT_OPT_INLINE("0"), RT_PT_OPTS_RUN,
	RT_PT_OPTS_LAT, RT_PT_OPTS_RES, { 0 },
};

static int send_bw(struct rt_pt_params *p, struct rt_error *err, ...)
{
	va_list ap;
	int rc;

	va_start(ap, err);
	rc = pt_vparse(p, err, send_bw_opts, "ib_test",
		       (struct rt_pt_test){ RT_PT_SEND, RT_PT_BW }, ap);
	va_end(ap);
	return rc;
}

static int write_lat(struct rt_pt_params *p, struct rt_error *err, ...)
{
	va_list ap;
	int rc;

	va_start(ap, err);
	rc = pt_vparse(p, err, write_lat_opts, "ib_test",
		       (struct rt_pt_test){ RT_PT_WRITE, RT_PT_LAT }, ap);
	va_end(ap);
	return rc;
}

/* usage error whose reason holds `want` */
static void refused(int rc, const struct rt_error *err, const char *want)
{
	assert_int_equal(rc, -1);
	assert_int_equal(err->exit_code, RT_EXIT_USAGE);
	if (!strstr(err->reason, want))
		fail_msg("reason '%s' lacks '%s'", err->reason, want);
}

static void defaults(void **state)
{
	struct rt_pt_params p;
	struct rt_error err;

	(void)state;
	assert_int_equal(send_bw(&p, &err, "host", NULL), 0);
	assert_null(p.opt.res.source);
	assert_null(p.opt.res.mmap_file);
	assert_int_equal(p.res.link_layer, -1);
	assert_int_equal(p.opt.res.pkey_index, 0);
	assert_int_equal(p.opt.res.dlid, 0);
	assert_int_equal(p.opt.res.recv_post_list, 1);
	assert_false(p.opt.res.srq || p.opt.res.odp || p.opt.res.hugepages ||
		     p.opt.res.mr_per_qp || p.opt.dual.on || p.opt.res.ipv6);
}

static void values(void **state)
{
	struct rt_pt_params p;
	struct rt_error err;

	(void)state;
	assert_int_equal(send_bw(&p, &err, "--bind_source_ip", "192.0.2.9", "--ipv6",
				 "--pkey_index", "3", "--dlid", "17", "--force-link",
				 "Ethernet", "--odp", "--use_hugepages", "--mr_per_qp",
				 "-O", "--use-srq", "--recv_post_list", "4", "host", NULL), 0);
	assert_string_equal(p.opt.res.source, "192.0.2.9");
	assert_int_equal(p.res.source_addr.ss_family, AF_INET);
	assert_true(p.opt.res.ipv6 && p.opt.res.odp && p.opt.res.hugepages &&
		    p.opt.res.mr_per_qp && p.opt.dual.on && p.opt.res.srq);
	assert_int_equal(p.opt.res.pkey_index, 3);
	assert_int_equal(p.opt.res.dlid, 17);
	assert_int_equal(p.res.link_layer, IBV_LINK_LAYER_ETHERNET);
	assert_int_equal(p.opt.res.recv_post_list, 4);
	/* 4.5's --source_ip and its letter are the same option */
	assert_int_equal(send_bw(&p, &err, "-j", "fd00::1", "host", NULL), 0);
	assert_int_equal(p.res.source_addr.ss_family, AF_INET6);
	assert_int_equal(send_bw(&p, &err, "--mmap", "/dev/zero", "--mmap-offset",
				 "8192", NULL), 0);
	assert_string_equal(p.opt.res.mmap_file, "/dev/zero");
	assert_int_equal(p.opt.res.mmap_offset, 8192);
	assert_int_equal(send_bw(&p, &err, "--force-link", "IB", NULL), 0);
	assert_int_equal(p.res.link_layer, IBV_LINK_LAYER_INFINIBAND);
}

static void rules(void **state)
{
	struct rt_pt_params p;
	struct rt_error err;
	int rc;

	(void)state;
	rc = send_bw(&p, &err, "--bind_source_ip", "host.example", NULL);
	refused(rc, &err, "not an IPv4 or IPv6 address");
	refused(send_bw(&p, &err, "--mmap-offset", "4096", NULL), &err, "needs --mmap");
	rc = send_bw(&p, &err, "--mmap", "f", "--mmap-offset", "100", NULL);
	refused(rc, &err, "not a multiple of the page size");
	rc = send_bw(&p, &err, "--mmap", "f", "--use_hugepages", NULL);
	refused(rc, &err, "exclude each other");
	refused(send_bw(&p, &err, "--force-link", "RoCE", NULL), &err, "IB or Ethernet");
	refused(send_bw(&p, &err, "-R", "-O", NULL), &err, "-O (--dualport) and -R");
	rc = send_bw(&p, &err, "-R", "--pkey_index", "0", NULL);
	refused(rc, &err, "--pkey_index and -R");
	refused(send_bw(&p, &err, "-R", "--dlid", "2", NULL), &err, "--dlid and -R");
	rc = send_bw(&p, &err, "--use-srq", "-q", "8", "-r", "4", NULL);
	refused(rc, &err, "more than the SRQ's depth");
	rc = send_bw(&p, &err, "--recv_post_list", "3", NULL);
	refused(rc, &err, "-n 1000 must be a multiple of --recv_post_list 3");
	rc = send_bw(&p, &err, "--recv_post_list", "8", "-r", "4", NULL);
	refused(rc, &err, "more than -r 4");
	/* -D: no multiple needed */
	assert_int_equal(send_bw(&p, &err, "--recv_post_list", "3", "-D", "4", NULL), 0);
	refused(send_bw(&p, &err, "-c", "DC", NULL), &err, "needs mlx5");
}

static void srq_side(void **state)
{
	struct rt_pt_params p;
	struct rt_error err;

	(void)state;
	/* perftest: latency, a server, or -b; a unidirectional client none */
	assert_int_equal(send_bw(&p, &err, "--use-srq", NULL), 0);
	assert_true(rt_pt_res_srq(&p));
	assert_int_equal(send_bw(&p, &err, "--use-srq", "host", NULL), 0);
	assert_false(rt_pt_res_srq(&p));
	assert_int_equal(send_bw(&p, &err, "--use-srq", "-b", "host", NULL), 0);
	assert_true(rt_pt_res_srq(&p));
	assert_int_equal(send_bw(&p, &err, "host", NULL), 0);
	assert_false(rt_pt_res_srq(&p));
}

static void named_refusals(void **state)
{
	struct rt_pt_params p;
	struct rt_error err;

	(void)state;
	refused(send_bw(&p, &err, "--use_neuron=0", NULL), &err,
		"option --use_neuron is not supported by rdmatest: needs GPU memory (AWS Neuron)");
	refused(send_bw(&p, &err, "--use_opencl=0", NULL), &err, "needs GPU memory (OpenCL)");
	refused(send_bw(&p, &err, "--aes_xts", NULL), &err, "needs mlx5 crypto");
	refused(send_bw(&p, &err, "--log_dci_streams=2", NULL), &err, "needs mlx5 DC");
	refused(send_bw(&p, &err, "--use_ooo", NULL), &err, "needs mlx5");
	/* the BW-only rows are named in the latency tests */
	refused(write_lat(&p, &err, "-O", NULL), &err, "bandwidth tests only");
	refused(write_lat(&p, &err, "--mr_per_qp", NULL), &err, "bandwidth tests only");
	refused(write_lat(&p, &err, "--use-srq", NULL), &err, "the SEND tests only");
	/* a plain refusal still reads as before */
	refused(send_bw(&p, &err, "--promiscuous", NULL), &err,
		"option --promiscuous is not supported by rdmatest");
	assert_null(strchr(err.reason, ':'));
}

static const struct rt_opt vector_opts[] = {
	RT_PT_OPTS_CONN, RT_PT_OPT_SIZE("65536"), RT_PT_OPT_ITERS("5000"),
	RT_PT_OPT_TX_DEPTH("128"), RT_PT_OPT_RX_DEPTH("512"), RT_PT_OPT_INLINE("0"),
	RT_PT_OPTS_RUN, RT_PT_OPTS_BW, RT_PT_OPT_VECTOR, RT_PT_OPT_FLOW_LABEL, { 0 },
};

static int parse_vector(struct rt_pt_params *p, struct rt_error *err, ...)
{
	va_list ap;
	int rc;

	va_start(ap, err);
	rc = pt_vparse(p, err, vector_opts, "ib_send_bw",
		       (struct rt_pt_test){ RT_PT_SEND, RT_PT_BW }, ap);
	va_end(ap);
	return rc;
}

static void vector_rules(void **state)
{
	struct rt_pt_params p;
	struct rt_error err;
	struct ibv_device dev = { .name = "rxe0" };
	struct ibv_context ctx = { .device = &dev, .num_comp_vectors = 2 };

	(void)state;
	assert_int_equal(parse_vector(&p, &err, "host", NULL), 0);
	assert_int_equal(p.opt.res.vector, -1);
	assert_int_equal(rt_pt_comp_vector(&p, &ctx, &err), 0);
	assert_int_equal(parse_vector(&p, &err, "-X", "1", "host", NULL), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, "needs -e"));
	assert_int_equal(parse_vector(&p, &err, "-e", "-X", "1", "host", NULL), 0);
	assert_int_equal(rt_pt_comp_vector(&p, &ctx, &err), 1);
	assert_int_equal(parse_vector(&p, &err, "-e", "--vector=2", "host", NULL), 0);
	assert_int_equal(rt_pt_comp_vector(&p, &ctx, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_ENV);
	assert_non_null(strstr(err.reason, "rxe0 has 2 completion vectors (num_comp_vectors)"));
	assert_int_equal(parse_vector(&p, &err, "-e", "-X", "2049", "host", NULL), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
}

static void flow_labels(void **state)
{
	struct rt_pt_params p;
	struct rt_error err;
	char many[400] = "0";

	(void)state;
	assert_int_equal(parse_vector(&p, &err, "--flow_label", "5,0x10,1048575", "host", NULL), 0);
	assert_int_equal(p.res.n_flow_labels, 3);
	assert_int_equal(rt_pt_flow_label(&p, 0), 5);
	assert_int_equal(rt_pt_flow_label(&p, 1), 16);
	assert_int_equal(rt_pt_flow_label(&p, 2), 1048575);
	assert_int_equal(rt_pt_flow_label(&p, 4), 16); /* round robin over the QPs */
	assert_int_equal(parse_vector(&p, &err, "host", NULL), 0);
	assert_int_equal(rt_pt_flow_label(&p, 3), 0);
	for (int i = 1; i <= RT_PT_FLOW_LABELS; i++)
		strcat(many, ",1");
	assert_int_equal(parse_vector(&p, &err, "--flow_label", many, "host", NULL), -1);
	assert_non_null(strstr(err.reason, "more than 64"));
	assert_int_equal(parse_vector(&p, &err, "--flow_label", "7,", "host", NULL), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults),
		cmocka_unit_test(values),
		cmocka_unit_test(rules),
		cmocka_unit_test(srq_side),
		cmocka_unit_test(named_refusals),
		cmocka_unit_test(vector_rules),
		cmocka_unit_test(flow_labels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
