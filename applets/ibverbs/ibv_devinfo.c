/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ibv_devinfo: what each RDMA device and port reports, in rdma-core's
 * ibv_devinfo text byte for byte (v44, Debian 12), with -v the whole
 * attribute set and the GID tables. The facts come from devquery.h; this
 * file only formats them. Unlike upstream, a device or port that cannot be
 * shown is one line naming it (exit 3) and --json gives one document.
 *
 * Layout notes: upstream separates labels and values with TABs, a fixed
 * count per label (kept here in each format string), and lists set flags
 * one per line after five TABs, leftover bits as "Unknown flags". */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rdmatest/applet.h"
#include "rdmatest/devquery.h"
#include "rdmatest/util.h"
#include "rdmatest/vconn.h"

struct ibv_devinfo_cfg {
	const char *dev;
	long long port;
	int list, verbose;
};

#define RT_CFG struct ibv_devinfo_cfg

static const struct rt_enum all_ports[] = {
	{ "all", 0, "every port" },
	{ NULL, 0, NULL },
};

static const struct rt_opt ibv_devinfo_opts[] = {
	{ 'd', "ib-dev", RT_OPT_STRING, RT_S(dev), 0, 0, NULL, "DEV", "only this device", NULL },
	{ 'i', "ib-port", RT_OPT_INT, RT_L(port), 1, 255, "all", "PORT", "only this port", all_ports },
	{ 'l', "list", RT_OPT_FLAG, RT_I(list), 0, 0, NULL, NULL, "print only the device names", NULL },
	{ 'v', "verbose", RT_OPT_FLAG, RT_I(verbose), 0, 0, NULL, NULL,
	  "print every attribute of the devices and ports, and the GID tables", NULL },
	{ 0 },
};

RT_APPLET(ibv_devinfo, "show RDMA devices, their attributes and ports",
	  "[-lv] [-d device] [-i port] [--json]",
	  "Prints rdma-core's ibv_devinfo text byte for byte. An unknown -d "
	  "names the devices there are, a -i beyond the device's ports names "
	  "how many it has (exit 3 for both); other devices are still shown. "
	  "--json gives the devices, their attributes and ports (state, MTU, "
	  "link layer, GIDs with their types) as one document.",
	  .long_prefixes = true);

struct flag_name {
	uint64_t bit;
	const char *name;
};

struct devinfo {
	const struct ibv_devinfo_cfg *cfg;
	struct rt_run *run;
	const struct rt_log *log;
	struct rt_json *j;
	struct ibv_device *dev;
	struct ibv_context *ctx;
	const char *name;
	struct ibv_device_attr_ex attr;
};

#define SAY(x, ...) rt_say((x)->log, __VA_ARGS__)

/* ---- names, as upstream spells them ---------------------------------------- */

static const char *transport_name(int t)
{
	switch (t) {
	case IBV_TRANSPORT_IB: return "InfiniBand";
	case IBV_TRANSPORT_IWARP: return "iWARP";
	case IBV_TRANSPORT_USNIC: return "usNIC";
	case IBV_TRANSPORT_USNIC_UDP: return "usNIC UDP";
	case IBV_TRANSPORT_UNSPECIFIED: return "unspecified";
	default: return "invalid transport";
	}
}

static const char *state_name(int s)
{
	static const char *const names[] = { NULL, "PORT_DOWN", "PORT_INIT",
					     "PORT_ARMED", "PORT_ACTIVE" };

	return s >= 1 && s <= 4 ? names[s] : "invalid state";
}

static const char *mtu_name(int m)
{
	static const char *const names[] = { NULL, "256", "512", "1024", "2048", "4096" };

	return m >= 1 && m <= 5 ? names[m] : "invalid MTU";
}

static const char *link_layer_name(int ll)
{
	switch (ll) {
	case IBV_LINK_LAYER_UNSPECIFIED: return "Unspecified";
	case IBV_LINK_LAYER_INFINIBAND: return "InfiniBand";
	case IBV_LINK_LAYER_ETHERNET: return "Ethernet";
	default: return "Unknown";
	}
}

