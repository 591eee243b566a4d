# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Scenario API of the rdmatest lab (busybox ash). Scenario files are sourced
# after this library; see docs/dev/lab.md for the reference.
# shellcheck shell=dash disable=SC2034,SC3043,SC3060 # busybox ash: local, ${v//}; API variables

# shellcheck source=/dev/null
[ -r /lab/env ] && . /lab/env      # LAB_ROLE LAB_HOSTS LAB_RAILS LAB_MODE LAB_VERBOSE
. /lab/jobs.sh

A=192.0.2.1
B=192.0.2.2
# hosts c to h of a switched lab (--hosts 3 to 8): 192.0.2.3 to .8
C=192.0.2.3 D=192.0.2.4 E=192.0.2.5 F=192.0.2.6 G=192.0.2.7 H=192.0.2.8
# the second RDMA link of a `# rails: 2` run (two hosts or more): netdev
# rail1, device rxe1, 203.0.113.N on host N
RAIL1_A=203.0.113.1 RAIL1_B=203.0.113.2 RAIL1_C=203.0.113.3 RAIL1_D=203.0.113.4
RAIL1_E=203.0.113.5 RAIL1_F=203.0.113.6 RAIL1_G=203.0.113.7 RAIL1_H=203.0.113.8
RAIL1_IF=rail1 RAIL1_DEV=rxe1
RT=/opt/rdmatest/bin
LAB_SCEN=/lab/scenarios             # scenario files (and shared *.inc helpers)
# RDMA device and data interface on each host
if [ "${LAB_HOSTS:-1}" = 1 ]; then
	DEV_A=rxe0 DEV_B=rxe1 IF_A=veth0 IF_B=veth1
else
	DEV_A=rxe0 DEV_B=rxe0 IF_A=eth0 IF_B=eth0
fi
RUN_TIMEOUT=${RUN_TIMEOUT:-30}      # default bound of run_on, seconds
CASE_TIMEOUT=${CASE_TIMEOUT:-120}   # default bound of a case, seconds
LAB_STATE=/tmp/lab/state            # case bookkeeping of the running scenario
LAB_TRANSCRIPT=/tmp/lab/transcript  # the scenario's stdout; emptied per case
[ "${LAB_MODE:-}" != shell ] || LAB_TRANSCRIPT=/dev/stdout   # lab shell: show everything
OUT=/tmp/lab/last.out               # output of the last run_on
mkdir -p "$LAB_STATE"

# ---- output ---------------------------------------------------------------

