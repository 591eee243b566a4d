/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* mesh: the same command on every host validates the cluster. Rank, size
 * and hosts come from the launcher (launch.h: --hosts, Slurm, MPI, PMIx,
 * a Kubernetes Indexed Job); rank 0 pairs the hosts (sched.h), collects
 * every pair's RDMA CM connect time and RTT (meshtest.h) and judges hosts
 * and links (meshagg.h); `mesh report` judges per-rank JSON lines that the
 * launcher collected (meshparse.h). The run itself is applets/mesh/meshnode.c;
 * this file is its options and glue. */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatest/applet.h"
#include "doctor/diag.h"
#include "rdmatest/interrupt.h"
#include "mesh/launch.h"
#include "mesh/meshkey.h"
#include "mesh/meshblame.h"
#include "mesh/meshdoc.h"
#include "mesh/meshdry.h"
#include "mesh/meshgpu.h"
#include "mesh/meshheat.h"
#include "mesh/meshnode.h"
#include "mesh/meshprom.h"
#include "mesh/meshinv.h" /* and meshrails.h, which it builds on */
#include "mesh/meshvtest.h"
#include "mesh/meshtext.h"
#include "mesh/meshverdict.h"
#include "rdmatest/cm.h"
#include "rdmatest/devquery.h"
#include "rdmatest/linerate.h"
#include "rdmatest/util.h"

/* `mesh report FILE...`: more files than this go through cat */
#define REPORT_FILES 64

struct mesh_cfg {
	const char *command;
	const char *files[REPORT_FILES];
	const char *hosts;
	const char *token;
	const char *token_file;
	const char *auth;
	int require_auth;
	const char *coordinator;
	long long size;
	long long port;
	int schedule;
	long long max_pairs;
	long long seed;
	long long pings;
	long long tos;
	long long tclass;
	long long bw;
	long long min_gbps;    /* thousandths, as all decimals */
	long long max_rtt_us;
	long long rtt_factor;
	long long bw_fraction;
	long long min_line_rate;
	long long min_links;
	long long max_errors;  /* a link counter's rise */
	long long max_retrans; /* per million packets sent */
	long long budget;      /* thousandths of a minute; 0: none */
	long long join_timeout; /* seconds; 0: --timeout */
	int no_blame;
	int lines;
	int quick;
	const char *heatmap;
	const char *prom;
	int dry_run;
	const char *rails;
	const char *devices;
	int cross_rails;
	int exit_status; /* enum exit_kind */
	const char *expect;
	int gpu; /* enum rt_gpu_api, when given */
	int pattern; /* enum pattern */
	long long rounds; /* --pattern bisection's matchings */
	long long fan_in; /* --pattern incast's senders a receiver */
	long long qps;
};

#define RT_CFG struct mesh_cfg

enum exit_kind { EXIT_ALL, EXIT_SELF };

static const struct rt_enum exit_kinds[] = {
	{ "all", EXIT_ALL, "every rank exits with the run's verdict: 0 READY, 1 NOT READY" },
	{ "self", EXIT_SELF, "NOT READY is exit 1 only on a rank whose own host is at fault "
	  "(its checks failed, or the verdict names it a bad host or a host with a bad rail), "
	  "exit 4 on the others; a rank that got no verdict from rank 0 exits 4 too" },
	{ NULL, 0, NULL },
};

static const struct rt_enum gpu_apis[] = {
	{ "cuda", RT_GPU_CUDA, "NVIDIA: libcuda.so.1; peer memory through nvidia_peermem" },
	{ "hip", RT_GPU_HIP, "AMD: libamdhip64.so; peer memory through amdgpu" },
	{ NULL, 0, NULL },
};

enum pattern { PATTERN_PAIRS, PATTERN_BISECTION, PATTERN_INCAST, PATTERN_ALLTOALL };

static const struct rt_enum patterns[] = {
	{ "pairs", PATTERN_PAIRS, "the schedule's pairs, a pair's bandwidth one direction "
	  "after the other (the default)" },
	{ "bisection", PATTERN_BISECTION, "random perfect matchings (--rounds of them), every "
	  "pair of one at once and each pair's bandwidth both ways at once: half the hosts "
	  "against the other half, a different half each round; needs --bw. The summary and "
	  "the document give each round's total and its worst" },
	{ "incast", PATTERN_INCAST, "every host a receiver in turn, --fan-in senders writing "
	  "into it at once, then reading from it at once; needs --bw. Each sender is judged "
	  "against its fair share (the absolute floors divided by --fan-in); the summary and "
	  "the document give each receiver's total, the worst receiver and the least fair "
	  "sender" },
	{ "alltoall", PATTERN_ALLTOALL, "every host writing to --fan-in partners and written "
	  "to by --fan-in others at once, then reading the same way, until every host has "
	  "sent to every other (or --rounds of them, or as many as --budget fits: random "
	  "partners); needs --bw. Judged as incast; the summary and the document give each "
	  "round's total" },
	{ NULL, 0, NULL },
};

static const struct rt_enum schedules[] = {
	{ "ring", RT_SCHED_RING, "each host with the next: 2 rounds (3 for an odd count)" },
	{ "tournament", RT_SCHED_TOURNAMENT, "every pair once: n-1 rounds of n/2 pairs" },
	{ "random", RT_SCHED_RANDOM, "one random round (with --budget: random rounds until the budget is spent)" },
	{ NULL, 0, NULL },
};