static const char *atomic_name(int a)
{
	static const char *const names[] = { "ATOMIC_NONE", "ATOMIC_HCA", "ATOMIC_GLOB" };

	return a >= 0 && a <= 2 ? names[a] : "invalid atomic capability";
}

static const char *vl_name(int v)
{
	static const char *const names[] = { NULL, "1", "2", "4", "8", "15" };

	return v >= 1 && v <= 5 ? names[v] : "invalid value";
}

static const char *width_name(int w)
{
	switch (w) {
	case 1: return "1";
	case 2: return "4";
	case 4: return "8";
	case 8: return "12";
	case 16: return "2";
	default: return "invalid width";
	}
}

static const char *speed_name(int s)
{
	switch (s) {
	case 1: return "2.5 Gbps";
	case 2: return "5.0 Gbps";
	case 4:
	case 8: return "10.0 Gbps";
	case 16: return "14.0 Gbps";
	case 32: return "25.0 Gbps";
	case 64: return "50.0 Gbps";
	case 128: return "100.0 Gbps";
	default: return "invalid speed";
	}
}

static const char *phys_state_name(int p)
{
	static const char *const names[] = {
		NULL, "SLEEP", "POLLING", "DISABLED", "PORT_CONFIGURATION TRAINNING",
		"LINK_UP", "LINK_ERROR_RECOVERY", "PHY TEST" };

	return p >= 1 && p <= 7 ? names[p] : "invalid physical state";
}

/* ---- flag lists ------------------------------------------------------------ */

static const struct flag_name dev_caps[] = {
	{ IBV_DEVICE_RESIZE_MAX_WR, "RESIZE_MAX_WR" },
	{ IBV_DEVICE_BAD_PKEY_CNTR, "BAD_PKEY_CNTR" },
	{ IBV_DEVICE_BAD_QKEY_CNTR, "BAD_QKEY_CNTR" },
	{ IBV_DEVICE_RAW_MULTI, "RAW_MULTI" },
	{ IBV_DEVICE_AUTO_PATH_MIG, "AUTO_PATH_MIG" },
	{ IBV_DEVICE_CHANGE_PHY_PORT, "CHANGE_PHY_PORT" },
	{ IBV_DEVICE_UD_AV_PORT_ENFORCE, "UD_AV_PORT_ENFORCE" },
	{ IBV_DEVICE_CURR_QP_STATE_MOD, "CURR_QP_STATE_MOD" },
	{ IBV_DEVICE_SHUTDOWN_PORT, "SHUTDOWN_PORT" },
	{ IBV_DEVICE_INIT_TYPE, "INIT_TYPE" },
	{ IBV_DEVICE_PORT_ACTIVE_EVENT, "PORT_ACTIVE_EVENT" },
	{ IBV_DEVICE_SYS_IMAGE_GUID, "SYS_IMAGE_GUID" },
	{ IBV_DEVICE_RC_RNR_NAK_GEN, "RC_RNR_NAK_GEN" },
	{ IBV_DEVICE_SRQ_RESIZE, "SRQ_RESIZE" },
	{ IBV_DEVICE_N_NOTIFY_CQ, "N_NOTIFY_CQ" },
	{ IBV_DEVICE_MEM_WINDOW, "MEM_WINDOW" },
	{ IBV_DEVICE_UD_IP_CSUM, "UD_IP_CSUM" },
	{ IBV_DEVICE_XRC, "XRC" },
	{ IBV_DEVICE_MEM_MGT_EXTENSIONS, "MEM_MGT_EXTENSIONS" },
	{ IBV_DEVICE_MEM_WINDOW_TYPE_2A, "MEM_WINDOW_TYPE_2A" },
	{ IBV_DEVICE_MEM_WINDOW_TYPE_2B, "MEM_WINDOW_TYPE_2B" },
	{ IBV_DEVICE_RC_IP_CSUM, "RC_IP_CSUM" },
	{ IBV_DEVICE_RAW_IP_CSUM, "RAW_IP_CSUM" },
	{ IBV_DEVICE_MANAGED_FLOW_STEERING, "MANAGED_FLOW_STEERING" },
	{ 0, NULL },
};

