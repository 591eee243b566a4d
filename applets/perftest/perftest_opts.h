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
#include "perftest/perftest_res.h"
#include "perftest/perftest_extra.h"

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
/* -c: RC, UC (send and write tests), UD (send tests); the other words
 * perftest knows are refused by name (rt_pt_conns). */
enum rt_pt_conn_type { RT_PT_RC, RT_PT_UC, RT_PT_UD, RT_PT_XRC, RT_PT_DC, RT_PT_SRD };
/* UD: the receive buffer's room for the GRH, as perftest's UD_ADDITION;
 * UD and multicast QPs use perftest's Q_Key. */
#define RT_PT_UD_GRH 40u
#define RT_PT_QKEY 0x11111111u
/* UC and UD receive depth when -r is left at 512: -n, at most this
 * (perftest's UC_MAX_RX), so that every receive is posted up front. */
#define RT_PT_UC_MAX_RX 16000u
/* The rate limiter (--rate_limit_type): off, software pacing, the
 * device's per-QP rate limit (packet pacing), raw Ethernet pacing. */
enum rt_pt_rate_type { RT_PT_RATE_OFF, RT_PT_RATE_SW, RT_PT_RATE_HW, RT_PT_RATE_PP };
/* --rate_units: MiB/s, Gb/s (10^9 bit), packets per second. */
enum rt_pt_rate_unit { RT_PT_RATE_GBPS, RT_PT_RATE_MIBPS, RT_PT_RATE_PPS };
#define RT_PT_ATOMIC_SIZE 8

struct rt_pt_test {
	enum rt_pt_verb verb;
	enum rt_pt_kind kind;
};

/* The option table's config (RT_CFG of every ib_* applet). */
struct rt_pt_cfg {
	const char *server, *dev, *out_json_file, *limit_bw, *limit_msgrate;
	const char *limit_lat, *limit_lat_max; /* latency tests */
	long long port, ib_port, size, iters, duration, margin, gid_index;
	long long qps, tx_depth, rx_depth, qp_timeout, sl, inline_size, outs;
	long long post_list, cq_mod;
	long long tos, tclass, retry_count, hop_limit, wait_destroy;
	int mtu, conn, all, cpu_freq, no_peak, bidir, events, report_gbits;
	int out_json, warm_up, help, version, output, rdma_cm, comm_rdma_cm;
	int ipv6_addr; /* --ipv6-addr: nothing to do, the exchange is dual-stack */
	int atomic_type; /* atomic tests: enum rt_pt_atomic */
	int dont_xchg, old_post_send, no_relaxed;
	/* the rate limiter, multicast (perftest_ud.c) */
	const char *rate_limit, *mgid;
	long long burst_size, typical_pkt_size;
	int rate_units, rate_type, mcg;
	struct rt_pt_res_cfg res; /* perftest_res.h's rows */
	/* run control and reporting (perftest_ropts.c) */
	const char *counters;  /* -W */
	long long latency_gap; /* µs */
	int run_inf, report_both, reversed, cpu_util, per_port;
	int histogram, unsorted, client_flag;
	struct rt_pt_extra_cfg extra; /* perftest_extra.h's rows */
};

extern const struct rt_enum rt_pt_mtus[];     /* active (0), 256 .. 4096 */
extern const struct rt_enum rt_pt_outputs[];  /* --output words */
extern const struct rt_enum rt_pt_conns[];    /* -c: RC, UC, UD; XRC, DC, SRD refused */
extern const struct rt_enum rt_pt_rate_units[]; /* --rate_units: M, g, p */
extern const struct rt_enum rt_pt_rate_types[]; /* --rate_limit_type: SW, HW, PP */
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
	{ 'c', "connection", RT_OPT_ENUM, RT_I(conn), 0, 0, "RC", "TYPE", \
	  "connection type: RC; UC (send and write tests); UD (send tests: a " \
	  "message is at most the MTU, -s above it is lowered to it)", rt_pt_conns }, \
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

/* Reporting rows of every test (perftest_ropts.c): -W, --cpu_util, -P. */
#define RT_PT_OPTS_REPORT \
	{ 'W', "report-counters", RT_OPT_STRING, RT_S(counters), 0, 0, NULL, "LIST", \
	  "port counters to report the change of after each row: names under " \
	  "/sys/class/infiniband/DEV/ports/PORT/, comma-separated " \
	  "(\"counters/port_xmit_data,hw_counters/rcvd_pkts\"), as perftest; " \
	  "one that cannot be read exits 3", NULL }, \
	{ 0, "cpu_util", RT_OPT_FLAG, RT_I(cpu_util), 0, 0, NULL, NULL, \
	  "-D: add perftest's CPU_Util[%] column, user time over user and idle " \
	  "time of /proc/stat's cpu line in the sample window (without -D a " \
	  "warning, as perftest)", NULL }, \
	{ 'P', "client", RT_OPT_FLAG, RT_I(client_flag), 0, 0, NULL, NULL, \
	  "perftest's hidden client flag: as in perftest the role follows HOST " \
	  "(without HOST a note says it serves)", NULL }

