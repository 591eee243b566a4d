/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Build-time generator of the man pages and the bash completion, from the
 * same applet registry and option tables the binary parses with, so help,
 * man page, completion and code cannot drift apart. It is not part of
 * rdmatest: the embedded binary pays nothing for it.
 *
 *   rt-docgen man OUTDIR   writes OUTDIR/rdmatest.1 and OUTDIR/<applet>.1
 *                          for each built applet
 *   rt-docgen completion   prints the bash completion script
 *
 * The output depends on nothing but the tables and the version (no date),
 * so the checked-in copies under docs/ can be compared byte for byte
 * (test/cli/docs.test). */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "rdmatest/applet.h"
#include "rdmatest/error.h"
#include "rdmatest/run.h"

/* ---- troff ---------------------------------------------------------------- */

/* Text for a troff line: backslashes and hyphens escaped, and a control
 * character at the start of a line neutralised. */
static void roff(FILE *f, const char *s)
{
	bool bol = true;

	for (; *s; s++) {
		if (bol && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		bol = false;
		switch (*s) {
		case '\\':
			fputs("\\e", f);
			break;
		case '-':
			fputs("\\-", f);
			break;
		case '\n':
			fputc('\n', f);
			bol = true;
			break;
		default:
			fputc(*s, f);
		}
	}
}

static void upper(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i]; i++)
		dst[i] = (char)toupper((unsigned char)src[i]);
	dst[i] = '\0';
}

static bool takes_arg(const struct rt_opt *o)
{
	return o->kind != RT_OPT_FLAG && o->kind != RT_OPT_COUNTER;
}

/* One option as a .TP paragraph: its letter as the parser sees it after
 * shadowing, long name, argument, help, choices, default and range. */
static void man_option(FILE *f, const struct rt_opt_table *tabs, size_t ntabs,
		       size_t t, size_t r)
{
	const struct rt_opt *o = &tabs[t].opts[r];
	char letter = rt_opt_effective_letter(tabs, ntabs, t, r);
	long long min, max;

	fputs(".TP\n", f);
	/* .BR: bold and roman alternate; .BI: bold and italic */
	if (letter)
		fprintf(f, ".BR \\-%c \", \" \"", letter);
	else
		fputs(takes_arg(o) ? ".BI \"" : ".B \"", f);
	fputs("\\-\\-", f);
	roff(f, o->name);
	if (takes_arg(o)) {
		fputs(letter ? " \" \\fI" : " \" ", f);
		roff(f, o->arg ? o->arg : "ARG");
		if (letter)
			fputs("\\fR", f);
	} else {
		fputc('"', f);
	}
	fputc('\n', f);
	roff(f, o->help);
	fputs(o->help[strlen(o->help) - 1] == '.' ? "\n" : ".\n", f);
	if (o->choices) {
		fputs(o->kind == RT_OPT_ENUM ? "One of:\n"
		      : o->kind == RT_OPT_FLAGS ? "Any of, separated by commas, or their "
						  "first letters run together:\n"
		      : "Also accepted:\n", f);
		for (const struct rt_enum *c = o->choices; c && c->name; c++) {
			fputs(".RS\n.TP\n.B ", f);
			roff(f, c->name);
			fputc('\n', f);
			roff(f, c->help ? c->help : "");
			fputs("\n.RE\n", f);
		}
	}
	if (o->def) {
		fputs("Default: \\fB", f);
		roff(f, o->def);
		fputs("\\fR.\n", f);
	}
	if (o->kind == RT_OPT_OPERAND && o->max > 1) {
		fprintf(f, "Up to %lld words.\n", o->max);
	} else if (o->min || o->max) {
		rt_opt_range(o, &min, &max);
		if (o->kind == RT_OPT_SECONDS || o->kind == RT_OPT_DECIMAL)
			fprintf(f, "Range: %g to %g%s.\n", min / 1000.0,
				max / 1000.0, o->kind == RT_OPT_SECONDS ? " seconds" : "");
		else
			fprintf(f, "Range: %lld to %lld.\n", min, max);
	}
	if (o->kind == RT_OPT_COUNTER)
		fputs("May be repeated.\n", f);
	if (o->kind == RT_OPT_FLAGS)
		fputs("May be repeated: the sets add up.\n", f);
}