static const struct flag_name odp_general[] = {
	{ IBV_ODP_SUPPORT, "ODP_SUPPORT" },
	{ IBV_ODP_SUPPORT_IMPLICIT, "ODP_SUPPORT_IMPLICIT" },
	{ 0, NULL },
};

static const struct flag_name odp_transport[] = {
	{ IBV_ODP_SUPPORT_SEND, "SUPPORT_SEND" },
	{ IBV_ODP_SUPPORT_RECV, "SUPPORT_RECV" },
	{ IBV_ODP_SUPPORT_WRITE, "SUPPORT_WRITE" },
	{ IBV_ODP_SUPPORT_READ, "SUPPORT_READ" },
	{ IBV_ODP_SUPPORT_ATOMIC, "SUPPORT_ATOMIC" },
	{ IBV_ODP_SUPPORT_SRQ_RECV, "SUPPORT_SRQ" },
	{ 0, NULL },
};

/* only the upper 32 bits of device_cap_flags_ex are its own */
static const struct flag_name dev_caps_ex[] = {
	{ IBV_DEVICE_RAW_SCATTER_FCS, "RAW_SCATTER_FCS" },
	{ IBV_DEVICE_PCI_WRITE_END_PADDING, "PCI_WRITE_END_PADDING" },
	{ 0, NULL },
};

static const struct flag_name qp_types[] = {
	{ 1u << IBV_QPT_RAW_PACKET, "SUPPORT_RAW_PACKET" },
	{ 1u << IBV_QPT_UD, "SUPPORT_UD" },
	{ 0, NULL },
};

static const struct flag_name raw_caps[] = {
	{ IBV_RAW_PACKET_CAP_CVLAN_STRIPPING, "C-VLAN stripping offload" },
	{ IBV_RAW_PACKET_CAP_SCATTER_FCS, "Scatter FCS offload" },
	{ IBV_RAW_PACKET_CAP_IP_CSUM, "IP csum offload" },
	{ IBV_RAW_PACKET_CAP_DELAY_DROP, "Delay drop" },
	{ 0, NULL },
};

/* One line per set flag; bits outside the table as "Unknown flags" when
 * `unknown` (upstream omits that line for raw packet caps only). */
static void say_flags(const struct devinfo *x, uint64_t v,
		      const struct flag_name *t, bool unknown)
{
	uint64_t known = 0;

	for (; t->name; t++) {
		known |= t->bit;
		if (v & t->bit)
			SAY(x, "\t\t\t\t\t%s", t->name);
	}
	if (unknown && (v & ~known))
		SAY(x, "\t\t\t\t\tUnknown flags: 0x%llX", (unsigned long long)(v & ~known));
}

static void say_odp_transport(const struct devinfo *x, const char *label,
			      uint32_t v)
{
	SAY(x, "\t%s:", label);
	if (!v)
		SAY(x, "\t\t\t\t\tNO SUPPORT");
	else
		say_flags(x, v, odp_transport, true);
}

/* ---- the device -------------------------------------------------------------- */

static void guid_text(__be64 be, char *buf, size_t len)
{
	uint64_t g = be64toh(be);

	snprintf(buf, len, "%04x:%04x:%04x:%04x", (unsigned)(g >> 48) & 0xffff,
		 (unsigned)(g >> 32) & 0xffff, (unsigned)(g >> 16) & 0xffff,
		 (unsigned)g & 0xffff);
}

