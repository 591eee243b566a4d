/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The program: the dispatcher with the hooks that join this build's
 * families into every run. The one file that may name a family, since
 * -Dapplets decides which exist (meson.build sets RT_HAVE_<FAMILY>). */
#include "rdmatest/applet.h"
#include "rdmatest/providers.h"
#ifdef RT_HAVE_DOCTOR
#include "doctor/diag.h"
#endif

static const struct rt_main_hooks hooks = {
#ifdef RT_HAVE_DOCTOR
	.failure_hint = rt_diag_failure_hint,
#else
	.failure_hint = NULL,
#endif
};

int main(int argc, char **argv)
{
	rt_static_providers();
	return rt_dispatch(argc, argv, &hooks);
}