/* Every row of table t but those named in `hidden` (may be NULL). */
static void man_options(FILE *f, const struct rt_opt_table *tabs, size_t ntabs,
			size_t t, const char *const *hidden)
{
	for (size_t r = 0; r < rt_opt_count(tabs[t].opts); r++)
		if (!rt_opt_named(hidden, tabs[t].opts[r].name))
			man_option(f, tabs, ntabs, t, r);
}

/* troff for the first len bytes of s. */
static void roff_n(FILE *f, const char *s, size_t len)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "%.*s", (int)len, s);
	roff(f, buf);
}

/* One example: its sentence as a paragraph, its command lines unfilled. */
static void man_example(FILE *f, const char *entry, size_t len)
{
	size_t n = strcspn(entry, "\n");

	fputs(".PP\n", f);
	roff_n(f, entry, n < len ? n : len);
	fputs("\n", f);
	if (n + 1 >= len)
		return;
	fputs(".RS\n.nf\n", f);
	roff_n(f, entry + n + 1, len - n - 1);
	fputs("\n.fi\n.RE\n", f);
}

/* The applet's examples (applet.h): entries split at blank lines. */
static void man_examples(FILE *f, const char *ex)
{
	if (!ex)
		return;
	fputs(".SH EXAMPLES\n", f);
	while (*ex) {
		const char *end = strstr(ex, "\n\n");
		size_t len = end ? (size_t)(end - ex) : strlen(ex);

		man_example(f, ex, len);
		ex += len + (end ? 2 : 0);
	}
}

static void man_exit_status(FILE *f, bool multiplexer)
{
	static const struct {
		int code;
		const char *text;
	} codes[] = {
		{ RT_EXIT_OK, "the test ran and everything checked out" },
		{ RT_EXIT_FAIL, "the test failed: the peer misbehaved or went away, "
				"a CM error event, a failed work completion, a data mismatch" },
		{ RT_EXIT_USAGE, "a bad option or value; the message names the option" },
		{ RT_EXIT_ENV, "no RDMA device, the address is not on an RDMA device, "
			       "or a capability the test needs is missing" },
		{ RT_EXIT_TIMEOUT, "a bounded wait (\\-\\-timeout, \\-\\-accept\\-timeout) expired" },
		{ RT_EXIT_SIGINT, "SIGINT ended the run before its end; a run that goes on "
				  "until stopped (rping \\-C 0, rping \\-P) exits 0 instead "
				  "when all went well so far" },
		{ RT_EXIT_SIGTERM, "the same for SIGTERM" },
	};

	fputs(".SH EXIT STATUS\n", f);
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		fprintf(f, ".TP\n.B %d\n%s (%s).\n", codes[i].code, codes[i].text,
			rt_exit_name(codes[i].code));
	if (multiplexer)
		fprintf(f, ".TP\n.B %d\nno such applet in this build.\n",
			RT_EXIT_NO_APPLET);
	fputs("With \\-\\-json the verdict is also in the document's "
	      "outcome.verdict.\n", f);
}

/* The synopsis is "ARGS" or "ARGS\n       NAME ARGS2": one .B line each. */
static void man_synopsis(FILE *f, const struct rt_applet *a)
{
	const char *s = a->synopsis;
	size_t nlen = strlen(a->name);

	fputs(".SH SYNOPSIS\n", f);
	while (s) {
		const char *nl = strchr(s, '\n');
		char line[512];
		size_t len = nl ? (size_t)(nl - s) : strlen(s);

		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, s, len);
		line[len] = '\0';
		s = nl ? nl + 1 : NULL;
		char *p = line;
		while (*p == ' ')
			p++;
		if (!strncmp(p, a->name, nlen) && p[nlen] == ' ')
			p += nlen + 1;
		fprintf(f, ".B %s\n", a->name);
		roff(f, p);
		fputs("\n.br\n", f);
	}
	fprintf(f, ".B rdmatest %s\n", a->name);
	fputs("[\\fIOPTIONS\\fR]\n", f);
}

