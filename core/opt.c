/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rdmatest/opt.h"
#include "rdmatest/util.h"

static bool takes_arg(const struct rt_opt *o)
{
	return o->kind != RT_OPT_FLAG && o->kind != RT_OPT_COUNTER;
}

size_t rt_opt_count(const struct rt_opt *opts)
{
	size_t n = 0;

	while (opts && opts[n].name)
		n++;
	return n;
}

bool rt_opt_named(const char *const *names, const char *name)
{
	for (; names && *names; names++)
		if (!strcmp(*names, name))
			return true;
	return false;
}

const struct rt_opt *rt_opt_without(struct rt_opt *dst, const struct rt_opt *src,
				    const char *const *drop)
{
	size_t n = 0;

	for (size_t i = 0; src && src[i].name && n < RT_OPT_MAX_ROWS; i++)
		if (!rt_opt_named(drop, src[i].name))
			dst[n++] = src[i];
	dst[n] = (struct rt_opt){ 0 };
	return dst;
}

void rt_opt_range(const struct rt_opt *o, long long *min, long long *max)
{
	*min = o->min;
	*max = o->max;
	if (o->min || o->max)
		return;
	switch (o->kind) {
	case RT_OPT_PORT:
		*min = 1, *max = 65535;
		break;
	case RT_OPT_SECONDS:
		*min = 0, *max = 86400000LL; /* a day, in ms */
		break;
	case RT_OPT_DECIMAL:
		*min = 0, *max = 1000000000000000LL; /* what parse_milli takes */
		break;
	case RT_OPT_SIZE:
		*min = 0, *max = 1LL << 40;
		break;
	default:
		*min = 0, *max = INT_MAX;
	}
}

static int size_shift(char c)
{
	switch (c) {
	case 'k': case 'K':
		return 10;
	case 'm': case 'M':
		return 20;
	case 'g': case 'G':
		return 30;
	}
	return -1;
}

/* A non-negative decimal (seconds, thresholds) in thousandths. */
static int parse_milli(const char *text, long long *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (end == text || *end || errno || !isfinite(v) || v < 0 || v > 1e12)
		return -1;
	*out = llround(v * 1000.0);
	return 0;
}

/* Decimal, or hex with 0x; never octal (atoi-minded users type "010"). */
int rt_parse_ll(const char *text, enum rt_opt_kind kind, long long *out)
{
	const char *digits = text + (*text == '-' || *text == '+');
	int base = (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) ? 16 : 10;
	char *end;
	long long v;
	int shift = 0;

	/* strtoll and strtod skip leading white space; a number has none */
	if (isspace((unsigned char)*text) || isspace((unsigned char)*digits))
		return -1;
	if (kind == RT_OPT_SECONDS || kind == RT_OPT_DECIMAL)
		return parse_milli(text, out);
	if (!*digits || *digits == '-' || *digits == '+')
		return -1;
	errno = 0;
	v = strtoll(text, &end, base);
	if (end == text || errno)
		return -1;
	if (kind == RT_OPT_SIZE && *end && !end[1] && size_shift(*end) > 0)
		shift = size_shift(*end++);
	if (*end)
		return -1;
	if (shift) {
		if (v > (LLONG_MAX >> shift) || v < (LLONG_MIN >> shift))
			return -1;
		v *= 1LL << shift;
	}
	*out = v;
	return 0;
}

static const char *kind_word(enum rt_opt_kind k)
{
	switch (k) {
	case RT_OPT_SIZE:
		return "a size (bytes, k/m/g suffix)";
	case RT_OPT_PORT:
		return "a port number";
	case RT_OPT_SECONDS:
		return "a number of seconds";
	case RT_OPT_DECIMAL:
		return "a decimal number";
	default:
		return "a number";
	}
}

static void choices_text(const struct rt_enum *c, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (; c && c->name && n < len; c++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
				      c->name);
}

static const struct rt_enum *find_choice(const struct rt_enum *c,
					 const char *text)
{
	for (; c && c->name; c++)
		if (!strcasecmp(c->name, text))
			return c;
	return NULL;
}

static int parse_enum(const struct rt_opt *o, const char *text, int *out,
		      struct rt_error *err)
{
	const struct rt_enum *c = find_choice(o->choices, text);
	char names[200];
	long long v;

