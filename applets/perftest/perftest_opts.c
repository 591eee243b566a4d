/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "perftest/perftest_wire.h"
#include "perftest/perftest_dual.h"
#include "perftest/perftest_opts.h"
#include "perftest/perftest_imm.h"
#include "perftest/perftest_name.h"
#include "rdmatest/util.h"

const struct rt_enum rt_pt_mtus[] = {
	{ "active", 0, "the port's active MTU" },
	{ "256", IBV_MTU_256, NULL }, { "512", IBV_MTU_512, NULL },
	{ "1024", IBV_MTU_1024, NULL }, { "2048", IBV_MTU_2048, NULL },
	{ "4096", IBV_MTU_4096, NULL }, { NULL, 0, NULL },
};

const struct rt_enum rt_pt_outputs[] = {
	{ "all", RT_PT_OUT_ALL, "the whole table" },
	{ "bandwidth", RT_PT_OUT_BW, "the average bandwidth" },
	{ "message_rate", RT_PT_OUT_MSGRATE, "the message rate" },
	{ "latency", RT_PT_OUT_LAT, "the average latency" },
	{ NULL, 0, NULL },
};

const struct rt_enum rt_pt_atomics[] = {
	{ "FETCH_AND_ADD", RT_PT_FETCH_ADD, "add 1 to the server's 8 bytes" },
	{ "CMP_AND_SWAP", RT_PT_CMP_SWAP, "compare with 0, swap in 0" },
	{ NULL, 0, NULL },
};

/* Every other option of perftest 4.5's and 25.01's parsers (perftest_parameters.c,
 * parser()):
 * refusing them by name keeps a script's intent from being ignored.
 * The GPU-memory and mlx5-only ones say what they need. */
#define RT_PT_GPU(name, what) { 0, name, "needs GPU memory (" what ")" }
#define RT_PT_MLX5(name, what) { 0, name, "needs " what }
const struct rt_opt_refused rt_pt_refused[] = {
	RT_PT_GPU("use_opencl", "OpenCL"),
	RT_PT_GPU("opencl_platform_id", "OpenCL"),
	RT_PT_GPU("use_neuron", "AWS Neuron"),
	RT_PT_GPU("use_neuron_dmabuf", "AWS Neuron dma-buf"),
	RT_PT_GPU("use_hl", "Habana Gaudi"),
	RT_PT_GPU("use_mlu", "Cambricon MLU"),
	RT_PT_MLX5("aes_xts", "mlx5 crypto (AES-XTS)"),
	RT_PT_MLX5("encrypt_on_tx", "mlx5 crypto (AES-XTS)"),
	RT_PT_MLX5("sig_before", "mlx5 crypto (AES-XTS)"),
	RT_PT_MLX5("aes_block_size", "mlx5 crypto (AES-XTS)"),
	RT_PT_MLX5("data_enc_keys_number", "mlx5 crypto (AES-XTS)"),
	RT_PT_MLX5("kek_path", "mlx5 crypto (AES-XTS)"),
	RT_PT_MLX5("credentials_path", "mlx5 crypto (AES-XTS)"),
	RT_PT_MLX5("data_enc_key_app_path", "mlx5 crypto (AES-XTS)"),
	RT_PT_MLX5("log_dci_streams", "mlx5 DC transport (DCI streams)"),
	RT_PT_MLX5("log_active_dci_streams", "mlx5 DC transport (DCI streams)"),
	RT_PT_MLX5("dct", "mlx5 DC transport"),
	RT_PT_MLX5("use_data_direct", "mlx5 Data Direct (mlx5dv)"),
	RT_PT_MLX5("use_ooo", "mlx5 out-of-order data placement (mlx5dv)"),
	{ 0, "inline_recv", "perftest 25.01's parser refuses it (4.5 read its "
	  "value and did nothing with it)" },
	/* bandwidth-test rows the latency tests lack */
	{ 'O', "dualport", "bandwidth tests only (perftest: Dual-port mode only "
	  "supports BW tests)" },
	{ 0, "mr_per_qp", "bandwidth tests only, as in perftest" },
	{ 0, "recv_post_list", "bandwidth tests only (perftest: Receive post list is "
	  "supported in BW tests only)" },
	{ 0, "use-srq", "the SEND tests only, as perftest (the others post no "
	  "receives, or with --write_with_imm perftest refuses it)" },
	{ 'M', "MGID", NULL }, { 'A', "atomic_type", NULL },
	{ 'B', "source_mac", NULL },
	{ 'E', "dest_mac", NULL },
	{ 'J', "dest_ip", NULL }, { 'K', "dest_port", NULL },
	{ 'k', "source_port", NULL },
	{ 'X', "vector", "not in the write tests (perftest: Events feature not "
	  "available on WRITE verb)" },
	{ 'g', "mcg", NULL },
	{ 'v', "mac_fwd", NULL }, { 'C', "report-cycles", "latency tests only (perftest: "
	  "Available only on Latency tests)" },
	{ 'H', "report-histogram", NULL }, { 0, "report-histogrm", NULL },
	{ 'U', "report-unsorted", NULL }, { 0, "run_infinitely", NULL },
	{ 0, "reversed", NULL }, { 0, "report-both", NULL },
	{ 0, "latency_gap", NULL },
	{ 0, "rate_limit", NULL }, { 0, "burst_size", NULL },
	{ 0, "typical_pkt_size", NULL }, { 0, "rate_units", NULL },
	{ 0, "rate_limit_type", NULL },
	{ 0, "report-per-port", "bandwidth tests only: it needs -O (perftest: "
	  "Dual-port mode only supports BW tests)" }, { 0, "flows", NULL },
	{ 0, "flows_burst", NULL },
	{ 0, "use-null-mr", "the write and read tests only, as perftest (not in "
	  "ib_write_lat: its receiver polls for data a null MR does not carry)" },
	{ 0, "payload_file_path", "not in ib_write_lat (perftest leaves its "
	  "buffer zero there: the test polls it)" }, { 0, "tx_depth", NULL },
	{ 0, "vlan_en", NULL }, { 0, "vlan_pcp", NULL },
	{ 0, "promiscuous", NULL }, { 0, "sniffer", NULL },
	{ 0, "raw_ipv6", NULL },
	{ 0, "connectionless", NULL },
	/* rows some tests have and others not (bandwidth only; send and
	 * write only), so that each is refused by name where it is missing */
	{ 'b', "bidirectional", NULL }, { 'Q', "cq-mod", NULL },
	{ 'N', "noPeak", NULL },
	{ 'l', "post_list", NULL }, { 'w', "limit_bw", NULL },
	{ 'y', "limit_msgrate", NULL },
	{ 'I', "inline_size", NULL }, { 'r', "rx-depth", NULL },
	/* added after 4.5, up to 25.01 (Debian 13's) */
	{ 0, "write_with_imm", "ib_write_bw and ib_write_lat only (perftest: "
	  "Write_with_imm can only be used with write_lat and write_bw tests)" },
	{ 0, "congest_type", NULL },
	{ 0, "unsolicited_write", NULL }, { 0, "no_ddp", NULL },
	{ 0, "tcp", NULL },
	{ 0, "reply_every", NULL }, { 0, "raw_mcast", NULL },
	{ 0, "ethertype", NULL },
	{ 0, "use_rss", NULL }, { 0, "remote_mac", NULL },
	{ 0, "local_mac", NULL },
	{ 0, "remote_ip", NULL }, { 0, "local_ip", NULL },
	{ 0, "remote_port", NULL },
	{ 0, "local_port", NULL }, { 0, 0, NULL },
};

