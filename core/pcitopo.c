/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A function's place in the PCIe tree is the real path of its sysfs
 * directory: SYSFS/devices/pci0000:00/0000:00:01.0/0000:01:00.0/...,
 * the host bridge first, then every bridge down to the function. */
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatest/pcitopo.h"
#include "rdmatest/util.h"

/* "dddd:bb:dd.f", lower-case hex, as the kernel names PCI functions. */
static bool is_bdf(const char *s)
{
	static const char form[] = "xxxx:xx:xx.x";

	if (strlen(s) != sizeof(form) - 1)
		return false;
	for (size_t i = 0; form[i]; i++) {
		bool hex = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f');

		if (form[i] == 'x' ? !hex : s[i] != form[i])
			return false;
	}
	return true;
}

/* Splits "pci0000:00/0000:00:01.0/.../0000:3b:00.0" into the function. */
static int split_path(char *rest, struct rt_pci_func *f)
{
	char *save = NULL, *part = strtok_r(rest, "/", &save);

	if (!part || strncmp(part, "pci", 3) != 0 || strlen(part) >= sizeof(f->root))
		return -1;
	rt_strlcpy(f->root, part, sizeof(f->root));
	f->depth = 0;
	while ((part = strtok_r(NULL, "/", &save))) {
		if (!is_bdf(part) || f->depth == RT_PCI_MAX_DEPTH)
			return -1;
		rt_strlcpy(f->path[f->depth++], part, RT_PCI_BDF_LEN);
	}
	return f->depth > 0 ? 0 : -1;
}

static unsigned read_hex(const char *dir, const char *attr)
{
	char path[PATH_MAX + 32], line[32];

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	return rt_read_line(path, line, sizeof(line)) ? (unsigned)strtoul(line, NULL, 16) : 0;
}

/* "16.0 GT/s PCIe", "2.5 GT/s", "Unknown" (0), "16" */
static double read_num(const char *dir, const char *attr)
{
	char path[PATH_MAX + 32], line[64];

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	return rt_read_line(path, line, sizeof(line)) ? strtod(line, NULL) : 0;
}

static void read_attrs(const char *dir, struct rt_pci_func *f)
{
	char path[PATH_MAX + 32], line[32], *end = line;
	long node;

	f->vendor = read_hex(dir, "vendor");
	f->class_code = read_hex(dir, "class");
	snprintf(path, sizeof(path), "%s/numa_node", dir);
	node = rt_read_line(path, line, sizeof(line)) ? strtol(line, &end, 10) : -1;
	/* the kernel writes -1 for "no node"; anything unparsable is as unknown */
	f->numa_node = node >= 0 && node < 4096 && end != line ? (int)node : -1;
	f->link.cur_gts = read_num(dir, "current_link_speed");
	f->link.max_gts = read_num(dir, "max_link_speed");
	f->link.cur_width = (int)read_num(dir, "current_link_width");
	f->link.max_width = (int)read_num(dir, "max_link_width");
}

int rt_pci_func_at(const char *sysfs, const char *rel, const char *name,
		   struct rt_pci_func *f, struct rt_error *err)
{
	char link[PATH_MAX], root[PATH_MAX], dir[PATH_MAX];
	size_t n;

	memset(f, 0, sizeof(*f));
	rt_strlcpy(f->name, name, sizeof(f->name));
	snprintf(link, sizeof(link), "%s/%s", sysfs, rel);
	if (!realpath(sysfs, root) || !realpath(link, dir))
		return rt_fail(err, RT_EXIT_ENV, "%s is not a PCI device (no %s)", name, link);
	n = strlen(root);
	if (strncmp(dir, root, n) != 0 || strncmp(dir + n, "/devices/", 9) != 0)
		return rt_fail(err, RT_EXIT_ENV, "%s is not a PCI device (%s)", name, dir);
	read_attrs(dir, f);
	if (split_path(dir + n + 9, f))
		return rt_fail(err, RT_EXIT_ENV, "%s is not a PCI device (%s is no PCI path)",
			       name, dir + n);
	return 0;
}

int rt_pci_rdma_func(const char *sysfs, const char *ibdev, struct rt_pci_func *f,
		     struct rt_error *err)
{
	char rel[320];

	snprintf(rel, sizeof(rel), "class/infiniband/%s/device", ibdev);
	return rt_pci_func_at(sysfs, rel, ibdev, f, err);
}

bool rt_pci_is_gpu(unsigned vendor, unsigned class_code)
{
	unsigned cls = class_code >> 8; /* base class and subclass */

	return (vendor == 0x10de || vendor == 0x1002) && (cls == 0x0300 || cls == 0x0302);
}

static int by_name(const void *x, const void *y)
{
	return rt_natural_cmp(((const struct rt_pci_func *)x)->name,
				  ((const struct rt_pci_func *)y)->name);
}

/* The names in SYSFS/rel, sorted, in g: glob, not readdir (nothing
 * shared between calls, as doctor's rt_diag_list). */