# Result and comment lines go to fd 3 (the console), everything else to
# the transcript. Outside the runner fd 3 may be closed: fall back to stdout.
_to_console() { if { true >&3; } 2>/dev/null; then cat >&3; else cat; fi; }
_emit() { printf '@lab %s\n' "$*" | _to_console; }
# _result PASS|FAIL|SKIP NAME [REASON]: the line the host turns into TAP
# (a tab separates the name from the reason).
_result() {
	if [ -n "${3:-}" ]; then
		printf '@lab %s %s\t%s\n' "$1" "$(_oneline "$2")" "$(_oneline "$3")" | _to_console
	else
		printf '@lab %s %s\n' "$1" "$(_oneline "$2")" | _to_console
	fi
}
# record JSON: one measurement line for the host (`lab bench` collects
# them into data.jsonl next to its report).
record() { _emit "DATA $(printf '%s' "$1" | tr '\n\r' '  ')"; }
# Add text to the case transcript (stdin or arguments).
note() { if [ $# -gt 0 ]; then printf '%s\n' "$*"; else cat; fi >> "$LAB_TRANSCRIPT"; }
# One line, no '#' (TAP directive), no newlines.
_oneline() { printf '%s' "$*" | tr '\n\r\t#' '   _' | cut -c1-300; }

# ---- cases ----------------------------------------------------------------

# case_begin NAME [TIMEOUT]: open a case (closing any open one). Every wait
# inside is clamped to TIMEOUT (default $CASE_TIMEOUT) seconds in total.
case_begin() {
	[ ! -e "$LAB_STATE/name" ] || case_end
	: > "$LAB_TRANSCRIPT"
	rm -f "$LAB_STATE"/*
	echo "$1" > "$LAB_STATE/name"
	echo $(($(_now_cs) + ${2:-$CASE_TIMEOUT} * 100)) > "$LAB_STATE/deadline"
	echo "${2:-$CASE_TIMEOUT}" > "$LAB_STATE/bound"
	_now_cs > "$LAB_STATE/start"
	echo $(($(cat /tmp/lab/ncases 2>/dev/null || echo 0) + 1)) > /tmp/lab/ncases
	note "=== case $1 (bound ${2:-$CASE_TIMEOUT}s, guest uptime $(cut -d" " -f1 /proc/uptime)s) ==="
}

# The first fail/skip wins; pass closes the case.
fail() {
	[ -e "$LAB_STATE/name" ] || { echo "lab: fail outside a case: $*" >&2; return 1; }
	[ -e "$LAB_STATE/result" ] || echo "FAIL $(_oneline "${*:-failed}")" > "$LAB_STATE/result"
	note "lab: FAIL: $*"
	return 1
}
skip() {
	[ -e "$LAB_STATE/name" ] || return 1
	[ -e "$LAB_STATE/result" ] || echo "SKIP $(_oneline "${*:-skipped}")" > "$LAB_STATE/result"
	return 1
}
pass() { case_end; }
failed() { [ -e "$LAB_STATE/result" ]; }   # true once fail or skip was called

# Close the case: kill its leftover jobs, print the result line, and the
# transcript when it failed (or always in verbose/demo mode).
case_end() {
	local name result t0 job host
	[ -e "$LAB_STATE/name" ] || return 0
	name=$(cat "$LAB_STATE/name")
	if [ -e "$LAB_STATE/jobs" ]; then
		while read -r job host; do _reap "$job" "$host" kill; done < "$LAB_STATE/jobs"
	fi
	result=$(cat "$LAB_STATE/result" 2>/dev/null || echo PASS)
	t0=$(cat "$LAB_STATE/start")
	t0=$(($(_now_cs) - t0))
	note "=== $name: ${result%% *} after $((t0 / 100)).$((t0 / 10 % 10))s ==="
	if [ -e "$LAB_STATE/row" ]; then
		printf '@lab ROW %s\t%s\n' "${result%% *}" "$(cat "$LAB_STATE/row")" | _to_console
	fi
	if [ "${result%% *}" = FAIL ] || [ "${LAB_VERBOSE:-0}" = 1 ] || [ "${LAB_MODE:-}" = demo ]; then
		sed 's/^/@lab # /' "$LAB_TRANSCRIPT" | _to_console
	fi
	case $result in
	PASS) _result PASS "${LAB_SCENARIO:+$LAB_SCENARIO/}$name" ;;
	*) _result "${result%% *}" "${LAB_SCENARIO:+$LAB_SCENARIO/}$name" "${result#* }" ;;
	esac
	rm -f "$LAB_STATE"/*
}

# Seconds left of SEC within the case bound; fails the case when none are left.
_bound() {
	local left
	[ -e "$LAB_STATE/deadline" ] || { echo "$1"; return 0; }
	left=$((($(cat "$LAB_STATE/deadline") - $(_now_cs)) / 100))
	if [ "$left" -le 0 ]; then
		fail "case exceeded its bound of $(cat "$LAB_STATE/bound")s"
		echo 0
		return 1
	fi
	[ "$1" -le "$left" ] && echo "$1" || echo "$left"
}

# lab_hosts: the names of this run's hosts ("a b" for one or two, "a b c d" for four).
lab_hosts() {
	local n=0 r out=""
	for r in a b c d e f g h; do
		n=$((n + 1))
		[ "$n" -le "${LAB_HOSTS:-1}" ] || [ "$n" -le 2 ] || break
		out="$out $r"
	done
	echo "${out# }"
}
# host_addr HOST: its data address (192.0.2.N); rail_addr HOST: its rail 1
# address (203.0.113.N).
host_addr() { echo "192.0.2.$(_host_n "$1")"; }
rail_addr() { echo "203.0.113.$(_host_n "$1")"; }

_check_host() {
	case $1 in a | b) return 0 ;; esac
	case " $(lab_hosts) " in *" $1 "*) return 0 ;; esac
	echo "lab: host must be one of $(lab_hosts), not '$1'" >> "$LAB_TRANSCRIPT"
	return 1
}

# ---- commands ---------------------------------------------------------------

# run_on [-t SEC] HOST CMD...: run CMD on the host within SEC (default
# $RUN_TIMEOUT) seconds; its output goes to the transcript and to $OUT.
# Returns CMD's status, 124 on timeout, 126 when the host did not answer.
run_on() {
	local sec=$RUN_TIMEOUT host rc t0 t
	[ "$1" != -t ] || { sec=$2; shift 2; }
	host=$1
	shift
	_check_host "$host" || return 2
	sec=$(_bound "$sec") || return 124
	note "[$host]\$ $*"
	t0=$(_now_cs)
	_rpc_call "$host" "_job_run run.\$\$ $sec $(_q "$@")" "$sec" > "$OUT"
	rc=$?
	t=$(($(_now_cs) - t0))
	cat "$OUT" >> "$LAB_TRANSCRIPT"
	note "[$host] exit $rc ($((t / 100)).$((t / 10 % 10))s)$([ "$rc" = 124 ] && echo ": timed out after ${sec}s")"
	return "$rc"
}
last_output() { cat "$OUT"; }

# bg_start NAME HOST CMD...: start CMD in the background on the host.
bg_start() {
	local name=$1 host=$2 r
	shift 2
	_check_host "$host" || return 2
	note "[$host]\$ $* &   (job $name)"
	[ -e "$LAB_STATE/name" ] && echo "$name $host" >> "$LAB_STATE/jobs"
	echo "$host" > "/tmp/lab/job.$name"
	rm -f "/tmp/lab/reaped.$name"
	r=$(_rpc_call "$host" "_job_start $(_q "$name" "$@")") || {
		note "$r"
		return 125
	}
}

_job_host() { cat "/tmp/lab/job.$1" 2>/dev/null || echo a; }

# Append a finished (or, with 'kill', killed) job's status and log to the
# transcript, once.
_reap() {
	local name=$1 host=$2 how=${3:-} r rc
	[ -e "/tmp/lab/job.$name" ] && [ ! -e "/tmp/lab/reaped.$name" ] || return 0
	: > "/tmp/lab/reaped.$name"
	if [ "$how" = kill ]; then
		rc=$(_rpc_call "$host" "_job_stop $(_q "$name")" 20)
		note "[$host] job $name at case end: $rc"
	fi
	r=$(_rpc_call "$host" "_job_log $(_q "$name")")
	note "--- [$host] output of job $name ---"
	[ -z "$r" ] || note "$r"
	note "--- end of job $name ---"
}

# bg_wait NAME SEC: wait for the job; returns its status, or kills it and
# returns 124 after SEC seconds.
bg_wait() {
	local name=$1 sec host rc
	host=$(_job_host "$name")
	sec=$(_bound "$2") || { bg_kill "$name"; return 124; }
	rc=$(_rpc_call "$host" "_job_wait $(_q "$name") $sec" "$sec")
	note "[$host] job $name: status $rc$([ "$rc" = 124 ] && echo ": timed out after ${sec}s, killed")"
	_reap "$name" "$host"
	return "$rc"
}

# bg_kill NAME [SIG]: signal the job (default TERM; SIGKILL if it does not
# end within 5 s); returns its status.
bg_kill() {
	local name=$1 sig=${2:-TERM} host rc
	host=$(_job_host "$name")
	rc=$(_rpc_call "$host" "_job_kill $(_q "$name" "$sig")" 20 | tail -n 1)
	case $rc in '' | *[!0-9]*) note "[$host] job $name: kill answered '$rc'"; rc=125 ;; esac
	note "[$host] job $name killed with SIG$sig: status $rc"
	_reap "$name" "$host"
	return "$rc"
}

# bg_log NAME: print the job's output so far.
bg_log() { _rpc_call "$(_job_host "$1")" "_job_log $(_q "$1")"; }

# ---- readiness (no sleeps) ------------------------------------------------------

# _poll HOST SEC WHAT SNIPPET: run SNIPPET on HOST until it succeeds, at most SEC s.
_poll() {
	local host=$1 sec what=$3 snippet=$4 t0 t
	_check_host "$host" || return 2
	sec=$(_bound "$2") || return 124
	t0=$(_now_cs)
	_rpc_call "$host" "_poll_local $sec $(_q "$snippet")" "$sec" > /dev/null
	local rc=$?
	t=$(($(_now_cs) - t0))
	if [ "$rc" = 0 ]; then
		note "[$host] ready: $what ($((t / 100)).$((t / 10 % 10))s)"
	else
		note "[$host] not ready after ${sec}s: $what"
	fi
	return "$rc"
}
_poll_local() {
	local end=$(($(_now_cs) + $1 * 100))
	until eval "$2"; do
		[ "$(_now_cs)" -lt "$end" ] || return 124
		_nap 0.05
	done
}

# wait_listen HOST PORT SEC: an RDMA CM id listens on PORT (any port space).
wait_listen() {
	_poll "$1" "$3" "rdma cm_id LISTEN on port $2" \
		"/sbin/rdma resource show cm_id 2>/dev/null | grep -Eq 'state LISTEN .*src-addr [^ ]*:$2( |\$)'"
}
# wait_tcp_listen HOST PORT SEC: a kernel TCP socket listens on PORT.
wait_tcp_listen() {
	local hex
	hex=$(printf '%04X' "$2")
	_poll "$1" "$3" "tcp LISTEN on port $2" \
		"cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '\$4 == \"0A\" { print \$2 }' | grep -q ':$hex\$'"
}
# wait_log NAME REGEX SEC: the job's output matches REGEX (grep -E).
wait_log() {
	_poll "$(_job_host "$1")" "$3" "job $1 output matches /$2/" \
		"grep -Eq $(_q "$2") $(_q "$LAB_JOBS/$1.log") 2>/dev/null"
}

# ---- conveniences -------------------------------------------------------------

# expect_exit NAME CODE [HOST] CMD...: a whole case: CMD must exit with CODE.
expect_exit() {
	local name=$1 code=$2 host=a rc
	shift 2
	case $1 in [a-h]) _check_host "$1" 2>/dev/null && { host=$1; shift; } ;; esac
	case_begin "$name"
	run_on "$host" "$@"
	rc=$?
	[ "$rc" = "$code" ] || fail "exit $rc, expected $code"
	pass
}

# have_applet NAME: the binary under test provides the applet.
have_applet() { [ -x "$RT/$1" ]; }
# need_applet NAME...: skip the case unless every applet exists.
need_applet() {
	local a
	for a; do have_applet "$a" || { skip "applet $a not in the binary under test"; return 1; }; done
}
# output_has REGEX: the last run_on output matches (grep -E).
output_has() { grep -Eq "$1" "$OUT"; }

# gid_index HOST [DEV]: index of the IPv4-mapped RoCE v2 GID of the host's
# device (default its data link's; for perftest -x).
gid_index() {
	local host=$1 dev=${2:-}
	[ -n "$dev" ] || { [ "$host" = a ] && dev=$DEV_A || dev=$DEV_B; }
	_rpc_call "$host" "_gid_index_local $dev"
}
_gid_index_local() {
	local f i
	for f in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		i=${f##*/}
		case $(cat "$f" 2>/dev/null) in 0000:0000:0000:0000:0000:ffff:*)
			[ "$(cat "/sys/class/infiniband/$1/ports/1/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] &&
				{ echo "$i"; return 0; } ;;
		esac
	done
	echo 1
}

