/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "perftest/perftest_wire.h"
#include "rdmatest/util.h"

/* ---- key records ------------------------------------------------------- */

/* Where each field of a key record sits: hex digits at a fixed offset,
 * each followed by ':' (srqn of the 59-byte form by the NUL). */
struct field {
	unsigned at, digits;
	const char *name;
};

static const struct field head[] = {
	{ 0, 4, "LID" }, { 5, 4, "out_reads" }, { 10, 6, "QPN" },
	{ 17, 6, "PSN" }, { 24, 8, "rkey" }, { 33, 16, "vaddr" },
};
#define GID_AT 50u    /* 16 × "xx:" */
#define SRQN_AT 50u   /* without GID */
#define SRQN_GID_AT 98u

size_t rt_pt_key_len(bool gid)
{
	return gid ? RT_PT_KEY_GID_LEN : RT_PT_KEY_LEN;
}

void rt_pt_key_encode(char *out, bool gid, const struct rt_pt_key *k)
{
	size_t len = rt_pt_key_len(gid);
	int n = snprintf(out, len, "%04x:%04x:%06x:%06x:%08x:%016llx:",
			 k->lid, k->out_reads, k->qpn & 0xffffff, k->psn & 0xffffff,
			 k->rkey, (unsigned long long)k->vaddr);

	for (int i = 0; gid && i < 16 && n > 0; i++)
		n += snprintf(out + n, len - (size_t)n, "%02x:", k->gid.raw[i]);
	if (n > 0)
		snprintf(out + n, len - (size_t)n, gid ? "%08x:" : "%08x", k->srqn);
}

/* `digits` hex digits at p followed by `sep`; false otherwise. */
static bool hexfield(const char *p, unsigned digits, char sep, uint64_t *v)
{
	*v = 0;
	for (unsigned i = 0; i < digits; i++) {
		int h = rt_hex_digit(p[i]);

		if (h < 0)
			return false;
		*v = *v << 4 | (uint64_t)h;
	}
	return p[digits] == sep;
}

static int bad_field(const char *who, const char *name, unsigned digits,
		     struct rt_error *err)
{
	return rt_fail(err, RT_EXIT_FAIL, "%s: key record: %s is not %u hex digits "
		       "and its separator", who, name, digits);
}

int rt_pt_key_decode(const char *in, size_t len, bool gid, struct rt_pt_key *k,
		     const char *who, struct rt_error *err)
{
	uint64_t v[ARRAY_SIZE(head)], g, srqn;
	unsigned srqn_at = gid ? SRQN_GID_AT : SRQN_AT;

	if (len != rt_pt_key_len(gid))
		return rt_fail(err, RT_EXIT_FAIL, "%s: key record of %zu bytes, want %zu "
			       "(does one side use -x and the other not?)", who, len,
			       rt_pt_key_len(gid));
	for (size_t i = 0; i < ARRAY_SIZE(head); i++)
		if (!hexfield(in + head[i].at, head[i].digits, ':', &v[i]))
			return bad_field(who, head[i].name, head[i].digits, err);
	for (unsigned i = 0; gid && i < 16; i++) {
		if (!hexfield(in + GID_AT + 3 * i, 2, ':', &g))
			return bad_field(who, "a GID byte", 2, err);
		k->gid.raw[i] = (uint8_t)g;
	}
	if (!gid)
		memset(&k->gid, 0, sizeof(k->gid));
	if (!hexfield(in + srqn_at, 8, gid ? ':' : '\0', &srqn) ||
	    (gid && in[len - 1] != '\0'))
		return bad_field(who, "SRQN", 8, err);
	k->lid = (uint16_t)v[0];
	k->out_reads = (uint16_t)v[1];
	k->qpn = (uint32_t)v[2];
	k->psn = (uint32_t)v[3];
	k->rkey = (uint32_t)v[4];
	k->vaddr = v[5];
	k->srqn = (uint32_t)srqn;
	return 0;
}

/* ---- version and MTU ----------------------------------------------------- */

void rt_pt_version_encode(char out[RT_PT_VERSION_LEN])
{
	memset(out, 0, RT_PT_VERSION_LEN);
	memcpy(out, RT_PT_VERSION, sizeof(RT_PT_VERSION) - 1);
}

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

