/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <glob.h>
#include <stdio.h>
#include <string.h>

#include "rdmatest/iommu.h"
#include "rdmatest/util.h"

/* glob, not readdir: nothing shared between calls (as doctor's
 * rt_diag_list); dot entries are not matched. */
static int count_entries(const char *dir)
{
	char pattern[520]; /* dir (rt_iommu_read: at most 512) and a slash and star */
	glob_t g;
	int n = 0;

	snprintf(pattern, sizeof(pattern), "%s/*", dir);
	if (glob(pattern, 0, NULL, &g) == 0) {
		n = g.gl_pathc < RT_IOMMU_COUNT_MAX ? (int)g.gl_pathc : RT_IOMMU_COUNT_MAX;
		globfree(&g);
	}
	return n;
}

/* A whole word of the command line, not a prefix of a longer one. */
static bool has_word(const char *line, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strstr(line, word); p; p = strstr(p + 1, word))
		if ((p == line || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

void rt_iommu_read(const char *sysfs, const char *cmdline, const char *bdf,
		   struct rt_iommu *out)
{
	char path[512], line[4096];

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "%s/class/iommu", sysfs);
	out->units = count_entries(path);
	snprintf(path, sizeof(path), "%s/kernel/iommu_groups", sysfs);
	out->groups = count_entries(path);
	if (rt_read_line(cmdline, line, sizeof(line)))
		out->cmdline_pt = has_word(line, "iommu=pt") || has_word(line, "iommu.passthrough=1");
	if (bdf) {
		snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/iommu_group/type", sysfs, bdf);
		if (!rt_read_line(path, out->domain_type, sizeof(out->domain_type)))
			out->domain_type[0] = '\0';
	}
	if (out->groups == 0)
		out->mode = RT_IOMMU_OFF;
	else if (!strcmp(out->domain_type, "identity"))
		out->mode = RT_IOMMU_PASSTHROUGH;
	else if (!strncmp(out->domain_type, "DMA", 3))
		out->mode = RT_IOMMU_TRANSLATED;
	else
		out->mode = out->cmdline_pt ? RT_IOMMU_PASSTHROUGH : RT_IOMMU_UNKNOWN;
}

const char *rt_iommu_mode_name(enum rt_iommu_mode m)
{
	static const char *const names[] = { "off", "passthrough", "translated", "unknown" };

	return (unsigned)m < ARRAY_SIZE(names) ? names[m] : "unknown";
}