static const struct rt_opt mesh_opts[] = {
	{ 0, "command", RT_OPT_OPERAND, RT_S(command), 0, 0, NULL, "report",
	  "`report`: judge the JSON lines of --lines runs from FILE (or standard input) "
	  "instead of running", NULL },
	{ 0, "file", RT_OPT_OPERAND, RT_S(files[0]), 0, REPORT_FILES, NULL, "FILE",
	  "report: the collected output of the ranks, in one or several files (- or none: "
	  "standard input)", NULL },
	{ 0, "hosts", RT_OPT_STRING, RT_S(hosts), 0, 0, NULL, "LIST|@FILE",
	  "the hosts, rank 0 first, as a Slurm hostlist (node[01-04]) or a file of them; "
	  "each instance is the listed host that is this machine (pdsh, clush, ssh loops)", NULL },
	{ 0, "token", RT_OPT_STRING, RT_S(token), 0, 0, NULL, "STRING",
	  "the job token every rank gives (the same on all): rank 0 admits only hellos "
	  "that carry it; before --token-file, RDMATEST_MESH_TOKEN and the launcher's job "
	  "id (Slurm, Open MPI, PMIx). Other users see it in ps: prefer --token-file", NULL },
	{ 0, "token-file", RT_OPT_STRING, RT_S(token_file), 0, 0, NULL, "PATH",
	  "the job's secret, the same file on every rank (a regular file of this user's, "
	  "mode 0600 or 0400, 1 to 4096 bytes, a trailing newline stripped; make it "
	  "random: head -c 32 /dev/urandom): rank 0 and every rank prove it to each other "
	  "and every message is sealed (--auth file); with --auth none, the job token "
	  "instead (as --token)", NULL },
	{ 0, "auth", RT_OPT_STRING, RT_S(auth), 0, 0, NULL, "munge|file|none",
	  "how rank 0 and the ranks prove they belong to this job: munge, a random run key "
	  "in a MUNGE credential for this user; file, --token-file's secret; none, the job "
	  "token alone (anyone reaching the port can pose as rank 0 or a rank). Default: "
	  "file with --token-file, munge under Slurm where munge is on PATH, else none", NULL },
	{ 0, "require-auth", RT_OPT_FLAG, RT_I(require_auth), 0, 0, NULL, NULL,
	  "a run without authentication (auth none) ends before it starts (exit 2), saying "
	  "why, never READY: for hooks that drain or admit nodes on the verdict", NULL },
	{ 0, "size", RT_OPT_INT, RT_L(size), 0, 65536, NULL, "N",
	  "the number of ranks, for launchers that give a rank only (PMIx, Kubernetes "
	  "JOB_COMPLETION_INDEX: the Job's completions)", NULL },
	{ 0, "coordinator", RT_OPT_STRING, RT_S(coordinator), 0, 0, NULL, "HOST[:PORT]",
	  "rank 0's address, for launchers without a host list (MPI, PMIx, Kubernetes); "
	  "PORT overrides --port", NULL },
	{ 'p', "port", RT_OPT_PORT, RT_L(port), 1, 65534, "7473", "PORT",
	  "rank 0's coordination port (TCP); every rank's RDMA CM tests use PORT+1", NULL },
	{ 0, "schedule", RT_OPT_ENUM, RT_I(schedule), 0, 0, "tournament", "KIND",
	  "how hosts are paired", schedules },
	{ 0, "pattern", RT_OPT_ENUM, RT_I(pattern), 0, 0, "pairs", "KIND",
	  "the traffic the run makes", patterns },
	{ 0, "rounds", RT_OPT_INT, RT_L(rounds), 1, 65536, "3", "N",
	  "--pattern bisection: its random perfect matchings (with --budget: as many as "
	  "the budget fits instead); alltoall: at most N rounds, random partners (not "
	  "given: until every host sent to every other, or with --budget: as many as it "
	  "fits)", NULL },
	{ 0, "fan-in", RT_OPT_INT, RT_L(fan_in), 1, 64, "4", "N",
	  "--pattern incast: senders into each receiver at once; alltoall: partners each "
	  "host sends to, and is sent to by, at once (at most the hosts less one: the "
	  "default is cut to that)", NULL },
	{ 0, "qps", RT_OPT_INT, RT_L(qps), 1, RT_MESH_QPS_MAX, "1", "N",
	  "connections (RC QPs) a rail opens to its partner's in every test, all loaded at "
	  "once, their figures summed (ECMP and adaptive routing spread them over paths); a "
	  "test takes at most 64 connections at either end (rails x N x the senders of an "
	  "incast receiver)", NULL },
	{ 0, "max-pairs", RT_OPT_INT, RT_L(max_pairs), 0, 65536, "0", "N",
	  "at most N pairs tested at once (0: no bound)", NULL },
	{ 0, "seed", RT_OPT_INT, RT_L(seed), 0, 0x7fffffff, "1", "N",
	  "seed of the random schedules and of the blame pass's partners (the same seed "
	  "gives the same pairs)", NULL },
	{ 0, "join-timeout", RT_OPT_INT, RT_L(join_timeout), 0, 86400, "0", "SEC",
	  "bound on a rank's connect to rank 0 and on rank 0's wait for every host to "
	  "check in (0: --timeout); launchers that start ranks seconds apart (image pulls, "
	  "pdsh's fanout) need more than a pair's test", NULL },
	{ 0, "budget", RT_OPT_DECIMAL, RT_L(budget), 0, 10080000, NULL, "MINUTES",
	  "random perfect matchings, round after round, until MINUTES (decimals allowed) "
	  "are spent: a round is started only when it and a reserve of 4 rounds for the "
	  "blame pass would end within them, as long as the longest round so far; every "
	  "host is tested at least once whatever the budget; the summary says how many "
	  "distinct pairs were covered (--schedule random only; --pattern bisection and "
	  "alltoall: their rounds while the budget lasts)", NULL },
	{ 0, "no-blame", RT_OPT_FLAG, RT_I(no_blame), 0, 0, NULL, NULL,
	  "no blame pass: bad links are not re-tested and their ends not paired with good "
	  "hosts to tell a bad host from a bad link", NULL },
	{ 0, "pings", RT_OPT_INT, RT_L(pings), 1, RT_MESH_PINGS_MAX, "1000", "N",
	  "round trips timed per pair (RTT median and p99)", NULL },
	{ 0, "bw", RT_OPT_SIZE, RT_L(bw), 0, 1LL << 36, "0", "SIZE",
	  "after the pings, RDMA WRITE SIZE bytes (k/m/g) to the partner and RDMA READ as "
	  "many from it, and judge the slower direction's Gbit/s; every rank must give the "
	  "same (0: no bandwidth test)", NULL },
	{ 0, "gpu", RT_OPT_ENUM, RT_I(gpu), 0, 0, NULL, "cuda|hip",
	  "GPUDirect RDMA: each rail's bandwidth buffers (--bw) in the memory of the GPU "
	  "nearest its RDMA device in the PCIe tree, registered by dma-buf or else peer "
	  "memory, the bytes read back checked; the summary and JSON name each rail's GPU "
	  "and how near it is (PIX ... SYS, or unknown). Needs the dynamically linked "
	  "rdmatest and the GPU's driver; exit 3 naming what this host lacks", gpu_apis },
	RT_OPT_ROW_TOS(0, RT_L(tos), RT_TOS_HELP("the pair tests' connections'") "; over verbs "
		       "(a rail without an address) the GRH's traffic class; every rank must give "
		       "the same, for the lossless class the fabric maps it to"),
	{ 0, "tclass", RT_OPT_INT, RT_L(tclass), 0, 255, NULL, "TC",
	  "perftest's name for --tos: the GRH's traffic class, which RoCE v2 carries as the "
	  "IP TOS byte; given with --tos, the same value", NULL },
	{ 0, "min-gbps", RT_OPT_DECIMAL, RT_L(min_gbps), 0, 0, "0", "GBPS",
	  "a link below GBPS Gbit/s is bad (0: no floor)", NULL },
	{ 0, "max-rtt-us", RT_OPT_DECIMAL, RT_L(max_rtt_us), 0, 0, "0", "US",
	  "a link whose RTT median is above US microseconds is bad (0: no ceiling)", NULL },
	{ 0, "rtt-factor", RT_OPT_DECIMAL, RT_L(rtt_factor), 0, 0, "2.1", "F",
	  "a link whose RTT median is above F times the cluster's median is an outlier "
	  "and bad (ClusterKit's latency tolerance; 0: off)", NULL },
	{ 0, "bw-fraction", RT_OPT_DECIMAL, RT_L(bw_fraction), 0, 1000, "0.93", "F",
	  "a link below F times the cluster's median bandwidth is an outlier and bad "
	  "(ClusterKit's; 0: off)", NULL },
	{ 0, "min-line-rate", RT_OPT_DECIMAL, RT_L(min_line_rate), 0, 1000, "0", "F",
	  "a link below F times the RDMA payload rate of the slower of its two ports (from "
	  "each port's speed, width, link layer and active MTU) is bad; each rank sends its "
	  "port's rate in its hello (0: off)", NULL },
	{ 0, "min-links", RT_OPT_INT, RT_L(min_links), 1, 65536, "3", "N",
	  "with fewer measured links the relative thresholds are not judged and the run "
	  "is NOT READY (a median of fewer says nothing; --rtt-factor 0 --bw-fraction 0 "
	  "judge by the absolute ones alone)", NULL },
	{ 0, "max-errors", RT_OPT_INT, RT_L(max_errors), 0, 1LL << 40, "0", "N",
	  "a link is bad when a link error counter (symbol_error, link_downed, "
	  "port_rcv_errors, ...) of either end's port rose by more than N during its test "
	  "(each end reads its own port's counters before and after)", NULL },
	{ 0, "max-retrans", RT_OPT_INT, RT_L(max_retrans), 0, 1000000, "1000", "PPM",
	  "a link is bad when a retransmit counter (rxe's out_of_seq_request, "
	  "rcvd_seq_err, ...; mlx5's out_of_sequence, packet_seq_err, "
	  "local_ack_timeout_err, ...) of either end rose by more than PPM per million "
	  "packets the two ports sent during its test", NULL },
	{ 0, "rails", RT_OPT_STRING, RT_S(rails), 0, 0, NULL, "LIST|all",
	  "the rails to test: all this host's RDMA ports, numbered in (device, port) order "
	  "from 0, with an IP address or without; LIST is comma-separated numbers (0,2); "
	  "a pair tests rail i of one host against rail i of the other, all at once (default: "
	  "all; a host without one is tested on its host address)", NULL },
	{ 0, "devices", RT_OPT_STRING, RT_S(devices), 0, 0, NULL, "DEV[:PORT],...",
	  "the rails to test by device name (and port), instead of --rails", NULL },
	{ 0, "cross-rails", RT_OPT_FLAG, RT_I(cross_rails), 0, 0, NULL, NULL,
	  "also test rail i of one host against rail j of the other: every rail of a pair's "
	  "one host against every rail of the other, r x r connections a pair of r rails, "
	  "in waves of 32 (rank 0's flag decides); crossed links are judged against the "
	  "medians of their own two rails", NULL },
	{ 0, "lines", RT_OPT_FLAG, RT_I(lines), 0, 0, NULL, NULL,
	  "every rank prints its hello and its pairs' results as JSON lines on standard "
	  "output, for `mesh report` over what the launcher collected", NULL },
	{ 0, "heatmap", RT_OPT_STRING, RT_S(heatmap), 0, 0, NULL, "FILE",
	  "rank 0 and report: write the pairs' matrix as a PNG (green to yellow: RTT up "
	  "to twice the median; red: bad by a threshold; black: failed; grey: untested)", NULL },
	{ 0, "prom", RT_OPT_STRING, RT_S(prom), 0, 0, NULL, "FILE",
	  "rank 0 and report: write the verdict, the counts, the medians and the hosts "
	  "not ok as Prometheus gauges into FILE, replaced atomically, for node-exporter's "
	  "textfile collector (exit 2 when it cannot be written); other ranks write nothing", NULL },
	{ 0, "exit-status", RT_OPT_ENUM, RT_I(exit_status), 0, 0, "all", "KIND",
	  "what a rank's exit status says when the run is NOT READY: all, exit 1 on every "
	  "rank; self, exit 1 only where this host is at fault (its own checks failed, or "
	  "the verdict names it a bad host or one with a bad rail) and exit 4 on the other "
	  "ranks and on one that got no verdict from rank 0, so that a hook on every host "
	  "(a Slurm prolog) acts on its own host alone", exit_kinds },
	{ 0, "expect", RT_OPT_STRING, RT_S(expect), 0, 0, NULL, "FILE",
	  "check this host against an expected-state file of doctor's (doctor(1): its "
	  "save-expect option writes one) before connecting; rank 0 names each host that "
	  "differs, and hosts whose inventory differs from most hosts': NOT READY", NULL },
	{ 0, "quick", RT_OPT_FLAG, RT_I(quick), 0, 0, NULL, NULL,
	  "a Slurm prolog's check in seconds: doctor's local checks, a loopback test to "
	  "this host's own address, then a ring (--pings 100 unless given)", NULL },
	{ 0, "dry-run", RT_OPT_FLAG, RT_I(dry_run), 0, 0, NULL, NULL,
	  "print what the launcher's environment resolves to (launcher, rank, size, hosts, "
	  "coordinator, port, schedule, the job token's fingerprint), one `key: value` a line, and exit 0 without an "
	  "RDMA device or the network", NULL },
	{ 0 },
};