static void man_applet(FILE *f, const struct rt_applet *a)
{
	struct rt_opt common_rows[RT_OPT_MAX_ROWS + 1];
	struct rt_opt_table tabs[2];
	char up[64];

	rt_applet_tables(a, NULL, NULL, common_rows, tabs);

	upper(up, sizeof(up), a->name);
	fprintf(f, ".\\\" Generated by tools/rt-docgen from the option tables; "
		   "do not edit.\n");
	fprintf(f, ".TH %s 1 \"\" \"rdmatest %s\" \"User Commands\"\n", up, RT_VERSION);
	fprintf(f, ".SH NAME\n%s \\- ", a->name);
	roff(f, a->summary);
	fputs("\n", f);
	man_synopsis(f, a);
	fputs(".SH DESCRIPTION\n", f);
	if (a->description) {
		roff(f, a->description);
		fputs("\n.PP\n", f);
	}
	fprintf(f, "\\fB%s\\fR is an applet of \\fBrdmatest\\fR(1): a link named "
		   "%s to rdmatest, or \\fBrdmatest %s\\fR, runs it.\n",
		a->name, a->name, a->name);
	fputs(".SH OPTIONS\n", f);
	man_options(f, tabs, 2, 0, a->internal_opts);
	fputs(".SS Common options\nEvery applet takes these.\n", f);
	man_options(f, tabs, 2, 1, NULL);
	fputs(".TP\n.B \\-\\-help\nprint the options and exit.\n", f);
	fputs(".TP\n.B \\-\\-version\nprint the version and exit.\n", f);
	man_exit_status(f, false);
	man_examples(f, a->examples);
	fprintf(f, ".SH SEE ALSO\n\\fBrdmatest\\fR(1)\n");
}

static void man_rdmatest(FILE *f)
{
	fprintf(f, ".\\\" Generated by tools/rt-docgen from the applet registry; "
		   "do not edit.\n");
	fprintf(f, ".TH RDMATEST 1 \"\" \"rdmatest %s\" \"User Commands\"\n", RT_VERSION);
	fputs(".SH NAME\nrdmatest \\- one binary for RDMA fabric tests, "
	      "wire\\-compatible with rdmacm\\-utils, ibverbs\\-utils and "
	      "perftest\n", f);
	fputs(".SH SYNOPSIS\n.B rdmatest\n\\fIAPPLET\\fR [\\fIOPTIONS\\fR]\n.br\n"
	      ".I APPLET\n[\\fIOPTIONS\\fR]\n.br\n"
	      ".B rdmatest\n\\-\\-list | \\-\\-install [\\-s] \\fIDIR\\fR | "
	      "\\-\\-version | \\-\\-help\n", f);
	fputs(".SH DESCRIPTION\n"
	      "\\fBrdmatest\\fR is a multicall binary: the name it is run under "
	      "(a link named after an applet) or its first argument picks the applet. "
	      "Every wait on the network is bounded, a run always ends with a "
	      "verdict and a documented exit status, and \\-\\-json prints one "
	      "machine\\-readable document.\n", f);
	fputs(".SH APPLETS\n", f);
	if (!rt_applets[0])
		fputs("None in this build.\n", f);
	for (size_t i = 0; rt_applets[i]; i++) {
		fprintf(f, ".TP\n.BR %s (1)\n", rt_applets[i]->name);
		roff(f, rt_applets[i]->summary);
		fputs(".\n", f);
	}
	fputs(".SH COMMANDS\n"
	      ".TP\n.B \\-\\-list\nprint the applets of this build, one a line.\n"
	      ".TP\n.BI \"\\-\\-install \" DIR\n"
	      "make a hard link named after each applet in \\fIDIR\\fR; an existing "
	      "link is replaced, any other file is left alone.\n"
	      ".TP\n.BI \"\\-\\-install \\-s \" DIR\nthe same with symbolic links.\n"
	      ".TP\n.B \\-\\-version\nprint the version.\n"
	      ".TP\n.B \\-\\-help\nprint the applets and usage.\n", f);
	fputs(".SH COMMON OPTIONS\nEvery applet takes these, besides its own.\n", f);
	{
		struct rt_opt_table tabs[1] = { { rt_common_opts, NULL, { 0 }, NULL, false } };

		man_options(f, tabs, 1, 0, NULL);
	}
	man_exit_status(f, true);
	fputs(".SH FILES\n"
	      ".TP\n.I /usr/lib/rdmatest/bin\n"
	      "(\\fIPREFIX\\fR/lib/rdmatest/bin for a meson install under another "
	      "prefix) where an installed rdmatest keeps its applet names (links to "
	      "\\fBrdmatest\\fR), off \\fBPATH\\fR, so that upstream's tools of "
	      "the same names stay what \\fBrping\\fR or \\fBib_write_bw\\fR "
	      "runs. Put it first on \\fBPATH\\fR to make the names rdmatest's; "
	      "\\fBman\\fR(1) then shows the applets' pages too, which are in "
	      "\\fI../share/man\\fR beside it. A build configured with "
	      "\\-Dlinks=bindir puts the names beside \\fBrdmatest\\fR instead.\n", f);
	fputs(".SH SEE ALSO\n", f);
	for (size_t i = 0; rt_applets[i]; i++)
		fprintf(f, "\\fB%s\\fR(1)%s\n", rt_applets[i]->name,
			rt_applets[i + 1] ? "," : "");
}

