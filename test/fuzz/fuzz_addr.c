/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Address parsing and printing: rt_addr_parse_numeric on arbitrary text
 * (what -a/-s/-b/-m values reach when they are numeric), and rt_addr_str
 * on arbitrary socket address bytes (a peer's address, an AF_IB GID) into
 * buffers of any size. rdma_getaddrinfo needs a device, so rt_addr_resolve
 * is not fuzzed.
 *
 * Input: byte 0 the output buffer length, byte 1 the address family,
 * then 128 bytes of sockaddr_storage; all of it is also the text. */
#include <arpa/inet.h>
#include <sys/socket.h>
#include <infiniband/ib.h>

#include "fuzz.h"

#include "rdmatest/addr.h"

/* A printed address must parse back to the same bytes. */
static void round_trip(const char *text)
{
	struct sockaddr_storage ss, back;
	char out[128], host[128];
	size_t n;
	int rc = rt_addr_parse_numeric(text, &ss);

	if (rc) {
		FUZZ_CHECK(rc == -1, "rc %d", rc);
		return;
	}
	FUZZ_CHECK(ss.ss_family == AF_INET || ss.ss_family == AF_INET6,
		   "'%s': family %d", text, ss.ss_family);
	rt_addr_str((struct sockaddr *)&ss, out, sizeof(out));
	/* "a.b.c.d:0" or "[v6]:0": the port is 0, the host comes back */
	n = strlen(out);
	FUZZ_CHECK(n > 2 && !strcmp(out + n - 2, ":0"), "'%s' printed as '%s'", text, out);
	if (ss.ss_family == AF_INET6) {
		FUZZ_CHECK(out[0] == '[' && out[n - 3] == ']', "'%s' printed as '%s'", text, out);
		memcpy(host, out + 1, n - 4);
		host[n - 4] = '\0';
	} else {
		memcpy(host, out, n - 2);
		host[n - 2] = '\0';
	}
	FUZZ_CHECK(!rt_addr_parse_numeric(host, &back), "'%s' -> '%s' does not parse",
		   text, host);
	FUZZ_CHECK(!memcmp(&ss, &back, sizeof(ss)), "'%s' -> '%s' is another address",
		   text, host);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const sa_family_t families[] = { AF_INET, AF_INET6, AF_IB, AF_UNSPEC, AF_UNIX };
	struct fuzz_in in = { data, size };
	size_t len = 1 + fuzz_u8(&in) % 96;
	uint8_t fam = fuzz_u8(&in);
	struct sockaddr_storage ss;
	char *buf, *text;
	const char *r;

	if (size > 512)
		return 0;
	/* text: the whole input as a C string */
	text = malloc(size + 1);
	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	round_trip(text);
	free(text);
	/* text: after the two header bytes (typical seeds are plain text) */
	text = fuzz_str(&in, in.n);
	round_trip(text);
	free(text);

	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, data, size < sizeof(ss) ? size : sizeof(ss));
	ss.ss_family = fam < 5 * 8 ? families[fam % 5] : fam;
	buf = malloc(len);
	if (!buf)
		abort();
	r = rt_addr_str((const struct sockaddr *)&ss, buf, len);
	FUZZ_CHECK(r == buf, "returned another buffer");
	FUZZ_CHECK(memchr(buf, '\0', len), "unterminated in %zu bytes", len);
	r = rt_addr_str(NULL, buf, len);
	FUZZ_CHECK(r == buf && memchr(buf, '\0', len), "NULL address");
	free(buf);
	return 0;
}