unsigned rt_pt_cq_mod(const struct rt_pt_params *p, uint64_t size)
{
	(void)size; /* settled once by rt_pt_params_init, as perftest does */
	return p->opt.cq_mod;
}

/* perftest's order: -t and -r clipped to -n; -Q 1 above 8 KiB unless
 * given, -a or -e; -Q at most -t; -l needs -n a multiple of it and takes
 * -Q from it unless given. */
static int depths(struct rt_pt_params *p)
{
	if (!p->opt.duration && p->opt.tx_depth > p->opt.iters)
		p->opt.tx_depth = p->opt.iters;
	if (!p->opt.duration && rt_pt_receives(p) && p->opt.rx_depth > p->opt.iters)
		p->opt.rx_depth = p->opt.iters;
	if (p->opt.size > 8192 && p->opt.ud.conn != RT_PT_UD && !p->opt.all &&
	    !p->opt.events && !p->cq_mod_given)
		p->opt.cq_mod = 1;
	if (p->opt.cq_mod > p->opt.tx_depth)
		p->opt.cq_mod = p->opt.tx_depth;
	if (p->opt.post_list <= 1)
		return 0;
	if (!p->opt.duration && p->opt.iters % p->opt.post_list)
		return -1;
	if (!p->cq_mod_given)
		p->opt.cq_mod = p->opt.post_list;
	else if (p->opt.post_list % p->opt.cq_mod)
		return -2;
	return 0;
}

/* A -w/-y figure: a finite number > 0. */
static int limit(const char *text, const char *opt, double *out,
		 struct rt_error *err)
{
	char *end;

	*out = 0;
	if (!text)
		return 0;
	errno = 0;
	*out = strtod(text, &end);
	if (errno || end == text || *end || !isfinite(*out) || *out <= 0)
		return rt_fail(err, RT_EXIT_USAGE, "%s '%s': not a number above 0",
			       opt, text);
	return 0;
}

