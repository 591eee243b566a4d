/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A TCP port on 127.0.0.1 that nothing listens on right now, for the
 * unit tests that connect or listen through oob.h (the kernel picks it,
 * so parallel test runs do not collide). Include after cmocka.h. */
#ifndef RDMATEST_TEST_FREE_PORT_H
#define RDMATEST_TEST_FREE_PORT_H

#include "rdmatest/oob.h"

static inline unsigned free_port(void)
{
	struct rt_error err = { 0 };
	struct rt_oob o;
	unsigned port;

	rt_oob_init(&o, 1000);
	assert_int_equal(rt_oob_listen(&o, "127.0.0.1", 0, &err), 0);
	port = o.port;
	rt_oob_close(&o);
	return port;
}

#endif