RT_APPLET(mesh, "validate a whole cluster: every host's RDMA CM pairs, one verdict",
	  "[--hosts LIST|@FILE] [--coordinator HOST[:PORT]] [--size N] [-p PORT] "
	  "[--auth munge|file|none] [--token-file PATH] [--require-auth] "
	  "[--schedule ring|tournament|random] [--budget MINUTES] [--no-blame] [--max-pairs N] "
	  "[--pattern pairs|bisection|incast|alltoall] [--rounds N] [--fan-in N] [--qps N] [--pings N] [--bw SIZE] [--gpu cuda|hip] "
	  "[--min-gbps G] [--max-rtt-us US] [--rtt-factor F] [--bw-fraction F] [--min-links N] "
	  "[--rails LIST|all | --devices DEV[:PORT],...] [--cross-rails] [--lines] [--prom FILE] [--exit-status all|self] [--json] | report [FILE...]",
	  "Run the same command on every host, started by the launcher the cluster "
	  "has: srun, mpirun, pdsh/clush with --hosts, or a Kubernetes Indexed Job. "
	  "Rank 0 pairs the hosts round by round, every pair times its RDMA CM "
	  "connection and --pings round trips (and with --bw its bandwidth both ways, RDMA WRITE and READ), and rank 0 judges links and hosts "
	  "against the thresholds and prints a summary ending in READY (exit 0) or "
	  "NOT READY (exit 1) with the bad hosts and links, absent hosts (not started "
	  "within --timeout) included; a blame pass re-tests every bad link once (a link "
	  "good then is flaky, not bad) and pairs the ends of those still bad with two "
	  "good hosts each, naming the bad host or the bad link; --json gives the whole run (pairs, matrix, "
	  "verdicts) under results.mesh. The other ranks exit with the same verdict; with "
	  "--exit-status self a NOT READY run is exit 1 only where this host is at fault "
	  "and exit 4 elsewhere, for hooks that act on their own host. "
	  "--timeout bounds each pair's test, --join-timeout (default: --timeout) each "
	  "rank's connect to rank 0 and the wait for every host; a round takes at most "
	  "twice --timeout plus 2 s. Every RDMA port is a rail, numbered among all the "
	  "host's ports (one that lost its address keeps its number, a bad rail, named): a "
	  "pair tests rail i of one host against rail i of the other, all its rails "
	  "at once, and the verdicts name the rail (--rails, --devices choose; "
	  "--cross-rails tests rail i against rail j too). "
	  "`mesh report [FILE...]` judges the "
	  "--lines output of all ranks instead. Exit 3 when this host has no RDMA "
	  "device.",
	  .examples = "Under Slurm, one task per node (the job's id is the token):\n"
		      "srun -N 64 --ntasks-per-node=1 rdmatest mesh\n"
		      "\n"
		      "Under Open MPI, one rank per host (no host list: name rank 0's host):\n"
		      "mpirun -np 64 --map-by node rdmatest mesh --coordinator node01\n"
		      "\n"
		      "With pdsh or clush, the same command on every host of a list "
		      "(rank i is the i-th host; give a token of your own; -f: every host at "
		      "once, since pdsh starts 32 and clush 64 at a time by default, and a "
		      "host started after the others have finished counts as absent):\n"
		      "pdsh -f 64 -w 'node[01-64]' rdmatest mesh --hosts 'node[01-64]' --token-file /etc/rdmatest/token\n"
		      "clush -f 64 -w 'node[01-64]' rdmatest mesh --hosts 'node[01-64]' --token-file /etc/rdmatest/token\n"
		      "\n"
		      "In a Kubernetes Indexed Job of 64 pods behind a headless Service "
		      "named mesh (docs/mesh.md has the manifest):\n"
		      "rdmatest mesh --size 64 --coordinator mesh-0.mesh\n"
		      "\n"
		      "In a Slurm prolog on every node of the job: fail (and drain) only the "
		      "node that the verdict blames, on a port of the job's own:\n"
		      "rdmatest mesh --quick --exit-status self --hosts \"$SLURM_JOB_NODELIST\" "
		      "--port $((7500 + 2 * (SLURM_JOB_ID % 8000)))\n"
		      "\n"
		      "On a GPU cluster, GPUDirect RDMA from each NIC's nearest GPU to the "
		      "partner's, 1 GiB each way on every rail (the dynamically linked "
		      "rdmatest only: a static one cannot load the GPU driver; needs dma-buf "
		      "or nvidia_peermem):\n"
		      "srun -N 64 --ntasks-per-node=1 rdmatest mesh --gpu cuda --bw 1g --min-gbps 300\n"
		      "\n"
		      "Judge the per-rank --lines output afterwards:\n"
		      "rdmatest mesh report rank*.out",
	  .internal_opts = (const char *const[]){ "command", "file", NULL },
	  .secret_opts = (const char *const[]){ "token", NULL });