static void say_device(const struct devinfo *x)
{
	const struct ibv_device_attr *a = &x->attr.orig_attr;
	char node[24], sys[24], board[256], path[512];
	int t = x->dev->transport_type;
	/* a provider may fill the whole array: never read past it */
	int fw_len = (int)strnlen(a->fw_ver, sizeof(a->fw_ver));

	guid_text(a->node_guid, node, sizeof(node));
	guid_text(a->sys_image_guid, sys, sizeof(sys));
	SAY(x, "hca_id:\t%s", x->name);
	SAY(x, "\ttransport:\t\t\t%s (%d)", transport_name(t), t);
	if (fw_len)
		SAY(x, "\tfw_ver:\t\t\t\t%.*s", fw_len, a->fw_ver);
	SAY(x, "\tnode_guid:\t\t\t%s", node);
	SAY(x, "\tsys_image_guid:\t\t\t%s", sys);
	SAY(x, "\tvendor_id:\t\t\t0x%04x", a->vendor_id);
	SAY(x, "\tvendor_part_id:\t\t\t%d", (int)a->vendor_part_id);
	SAY(x, "\thw_ver:\t\t\t\t0x%X", a->hw_ver);
	snprintf(path, sizeof(path), "%s/board_id", x->dev->ibdev_path);
	if (rt_read_line(path, board, sizeof(board)))
		SAY(x, "\tboard_id:\t\t\t%s", board);
	SAY(x, "\tphys_port_cnt:\t\t\t%d", a->phys_port_cnt);

	rt_json_kv_string(x->j, "name", x->name);
	rt_json_kv_string(x->j, "transport", transport_name(t));
	rt_json_key(x->j, "fw_ver");
	rt_json_string_n(x->j, a->fw_ver, (size_t)fw_len);
	rt_json_kv_string(x->j, "node_guid", node);
	rt_json_kv_string(x->j, "sys_image_guid", sys);
	rt_json_kv_uint(x->j, "vendor_id", a->vendor_id);
	rt_json_kv_uint(x->j, "vendor_part_id", a->vendor_part_id);
	rt_json_kv_uint(x->j, "hw_ver", a->hw_ver);
	rt_json_kv_uint(x->j, "phys_port_cnt", a->phys_port_cnt);
}

static void say_limits(const struct devinfo *x)
{
	const struct ibv_device_attr *a = &x->attr.orig_attr;

	SAY(x, "\tmax_mr_size:\t\t\t0x%llx", (unsigned long long)a->max_mr_size);
	SAY(x, "\tpage_size_cap:\t\t\t0x%llx", (unsigned long long)a->page_size_cap);
	SAY(x, "\tmax_qp:\t\t\t\t%d", a->max_qp);
	SAY(x, "\tmax_qp_wr:\t\t\t%d", a->max_qp_wr);
	SAY(x, "\tdevice_cap_flags:\t\t0x%08x", a->device_cap_flags);
	say_flags(x, a->device_cap_flags, dev_caps, true);
	SAY(x, "\tmax_sge:\t\t\t%d", a->max_sge);
	SAY(x, "\tmax_sge_rd:\t\t\t%d", a->max_sge_rd);
	SAY(x, "\tmax_cq:\t\t\t\t%d", a->max_cq);
	SAY(x, "\tmax_cqe:\t\t\t%d", a->max_cqe);
	SAY(x, "\tmax_mr:\t\t\t\t%d", a->max_mr);
	SAY(x, "\tmax_pd:\t\t\t\t%d", a->max_pd);
	SAY(x, "\tmax_qp_rd_atom:\t\t\t%d", a->max_qp_rd_atom);
	SAY(x, "\tmax_ee_rd_atom:\t\t\t%d", a->max_ee_rd_atom);
	SAY(x, "\tmax_res_rd_atom:\t\t%d", a->max_res_rd_atom);
	SAY(x, "\tmax_qp_init_rd_atom:\t\t%d", a->max_qp_init_rd_atom);
	SAY(x, "\tmax_ee_init_rd_atom:\t\t%d", a->max_ee_init_rd_atom);
	SAY(x, "\tatomic_cap:\t\t\t%s (%d)", atomic_name(a->atomic_cap), (int)a->atomic_cap);
	SAY(x, "\tmax_ee:\t\t\t\t%d", a->max_ee);
	SAY(x, "\tmax_rdd:\t\t\t%d", a->max_rdd);
	SAY(x, "\tmax_mw:\t\t\t\t%d", a->max_mw);
	SAY(x, "\tmax_raw_ipv6_qp:\t\t%d", a->max_raw_ipv6_qp);
	SAY(x, "\tmax_raw_ethy_qp:\t\t%d", a->max_raw_ethy_qp);
	SAY(x, "\tmax_mcast_grp:\t\t\t%d", a->max_mcast_grp);
	SAY(x, "\tmax_mcast_qp_attach:\t\t%d", a->max_mcast_qp_attach);
	SAY(x, "\tmax_total_mcast_qp_attach:\t%d", a->max_total_mcast_qp_attach);
	SAY(x, "\tmax_ah:\t\t\t\t%d", a->max_ah);
	SAY(x, "\tmax_fmr:\t\t\t%d", a->max_fmr);
	if (a->max_fmr)
		SAY(x, "\tmax_map_per_fmr:\t\t%d", a->max_map_per_fmr);
	SAY(x, "\tmax_srq:\t\t\t%d", a->max_srq);
	if (a->max_srq) {
		SAY(x, "\tmax_srq_wr:\t\t\t%d", a->max_srq_wr);
		SAY(x, "\tmax_srq_sge:\t\t\t%d", a->max_srq_sge);
	}
	SAY(x, "\tmax_pkeys:\t\t\t%d", a->max_pkeys);
	SAY(x, "\tlocal_ca_ack_delay:\t\t%d", a->local_ca_ack_delay);
}

