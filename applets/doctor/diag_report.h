/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's checklist as text (one line per finding: LEVEL check:
 * evidence, then " -- fix: ..." for anything but PASS) and as members of
 * the run's JSON results. */
#ifndef RDMATEST_DIAG_REPORT_H
#define RDMATEST_DIAG_REPORT_H

#include <stdio.h>

#include "doctor/diag.h"
#include "rdmatest/json.h"

void rt_diag_print(FILE *f, const struct rt_diag *d);
/* "checks": [{check, level, evidence, fix}], and the counts. */
void rt_diag_json(struct rt_json *j, const struct rt_diag *d);

#endif