	if (!c && !rt_parse_ll(text, RT_OPT_INT, &v))
		for (c = o->choices; c && c->name && c->value != v; c++)
			;
	if (c && c->name) {
		*out = c->value;
		return 0;
	}
	choices_text(o->choices, names, sizeof(names));
	return rt_fail(err, RT_EXIT_USAGE, "--%s: invalid value '%s' (one of: %s)",
		       o->name, text, names);
}

/* The choice a word names: its exact name, else the longest name the
 * word starts with (upstream rstream reads "blocking" as "block"). */
static const struct rt_enum *flag_word(const struct rt_enum *c, const char *t,
				       size_t len)
{
	const struct rt_enum *best = NULL;

	for (; c && c->name; c++) {
		size_t n = strlen(c->name);

		if (n > len || strncasecmp(c->name, t, n))
			continue;
		if (n == len)
			return c;
		if (!best || n > strlen(best->name))
			best = c;
	}
	return best;
}

static const struct rt_enum *flag_letter(const struct rt_enum *c, char l)
{
	for (; c && c->name; c++)
		if (c->name[0] == l)
			return c;
	return NULL;
}

/* One comma-separated token: a word, or a run of first letters. */
static bool flag_token(const struct rt_opt *o, const char *t, size_t len,
		       int *bits)
{
	const struct rt_enum *c = len ? flag_word(o->choices, t, len) : NULL;
	int add = 0;

	if (c) {
		*bits |= c->value;
		return true;
	}
	for (size_t i = 0; i < len; i++) {
		if (!(c = flag_letter(o->choices, t[i])))
			return false;
		add |= c->value;
	}
	*bits |= add;
	return len > 0;
}

static int parse_flags(const struct rt_opt *o, const char *text, int *bits,
		       struct rt_error *err)
{
	const char *p = text;
	char names[200];

	*bits = 0;
	do {
		size_t len = strcspn(p, ",");

		if (!flag_token(o, p, len, bits)) {
			choices_text(o->choices, names, sizeof(names));
			return rt_fail(err, RT_EXIT_USAGE, "--%s: invalid value '%.*s' "
				       "(any of: %s; or their first letters)",
				       o->name, (int)len, p, names);
		}
		p += len;
	} while (*p++ == ',');
	return 0;
}

static int parse_number(const struct rt_opt *o, const char *text,
			long long *out, struct rt_error *err)
{
	const struct rt_enum *word = find_choice(o->choices, text);
	long long min, max;

	if (word) {
		*out = word->value;
		return 0;
	}
	if (rt_parse_ll(text, o->kind, out))
		return rt_fail(err, RT_EXIT_USAGE,
			       "--%s: invalid value '%s' (expected %s)", o->name,
			       text, kind_word(o->kind));
	rt_opt_range(o, &min, &max);
	if (*out < min || *out > max) {
		if (o->kind == RT_OPT_SECONDS || o->kind == RT_OPT_DECIMAL)
			return rt_fail(err, RT_EXIT_USAGE,
				       "--%s: %s is out of range (%g..%g%s)",
				       o->name, text, min / 1000.0, max / 1000.0,
				       o->kind == RT_OPT_SECONDS ? " seconds" : "");
		return rt_fail(err, RT_EXIT_USAGE,
			       "--%s: %s is out of range (%lld..%lld)", o->name,
			       text, min, max);
	}
	return 0;
}

int rt_opt_parse_value(const struct rt_opt *o, const char *text, void *base,
		       struct rt_error *err)
{
	char *dst = (char *)base + o->offset;
	long long ll = 0;
	int iv = 0;

	switch (o->kind) {
	case RT_OPT_FLAG:
		*(int *)dst = 1;
		return 0;
	case RT_OPT_COUNTER:
		(*(int *)dst)++;
		return 0;
	case RT_OPT_STRING:
	case RT_OPT_ADDR:
	case RT_OPT_OPERAND:
		if (o->kind != RT_OPT_STRING && !*text)
			return rt_fail(err, RT_EXIT_USAGE,
				       "--%s: empty address", o->name);
		*(const char **)dst = text;
		return 0;
	case RT_OPT_ENUM:
		if (parse_enum(o, text, &iv, err))
			return -1;
		*(int *)dst = iv;
		return 0;
	case RT_OPT_FLAGS:
		if (parse_flags(o, text, &iv, err))
			return -1;
		*(int *)dst |= iv;
		return 0;
	default:
		if (parse_number(o, text, &ll, err))
			return -1;
		*(long long *)dst = ll;
		return 0;
	}
}

