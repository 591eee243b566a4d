/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* HMAC-SHA256 (RFC 2104, FIPS 180-4) computed by the kernel's crypto API
 * through an AF_ALG socket (the kernel's Documentation/crypto/userspace-if.rst).
 * Why the kernel's: libsodium, nettle or libcrypto would each add a
 * dependency and size to the static musl build; the kernel's code is kept
 * and reviewed upstream, and nothing here implements a primitive.
 * The cost: a kernel without CONFIG_CRYPTO_USER_API_HASH (the algif_hash
 * module), or a sandbox that forbids AF_ALG, has none; then opening fails
 * with exit 3 and one line: "HMAC-SHA256 from the kernel (AF_ALG): Address
 * family not supported by protocol: the kernel has no
 * CONFIG_CRYPTO_USER_API_HASH (modprobe algif_hash)".
 *
 * One bound socket (struct rt_hmac) serves every key: each sum sets its
 * key, accepts an operation socket, sends the parts in one sendmsg and
 * reads the 32-byte digest, so a process holds one descriptor however
 * many peers it talks to. Not for concurrent use from two threads. */
#ifndef RDMATEST_HMAC_H
#define RDMATEST_HMAC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "rdmatest/error.h"

#define RT_HMAC_LEN 32u       /* an HMAC-SHA256 digest */
/* a key, at most (RFC 4231's longest test key is 131 bytes; a key longer
 * than SHA-256's 64-byte block is hashed first, RFC 2104 section 2) */
#define RT_HMAC_KEY_MAX 256u
#define RT_HMAC_PARTS_MAX 16  /* parts a message is given in, at most */
#define RT_HMAC_DATA_MAX 65536u /* bytes a message holds, at most */

struct rt_hmac {
	int alg; /* the socket bound to "hmac(sha256)"; -1: not open */
};

#define RT_HMAC_INIT { .alg = -1 }

/* Opens the kernel's HMAC-SHA256; 0, or -1 with err set (exit 3, the
 * cause named as above). */
int rt_hmac_open(struct rt_hmac *h, struct rt_error *err);
/* out = HMAC-SHA256(key, parts[0] || parts[1] || ...); nparts may be 0.
 * 0, or -1 with err set (exit 2 for a key or message past the bounds,
 * exit 3 for the kernel's refusal). */
int rt_hmac_sha256(struct rt_hmac *h, const uint8_t *key, size_t key_len,
		   const struct iovec *parts, int nparts,
		   uint8_t out[RT_HMAC_LEN], struct rt_error *err);
void rt_hmac_close(struct rt_hmac *h);

/* a[0..n) == b[0..n), in a time that depends on n only, so that a peer
 * timing refusals learns nothing of where its forged MAC went wrong. */
bool rt_hmac_equal(const uint8_t *a, const uint8_t *b, size_t n);

#endif