/* "M.mm" to hundredths as atof reads it: "5.7" is 570, "6.061" 606. */
static bool parse_version(const char *s, unsigned *out)
{
	unsigned whole = 0, frac = 0, i = 0, f = 0;

	for (; i < 4 && digit(s[i]); i++)
		whole = whole * 10 + (unsigned)(s[i] - '0');
	if (i == 0 || s[i] != '.' || !digit(s[i + 1]))
		return false;
	for (i++; digit(s[i]); i++, f++)
		if (f < 2)
			frac = frac * 10 + (unsigned)(s[i] - '0');
	if (s[i] != '\0')
		return false;
	*out = whole * 100 + (f == 1 ? frac * 10 : frac);
	return true;
}

int rt_pt_version_decode(const char in[RT_PT_VERSION_LEN], unsigned *hundredths,
			 const char *who, struct rt_error *err)
{
	if (!memchr(in, '\0', RT_PT_VERSION_LEN) || !parse_version(in, hundredths))
		return rt_fail(err, RT_EXIT_FAIL, "%s: version message is not a "
			       "NUL-padded perftest version such as \"" RT_PT_VERSION
			       "\" (is it perftest?)", who);
	if (*hundredths < RT_PT_MIN_VERSION)
		return rt_fail(err, RT_EXIT_FAIL, "%s: perftest version %.15s is older "
			       "than 5.70, which this protocol needs", who, in);
	return 0;
}

void rt_pt_mtu_encode(char out[RT_PT_MTU_LEN], enum ibv_mtu mtu)
{
	out[0] = (char)('0' + (int)mtu);
	out[1] = '\0';
}

int rt_pt_mtu_decode(const char in[RT_PT_MTU_LEN], enum ibv_mtu *mtu,
		     const char *who, struct rt_error *err)
{
	if (in[0] < '0' + IBV_MTU_256 || in[0] > '0' + IBV_MTU_4096 || in[1] != '\0')
		return rt_fail(err, RT_EXIT_FAIL, "%s: MTU message is not a digit 1..5 "
			       "and a NUL", who);
	*mtu = (enum ibv_mtu)(in[0] - '0');
	return 0;
}

/* ---- the binary record of -R -------------------------------------------------- */

void rt_pt_key_bin_encode(uint8_t out[RT_PT_KEY_BIN_LEN], const struct rt_pt_key *k)
{
	memset(out, 0, RT_PT_KEY_BIN_LEN);
	rt_put_be32(out, k->lid);
	rt_put_be32(out + 4, k->out_reads);
	rt_put_be32(out + 8, k->qpn);
	rt_put_be32(out + 12, k->psn);
	rt_put_be32(out + 16, k->rkey);
	rt_put_be64(out + 24, k->vaddr);
	memcpy(out + 32, k->gid.raw, sizeof(k->gid.raw));
	rt_put_be32(out + 48, k->srqn);
}

int rt_pt_key_bin_decode(const uint8_t in[RT_PT_KEY_BIN_LEN], struct rt_pt_key *k,
			 const char *who, struct rt_error *err)
{
	uint32_t lid = rt_get_be32(in), outs = rt_get_be32(in + 4);
	uint32_t qpn = rt_get_be32(in + 8), psn = rt_get_be32(in + 12);

	if (lid > 0xffff || outs > 0xffff || qpn > 0xffffff || psn > 0xffffff)
		return rt_fail(err, RT_EXIT_FAIL, "%s: key record out of range (LID "
			       "%#x, outstanding reads %#x, QPN %#x, PSN %#x)", who,
			       lid, outs, qpn, psn);
	*k = (struct rt_pt_key){ .lid = (uint16_t)lid, .out_reads = (uint16_t)outs,
				 .qpn = qpn, .psn = psn, .rkey = rt_get_be32(in + 16),
				 .vaddr = rt_get_be64(in + 24) };
	memcpy(k->gid.raw, in + 32, sizeof(k->gid.raw));
	return 0;
}

/* ---- exchanges ------------------------------------------------------------- */

const char *rt_pt_peer(const struct rt_pt_chan *ch)
{
	return ch->cm ? rt_cmchan_peer(ch->cm) : ch->tcp.peer_name;
}

int rt_pt_chan_write(struct rt_pt_chan *ch, const void *buf, size_t len,
		     struct rt_error *err)
{
	return ch->cm ? rt_cmchan_send(ch->cm, buf, len) :
	       rt_oob_write(&ch->tcp, buf, len, err);
}

