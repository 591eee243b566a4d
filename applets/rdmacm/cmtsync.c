/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cmtime v56 protocol: step syncs, option rules, table rows (cmtsync.h). */
#include <stdio.h>

#include "rdmacm/cmtsync.h"

const char *rt_cmt_sync_name(unsigned value)
{
	switch (value) {
	case RT_CMT_SYNC_RESET:
		return "reset";
	case RT_CMT_SYNC_CONNECTED:
		return "connected";
	case RT_CMT_SYNC_DISCONNECTED:
		return "disconnected";
	default:
		return NULL;
	}
}

int rt_cmt_sync_check(enum rt_cmt_sync want, unsigned char got, struct rt_error *err)
{
	const char *name = rt_cmt_sync_name(got);

	if (got == (unsigned char)want)
		return 0;
	if (name)
		return rt_fail(err, RT_EXIT_FAIL, "TCP sync: the peer is at step %u "
			       "(%s) where %u (%s) was due: does its -c match?", got,
			       name, (unsigned)want, rt_cmt_sync_name(want));
	return rt_fail(err, RT_EXIT_FAIL, "TCP sync: byte 0x%02x where step %u (%s) "
		       "was due: the peer is no cmtime of rdma-core 52-58", got,
		       (unsigned)want, rt_cmt_sync_name(want));
}

int rt_cmt_opts_check(const struct rt_cmt_opts *o, struct rt_error *err)
{
	static const struct {
		size_t at;
		const char *name;
	} v56_only[] = {
		{ offsetof(struct rt_cmt_opts, mimic_given), "-m (--mimic-qp-delay)" },
		{ offsetof(struct rt_cmt_opts, threads_given), "-n (--threads)" },
		{ offsetof(struct rt_cmt_opts, qpn_given), "-q (--base-qpn)" },
		{ offsetof(struct rt_cmt_opts, socket_given), "-S (--socket)" },
	};

	if (o->proto == RT_CMT_V44)
		for (size_t i = 0; i < sizeof(v56_only) / sizeof(v56_only[0]); i++)
			if (*(const bool *)((const char *)o + v56_only[i].at))
				return rt_fail(err, RT_EXIT_USAGE, "%s: not in the v44 "
					       "protocol (Debian 12's cmtime has no such "
					       "option); drop it or use --proto v56",
					       v56_only[i].name);
	if (o->threads != 1)
		return rt_fail(err, RT_EXIT_USAGE, "--threads: %lld not supported: "
			       "rdmatest drives every connection from one event loop "
			       "(upstream's work-queue threads have no rdmatest "
			       "counterpart); only 1 is", o->threads);
	return 0;
}

int rt_cmt_row_format(char *buf, size_t len, const char *name,
		      const struct rt_cmt_step *s, unsigned iter)
{
	uint64_t n = iter ? iter : 1;
	bool timed = s->count > 0;

	return snprintf(buf, len, "%-13s  %10llu %10llu %10llu %10llu %10llu %10llu\n",
			name, (unsigned long long)(s->span / n),
			(unsigned long long)s->span,
			(unsigned long long)(timed ? s->sum / n : 0),
			(unsigned long long)(timed ? s->sum : 0),
			(unsigned long long)(timed ? s->max : 0),
			(unsigned long long)(timed ? s->min : 0));
}
