/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The names of an ib_* test as perftest prints them (its
 * perftest_parameters.c, ctx_print_test_info): the verb, used in messages
 * everywhere, and the whole test's name in the information block. */
#ifndef RDMATEST_PERFTEST_NAME_H
#define RDMATEST_PERFTEST_NAME_H

#include <stddef.h>

#include "perftest/perftest_opts.h"

/* "RDMA_Write", "Send", ... and the whole test name into buf, as
 * perftest prints it: "RDMA_Write Bidirectional Post List BW Test",
 * "Atomic FETCH_AND_ADD Latency Test". */
const char *rt_pt_verb_name(enum rt_pt_verb v);
void rt_pt_test_name(char *buf, size_t len, const struct rt_pt_params *p);

#endif