int rt_opt_apply_defaults(struct rt_opt_table *tabs, size_t ntabs,
			  struct rt_error *err)
{
	for (size_t t = 0; t < ntabs; t++) {
		const struct rt_opt *o = tabs[t].opts;

		for (; o && o->name; o++) {
			if (o->kind == RT_OPT_FLAGS) /* parsing adds to the set */
				*(int *)((char *)tabs[t].base + o->offset) = 0;
			if (o->def && rt_opt_parse_value(o, o->def, tabs[t].base, err))
				return -1;
		}
		memset(tabs[t].given, 0, sizeof(tabs[t].given));
	}
	return 0;
}

char rt_opt_effective_letter(const struct rt_opt_table *tabs, size_t ntabs,
			     size_t table, size_t row)
{
	char c = tabs[table].opts[row].letter;

	(void)ntabs;
	for (size_t t = 0; c && t < table; t++)
		for (const struct rt_opt *o = tabs[t].opts; o && o->name; o++)
			if (o->letter == c)
				return 0; /* an earlier table owns this letter */
	return c;
}

struct hit {
	struct rt_opt_table *tab;
	const struct rt_opt *opt;
	const struct rt_opt_refused *refused; /* an upstream option refused */
};

static bool same_name(const char *a, const char *name, size_t len)
{
	return a && strlen(a) == len && !strncmp(a, name, len);
}

/* Each table's own rows, then the upstream options it refuses, so that
 * an applet's refusal wins over a later table's letter. */
static struct hit find_long(struct rt_opt_table *tabs, size_t ntabs,
			    const char *name, size_t len)
{
	for (size_t t = 0; t < ntabs; t++) {
		for (const struct rt_opt *o = tabs[t].opts; o && o->name; o++)
			if (same_name(o->name, name, len))
				return (struct hit){ &tabs[t], o, NULL };
		for (const struct rt_opt_refused *r = tabs[t].refused;
		     r && (r->name || r->letter); r++)
			if (same_name(r->name, name, len))
				return (struct hit){ &tabs[t], NULL, r };
	}
	return (struct hit){ NULL, NULL, NULL };
}

/* Long names that start with what was typed, in the order find_long
 * looks, from the tables that allow abbreviations. */
#define RT_OPT_MAX_PREFIX_HITS 16

struct prefix_hits {
	struct hit hit[RT_OPT_MAX_PREFIX_HITS];
	const char *name[RT_OPT_MAX_PREFIX_HITS];
	size_t n;
};

static void prefix_add(struct prefix_hits *p, struct hit h, const char *name)
{
	if (p->n < RT_OPT_MAX_PREFIX_HITS) {
		p->hit[p->n] = h;
		p->name[p->n++] = name;
	}
}

/* A name is a candidate only where typing it whole would reach the same
 * entry: a refusal or a common row that an applet's row of that name
 * shadows is no second option. */
static void prefix_add_reached(struct prefix_hits *p, struct rt_opt_table *tabs,
			       size_t ntabs, struct hit h, const char *name)
{
	struct hit whole = find_long(tabs, ntabs, name, strlen(name));

	if (whole.opt == h.opt && whole.refused == h.refused)
		prefix_add(p, h, name);
}

static void prefix_find(struct rt_opt_table *tabs, size_t ntabs, const char *name,
			size_t len, struct prefix_hits *p)
{
	p->n = 0;
	for (size_t t = 0; t < ntabs; t++) {
		if (!tabs[t].prefixes)
			continue;
		for (const struct rt_opt *o = tabs[t].opts; o && o->name; o++)
			if (!strncmp(o->name, name, len))
				prefix_add_reached(p, tabs, ntabs,
						   (struct hit){ &tabs[t], o, NULL }, o->name);
		for (const struct rt_opt_refused *r = tabs[t].refused;
		     r && (r->name || r->letter); r++)
			if (r->name && !strncmp(r->name, name, len))
				prefix_add_reached(p, tabs, ntabs,
						   (struct hit){ &tabs[t], NULL, r }, r->name);
	}
}

