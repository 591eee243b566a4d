/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* core/iommu.c on small fake trees: no IOMMU, each domain type, and the
 * kernel command line when the type is not there. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "rdmatest/iommu.h"

struct fixture {
	char root[64];
	char cmdline[PATH_MAX];
};

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void dir(const struct fixture *fx, const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", fx->root, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static int setup(void **state)
{
	static struct fixture fx;

	snprintf(fx.root, sizeof(fx.root), "/tmp/rt-iommu-XXXXXX");
	assert_non_null(mkdtemp(fx.root));
	snprintf(fx.cmdline, sizeof(fx.cmdline), "%s/cmdline", fx.root);
	put(fx.cmdline, "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet\n");
	dir(&fx, "class");
	dir(&fx, "class/iommu");
	dir(&fx, "kernel");
	dir(&fx, "kernel/iommu_groups");
	dir(&fx, "bus");
	dir(&fx, "bus/pci");
	dir(&fx, "bus/pci/devices");
	dir(&fx, "bus/pci/devices/0000:05:00.0");
	*state = &fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->root);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* An IOMMU with groups; the GPU's group of the given type ("" none). */
static void with_groups(const struct fixture *fx, const char *type)
{
	char p[PATH_MAX], link[PATH_MAX];

	dir(fx, "class/iommu/dmar0");
	dir(fx, "class/iommu/dmar1");
	dir(fx, "kernel/iommu_groups/0");
	dir(fx, "kernel/iommu_groups/17");
	snprintf(p, sizeof(p), "%s/kernel/iommu_groups/17", fx->root);
	snprintf(link, sizeof(link), "%s/bus/pci/devices/0000:05:00.0/iommu_group", fx->root);
	assert_int_equal(symlink(p, link), 0);
	if (*type) {
		snprintf(p, sizeof(p), "%s/kernel/iommu_groups/17/type", fx->root);
		put(p, type);
	}
}

static void off(void **state)
{
	struct fixture *fx = *state;
	struct rt_iommu m;

	rt_iommu_read(fx->root, fx->cmdline, "0000:05:00.0", &m);
	assert_int_equal(m.mode, RT_IOMMU_OFF);
	assert_int_equal(m.groups, 0);
	assert_string_equal(rt_iommu_mode_name(m.mode), "off");
}

static void identity(void **state)
{
	struct fixture *fx = *state;
	struct rt_iommu m;

	with_groups(fx, "identity\n");
	rt_iommu_read(fx->root, fx->cmdline, "0000:05:00.0", &m);
	assert_int_equal(m.mode, RT_IOMMU_PASSTHROUGH);
	assert_int_equal(m.units, 2);
	assert_int_equal(m.groups, 2);
	assert_string_equal(m.domain_type, "identity");
}

static void translated(void **state)
{
	struct fixture *fx = *state;
	struct rt_iommu m;

	with_groups(fx, "DMA-FQ\n");
	/* the group's own type wins over the command line */
	put(fx->cmdline, "ro iommu=pt\n");
	rt_iommu_read(fx->root, fx->cmdline, "0000:05:00.0", &m);
	assert_int_equal(m.mode, RT_IOMMU_TRANSLATED);
	assert_true(m.cmdline_pt);
}

static void cmdline(void **state)
{
	struct fixture *fx = *state;
	struct rt_iommu m;

	with_groups(fx, "");
	rt_iommu_read(fx->root, fx->cmdline, NULL, &m);
	assert_int_equal(m.mode, RT_IOMMU_UNKNOWN);
	put(fx->cmdline, "ro intel_iommu=on iommu=ptx\n"); /* not the word */
	rt_iommu_read(fx->root, fx->cmdline, "0000:05:00.0", &m);
	assert_int_equal(m.mode, RT_IOMMU_UNKNOWN);
	put(fx->cmdline, "ro intel_iommu=on iommu=pt\n");
	rt_iommu_read(fx->root, fx->cmdline, "0000:05:00.0", &m);
	assert_int_equal(m.mode, RT_IOMMU_PASSTHROUGH);
	assert_string_equal(m.domain_type, "");
	put(fx->cmdline, "iommu.passthrough=1 quiet\n");
	rt_iommu_read(fx->root, fx->cmdline, NULL, &m);
	assert_int_equal(m.mode, RT_IOMMU_PASSTHROUGH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(off, setup, teardown),
		cmocka_unit_test_setup_teardown(identity, setup, teardown),
		cmocka_unit_test_setup_teardown(translated, setup, teardown),
		cmocka_unit_test_setup_teardown(cmdline, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
