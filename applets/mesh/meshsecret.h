/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Where a mesh run's secret (meshauth.h) comes from, and the name of the
 * mode for --dry-run, the summary and the JSON:
 *   munge  rank 0 draws a random run key (getrandom) and hands each rank a
 *          MUNGE credential holding it (meshmunge.h)
 *   file   --token-file: every rank reads the same file; the secret is
 *          HKDF-Extract (RFC 5869 section 2.2) of its bytes, one trailing
 *          newline left out, with the salt "rdmatest mesh token file":
 *          HMAC-SHA256(salt, bytes). The file is read only when it is a
 *          regular file owned by the user and closed to its group and
 *          others (mode 0600 or 0400), 1 to RT_MESH_SECRET_FILE_MAX bytes;
 *          else exit 2 and one line. Its bytes should be random (head -c
 *          32 /dev/urandom): a stranger who answers as a rank learns a
 *          proof of rank 0's that lets it test guesses of a short word
 *          offline.
 *   none   no authentication (the job token's hash only, as before) */
#ifndef RDMATEST_MESHSECRET_H
#define RDMATEST_MESHSECRET_H

#include <stdint.h>

#include "mesh/meshauth.h"
#include "rdmatest/error.h"
#include "rdmatest/hmac.h"

#define RT_MESH_SECRET_FILE_MAX 4096u

enum rt_mesh_auth_mode {
	RT_MESH_AUTH_NONE = 0,
	RT_MESH_AUTH_FILE = 1,
	RT_MESH_AUTH_MUNGE = 2,
};

/* "none", "file", "munge" ("?" otherwise). */
const char *rt_mesh_auth_mode_name(unsigned mode);
/* The mode a name gives, or -1 (exit 2 naming the value). */
int rt_mesh_auth_mode_parse(const char *name, struct rt_error *err);

/* The secret of a token file, checked as above. */
int rt_mesh_secret_file(struct rt_hmac *mac, const char *path,
			uint8_t secret[RT_MESH_AUTH_SECRET], struct rt_error *err);

/* The checks of rt_mesh_secret_file without reading the secret (mesh
 * --dry-run refuses what a run would). */
int rt_mesh_secret_check(const char *path, struct rt_error *err);

#endif
