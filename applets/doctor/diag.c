/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's checklist (diag.h): the local checks in order. Each check
 * reads what the kernel says (sysfs, procfs, /dev) and adds one or a few
 * lines through the finding recorder (diag_finding.c); none of them waits
 * on anything but a file read. The checks live by topic: diag_kernel.c,
 * diag_ports.c, diag_counters.c, diag_dcb.c, diag_pause.c, diag_addrs.c,
 * diag_gids.c, diag_limits.c, diag_gpu.c. */
#include <sys/resource.h>

#include "doctor/diag.h"

const struct rt_diag_env rt_diag_env_real = { "/sys", "/proc", "/dev", "/lib/modules" };

void rt_diag_local(const struct rt_diag_env *e, struct rt_diag *d, bool verbs)
{
	struct rlimit rl = { 0 };

	rt_diag_modules(e, d);
	rt_diag_devices(e, d);
	rt_diag_devnodes(e, d);
	if (verbs)
		rt_diag_port_mtus(d);
	/* addresses first: a port without one is unused, not down */
	rt_diag_local_addrs(d);
	rt_diag_ports(d);
	rt_diag_port_counters(e, d);
	rt_diag_dcb(e, d);
	rt_diag_pause(e, d);
	rt_diag_gids(e, d);
	rt_diag_ipmap(e, d);
	getrlimit(RLIMIT_MEMLOCK, &rl);
	rt_diag_memlock(d, (unsigned long long)rl.rlim_cur, rt_diag_has_ipc_lock(e));
	rt_diag_netns(e, d);
	rt_diag_gpu(e, d);
}
