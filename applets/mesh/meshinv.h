/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A mesh host's inventory: its kernel and rdma-core releases and, for
 * each rail, its device's firmware, driver and PCIe link, as doctor's
 * expected-state facts read them (diag_expect.h: one reading of sysfs
 * for both, so that mesh and doctor --expect never disagree about a
 * host). Every rank sends its own in its hello (meshwire.h); rank 0
 * compares the hosts. A value that does not fit its wire field is cut to
 * it; one that is not printable text is sent as "" (unknown). */
#ifndef RDMATEST_MESHINV_H
#define RDMATEST_MESHINV_H

#include "mesh/meshrails.h"

/* The inventory of the host d describes into inv and rails[0..n) (their
 * devices by name), rdma_core as rt_diag_rdma_core_version gives it
 * (NULL or "": unknown). */
void rt_mesh_inv_fill(const struct rt_diag_env *e, const struct rt_diag *d,
		      const char *rdma_core, struct rt_mesh_inv *inv,
		      struct rt_mesh_rail *rails, unsigned n);

/* This host's rails (rt_mesh_rails_find) with their inventory, and the
 * host's into inv; the rdma-core release from the libibverbs loaded. */
unsigned rt_mesh_inv_rails(const struct rt_diag_env *e, const struct rt_diag *d,
			   struct rt_mesh_inv *inv, struct rt_mesh_rail *rails);

#endif
