/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Declarative option tables. An applet lists each option once; parsing,
 * range checks, defaults, help text, the JSON parameter record, man pages
 * and shell completion are all derived from that one table. Option
 * letters stay as upstream has them (they differ between the tools); what
 * is shared are the kinds and their validators. */
#ifndef RDMATEST_OPT_H
#define RDMATEST_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rdmatest/error.h"
#include "rdmatest/json.h"

enum rt_opt_kind {
	RT_OPT_FLAG,    /* int: set to 1 */
	RT_OPT_COUNTER, /* int: +1 each time (-vv) */
	RT_OPT_INT,     /* long long: decimal, 0x hex or 0 octal */
	RT_OPT_SIZE,    /* long long: bytes, k/m/g suffix (binary units) */
	RT_OPT_PORT,    /* long long: 1..65535 unless the row narrows it */
	RT_OPT_SECONDS, /* long long milliseconds, given as seconds ("2.5") */
	RT_OPT_DECIMAL, /* long long thousandths, given as a decimal ("0.93"):
			 * fractional thresholds without floating point in
			 * the config, the row's min/max in thousandths too */
	RT_OPT_STRING,  /* const char * */
	RT_OPT_ADDR,    /* const char *: host name or address, resolved later */
	RT_OPT_ENUM,    /* int: one of `choices` (name, or its number) */
	RT_OPT_FLAGS,   /* int: a set of `choices` (their values OR'd), see below */
	RT_OPT_OPERAND, /* const char *: the one non-option word, as upstream's
			 * "ibv_rc_pingpong HOST" (also --name WORD); a second
			 * word is a usage error. With max N > 1 the row takes
			 * up to N words into an array of N const char * (its
			 * first element's offset): "mesh report FILE...". A
			 * row with a letter is also upstream's flag of that
			 * name (perftest's hidden -Z/--server): the letter,
			 * and the long name with no word or an option after
			 * it, set nothing; the operand still comes apart */
};

/* A flag set's value is choice names separated by commas ("socket,verify")
 * or the names' first letters run together ("sv"). A name also matches a
 * longer word that starts with it ("blocking" is "block"), as upstream
 * rstream reads -T. Every occurrence adds to the set; the first one
 * replaces the row's default. First letters must differ within a row. */

struct rt_enum {
	const char *name;
	int value;
	const char *help;
};

struct rt_opt {
	char letter;      /* 0: long option only */
	const char *name; /* long name, required */
	enum rt_opt_kind kind;
	size_t offset;    /* of the destination in the config struct */
	long long min, max; /* numeric kinds; both 0: the kind's own range */
	const char *def;  /* default in command-line syntax; NULL: zero/NULL */
	const char *arg;  /* argument name for help */
	const char *help;
	const struct rt_enum *choices; /* ENUM, FLAGS; or extra words for numeric kinds */
};

/* Field offsets that fail to compile when the field's type does not match
 * what the kind stores. */
#define RT_OPT_TYPED_(type, field, ctype)                                      \
	(offsetof(type, field) +                                               \
	 0 * sizeof(char[__builtin_types_compatible_p(                          \
			      __typeof__(((type *)0)->field), ctype) ? 1 : -1]))
#define RT_OFF_INT(type, field) RT_OPT_TYPED_(type, field, int)
#define RT_OFF_LL(type, field) RT_OPT_TYPED_(type, field, long long)
#define RT_OFF_STR(type, field) RT_OPT_TYPED_(type, field, const char *)

/* The same for the config struct a file names once, toybox's FOR_xxx
 * way: `#define RT_CFG struct rping_cfg`, then rows say RT_I(count). */
#define RT_I(field) RT_OFF_INT(RT_CFG, field)
#define RT_L(field) RT_OFF_LL(RT_CFG, field)
#define RT_S(field) RT_OFF_STR(RT_CFG, field)

/* An upstream option that rdmatest does not implement (letter, long name
 * or both). The parser refuses it by name, exit 2 "not supported by
 * rdmatest", instead of ignoring it or calling it unknown. A list ends
 * with a row of neither. A row's `why` says what the option needs. */
