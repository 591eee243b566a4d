/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Secret random bytes (nonces, run keys) from the kernel's getrandom(2),
 * which blocks only until the kernel's pool is first seeded at boot. */
#ifndef RDMATEST_RANDOM_H
#define RDMATEST_RANDOM_H

#include <stddef.h>
#include <stdint.h>

#include "rdmatest/error.h"

/* At most this many bytes a call: getrandom(2) returns a request of up
 * to 256 bytes whole once the pool is seeded, so one call never comes
 * back short. */
#define RT_RANDOM_MAX 256u

/* Fills buf[0..n) (n at most RT_RANDOM_MAX); 0, or -1 with err set
 * (exit 3: the kernel gave no random bytes). */
int rt_random_bytes(uint8_t *buf, size_t n, struct rt_error *err);

#endif