/* The RDMA payload rate of the local port carrying `host` (this rank's
 * hello host: partners connect to it), from doctor's port facts, Mbit/s;
 * 0 when no port carries it or the port's rate is not known. */
static uint32_t port_payload_mbps(const char *host)
{
	struct rt_diag *d = rt_xcalloc(1, sizeof(*d));
	struct addrinfo *ai = NULL;
	const struct rt_diag_port *port = NULL;
	uint32_t mbps = 0;
	int gid;

	rt_diag_local(&rt_diag_env_real, d, true);
	if (!getaddrinfo(host, NULL, &(struct addrinfo){ .ai_socktype = SOCK_STREAM }, &ai)) {
		for (const struct addrinfo *a = ai; a && !port; a = a->ai_next)
			port = rt_diag_port_of(&rt_diag_env_real, d, a->ai_addr, &gid);
		freeaddrinfo(ai);
	}
	if (port && port->payload_gbps > 0 && port->payload_gbps <= RT_LINERATE_MAX_GBPS)
		mbps = (uint32_t)(port->payload_gbps * 1000.0);
	free(d);
	return mbps;
}

static void limits(const struct mesh_cfg *cfg, struct rt_mesh_limits *lim)
{
	lim->min_gbps = (double)cfg->min_gbps / 1000.0;
	lim->max_rtt_us = (double)cfg->max_rtt_us / 1000.0;
	lim->rtt_factor = (double)cfg->rtt_factor / 1000.0;
	lim->bw_fraction = (double)cfg->bw_fraction / 1000.0;
	lim->min_line_rate = (double)cfg->min_line_rate / 1000.0;
	lim->min_links = (uint32_t)cfg->min_links;
	lim->max_errors = (uint64_t)cfg->max_errors;
	lim->max_retrans_ppm = (uint64_t)cfg->max_retrans;
	/* (a run cuts the default to its hosts: plan) */
	lim->shared_by = cfg->pattern == PATTERN_INCAST || cfg->pattern == PATTERN_ALLTOALL ?
			 (uint32_t)cfg->fan_in : 0;
}