int rt_pt_chan_read(struct rt_pt_chan *ch, void *buf, size_t len,
		    struct rt_error *err)
{
	return ch->cm ? rt_cmchan_recv(ch->cm, buf, len) :
	       rt_oob_read(&ch->tcp, buf, len, err);
}


int rt_pt_xchg(struct rt_pt_chan *o, bool client, const void *mine, void *theirs,
	       size_t len, struct rt_error *err)
{
	if (client)
		return rt_pt_chan_write(o, mine, len, err) ||
		       rt_pt_chan_read(o, theirs, len, err) ? -1 : 0;
	return rt_pt_chan_read(o, theirs, len, err) ||
	       rt_pt_chan_write(o, mine, len, err) ? -1 : 0;
}

/* A big-endian int of the system data; 1..RT_PT_SYS_MAX. */
static int xchg_sys(struct rt_pt_chan *o, bool client, const char *name,
		    uint32_t *v, struct rt_error *err)
{
	uint8_t mine[RT_PT_INT_LEN], theirs[RT_PT_INT_LEN];
	uint32_t peer;

	rt_put_be32(mine, *v);
	if (rt_pt_xchg(o, client, mine, theirs, sizeof(mine), err))
		return -1;
	peer = rt_get_be32(theirs);
	if (peer == 0 || peer > RT_PT_SYS_MAX)
		return rt_fail(err, RT_EXIT_FAIL, "%s: %s of %u bytes is out of range "
			       "(1..%d)", rt_pt_peer(o), name, peer, RT_PT_SYS_MAX);
	*v = RT_MAX(*v, peer);
	return 0;
}

int rt_pt_handshake(struct rt_pt_chan *o, bool client, struct rt_pt_sys *s,
		    struct rt_error *err)
{
	char mine[RT_PT_VERSION_LEN], theirs[RT_PT_VERSION_LEN];
	char mtu[RT_PT_MTU_LEN], peer_mtu[RT_PT_MTU_LEN];
	enum ibv_mtu m = IBV_MTU_256;

	rt_error_phase(err, "exchange");
	rt_pt_version_encode(mine);
	if (rt_pt_xchg(o, client, mine, theirs, sizeof(mine), err) ||
	    rt_pt_version_decode(theirs, &s->peer_version, rt_pt_peer(o), err) ||
	    xchg_sys(o, client, "page size (cycle buffer)", &s->cycle_buffer, err) ||
	    xchg_sys(o, client, "cache line", &s->cache_line, err))
		return -1;
	rt_pt_mtu_encode(mtu, s->mtu);
	if (rt_pt_xchg(o, client, mtu, peer_mtu, sizeof(mtu), err) ||
	    rt_pt_mtu_decode(peer_mtu, &m, rt_pt_peer(o), err))
		return -1;
	s->mtu = RT_MIN(s->mtu, m);
	return 0;
}

int rt_pt_keys(struct rt_pt_chan *o, bool client, bool gid,
	       const struct rt_pt_key *mine, struct rt_pt_key *theirs,
	       struct rt_error *err)
{
	char out[RT_PT_KEY_GID_LEN], in[RT_PT_KEY_GID_LEN];
	size_t len = rt_pt_key_len(gid);

	if (o->cm) {
		uint8_t bout[RT_PT_KEY_BIN_LEN], bin[RT_PT_KEY_BIN_LEN];

		rt_pt_key_bin_encode(bout, mine);
		return rt_pt_xchg(o, client, bout, bin, sizeof(bin), err) ||
		       rt_pt_key_bin_decode(bin, theirs, rt_pt_peer(o), err) ? -1 : 0;
	}
	rt_pt_key_encode(out, gid, mine);
	if (rt_pt_xchg(o, client, out, in, len, err))
		return -1;
	return rt_pt_key_decode(in, len, gid, theirs, rt_pt_peer(o), err);
}

int rt_pt_keys_q(struct rt_pt_chan *o, bool client, bool gid,
		 const struct rt_pt_key *mine, struct rt_pt_key *theirs,
		 unsigned q, struct rt_error *err)
{
	for (unsigned i = 0; i < q; i++)
		if (rt_pt_keys(o, client, gid, &mine[i], &theirs[i], err))
			return -1;
	return 0;
}