/* BW-only reporting and run control rows (perftest_ropts.c). */
#define RT_PT_OPTS_REPORT_BW \
	{ 0, "run_infinitely", RT_OPT_FLAG, RT_I(run_inf), 0, 0, NULL, NULL, \
	  "send until SIGINT, a row every -D seconds (default 5) of that " \
	  "period's figures; SIGINT ends the sender with exit 0, as perftest " \
	  "25.01 (write, read, atomic: then the close exchange, the server says " \
	  "the client closed; send: the receiver prints rows too and ends when " \
	  "the sender closes; -b, not in send: each side sends and ends at its " \
	  "SIGINT or when the peer closed, rows count both directions). --json " \
	  "and --out_json keep the last 64 rows (rows_total counts all)", NULL }, \
	{ 0, "report-both", RT_OPT_FLAG, RT_I(report_both), 0, 0, NULL, NULL, \
	  "-b: after the summed row, this side's and the peer's rows apart " \
	  "(\"Local results\", \"Remote results\"); without -b a note says " \
	  "there is one direction", NULL }, \
	{ 0, "reversed", RT_OPT_FLAG, RT_I(reversed), 0, 0, NULL, NULL, \
	  "the server sends and the client receives (the exchange keeps its " \
	  "direction: the side with HOST connects); not with -R or -z, which " \
	  "perftest cannot run either", NULL }, \
	{ 0, "report-per-port", RT_OPT_FLAG, RT_I(per_port), 0, 0, NULL, NULL, \
	  "needs -O and -D, as perftest: each port's BW and message rate over " \
	  "the sample window in four more columns (BW_Port1 ... in the JSON " \
	  "rows); both sides must give it (the report exchange carries them); " \
	  "not with --run_infinitely. A device with one port exits 3", NULL }

/* Latency-only reporting rows (perftest_ropts.c). */
#define RT_PT_OPTS_REPORT_LAT \
	{ 'H', "report-histogram", RT_OPT_FLAG, RT_I(histogram), 0, 0, NULL, NULL, \
	  "-n mode: print every sample kept (all but the two largest), sorted, " \
	  "one way in usec, before the row, as perftest", NULL }, \
	{ 0, "report-histogrm", RT_OPT_FLAG, RT_I(histogram), 0, 0, NULL, NULL, \
	  "perftest's own spelling of --report-histogram", NULL }, \
	{ 'U', "report-unsorted", RT_OPT_FLAG, RT_I(unsorted), 0, 0, NULL, NULL, \
	  "-n mode: print every sample in the order taken, before the row, as " \
	  "perftest (the samples are kept: -n at most 4194304 with -H or -U)", NULL }, \
	{ 0, "latency_gap", RT_OPT_INT, RT_L(latency_gap), 0, 1000000, "0", "USEC", \
	  "wait USEC microseconds (spinning, as perftest) before each post; the " \
	  "samples include it", NULL }

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

/* The rate limiter, every test (perftest's parser has it everywhere; the
 * tests it does not apply to refuse it by name). */
#define RT_PT_OPTS_RATE \
	{ 0, "rate_limit", RT_OPT_STRING, RT_S(rate_limit), 0, 0, NULL, "RATE", \
	  "BW tests: send at most RATE (--rate_units), all QPs together; without " \
	  "--rate_limit_type the device's limit (HW) is asked for and, on a link " \
	  "without one, software pacing is used instead, as perftest", NULL }, \
	{ 0, "rate_units", RT_OPT_ENUM, RT_I(rate_units), 0, 0, "g", "UNIT", \
	  "--rate_limit's unit", rt_pt_rate_units }, \
	{ 0, "rate_limit_type", RT_OPT_ENUM, RT_I(rate_type), 0, 0, "OFF", "TYPE", \
	  "SW: software pacing (bursts of --burst_size messages, spaced to the " \
	  "rate); HW: the QP's rate limit (packet pacing; exit 3 on a device " \
	  "without it, such as rxe); PP: raw Ethernet only (refused, as perftest)", \
	  rt_pt_rate_types }, \
	{ 0, "burst_size", RT_OPT_INT, RT_L(burst_size), 0, 65535, NULL, "N", \
	  "messages per burst of the rate limiter (default -t); needs it", NULL }, \
	{ 0, "typical_pkt_size", RT_OPT_INT, RT_L(typical_pkt_size), 0, 65535, NULL, \
	  "BYTES", "packet pacing's typical packet size: PP only, which needs raw " \
	  "Ethernet (refused, as perftest)", NULL }

