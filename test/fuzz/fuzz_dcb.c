/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The qos files a driver writes (diag_dcb.h): whatever the text, the
 * parsers stay inside it, a PFC mask taken had eight flags, and a DSCP
 * map taken maps each DSCP at most once to a priority 0..7, as many as
 * it says. */
#include "fuzz.h"

#include "doctor/diag_dcb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	char *text = fuzz_str(&in, RT_DCB_FILE_MAX);
	int map[RT_DCB_DSCPS];
	enum rt_dcb_trust trust = RT_DCB_TRUST_UNKNOWN;
	uint8_t mask;
	int n, mapped = 0;

	if (rt_dcb_parse_pfc(text, &mask) == 0)
		FUZZ_CHECK(strspn(text, "01, \t\n\v\f\r") == strlen(text), "pfc taken: %s", text);
	if (rt_dcb_parse_trust(text, &trust) == 0)
		FUZZ_CHECK(trust == RT_DCB_TRUST_DSCP || trust == RT_DCB_TRUST_PCP, "trust");
	n = rt_dcb_parse_dscp2prio(text, map);
	for (int i = 0; i < RT_DCB_DSCPS; i++) {
		FUZZ_CHECK(map[i] >= -1 && map[i] < RT_DCB_PRIOS, "priority %d", map[i]);
		mapped += map[i] >= 0;
	}
	FUZZ_CHECK(n < 0 || n == mapped, "said %d, mapped %d", n, mapped);
	free(text);
	return 0;
}
