/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Registers the verbs providers linked into a static build (see
 * core/providers.c); a no-op in a dynamic build. Call before any RDMA use. */
#ifndef RDMATEST_PROVIDERS_H
#define RDMATEST_PROVIDERS_H

void rt_static_providers(void);

#endif
