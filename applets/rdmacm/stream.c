/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <stdio.h>
#include <string.h>

#include "rdmatest/stats.h"
#include "rdmacm/stream.h"
#include "rdmatest/util.h"

/* ---- ladder ---- */

uint32_t rt_stream_ladder_size(size_t i)
{
	uint32_t pow2;

	if (i == 0 || i >= RT_STREAM_LADDER_LEN)
		return 64;
	pow2 = 1u << (7 + (i - 1) / 2); /* entries 1,2 are 128,192; 3,4 are 256,384 */
	return (i % 2) ? pow2 : pow2 + pow2 / 2;
}

bool rt_stream_ladder_default(size_t i)
{
	uint32_t s = rt_stream_ladder_size(i);

	return i < RT_STREAM_LADDER_LEN &&
	       (s == 64 || s == 4096 || s == 65536 || s == 1u << 20);
}

/* ---- rows ---- */

void rt_stream_row_init(struct rt_stream_row *r, enum rt_row_kind kind,
			uint64_t size, uint64_t count, uint64_t iters)
{
	char sz[16];

	rt_size_str(sz, sizeof(sz), size);
	r->size = size;
	switch (kind) {
	case RT_ROW_LAT:
		r->count = 1;
		r->iters = rt_size_to_count(size);
		snprintf(r->name, sizeof(r->name), "%s_lat", sz);
		break;
	case RT_ROW_BW:
		r->count = rt_size_to_count(size);
		r->iters = 1;
		snprintf(r->name, sizeof(r->name), "%s_bw", sz);
		break;
	case RT_ROW_CUSTOM:
		r->count = count;
		r->iters = iters;
		snprintf(r->name, sizeof(r->name), "custom");
		break;
	}
}

uint64_t rt_stream_row_bytes(const struct rt_stream_row *r)
{
	return r->iters * r->count * r->size * 2;
}

double rt_stream_gbps(const struct rt_stream_row *r, double usec)
{
	return (double)rt_stream_row_bytes(r) * 8 / (1000.0 * usec);
}

double rt_stream_usec_per_xfer(const struct rt_stream_row *r, double usec)
{
	return usec / (double)r->iters / ((double)r->count * 2);
}

void rt_stream_header(char *buf, size_t len)
{
	snprintf(buf, len, "%-10s%-8s%-8s%-8s%-8s%8s %10s%13s", "name", "bytes",
		 "xfers", "iters", "total", "time", "Gb/sec", "usec/xfer");
}

void rt_stream_row_format(char *buf, size_t len, const struct rt_stream_row *r,
			  double usec)
{
	char size[16], count[16], iters[16], total[16];

	rt_size_str(size, sizeof(size), r->size);
	rt_cnt_str(count, sizeof(count), r->count);
	rt_cnt_str(iters, sizeof(iters), r->iters);
	rt_size_str(total, sizeof(total), rt_stream_row_bytes(r));
	snprintf(buf, len, "%-10s%-8s%-8s%-8s%-8s%8.2fs%10.2f%11.2f", r->name,
		 size, count, iters, total, usec / 1e6, rt_stream_gbps(r, usec),
		 rt_stream_usec_per_xfer(r, usec));
}

/* ---- sync block ---- */

/* The sync block has 32-bit fields; larger values saturate. */
static uint32_t clamp_u32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

void rt_stream_sync_encode(uint8_t *buf, char role, const struct rt_stream_row *r)
{
	buf[0] = 'r';
	buf[1] = 't';
	buf[2] = (uint8_t)role;
	buf[3] = 1;
	rt_put_be32(buf + 4, clamp_u32(r->size));
	rt_put_be32(buf + 8, clamp_u32(r->count));
	rt_put_be32(buf + 12, clamp_u32(r->iters));
}

bool rt_stream_sync_decode(const uint8_t *buf, struct rt_stream_sync *out)
{
	if (buf[0] != 'r' || buf[1] != 't' || buf[3] != 1 ||
	    (buf[2] != 'c' && buf[2] != 's'))
		return false;
	out->role = (char)buf[2];
	out->size = rt_get_be32(buf + 4);
	out->count = rt_get_be32(buf + 8);
	out->iters = rt_get_be32(buf + 12);
	return true;
}

static bool is_counter_run(const uint8_t *b, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if ((uint8_t)(b[i - 1] + 1) != b[i])
			return false;
	return true;
}

