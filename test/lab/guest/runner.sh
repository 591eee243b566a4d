#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Host a: run the scenarios named in /lab/config one after the other, each in
# its own shell with a time bound, and clean up between them.
. /lab/lib.sh
. /lab/config

# scenario_header: the "# hosts:", "# rails:", "# timeout:" lines
. /lab/header.sh

# Bring every host back to a clean state: no jobs, no netem, links up
# and their rxe0 ACTIVE again (rail 1 and its rxe1 too), within 20 s
# each, so a faults scenario's last case (a link down, a device removed
# and added back) leaves the next scenario of its batch a working device.
cleanup() {
	local h
	for h in $(lab_hosts); do
		[ "$LAB_HOSTS" != 1 ] || [ "$h" = a ] || continue
		_rpc_call "$h" "_job_kill_all; /sbin/tc qdisc del dev eth0 root 2>/dev/null;
			[ \$LAB_HOSTS = 1 ] || { /sbin/ip link set eth0 up;
			_poll_local 20 \"/sbin/rdma link show rxe0/1 | grep -q ' state ACTIVE '\"; }; true" 60 > /dev/null
		[ "${LAB_RAILS:-1}" -lt 2 ] || _rpc_call "$h" "/sbin/tc qdisc del dev rail1 root 2>/dev/null;
			/sbin/ip link set rail1 up; _poll_local 20 \"/sbin/rdma link show rxe1/1 | grep -q ' state ACTIVE '\"; true" 60 > /dev/null
	done
	rm -f /tmp/lab/job.* /tmp/lab/reaped.* /tmp/lab/log.*
}

run_scenario() {
	local name=$1 file=/lab/scenarios/$1.sh need bound rc
	need=$(scenario_header "$file" hosts 1)
	bound=$(scenario_header "$file" timeout 300)
	if [ "$need" -gt "$LAB_HOSTS" ]; then
		_result SKIP "$name" "needs $need hosts (lab run --hosts $need)"
		return
	fi
	need=$(scenario_header "$file" rails 1)
	if [ "$need" -gt "${LAB_RAILS:-1}" ]; then
		_result SKIP "$name" "needs $need rails (lab run --rails $need)"
		return
	fi
	rm -f /tmp/lab/ncases "$LAB_STATE"/*
	: > "$LAB_TRANSCRIPT"
	export LAB_SCENARIO=$name
	# shellcheck disable=SC2016 # expanded by the inner shell
	timeout -s KILL "$bound" sh -c '. /lab/lib.sh; . "$1"; case_end' sh "$file" 3>&1 >> "$LAB_TRANSCRIPT" 2>&1
	rc=$?
	# a case left open means the scenario died or ran out of time inside it
	if [ -e "$LAB_STATE/name" ]; then
		if [ "$rc" = 137 ]; then
			fail "scenario $name hit its bound of ${bound}s (later cases not run)"
		else
			fail "scenario shell exited $rc inside the case"
		fi
		case_end 3>&1
	elif [ ! -s /tmp/lab/ncases ]; then
		note "lab: scenario $name exited $rc without running a case"
		sed 's/^/@lab # /' "$LAB_TRANSCRIPT"
		_result FAIL "$name" "no case ran (exit $rc)"
	fi
	cleanup
}

# Every other host must answer and the data link must carry traffic to it
# before any case (one 90 s bound for all the agents).
wait_peer() {
	local end=$(($(_now_cs) + 9000)) h
	for h in $(lab_hosts); do
		[ "$h" != a ] || continue
		until [ "$(_rpc "$h" true 5)" = "@rc 0" ]; do
			if [ "$(_now_cs)" -ge "$end" ]; then
				_result FAIL lab/boot "host $h's agent did not answer within 90s"
				return 1
			fi
			sleep 0.5
		done
	done
	for h in $(lab_hosts); do
		[ "$h" != a ] || continue
		end=$(($(_now_cs) + 3000))
		until ping -c 1 -W 1 "$(host_addr "$h")" > /dev/null 2>&1; do
			if [ "$(_now_cs)" -ge "$end" ]; then
				_result FAIL lab/boot "no ping from a to $h over eth0 within 30s"
				return 1
			fi
		done
		[ "${LAB_RAILS:-1}" -ge 2 ] || continue
		until ping -c 1 -W 1 "$(rail_addr "$h")" > /dev/null 2>&1; do
			if [ "$(_now_cs)" -ge "$end" ]; then
				_result FAIL lab/boot "no ping from a to $h over rail1 within 30s"
				return 1
			fi
		done
	done
}

main() {
	[ "$LAB_HOSTS" = 1 ] || wait_peer || return 0
	_emit "# lab: ready after $(cut -d' ' -f1 /proc/uptime)s of guest time; kernel $(uname -r)"
	for s in $LAB_SCENARIOS; do
		run_scenario "$s"
	done
}

main 3>&1
