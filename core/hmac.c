/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_alg.h>

#include "rdmatest/hmac.h"

#ifndef AF_ALG
#define AF_ALG 38 /* linux/socket.h; older C libraries lack it */
#endif
#ifndef SOL_ALG
#define SOL_ALG 279
#endif

static const char kernel_hmac[] = "HMAC-SHA256 from the kernel (AF_ALG)";

int rt_hmac_open(struct rt_hmac *h, struct rt_error *err)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	int fd;

	memcpy(sa.salg_type, "hash", sizeof("hash"));
	memcpy(sa.salg_name, "hmac(sha256)", sizeof("hmac(sha256)"));
	h->alg = -1;
	fd = socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		if (errno == EAFNOSUPPORT)
			return rt_fail_errno(err, RT_EXIT_ENV, errno,
					     "%s: the kernel has no CONFIG_CRYPTO_USER_API_HASH "
					     "(modprobe algif_hash)", kernel_hmac);
		return rt_fail_errno(err, RT_EXIT_ENV, errno, "%s: socket", kernel_hmac);
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(fd);
		if (e == ENOENT)
			return rt_fail(err, RT_EXIT_ENV, "%s: the kernel has no hmac(sha256) "
				       "(CONFIG_CRYPTO_HMAC, CONFIG_CRYPTO_SHA256)", kernel_hmac);
		return rt_fail_errno(err, RT_EXIT_ENV, e, "%s: bind", kernel_hmac);
	}
	h->alg = fd;
	return 0;
}

static int sum(int op, const struct iovec *parts, int nparts, size_t total,
	       uint8_t out[RT_HMAC_LEN], struct rt_error *err)
{
	struct msghdr msg = { .msg_iov = (struct iovec *)parts,
			      .msg_iovlen = (size_t)nparts };
	ssize_t n;

	if (total) {
		n = sendmsg(op, &msg, 0);
		if (n < 0)
			return rt_fail_errno(err, RT_EXIT_ENV, errno, "%s: send", kernel_hmac);
		if ((size_t)n != total)
			return rt_fail(err, RT_EXIT_ENV, "%s: took %zd of %zu bytes",
				       kernel_hmac, n, total);
	}
	n = recv(op, out, RT_HMAC_LEN, 0);
	if (n < 0)
		return rt_fail_errno(err, RT_EXIT_ENV, errno, "%s: read", kernel_hmac);
	if (n != (ssize_t)RT_HMAC_LEN)
		return rt_fail(err, RT_EXIT_ENV, "%s: a digest of %zd bytes, not %u",
			       kernel_hmac, n, RT_HMAC_LEN);
	return 0;
}

int rt_hmac_sha256(struct rt_hmac *h, const uint8_t *key, size_t key_len,
		   const struct iovec *parts, int nparts,
		   uint8_t out[RT_HMAC_LEN], struct rt_error *err)
{
	size_t total = 0;
	int op, rc;

	if (h->alg < 0)
		return rt_fail(err, RT_EXIT_ENV, "%s: not open", kernel_hmac);
	if (key_len == 0 || key_len > RT_HMAC_KEY_MAX)
		return rt_fail(err, RT_EXIT_USAGE, "HMAC key of %zu bytes: 1 to %u", key_len,
			       RT_HMAC_KEY_MAX);
	if (nparts < 0 || nparts > RT_HMAC_PARTS_MAX)
		return rt_fail(err, RT_EXIT_USAGE, "HMAC of %d parts: at most %d", nparts,
			       RT_HMAC_PARTS_MAX);
	for (int i = 0; i < nparts; i++) {
		if (parts[i].iov_len > RT_HMAC_DATA_MAX - total)
			return rt_fail(err, RT_EXIT_USAGE, "HMAC of more than %u bytes",
				       RT_HMAC_DATA_MAX);
		total += parts[i].iov_len;
	}
	/* the key lives on the bound socket; an operation socket accepted
	 * after it hashes with it, and is closed before the next key is set */
	if (setsockopt(h->alg, SOL_ALG, ALG_SET_KEY, key, (socklen_t)key_len) < 0)
		return rt_fail_errno(err, RT_EXIT_ENV, errno, "%s: set key", kernel_hmac);
	op = accept4(h->alg, NULL, NULL, SOCK_CLOEXEC);
	if (op < 0)
		return rt_fail_errno(err, RT_EXIT_ENV, errno, "%s: accept", kernel_hmac);
	rc = sum(op, parts, nparts, total, out, err);
	close(op);
	return rc;
}

void rt_hmac_close(struct rt_hmac *h)
{
	if (h->alg >= 0)
		close(h->alg);
	h->alg = -1;
}

bool rt_hmac_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
	/* volatile: the compiler may not stop at the first difference */
	volatile uint8_t diff = 0;

	for (size_t i = 0; i < n; i++)
		diff |= a[i] ^ b[i];
	return diff == 0;
}
