/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The options the ib_{send,write,read}_{bw,lat} applets share with
 * perftest 4.5: letters, long names and defaults (perftest's
 * perftest_parameters.c, parser()),
 * the list of perftest options rdmatest refuses (exit 2, "not supported
 * by rdmatest"), and the checked parameters a run uses. Defaults that
 * differ per test (-s, -n, -t, -r, -I) are arguments of the row macros,
 * so that each applet's table prints its own in --help and the man page.
 *
 * Memory bound: the one registered buffer is at most RT_PT_MAX_BUF bytes
 * (perftest's layout: round_up(max(size, page), cache line) × 2 × Q, the
 * whole of it allocated and registered up front as perftest does, so
 * -a -q 128 takes 2 GiB), so -q times the largest size is refused beyond
 * it (exit 2); and at most half the host's memory (exit 3 naming both,
 * perftest_conn.c). */
#ifndef RDMATEST_PERFTEST_OPTS_H
#define RDMATEST_PERFTEST_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "rdmatest/error.h"
#include "rdmatest/opt.h"
#include "perftest/perftest_dual.h"
#include "perftest/perftest_gpu.h"
#include "perftest/perftest_imm.h"
#include "perftest/perftest_mcast.h"
#include "perftest/perftest_payload.h"
#include "perftest/perftest_rate.h"
#include "perftest/perftest_res.h"
#include "perftest/perftest_runctl.h"
#include "perftest/perftest_ud.h"

#define RT_PT_MAX_QPS 1024
#define RT_PT_MAX_BUF (1ull << 34)  /* 16 GiB: -a -q 1024 */
#define RT_PT_ALL_MIN 2ull            /* -a: 2^1 .. */
#define RT_PT_ALL_MAX (1ull << 23)    /* .. 2^23 bytes */

enum rt_pt_verb { RT_PT_SEND, RT_PT_WRITE, RT_PT_READ, RT_PT_ATOMIC };
enum rt_pt_kind { RT_PT_BW, RT_PT_LAT };
enum rt_pt_output { RT_PT_OUT_ALL, RT_PT_OUT_BW, RT_PT_OUT_MSGRATE, RT_PT_OUT_LAT };
/* -A: perftest's two atomics on 8 bytes: add 1, or compare with 0 and
 * swap in 0 (so the value never changes). */
enum rt_pt_atomic { RT_PT_FETCH_ADD, RT_PT_CMP_SWAP };
#define RT_PT_ATOMIC_SIZE 8

struct rt_pt_test {
	enum rt_pt_verb verb;
	enum rt_pt_kind kind;
};

/* The option table's config (RT_CFG of every ib_* applet), and the
 * options part of struct rt_pt_params (its `opt`). */
struct rt_pt_cfg {
	const char *server, *dev, *out_json_file, *limit_bw, *limit_msgrate;
	const char *limit_lat, *limit_lat_max; /* latency tests */
	long long port, ib_port;
	long long size;       /* -s; the rules make it 8 MiB with -a */
	long long iters;      /* -n */
	long long duration;   /* -D, 0: iteration mode */
	long long margin;     /* -f; the rules make it a quarter of -D when not given */
	long long gid_index;  /* -x, -1: chosen */
	long long qps, tx_depth, rx_depth, qp_timeout, sl, inline_size, outs;
	long long post_list, cq_mod;
	long long tos;        /* -T; the rules make it -1 when not given */
	long long tclass, retry_count, hop_limit;
	long long wait_destroy; /* seconds before the resources go */
	int mtu;              /* enum ibv_mtu, 0: the port's active MTU */
	int all, cpu_freq, no_peak, bidir, events, report_gbits;
	int out_json, warm_up, help, version;
	int output;           /* enum rt_pt_output */
	int rdma_cm;          /* -R: the test QPs connected with the RDMA CM */
	int comm_rdma_cm;
	int ipv6_addr; /* --ipv6-addr: nothing to do, the exchange is dual-stack */
	int atomic_type; /* atomic tests: enum rt_pt_atomic */
	int dont_xchg, old_post_send;
	int no_relaxed;       /* the MR without relaxed ordering */
	/* each group of options' own rows (its header) */
	struct rt_pt_ud_cfg ud;           /* -c: perftest_ud.h */
	struct rt_pt_rate_cfg rate;       /* perftest_rate.h */
	struct rt_pt_mcast_cfg mcast;     /* perftest_mcast.h */
	struct rt_pt_res_cfg res;         /* perftest_res.h */
	struct rt_pt_dual_cfg dual;       /* perftest_dual.h */
	struct rt_pt_runctl_cfg ctl;      /* perftest_runctl.h */
	struct rt_pt_imm_cfg imm;         /* perftest_imm.h */
	struct rt_pt_payload_cfg payload; /* perftest_payload.h */
	struct rt_pt_gpu_cfg gpu;         /* perftest_gpu.h */
};

