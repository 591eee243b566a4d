/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's limit checks: locked memory (and the capability that lifts
 * it) and the network namespace the RDMA subsystem sees. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "doctor/diag.h"
#include "doctor/diag_read.h"
#include "rdmatest/util.h"

/* What the default tests register (rstream's rsockets: about 2 x 128 KiB
 * of buffers per socket plus their queues), with room to spare: the old
 * distribution default of 64 KiB fails them. */
#define MEMLOCK_NEED (1ULL << 20)

/* In the initial user namespace: its uid_map maps all of them. Outside
 * it, capabilities do not count for locked memory (the kernel asks the
 * initial namespace), though CapEff lists them. */
static bool initial_userns(const struct rt_diag_env *e)
{
	char path[512], map[64], *p = map, *end;
	unsigned long long v[3];

	snprintf(path, sizeof(path), "%s/self/uid_map", e->proc);
	if (!rt_read_line(path, map, sizeof(map)))
		return true; /* no user namespaces */
	for (int i = 0; i < 3; i++, p = end) {
		v[i] = strtoull(p, &end, 10);
		if (end == p)
			return false;
	}
	return !v[0] && !v[1] && v[2] == 4294967295ULL;
}

bool rt_diag_has_ipc_lock(const struct rt_diag_env *e)
{
	char path[512], line[128];
	unsigned long long caps = 0;
	bool found = false;
	FILE *f;

	if (!initial_userns(e))
		return false;
	snprintf(path, sizeof(path), "%s/self/status", e->proc);
	f = fopen(path, "r");
	while (f && !found && fgets(line, sizeof(line), f)) {
		char *end;

		if (strncmp(line, "CapEff:", 7))
			continue;
		caps = strtoull(line + 7, &end, 16);
		found = end != line + 7;
	}
	if (f)
		fclose(f);
	return found && (caps & (1ULL << 14)); /* CAP_IPC_LOCK */
}

void rt_diag_memlock(struct rt_diag *d, unsigned long long limit, bool ipc_lock)
{
	const char *fix = "raise it: ulimit -l unlimited (or LimitMEMLOCK=infinity, "
			  "memlock in /etc/security/limits.conf, docker --ulimit memlock=-1)";

	if (limit == (unsigned long long)RLIM_INFINITY)
		rt_diag_add(d, RT_DIAG_PASS, "memlock", NULL, "unlimited");
	else if (limit >= MEMLOCK_NEED)
		rt_diag_add(d, RT_DIAG_PASS, "memlock", NULL, "%llu KiB (the default tests "
			    "need %llu KiB)", limit >> 10, MEMLOCK_NEED >> 10);
	else if (ipc_lock)
		rt_diag_add(d, RT_DIAG_WARN, "memlock", fix, "%llu KiB, below the %llu KiB the "
			    "default tests need; this process has CAP_IPC_LOCK and passes, "
			    "unprivileged users fail ibv_reg_mr", limit >> 10, MEMLOCK_NEED >> 10);
	else
		rt_diag_add(d, RT_DIAG_FAIL, "memlock", fix, "%llu KiB, below the %llu KiB the "
			    "default tests need (ibv_reg_mr fails: Cannot allocate memory)",
			    limit >> 10, MEMLOCK_NEED >> 10);
}

static void ns_id(const struct rt_diag_env *e, const char *pid, char *buf, size_t len)
{
	char path[512];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s/ns/net", e->proc, pid);
	n = readlink(path, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

void rt_diag_netns(const struct rt_diag_env *e, struct rt_diag *d)
{
	char self[64], init[64], mode[8];
	bool shared;

	ns_id(e, "self", self, sizeof(self));
	ns_id(e, "1", init, sizeof(init));
	/* ib_core's netns_mode at load time; `rdma system set netns` changes it */
	rt_diag_read_at(mode, sizeof(mode), "%s/module/ib_core/parameters/netns_mode", e->sysfs);
	shared = mode[0] != 'N';
	if (!self[0] || !init[0] || !strcmp(self, init)) {
		/* PID 1's, which is the host's initial namespace only outside a
		 * container: in a pod PID 1 is the container's own process */
		rt_diag_add(d, RT_DIAG_PASS, "netns", NULL, "network namespace %s, PID 1's; "
			    "rdma subsystem %s", self[0] ? self : "?", shared ? "shared" : "exclusive");
		return;
	}
	if (!shared && !d->nports)
		rt_diag_add(d, RT_DIAG_FAIL, "netns", "move a device in: rdma dev set DEV "
			    "netns NAME (exclusive mode gives each device to one namespace)",
			    "namespace %s (not the initial %s), rdma subsystem exclusive, no "
			    "device here", self, init);
	else
		rt_diag_add(d, RT_DIAG_WARN, "netns", "RDMA CM needs the RDMA port's netdev "
			    "(or a macvlan/ipvlan on it) in this namespace; Soft-RoCE works "
			    "only in the initial one",
			    "namespace %s (not the initial %s), rdma subsystem %s", self, init,
			    shared ? "shared" : "exclusive");
}
