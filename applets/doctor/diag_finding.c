/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's finding recorder (diag.h): the lines every check adds, their
 * levels and the verdict they make. It sits below the checks and below
 * diag.c, which runs them in order, so that no check calls back up into
 * the module that calls it. */
#include <stdarg.h>
#include <stdio.h>

#include "doctor/diag.h"
#include "rdmatest/util.h"

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