# ---- demo summary -------------------------------------------------------------

# peer_rel: the Debian release whose tools a bare upstream name runs
# (LAB_PEER_REL, else the default of /etc/lab/peers); peer_name TOOL: how
# the summary names that peer, e.g. "rping (Debian 13)".
peer_rel() {
	[ -z "${LAB_PEER_REL:-}" ] || { echo "$LAB_PEER_REL"; return; }
	sed -n 's/^default //p' /etc/lab/peers
}
peer_name() { echo "$1 (Debian $(peer_rel))"; }

# demo_row APPLET PEER DIRECTION FIGURE: this case is a row of the demo's
# summary table; its verdict is the case's. `lab demo` prints the table.
# PEER "upstream" or "perftest" means the upstream tool of the applet's
# name: the row names it with its release (peer_name).
demo_row() {
	local peer=$2
	case $peer in upstream | perftest) peer=$(peer_name "$1") ;; esac
	printf '%s\t%s\t%s\t%s' "$(_oneline "$1")" "$(_oneline "$peer")" "$(_oneline "$3")" \
		"$(_oneline "${4:--}")" > "$LAB_STATE/row"
}
# json_num FILE KEY...: the number at KEY (nested keys in order, each
# directly inside the previous one's object) of the JSON document in FILE,
# e.g. json_num "$OUT" rtt_us median; empty when absent.
json_num() {
	local f=$1 re=$2 k
	shift 2
	for k; do re="$re\":{[^{}]*\"$k"; done
	sed -n "s/.*\"$re\":\(-\{0,1\}[0-9][0-9.e+-]*\).*/\1/p" "$f" 2>/dev/null | head -n 1
}
# num DIGITS VALUE [UNIT]: VALUE rounded to DIGITS decimals, or "-" when
# it is missing.
num() {
	awk -v d="$1" -v v="$2" -v u="${3:-}" \
		'BEGIN { if (v == "") print "-"; else printf "%." d "f%s\n", v, (u == "" ? "" : " " u) }'
}
# side PEER: how a direction names the side: "rt" for rdmatest, else PEER.
side() { if [ "$1" = rdmatest ]; then echo rt; else echo "$1"; fi; }
# ratio A B SCALE UNIT: "A/B*SCALE UNIT" with one decimal, or "-" when
# either is missing or B is 0.
ratio() {
	awk -v a="$1" -v b="$2" -v s="$3" -v u="$4" \
		'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "-"; else printf "%.1f %s\n", a / b * s, u }'
}

