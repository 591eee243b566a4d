/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Verbs providers of a static build. A static libibverbs cannot dlopen
 * provider libraries, so a static build names the providers it links in
 * (-Dstatic_providers, passed to this file alone as RDMA_STATIC_PROVIDERS)
 * and verbs.h's ibv_get_device_list macro registers them. Registration
 * must happen before anything scans for devices: rt_cm_init's device
 * check, but also librdmacm on its own (rsocket, rdma_getaddrinfo), so
 * main() calls this first. In a dynamic build it does nothing. */
#include <infiniband/verbs.h>

#include "rdmatest/providers.h"

void rt_static_providers(void)
{
#ifdef RDMA_STATIC_PROVIDERS
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);

	if (list)
		ibv_free_device_list(list);
#endif
}