int rt_pt_barrier(struct rt_pt_chan *o, bool client, bool gid,
		  const struct rt_pt_key *mine, const struct rt_pt_key *peer0,
		  const char *step, struct rt_error *err)
{
	struct rt_pt_key k = { 0 };

	if (rt_pt_keys(o, client, gid, mine, &k, err))
		return -1;
	if (k.qpn != peer0->qpn || k.psn != peer0->psn)
		return rt_fail(err, RT_EXIT_FAIL, "%s: at the %s step the peer sent QP "
			       "0x%06x's record, not its first QP's 0x%06x: it runs a "
			       "different test or -q", rt_pt_peer(o), step, k.qpn,
			       peer0->qpn);
	return 0;
}

/* ---- the BW report ----------------------------------------------------------- */

static int xchg_u64(struct rt_pt_chan *o, bool client, size_t len, uint64_t mine,
		    uint64_t *theirs, struct rt_error *err)
{
	uint8_t out[8], in[8];

	if (len == 8)
		rt_put_be64(out, mine);
	else
		rt_put_be32(out, (uint32_t)mine);
	if (rt_pt_xchg(o, client, out, in, len, err))
		return -1;
	*theirs = len == 8 ? rt_get_be64(in) : rt_get_be32(in);
	return 0;
}

static int xchg_double(struct rt_pt_chan *o, bool client, double mine,
		       double *theirs, struct rt_error *err)
{
	uint64_t bits, peer;

	memcpy(&bits, &mine, sizeof(bits));
	if (xchg_u64(o, client, 8, bits, &peer, err))
		return -1;
	memcpy(theirs, &peer, sizeof(*theirs));
	return 0;
}

int rt_pt_bw_report_xchg(struct rt_pt_chan *o, bool client, unsigned peer_version,
			 const struct rt_pt_bw_report *mine,
			 struct rt_pt_bw_report *theirs, struct rt_error *err)
{
	rt_error_phase(err, "report");
	return xchg_u64(o, client, 8, mine->size, &theirs->size, err) ||
	       xchg_u64(o, client, peer_version >= 533 ? 8 : 4, mine->iters,
			&theirs->iters, err) ||
	       xchg_double(o, client, mine->bw_peak, &theirs->bw_peak, err) ||
	       xchg_double(o, client, mine->bw_avg, &theirs->bw_avg, err) ||
	       xchg_double(o, client, mine->msg_rate, &theirs->msg_rate, err) ? -1 : 0;
}

static bool figure(double v)
{
	return isfinite(v) && v >= 0;
}

int rt_pt_bw_report_check(const struct rt_pt_bw_report *r, uint64_t size,
			  const char *who, struct rt_error *err)
{
	if (!figure(r->bw_peak) || !figure(r->bw_avg) || !figure(r->msg_rate))
		return rt_fail(err, RT_EXIT_FAIL, "%s: bandwidth report: peak, average "
			       "and message rate are not all finite figures >= 0", who);
	if (r->size != size)
		return rt_fail(err, RT_EXIT_FAIL, "%s: the peer ran messages of %llu "
			       "bytes, this side %llu (-s differs)", who,
			       (unsigned long long)r->size, (unsigned long long)size);
	return 0;
}

/* ---- the close ------------------------------------------------------------------ */

static const char done_msg[RT_PT_DONE_LEN] = "done";

/* perftest 4.5 writes "done\0" and closes without reading; newer perftest
 * just closes. The server closes after the peer's "done" (or its close);
 * the client also waits for the close, so one side of a pair of rdmatest
 * ends first and neither writes into a closed socket. */
int rt_pt_close(struct rt_pt_chan *o, bool client, bool gid,
		const struct rt_pt_key *mine, const struct rt_pt_key *peer0,
		struct rt_error *err)
{
	char in[RT_PT_DONE_LEN];
	size_t got;

	if (rt_pt_barrier(o, client, gid, mine, peer0, "close", err))
		return -1;
	if (o->cm)
		return 0; /* perftest's close over the CM is that barrier alone */
	rt_error_phase(err, "close");
	/* A peer that closed after the barrier makes this write fail: that is
	 * its close, and what it sent before is still read below. */
	(void)rt_oob_write(&o->tcp, done_msg, sizeof(done_msg), &(struct rt_error){ 0 });
	if (rt_oob_read_upto(&o->tcp, in, sizeof(in), &got, err))
		return -1;
	if (got && (got != sizeof(in) || memcmp(in, done_msg, sizeof(in))))
		return rt_fail(err, RT_EXIT_FAIL, "%s: sent %zu bytes that are not "
			       "\"done\" at the close", rt_pt_peer(o), got);
	if (client && got)
		return rt_oob_await_close(&o->tcp, err);
	return 0;
}
