/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What is derived from option tables besides parsing: help text, the
 * JSON parameter record, and the table checks the unit tests run. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatest/opt.h"
#include "rdmatest/util.h"

static const char *enum_name(const struct rt_opt *o, int v)
{
	for (const struct rt_enum *c = o->choices; c && c->name; c++)
		if (c->value == v)
			return c->name;
	return NULL;
}

static void help_default(const struct rt_opt *o, char *buf, size_t len)
{
	char names[160] = "";
	size_t n = 0;

	buf[0] = '\0';
	if (o->kind == RT_OPT_ENUM || o->kind == RT_OPT_FLAGS)
		for (const struct rt_enum *c = o->choices; c && c->name; c++)
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s",
					      n ? (o->kind == RT_OPT_ENUM ? "|" : ",") : "",
					      c->name);
	if (o->kind == RT_OPT_FLAGS)
		snprintf(buf, len, " (any of %s%s%s; repeats add up)", names,
			 o->def ? "; default " : "", o->def ? o->def : "");
	else if (names[0] && o->def && !strcmp(names, o->def))
		snprintf(buf, len, " (only %s)", names);
	else if (names[0] && o->def)
		snprintf(buf, len, " (%s; default %s)", names, o->def);
	else if (names[0])
		snprintf(buf, len, " (%s)", names);
	else if (o->def)
		snprintf(buf, len, " (default %s)", o->def);
}

/* The width help is wrapped to, and the column option help starts in. */
#define HELP_WIDTH 79
#define HELP_COLUMN 31

void rt_text_wrap(FILE *f, const char *text, size_t col, size_t indent, size_t width)
{
	bool line_start = true;

	for (const char *p = text; *p;) {
		size_t n = strcspn(p, " \n");

		if (n && !line_start && col + 1 + n > width) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (n && !line_start) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, n, f);
		col += n;
		line_start &= !n;
		p += n;
		if (*p == '\n') { /* the text's own line break is kept */
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
			line_start = true;
		}
		if (*p)
			p++;
	}
	fputc('\n', f);
}

static void help_row(FILE *f, const struct rt_opt *o, char letter)
{
	bool arg = o->kind != RT_OPT_FLAG && o->kind != RT_OPT_COUNTER;
	char lhs[64], def[200], text[1024];
	int col;

	snprintf(lhs, sizeof(lhs), "%c%c%c --%s%s%s",
		 letter ? '-' : ' ', letter ? letter : ' ',
		 letter ? ',' : ' ', o->name, arg ? " " : "",
		 arg ? (o->arg ? o->arg : "ARG") : "");
	help_default(o, def, sizeof(def));
	snprintf(text, sizeof(text), "%s%s", o->help, def);
	col = fprintf(f, "  %-28s", lhs);
	if (col >= HELP_COLUMN) { /* a long option: its help on the next line */
		fprintf(f, "\n%*s", HELP_COLUMN, "");
		col = HELP_COLUMN;
	} else {
		col += fprintf(f, " ");
	}
	rt_text_wrap(f, text, (size_t)col, HELP_COLUMN, HELP_WIDTH);
}

void rt_opt_help_except(FILE *f, const struct rt_opt_table *tabs, size_t ntabs,
			const char *const *hidden)
{
	for (size_t t = 0; t < ntabs; t++)
		for (size_t r = 0; r < rt_opt_count(tabs[t].opts); r++)
			if (!rt_opt_named(hidden, tabs[t].opts[r].name))
				help_row(f, &tabs[t].opts[r],
					 rt_opt_effective_letter(tabs, ntabs, t, r));
}

void rt_opt_help(FILE *f, const struct rt_opt_table *tabs, size_t ntabs)
{
	rt_opt_help_except(f, tabs, ntabs, NULL);
}

/* The names whose bits are all in the set, in table order. */
static void flags_json(struct rt_json *j, const struct rt_opt *o, int bits)
{
	rt_json_array_begin(j);
	for (const struct rt_enum *c = o->choices; c && c->name; c++)
		if (c->value && (bits & c->value) == c->value)
			rt_json_string(j, c->name);
	rt_json_array_end(j);
}

static void value_json(struct rt_json *j, const struct rt_opt *o,
		       const void *base)
{
	const char *p = (const char *)base + o->offset;

	switch (o->kind) {
	case RT_OPT_FLAG:
		rt_json_bool(j, *(const int *)p != 0);
		break;
	case RT_OPT_COUNTER:
		rt_json_int(j, *(const int *)p);
		break;
	case RT_OPT_ENUM:
		rt_json_string(j, enum_name(o, *(const int *)p));
		break;
	case RT_OPT_FLAGS:
		flags_json(j, o, *(const int *)p);
		break;
	case RT_OPT_STRING:
	case RT_OPT_ADDR:
	case RT_OPT_OPERAND:
		rt_json_string(j, *(const char *const *)p);
		break;
	case RT_OPT_SECONDS:
	case RT_OPT_DECIMAL:
		rt_json_double(j, *(const long long *)p / 1000.0);
		break;
	default:
		rt_json_int(j, *(const long long *)p);
	}
}

/* An option with no default that the command line did not set has no
 * value: null says so, where 0 would claim one. */
static bool unset(const struct rt_opt_table *t, size_t row)
{
	const struct rt_opt *o = &t->opts[row];

	return !o->def && !rt_opt_row_given(t, row) &&
	       o->kind != RT_OPT_FLAG && o->kind != RT_OPT_COUNTER &&
	       o->kind != RT_OPT_FLAGS; /* an empty set is a value */
}