/* glibc's test: two long names are one option when they lead to the same
 * place (here: the same row, or refusals of the same letter), and only
 * names that differ from the first match make a prefix ambiguous. */
static bool same_option(struct hit a, struct hit b)
{
	if (a.opt || b.opt)
		return a.opt == b.opt;
	return a.refused == b.refused ||
	       (a.refused->letter && a.refused->letter == b.refused->letter);
}

static int ambiguous(const struct prefix_hits *p, const char *name, size_t len,
		     struct rt_error *err)
{
	char list[240];
	size_t n = 0;

	list[0] = '\0';
	for (size_t i = 0; i < p->n && n < sizeof(list); i++)
		if (!i || !same_option(p->hit[0], p->hit[i]))
			n += (size_t)snprintf(list + n, sizeof(list) - n, " '--%s'",
					      p->name[i]);
	return rt_fail(err, RT_EXIT_USAGE, "option '--%.*s' is ambiguous; "
		       "possibilities:%s", (int)len, name, list);
}

/* The option a long name means: its exact name, else (where the table
 * allows it) the one option whose names it starts. *h is empty when
 * none matches; -1 when several options do (the error says which). */
static int resolve_long(struct rt_opt_table *tabs, size_t ntabs, const char *name,
			size_t len, struct hit *h, struct rt_error *err)
{
	struct prefix_hits p;

	*h = find_long(tabs, ntabs, name, len);
	if (h->opt || h->refused || !len)
		return 0;
	prefix_find(tabs, ntabs, name, len, &p);
	for (size_t i = 1; i < p.n; i++)
		if (!same_option(p.hit[0], p.hit[i]))
			return ambiguous(&p, name, len, err);
	if (p.n)
		*h = p.hit[0];
	return 0;
}

static struct hit find_letter(struct rt_opt_table *tabs, size_t ntabs, char c)
{
	for (size_t t = 0; t < ntabs; t++) {
		for (const struct rt_opt *o = tabs[t].opts; o && o->name; o++)
			if (o->letter == c)
				return (struct hit){ &tabs[t], o, NULL };
		for (const struct rt_opt_refused *r = tabs[t].refused;
		     r && (r->name || r->letter); r++)
			if (r->letter == c)
				return (struct hit){ &tabs[t], NULL, r };
	}
	return (struct hit){ NULL, NULL, NULL };
}

static int refuse(const struct rt_opt_refused *r, struct rt_error *err)
{
	const char *sep = r->why ? ": " : "", *why = r->why ? r->why : "";

	if (r->letter && r->name)
		return rt_fail(err, RT_EXIT_USAGE, "option -%c (--%s) is not "
			       "supported by rdmatest%s%s", r->letter, r->name, sep, why);
	if (r->letter)
		return rt_fail(err, RT_EXIT_USAGE, "option -%c is not supported by "
			       "rdmatest%s%s", r->letter, sep, why);
	return rt_fail(err, RT_EXIT_USAGE, "option --%s is not supported by "
		       "rdmatest%s%s", r->name, sep, why);
}

static int take(struct hit h, const char *value, struct rt_error *err)
{
	size_t row = (size_t)(h.opt - h.tab->opts);

	/* a flag set's first occurrence replaces the default, later ones add */
	if (h.opt->kind == RT_OPT_FLAGS && !rt_opt_row_given(h.tab, row))
		*(int *)((char *)h.tab->base + h.opt->offset) = 0;
	h.tab->given[row / 64] |= 1ULL << (row % 64);
	return rt_opt_parse_value(h.opt, value, h.tab->base, err);
}

/* The next free slot of an operand row that takes several words, or
 * NULL when it is full. */
static const char **operand_slot(const struct rt_opt_table *t, const struct rt_opt *o)
{
	const char **slots = (const char **)(void *)((char *)t->base + o->offset);

	for (long long k = 0; k < o->max; k++)
		if (!slots[k])
			return &slots[k];
	return NULL;
}

/* A word that is no option goes to the first operand row not yet set
 * (or, for a row of several words, not yet full). */
