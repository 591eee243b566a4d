/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The ib_* applets' addressing and resource options (perftest 4.5 and
 * 25.01): the source address of the exchange (--bind_source_ip), the GID
 * family (--ipv6), the P_Key index, the link layer and destination LID
 * checks (--force-link, --dlid), the buffer's memory (--use_hugepages,
 * --mmap, --odp, --mr_per_qp, --use-null-mr), the QPs' and CQs' making
 * (--no_lock, -X) and the GRH's flow label (--flow_label). Their rows,
 * their checked values and the device-time checks live here, beside the
 * table rows of perftest_opts.h; -O's row is perftest_dual.h's.
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

 * Memory: the buffer (perftest_conn.h's bound, RT_PT_MAX_BUF) comes from
 * the heap, from 2 MiB huge pages (rounded up to 2 MiB) or from a file's
 * mapping of exactly that length; with --mr_per_qp one MR per QP, else
 * one. Nothing else is allocated. */
#ifndef RDMATEST_PERFTEST_RES_H
#define RDMATEST_PERFTEST_RES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <infiniband/verbs.h>

#include "rdmatest/error.h"
#include "rdmatest/gpureg.h"
#include "rdmatest/opt.h"

#define RT_PT_HUGE_PAGE (2u << 20)
#define RT_PT_MAX_VECTOR 2048 /* perftest's MAX_EQ_NUM */
#define RT_PT_FLOW_LABELS 64   /* --flow_label's list, at most */
#define RT_PT_FLOW_LABEL_MAX 0xfffffu /* 20 bits */

/* The table's fields (struct rt_pt_cfg's `res`; the run reads them as
 * struct rt_pt_params's `opt.res`, and what the rules derive from them as
 * its `res`, struct rt_pt_res below). */
struct rt_pt_res_cfg {
	const char *source;     /* NULL: the routing table's */
	const char *mmap_file;  /* NULL: anonymous memory */
	const char *force_link;
	long long pkey_index, mmap_offset;
	long long dlid;         /* 0: the peer's */
	long long recv_post_list; /* receives per post call; the rules make 0 1 */
	const char *flow_label; /* --flow_label's list */
	long long vector;       /* -X; the rules make it -1 (vector 0) when not given */
	int ipv6, hugepages, odp, mr_per_qp;
	int srq;                /* --use-srq: the send tests' QPs share one */
	int null_mr;            /* --use-null-mr */
	int no_lock;            /* --no_lock */
};

/* What the rules derive from them (struct rt_pt_params's `res`). */
struct rt_pt_res {
	struct sockaddr_storage source_addr; /* opt.res.source, parsed */
	int link_layer;          /* --force-link: IBV_LINK_LAYER_*, or -1 */
	uint32_t flow_labels[RT_PT_FLOW_LABELS]; /* --flow_label, QP i: [i % n] */
	unsigned n_flow_labels;  /* 0: flow label 0 */
};

/* Rows every ib_* applet has (the file defines RT_CFG as struct rt_pt_cfg). */
#define RT_PT_OPTS_RES \
	{ 'j', "source_ip", RT_OPT_STRING, RT_S(res.source), 0, 0, NULL, "IP", \
	  "as --bind_source_ip (4.5's name; 25.01 gives it to raw Ethernet)", NULL }, \
	{ 0, "bind_source_ip", RT_OPT_STRING, RT_S(res.source), 0, 0, NULL, "IP", \
	  "the local address of the exchange: a client connects from it, a server " \
	  "listens on it only; with -R the test QPs' CM ids use it too (multi-homed " \
	  "hosts); IPv4 or IPv6", NULL }, \
	{ 0, "ipv6", RT_OPT_FLAG, RT_I(res.ipv6), 0, 0, NULL, NULL, \
	  "RoCE: use an IPv6 RoCE v2 GID of the netdev the peer is reached on " \
	  "(a global one before a link-local one) where the exchange runs over " \
	  "IPv4; both sides must give it, as with perftest. Exit 3 when the " \
	  "netdev has none; -R takes the GID of the server's address (give an " \
	  "IPv6 one)", NULL }, \
	{ 0, "pkey_index", RT_OPT_INT, RT_L(res.pkey_index), 0, 65535, "0", "IDX", \
	  "P_Key index of the test QPs (above the device's table: 0, with " \
	  "perftest's warning); an empty entry exits 3; -R refuses it", NULL }, \
	{ 0, "use_hugepages", RT_OPT_FLAG, RT_I(res.hugepages), 0, 0, NULL, NULL, \
	  "take the buffer from 2 MiB huge pages; none free exits 3, as perftest " \
	  "fails (set vm.nr_hugepages)", NULL }, \
	{ 0, "mmap", RT_OPT_STRING, RT_S(res.mmap_file), 0, 0, NULL, "FILE", \
	  "the buffer is FILE mapped shared (read-write) from --mmap-offset; a " \
	  "file shorter than offset + buffer exits 2", NULL }, \
	{ 0, "mmap-offset", RT_OPT_INT, RT_L(res.mmap_offset), 0, 1LL << 40, "0", \
	  "OFF", "--mmap only: where in FILE the buffer starts (a multiple of the " \
	  "page size)", NULL }, \
	{ 0, "odp", RT_OPT_FLAG, RT_I(res.odp), 0, 0, NULL, NULL, \
	  "register the buffer with On-Demand Paging (explicit ODP, as perftest); " \
	  "a device without RC ODP for the test's operations exits 3 naming it", \
	  NULL }, \
	{ 0, "dlid", RT_OPT_INT, RT_L(res.dlid), 0, 65535, "0", "LID", \
	  "IB: the destination LID of the test QPs instead of the peer's (0: " \
	  "the peer's); RoCE (no LIDs) and -R refuse it", NULL }, \
	{ 0, "force-link", RT_OPT_STRING, RT_S(res.force_link), 0, 0, NULL, "TYPE", \
	  "IB or Ethernet: the port's link layer must be that one (exit 3 " \
	  "otherwise); rdmatest connects by the port's real link layer", NULL }

/* Rows of the bandwidth tests. */
#define RT_PT_OPTS_RES_BW \
	RT_PT_OPT_DUALPORT, \
	{ 0, "mr_per_qp", RT_OPT_FLAG, RT_I(res.mr_per_qp), 0, 0, NULL, NULL, \
	  "one memory region per QP over its own two slots, instead of one for " \
	  "the whole buffer", NULL }, \
	{ 0, "recv_post_list", RT_OPT_INT, RT_L(res.recv_post_list), 1, 4096, "1", \
	  "N", "send test: post receives N at a time in one call (-n a multiple " \
	  "of N, N at most -r); the other tests post none and refuse it", NULL }

/* The send tests' row. */
#define RT_PT_OPT_SRQ \
	{ 0, "use-srq", RT_OPT_FLAG, RT_I(res.srq), 0, 0, NULL, NULL, \
	  "the receiving side's QPs share one shared receive queue of -r " \
	  "entries (-q at most -r; a unidirectional BW client, which receives " \
	  "nothing, makes none, as perftest)", NULL }

/* -X: every test but the write tests (which refuse it by name). */
#define RT_PT_OPT_VECTOR \
	{ 'X', "vector", RT_OPT_INT, RT_L(res.vector), 0, RT_PT_MAX_VECTOR, NULL, \
	  "N", "-e only (exit 2 without, as perftest): make the CQs on " \
	  "completion vector N; a device with no vector N exits 3 naming its " \
	  "num_comp_vectors", NULL }

/* --flow_label: every test. */
#define RT_PT_OPT_FLOW_LABEL \
	{ 0, "flow_label", RT_OPT_STRING, RT_S(res.flow_label), 0, 0, NULL, \
	  "FL0,FL1,...", "the GRH's flow label of QP i: FL(i mod count), as " \
	  "perftest 25.01 (0 to 1048575, at most 64 of them); not with -R (the " \
	  "RDMA CM sets the path; exit 2); a port without GRH (IB without -x) " \
	  "exits 2", NULL }

/* --use-null-mr: ib_write_bw, ib_read_bw, ib_read_lat. */
#define RT_PT_OPT_NULL_MR \
	{ 0, "use-null-mr", RT_OPT_FLAG, RT_I(res.null_mr), 0, 0, NULL, NULL, \
	  "the sender's messages (read: where the responses land) use a null " \
	  "MR (ibv_alloc_null_mr): no data moves from or into memory, as " \
	  "perftest 25.01; a device without null MRs (rxe) exits 3; give it on " \
	  "both sides: an rdmatest receiver then skips its data check", NULL }

/* --no_lock: every test. */
#define RT_PT_OPT_NO_LOCK \
	{ 0, "no_lock", RT_OPT_FLAG, RT_I(res.no_lock), 0, 0, NULL, NULL, \
	  "make the QPs on a parent domain of a thread domain (ibv_alloc_td), " \
	  "so the provider may drop its locks, as perftest 25.01 (the CQs stay " \
	  "plain here); a device without thread domains (rxe) exits 3", NULL }

/* The buffer's memory and MRs (struct rt_pt_conn's `mem`). */
enum rt_pt_mem_kind { RT_PT_MEM_HEAP, RT_PT_MEM_HUGE, RT_PT_MEM_FILE, RT_PT_MEM_GPU };
struct rt_pt_mem {
	uint8_t *addr;           /* GPU memory: the device address */
	size_t len;              /* allocated or mapped */
	enum rt_pt_mem_kind kind;
	struct ibv_mr **mrs;     /* nmr: one, or one per QP */
	unsigned nmr;
	/* GPU memory (perftest_gpu.h): the open GPU (also with host memory
	 * of --cuda_mem_type 4), its buffer, the host mirror, the path */
	struct rt_gpumem *gpu;
	struct rt_gpumem_buf *gbuf;
	uint8_t *mirror;
	enum rt_gpureg_path path;
};

struct rt_pt_params;
struct rt_pt_cfg;
struct rt_pt_conn;

/* The combination rules (usage errors, exit 2): --bind_source_ip is an
 * IPv4 or IPv6 address, --mmap-offset needs
 * --mmap, --mmap and --use_hugepages exclude each other, --force-link
 * takes IB or Ethernet, -R refuses --pkey_index, --dlid and -O; -c DC
 * (mlx5 only) is refused. --use-srq and --recv_post_list are checked
 * against -r and -n as given (c): by then the UC/UD and write with
 * immediate rules may have changed p's -r. */
int rt_pt_res_rules(struct rt_pt_params *p, const struct rt_pt_cfg *c,
		    const struct rt_opt_table *tab, struct rt_error *err);
struct ibv_td;
/* --no_lock: a thread domain and a parent domain of pd with it into *td,
 * *pad; exit 3 naming the call the device refuses. */
int rt_pt_no_lock_domains(struct ibv_context *ctx, struct ibv_pd *pd, const char *dev,
			  struct ibv_td **td, struct ibv_pd **pad, struct rt_error *err);

/* QP i's flow label (0 without --flow_label). */
uint32_t rt_pt_flow_label(const struct rt_pt_params *p, unsigned i);
/* --flow_label's list into r (exit 2 naming the bad value). */
int rt_pt_flow_labels_parse(const char *list, struct rt_pt_res *r,
			    struct rt_error *err);

/* The completion vector the CQs take on ctx: 0 without -X; exit 3 naming
 * num_comp_vectors when ctx has no vector -X. */
int rt_pt_comp_vector(const struct rt_pt_params *p, struct ibv_context *ctx,
		      struct rt_error *err);

/* The side makes an SRQ: --use-srq where it receives (perftest: latency,
 * a server, or -b). */
bool rt_pt_res_srq(const struct rt_pt_params *p);
/* Once the device is open, before any peer: --force-link, --dlid,
 * --pkey_index (its entry) and --odp's capabilities. Exit 3 naming what
 * the device lacks. */
int rt_pt_res_device(struct rt_pt_conn *c);
/* Once the path is chosen (c->spec): the P_Key index into it, and --ipv6's
 * GID in place of an IPv4 one. */
int rt_pt_res_path(struct rt_pt_conn *c);
/* --bind_source_ip's address is one this host has (exit 3 otherwise). */
int rt_pt_res_source(const struct rt_pt_params *p, struct rt_error *err);
/* The per-QP slot of the buffer: round_up(max(size, page), line). */
uint64_t rt_pt_slot(uint64_t size, uint32_t page, uint32_t line);
/* The test's buffer (c->buf, c->buf_size) and its MR(s) as the options
 * ask; released by rt_pt_mem_free. */
int rt_pt_mem_alloc(struct rt_pt_conn *c, int access);
void rt_pt_mem_free(struct rt_pt_conn *c);

#endif