static void say_odp_and_clock(const struct devinfo *x)
{
	const struct ibv_device_attr_ex *e = &x->attr;
	const struct ibv_odp_caps *o = &e->odp_caps;

	SAY(x, "\tgeneral_odp_caps:");
	say_flags(x, o->general_caps, odp_general, true);
	say_odp_transport(x, "rc_odp_caps", o->per_transport_caps.rc_odp_caps);
	say_odp_transport(x, "uc_odp_caps", o->per_transport_caps.uc_odp_caps);
	say_odp_transport(x, "ud_odp_caps", o->per_transport_caps.ud_odp_caps);
	say_odp_transport(x, "xrc_odp_caps", e->xrc_odp_caps);
	if (e->completion_timestamp_mask)
		SAY(x, "\tcompletion timestamp_mask:\t\t\t0x%016" PRIx64,
		    e->completion_timestamp_mask);
	else
		SAY(x, "\tcompletion_timestamp_mask not supported");
	if (e->hca_core_clock)
		SAY(x, "\thca_core_clock:\t\t\t%" PRIu64 "kHZ", e->hca_core_clock);
	else
		SAY(x, "\tcore clock not supported");
	if (e->raw_packet_caps) {
		SAY(x, "\traw packet caps:");
		say_flags(x, e->raw_packet_caps, raw_caps, false);
	}
	SAY(x, "\tdevice_cap_flags_ex:\t\t0x%" PRIX64, e->device_cap_flags_ex);
	say_flags(x, e->device_cap_flags_ex & 0xffffffff00000000ULL, dev_caps_ex, true);
}

static void say_offloads(const struct devinfo *x)
{
	const struct ibv_device_attr_ex *e = &x->attr;

	SAY(x, "\ttso_caps:");
	SAY(x, "\t\tmax_tso:\t\t\t%d", (int)e->tso_caps.max_tso);
	if (e->tso_caps.max_tso) {
		SAY(x, "\t\tsupported_qp:");
		say_flags(x, e->tso_caps.supported_qpts, qp_types, true);
	}
	SAY(x, "\trss_caps:");
	SAY(x, "\t\tmax_rwq_indirection_tables:\t\t\t%u", e->rss_caps.max_rwq_indirection_tables);
	SAY(x, "\t\tmax_rwq_indirection_table_size:\t\t\t%u",
	    e->rss_caps.max_rwq_indirection_table_size);
	SAY(x, "\t\trx_hash_function:\t\t\t\t0x%x", e->rss_caps.rx_hash_function);
	SAY(x, "\t\trx_hash_fields_mask:\t\t\t\t0x%" PRIX64, e->rss_caps.rx_hash_fields_mask);
	if (e->rss_caps.supported_qpts) {
		SAY(x, "\t\tsupported_qp:");
		say_flags(x, e->rss_caps.supported_qpts, qp_types, true);
	}
	SAY(x, "\tmax_wq_type_rq:\t\t\t%u", e->max_wq_type_rq);
	SAY(x, "\tpacket_pacing_caps:");
	SAY(x, "\t\tqp_rate_limit_min:\t%ukbps", e->packet_pacing_caps.qp_rate_limit_min);
	SAY(x, "\t\tqp_rate_limit_max:\t%ukbps", e->packet_pacing_caps.qp_rate_limit_max);
	if (e->packet_pacing_caps.qp_rate_limit_max) {
		SAY(x, "\t\tsupported_qp:");
		say_flags(x, e->packet_pacing_caps.supported_qpts, qp_types, true);
	}
}

