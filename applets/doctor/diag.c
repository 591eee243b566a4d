/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's checklist (diag.h): its findings, and the local checks in
 * order. Each check reads what the kernel says (sysfs, procfs, /dev) and
 * adds one or a few lines; none of them waits on anything but a file
 * read. The checks live by topic: diag_kernel.c, diag_ports.c,
 * diag_addrs.c, diag_gids.c, diag_limits.c. */
#include <stdarg.h>
#include <stdio.h>
#include <sys/resource.h>

#include "doctor/diag.h"
#include "rdmatest/util.h"

const struct rt_diag_env rt_diag_env_real = { "/sys", "/proc", "/dev", "/lib/modules" };

void rt_diag_add(struct rt_diag *d, enum rt_diag_level level, const char *check,
		 const char *fix, const char *fmt, ...)
{
	struct rt_diag_line *l;
	va_list ap;

	if (d->n >= RT_DIAG_MAX) {
		d->dropped++;
		return;
	}
	l = &d->lines[d->n++];
	l->level = level;
	rt_strlcpy(l->check, check, sizeof(l->check));
	rt_strlcpy(l->fix, fix && level != RT_DIAG_PASS ? fix : "", sizeof(l->fix));
	va_start(ap, fmt);
	vsnprintf(l->evidence, sizeof(l->evidence), fmt, ap);
	va_end(ap);
}

const char *rt_diag_level_name(enum rt_diag_level l)
{
	return l == RT_DIAG_FAIL ? "FAIL" : l == RT_DIAG_WARN ? "WARN" : "PASS";
}

const struct rt_diag_line *rt_diag_first(const struct rt_diag *d,
					 enum rt_diag_level level)
{
	for (int i = 0; i < d->n; i++)
		if (d->lines[i].level == level)
			return &d->lines[i];
	return NULL;
}

int rt_diag_exit(const struct rt_diag *d)
{
	if (d->no_rdma)
		return RT_EXIT_ENV;
	return rt_diag_first(d, RT_DIAG_FAIL) ? RT_EXIT_FAIL : RT_EXIT_OK;
}

void rt_diag_local(const struct rt_diag_env *e, struct rt_diag *d, bool verbs)
{
	struct rlimit rl = { 0 };

	rt_diag_modules(e, d);
	rt_diag_devices(e, d);
	rt_diag_devnodes(e, d);
	if (verbs)
		rt_diag_port_mtus(d);
	rt_diag_ports(d);
	rt_diag_local_addrs(d);
	rt_diag_gids(e, d);
	rt_diag_ipmap(e, d);
	getrlimit(RLIMIT_MEMLOCK, &rl);
	rt_diag_memlock(d, (unsigned long long)rl.rlim_cur, rt_diag_has_ipc_lock(e));
	rt_diag_netns(e, d);
}
