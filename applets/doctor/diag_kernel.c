/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's kernel checks: the RDMA modules (loaded, or at least
 * installed for this kernel) and the device nodes under /dev/infiniband
 * that the applets open. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "doctor/diag.h"
#include "doctor/diag_read.h"

/* True when the module list `file` (modules.dep or modules.builtin)
 * names module `name` ("kernel/.../ib_core.ko.zst: ..."). */
static bool listed(const char *file, const char *name)
{
	char line[1024], want[48];
	bool found = false;
	FILE *f = fopen(file, "r");

	if (!f)
		return false;
	snprintf(want, sizeof(want), "/%s.ko", name);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, want) != NULL;
	fclose(f);
	return found;
}

/* False only when this kernel's module tree is there and holds none of
 * the modules in `missing`: a cloud kernel built without RDMA, where
 * modprobe cannot help. Without a tree to read (a container, or no
 * modules root) the modules may still be installable: true. */
static bool installable(const struct rt_diag_env *e, const char *missing)
{
	char rel[128], dep[512], builtin[512], name[32];
	int used;

	if (!e->modules || !rt_diag_read_at(rel, sizeof(rel), "%s/sys/kernel/osrelease", e->proc))
		return true;
	snprintf(dep, sizeof(dep), "%s/%s/modules.dep", e->modules, rel);
	snprintf(builtin, sizeof(builtin), "%s/%s/modules.builtin", e->modules, rel);
	if (access(dep, R_OK))
		return true;
	for (const char *p = missing; sscanf(p, "%31s%n", name, &used) == 1; p += used)
		if (listed(dep, name) || listed(builtin, name))
			return true;
	return false;
}

static void modules_missing(const struct rt_diag_env *e, struct rt_diag *d,
			    const char *missing, const char *have)
{
	char rel[64];

	if (installable(e, missing)) {
		rt_diag_add(d, RT_DIAG_FAIL, "modules",
			    "load them: modprobe ib_uverbs rdma_ucm (and the NIC's RDMA "
			    "driver, or rdma_rxe for Soft-RoCE)",
			    "missing: %sloaded: %s", missing, have[0] ? have : "none");
		return;
	}
	rt_diag_read_at(rel, sizeof(rel), "%s/sys/kernel/osrelease", e->proc);
	rt_diag_add(d, RT_DIAG_FAIL, "modules",
		    "install and boot the distribution's full kernel (Debian: linux-image-amd64, "
		    "not -cloud; Ubuntu: linux-modules-extra-$(uname -r))",
		    "this kernel has no RDMA modules: %s/%s lists none of %s(loaded: %s)",
		    e->modules, rel, missing, have[0] ? have : "none");
}

/* A module built into the kernel has a /sys/module entry only when it
 * has parameters (ib_core does, ib_uverbs and the CM modules do not), so
 * its presence is read from what it registers at boot instead: ib_core
 * the infiniband class, ib_uverbs the infiniband_verbs class, rdma_ucm
 * the rdma_cm misc device (and rdma_ucm cannot be there without rdma_cm),
 * or from this kernel's modules.builtin. Seen on a GPU cloud VM whose
 * kernel has them all built in, and no modules directory. */
static const struct { const char *module, *sign; } builtin_signs[] = {
	{ "ib_core", "class/infiniband" },
	{ "ib_uverbs", "class/infiniband_verbs" },
	{ "rdma_cm", "class/misc/rdma_cm" },
	{ "rdma_ucm", "class/misc/rdma_cm" },
};

static bool built_in(const struct rt_diag_env *e, const char *name)
{
	char rel[128], builtin[512];

	for (size_t i = 0; i < sizeof(builtin_signs) / sizeof(builtin_signs[0]); i++)
		if (!strcmp(builtin_signs[i].module, name) &&
		    rt_diag_exists(e->sysfs, builtin_signs[i].sign))
			return true;
	if (!e->modules || !rt_diag_read_at(rel, sizeof(rel), "%s/sys/kernel/osrelease", e->proc))
		return false;
	snprintf(builtin, sizeof(builtin), "%s/%s/modules.builtin", e->modules, rel);
	return listed(builtin, name);
}

void rt_diag_modules(const struct rt_diag_env *e, struct rt_diag *d)
{
	static const char *const need[] = { "ib_core", "ib_uverbs", "rdma_cm", "rdma_ucm" };
	char have[128] = "", missing[128] = "", inside[128] = "", rel[64];

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		snprintf(rel, sizeof(rel), "module/%s", need[i]);
		if (rt_diag_exists(e->sysfs, rel))
			rt_diag_append(have, sizeof(have), "%s ", need[i]);
		else if (built_in(e, need[i]))
			rt_diag_append(inside, sizeof(inside), "%s ", need[i]);
		else
			rt_diag_append(missing, sizeof(missing), "%s ", need[i]);
	}
	if (missing[0])
		modules_missing(e, d, missing, have);
	else
		rt_diag_add(d, RT_DIAG_PASS, "modules", NULL, "loaded or built in: %s%s%s%s",
			    have, rt_diag_exists(e->sysfs, "module/rdma_rxe") ? "rdma_rxe " : "",
			    inside[0] ? "built in: " : "", inside);
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