static void say_tm_and_rest(const struct devinfo *x)
{
	const struct ibv_device_attr_ex *e = &x->attr;
	const struct ibv_tm_caps *tm = &e->tm_caps;

	if (tm->max_num_tags) {
		SAY(x, "\tmax_rndv_hdr_size:\t\t%u", tm->max_rndv_hdr_size);
		SAY(x, "\tmax_num_tags:\t\t\t%u", tm->max_num_tags);
		SAY(x, "\tmax_ops:\t\t\t%u", tm->max_ops);
		SAY(x, "\tmax_sge:\t\t\t%u", tm->max_sge);
		SAY(x, "\tflags:");
		if (tm->flags & IBV_TM_CAP_RC)
			SAY(x, "\t\t\t\t\tIBV_TM_CAP_RC");
	} else {
		SAY(x, "\ttag matching not supported");
	}
	if (e->cq_mod_caps.max_cq_count && e->cq_mod_caps.max_cq_period) {
		SAY(x, "%s", "");
		SAY(x, "\tcq moderation caps:");
		SAY(x, "\t\tmax_cq_count:\t%u", e->cq_mod_caps.max_cq_count);
		SAY(x, "\t\tmax_cq_period:\t%u us", e->cq_mod_caps.max_cq_period);
		SAY(x, "%s", "");
	}
	if (e->max_dm_size) {
		SAY(x, "\tmaximum available device memory:\t%" PRIu64 "Bytes", e->max_dm_size);
		SAY(x, "%s", "");
	}
	SAY(x, "\tnum_comp_vectors:\t\t%d", x->ctx->num_comp_vectors);
}

static void json_limits(const struct devinfo *x)
{
	const struct ibv_device_attr *a = &x->attr.orig_attr;

	rt_json_kv_uint(x->j, "max_mr_size", a->max_mr_size);
	rt_json_kv_int(x->j, "max_qp", a->max_qp);
	rt_json_kv_int(x->j, "max_qp_wr", a->max_qp_wr);
	rt_json_kv_uint(x->j, "device_cap_flags", a->device_cap_flags);
	rt_json_kv_int(x->j, "max_sge", a->max_sge);
	rt_json_kv_int(x->j, "max_cq", a->max_cq);
	rt_json_kv_int(x->j, "max_cqe", a->max_cqe);
	rt_json_kv_int(x->j, "max_mr", a->max_mr);
	rt_json_kv_int(x->j, "max_pd", a->max_pd);
	rt_json_kv_int(x->j, "max_qp_rd_atom", a->max_qp_rd_atom);
	rt_json_kv_int(x->j, "max_srq", a->max_srq);
	rt_json_kv_int(x->j, "max_ah", a->max_ah);
	rt_json_kv_int(x->j, "max_mcast_grp", a->max_mcast_grp);
	rt_json_kv_string(x->j, "atomic_cap", atomic_name(a->atomic_cap));
	rt_json_kv_int(x->j, "num_comp_vectors", x->ctx->num_comp_vectors);
}

/* ---- ports ------------------------------------------------------------------- */

/* The GID table: entries in use whose type the kernel gives, as upstream
 * shows them (RoCE v2 as IPv6 text, others as eight groups); in the JSON
 * every entry in use, with its type. */