/* Multicast, the send tests (UD). */
#define RT_PT_OPTS_MCG \
	{ 'g', "mcg", RT_OPT_FLAG, RT_I(mcg), 0, 0, NULL, NULL, \
	  "send tests: UD multicast; exit 3: a QP attached to a group without " \
	  "an IP multicast join receives nothing on RoCE (perftest -g hangs on " \
	  "Soft-RoCE); one QP, not with -b, -R or -z (exit 2, as perftest)", NULL }, \
	{ 'M', "MGID", RT_OPT_STRING, RT_S(mgid), 0, 0, NULL, "GID", \
	  "-g's group (needs -g)", NULL }

/* ---- the checked parameters --------------------------------------------- */

struct rt_pt_params {
	struct rt_pt_test t;
	bool client;
	const char *server, *dev, *out_json_file;
	unsigned tcp_port, ib_port;
	uint64_t size;        /* -s; with -a the largest size, 8 MiB */
	uint64_t iters;       /* -n */
	unsigned duration, margin; /* -D, -f; 0: iteration mode */
	int gid_index;        /* -x, -1: chosen */
	enum ibv_mtu mtu;     /* -m, 0: the port's active MTU */
	unsigned qps, tx_depth, rx_depth, post_list, cq_mod;
	bool cq_mod_given;    /* -Q given: no automatic 1 above 8 KiB */
	unsigned qp_timeout, sl, inline_size, outs;
	bool all, no_peak, bidir, events, gbits, out_json, warm_up;
	bool rdma_cm;         /* -R: the test QPs connected with the RDMA CM */
	int tos;              /* -T, -1: not given */
	uint8_t tclass, retry_count; /* --tclass, --retry_count */
	unsigned wait_destroy; /* seconds before the resources go */
	bool xchg_versions;   /* false: --dont_xchg_versions */
	bool relaxed;         /* the MR's relaxed ordering (--disable_pcie_relaxed) */
	bool comm_cm;         /* -R or -z: the exchange over an RDMA CM connection */
	enum rt_pt_atomic atomic; /* -A, atomic tests */
	enum rt_pt_output output;
	enum rt_pt_conn_type conn; /* -c; UD with -g */
	bool mcg;             /* -g (refused, exit 3: perftest_ud.c) */
	enum rt_pt_rate_type rate_type;
	bool rate_type_given; /* --rate_limit_type (HW does not fall back to SW) */
	enum rt_pt_rate_unit rate_units;
	double rate_limit;    /* in rate_units, 0: none */
	unsigned burst_size;  /* messages, rate limiter */
	double limit_bw, limit_msgrate; /* 0: none */
	double limit_lat, limit_lat_max; /* µs, 0: none */
	struct rt_pt_res res; /* addressing and resources (perftest_res.h) */
	/* run control and reporting (perftest_ropts.c) */
	bool chan_client;     /* HOST given: this side connects and writes first */
	bool run_inf, report_both, reversed, per_port;
	bool cpu_util;        /* asked; the column is there with -D only */
	bool histogram, unsorted, client_flag;
	unsigned latency_gap; /* µs before each latency post */
	const char *counters; /* -W: comma-separated names, or NULL */
	struct rt_pt_extra extra; /* -X ... (perftest_extra.h) */
};

/* The run control and reporting options' rules (perftest_ropts.c):
 * --run_infinitely (BW; not with -e, -a, send, -b), --reversed (not with
 * -R or -z; swaps the test role),
 * -H/-U (-n mode, -n bounded), --latency_gap. Called by
 * rt_pt_params_init. */
int rt_pt_report_rules(struct rt_pt_params *p, const struct rt_pt_cfg *c,
		       const struct rt_opt_table *tab, struct rt_error *err);
/* The notes on stderr of options taken where perftest takes them and they
 * change nothing (--cpu_util without -D, --report-both without -b, -P
 * without HOST): never taken in silence. */
struct rt_log;
void rt_pt_report_notes(const struct rt_pt_params *p, const struct rt_log *log);
#define RT_PT_SAMPLES_MAX (1u << 22) /* -H/-U keep every sample: 32 MiB */
#define RT_PT_INF_PERIOD 5u          /* its default -D, as perftest's */

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
/* -c, -g, the rate limiter (perftest_ud.c): perftest's combination
 * rules (UD send only, UC not for read and atomic, UC or -g not with -R,
 * -g one QP and not -b; the rate limiter's) and the UC/UD receive depth;
 * exit 2 naming the option. */
int rt_pt_ud_rules(struct rt_pt_params *p, const struct rt_pt_cfg *c,
		   const struct rt_opt_table *tab, struct rt_error *err);
/* The verbs QP type of -c. */
enum ibv_qp_type rt_pt_qp_type(enum rt_pt_conn_type t);
/* "RC", "UC", "UD". */
const char *rt_pt_conn_name(enum rt_pt_conn_type t);

#endif
