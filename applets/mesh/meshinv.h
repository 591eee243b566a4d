/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A mesh host's inventory: its kernel and rdma-core releases and, for
 * each rail, its device's firmware, driver and PCIe link, as doctor's
 * expected-state facts read them (diag_expect.h: one reading of sysfs
 * for both, so that mesh and doctor --expect never disagree about a
 * host). Every rank sends its own in its hello (meshwire.h); rank 0
 * compares the hosts. A value that does not fit its wire field is cut to
 * it; one that is not printable text is sent as "" (unknown).
 * Drift: for each field (kernel, rdma-core, and by rail number each
 * rail's firmware, driver, PCIe speed and width, and, of ACTIVE rails,
 * rate and MTU), the value most present hosts have (on a tie, the lowest
 * rank's of the tied values), and every host whose value differs. A host
 * that does not know a value (""), or lists no such rail, is not
 * compared; a field fewer than two hosts know is not judged. At most
 * RT_MESH_INV_DISTINCT distinct values a field are tallied: a host with
 * a value past them differs from the majority. Work: fields x hosts x
 * distinct values; memory: one tally of 2 KiB while judging, and the
 * aggregate's fixed drift list (meshagg.h, 136 B an entry: 8.5 KiB). */
#ifndef RDMATEST_MESHINV_H
#define RDMATEST_MESHINV_H

#include <stdio.h>

#include "mesh/meshagg.h"
#include "mesh/meshrails.h"
#include "rdmatest/json.h"
#include "rdmatest/prom.h"

/* The inventory of the host d describes into inv and rails[0..n) (their
 * devices by name), rdma_core as rt_diag_rdma_core_version gives it
 * (NULL or "": unknown). */
void rt_mesh_inv_fill(const struct rt_diag_env *e, const struct rt_diag *d,
		      const char *rdma_core, struct rt_mesh_inv *inv,
		      struct rt_mesh_rail *rails, unsigned n);

/* This host's rails (rt_mesh_rails_find) into rails and *n with their
 * inventory, and the host's into inv; the rdma-core release from the
 * libibverbs loaded. With expect (mesh --expect FILE: doctor's format,
 * diag_expect.h), FILE is read first (a file that cannot be read, is
 * not of that format or names a key doctor does not know is exit 2
 * naming it and the line) and this host checked against it as doctor
 * --expect checks (a port the file does not name is not judged): inv
 * gets the outcome. */
int rt_mesh_inv_local(const struct rt_diag_env *e, struct rt_diag *d, const char *expect,
		      struct rt_mesh_inv *inv, struct rt_mesh_rail *rails, unsigned *n,
		      struct rt_error *err);
/* The outcome of doctor's expect check in d (its "expect" FAIL lines
 * from line `from` on) into inv: the count and the first one's text, cut to the field and
 * made wire text ('"' and '\\' become '\''). */
void rt_mesh_inv_outcome(const struct rt_diag *d, int from, struct rt_mesh_inv *inv);

#define RT_MESH_INV_DISTINCT 32u

/* mesh --expect, judged with the drift: a host that says it checked
 * itself and differs, or (once any host checked) one that did not, is
 * NOT READY; so, once any host checked, is inventory drift. */
/* After judging: the run fails on inventory (expect_bad, or drift under
 * --expect). */
bool rt_mesh_inv_failed(const struct rt_mesh_agg *g);
/* After judging: rank's own host fails on inventory (it differs from
 * the expected state, or under --expect from most hosts). */
bool rt_mesh_inv_fails(const struct rt_mesh_agg *g, uint32_t rank);

/* Judges the hosts' inventory against each other (meshagg.h's drift
 * list, counts and each node's drift); called by rt_mesh_judge. */
void rt_mesh_inv_judge(struct rt_mesh_agg *g);
/* A field's name in the document ("fw_ver") and in the summary
 * ("firmware"), and its unit there ("" or " Gb/s"). */
const char *rt_mesh_inv_field_key(unsigned field);
const char *rt_mesh_inv_field_label(unsigned field);
/* The summary's inventory lines: at most `list`, then how many more. */
void rt_mesh_inv_text(FILE *out, const struct rt_mesh_agg *g, uint32_t list);
/* The document's "inventory_drift" array (at the object's level). */
void rt_mesh_inv_json(struct rt_json *j, const struct rt_mesh_agg *g);
/* rdmatest_mesh_host_info (one series a present host, at most `hosts`)
 * and rdmatest_mesh_inventory_drift_hosts. */
void rt_mesh_inv_prom(struct rt_prom *p, const struct rt_mesh_agg *g, uint32_t hosts);

#endif
