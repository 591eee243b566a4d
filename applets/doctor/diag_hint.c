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
	       strstr(err->reason, "no RDMA device owns");
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

/* The finding that applies to err: the first local FAIL; for an address
 * error without one, the route to the peer it names when no RDMA port
 * carries that route. NULL when doctor has nothing to add. */
static const struct rt_diag_line *applies(const struct rt_diag_env *e, struct rt_diag *d,
					  const struct rt_error *err)
{
	const struct rt_diag_line *l = rt_diag_first(d, RT_DIAG_FAIL);
	struct sockaddr_storage local;
	char ip[16];

	if (l || !address_error(err) || !peer_in(err->reason, ip, sizeof(ip)))
		return l;
	rt_diag_route(e, d, ip, &local);
	return rt_diag_first(d, RT_DIAG_FAIL);
}

void rt_diag_hint(struct rt_error *err, const struct rt_diag_env *e)
{
	const struct rt_diag_line *l;
	struct rt_diag *d;

	if (!err->set || (err->exit_code != RT_EXIT_ENV && !address_error(err)))
		return;
	d = rt_xcalloc(1, sizeof(*d));
	rt_diag_local(e, d, false);
	l = applies(e, d, err);
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
