/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Prometheus text exposition format for node-exporter's textfile
 * collector (`--prom FILE`): gauge families with # HELP and # TYPE,
 * label values escaped (backslash, double quote, newline; bytes that are
 * not UTF-8 become '?'), metric and label names checked, no timestamps
 * (the collector refuses them). The text grows in memory up to
 * RT_PROM_MAX_BYTES and is written atomically: a temporary file in the
 * same directory, then rename(2), so a scrape never reads half a file. */
#ifndef RDMATEST_PROM_H
#define RDMATEST_PROM_H

#include <stdbool.h>
#include <stddef.h>

#include "rdmatest/error.h"

/* The most a file may hold; callers bound what they emit well below it
 * (doctor: a few KiB; mesh: docs/mesh.md), so reaching it is a bug. */
#define RT_PROM_MAX_BYTES (1u << 20)

struct rt_prom {
	char *buf;
	size_t len, cap;
	char family[96];  /* the current family: its samples follow it */
	char problem[160]; /* the first misuse or overflow, "" if none */
};

void rt_prom_init(struct rt_prom *p);
void rt_prom_free(struct rt_prom *p);

/* [a-zA-Z_:][a-zA-Z0-9_:]* and [a-zA-Z_][a-zA-Z0-9_]* (no "__" prefix). */
bool rt_prom_metric_name_ok(const char *name);
bool rt_prom_label_name_ok(const char *name);

/* Starts a gauge family: its # HELP and # TYPE lines. */
void rt_prom_gauge(struct rt_prom *p, const char *name, const char *help);
/* One sample of the current family. `labels`: name, value pairs ending
 * with NULL (NULL itself for none). */
void rt_prom_sample(struct rt_prom *p, const char *const *labels, double value);
/* A gauge family of one unlabelled sample. */
void rt_prom_gauge_value(struct rt_prom *p, const char *name, const char *help,
			 double value);

/* Writes the text to `path` atomically (mode 0644: the collector runs as
 * another user). Fails with exit 2 and "OPT PATH: cause" (OPT names the
 * option, e.g. "--prom"); the temporary file never stays behind. */
int rt_prom_write(const struct rt_prom *p, const char *opt, const char *path,
		  struct rt_error *err);

#endif