extern const struct rt_enum rt_pt_mtus[];     /* active (0), 256 .. 4096 */
extern const struct rt_enum rt_pt_outputs[];  /* --output words */
extern const struct rt_enum rt_pt_atomics[];  /* -A words */
/* perftest 4.5's options that no ib_* applet implements (letters and long
 * names); an applet's own rows win over this list. */
extern const struct rt_opt_refused rt_pt_refused[];

/* What the help and man page of every ib_* applet say of perftest's
 * options it refuses (exit 2, each naming itself), by reason; the list
 * is test/cli/perftest-audit/expected-refusals, which the audit checks
 * against each tool's --help. */
#define RT_PT_REFUSED_DOC \
	"perftest options refused (exit 2, naming the option): GPU and " \
	"accelerator memory: --use_cuda, --use_cuda_bus_id, --use_cuda_dmabuf, " \
	"--use_data_direct, --use_rocm, --use_neuron, --use_neuron_dmabuf, " \
	"--use_hl, --use_mlu. mlx5 only: DC transport (-c DC, " \
	"--log_dci_streams, --log_active_dci_streams) and AES-XTS crypto " \
	"(--aes_xts, --encrypt_on_tx, --sig_before, --aes_block_size, " \
	"--data_enc_keys_number, --kek_path, --credentials_path, " \
	"--data_enc_key_app_path). hns only: --congest_type. EFA only: " \
	"--unsolicited_write. Write tests, as perftest: -X (--vector). BW " \
	"tests, as perftest: -C (--report-cycles). ib_write_lat, as perftest: " \
	"--payload_file_path, --use-null-mr. As " \
	"perftest 25.01: --inline_recv. Raw Ethernet only, as perftest: -L " \
	"(--hop_limit). " \
	"mlx5 only: --use_ooo, --no_ddp. ib_atomic_bw, as perftest: the rate " \
	"limiter (--rate_limit, --rate_limit_type, --rate_units, --burst_size). " \
	"Raw packet QPs only, as perftest: --typical_pkt_size (with " \
	"--rate_limit_type PP), --connectionless. -M (--MGID) goes with -g " \
	"(--mcg), which exits 3 on a RoCE device that delivers no multicast " \
	"(Soft-RoCE). ib_write_bw and ib_write_lat only, as perftest: " \
	"--write_with_imm."

/* ---- rows (the file defines RT_CFG as struct rt_pt_cfg) ---------------- */