/* ---- bash completion ---------------------------------------------------- */

/* Words of one table: "-x --long" for every option; those taking an
 * argument go to `args`, with their choices (or a completion class) in a
 * case arm. */
struct words {
	char all[4096], args[2048], cases[8192];
	size_t na, ng, nc;
};

#define ADD(buf, n, ...)                                                       \
	((n) += (size_t)snprintf((buf) + (n), sizeof(buf) > (n) ? sizeof(buf) - (n) : 0, \
				 __VA_ARGS__))

static void comp_table(struct words *w, const struct rt_opt_table *tabs,
		       size_t ntabs, size_t t, const char *const *hidden)
{
	for (size_t r = 0; r < rt_opt_count(tabs[t].opts); r++) {
		const struct rt_opt *o = &tabs[t].opts[r];
		char letter = rt_opt_effective_letter(tabs, ntabs, t, r);
		char pat[80];

		if (rt_opt_named(hidden, o->name))
			continue;
		if (letter)
			ADD(w->all, w->na, " -%c", letter);
		ADD(w->all, w->na, " --%s", o->name);
		if (!takes_arg(o))
			continue;
		if (letter)
			snprintf(pat, sizeof(pat), "-%c|--%s", letter, o->name);
		else
			snprintf(pat, sizeof(pat), "--%s", o->name);
		ADD(w->args, w->ng, "%s%s", w->ng ? "|" : "", pat);
		ADD(w->cases, w->nc, "\t\t%s)\n\t\t\t", pat);
		if (o->choices) {
			ADD(w->cases, w->nc, "COMPREPLY=($(compgen -W '");
			for (const struct rt_enum *c = o->choices; c->name; c++)
				ADD(w->cases, w->nc, "%s%s", c == o->choices ? "" : " ", c->name);
			ADD(w->cases, w->nc, "' -- \"$cur\"))");
		} else if (o->kind == RT_OPT_ADDR || o->kind == RT_OPT_OPERAND) {
			ADD(w->cases, w->nc, "COMPREPLY=($(compgen -A hostname -- \"$cur\"))");
		} else {
			ADD(w->cases, w->nc, "COMPREPLY=()");
		}
		ADD(w->cases, w->nc, "\n\t\t\treturn ;;\n");
	}
}

