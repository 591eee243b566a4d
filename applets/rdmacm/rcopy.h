/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rcopy's messages (rcopy_msg.c; rcopy.c describes the protocol): the
 * header both sides send, and what the server makes of one client
 * message, apart from the stream, so that any bytes a peer sends can be
 * tried on it. */
#ifndef RDMATEST_RCOPY_H
#define RDMATEST_RCOPY_H

#include <stddef.h>
#include <stdint.h>

#define RT_RCOPY_PATH_BYTES 4096 /* the longest destination path, NUL included */
#define RT_RCOPY_MORE (-1)

enum { RT_RCOPY_OPEN = 1, RT_RCOPY_CLOSE = 2, RT_RCOPY_WRITE = 3, RT_RCOPY_RESP = 0x80 };

/* In host byte order, as upstream's. */
struct rt_rcopy_hdr {
	uint8_t version;
	uint8_t command;
	uint16_t len;
	uint32_t data;
	uint64_t id;
};
_Static_assert(sizeof(struct rt_rcopy_hdr) == 16, "rcopy's header is 16 bytes");

struct rt_rcopy_msg {
	struct rt_rcopy_hdr h;
	size_t need;      /* the bytes of the message read so far or wanted */
	const char *path; /* OPEN: NUL-terminated, in the buffer */
	uint64_t size;    /* WRITE */
};

/* Parses the client message at buf[0..len): 0 when it is whole and
 * valid; RT_RCOPY_MORE when m->need bytes are wanted first (the body
 * the header announces, once it passed); else an errno with the refusal
 * in why (whylen bytes). A body past what the server reads is not
 * looked at (a CLOSE's, as upstream). */
int rt_rcopy_parse(const uint8_t *buf, size_t len, struct rt_rcopy_msg *m, char *why,
		   size_t whylen);

struct rt_stream;
struct rt_error;
/* Sends a bare header (a command without a body, or a response). */
int rt_rcopy_send_hdr(struct rt_stream *s, struct rt_error *err, uint8_t cmd,
		      uint16_t len, uint32_t data, uint64_t id);

#endif
