/* doctor's kernel checks: the RDMA modules and the device nodes under
 * /dev/infiniband that the applets open. */
#include <stdio.h>

#include "doctor/diag.h"
#include "doctor/diag_read.h"

void rt_diag_modules(const struct rt_diag_env *e, struct rt_diag *d)
{
	static const char *const need[] = { "ib_core", "ib_uverbs", "rdma_cm", "rdma_ucm" };
	char have[128] = "", missing[128] = "", rel[64];

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		snprintf(rel, sizeof(rel), "module/%s", need[i]);
		rt_diag_append(rt_diag_exists(e->sysfs, rel) ? have : missing, sizeof(have), "%s ", need[i]);
	}
	if (missing[0])
		rt_diag_add(d, RT_DIAG_FAIL, "modules",
			    "load them: modprobe ib_uverbs rdma_ucm (and the NIC's RDMA "
			    "driver, or rdma_rxe for Soft-RoCE)",
			    "missing: %sloaded: %s", missing, have[0] ? have : "none");
	else
		rt_diag_add(d, RT_DIAG_PASS, "modules", NULL, "loaded or built in: %s%s", have,
			    rt_diag_exists(e->sysfs, "module/rdma_rxe") ? "rdma_rxe" : "");
}

void rt_diag_devnodes(const struct rt_diag_env *e, struct rt_diag *d)
{
	char path[512], names[160] = "", found[8][64];
	int uverbs;

	snprintf(path, sizeof(path), "%s/infiniband", e->dev);
	uverbs = rt_diag_list(path, "uverbs*", found, 8);
	for (int i = 0; i < uverbs && i < 8; i++)
		rt_diag_append(names, sizeof(names), "%s ", found[i]);
	if (!rt_diag_exists(e->dev, "infiniband/rdma_cm"))
		rt_diag_add(d, RT_DIAG_FAIL, "devnodes",
			    "load rdma_ucm (modprobe rdma_ucm) and, in a container, pass "
			    "/dev/infiniband/rdma_cm in",
			    "%s/infiniband/rdma_cm is missing (RDMA CM applets cannot run); "
			    "uverbs nodes: %s", e->dev, uverbs ? names : "none");
	else if (!uverbs && d->no_rdma)
		rt_diag_add(d, RT_DIAG_PASS, "devnodes", NULL, "%s/infiniband/rdma_cm; no "
			    "uverbs node, as there is no device (see devices)", e->dev);
	else if (!uverbs)
		rt_diag_add(d, RT_DIAG_FAIL, "devnodes",
			    "load ib_uverbs and a device driver and, in a container, pass "
			    "/dev/infiniband/uverbs* in",
			    "no %s/infiniband/uverbs* node: no device can be opened", e->dev);
	else
		rt_diag_add(d, RT_DIAG_PASS, "devnodes", NULL, "%s/infiniband: rdma_cm %s",
			    e->dev, names);
}
