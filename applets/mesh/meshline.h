/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The per-rank JSON lines, from which `mesh report` builds a run's
 * document (meshdoc.h) when each rank prints its own results and the
 * launcher collects them (srun --output, pdsh, kubectl logs); read back
 * by meshparse.h.
 *   {"mesh":"hello","rank":R,"size":N,"host":"H","kernel":"6.8.0-45-generic",
 *    "rdma_core":"50.0"}   (kernel, rdma_core where known)
 *   {"mesh":"rail","rank":R,"rail":0,"dev":"mlx5_0","port":1,
 *    "gid_index":3,"addr":"10.0.0.7","link_layer":"Ethernet",
 *    "state":"ACTIVE","lanes":4,"mtu":4096,"speed_mbps":400000,
 *    "payload_mbps":392149,"fw_ver":"28.39.1002","driver":"mlx5_core",
 *    "pcie_speed":"32.0 GT/s PCIe","pcie_width":"16"}   (one a rail, after
 *    its rank's hello; the last four where known)
 *   {"mesh":"result","a":A,"b":B,"rail":0,"status":"ok","connect_ns":C,
 *    "rtt_p50_ns":P,"rtt_p99_ns":Q,"mbps":M,"mbps_rev":R,"round":N}
 *   (figures only when measured; mbps a to b and mbps_rev b to a, both
 *   or neither; "rail" optional, 0 without it; "rail_b" only where b's
 *   rail is not a's; round only above 0: a pair's result of the latest
 *   round wins, so a re-test replaces the first pass's in any order;
 *   where the ends' port counters rose, after the figures: "a.NAME":N
 *   and "b.NAME":N for each rise of a's and b's port (at most
 *   RT_MESH_CTRS_MAX, meshctr.h), "sent_a", "sent_b" the packets each
 *   port sent where known, "ctr_more" the rises left out)
 *   rank 0's blame pass's evidence (meshblame.h):
 *   {"mesh":"flaky","a":A,"b":B,"status":...,"why":W} a link bad in the
 *    first pass (its figures as a result's, W its RT_LINK_* reasons)
 *    and good on re-test
 *   {"mesh":"blame","rank":R,"p1":X,"p2":Y} host R was paired with the
 *    good hosts X and Y (p2, p1 absent with fewer good hosts)
 * A line is at most RT_MESH_LINE_MAX bytes. */
#ifndef RDMATEST_MESHLINE_H
#define RDMATEST_MESHLINE_H

#include "rdmatest/json.h"
#include "mesh/meshagg.h"

#define RT_MESH_LINE_MAX 1024u

/* One line (no newline) for a hello, one of its rails or a result. */
void rt_mesh_line_hello(struct rt_json *j, const struct rt_mesh_hello *h);
void rt_mesh_line_rail(struct rt_json *j, uint32_t rank, const struct rt_mesh_rail *r);
/* A rail's keys, into an open object. */
void rt_mesh_rail_fields(struct rt_json *j, const struct rt_mesh_rail *r);
void rt_mesh_line_result(struct rt_json *j, const struct rt_mesh_result *r);
/* Rank 0's evidence lines of the blame pass. */
void rt_mesh_line_flaky(struct rt_json *j, const struct rt_mesh_link *first);
void rt_mesh_line_blame(struct rt_json *j, const struct rt_mesh_blame_end *e);

#endif
