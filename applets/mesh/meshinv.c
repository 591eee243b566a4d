/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A mesh host's inventory (meshinv.h). */
#include <stdio.h>
#include <string.h>

#include "doctor/diag_expect.h"
#include "mesh/meshinv.h"
#include "mesh/meshrails.h"
#include "rdmatest/util.h"

/* A fact into a wire field: cut to fit, "" when absent or not text the
 * decoder takes (a peer refuses the whole hello over one bad byte). */
static void take(char *out, size_t len, const char *v)
{
	rt_strlcpy(out, v ? v : "", len);
	if (!rt_mesh_inv_text_ok(out, len))
		out[0] = '\0';
}

static void dev_fact(const struct rt_diag_expect *x, const char *dev, const char *attr,
		     char *out, size_t len)
{
	char key[RT_DIAG_EXPECT_KEY];

	snprintf(key, sizeof(key), "%s.%s", dev, attr);
	take(out, len, rt_diag_expect_get(x, key));
}

void rt_mesh_inv_fill(const struct rt_diag_env *e, const struct rt_diag *d,
		      const char *rdma_core, struct rt_mesh_inv *inv,
		      struct rt_mesh_rail *rails, unsigned n)
{
	struct rt_diag_expect x;

	rt_diag_expect_init(&x);
	rt_diag_expect_facts(e, d, rdma_core, true, &x);
	take(inv->kernel, sizeof(inv->kernel), rt_diag_expect_get(&x, "kernel"));
	take(inv->rdma_core, sizeof(inv->rdma_core), rt_diag_expect_get(&x, "rdma_core"));
	for (unsigned i = 0; i < n; i++) {
		struct rt_mesh_rail *r = &rails[i];

		dev_fact(&x, r->dev, "fw_ver", r->fw, sizeof(r->fw));
		dev_fact(&x, r->dev, "driver", r->driver, sizeof(r->driver));
		dev_fact(&x, r->dev, "pcie_speed", r->pcie_speed, sizeof(r->pcie_speed));
		dev_fact(&x, r->dev, "pcie_width", r->pcie_width, sizeof(r->pcie_width));
	}
	rt_diag_expect_free(&x);
}

unsigned rt_mesh_inv_rails(const struct rt_diag_env *e, const struct rt_diag *d,
			   struct rt_mesh_inv *inv, struct rt_mesh_rail *rails)
{
	char rdma_core[RT_MESH_RDMA_CORE_LEN];
	unsigned n = rt_mesh_rails_find(e, d, rails);

	rt_diag_rdma_core_version(rdma_core, sizeof(rdma_core));
	rt_mesh_inv_fill(e, d, rdma_core, inv, rails, n);
	return n;
}