void rt_opt_to_json(struct rt_json *j, const struct rt_opt_table *tabs,
		    size_t ntabs, const char *const *secret)
{
	for (size_t t = 0; t < ntabs; t++)
		for (size_t r = 0; r < rt_opt_count(tabs[t].opts); r++) {
			const struct rt_opt *o = &tabs[t].opts[r];

			rt_json_key(j, o->name);
			if (unset(&tabs[t], r))
				rt_json_null(j);
			else if (t == 0 && rt_opt_named(secret, o->name))
				rt_json_string(j, "(given)");
			else
				value_json(j, o, tabs[t].base);
		}
}

/* A flag set needs choices with distinct first letters (the short form)
 * and a nonzero value each. */
static int check_flag_choices(const struct rt_opt *o, struct rt_error *err)
{
	if (!(o->choices && o->choices[0].name))
		return rt_fail(err, RT_EXIT_FAIL, "--%s: flag set without choices", o->name);
	for (const struct rt_enum *c = o->choices; c->name; c++) {
		if (!c->name[0] || c->value <= 0)
			return rt_fail(err, RT_EXIT_FAIL, "--%s: choice '%s' needs a "
				       "name and a positive value", o->name, c->name);
		for (const struct rt_enum *d = o->choices; d < c; d++)
			if (d->name[0] == c->name[0])
				return rt_fail(err, RT_EXIT_FAIL, "--%s: '%s' and '%s' "
					       "share the letter %c", o->name, d->name,
					       c->name, c->name[0]);
	}
	return 0;
}

/* True when TEXT holds WORD as a whole token: no letter, digit or '.'
 * right before or after it ("64" is in "(default 64)", not in "640"). */
static bool has_token(const char *text, const char *word)
{
	size_t n = strlen(word);

	if (!n)
		return false;
	for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
		bool before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '.');
		bool after = isalnum((unsigned char)p[n]) || p[n] == '.';

		if (!before && !after)
			return true;
	}
	return false;
}

/* True when some token of TEXT (a run of letters, digits and '.') reads
 * as the number V in KIND's syntax. */
static bool has_number(const char *text, enum rt_opt_kind kind, long long v)
{
	char tok[32];
	long long w;

	for (const char *p = text; *p;) {
		size_t n = 0;

		while (p[n] && (isalnum((unsigned char)p[n]) || p[n] == '.'))
			n++;
		if (n && n < sizeof(tok)) {
			memcpy(tok, p, n);
			tok[n] = '\0';
			if (!rt_parse_ll(tok, kind, &w) && w == v)
				return true;
		}
		p += n ? n : 1;
	}
	return false;
}

/* The help generator appends "(default X)"; a help string that also
 * speaks of the default and names its value says it twice. Any wording
 * counts ("default 64", "defaults to 64", "64 by default"), and numbers
 * in any spelling the parser takes ("512k" for 524288). */
static bool help_repeats_default(const struct rt_opt *o)
{
	long long v;

	if (!o->def || !strcasestr(o->help, "default"))
		return false;
	if (strstr(o->help, "(default") || strcasestr(o->help, "default:"))
		return true; /* "(default: none on IB)": a default besides the row's */
	if (has_token(o->help, o->def))
		return true;
	switch (o->kind) {
	case RT_OPT_INT:
	case RT_OPT_SIZE:
	case RT_OPT_PORT:
	case RT_OPT_SECONDS:
	case RT_OPT_DECIMAL:
		return !rt_parse_ll(o->def, o->kind, &v) && has_number(o->help, o->kind, v);
	default:
		return false;
	}
}

static int check_row(const struct rt_opt *opts, size_t i, void *scratch,
		     struct rt_error *err)
{
	const struct rt_opt *o = &opts[i];

	if (!o->name[0] || !o->help || !o->help[0])
		return rt_fail(err, RT_EXIT_FAIL, "option row %zu (%s): name and help are required",
			       i, o->name);
	if (o->letter && (o->letter == '-' || o->letter == '?' ||
			  !((o->letter >= 'a' && o->letter <= 'z') ||
			    (o->letter >= 'A' && o->letter <= 'Z') ||
			    (o->letter >= '0' && o->letter <= '9'))))
		return rt_fail(err, RT_EXIT_FAIL, "--%s: bad letter", o->name);
	if (o->kind == RT_OPT_ENUM && !(o->choices && o->choices[0].name))
		return rt_fail(err, RT_EXIT_FAIL, "--%s: enum without choices", o->name);
	if (o->kind == RT_OPT_FLAGS && check_flag_choices(o, err))
		return -1;
	for (size_t k = 0; k < i; k++) {
		if (o->letter && opts[k].letter == o->letter)
			return rt_fail(err, RT_EXIT_FAIL, "-%c used by --%s and --%s",
				       o->letter, opts[k].name, o->name);
		if (!strcmp(opts[k].name, o->name))
			return rt_fail(err, RT_EXIT_FAIL, "--%s declared twice", o->name);
	}
	if (help_repeats_default(o))
		return rt_fail(err, RT_EXIT_FAIL,
			       "--%s: the help names the default %s, which --help adds itself",
			       o->name, o->def);
	if (o->def && rt_opt_parse_value(o, o->def, scratch, err))
		return -1; /* the parser named the option and the reason */
	return 0;
}

int rt_opt_table_check(const struct rt_opt *opts, struct rt_error *err)
{
	size_t rows = rt_opt_count(opts), span = 0;
	void *scratch;
	int rc = 0;

	if (rows > RT_OPT_MAX_ROWS)
		return rt_fail(err, RT_EXIT_FAIL, "%zu options, more than %d", rows,
			       RT_OPT_MAX_ROWS);
	for (size_t i = 0; i < rows; i++)
		span = RT_MAX(span, opts[i].offset + sizeof(long long));
	scratch = rt_xcalloc(1, span);
	for (size_t i = 0; i < rows && !rc; i++)
		rc = check_row(opts, i, scratch, err);
	free(scratch);
	return rc;
}