/* What the options as given imply. The tables without -q, -l or -Q (the
 * latency tests) leave them 0: one QP, single posts, each completion
 * signalled. */
static void derive(struct rt_pt_params *p, const struct rt_opt_table *tab)
{
	struct rt_pt_cfg *o = &p->opt;

	p->client = o->server != NULL;
	p->chan_client = p->client; /* --reversed swaps p->client only */
	p->comm_cm = o->rdma_cm || o->comm_rdma_cm;
	p->cq_mod_given = rt_opt_was_given(tab, "cq-mod");
	if (!o->qps)
		o->qps = 1;
	if (!o->post_list)
		o->post_list = 1;
	if (!o->cq_mod)
		o->cq_mod = 1;
}

/* The CM options (perftest 25.01's parser: -T without -R exits 1, "TOS
 * only valid for rdma_cm based QP"; -L on a non-raw-Ethernet QP exits 1,
 * "Hop limit only valid for RawEth QP"). --tclass and --retry_count
 * perftest takes and drops where they do nothing: rdmatest names them. */
static int cm_rules(struct rt_pt_params *p, const struct rt_opt_table *tab,
		    struct rt_error *err)
{
	if (!rt_opt_was_given(tab, "tos"))
		p->opt.tos = -1;
	if (p->opt.tos >= 0 && !p->opt.rdma_cm)
		return rt_fail(err, RT_EXIT_USAGE, "-T (--tos) needs -R: the type of "
			       "service is set on the test QPs' RDMA CM ids (perftest "
			       "refuses it without -R too)");
	if (rt_opt_was_given(tab, "hop_limit"))
		return rt_fail(err, RT_EXIT_USAGE, "-L (--hop_limit): perftest takes it "
			       "for raw Ethernet QPs only and refuses it for RC; rdmatest "
			       "has no raw Ethernet test");
	if (p->opt.rdma_cm && rt_opt_was_given(tab, "tclass"))
		return rt_fail(err, RT_EXIT_USAGE, "--tclass and -R exclude each other: "
			       "with -R the RDMA CM sets the QPs' path (use -T)");
	if (!p->comm_cm && rt_opt_was_given(tab, "retry_count"))
		return rt_fail(err, RT_EXIT_USAGE, "--retry_count needs -R or -z: it is "
			       "the RDMA CM connections' retry count");
	return 0;
}

static int duration(struct rt_pt_params *p, const struct rt_opt_table *tab,
		    struct rt_error *err)
{
	if (!rt_opt_was_given(tab, "margin"))
		p->opt.margin = p->opt.duration / 4;
	if (!p->opt.duration) {
		if (rt_opt_was_given(tab, "margin"))
			return rt_fail(err, RT_EXIT_USAGE, "-f (--margin) needs -D");
		return 0;
	}
	if (p->opt.all)
		return rt_fail(err, RT_EXIT_USAGE, "-a and -D exclude each other "
			       "(as in perftest)");
	if (p->opt.duration <= 2 * p->opt.margin)
		return rt_fail(err, RT_EXIT_USAGE, "-D %lld must be more than twice the "
			       "margin -f %lld", p->opt.duration, p->opt.margin);
	p->opt.no_peak = true;
	/* a timed receiver ends at the peer's next channel message, which a
	 * sending peer cannot await while it still receives */
	if (p->t.verb == RT_PT_SEND && p->opt.bidir)
		return rt_fail(err, RT_EXIT_USAGE, "-b with -D in ib_send_bw is not "
			       "supported by rdmatest");
	return 0;
}

/* What the latency tests refuse, as perftest 4.5 does or because the
 * option has no meaning there (exit 2, naming it). */
static int latency_rules(const struct rt_pt_params *p, struct rt_error *err)
{
	if (p->opt.events && p->t.verb == RT_PT_WRITE)
		return rt_fail(err, RT_EXIT_USAGE, "-e (--events): the write test polls "
			       "memory, there are no completions to sleep on (as in perftest)");
	if (p->opt.events && p->opt.duration)
		return rt_fail(err, RT_EXIT_USAGE, "-e (--events) and -D exclude each "
			       "other (as in perftest)");
	if (p->opt.output && p->opt.output != RT_PT_OUT_LAT)
		return rt_fail(err, RT_EXIT_USAGE, "--output: a latency test has only "
			       "'latency'");
	return 0;
}

/* An atomic is 8 bytes: perftest 4.5 exits 1 ("Message size cannot be
 * changed for Atomic tests") for -a or another -s; rdmatest says which. */
