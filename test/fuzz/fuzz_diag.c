/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The facts line a `doctor --listen` peer sends (diag_peer.h): whatever
 * the line, rt_diag_facts_parse stays inside it and its fields, and a
 * line it takes formats back to one it takes with the same facts. */
#include "fuzz.h"

#include "doctor/diag_peer.h"

static bool same_facts(const struct rt_diag_port *a, const struct rt_diag_port *b)
{
	return !strcmp(a->dev, b->dev) && a->port == b->port &&
	       a->active_mtu == b->active_mtu && !strcmp(a->ndev, b->ndev) &&
	       a->ndev_mtu == b->ndev_mtu;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	char *line = fuzz_str(&in, RT_DIAG_FACTS_MAX * 2), again[RT_DIAG_FACTS_MAX];
	struct rt_diag_port p, q;

	if (rt_diag_facts_parse(line, &p) == 0) {
		FUZZ_CHECK(memchr(p.dev, '\0', sizeof(p.dev)) &&
			   memchr(p.ndev, '\0', sizeof(p.ndev)), "unterminated name");
		FUZZ_CHECK(p.active_mtu >= 0 && p.active_mtu <= 4096 && p.ndev_mtu >= 0,
			   "MTU out of range");
		rt_diag_facts_format(&p, again, sizeof(again));
		FUZZ_CHECK(rt_diag_facts_parse(again, &q) == 0 && same_facts(&p, &q),
			   "taken but formats to other facts: %s", again);
	}
	free(line);
	return 0;
}