#define RT_PT_OPTS_CONN \
	{ 'Z', "server", RT_OPT_OPERAND, RT_S(server), 0, 0, NULL, "HOST", \
	  "the server to connect to; without it, serve one client. -Z, and " \
	  "--server with no HOST after it, are perftest's hidden server flag: " \
	  "as in perftest the role follows HOST", NULL }, \
	{ 'p', "port", RT_OPT_PORT, RT_L(port), 0, 0, "18515", "PORT", \
	  "TCP port of the out-of-band exchange", NULL }, \
	{ 'd', "ib-dev", RT_OPT_STRING, RT_S(dev), 0, 0, NULL, "DEV", \
	  "RDMA device (default: the first)", NULL }, \
	{ 'i', "ib-port", RT_OPT_INT, RT_L(ib_port), 1, 255, "1", "PORT", \
	  "port of the device", NULL }, \
	{ 'm', "mtu", RT_OPT_ENUM, RT_I(mtu), 0, 0, "active", "MTU", \
	  "path MTU (the peers use the smaller)", \
	  rt_pt_mtus }, \
	{ 'x', "gid-index", RT_OPT_INT, RT_L(gid_index), -1, 255, "-1", "IDX", \
	  "GID index (-1: none on IB; on RoCE the RoCE v2 GID of the " \
	  "address the peer is reached on, named in the output)", NULL }, \
	RT_PT_OPT_CONNECTION, \
	{ 'u', "qp-timeout", RT_OPT_INT, RT_L(qp_timeout), 0, 31, "14", "N", \
	  "QP ACK timeout exponent", NULL }, \
	{ 'S', "sl", RT_OPT_INT, RT_L(sl), 0, 15, "0", "SL", "service level", NULL }, \
	{ 'R', "rdma_cm", RT_OPT_FLAG, RT_I(rdma_cm), 0, 0, NULL, NULL, \
	  "run the whole exchange over an RDMA CM connection on -p and connect " \
	  "the test QPs with the RDMA CM on the same port, as perftest -R does " \
	  "(wire-compatible with perftest 4.5 and 25.01)", NULL }, \
	{ 'z', "comm_rdma_cm", RT_OPT_FLAG, RT_I(comm_rdma_cm), 0, 0, NULL, NULL, \
	  "run the exchange over an RDMA CM connection on -p, as -R does, but " \
	  "connect the test QPs by hand from the exchanged records", NULL }, \
	{ 'T', "tos", RT_OPT_INT, RT_L(tos), 0, 255, NULL, "TOS", \
	  "-R only (exit 2 without, as perftest refuses it): the type of service " \
	  "the client sets on its test QPs' CM ids before their routes are " \
	  "resolved, as perftest; the server's QPs take the path of the client's " \
	  "requests, so there it is only printed", NULL }, \
	{ 0, "tclass", RT_OPT_INT, RT_L(tclass), 0, 255, "0", "TC", \
	  "traffic class in the GRH of QPs connected by hand (-R refuses it: " \
	  "the RDMA CM sets the path, see -T)", NULL }, \
	{ 0, "retry_count", RT_OPT_INT, RT_L(retry_count), 0, 7, "7", "N", \
	  "-R or -z only: the retry count the RDMA CM connections ask for (-R: " \
	  "also the test QPs' RNR retry count, as perftest)", NULL }, \
	{ 'L', "hop_limit", RT_OPT_INT, RT_L(hop_limit), 0, 255, NULL, "N", \
	  "refused (exit 2): perftest takes it for raw Ethernet QPs only and " \
	  "refuses it for RC; RC QPs' GRH hop limit is 255, as perftest's", NULL }, \
	{ 0, "dont_xchg_versions", RT_OPT_FLAG, RT_I(dont_xchg), 0, 0, NULL, NULL, \
	  "skip the version, page size, cache line and MTU messages (both sides " \
	  "must give it); each side keeps its own values. perftest 4.5 and 25.01 " \
	  "drop the same messages but then exit 1 at their version check, so it " \
	  "works between rdmatest's only", NULL }

#define RT_PT_OPT_SIZE(def) \
	{ 's', "size", RT_OPT_SIZE, RT_L(size), 1, 1LL << 31, (def), "SIZE", \
	  "message size; both sides must agree", NULL }
#define RT_PT_OPT_ITERS(def) \
	{ 'n', "iters", RT_OPT_INT, RT_L(iters), 5, 100000000, (def), "N", \
	  "messages per size", NULL }
#define RT_PT_OPT_TX_DEPTH(def) \
	{ 't', "tx-depth", RT_OPT_INT, RT_L(tx_depth), 1, 16384, (def), "N", \
	  "sends in flight per QP (clipped to -n)", NULL }
#define RT_PT_OPT_RX_DEPTH(def) \
	{ 'r', "rx-depth", RT_OPT_INT, RT_L(rx_depth), 1, 16384, (def), "N", \
	  "send tests, and write tests that write with immediate: receives " \
	  "posted per QP (otherwise the write and read tests refuse it)", NULL }
#define RT_PT_OPT_INLINE(def) \
	{ 'I', "inline_size", RT_OPT_INT, RT_L(inline_size), 0, 1024, (def), "N", \
	  "largest message sent inline", NULL }

#define RT_PT_OPTS_RUN \
	{ 'a', "all", RT_OPT_FLAG, RT_I(all), 0, 0, NULL, NULL, \
	  "every size from 2 B to 8 MiB, one row each", NULL }, \
	RT_PT_OPTS_TIMING

/* The atomic tests' -s, -a and -A: one size, 8 bytes. The -a and -s rows
 * exist to name the refusal (perftest exits 1 with "Message size cannot be
 * changed for Atomic tests"). */
