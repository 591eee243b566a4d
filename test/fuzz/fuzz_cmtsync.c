/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cmtime's one-byte TCP step sync (cmtsync.h): the bytes a v56 peer
 * sends back at each step of its runs, judged by rt_cmt_sync_check the
 * way cmtime_v56.c's sync_step does, step after step, until the first
 * refusal. A byte is taken exactly when it is the step that was due; a
 * refusal is exit 1 with one printable line that names the due step;
 * only the three steps have names.
 *
 * Input: the peer's bytes, one per step; the due steps go reset,
 * connected, disconnected and around again, as the runs do. */
#include "fuzz.h"

#include "rdmacm/cmtsync.h"

static const enum rt_cmt_sync steps[] = {
	RT_CMT_SYNC_RESET, RT_CMT_SYNC_CONNECTED, RT_CMT_SYNC_DISCONNECTED,
};

static void check_refusal(const struct rt_error *e, enum rt_cmt_sync want)
{
	size_t n = strnlen(e->reason, sizeof(e->reason));

	FUZZ_CHECK(e->set && e->exit_code == 1, "refusal without exit 1");
	FUZZ_CHECK(n > 0 && n < sizeof(e->reason), "reason of %zu bytes", n);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(e->reason[i] >= 0x20 && e->reason[i] < 0x7f,
			   "byte 0x%02x in the reason", (unsigned char)e->reason[i]);
	FUZZ_CHECK(strstr(e->reason, rt_cmt_sync_name(want)), "due step %s not named: %s",
		   rt_cmt_sync_name(want), e->reason);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		enum rt_cmt_sync want = steps[i % 3];
		unsigned char got = data[i];
		struct rt_error e;
		const char *name = rt_cmt_sync_name(got);
		int rc;

		memset(&e, 0, sizeof(e));
		FUZZ_CHECK(!name == (got != 0 && got != 12 && got != 14), "byte %u named %s",
			   got, name ? name : "(none)");
		rc = rt_cmt_sync_check(want, got, &e);
		if (got == (unsigned char)want) {
			FUZZ_CHECK(rc == 0 && !e.set, "step %u refused", got);
			continue;
		}
		FUZZ_CHECK(rc == -1, "byte %u taken where %u was due", got, (unsigned)want);
		check_refusal(&e, want);
		break; /* cmtime stops at the first refused sync */
	}
	return 0;
}