static int say_gids(const struct devinfo *x, uint8_t port, const struct ibv_port_attr *pa)
{
	bool eth = pa->link_layer == IBV_LINK_LAYER_ETHERNET;
	char text[INET6_ADDRSTRLEN];
	struct rt_gid g;
	int rc = 0;

	rt_json_key(x->j, "gids");
	rt_json_array_begin(x->j);
	for (int i = 0; i < pa->gid_tbl_len && !rc; i++) {
		rc = rt_gid_get(x->ctx, x->name, port, (unsigned)i, &g, &x->run->err);
		if (rc || !rt_gid_in_use(&g.gid))
			continue;
		inet_ntop(AF_INET6, g.gid.raw, text, sizeof(text));
		rt_json_object_begin(x->j);
		rt_json_kv_int(x->j, "index", i);
		rt_json_kv_string(x->j, "gid", text);
		rt_json_kv_string(x->j, "type", rt_gid_type_name(g.type));
		rt_json_object_end(x->j);
		if (!x->cfg->verbose || g.type == RT_GID_UNKNOWN)
			continue;
		if (g.type != RT_GID_ROCE_V2) {
			const uint8_t *r = g.gid.raw;

			snprintf(text, sizeof(text), "%02x%02x:%02x%02x:%02x%02x:%02x%02x:"
				 "%02x%02x:%02x%02x:%02x%02x:%02x%02x", r[0], r[1], r[2],
				 r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11],
				 r[12], r[13], r[14], r[15]);
		}
		SAY(x, "\t\t\tGID[%3d]:\t\t%s%s%s", i, text, eth ? ", " : "",
		    !eth ? "" : g.type == RT_GID_ROCE_V2 ? "RoCE v2" : "RoCE v1");
	}
	rt_json_array_end(x->j);
	return rc;
}

static void say_port_verbose(const struct devinfo *x, const struct ibv_port_attr *p)
{
	SAY(x, "\t\t\tmax_msg_sz:\t\t0x%x", p->max_msg_sz);
	SAY(x, "\t\t\tport_cap_flags:\t\t0x%08x", p->port_cap_flags);
	SAY(x, "\t\t\tport_cap_flags2:\t0x%04x", p->port_cap_flags2);
	SAY(x, "\t\t\tmax_vl_num:\t\t%s (%d)", vl_name(p->max_vl_num), p->max_vl_num);
	SAY(x, "\t\t\tbad_pkey_cntr:\t\t0x%x", p->bad_pkey_cntr);
	SAY(x, "\t\t\tqkey_viol_cntr:\t\t0x%x", p->qkey_viol_cntr);
	SAY(x, "\t\t\tsm_sl:\t\t\t%d", p->sm_sl);
	SAY(x, "\t\t\tpkey_tbl_len:\t\t%d", p->pkey_tbl_len);
	SAY(x, "\t\t\tgid_tbl_len:\t\t%d", p->gid_tbl_len);
	SAY(x, "\t\t\tsubnet_timeout:\t\t%d", p->subnet_timeout);
	SAY(x, "\t\t\tinit_type_reply:\t%d", p->init_type_reply);
	SAY(x, "\t\t\tactive_width:\t\t%sX (%d)", width_name(p->active_width), p->active_width);
	SAY(x, "\t\t\tactive_speed:\t\t%s (%d)", speed_name(p->active_speed), p->active_speed);
	if (x->dev->transport_type == IBV_TRANSPORT_IB)
		SAY(x, "\t\t\tphys_state:\t\t%s (%d)", phys_state_name(p->phys_state),
		    p->phys_state);
}

static int say_port(const struct devinfo *x, uint8_t port)
{
	struct ibv_port_attr p;
	int rc = 0;

	if (rt_port_attrs(x->ctx, x->name, port, &p, &x->run->err))
		return -1;
	SAY(x, "\t\tport:\t%u", port);
	SAY(x, "\t\t\tstate:\t\t\t%s (%d)", state_name(p.state), (int)p.state);
	SAY(x, "\t\t\tmax_mtu:\t\t%s (%d)", mtu_name(p.max_mtu), (int)p.max_mtu);
	SAY(x, "\t\t\tactive_mtu:\t\t%s (%d)", mtu_name(p.active_mtu), (int)p.active_mtu);
	SAY(x, "\t\t\tsm_lid:\t\t\t%d", p.sm_lid);
	SAY(x, "\t\t\tport_lid:\t\t%d", p.lid);
	SAY(x, "\t\t\tport_lmc:\t\t0x%02x", p.lmc);
	SAY(x, "\t\t\tlink_layer:\t\t%s", link_layer_name(p.link_layer));
	if (x->cfg->verbose)
		say_port_verbose(x, &p);
	rt_json_object_begin(x->j);
	rt_json_kv_uint(x->j, "port", port);
	rt_json_kv_string(x->j, "state", state_name(p.state));
	rt_json_kv_int(x->j, "state_num", p.state);
	rt_json_kv_int(x->j, "max_mtu", rt_mtu_bytes(p.max_mtu));
	rt_json_kv_int(x->j, "active_mtu", rt_mtu_bytes(p.active_mtu));
	rt_json_kv_uint(x->j, "lid", p.lid);
	rt_json_kv_uint(x->j, "sm_lid", p.sm_lid);
	rt_json_kv_uint(x->j, "lmc", p.lmc);
	rt_json_kv_string(x->j, "link_layer", link_layer_name(p.link_layer));
	rt_json_kv_uint(x->j, "gid_tbl_len", (uint64_t)p.gid_tbl_len);
	/* upstream reads the table only for -v: plain text never fails on it */
	if (x->cfg->verbose || x->run->common.json)
		rc = say_gids(x, port, &p);
	rt_json_object_end(x->j);
	if (!rc)
		SAY(x, "%s", "");
	return rc;
}