enum rt_sync_verdict rt_stream_sync_check(const uint8_t *buf, char role,
					  const struct rt_stream_row *r,
					  struct rt_stream_sync *peer)
{
	if (is_counter_run(buf, RT_STREAM_SYNC_LEN))
		return RT_SYNC_VERIFIES;
	if (!rt_stream_sync_decode(buf, peer) || peer->role == role)
		return RT_SYNC_OK;
	if (peer->size == r->size && peer->count == r->count && peer->iters == r->iters)
		return RT_SYNC_OK;
	return RT_SYNC_DIFFERS;
}

/* ---- series and records ---- */

size_t rt_stream_series(enum rt_row_kind k, bool all, uint64_t scale,
			struct rt_stream_row *rows)
{
	size_t n = 0;

	for (size_t i = 0; i < RT_STREAM_LADDER_LEN; i++) {
		struct rt_stream_row *r = &rows[n];

		if (!all && !rt_stream_ladder_default(i))
			continue;
		rt_stream_row_init(r, k, rt_stream_ladder_size(i), 0, 0);
		r->count = RT_MAX(r->count / scale, 1);
		r->iters = RT_MAX(r->iters / scale, 1);
		n++;
	}
	return n;
}

void rt_stream_row_json(struct rt_json *j, const struct rt_stream_row *r,
			unsigned conn, double usec, const struct rt_hist *lat)
{
	struct rt_summary sum;

	rt_json_object_begin(j);
	rt_json_kv_string(j, "name", r->name);
	rt_json_kv_uint(j, "connection", conn);
	rt_json_kv_uint(j, "size", r->size);
	rt_json_kv_uint(j, "transfers", r->count);
	rt_json_kv_uint(j, "iterations", r->iters);
	rt_json_kv_uint(j, "bytes", rt_stream_row_bytes(r));
	rt_json_kv_double(j, "seconds", usec / 1e6);
	rt_json_kv_double(j, "gbps", rt_stream_gbps(r, usec));
	rt_json_kv_double(j, "usec_per_xfer", rt_stream_usec_per_xfer(r, usec));
	if (lat->count) {
		rt_hist_summarize(lat, &sum);
		rt_json_key(j, "latency_us");
		rt_summary_json(j, &sum, 1000);
	}
	rt_json_object_end(j);
}

/* ---- verification ---- */

/* Two periods of the counter: any run of up to 256 expected bytes starting
 * at any counter value is one contiguous slice of this table. */
#define COUNT4(n) (n), (n) + 1, (n) + 2, (n) + 3
#define COUNT16(n) COUNT4(n), COUNT4((n) + 4), COUNT4((n) + 8), COUNT4((n) + 12)
#define COUNT64(n) COUNT16(n), COUNT16((n) + 16), COUNT16((n) + 32), COUNT16((n) + 48)
#define COUNT256 COUNT64(0), COUNT64(64), COUNT64(128), COUNT64(192)

static const uint8_t period2[512] = { COUNT256, COUNT256 };

void rt_stream_verify_fill(struct rt_stream_verify *v, uint8_t *buf, size_t n)
{
	const uint8_t *t = period2;

	while (n) {
		size_t chunk = n < 256 ? n : 256;

		memcpy(buf, t + v->fill_next, chunk);
		v->fill_next = (uint8_t)(v->fill_next + chunk);
		buf += chunk;
		n -= chunk;
	}
}

int64_t rt_stream_verify_check(struct rt_stream_verify *v, const uint8_t *buf,
			       size_t n)
{
	const uint8_t *t = period2;

	for (size_t done = 0; done < n;) {
		size_t chunk = n - done < 256 ? n - done : 256;

		if (memcmp(buf + done, t + v->check_next, chunk)) {
			size_t j = 0;

			while (buf[done + j] == t[v->check_next + j])
				j++;
			v->check_next = (uint8_t)(v->check_next + j + 1);
			v->checked += j;
			return (int64_t)(v->checked);
		}
		v->check_next = (uint8_t)(v->check_next + chunk);
		v->checked += chunk;
		done += chunk;
	}
	return -1;
}

void rt_stream_verify_skip(struct rt_stream_verify *v, const struct rt_stream_row *rows,
			   size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t each_way = RT_STREAM_SYNC_LEN + rt_stream_row_bytes(&rows[i]) / 2;

		v->fill_next = (uint8_t)(v->fill_next + each_way);
		v->check_next = (uint8_t)(v->check_next + each_way);
		v->checked += each_way;
	}
}