#define RT_PT_OPTS_ATOMIC \
	{ 's', "size", RT_OPT_SIZE, RT_L(size), 1, 1LL << 31, "8", "SIZE", \
	  "message size: atomics are 8 bytes, another size exits 2", NULL }, \
	{ 'a', "all", RT_OPT_FLAG, RT_I(all), 0, 0, NULL, NULL, \
	  "refused (exit 2): atomic tests have one size", NULL }, \
	{ 'A', "atomic_type", RT_OPT_ENUM, RT_I(atomic_type), 0, 0, "FETCH_AND_ADD", \
	  "TYPE", "the atomic: add 1, or compare with 0 and swap in 0", rt_pt_atomics }

/* Everything of RT_PT_OPTS_RUN but -a. */
#define RT_PT_OPTS_TIMING \
	{ 'D', "duration", RT_OPT_INT, RT_L(duration), 0, 86400, "0", "SEC", \
	  "run for SEC seconds instead of -n messages", NULL }, \
	{ 'f', "margin", RT_OPT_INT, RT_L(margin), 0, 86400, NULL, "SEC", \
	  "-D: warm-up and cool-down left out of the figures; a quarter of -D when not given", NULL }, \
	{ 'o', "outs", RT_OPT_INT, RT_L(outs), 0, 65535, "0", "N", \
	  "read and atomic tests: outstanding requests (0: the device's maximum); write and send tests refuse it", NULL }, \
	{ 'e', "events", RT_OPT_FLAG, RT_I(events), 0, 0, NULL, NULL, \
	  "sleep on a completion channel instead of polling", NULL }, \
	{ 'F', "CPU-freq", RT_OPT_FLAG, RT_I(cpu_freq), 0, 0, NULL, NULL, \
	  "accepted (rdmatest times with the monotonic clock, not CPU cycles)", NULL }, \
	{ 'h', "usage", RT_OPT_FLAG, RT_I(help), 0, 0, NULL, NULL, \
	  "this help (as --help)", NULL }, \
	{ 'V', "perftest-version", RT_OPT_FLAG, RT_I(version), 0, 0, NULL, NULL, \
	  "print perftest's version line, \"Version: 6.06\"", NULL }, \
	{ 0, "report_gbits", RT_OPT_FLAG, RT_I(report_gbits), 0, 0, NULL, NULL, \
	  "report in Gb/s (10^9 bit) instead of MB/s (2^20 bytes)", NULL }, \
	{ 0, "out_json", RT_OPT_FLAG, RT_I(out_json), 0, 0, NULL, NULL, \
	  "write every row to --out_json_file as one valid JSON document", NULL }, \
	{ 0, "out_json_file", RT_OPT_STRING, RT_S(out_json_file), 0, 0, \
	  "perftest_out.json", "FILE", "the --out_json document", NULL }, \
	{ 0, "output", RT_OPT_ENUM, RT_I(output), 0, 0, "all", "WHAT", \
	  "print only this figure of each row", rt_pt_outputs }, \
	{ 0, "perform_warm_up", RT_OPT_FLAG, RT_I(warm_up), 0, 0, NULL, NULL, \
	  "write, read and atomic BW tests: a round of messages before measuring; " \
	  "the send and latency tests accept it and do nothing with it, as perftest", \
	  NULL }, \
	{ 0, "wait_destroy", RT_OPT_INT, RT_L(wait_destroy), 0, 86400, "0", "SEC", \
	  "wait SEC seconds (SIGINT ends it) before releasing the QPs, CQs and " \
	  "memory, as perftest", NULL }, \
	{ 0, "use_old_post_send", RT_OPT_FLAG, RT_I(old_post_send), 0, 0, NULL, NULL, \
	  "accepted: rdmatest always posts with ibv_post_send (its info block " \
	  "says \"ibv_wr* API : OFF\")", NULL }, \
	{ 0, "disable_pcie_relaxed", RT_OPT_FLAG, RT_I(no_relaxed), 0, 0, NULL, NULL, \
	  "register the buffer without IBV_ACCESS_RELAXED_ORDERING (\"PCIe relax " \
	  "order : OFF\")", NULL }, \
	{ 0, "ipv6-addr", RT_OPT_FLAG, RT_I(ipv6_addr), 0, 0, NULL, NULL, \
	  "accepted (perftest 23.07 and later): the exchange takes the server's " \
	  "IPv6 address without it, and the server listens on IPv6 and IPv4", NULL }

