/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The last perftest options of issue #40 (perftest_opts.h has the rest):
 * -X (--vector), the completion vector of the test's CQs.
 *
 * -X N: perftest 25.01 takes it in every test but the write tests (its
 * parser: "Events feature not available on WRITE verb"), only with -e
 * ("Events must be enabled to select a completion vector"), N in 0..2048;
 * both are exit 2 here, naming the option. Every CQ of the test (send and
 * receive) is made on vector N; a device with N or fewer completion
 * vectors (ibv_context's num_comp_vectors) exits 3 naming both, before
 * anything is made (perftest checks N > num_comp_vectors, one too late,
 * and then ibv_create_cq fails).
 *
 * -C (--report-cycles): the latency tests only (perftest: "Available only
 * on Latency tests"; the bandwidth tests refuse it by name). perftest
 * reports its figures in CPU cycles instead of µs: the table's and the
 * JSON's figures and -H/-U's samples ("#, cycles"), while its table header
 * still says [usec]; so does this. rdmatest times with the monotonic clock,
 * so a figure in cycles is its µs times the CPU's MHz, read from
 * /proc/cpuinfo's first "cpu MHz" line (what perftest compares its own
 * measurement with); a host without one exits 3 naming it. rdmatest's own
 * line after the table stays in usec, and --limit_lat/--limit_lat_max stay
 * in µs.
 *
 * --payload_file_path FILE: perftest 25.01's payload: FILE holds
 * comma-separated DWORDs "0xaaaaaaaa" (whitespace around each is allowed
 * here; perftest takes none after the first), each one's bytes little
 * endian, at most -s bytes of them; the pattern is repeated over what
 * each QP sends (read tests: what the peer reads) instead of rdmatest's
 * pattern, so an rdmatest receiver says its data check was not done. Not
 * in ib_write_lat (perftest leaves its buffer zero there: the test polls
 * it). A file that cannot be read, is empty, is above RT_PT_PAYLOAD_FILE
 * bytes, or has a token that is not such a DWORD is exit 2 naming the file
 * and the DWORD's index, checked before anything is connected.
 *
 * --flow_label FL0,FL1,...: perftest 25.01 sets the GRH's flow label of
 * QP i to FL(i mod count) when the QPs go to RTR (UD: in each QP's address
 * handle), where a GRH is used; here too, each 0..2^20-1, at most
 * RT_PT_FLOW_LABELS of them. With -R the RDMA CM makes the path, so it is
 * refused there (exit 2), as --tclass is; a port with no GRH exits 2.
 *
 * --use-null-mr: perftest 25.01 takes it in the write and read tests only
 * ("supports using a null memory region with write/read verbs only"); the
 * SGEs of what the client posts carry the lkey of a null MR, so a write
 * sends whatever the device makes of no memory and a read's response is
 * dropped. ib_write_lat refuses it by name (its receiver polls for the data
 * a null MR does not carry: perftest would wait forever). A device
 * without ibv_alloc_null_mr exits 3 naming it. A receiver given it too
 * skips its data check.
 *
 * --no_lock: perftest 25.01 allocates a thread domain and a parent domain
 * of its PD with it, and makes its CQs (ibv_create_cq_ex with the parent
 * domain) and QPs on it, so that a provider such as mlx5 leaves out its
 * locks; the info block says "Lock-free : ON". rdmatest makes the QPs
 * (and SRQ) on the parent domain and says so; its CQs stay plain. A device
 * without thread domains (rxe: ibv_alloc_td is EOPNOTSUPP) exits 3 naming
 * it (perftest: "Couldn't allocate TD").
 *
 * Memory: the file's text (at most RT_PT_PAYLOAD_FILE, 32 MiB) while it is
 * read, then the pattern, at most -s bytes, owned by the connection.
 *
 */
#ifndef RDMATEST_PERFTEST_EXTRA_H
#define RDMATEST_PERFTEST_EXTRA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "rdmatest/error.h"
#include "rdmatest/opt.h"

#define RT_PT_MAX_VECTOR 2048 /* perftest's MAX_EQ_NUM */
#define RT_PT_FLOW_LABELS 64   /* --flow_label's list, at most */
#define RT_PT_FLOW_LABEL_MAX 0xfffffu /* 20 bits */
#define RT_PT_PAYLOAD_FILE (32u << 20) /* 8 MiB of DWORDs in text: 22 MiB */

/* The rows' config (struct rt_pt_cfg's `extra`). */
struct rt_pt_extra_cfg {
	long long vector;
	int cycles;
	const char *payload; /* --payload_file_path */
	const char *flow_label; /* --flow_label's list */
	int null_mr;            /* --use-null-mr */
	int no_lock;            /* --no_lock */
	int write_imm;          /* --write_with_imm (perftest_imm.h) */
};

/* The checked parameters (struct rt_pt_params's `extra`). */
struct rt_pt_extra {
	int vector; /* -X, -1: not given (vector 0) */
	double cycles_per_us; /* -C: the CPU's MHz; 0: report in µs */
	const char *payload;  /* --payload_file_path, or NULL */
	uint32_t flow_labels[RT_PT_FLOW_LABELS]; /* --flow_label, QP i: [i % n] */
	unsigned n_flow_labels; /* 0: flow label 0 */
	bool null_mr;           /* --use-null-mr */
	bool no_lock;           /* --no_lock */
	bool write_imm;         /* --write_with_imm (perftest_imm.h) */
};

/* -X: every test but the write tests (which refuse it by name). */
#define RT_PT_OPT_VECTOR \
	{ 'X', "vector", RT_OPT_INT, RT_L(extra.vector), 0, RT_PT_MAX_VECTOR, NULL, \
	  "N", "-e only (exit 2 without, as perftest): make the CQs on " \
	  "completion vector N; a device with no vector N exits 3 naming its " \
	  "num_comp_vectors", NULL }

/* -C: the latency tests. */
#define RT_PT_OPT_CYCLES \
	{ 'C', "report-cycles", RT_OPT_FLAG, RT_I(extra.cycles), 0, 0, NULL, NULL, \
	  "report the table's figures (and the JSON's, and -H/-U's samples) in " \
	  "CPU cycles, as perftest: µs times /proc/cpuinfo's cpu MHz (none " \
	  "there: exit 3); the header still says usec, as perftest's", NULL }

/* --payload_file_path: every test but ib_write_lat. */
#define RT_PT_OPT_PAYLOAD \
	{ 0, "payload_file_path", RT_OPT_STRING, RT_S(extra.payload), 0, 0, NULL, \
	  "FILE", "send this pattern instead of rdmatest's, as perftest 25.01: " \
	  "comma-separated little-endian DWORDs \"0xaabbccdd,...\", at most -s " \
	  "bytes, repeated over each QP's buffer (a bad or unreadable FILE: exit 2)", \
	  NULL }

/* --flow_label: every test. */
#define RT_PT_OPT_FLOW_LABEL \
	{ 0, "flow_label", RT_OPT_STRING, RT_S(extra.flow_label), 0, 0, NULL, \
	  "FL0,FL1,...", "the GRH's flow label of QP i: FL(i mod count), as " \
	  "perftest 25.01 (0 to 1048575, at most 64 of them); not with -R (the " \
	  "RDMA CM sets the path; exit 2); a port without GRH (IB without -x) " \
	  "exits 2", NULL }

/* --use-null-mr: ib_write_bw, ib_read_bw, ib_read_lat. */
#define RT_PT_OPT_NULL_MR \
	{ 0, "use-null-mr", RT_OPT_FLAG, RT_I(extra.null_mr), 0, 0, NULL, NULL, \
	  "the sender's messages (read: where the responses land) use a null " \
	  "MR (ibv_alloc_null_mr): no data moves from or into memory, as " \
	  "perftest 25.01; a device without null MRs (rxe) exits 3; give it on " \
	  "both sides: an rdmatest receiver then skips its data check", NULL }

/* --no_lock: every test. */
#define RT_PT_OPT_NO_LOCK \
	{ 0, "no_lock", RT_OPT_FLAG, RT_I(extra.no_lock), 0, 0, NULL, NULL, \
	  "make the QPs on a parent domain of a thread domain (ibv_alloc_td), " \
	  "so the provider may drop its locks, as perftest 25.01 (the CQs stay " \
	  "plain here); a device without thread domains (rxe) exits 3", NULL }

struct ibv_td;
/* --no_lock: a thread domain and a parent domain of pd with it into *td,
 * *pad; exit 3 naming the call the device refuses. */
int rt_pt_no_lock_domains(struct ibv_context *ctx, struct ibv_pd *pd, const char *dev,
			  struct ibv_td **td, struct ibv_pd **pad, struct rt_error *err);

struct rt_pt_params;
/* QP i's flow label (0 without --flow_label). */
uint32_t rt_pt_flow_label(const struct rt_pt_params *p, unsigned i);
/* --flow_label's list into x (exit 2 naming the bad value). */
int rt_pt_flow_labels_parse(const char *list, struct rt_pt_extra *x,
			    struct rt_error *err);

/* A payload file's text: at most max bytes into out (size max), *len set;
 * exit 2 naming `what` and the bad DWORD's index. */
int rt_pt_payload_parse(const char *text, const char *what, uint8_t *out,
			size_t max, size_t *len, struct rt_error *err);
/* The pattern of the file: at most max bytes, allocated into *out (the
 * caller frees it), exit 2 naming the file. */
int rt_pt_payload_load(const char *path, size_t max, uint8_t **out, size_t *len,
		       struct rt_error *err);
/* a[0..n) repeats pat[0..len). */
void rt_pt_payload_fill(uint8_t *a, size_t n, const uint8_t *pat, size_t len);

struct rt_pt_lat_figures;
/* -C: every figure of f (in µs) in cycles; nothing without -C. */
void rt_pt_cycles_scale(const struct rt_pt_extra *x, struct rt_pt_lat_figures *f);
/* The first "cpu MHz" of a /proc/cpuinfo text; 0 when there is none. */
double rt_pt_cpuinfo_mhz(const char *text);

struct rt_pt_params;
struct rt_pt_cfg;
/* -X's and -C's rules (exit 2 naming it; -C without a cpu MHz: 3); called by rt_pt_params_init. */
int rt_pt_extra_rules(struct rt_pt_params *p, const struct rt_pt_cfg *c,
		      const struct rt_opt_table *tab, struct rt_error *err);
/* The completion vector the CQs take on ctx: 0 without -X; exit 3 naming
 * num_comp_vectors when ctx has no vector -X. */
int rt_pt_comp_vector(const struct rt_pt_params *p, struct ibv_context *ctx,
		      struct rt_error *err);

#endif
