/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <string.h>

#include "mesh/meshseal.h"

int rt_mesh_seal_join(struct rt_oob *o, struct rt_mesh_auth *a,
		      const struct rt_mesh_munge *munge, struct rt_error *err)
{
	uint8_t ch[RT_MESH_AUTH_CHALLENGE], an[RT_MESH_AUTH_ANSWER], pr[RT_MESH_AUTH_PROOF];

	int rc;

	if (rt_mesh_auth_challenge(a, ch, err))
		return -1;
	/* rt_oob's RT_INTERRUPTED goes up as it is */
	rc = rt_oob_write(o, ch, sizeof(ch), err);
	if (rc)
		return rc;
	if (munge) {
		uint8_t head[RT_MESH_AUTH_CRED_HEAD], key[RT_MESH_AUTH_SECRET];
		char cred[RT_MESH_AUTH_CRED_MAX];
		int len;

		rc = rt_oob_read(o, head, sizeof(head), err);
		if (rc)
			return rc;
		len = rt_mesh_auth_cred_len(a, head, err);
		if (len < 0)
			return -1;
		rc = rt_oob_read(o, cred, (size_t)len, err);
		if (rc)
			return rc;
		if (rt_mesh_munge_open(munge, cred, (size_t)len, key, err))
			return -1;
		rt_mesh_auth_secret(a, key);
		explicit_bzero(key, sizeof(key));
	}
	/* a plain mesh message (28 bytes for a VERDICT) where the answer
	 * belongs is named, not waited on for the answer's 76 */
	rc = rt_oob_read(o, an, RT_MESHMSG_HDR, err);
	if (!rc && an[0] == 'R' && an[1] == 'M')
		return rt_fail(err, RT_EXIT_FAIL, "mesh auth: a plain mesh message where the "
			       "answer belongs: the other end runs without authentication "
			       "(--auth none)");
	if (!rc)
		rc = rt_oob_read(o, an + RT_MESHMSG_HDR, sizeof(an) - RT_MESHMSG_HDR, err);
	if (rc)
		return rc;
	return rt_mesh_auth_prove(a, an, pr, err) ? -1 : rt_oob_write(o, pr, sizeof(pr), err);
}

int rt_mesh_seal_admit(struct rt_oob *o, struct rt_mesh_auth *a,
		       const struct rt_mesh_munge *munge, struct rt_error *err)
{
	uint8_t ch[RT_MESH_AUTH_CHALLENGE], an[RT_MESH_AUTH_ANSWER], pr[RT_MESH_AUTH_PROOF];

	int rc = rt_oob_read(o, ch, sizeof(ch), err);

	/* rt_oob's RT_INTERRUPTED goes up as it is */
	if (rc)
		return rc;
	if (rt_mesh_auth_answer(a, ch, an, err))
		return -1;
	if (munge) {
		/* the head and the text in one write: one segment, not two */
		uint8_t cred[RT_MESH_AUTH_CRED_HEAD + RT_MESH_AUTH_CRED_MAX];
		int len = rt_mesh_munge_seal(munge, a->secret, (char *)cred + RT_MESH_AUTH_CRED_HEAD,
					     err);

		if (len < 0)
			return -1;
		rt_mesh_auth_cred_head(cred, (uint32_t)len);
		rc = rt_oob_write(o, cred, RT_MESH_AUTH_CRED_HEAD + (size_t)len, err);
		if (rc)
			return rc;
	}
	rc = rt_oob_write(o, an, sizeof(an), err);
	if (!rc)
		rc = rt_oob_read(o, pr, sizeof(pr), err);
	if (rc)
		return rc;
	return rt_mesh_auth_check(a, pr, err);
}

int rt_meshmsg_write_sealed(struct rt_oob *o, struct rt_mesh_auth *a,
			    const struct rt_meshmsg *m, struct rt_error *err)
{
	uint8_t msg[RT_MESHMSG_MAX], frame[RT_MESH_AUTH_FRAME_MAX];
	int n = rt_mesh_auth_seal(a, msg, rt_meshmsg_encode(m, msg), frame, err);

	return n < 0 ? -1 : rt_oob_write(o, frame, (size_t)n, err);
}

int rt_meshmsg_read_sealed(struct rt_oob *o, struct rt_mesh_auth *a, uint32_t size,
			   struct rt_meshmsg *m, struct rt_error *err)
{
	uint8_t frame[RT_MESH_AUTH_FRAME_MAX];
	int whole, len, rc;

	/* rt_oob_read's RT_INTERRUPTED goes up as it is */
	rc = rt_oob_read(o, frame, RT_MESHMSG_HDR, err);
	if (rc)
		return rc;
	whole = rt_mesh_auth_frame_len(frame, err);
	if (whole < 0)
		return -1;
	rc = rt_oob_read(o, frame + RT_MESHMSG_HDR, (size_t)whole - RT_MESHMSG_HDR, err);
	if (rc)
		return rc;
	len = rt_mesh_auth_open(a, frame, (size_t)whole, err);
	return len < 0 ? -1 : rt_meshmsg_decode(frame, (size_t)len, size, m, err);
}

int rt_mesh_send(struct rt_oob *o, struct rt_mesh_auth *a, const struct rt_meshmsg *m,
		 struct rt_error *err)
{
	return a ? rt_meshmsg_write_sealed(o, a, m, err) : rt_meshmsg_write(o, m, err);
}

int rt_mesh_recv(struct rt_oob *o, struct rt_mesh_auth *a, uint32_t size,
		 struct rt_meshmsg *m, struct rt_error *err)
{
	return a ? rt_meshmsg_read_sealed(o, a, size, m, err) : rt_meshmsg_read(o, size, m, err);
}

size_t rt_mesh_trailer(const struct rt_mesh_auth *a)
{
	return a ? RT_MESH_AUTH_TRAILER : 0;
}

int rt_mesh_unframe(struct rt_mesh_auth *a, const uint8_t *buf, size_t n, uint32_t size,
		    struct rt_meshmsg *m, struct rt_error *err)
{
	int len = a ? rt_mesh_auth_open(a, buf, n, err) : (int)n;

	return len < 0 ? -1 : rt_meshmsg_decode(buf, (size_t)len, size, m, err);
}
