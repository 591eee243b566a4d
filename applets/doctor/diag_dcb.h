/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's DCB check (diag_dcb.c): what a RoCE netdev's driver shows of
 * its PFC priorities, trust mode and DSCP-to-priority map, read from
 * sysfs text. The parsers take the files' text only, so that unit and
 * fuzz tests feed them whatever a driver might write. */
#ifndef RDMATEST_DIAG_DCB_H
#define RDMATEST_DIAG_DCB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RT_DCB_PRIOS 8  /* IEEE 802.1p priorities */
#define RT_DCB_DSCPS 64 /* 6-bit DSCP values */
/* A qos file is read up to this many bytes: mlx5's dscp2prio, the
 * longest, is 8 lines of at most 8 + 64 * 3 characters. A longer file is
 * not understood rather than half read. */
#define RT_DCB_FILE_MAX 4096

enum rt_dcb_trust { RT_DCB_TRUST_UNKNOWN, RT_DCB_TRUST_PCP, RT_DCB_TRUST_DSCP };

struct rt_dcb {
	bool has_pfc, has_trust, has_map; /* the file exists */
	uint8_t pfc;                      /* bit p: PFC on priority p */
	enum rt_dcb_trust trust;
	int prio_of[RT_DCB_DSCPS];        /* DSCP -> priority; -1: not mapped */
};

/* "0,0,0,1,0,0,0,0" (one flag per priority, 0 first; commas or blanks
 * between): 0 and the mask, or -1 for anything else. */
int rt_dcb_parse_pfc(const char *text, uint8_t *mask);
/* A line naming "dscp" or "pcp" ("Priority trust state: dscp"): 0, or
 * -1 when it names neither or both. */
int rt_dcb_parse_trust(const char *text, enum rt_dcb_trust *trust);
/* Lines "prio:P dscp:D,D,...," (mlx5's layout; a header line without
 * "prio:" is skipped): fills prio_of, -1 where no line maps a DSCP.
 * Returns the DSCP values mapped, or -1 for a priority above 7, a DSCP
 * above 63, one mapped twice, or a "prio:" line without values. */
int rt_dcb_parse_dscp2prio(const char *text, int prio_of[RT_DCB_DSCPS]);

#endif