# ---- fault injection (two hosts or more) --------------------------------------------

_need_two() {
	[ "$LAB_HOSTS" -ge 2 ] && return 0
	skip "fault injection needs two hosts (one-host traffic goes through lo)"
	return 1
}
# netem HOST ARGS...: tc netem on the host's data interface (eth0), e.g. loss 5%.
netem() {
	local host=$1
	shift
	_need_two || return 1
	run_on -t 10 "$host" /sbin/tc qdisc replace dev eth0 root netem "$@"
}
# netem_clear [HOST]: remove netem (every host by default), rail 1's too.
netem_clear() {
	local h
	[ "$LAB_HOSTS" -ge 2 ] || return 0
	for h in ${1:-$(lab_hosts)}; do
		_rpc_call "$h" "/sbin/tc qdisc del dev eth0 root 2>/dev/null;
			[ ! -e /sys/class/net/rail1 ] || /sbin/tc qdisc del dev rail1 root 2>/dev/null; true" > /dev/null
	done
}
# link_down HOST / link_up HOST: the host's data link; link_up waits (10 s)
# until the RDMA port is ACTIVE again.
link_down() {
	_need_two || return 1
	run_on -t 10 "$1" /sbin/ip link set eth0 down
}
link_up() {
	_need_two || return 1
	run_on -t 10 "$1" /sbin/ip link set eth0 up || return
	_poll "$1" 10 "rxe0 ACTIVE" "/sbin/rdma link show rxe0/1 | grep -q 'state ACTIVE'"
}

