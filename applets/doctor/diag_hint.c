/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's word in the other applets' error line (rt_diag_hint). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/diag.h"
#include "rdmatest/util.h"

static bool address_error(const struct rt_error *err)
{
	return !strcmp(err->phase, "resolve-addr") || !strcmp(err->phase, "resolve-route") ||
	       strstr(err->event, "ADDR_ERROR") || strstr(err->event, "ROUTE_ERROR") ||
	       strstr(err->reason, "no RDMA device owns") ||
	       strstr(err->reason, "no RDMA device has a route");
}

static bool says_any(const char *text, const char *const *words)
{
	for (; *words; words++)
		if (strstr(text, *words))
			return true;
	return false;
}

/* The checks whose FAIL can explain err, space-separated with a space at
 * each end (" ports gids "); NULL for an error no finding bears on: one
 * that names an option the user gave ("--hosts: ...", "-d nosuch: ..."),
 * one that carries a doctor finding already, a host list or launcher. */
static const char *bearing_checks(const struct rt_error *err)
{
	static const char *const memory[] = { "ibv_reg_mr", "memlock", NULL };
	static const char *const device[] = { "no RDMA device", "ibv_open_device",
		"rdma_create_event_channel", "cannot list RDMA devices", "not ACTIVE",
		"LID 0", NULL };
	static const char *const gid[] = { "GID", NULL };

	if (err->exit_code == RT_EXIT_USAGE || err->reason[0] == '-' ||
	    strstr(err->reason, " FAIL: ") || strstr(err->reason, "rdmatest doctor"))
		return NULL;
	if (address_error(err))
		return " modules devices devnodes ports ipmap gids route netns ";
	if (err->exit_code != RT_EXIT_ENV)
		return NULL;
	if (says_any(err->reason, memory))
		return " memlock ";
	if (says_any(err->reason, gid))
		return " gids ports ";
	if (says_any(err->reason, device))
		return " modules devices devnodes ports netns ";
	return NULL;
}

/* The first FAIL among `checks` (as bearing_checks gives them). */
static const struct rt_diag_line *first_fail_of(const struct rt_diag *d, const char *checks)
{
	char word[20];

	for (int i = 0; i < d->n; i++) {
		snprintf(word, sizeof(word), " %s ", d->lines[i].check);
		if (d->lines[i].level == RT_DIAG_FAIL && strstr(checks, word))
			return &d->lines[i];
	}
	return NULL;
}

/* The first IPv4 address in text ("192.0.2.2:7174", "to 192.0.2.2"),
 * the peer an address error names; false if there is none. */
static bool peer_in(const char *text, char *ip, size_t len)
{
	for (const char *p = text; *p; p++) {
		size_t n = strspn(p, "0123456789.");
		struct in_addr a;
		char word[16];

		if (n >= 7 && n < sizeof(word) && (p == text || !strchr("0123456789.", p[-1]))) {
			memcpy(word, p, n);
			word[n] = '\0';
			if (inet_pton(AF_INET, word, &a) == 1) {
				rt_strlcpy(ip, word, len);
				return true;
			}
		}
		p += n ? n - 1 : 0;
	}
	return false;
}

/* The finding that explains err: the first FAIL among the checks that
 * bear on it; for an address error without one, the route to the peer
 * it names when no RDMA port carries that route. NULL when doctor has
 * nothing to add. */
static const struct rt_diag_line *applies(const struct rt_diag_env *e, struct rt_diag *d,
					  const struct rt_error *err, const char *checks)
{
	const struct rt_diag_line *l = first_fail_of(d, checks);
	struct sockaddr_storage local;
	char ip[16];

	if (l || !address_error(err) || !peer_in(err->reason, ip, sizeof(ip)))
		return l;
	rt_diag_route(e, d, ip, &local);
	return first_fail_of(d, checks);
}

void rt_diag_hint(struct rt_error *err, const struct rt_diag_env *e)
{
	const char *checks = err->set ? bearing_checks(err) : NULL;
	const struct rt_diag_line *l;
	struct rt_diag *d;

	if (!checks)
		return;
	d = rt_xcalloc(1, sizeof(*d));
	rt_diag_local(e, d, false);
	l = applies(e, d, err, checks);
	if (l)
		snprintf(err->hint, sizeof(err->hint), "rdmatest doctor: %s FAIL: %.190s",
			 l->check, l->fix);
	free(d);
}

void rt_diag_failure_hint(const char *applet, struct rt_error *err)
{
	if (strcmp(applet, "doctor"))
		rt_diag_hint(err, &rt_diag_env_real);
}