static int list_dir(const char *sysfs, const char *rel, glob_t *g)
{
	char pattern[PATH_MAX];

	snprintf(pattern, sizeof(pattern), "%s/%s/*", sysfs, rel);
	return glob(pattern, 0, NULL, g);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void scan_gpus(struct rt_pcitopo *t, const char *sysfs, const glob_t *g)
{
	struct rt_error ignored = { 0 };
	char rel[320];

	for (size_t i = 0; i < g->gl_pathc; i++) {
		const char *bdf = base_name(g->gl_pathv[i]);

		if (!is_bdf(bdf) || !rt_pci_is_gpu(read_hex(g->gl_pathv[i], "vendor"),
						   read_hex(g->gl_pathv[i], "class")))
			continue;
		if (t->n_gpu == RT_PCITOPO_MAX) {
			t->truncated = true;
			break;
		}
		snprintf(rel, sizeof(rel), "bus/pci/devices/%s", bdf);
		if (rt_pci_func_at(sysfs, rel, bdf, &t->gpu[t->n_gpu], &ignored) == 0)
			t->n_gpu++;
	}
	qsort(t->gpu, (size_t)t->n_gpu, sizeof(t->gpu[0]), by_name);
}

static void scan_rdma(struct rt_pcitopo *t, const char *sysfs)
{
	struct rt_error ignored = { 0 };
	glob_t g;

	/* none: no RDMA device, or no RDMA core loaded */
	if (list_dir(sysfs, "class/infiniband", &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			if (t->n_rdma == RT_PCITOPO_MAX) {
				t->truncated = true;
				break;
			}
			/* software devices (rxe, siw) have no PCI function: left out */
			if (rt_pci_rdma_func(sysfs, base_name(g.gl_pathv[i]), &t->rdma[t->n_rdma],
					     &ignored) == 0)
				t->n_rdma++;
		}
		globfree(&g);
	}
	qsort(t->rdma, (size_t)t->n_rdma, sizeof(t->rdma[0]), by_name);
}

int rt_pcitopo_scan(struct rt_pcitopo *t, const char *sysfs, struct rt_error *err)
{
	glob_t g;
	int rc;

	memset(t, 0, sizeof(*t));
	rc = list_dir(sysfs, "bus/pci/devices", &g);
	if (rc != 0)
		return rt_fail(err, RT_EXIT_ENV, "cannot read the PCI bus (%s/bus/pci/devices: %s)",
			       sysfs, rc == GLOB_NOMATCH ? "no devices" : "unreadable");
	scan_gpus(t, sysfs, &g);
	globfree(&g);
	scan_rdma(t, sysfs);
	return 0;
}

/* Switches on the route between two functions under one root port:
 * below the root port a path alternates upstream port (odd index) and
 * downstream port (even index), so a switch is counted by its upstream
 * port; the one where the route turns counts once. */
static int switches_between(const struct rt_pci_func *a, const struct rt_pci_func *b,
			    int common)
{
	int n = common > 1 ? 1 : 0;

	for (int i = common; i < a->depth - 1; i++)
		n += i % 2;
	for (int i = common; i < b->depth - 1; i++)
		n += i % 2;
	return n;
}

enum rt_pci_rel rt_pci_relation(const struct rt_pci_func *a, const struct rt_pci_func *b)
{
	int common = 0;

	if (strcmp(a->root, b->root) != 0)
		return a->numa_node == b->numa_node ? RT_PCI_NODE : RT_PCI_SYS;
	while (common < a->depth && common < b->depth &&
	       !strcmp(a->path[common], b->path[common]))
		common++;
	if (common == a->depth && common == b->depth)
		return RT_PCI_SELF;
	if (common == 0)
		return RT_PCI_PHB; /* different root ports of one host bridge */
	return switches_between(a, b, common) <= 1 ? RT_PCI_PIX : RT_PCI_PXB;
}

const char *rt_pci_rel_name(enum rt_pci_rel r)
{
	static const char *const names[] = { "X", "PIX", "PXB", "PHB", "NODE", "SYS" };

	return (unsigned)r < ARRAY_SIZE(names) ? names[r] : "?";
}

int rt_pcitopo_nearest_gpu(const struct rt_pcitopo *t, int rdma, enum rt_pci_rel *rel)
{
	int best = -1;
	enum rt_pci_rel best_rel = RT_PCI_SYS;

	if (rdma < 0 || rdma >= t->n_rdma)
		return -1;
	for (int i = 0; i < t->n_gpu; i++) {
		enum rt_pci_rel r = rt_pci_relation(&t->rdma[rdma], &t->gpu[i]);

		if (best < 0 || r < best_rel) {
			best = i;
			best_rel = r;
		}
	}
	if (best >= 0 && rel)
		*rel = best_rel;
	return best;
}

bool rt_pci_link_degraded(const struct rt_pci_link *l)
{
	return (l->max_gts > 0 && l->cur_gts > 0 && l->cur_gts < l->max_gts) ||
	       (l->max_width > 0 && l->cur_width > 0 && l->cur_width < l->max_width);
}
