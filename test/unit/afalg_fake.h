/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The kernel's AF_ALG "hmac(sha256)" where the kernel has none, for the
 * unit tests that reach core/hmac.c (a test links with
 * -Wl,--wrap=socket,--wrap=bind,--wrap=setsockopt,--wrap=accept4,
 * --wrap=sendmsg,--wrap=recv,--wrap=close and the test tree's libcrypto).
 * socket(AF_ALG) goes to the kernel first; only when the kernel answers
 * EAFNOSUPPORT (no CONFIG_CRYPTO_USER_API_HASH: a build VM's kernel) do
 * the same calls run against OpenSSL's HMAC() instead, on descriptors of
 * /dev/null, so core/hmac.c's own calls run either way.
 * afalg_fake_refuse makes socket(AF_ALG) fail as such a kernel's does.
 * Include after cmocka.h, in one file of the test. */
#ifndef RDMATEST_TEST_AFALG_FAKE_H
#define RDMATEST_TEST_AFALG_FAKE_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_alg.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#define AFALG_FAKE_SLOTS 8
#define AFALG_FAKE_DATA 65536

struct afalg_fake_slot {
	int fd; /* -1: free */
	int tfm; /* 1: the bound socket, 0: an operation socket */
	uint8_t key[256];
	size_t key_len;
	uint8_t data[AFALG_FAKE_DATA];
	size_t len;
};

static struct {
	int refuse;    /* socket(AF_ALG) fails with EAFNOSUPPORT */
	int faked;     /* the kernel had no AF_ALG: OpenSSL stood in */
	struct afalg_fake_slot slot[AFALG_FAKE_SLOTS];
} afalg_fake = { .slot = { [0 ... AFALG_FAKE_SLOTS - 1] = { .fd = -1 } } };

#define afalg_fake_refuse (afalg_fake.refuse)

int __real_socket(int domain, int type, int protocol);
int __real_bind(int fd, const struct sockaddr *sa, socklen_t len);
int __real_setsockopt(int fd, int level, int name, const void *v, socklen_t len);
int __real_accept4(int fd, struct sockaddr *sa, socklen_t *len, int flags);
ssize_t __real_sendmsg(int fd, const struct msghdr *msg, int flags);
ssize_t __real_recv(int fd, void *buf, size_t n, int flags);
int __real_close(int fd);

static struct afalg_fake_slot *afalg_slot(int fd)
{
	for (int i = 0; i < AFALG_FAKE_SLOTS; i++)
		if (fd >= 0 && afalg_fake.slot[i].fd == fd)
			return &afalg_fake.slot[i];
	return NULL;
}

static int afalg_new(int tfm)
{
	struct afalg_fake_slot *s = NULL;
	int fd;

	for (int i = 0; i < AFALG_FAKE_SLOTS && !s; i++)
		if (afalg_fake.slot[i].fd < 0)
			s = &afalg_fake.slot[i];
	if (!s) {
		errno = EMFILE;
		return -1;
	}
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	s->fd = fd;
	s->tfm = tfm;
	s->len = 0;
	return fd;
}

int __wrap_socket(int domain, int type, int protocol);
int __wrap_socket(int domain, int type, int protocol)
{
	int fd;

	if (domain != AF_ALG)
		return __real_socket(domain, type, protocol);
	if (afalg_fake.refuse) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	fd = __real_socket(domain, type, protocol);
	if (fd >= 0 || errno != EAFNOSUPPORT)
		return fd;
	afalg_fake.faked = 1;
	return afalg_new(1);
}

int __wrap_bind(int fd, const struct sockaddr *sa, socklen_t len);
int __wrap_bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	const struct sockaddr_alg *a = (const struct sockaddr_alg *)sa;

	if (!afalg_slot(fd))
		return __real_bind(fd, sa, len);
	if (strcmp((const char *)a->salg_type, "hash") ||
	    strcmp((const char *)a->salg_name, "hmac(sha256)")) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

int __wrap_setsockopt(int fd, int level, int name, const void *v, socklen_t len);
int __wrap_setsockopt(int fd, int level, int name, const void *v, socklen_t len)
{
	struct afalg_fake_slot *s = afalg_slot(fd);

	if (!s)
		return __real_setsockopt(fd, level, name, v, len);
	if (name != ALG_SET_KEY || len > sizeof(s->key)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(s->key, v, len);
	s->key_len = len;
	return 0;
}

int __wrap_accept4(int fd, struct sockaddr *sa, socklen_t *len, int flags);
int __wrap_accept4(int fd, struct sockaddr *sa, socklen_t *len, int flags)
{
	struct afalg_fake_slot *s = afalg_slot(fd), *op;
	int nfd;

	if (!s)
		return __real_accept4(fd, sa, len, flags);
	nfd = afalg_new(0);
	if (nfd < 0)
		return -1;
	op = afalg_slot(nfd);
	memcpy(op->key, s->key, s->key_len);
	op->key_len = s->key_len;
	return nfd;
}

ssize_t __wrap_sendmsg(int fd, const struct msghdr *msg, int flags);
ssize_t __wrap_sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct afalg_fake_slot *s = afalg_slot(fd);
	size_t n = 0;

	if (!s)
		return __real_sendmsg(fd, msg, flags);
	for (size_t i = 0; i < msg->msg_iovlen; i++) {
		if (msg->msg_iov[i].iov_len > sizeof(s->data) - s->len) {
			errno = EMSGSIZE;
			return -1;
		}
		memcpy(s->data + s->len, msg->msg_iov[i].iov_base, msg->msg_iov[i].iov_len);
		s->len += msg->msg_iov[i].iov_len;
		n += msg->msg_iov[i].iov_len;
	}
	return (ssize_t)n;
}

ssize_t __wrap_recv(int fd, void *buf, size_t n, int flags);
ssize_t __wrap_recv(int fd, void *buf, size_t n, int flags)
{
	struct afalg_fake_slot *s = afalg_slot(fd);
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int md_len = 0;

	if (!s)
		return __real_recv(fd, buf, n, flags);
	if (!HMAC(EVP_sha256(), s->key, (int)s->key_len, s->data, s->len, md, &md_len)) {
		errno = EIO;
		return -1;
	}
	s->len = 0;
	if (n > md_len)
		n = md_len;
	memcpy(buf, md, n);
	return (ssize_t)n;
}

int __wrap_close(int fd);
int __wrap_close(int fd)
{
	struct afalg_fake_slot *s = afalg_slot(fd);

	if (s)
		s->fd = -1;
	return __real_close(fd);
}

#endif
