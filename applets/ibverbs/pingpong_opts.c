/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <infiniband/verbs.h>

#include "ibverbs/pingpong_opts.h"

const struct rt_enum rt_pp_mtus[] = {
	{ "256", IBV_MTU_256, NULL }, { "512", IBV_MTU_512, NULL },
	{ "1024", IBV_MTU_1024, NULL }, { "2048", IBV_MTU_2048, NULL },
	{ "4096", IBV_MTU_4096, NULL }, { NULL, 0, NULL },
};