static int atomic_rules(const struct rt_pt_params *p, struct rt_error *err)
{
	if (p->t.verb != RT_PT_ATOMIC)
		return 0;
	if (p->opt.all)
		return rt_fail(err, RT_EXIT_USAGE, "-a (--all): an atomic test has one "
			       "message size, %d bytes (perftest refuses it too)",
			       RT_PT_ATOMIC_SIZE);
	if (p->opt.size != RT_PT_ATOMIC_SIZE)
		return rt_fail(err, RT_EXIT_USAGE, "-s %llu: an atomic is %d bytes, the "
			       "size cannot be changed (perftest refuses it too)",
			       (unsigned long long)p->opt.size, RT_PT_ATOMIC_SIZE);
	return 0;
}

/* Options a test has no use for are refused, never taken and ignored: a
 * user who gives -o to a write test believes it shaped the run (perftest
 * refuses -o and -r the same way; -S with -R it passes to nothing). */
static int unused_rules(const struct rt_pt_params *p, const struct rt_opt_table *tab,
			struct rt_error *err)
{
	bool reads = p->t.verb == RT_PT_READ || p->t.verb == RT_PT_ATOMIC;

	if (!reads && rt_opt_was_given(tab, "outs"))
		return rt_fail(err, RT_EXIT_USAGE, "-o (--outs): outstanding reads are for "
			       "the READ and atomic tests; the %s test has none",
			       rt_pt_verb_name(p->t.verb));
	if (!rt_pt_receives(p) && rt_opt_was_given(tab, "rx-depth"))
		return rt_fail(err, RT_EXIT_USAGE, "-r (--rx-depth): the %s test posts no "
			       "receives; the receive depth is for the SEND tests%s",
			       rt_pt_verb_name(p->t.verb), p->t.verb == RT_PT_WRITE ?
			       " and --write_with_imm" : "");
	if (p->opt.rdma_cm && rt_opt_was_given(tab, "sl"))
		return rt_fail(err, RT_EXIT_USAGE, "-S (--sl) and -R exclude each other: "
			       "with -R the RDMA CM takes the service level from the path it "
			       "resolves");
	return 0;
}

int rt_pt_params_init(struct rt_pt_params *p, const struct rt_pt_cfg *c,
		      struct rt_pt_test t, const struct rt_opt_table *tab,
		      struct rt_error *err)
{
	uint64_t slot;

	*p = (struct rt_pt_params){ .t = t, .opt = *c };
	derive(p, tab);
	if (atomic_rules(p, err) || unused_rules(p, tab, err) ||
	    cm_rules(p, tab, err) || duration(p, tab, err) ||
	    rt_pt_imm_rules(p, tab, err) || rt_pt_ud_rules(p, err) ||
	    rt_pt_mcast_rules(p, tab, err) || rt_pt_rate_rules(p, tab, err) ||
	    rt_pt_res_rules(p, c, tab, err) || rt_pt_gpu_rules(p, tab, err) ||
	    rt_pt_payload_rules(p, err) ||
	    (t.kind == RT_PT_LAT && latency_rules(p, err)) ||
	    limit(c->limit_bw, "-w (--limit_bw)", &p->limit_bw, err) ||
	    limit(c->limit_msgrate, "-y (--limit_msgrate)", &p->limit_msgrate, err) ||
	    limit(c->limit_lat, "--limit_lat", &p->limit_lat, err) ||
	    limit(c->limit_lat_max, "--limit_lat_max", &p->limit_lat_max, err) ||
	    rt_pt_report_rules(p, tab, err) || rt_pt_dual_rules(p, tab, err))
		return -1;
	if (p->opt.all)
		p->opt.size = RT_PT_ALL_MAX;
	switch (depths(p)) {
	case -1:
		return rt_fail(err, RT_EXIT_USAGE, "-n %llu must be a multiple of -l %lld",
			       (unsigned long long)p->opt.iters, p->opt.post_list);
	case -2:
		return rt_fail(err, RT_EXIT_USAGE, "-l %lld must be a multiple of -Q %lld",
			       p->opt.post_list, p->opt.cq_mod);
	default:
		break;
	}
	/* perftest then makes an odd receive depth of a send test even (its
	 * "WA for a bug when rx_depth is odd", write with immediate too),
	 * outside -a */
	if (rt_pt_receives(p) && p->opt.rx_depth % 2 && !p->opt.all)
		p->opt.rx_depth++;
	if (p->opt.iters > 20000)
		p->opt.no_peak = true;
	slot = rt_pt_slot(p->opt.size, RT_PT_CYCLE_BUFFER, RT_PT_CACHE_LINE);
	if (slot * 2 * p->opt.qps > RT_PT_MAX_BUF)
		return rt_fail(err, RT_EXIT_USAGE, "-q %lld with messages of %llu bytes "
			       "needs a %llu-byte buffer, above rdmatest's bound of %llu",
			       p->opt.qps, (unsigned long long)p->opt.size,
			       (unsigned long long)(slot * 2 * p->opt.qps), RT_PT_MAX_BUF);
	return 0;
}