static int take_operand(struct rt_opt_table *tabs, size_t ntabs,
			const char *word, struct rt_error *err)
{
	for (size_t t = 0; t < ntabs; t++)
		for (const struct rt_opt *o = tabs[t].opts; o && o->name; o++) {
			bool given = rt_opt_row_given(&tabs[t], (size_t)(o - tabs[t].opts));
			const char **slot;

			if (o->kind != RT_OPT_OPERAND)
				continue;
			if (!given)
				return take((struct hit){ &tabs[t], o, NULL }, word, err);
			if (o->max > 1 && (slot = operand_slot(&tabs[t], o))) {
				if (!*word)
					return rt_fail(err, RT_EXIT_USAGE, "--%s: empty address", o->name);
				*slot = word;
				return 0;
			}
		}
	return rt_fail(err, RT_EXIT_USAGE, "unexpected argument '%s'", word);
}

/* One "--name[=value]" argument; *i moves past a separate value. */
static int parse_long(struct rt_opt_table *tabs, size_t ntabs, int argc,
		      char **argv, int *i, struct rt_error *err)
{
	const char *name = argv[*i] + 2;
	const char *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	struct hit h;

	if (resolve_long(tabs, ntabs, name, len, &h, err))
		return -1;
	if (h.refused)
		return refuse(h.refused, err);
	if (!h.opt)
		return rt_fail(err, RT_EXIT_USAGE, "unknown option '--%.*s'",
			       (int)len, name);
	if (!takes_arg(h.opt)) {
		if (eq)
			return rt_fail(err, RT_EXIT_USAGE,
				       "option --%s takes no value", h.opt->name);
		return take(h, "", err);
	}
	if (eq)
		return take(h, eq + 1, err);
	/* an operand row's long form with no word after it, or an option
	 * there, is a flag that sets nothing (opt.h) */
	if (h.opt->kind == RT_OPT_OPERAND && h.opt->letter &&
	    (*i + 1 >= argc || argv[*i + 1][0] == '-'))
		return 0;
	if (*i + 1 >= argc)
		return rt_fail(err, RT_EXIT_USAGE, "option --%s needs a value (%s)",
			       h.opt->name, h.opt->arg ? h.opt->arg : "arg");
	return take(h, argv[++*i], err);
}

/* One "-abc" / "-S64" / "-S 64" cluster. */
static int parse_short(struct rt_opt_table *tabs, size_t ntabs, int argc,
		       char **argv, int *i, struct rt_error *err)
{
	const char *p = argv[*i] + 1;

	for (; *p; p++) {
		struct hit h = find_letter(tabs, ntabs, *p);

		if (h.refused)
			return refuse(h.refused, err);
		if (!h.opt)
			return rt_fail(err, RT_EXIT_USAGE, "unknown option '-%c'", *p);
		if (h.opt->kind == RT_OPT_OPERAND)
			continue; /* its letter is a flag that sets nothing (opt.h) */
		if (!takes_arg(h.opt)) {
			if (take(h, "", err))
				return -1;
			continue;
		}
		if (p[1])
			return take(h, p + 1, err);
		if (*i + 1 >= argc)
			return rt_fail(err, RT_EXIT_USAGE,
				       "option -%c needs a value (%s)", *p,
				       h.opt->arg ? h.opt->arg : "arg");
		return take(h, argv[++*i], err);
	}
	return 0;
}

int rt_opt_parse(struct rt_opt_table *tabs, size_t ntabs, int argc,
		 char **argv, struct rt_error *err)
{
	if (rt_opt_apply_defaults(tabs, ntabs, err))
		return -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int rc;

		if (!strcmp(a, "--")) {
			if (i + 1 < argc)
				return rt_fail(err, RT_EXIT_USAGE,
					       "unexpected argument '%s'", argv[i + 1]);
			break;
		}
		if (a[0] == '-' && a[1] == '-')
			rc = parse_long(tabs, ntabs, argc, argv, &i, err);
		else if (a[0] == '-' && a[1])
			rc = parse_short(tabs, ntabs, argc, argv, &i, err);
		else
			rc = take_operand(tabs, ntabs, a, err);
		if (rc)
			return -1;
	}
	return 0;
}

bool rt_opt_was_given(const struct rt_opt_table *t, const char *name)
{
	for (size_t i = 0; t->opts && t->opts[i].name; i++)
		if (!strcmp(t->opts[i].name, name))
			return rt_opt_row_given(t, i);
	return false;
}
