/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A judged mesh run as Prometheus gauges (`mesh --prom FILE`, rank 0 and
 * `mesh report`; names in docs/mesh.md): the verdict, the counts, the
 * medians, and one series per host that is not ok, at most
 * RT_MESH_PROM_HOSTS (the rest counted). No per-pair series: a run of n
 * hosts has n(n-1)/2 pairs, too many series for a metrics store. Per
 * rail (at most RT_MESH_RAILS_MAX series each): links, bad links, RTT
 * median (rail i against itself); and the counts of bad rails and of hosts
 * of another rail count; with crossed links (--cross-rails) two gauges
 * more, their count and their bad ones, not per class. Per congestion
 * counter that rose (meshcong.h, at most RT_MESH_CONG_MAX): its top rise
 * and that end, its sum, its ends; never judged.
 * Bounded: about 3 KiB plus at most 256 B per listed host, 256 B per
 * host's info (meshinv.h, as many), 200 B per rail and 600 B per
 * congestion counter: under 650 KiB. */
#ifndef RDMATEST_MESHPROM_H
#define RDMATEST_MESHPROM_H

#include <time.h>

#include "mesh/meshagg.h"
#include "rdmatest/prom.h"

#define RT_MESH_PROM_HOSTS 1024u

void rt_mesh_prom(struct rt_prom *p, const struct rt_mesh_agg *g, time_t now);

#endif
