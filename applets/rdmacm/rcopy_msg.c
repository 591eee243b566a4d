/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rcopy's messages (rcopy.h): a bare header out, a client's message in. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rdmacm/rcopy.h"
#include "rdmacm/rsock.h"

int rt_rcopy_send_hdr(struct rt_stream *s, struct rt_error *err, uint8_t cmd,
		      uint16_t len, uint32_t data, uint64_t id)
{
	struct rt_rcopy_hdr h = { .command = cmd, .len = len, .data = data, .id = id };

	return rt_stream_send_all(s, &h, sizeof(h), err);
}

int rt_rcopy_parse(const uint8_t *buf, size_t len, struct rt_rcopy_msg *m, char *why,
		   size_t whylen)
{
	const struct rt_rcopy_hdr *h = &m->h;
	size_t body;

	m->need = sizeof(*h);
	if (len < m->need)
		return RT_RCOPY_MORE;
	memcpy(&m->h, buf, sizeof(*h));
	body = h->len - sizeof(*h);
	if (h->version || h->len < sizeof(*h))
		return snprintf(why, whylen, "bad header (version %u, length %u)", h->version,
				h->len), EINVAL;
	if (h->command == RT_RCOPY_OPEN && body > RT_RCOPY_PATH_BYTES + 8)
		return snprintf(why, whylen, "OPEN with a %zu-byte path, over %zu", body,
				(size_t)RT_RCOPY_PATH_BYTES + 8), EINVAL;
	if (h->command == RT_RCOPY_WRITE && body != sizeof(m->size))
		return snprintf(why, whylen, "WRITE of length %u, not 24", h->len), EINVAL;
	if (h->command != RT_RCOPY_OPEN && h->command != RT_RCOPY_WRITE &&
	    h->command != RT_RCOPY_CLOSE)
		return snprintf(why, whylen, "unknown command %u", h->command), EINVAL;
	m->need += h->command == RT_RCOPY_CLOSE ? 0 : body;
	if (len < m->need)
		return RT_RCOPY_MORE;
	if (h->command == RT_RCOPY_OPEN && !memchr(buf + sizeof(*h), 0, body))
		return snprintf(why, whylen, "OPEN path without its NUL"), EINVAL;
	m->path = (const char *)buf + sizeof(*h);
	if (h->command == RT_RCOPY_WRITE)
		memcpy(&m->size, buf + sizeof(*h), sizeof(m->size));
	return 0;
}
