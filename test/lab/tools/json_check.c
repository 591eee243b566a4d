/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A strict JSON check for lab scenarios (the guest has no python or jq).
 * Reads a job's log on stdin and checks every line that starts a
 * rdmatest document ({"tool":"rdmatest"...) against RFC 8259. Test-only.
 *
 * usage: json-check < LOG
 * Exits 0 when there is exactly one such line and it is valid JSON. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct p {
	const char *s;
	int depth;
};

static bool value(struct p *p);

static void ws(struct p *p)
{
	while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')
		p->s++;
}

static bool lit(struct p *p, const char *w)
{
	size_t n = strlen(w);

	if (strncmp(p->s, w, n))
		return false;
	p->s += n;
	return true;
}

static bool string(struct p *p)
{
	if (*p->s++ != '"')
		return false;
	for (;;) {
		unsigned char c = (unsigned char)*p->s++;

		if (c == '"')
			return true;
		if (c < 0x20)
			return false; /* also the end of the text */
		if (c != '\\')
			continue;
		c = (unsigned char)*p->s++;
		if (c == 'u') {
			for (int i = 0; i < 4; i++)
				if (!isxdigit((unsigned char)*p->s++))
					return false;
		} else if (!strchr("\"\\/bfnrt", c) || !c) {
			return false;
		}
	}
}

static bool digits(struct p *p)
{
	if (!isdigit((unsigned char)*p->s))
		return false;
	while (isdigit((unsigned char)*p->s))
		p->s++;
	return true;
}

static bool number(struct p *p)
{
	if (*p->s == '-')
		p->s++;
	if (*p->s == '0')
		p->s++;
	else if (!digits(p))
		return false;
	if (*p->s == '.') {
		p->s++;
		if (!digits(p))
			return false;
	}
	if (*p->s == 'e' || *p->s == 'E') {
		p->s++;
		if (*p->s == '+' || *p->s == '-')
			p->s++;
		if (!digits(p))
			return false;
	}
	return true;
}

/* members of an object (obj) or elements of an array, after the opener */
static bool members(struct p *p, bool obj)
{
	char close = obj ? '}' : ']';

	ws(p);
	if (*p->s == close) {
		p->s++;
		return true;
	}
	for (;;) {
		ws(p);
		if (obj) {
			if (!string(p))
				return false;
			ws(p);
			if (*p->s++ != ':')
				return false;
		}
		if (!value(p))
			return false;
		ws(p);
		if (*p->s == close) {
			p->s++;
			return true;
		}
		if (*p->s++ != ',')
			return false;
	}
}

static bool value(struct p *p)
{
	bool ok;

	ws(p);
	switch (*p->s) {
	case '{':
	case '[':
		if (++p->depth > 64)
			return false;
		ok = members(p, *p->s++ == '{');
		p->depth--;
		return ok;
	case '"':
		return string(p);
	case 't':
		return lit(p, "true");
	case 'f':
		return lit(p, "false");
	case 'n':
		return lit(p, "null");
	default:
		return number(p);
	}
}

int main(void)
{
	static char line[1 << 20];
	int docs = 0, bad = 0;

	while (fgets(line, sizeof(line), stdin)) {
		struct p p = { line, 0 };

		if (strncmp(line, "{\"tool\":\"rdmatest\"", 18))
			continue;
		docs++;
		if (!value(&p) || (ws(&p), *p.s)) {
			bad++;
			printf("json-check: invalid at byte %ld: %.40s\n",
			       (long)(p.s - line), p.s);
		}
	}
	printf("json-check: %d document%s, %d invalid\n", docs, docs == 1 ? "" : "s", bad);
	return docs == 1 && !bad ? 0 : 1;
}