static int report(struct rt_run *run, const struct mesh_cfg *cfg)
{
	struct rt_mesh_limits lim = { 0 };
	size_t n = 0;

	if (cfg->command && strcmp(cfg->command, "report"))
		return rt_fail(&run->err, RT_EXIT_USAGE, "unexpected argument '%s' (the one "
			       "command is `report`)", cfg->command);
	limits(cfg, &lim);
	while (n < REPORT_FILES && cfg->files[n])
		n++;
	return rt_mesh_report(run, cfg->files, n, &lim, cfg->heatmap, cfg->prom);
}

struct mesh_run {
	struct rt_launch l;
	struct rt_mesh_key key;
	struct rt_mesh_rail rails[RT_MESH_RAILS_MAX];
	unsigned nrails;
	char coord[RT_MESH_HOST_LEN + 2];
	long long port;
	struct rt_mesh_limits lim;
	struct rt_mesh_cm_test test;
	struct rt_mesh_gpu *gpu; /* --gpu's rails, or NULL */
	struct rt_mesh_plan plan;
	const char *heatmap;
	const char *prom;
	bool exit_self; /* --exit-status self */
};

/* The run's authentication (meshkey.h); --require-auth with none is a
 * usage error on every rank alike, no host's fault (hooks drain on 1). */
