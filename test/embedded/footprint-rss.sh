# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 1
# timeout: 180
# Resident memory of idle servers, for scripts/footprint: each server is
# started, and once its RDMA CM id listens, its Rss is read from /proc and
# printed as "# footprint-rss NAME KB" (a TAP comment). The binary under
# test against the upstream tools, in the same guest.

# rss NAME PORT CMD...
rss() {
	local name=$1 port=$2 pid kb
	shift 2
	case_begin "rss/$name" 60
	"$@" > /dev/null 2>&1 &
	pid=$!
	wait_listen a "$port" 20 || fail "$name not listening on $port"
	sleep 1
	# smaps_rollup is exact; VmRSS in status lags (per-thread counters)
	kb=$(awk '$1 == "Rss:" { print $2 }' "/proc/$pid/smaps_rollup" 2>/dev/null)
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	[ -n "$kb" ] || fail "no Rss for $name"
	failed || _emit "# footprint-rss $name $kb"
	pass
}

rss "rdmatest rping -s" 7174 "$RT/rping" -s -a "$B"
rss "rdmatest ucmatose (server)" 7471 "$RT/ucmatose" -b "$B"
rss "upstream rping -s" 7174 /usr/bin/rping -s -a "$B"
rss "upstream ucmatose (server)" 7471 /usr/bin/ucmatose -b "$B"
