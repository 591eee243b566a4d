/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The payload of the ib_* tests' messages from a file.
 *
 * --payload_file_path FILE: perftest 25.01's payload: FILE holds
 * comma-separated DWORDs "0xaaaaaaaa" (whitespace around each is allowed
 * here; perftest takes none after the first), each one's bytes little
 * endian, at most -s bytes of them; the pattern is repeated over what
 * each QP sends (read tests: what the peer reads) instead of rdmatest's
 * pattern, so an rdmatest receiver says its data check was not done. Not
 * in ib_write_lat (perftest leaves its buffer zero there: the test polls
 * it). A file that cannot be read, is empty, is above RT_PT_PAYLOAD_FILE
 * bytes, or has a token that is not such a DWORD is exit 2 naming the file
 * and the DWORD's index, checked before anything is connected.
 *
 * Memory: the file's text (at most RT_PT_PAYLOAD_FILE, 32 MiB) while it is
 * read, then the pattern, at most -s bytes, owned by the connection. */
#ifndef RDMATEST_PERFTEST_PAYLOAD_H
#define RDMATEST_PERFTEST_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "rdmatest/error.h"
#include "rdmatest/opt.h"

#define RT_PT_PAYLOAD_FILE (32u << 20) /* 8 MiB of DWORDs in text: 22 MiB */

/* The row's config (struct rt_pt_cfg's `payload`; the run reads it as
 * struct rt_pt_params's `opt.payload`). */
struct rt_pt_payload_cfg {
	const char *file; /* --payload_file_path */
};

/* --payload_file_path: every test but ib_write_lat. */
#define RT_PT_OPT_PAYLOAD \
	{ 0, "payload_file_path", RT_OPT_STRING, RT_S(payload.file), 0, 0, NULL, \
	  "FILE", "send this pattern instead of rdmatest's, as perftest 25.01: " \
	  "comma-separated little-endian DWORDs \"0xaabbccdd,...\", at most -s " \
	  "bytes, repeated over each QP's buffer (a bad or unreadable FILE: exit 2)", \
	  NULL }

struct rt_pt_params;
/* The file is read and checked now, before anything is connected (exit
 * 2 naming it); p->opt.payload.file is its path. Called by
 * rt_pt_params_init. */
int rt_pt_payload_rules(struct rt_pt_params *p, struct rt_error *err);
/* A payload file's text: at most max bytes into out (size max), *len set;
 * exit 2 naming `what` and the bad DWORD's index. */
int rt_pt_payload_parse(const char *text, const char *what, uint8_t *out,
			size_t max, size_t *len, struct rt_error *err);
/* The pattern of the file: at most max bytes, allocated into *out (the
 * caller frees it), exit 2 naming the file. */
int rt_pt_payload_load(const char *path, size_t max, uint8_t **out, size_t *len,
		       struct rt_error *err);
/* a[0..n) repeats pat[0..len). */
void rt_pt_payload_fill(uint8_t *a, size_t n, const uint8_t *pat, size_t len);

#endif