/* One device, everything or nothing of it past a failed query; the JSON
 * object stays balanced either way. */
static int show_device(struct devinfo *x)
{
	unsigned nports;
	int rc = 0;

	x->name = ibv_get_device_name(x->dev);
	x->ctx = ibv_open_device(x->dev);
	if (!x->ctx)
		return rt_fail_errno(&x->run->err, RT_EXIT_ENV, errno,
				     "%s: cannot open the device", x->name);
	if (rt_dev_attrs(x->ctx, x->name, &x->attr, &x->run->err))
		goto out;
	nports = x->attr.orig_attr.phys_port_cnt;
	if (x->cfg->port > (long long)nports) {
		rc = rt_fail(&x->run->err, RT_EXIT_ENV, "-i %lld: %s has %u port%s",
			     x->cfg->port, x->name, nports, nports == 1 ? "" : "s");
		goto out;
	}
	rt_json_object_begin(x->j);
	say_device(x);
	json_limits(x);
	if (x->cfg->verbose) {
		say_limits(x);
		say_odp_and_clock(x);
		say_offloads(x);
		say_tm_and_rest(x);
	}
	rt_json_key(x->j, "ports");
	rt_json_array_begin(x->j);
	for (unsigned p = 1; p <= nports && !rc; p++)
		if (!x->cfg->port || p == x->cfg->port)
			rc = say_port(x, (uint8_t)p);
	rt_json_array_end(x->j);
	rt_json_object_end(x->j);
out:
	ibv_close_device(x->ctx);
	x->ctx = NULL;
	return rc || x->run->err.set ? -1 : 0;
}

static void list_devices(struct rt_run *run, const struct rt_devlist *l)
{
	rt_say(&run->log, "%d HCA%s found:", l->n, l->n == 1 ? "" : "s");
	for (int i = 0; i < l->n; i++) {
		rt_say(&run->log, "\t%s", ibv_get_device_name(l->devs[i]));
		rt_json_object_begin(&run->results);
		rt_json_kv_string(&run->results, "name", ibv_get_device_name(l->devs[i]));
		rt_json_object_end(&run->results);
	}
	rt_say(&run->log, "%s", "");
}

static int ibv_devinfo_main(struct rt_run *run, void *cfgp)
{
	struct devinfo x = { .cfg = cfgp, .run = run, .log = &run->log,
			     .j = &run->results };
	struct rt_devlist l;
	int rc = 0;

	rt_error_phase(&run->err, "device");
	if (rt_devlist_open(&l, &run->err))
		return -1;
	rt_json_key(&run->results, "devices");
	rt_json_array_begin(&run->results);
	if (x.cfg->list) {
		list_devices(run, &l);
	} else if (x.cfg->dev || l.n == 0) {
		x.dev = rt_devlist_pick(&l, x.cfg->dev, &run->err);
		rc = x.dev ? show_device(&x) : -1;
	} else {
		/* every device, the others still shown after one fails */
		for (int i = 0; i < l.n; i++) {
			x.dev = l.devs[i];
			rc |= show_device(&x);
		}
	}
	rt_json_array_end(&run->results);
	rt_devlist_close(&l);
	return rc;
}