static int auth_mode(struct rt_run *run, const struct mesh_cfg *cfg, struct rt_mesh_key *k)
{
	struct rt_mesh_key_env env;

	rt_mesh_key_env_process(&env);
	if (rt_mesh_key_mode(k, cfg->auth, cfg->token_file, &env, &run->err))
		return -1;
	if (cfg->require_auth && k->mode == RT_MESH_AUTH_NONE)
		return rt_fail(&run->err, RT_EXIT_USAGE, "--require-auth: this run "
			       "would not authenticate (auth none: %s); give --token-file, or run "
			       "under Slurm with munge", k->why);
	return 0;
}

/* --budget runs random matchings: with --schedule random or none, never
 * with --quick's ring. */
static int budget_ok(struct rt_run *run, const struct mesh_cfg *cfg)
{
	if (!cfg->budget)
		return rt_fail(&run->err, RT_EXIT_USAGE, "--budget: 0 minutes: give a budget "
			       "above 0 (0.001 to 10080)");
	if (cfg->quick)
		return rt_fail(&run->err, RT_EXIT_USAGE, "--budget: not with --quick (a ring)");
	if (rt_opt_was_given(&run->tabs[0], "schedule") && cfg->schedule != RT_SCHED_RANDOM)
		return rt_fail(&run->err, RT_EXIT_USAGE, "--budget: random matchings, not with "
			       "--schedule %s", rt_sched_kind_name((enum rt_sched_kind)cfg->schedule));
	return 0;
}

/* A pattern's own options, with no pattern that has them: exit 2. */
static int pattern_only(struct rt_run *run, const struct mesh_cfg *cfg)
{
	const struct rt_opt_table *t = &run->tabs[0];

	if (cfg->pattern != PATTERN_BISECTION && cfg->pattern != PATTERN_ALLTOALL &&
	    rt_opt_was_given(t, "rounds"))
		return rt_fail(&run->err, RT_EXIT_USAGE, "--rounds: --pattern bisection's "
			       "matchings or alltoall's rounds; give one of them");
	if (cfg->pattern != PATTERN_INCAST && cfg->pattern != PATTERN_ALLTOALL &&
	    rt_opt_was_given(t, "fan-in"))
		return rt_fail(&run->err, RT_EXIT_USAGE, "--fan-in: --pattern incast's senders or "
			       "alltoall's partners; give one of them");
	return 0;
}

/* --pattern bisection, incast and alltoall load the fabric with every
 * test of a round at once: so no bound on pairs, no other schedule, and
 * bandwidth to load it with; incast's rounds are its receivers, no
 * budget's (a round cut would leave hosts that never received). */
static int pattern_ok(struct rt_run *run, const struct mesh_cfg *cfg)
{
	const struct rt_opt_table *t = &run->tabs[0];
	const char *name = cfg->pattern == PATTERN_INCAST ? "incast" :
			   cfg->pattern == PATTERN_ALLTOALL ? "alltoall" : "bisection";

	if (cfg->pattern == PATTERN_PAIRS)
		return pattern_only(run, cfg);
	if (pattern_only(run, cfg))
		return -1;
	if (!cfg->bw)
		return rt_fail(&run->err, RT_EXIT_USAGE, "--pattern %s measures bandwidth: give "
			       "--bw SIZE (16m, say)", name);
	if (rt_opt_was_given(t, "schedule") || cfg->quick)
		return rt_fail(&run->err, RT_EXIT_USAGE, "--pattern %s makes its own rounds: "
			       "not with %s", name, cfg->quick ? "--quick" : "--schedule");
	if (cfg->max_pairs)
		return rt_fail(&run->err, RT_EXIT_USAGE, "--pattern %s runs every test of a "
			       "round at once: not with --max-pairs", name);
	if (cfg->pattern == PATTERN_INCAST && cfg->budget)
		return rt_fail(&run->err, RT_EXIT_USAGE, "--pattern incast: every round is its "
			       "receivers' only one: not with --budget (the run is about "
			       "--fan-in + 1 rounds)");
	if (cfg->pattern >= PATTERN_INCAST && cfg->cross_rails)
		return rt_fail(&run->err, RT_EXIT_USAGE, "--pattern %s: rail against rail: not "
			       "with --cross-rails", name);
	if (cfg->pattern == PATTERN_ALLTOALL && rt_opt_was_given(t, "gpu"))
		return rt_fail(&run->err, RT_EXIT_USAGE, "--pattern alltoall runs a rank's tests "
			       "on threads of their own: not with --gpu (the driver's context is "
			       "the opening thread's)");
	if (cfg->budget && rt_opt_was_given(t, "rounds"))
		return rt_fail(&run->err, RT_EXIT_USAGE, "--rounds and --budget: the budget "
			       "decides how many rounds; give one");
	return 0;
}

/* --fan-in against the hosts: given, it must leave a receiver; by
 * default it is cut to the hosts less one. */
static int fan_in_of(struct rt_run *run, const struct mesh_cfg *cfg, uint32_t size,
		     uint32_t *fan)
{
	*fan = 0;
	if (cfg->pattern != PATTERN_INCAST && cfg->pattern != PATTERN_ALLTOALL)
		return 0;
	if (size < 2)
		return rt_fail(&run->err, RT_EXIT_USAGE, "--pattern %s needs 2 hosts or more",
			       cfg->pattern == PATTERN_INCAST ? "incast" : "alltoall");
	if (rt_opt_was_given(&run->tabs[0], "fan-in") && cfg->fan_in >= size)
		return rt_fail(&run->err, RT_EXIT_USAGE, "--fan-in %lld: at most %u senders "
			       "among %u hosts", cfg->fan_in, size - 1, size);
	*fan = (uint32_t)RT_MIN((uint64_t)cfg->fan_in, size - 1u);
	return 0;
}