struct rt_opt_refused {
	char letter;
	const char *name;
	const char *why; /* NULL, or the reason, appended: "...: needs GPU memory" */
};

#define RT_OPT_MAX_ROWS 128 /* rows of one table (perftest's ib_send_bw has 66) */
#define RT_OPT_GIVEN_WORDS (RT_OPT_MAX_ROWS / 64)

/* One table and the struct it writes into. `given` records which rows the
 * command line set (bit i % 64 of word i / 64 = row i). */
struct rt_opt_table {
	const struct rt_opt *opts; /* terminated by a row with name == NULL */
	void *base;
	uint64_t given[RT_OPT_GIVEN_WORDS];
	const struct rt_opt_refused *refused; /* NULL: none */
	/* Its long names (rows and refusals) may be abbreviated to a unique
	 * prefix, as getopt_long allows: set for applets whose upstream
	 * parses with getopt_long, so that "--bidir" works there as it does
	 * with perftest. An exact name always wins; a prefix of two
	 * different options is a usage error listing them. */
	bool prefixes;
};

/* Whether the command line set row i of t. */
static inline bool rt_opt_row_given(const struct rt_opt_table *t, size_t i)
{
	return t->given[i / 64] >> (i % 64) & 1;
}

/* Applies every default, then parses argv[1..]. When two tables use the
 * same letter, the earlier table owns it (the later one keeps its long
 * name). Errors are usage errors naming the option. */
int rt_opt_parse(struct rt_opt_table *tabs, size_t ntabs, int argc,
		 char **argv, struct rt_error *err);
int rt_opt_apply_defaults(struct rt_opt_table *tabs, size_t ntabs,
			  struct rt_error *err);

/* Parses one value of a kind, as the command line would. */
int rt_opt_parse_value(const struct rt_opt *o, const char *text, void *base,
		       struct rt_error *err);
int rt_parse_ll(const char *text, enum rt_opt_kind kind, long long *out);

bool rt_opt_was_given(const struct rt_opt_table *t, const char *name);
size_t rt_opt_count(const struct rt_opt *opts);
/* The letter a row answers to after shadowing, or 0. */
char rt_opt_effective_letter(const struct rt_opt_table *tabs, size_t ntabs,
			     size_t table, size_t row);
/* The kind's range when the row leaves it open. */
void rt_opt_range(const struct rt_opt *o, long long *min, long long *max);

/* Lists the rows, their help wrapped to fit 80 columns. */
void rt_opt_help(FILE *f, const struct rt_opt_table *tabs, size_t ntabs);
/* The same without the rows named in `hidden` (NULL-terminated, may be
 * NULL): options one rdmatest process passes another, still parsed. */
void rt_opt_help_except(FILE *f, const struct rt_opt_table *tabs, size_t ntabs,
			const char *const *hidden);
/* True when `name` is one of `names` (NULL-terminated, may be NULL). */
bool rt_opt_named(const char *const *names, const char *name);
/* Writes text from column `col` on, breaking lines between words before
 * column `width` and starting each new line with `indent` spaces; ends
 * with a newline. A word longer than a line stays whole. */
void rt_text_wrap(FILE *f, const char *text, size_t col, size_t indent, size_t width);
/* Copies the rows of `src` but those named in `drop` (NULL-terminated,
 * may be NULL) into dst, which has room for RT_OPT_MAX_ROWS rows and the
 * terminating one; returns dst. */
const struct rt_opt *rt_opt_without(struct rt_opt *dst, const struct rt_opt *src,
				    const char *const *drop);
/* The effective values as JSON members of the current object; an option
 * named in `secret` (NULL-terminated, may be NULL) is "(given)" or null,
 * never its value. */
void rt_opt_to_json(struct rt_json *j, const struct rt_opt_table *tabs,
		    size_t ntabs, const char *const *secret);

/* Checks one table for the mistakes a unit test must catch: missing
 * names or help, duplicate letters or names, defaults that do not parse
 * or lie outside the range. Returns 0, or -1 with the reason in err. */
int rt_opt_table_check(const struct rt_opt *opts, struct rt_error *err);

#endif