/* BW-only rows. */
#define RT_PT_OPTS_BW \
	{ 'q', "qp", RT_OPT_INT, RT_L(qps), 1, RT_PT_MAX_QPS, "1", "N", \
	  "number of QPs", NULL }, \
	{ 'l', "post_list", RT_OPT_INT, RT_L(post_list), 1, 4096, "1", "N", \
	  "messages per post call", NULL }, \
	{ 'Q', "cq-mod", RT_OPT_INT, RT_L(cq_mod), 1, 1024, "100", "N", \
	  "one signalled completion every N messages (1 above 8 KiB unless given)", NULL }, \
	{ 'N', "noPeak", RT_OPT_FLAG, RT_I(no_peak), 0, 0, NULL, NULL, \
	  "do not measure the peak bandwidth", NULL }, \
	{ 'b', "bidirectional", RT_OPT_FLAG, RT_I(bidir), 0, 0, NULL, NULL, \
	  "both sides send; both print the sum", NULL }, \
	{ 'w', "limit_bw", RT_OPT_STRING, RT_S(limit_bw), 0, 0, NULL, "BW", \
	  "exit 1 when the average bandwidth is below BW (the report's unit)", NULL }, \
	{ 'y', "limit_msgrate", RT_OPT_STRING, RT_S(limit_msgrate), 0, 0, NULL, "MPPS", \
	  "exit 1 when the message rate is below MPPS", NULL }

/* Latency-only rows: thresholds for scripts (perftest has none). */
#define RT_PT_OPTS_LAT \
	{ 0, "limit_lat", RT_OPT_STRING, RT_S(limit_lat), 0, 0, NULL, "USEC", \
	  "exit 1 when a size's average latency (t_avg) is above USEC", NULL }, \
	{ 0, "limit_lat_max", RT_OPT_STRING, RT_S(limit_lat_max), 0, 0, NULL, "USEC", \
	  "exit 1 when a size's true maximum latency is above USEC", NULL }

/* ---- the checked parameters --------------------------------------------- */

struct rt_pt_params {
	struct rt_pt_test t;
	/* The options: a copy of the table's config, which the rules then
	 * settle in place (perftest's dependencies: -t and -r clipped to -n,
	 * -Q, -a's largest size, -f a quarter of -D, -T -1 when not given,
	 * --burst_size -t, -q doubled by -O; after the handshake UD's -s
	 * lowered to the MTU), so that each option has one field and no copy
	 * of it can go stale. */
	struct rt_pt_cfg opt;
	/* what the rules derive from them */
	bool client;
	bool chan_client;     /* HOST given: this side connects and writes first */
	bool cq_mod_given;    /* -Q given: no automatic 1 above 8 KiB */
	bool comm_cm;         /* -R or -z: the exchange over an RDMA CM connection */
	bool rate_type_given; /* --rate_limit_type (HW does not fall back to SW) */
	double rate_limit;    /* in opt.rate.units, 0: none */
	double limit_bw, limit_msgrate; /* 0: none */
	double limit_lat, limit_lat_max; /* µs, 0: none */
	struct rt_pt_res res; /* addressing and resources (perftest_res.h) */
	struct rt_pt_gpu gpu; /* GPU memory (perftest_gpu.h) */
	double cycles_per_us; /* -C: the CPU's MHz; 0: report in µs (perftest_runctl.h) */
};

/* The test posts receives: the send tests, and the write tests with
 * --write_with_imm (perftest_imm.h). */
static inline bool rt_pt_receives(const struct rt_pt_params *p)
{
	return p->t.verb == RT_PT_SEND || p->opt.imm.write_imm;
}

/* Checks the combination (perftest's dependencies: -D with -a refused,
 * -D > 2 × margin, -t clipped to -n, -a with the largest size, the buffer
 * bound) and fills *p. `tab` is the applet's table (which rows were
 * given). Usage errors are exit 2 naming the option. */
int rt_pt_params_init(struct rt_pt_params *p, const struct rt_pt_cfg *c,
		      struct rt_pt_test t, const struct rt_opt_table *tab,
		      struct rt_error *err);
/* -Q in force (perftest settles it once: 1 above 8 KiB unless -Q, -a or
 * -e was given; at most -t; -l's value with -l unless -Q was given). */
unsigned rt_pt_cq_mod(const struct rt_pt_params *p, uint64_t size);

#endif