static enum rt_sched_kind kind_of(const struct mesh_cfg *cfg)
{
	if (cfg->pattern == PATTERN_BISECTION)
		return RT_SCHED_BISECTION;
	if (cfg->pattern == PATTERN_INCAST)
		return RT_SCHED_INCAST;
	if (cfg->pattern == PATTERN_ALLTOALL)
		return RT_SCHED_ALLTOALL;
	return cfg->budget ? RT_SCHED_BUDGET : (enum rt_sched_kind)cfg->schedule;
}

/* --tos or its perftest name --tclass (plan has checked that both agree),
 * else -1: the CM's and the device's default. */
static int tos_of(const struct rt_opt_table *t, const struct mesh_cfg *cfg)
{
	return rt_opt_was_given(t, "tclass") ? (int)cfg->tclass : rt_cm_tos_opt(t, cfg->tos);
}

static int plan(struct rt_run *run, const struct mesh_cfg *cfg, struct mesh_run *m)
{
	struct rt_launch_req req = { .hosts = cfg->hosts, .size = (uint32_t)cfg->size,
				     .token = cfg->token };
	const struct rt_launch *l = &m->l;

	m->port = cfg->port;
	if (rt_opt_was_given(&run->tabs[0], "tclass") && rt_opt_was_given(&run->tabs[0], "tos") &&
	    cfg->tclass != cfg->tos)
		return rt_fail(&run->err, RT_EXIT_USAGE, "--tclass %lld and --tos %lld: one byte on "
			       "the wire; give one", cfg->tclass, cfg->tos);
	if ((rt_opt_was_given(&run->tabs[0], "budget") && budget_ok(run, cfg)) ||
	    pattern_ok(run, cfg))
		return -1;
	if (cfg->coordinator &&
	    rt_launch_coordinator(cfg->coordinator, m->coord, sizeof(m->coord), &m->port,
				  &run->err))
		return -1;
	if (auth_mode(run, cfg, &m->key))
		return -1;
	/* a token file that is the run's secret is not its job token too: the
	 * token's hash travels in every hello, and --dry-run shows it */
	if (m->key.mode != RT_MESH_AUTH_FILE)
		req.token_file = cfg->token_file;
	if (rt_launch_detect(&m->l, &req, &rt_launch_env_process, &run->err))
		return -1;
	if (!cfg->coordinator && !l->hosts.n)
		return rt_fail(&run->err, RT_EXIT_USAGE, "--coordinator: %s gives no host list: "
			       "name rank 0's address", rt_launcher_name(l->via));
	if (!cfg->coordinator)
		rt_strlcpy(m->coord, l->hosts.names[0], sizeof(m->coord));
	limits(cfg, &m->lim);
	if (fan_in_of(run, cfg, l->size, &m->lim.shared_by))
		return -1;
	m->heatmap = cfg->heatmap;
	m->prom = cfg->prom;
	m->exit_self = cfg->exit_status == EXIT_SELF;
	m->test = (struct rt_mesh_cm_test){ .port = (unsigned)m->port + 1,
		.pings = (unsigned)cfg->pings, .bw_bytes = (uint64_t)cfg->bw, .timeout_ms = run->common.timeout_ms,
		.log = &run->log, .rails = m->rails, .sysfs = "/sys",
		.tos = tos_of(&run->tabs[0], cfg) };
	m->plan = (struct rt_mesh_plan){ .rank = l->rank, .size = l->size,
		.coord_host = m->coord, .coord_port = (unsigned)m->port,
		.self_host = l->hosts.n ? l->hosts.names[l->rank] : l->rank ? NULL : m->coord,
		.test_port = (unsigned)m->port + 1,
		.kind = kind_of(cfg),
		.max_pairs = (uint32_t)cfg->max_pairs, .seed = (uint64_t)cfg->seed,
		.timeout_ms = run->common.timeout_ms, .join_ms = cfg->join_timeout * 1000, .lim = &m->lim,
		.fn = rt_mesh_pair_test_run, .ctx = &m->test, .rails = m->rails,
		.lines = cfg->lines ? stdout : NULL, .hosts = l->hosts.n ? &l->hosts : NULL,
		.no_blame = cfg->no_blame, .cross = cfg->cross_rails != 0, .budget_ms = cfg->budget * 60,
		.token = l->token, .payload_of = cfg->min_line_rate ? port_payload_mbps : NULL,
		.key = &m->key,
		.pattern = cfg->pattern == PATTERN_BISECTION ? "bisection" :
			   cfg->pattern == PATTERN_INCAST ? "incast" :
			   cfg->pattern == PATTERN_ALLTOALL ? "alltoall" : NULL,
		.fan_in = m->lim.shared_by, .qps = (uint32_t)cfg->qps,
		.matchings = cfg->pattern == PATTERN_BISECTION && !cfg->budget ?
			     (uint32_t)cfg->rounds :
			     cfg->pattern == PATTERN_ALLTOALL && rt_opt_was_given(&run->tabs[0], "rounds") ?
			     (uint32_t)cfg->rounds : 0,
		.both_ways = cfg->pattern == PATTERN_BISECTION };
	return 0;
}

/* This host's rails (meshrails.h), those --rails or --devices chose. */
static int find_rails(struct rt_run *run, const struct mesh_cfg *cfg, struct mesh_run *m)
{
	struct rt_diag *d = rt_xcalloc(1, sizeof(*d));
	int rc;

	rt_diag_local(&rt_diag_env_real, d, true);
	rc = rt_mesh_inv_local(&rt_diag_env_real, d, cfg->expect, &m->plan.inv, m->rails,
			       &m->nrails, &run->err);
	free(d);
	rc = rc ? rc : rt_mesh_rails_choose(m->rails, &m->nrails, cfg->rails, cfg->devices, &run->err);
	m->plan.nrails = m->test.nrails = m->nrails;
	return rc;
}

