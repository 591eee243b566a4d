/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A port's error and traffic counters as the kernel keeps them in sysfs:
 * /sys/class/infiniband/DEV/ports/N/counters/ (the InfiniBand port
 * counters, the same on every HCA that has them) and .../hw_counters/
 * (named by the provider: mlx5, Soft-RoCE's rxe, ...), read into a fixed
 * table and each name classified, and the change between two readings.
 * Nothing here judges or prints: doctor turns a table into findings,
 * mesh judges two readings around a pair's test, perftest's -W prints
 * the change of the files its user names (rt_portctr_read_path).
 *
 * Memory: a table is RT_PORTCTR_MAX counters of 64 bytes (8 KiB), in the
 * caller's struct; at most RT_PORTCTR_BYTES bytes of each file are read. */
#ifndef RDMATEST_PORTCTR_H
#define RDMATEST_PORTCTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Counters kept per port, both directories and the netdev's (mlx5 has
 * about 70 in sysfs, and 20 of the ethtool ones rt_portctr_ethtool knows;
 * one driver's names match, never another's);
 * more are counted in `dropped`. */
#define RT_PORTCTR_MAX 128
/* Bytes read from one counter file: a 64-bit decimal and its newline. */
#define RT_PORTCTR_BYTES 32
#define RT_PORTCTR_NAME 48 /* a name's bytes with its NUL; longer: left out */

enum rt_portctr_class {
	RT_PORTCTR_UNKNOWN,   /* a name not in the table */
	RT_PORTCTR_INFO,      /* traffic: packets and bytes */
	RT_PORTCTR_TRANSPORT, /* retransmits, sequence and access errors, congestion */
	RT_PORTCTR_LINK,      /* the physical link or the port: any is wrong */
};

struct rt_portctr {
	char name[RT_PORTCTR_NAME];
	bool hw;           /* from hw_counters/, else counters/ */
	bool saturated;    /* at the most its field holds: the count may be higher */
	uint8_t cls;       /* enum rt_portctr_class */
	uint64_t value;
};

struct rt_portctrs {
	struct rt_portctr c[RT_PORTCTR_MAX];
	int n, dropped;
};

/* Reads every counter of port `port` of `dev` under `sysfs` ("/sys" but in
 * tests), counters/ first, each directory in natural name order. A file
 * that cannot be read or does not hold a number is left out. Returns how
 * many were kept (0: neither directory, as on a device without counters). */
int rt_portctr_read(const char *sysfs, const char *dev, unsigned port,
		    struct rt_portctrs *out);
enum rt_portctr_class rt_portctr_class(const char *name);
/* "link", "transport", "info" or "unknown" (doctor's --json names). */
const char *rt_portctr_class_name(enum rt_portctr_class cls);
/* Whether a transport counter counts retransmits or what makes them
 * (sequence errors, ACK timeouts, duplicates): what a lossy link raises
 * in proportion to the packets it carries. rxe: out_of_seq_request,
 * duplicate_request, rcvd_seq_err, completer_retry_err,
 * retry_exceeded_err; mlx5: out_of_sequence, duplicate_request,
 * packet_seq_err, implied_nak_seq_err, local_ack_timeout_err,
 * roce_adp_retrans, roce_slow_restart. */
bool rt_portctr_retransmit(const char *name);
/* Whether a transport counter counts congestion signals rather than
 * errors: port_xmit_wait (ticks the port had data and could not send:
 * the link's pause or credit back-pressure), mlx5's np_cnp_sent and
 * np_ecn_marked_roce_packets (this port as a receiver saw ECN marks and
 * sent CNPs), rp_cnp_handled and rp_cnp_ignored (as a sender it was told
 * to slow down). They say the load met congestion, not that a link is
 * bad. */
bool rt_portctr_congestion(const char *name);
/* Whether the counter is not in sysfs but among a RoCE netdev's driver
 * statistics (ethctr.h): mlx5's rx_prioN_pause and tx_prioN_pause (PFC
 * pause frames of priority N received and sent), rx_pause_ctrl_phy and
 * tx_pause_ctrl_phy (link-wide pause), rx_discards_phy and
 * tx_discards_phy (the physical port's drops); bnxt_en's
 * rx_pfc_ena_frames_priN and tx_pfc_ena_frames_priN; ice's
 * rx_priority_N_xoff.nic and tx_priority_N_xoff.nic. All congestion counters:
 * a lossless class pauses by design, and the port counts other traffic
 * than the test's too. */
bool rt_portctr_ethtool(const char *name);
/* How much `name` rose from `before` to `after` (0 when either lacks it,
 * or it went down: a reset); at least that much when `after` is
 * saturated. */
uint64_t rt_portctr_delta(const struct rt_portctrs *before, const struct rt_portctrs *after,
			  const char *name, bool hw);
/* The packets the port sent between the two readings: counters/
 * port_xmit_packets, else rxe's hw_counters/sent_pkts; false when
 * neither reading has one. */
bool rt_portctr_sent(const struct rt_portctrs *before, const struct rt_portctrs *after,
		     uint64_t *sent);

/* The counter numbers a peer may send (mesh's RESULT): every name the
 * table knows, numbered from 0 in the table's order, which only grows at
 * its end. -1 for a name it does not know; NULL past the last number. */
int rt_portctr_id(const char *name);
const char *rt_portctr_id_name(unsigned id);

/* Adds one counter to the table (the readers' step, and ethctr.h's):
 * false when its name is RT_PORTCTR_NAME bytes or longer, or the table is
 * full (counted in dropped). `hw`: the driver's own, not counters/. */
bool rt_portctr_add(struct rt_portctrs *out, const char *name, bool hw, uint64_t v);

/* path = SYSFS/class/infiniband/DEV/ports/PORT/REL into buf; false when
 * it does not fit. */
bool rt_portctr_path(char *buf, size_t len, const char *sysfs, const char *dev,
		     unsigned port, const char *rel);
/* One counter file: an unsigned decimal and its newline, at most
 * RT_PORTCTR_BYTES bytes; false when it cannot be read or is no number. */
bool rt_portctr_read_path(const char *path, uint64_t *v);

#endif