# ---- the second rail (`# rails: 2`) --------------------------------------------

_need_rails() {
	[ "${LAB_RAILS:-1}" -ge 2 ] && [ "$LAB_HOSTS" -ge 2 ] && return 0
	skip "needs the second RDMA link (header '# rails: 2', two hosts or more)"
	return 1
}
# port_state HOST DEV: the state of the device's port 1 (ACTIVE, DOWN ...)
# as rdma link shows it, on stdout.
port_state() {
	_rpc_call "$1" "/sbin/rdma link show $(_q "$2/1") | sed -n 's/.* state \([A-Z_]*\) .*/\1/p'"
}
# wait_port HOST DEV STATE SEC: until the device's port 1 is in STATE.
wait_port() {
	_poll "$1" "$4" "$2 port $3" "/sbin/rdma link show $(_q "$2/1") | grep -q ' state $3 '"
}
# rail_netem HOST ARGS...: tc netem on the host's rail 1 netdev (rail1).
rail_netem() {
	local host=$1
	shift
	_need_rails || return 1
	run_on -t 10 "$host" /sbin/tc qdisc replace dev rail1 root netem "$@"
}
# rail_down HOST / rail_up HOST: rail1 down, then wait (10 s) until rxe1's
# port is DOWN (Soft-RoCE follows its netdev: 0.06-0.12 s of the guest's
# clock here) / rail1 up, then wait (20 s) until the port is ACTIVE again
# (0.05-0.13 s).
rail_down() {
	_need_rails || return 1
	run_on -t 10 "$1" /sbin/ip link set rail1 down || return
	wait_port "$1" rxe1 DOWN 10
}
rail_up() {
	_need_rails || return 1
	run_on -t 10 "$1" /sbin/ip link set rail1 up || return
	wait_port "$1" rxe1 ACTIVE 20
}