/* --quick's local part: doctor's checklist (no FAIL), then this host
 * against itself when its address is known. */
static int quick_local(struct rt_run *run, struct mesh_run *m)
{
	struct rt_diag *d = rt_xcalloc(1, sizeof(*d));
	const struct rt_diag_line *l;
	int code, rc = 0;

	rt_error_phase(&run->err, "checks");
	rt_diag_local(&rt_diag_env_real, d, true);
	code = rt_diag_exit(d);
	l = code ? rt_diag_first(d, RT_DIAG_FAIL) : NULL;
	if (l)
		rc = rt_fail(&run->err, code, "%s FAIL: %s (%s)", l->check, l->evidence, l->fix);
	else if (code)
		rc = rt_fail(&run->err, code, "the local checks failed (rdmatest doctor says why)");
	free(d);
	if (!rc && m->plan.self_host)
		rc = rt_mesh_loopback(&m->plan, m->plan.self_host, run->log.human, &run->err);
	return rc;
}

/* --exit-status self: a failure that does not blame this host becomes
 * exit 4, its message saying so; an interrupt stays what it is. */
static void not_this_host(struct rt_error *e, const char *why)
{
	size_t n = strlen(e->reason);

	if (!e->set || (e->exit_code != RT_EXIT_FAIL && e->exit_code != RT_EXIT_TIMEOUT))
		return;
	if (n + 3 < sizeof(e->reason))
		snprintf(e->reason + n, sizeof(e->reason) - n, ", %s", why);
	e->exit_code = RT_EXIT_ELSEWHERE;
}

static int run_mesh(struct rt_run *run, struct mesh_run *m)
{
	struct rt_mesh_plan *p = &m->plan;
	struct rt_mesh_verdict v = {0};
	struct rt_mesh_doc *d;
	int rc;

	rt_say(&run->log, "mesh: rank %u of %u (%s), rank 0 at %s:%u", p->rank, p->size,
	       rt_launcher_name(m->l.via), p->coord_host, p->coord_port);
	if (p->rank) {
		rc = rt_mesh_take_part(p, &v, &run->err);
		if (rc && rc != RT_INTERRUPTED && m->exit_self)
			not_this_host(&run->err, "no verdict: this host not blamed");
		rc = rc ? rc : rt_mesh_follower_verdict(run, p, &v);
		if (rc && rc != RT_INTERRUPTED && m->exit_self && !v.self && !v.interrupted)
			not_this_host(&run->err, "this host not blamed");
		return rc;
	}
	d = rt_mesh_doc_new(run, &m->lim);
	rc = rt_mesh_lead(p, &d->g, &run->err);
	if (!rc || rc == RT_INTERRUPTED)
		rc = rt_mesh_conclude(run, d, m->heatmap, m->prom) || rc ? -1 : 0;
	if (rc && m->exit_self && d->judged && !d->g.interrupted && !rt_mesh_host_blamed(&d->g, 0))
		not_this_host(&run->err, "this host not blamed");
	return rc;
}

static int mesh_main(struct rt_run *run, void *cfgp)
{
	const struct mesh_cfg *cfg = cfgp;
	struct mesh_run *m;
	int rc;

	if (cfg->command || cfg->files[0])
		return report(run, cfg);
	if (rt_mesh_rails_check(cfg->rails, cfg->devices, &run->err))
		return -1;
	m = rt_xcalloc(1, sizeof(*m));
	m->key.mac = (struct rt_hmac)RT_HMAC_INIT; /* closed whatever fails before it opens */
	rc = plan(run, cfg, m) || (!cfg->dry_run && rt_devices_present(&run->err)) ? -1 : 0;
	if (!rc && (cfg->rails || cfg->devices || cfg->expect || !cfg->dry_run))
		rc = find_rails(run, cfg, m);
	if (!rc && m->key.mode == RT_MESH_AUTH_FILE)
		rc = cfg->dry_run ? rt_mesh_secret_check(cfg->token_file, &run->err) :
		     rt_mesh_key_open(&m->key, cfg->token_file, m->plan.rank == 0, &run->err);
	else if (!rc && !cfg->dry_run)
		rc = rt_mesh_key_open(&m->key, NULL, m->plan.rank == 0, &run->err);
	if (!rc && !cfg->dry_run && rt_opt_was_given(&run->tabs[0], "gpu")) {
		m->test.gpu = m->gpu = rt_xcalloc(1, sizeof(*m->gpu)); /* about 26 KiB */
		rc = rt_mesh_gpu_open(m->gpu, (enum rt_gpu_api)cfg->gpu, "/sys", m->rails,
				      m->nrails, &run->err);
	}
	if (!rc && cfg->quick) {
		m->plan.kind = RT_SCHED_RING;
		if (!rt_opt_was_given(&run->tabs[0], "pings"))
			m->test.pings = 100;
		if (!cfg->dry_run)
			rc = quick_local(run, m);
	}
	if (!rc)
		rc = cfg->dry_run ? rt_mesh_dry_run(run, &m->plan, &m->l) : run_mesh(run, m);
	rt_launch_free(&m->l);
	rt_mesh_key_close(&m->key);
	if (m->gpu)
		rt_mesh_gpu_close(m->gpu);
	free(m->gpu);
	free(m);
	return rc;
}