static int completion(FILE *f)
{
	fputs("# bash completion for rdmatest and its applets.\n"
	      "# Generated by tools/rt-docgen from the option tables; do not edit.\n"
	      "# shellcheck shell=bash disable=SC2207\n\n", f);
	for (size_t i = 0; rt_applets[i]; i++) {
		const struct rt_applet *a = rt_applets[i];
		struct rt_opt common_rows[RT_OPT_MAX_ROWS + 1];
		struct rt_opt_table tabs[2];
		struct words w = { 0 };
		char fn[64];

		rt_applet_tables(a, NULL, NULL, common_rows, tabs);
		comp_table(&w, tabs, 2, 0, a->internal_opts);
		comp_table(&w, tabs, 2, 1, NULL);
		if (w.na >= sizeof(w.all) || w.ng >= sizeof(w.args) ||
		    w.nc >= sizeof(w.cases)) {
			fprintf(stderr, "rt-docgen: %s: completion buffers too small\n", a->name);
			return -1;
		}
		snprintf(fn, sizeof(fn), "%s", a->name);
		for (char *p = fn; *p; p++)
			if (!isalnum((unsigned char)*p))
				*p = '_';
		fprintf(f, "_rdmatest_applet_%s()\n{\n\tlocal cur=$1 prev=$2\n", fn);
		if (w.ng)
			fprintf(f, "\tcase $prev in\n%s\tesac\n", w.cases);
		fprintf(f, "\tCOMPREPLY=($(compgen -W '%s --help --version' -- \"$cur\"))\n}\n\n",
			w.all + 1);
	}
	fputs("_rdmatest()\n{\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev= cmd=${COMP_WORDS[0]##*/} i=1\n"
	      "\t[ \"$COMP_CWORD\" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\tcase $cmd in\n\trdmatest*)\n"
	      "\t\tif [ \"$COMP_CWORD\" = 1 ]; then\n"
	      "\t\t\tCOMPREPLY=($(compgen -W '", f);
	for (size_t i = 0; rt_applets[i]; i++)
		fprintf(f, "%s ", rt_applets[i]->name);
	fputs("--list --install --version --help' -- \"$cur\"))\n"
	      "\t\t\treturn\n\t\tfi\n"
	      "\t\tcmd=${COMP_WORDS[1]} i=2\n"
	      "\t\tif [ \"$cmd\" = --install ]; then\n"
	      "\t\t\tif [ \"$COMP_CWORD\" = 2 ] && [ \"${cur:0:1}\" = - ]; then\n"
	      "\t\t\t\tCOMPREPLY=($(compgen -W '-s' -- \"$cur\"))\n"
	      "\t\t\telse\n\t\t\t\tCOMPREPLY=($(compgen -d -- \"$cur\"))\n\t\t\tfi\n"
	      "\t\t\treturn\n\t\tfi ;;\n"
	      /* an applet's name completes as rdmatest only where that name
	       * is rdmatest: upstream's tool of the same name (the package
	       * keeps its links off PATH) gets file names, as without us */
	      "\t*)\n\t\tlocal self\n"
	      "\t\tself=$(type -P \"${COMP_WORDS[0]}\") && self=$(readlink -f \"$self\")\n"
	      "\t\tif [ \"${self##*/}\" != rdmatest ]; then\n"
	      "\t\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	      "\t\t\treturn\n\t\tfi ;;\n\tesac\n"
	      "\tcase $cmd in\n", f);
	for (size_t i = 0; rt_applets[i]; i++) {
		char fn[64];

		snprintf(fn, sizeof(fn), "%s", rt_applets[i]->name);
		for (char *p = fn; *p; p++)
			if (!isalnum((unsigned char)*p))
				*p = '_';
		fprintf(f, "\t%s) _rdmatest_applet_%s \"$cur\" \"$prev\" ;;\n",
			rt_applets[i]->name, fn);
	}
	fputs("\t*) COMPREPLY=() ;;\n\tesac\n}\n\n"
	      "complete -F _rdmatest rdmatest", f);
	for (size_t i = 0; rt_applets[i]; i++)
		fprintf(f, " %s", rt_applets[i]->name);
	fputs("\n", f);
	return 0;
}

/* ---- main --------------------------------------------------------------------- */

static FILE *open_out(const char *dir, const char *name, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "rt-docgen: %s: %s\n", path, strerror(errno));
	return f;
}

static int close_out(FILE *f, const char *path)
{
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "rt-docgen: writing %s failed\n", path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char path[4096], name[128];
	FILE *f;
	int rc = 0;

	if (argc == 2 && !strcmp(argv[1], "completion"))
		return completion(stdout) || fflush(stdout) ? 1 : 0;
	if (argc != 3 || strcmp(argv[1], "man")) {
		fprintf(stderr, "usage: rt-docgen man OUTDIR | rt-docgen completion\n");
		return 2;
	}
	if (!(f = open_out(argv[2], "rdmatest.1", path, sizeof(path))))
		return 1;
	man_rdmatest(f);
	rc |= close_out(f, path);
	for (size_t i = 0; rt_applets[i]; i++) {
		snprintf(name, sizeof(name), "%s.1", rt_applets[i]->name);
		if (!(f = open_out(argv[2], name, path, sizeof(path))))
			return 1;
		man_applet(f, rt_applets[i]);
		rc |= close_out(f, path);
	}
	return rc ? 1 : 0;
}
