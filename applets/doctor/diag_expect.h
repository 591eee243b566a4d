/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's expected state (--save-expect, --expect): this host's facts as
 * expect.h entries, and the check that fails each one a saved file names
 * and the host no longer has. The keys:
 *   kernel, rdma_core                      the host
 *   DEV.fw_ver, DEV.driver,                the device, and its PCI
 *   DEV.pcie_speed, DEV.pcie_width         function's current link
 *   DEV/PORT.state, .link_layer,           each port
 *   .rate_gbps, .width, .active_mtu, .gid_type
 * A port or device the file does not name is not judged. */
#ifndef RDMATEST_DIAG_EXPECT_H
#define RDMATEST_DIAG_EXPECT_H

#include "doctor/diag.h"
#include "doctor/expect.h"

/* This host's facts into x (initialised): every port when `all`, else
 * the ports not unused (what --save-expect writes: a spare port is left
 * out, so that it is not required). `rdma_core` may be NULL. */
void rt_diag_expect_facts(const struct rt_diag_env *e, const struct rt_diag *d,
			  const char *rdma_core, bool all, struct rt_diag_expect *x);
/* -1 with *line and why when a key of x is not one doctor knows. */
int rt_diag_expect_known(const struct rt_diag_expect *x, unsigned *line, char *why,
			 size_t why_len);
/* Whether x names port `port` of `dev`. */
bool rt_diag_expect_names_port(const struct rt_diag_expect *x, const char *dev,
			       unsigned port);
/* A FAIL line for each fact of `want` the host differs in ("mlx5_3 port 1:
 * rate 200 Gb/s, expected 400"), else one PASS line naming `file`. */
void rt_diag_expect_check(const struct rt_diag_env *e, struct rt_diag *d,
			  const char *rdma_core, const struct rt_diag_expect *want,
			  const char *file);
/* rdma-core's release from the libibverbs this process loaded
 * (libibverbs.so.1.14.50.0: "50.0"); "" when it cannot tell (a static
 * build). */
void rt_diag_rdma_core_version(char *buf, size_t len);

#endif
