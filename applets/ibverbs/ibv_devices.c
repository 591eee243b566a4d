/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ibv_devices: the RDMA devices and their node GUIDs, as rdma-core's
 * ibv_devices prints them (a two-line header, then one line per device;
 * the header also when there is none, which is not an error). */
#include <endian.h>

#include "rdmatest/applet.h"
#include "rdmatest/devquery.h"

struct ibv_devices_cfg {
	int reserved; /* no options of its own; C wants a member */
};

#define RT_CFG struct ibv_devices_cfg

static const struct rt_opt ibv_devices_opts[] = {
	{ 0 },
};

RT_APPLET(ibv_devices, "list the RDMA devices and their node GUIDs",
	  "[--json]",
	  "Prints rdma-core's ibv_devices table byte for byte: each device's "
	  "name and node GUID (16 hex digits). No devices is an empty table "
	  "and exit 0, as upstream; a kernel without RDMA support (the list "
	  "cannot be read) exits 3 with the reason. --json gives the same "
	  "list as results.devices.");

static int ibv_devices_main(struct rt_run *run, void *cfg)
{
	struct rt_devlist l;
	char guid[20];

	rt_error_phase(&run->err, "device");
	(void)cfg;
	if (rt_devlist_open(&l, &run->err))
		return -1;
	rt_say(&run->log, "    %-16s\t   node GUID", "device");
	rt_say(&run->log, "    %-16s\t----------------", "------");
	rt_json_key(&run->results, "devices");
	rt_json_array_begin(&run->results);
	for (int i = 0; i < l.n; i++) {
		const char *name = ibv_get_device_name(l.devs[i]);

		snprintf(guid, sizeof(guid), "%016llx",
			 (unsigned long long)be64toh(ibv_get_device_guid(l.devs[i])));
		rt_say(&run->log, "    %-16s\t%s", name, guid);
		rt_json_object_begin(&run->results);
		rt_json_kv_string(&run->results, "name", name);
		rt_json_kv_string(&run->results, "node_guid", guid);
		rt_json_object_end(&run->results);
	}
	rt_json_array_end(&run->results);
	rt_devlist_close(&l);
	return 0;
}
