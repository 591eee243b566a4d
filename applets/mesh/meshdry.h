/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* mesh --dry-run: the plan a real run would start from (launcher, rank,
 * size, hosts, coordinator, port, schedule, auth, bounds, the job
 * token's fingerprint), one `key: value` a line and under results.launch
 * in JSON, so that a launcher's set-up can be checked on every host
 * before the cluster is booked. Nothing is allocated. */
#ifndef RDMATEST_MESHDRY_H
#define RDMATEST_MESHDRY_H

#include "rdmatest/run.h"
#include "mesh/launch.h"
#include "mesh/meshnode.h"

int rt_mesh_dry_run(struct rt_run *run, const struct rt_mesh_plan *p, const struct rt_launch *l);

#endif
