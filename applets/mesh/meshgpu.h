/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* mesh --gpu: each rail's bandwidth buffers in GPU memory, so that --bw
 * measures GPUDirect RDMA from GPU to GPU across the fabric.
 *   choice   each rail's GPU is the one nearest its port's RDMA device in
 *            the PCIe tree (pcitopo.h: the fewest bridges between them,
 *            the first by bus id among equals), its relation (PIX ... SYS)
 *            reported. Where sysfs cannot tell (a software device such as
 *            rxe has no PCI function; a host whose PCI tree shows no GPU,
 *            as in a virtual machine), the rule is fixed and said: among
 *            the GPUs sysfs lists, the one at the rail's number modulo
 *            their count; with none listed, the driver's GPU 0; the
 *            relation is "unknown"
 *   buffers  per rail, opened once a rank (the GPU, its three buffers):
 *            the chunk the connecting side writes from (RT_MESH_BW_CHUNK),
 *            the landing its reads come back into (one chunk a partner
 *            rail, RT_MESH_RAILS_MAX of them: crossed rails run one
 *            rail's connections at once, each must land apart) and the
 *            window the partner writes into and reads from
 *            (RT_MESH_BW_CHUNK x RT_MESH_BW_WINDOW); each registered on
 *            the rail's device once before the run (the registration
 *            that fails is named, exit 3) and per connection on its PD
 *   check    the chunk holds a pattern of the round; after a rail's
 *            reads the connecting side copies the landing to the host
 *            and compares: the bytes came from its chunk to the partner's
 *            GPU and back. Pings stay in host memory: the CPU writes and
 *            reads each, and a GPU copy per ping would be timed as RTT
 * Errors are core's (gpumem.h, gpureg.h), prefixed with the rail: exit 3
 * where the host lacks what is needed (a static build, no driver, no
 * GPU, no peer memory module, a registration the device cannot do).
 * Memory: one struct rt_mesh_gpu (about 26 KiB) a rank; GPU memory a
 * rail: 64 KiB + 2 MiB + 1 MiB; the PCIe scan (about 50 KB) while
 * opening; 64 KiB of host memory while filling or checking a chunk. */
#ifndef RDMATEST_MESHGPU_H
#define RDMATEST_MESHGPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatest/gpumem.h"
#include "rdmatest/gpureg.h"
#include "rdmatest/pcitopo.h"
#include "rdmatest/res.h"
#include "mesh/meshwire.h"

struct rt_mesh_gpu_rail {
	bool open;
	const char *sysfs;  /* the rank's: where the peer memory module shows */
	struct rt_gpumem g;
	struct rt_gpumem_buf *src, *land, *win;
};

struct rt_mesh_gpu {
	enum rt_gpu_api api;
	const char *sysfs;    /* "/sys": the PCIe tree, the peer memory module */
	struct rt_mesh_gpu_rail r[RT_MESH_RAILS_MAX]; /* by rail number */
};

/* One connection's GPU buffers on its PD: the connecting side's chunk
 * (bw) and its landing slot (land), or the listener's window (bw). */
struct rt_mesh_gpu_conn {
	struct rt_mesh_gpu_rail *rail;
	struct rt_buf bw, land;  /* addr: the device address; mr: NULL when none */
	size_t land_off;         /* the slot's offset in the rail's landing */
};

/* Rail `rail` of device `dev`'s GPU by the rule above: its bus id into
 * bus[len] ("" for the driver's GPU 0) and its relation (enum
 * rt_mesh_gpu_rel, never NONE) in *rel. */
void rt_mesh_gpu_pick(const struct rt_pcitopo *t, const char *dev, unsigned rail, char *bus,
		      size_t len, uint8_t *rel);

/* Opens every rail's GPU, allocates and fills its buffers, registers them
 * once on the rail's device, and names the GPU in the rail (gpu,
 * gpu_rel). On failure everything opened is closed again. */
int rt_mesh_gpu_open(struct rt_mesh_gpu *m, enum rt_gpu_api api, const char *sysfs,
		     struct rt_mesh_rail *rails, unsigned n, struct rt_error *err);
void rt_mesh_gpu_close(struct rt_mesh_gpu *m);

/* The rail (by number) of this rank whose device and port are these, or
 * NULL. */
struct rt_mesh_gpu_rail *rt_mesh_gpu_rail_of(struct rt_mesh_gpu *m,
					     const struct rt_mesh_rail *rails, unsigned n,
					     const char *dev, unsigned port);

/* A connection's buffers on pd: the connecting side's (active) chunk,
 * filled with round's pattern, and landing slot `slot` (the partner's
 * rail), cleared; or the listener's window. deregistered by
 * rt_mesh_gpu_conn_close, also after a failure. */
int rt_mesh_gpu_conn_open(struct rt_mesh_gpu_conn *c, struct rt_mesh_gpu_rail *r,
			  struct ibv_pd *pd, bool active, unsigned slot, uint32_t round,
			  struct rt_error *err);
void rt_mesh_gpu_conn_close(struct rt_mesh_gpu_conn *c);

/* After the reads: the landing slot's first len bytes (at most a chunk)
 * against round's pattern; -1 with the first difference in err. */
int rt_mesh_gpu_check(const struct rt_mesh_gpu_conn *c, uint32_t round, size_t len,
		      struct rt_error *err);

/* The pattern's byte at offset i of round's chunk. */
uint8_t rt_mesh_gpu_byte(uint32_t round, size_t i);

#endif
