# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Scenario API of the rdmatest lab (busybox ash). Scenario files are sourced
# after this library; see docs/dev/lab.md for the reference.
# shellcheck shell=dash disable=SC2034,SC3003,SC3043,SC3057,SC3060 # busybox ash: local, ${v//}, $'\n', ${v:0:N}; API variables

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
[ -d "$LAB_STATE" ] || mkdir -p "$LAB_STATE"

# ---- output ---------------------------------------------------------------

# Result and comment lines go to fd 3 (the console), everything else to
# the transcript. Outside the runner fd 3 may be closed: fall back to stdout.
# These run a few times a case: the one-line forms fork nothing (under
# TCG a fork costs 4-10 ms, an exec 10-15 ms).
_to_console() { if { true >&3; } 2>/dev/null; then cat >&3; else cat; fi; }
_console_line() { if { true >&3; } 2>/dev/null; then printf '%s\n' "$1" >&3; else printf '%s\n' "$1"; fi; }
_emit() { _console_line "@lab $*"; }
# _result PASS|FAIL|SKIP NAME [REASON]: the line the host turns into TAP
# (a tab separates the name from the reason).
_result() {
	local name
	_oneline_v "$2"
	name=$ONELINE
	if [ -n "${3:-}" ]; then
		_oneline_v "$3"
		_console_line "@lab $1 $name	$ONELINE"
	else
		_console_line "@lab $1 $name"
	fi
}
# record JSON: one measurement line for the host (`lab bench` collects
# them into data.jsonl next to its report).
record() { _emit "DATA $(printf '%s' "$1" | tr '\n\r' '  ')"; }
# Add text to the case transcript (stdin or arguments).
note() { if [ $# -gt 0 ]; then printf '%s\n' "$*"; else cat; fi >> "$LAB_TRANSCRIPT"; }
# One line, no '#' (TAP directive), no newlines, at most 300 characters:
# _oneline prints it, _oneline_v sets ONELINE.
_oneline_v() {
	local v="$*"
	v=${v//$'\n'/ }
	v=${v//$'\r'/ }
	v=${v//$'\t'/ }
	ONELINE=${v//\#/_}
	ONELINE=${ONELINE:0:300}
}
_oneline() { _oneline_v "$@"; printf '%s\n' "$ONELINE"; }

# ---- cases ----------------------------------------------------------------

# case_begin NAME [TIMEOUT]: open a case (closing any open one). Every wait
# inside is clamped to TIMEOUT (default $CASE_TIMEOUT) seconds in total.
case_begin() {
	local n=0 up
	[ ! -e "$LAB_STATE/name" ] || case_end
	: > "$LAB_TRANSCRIPT"
	_rm_existing "$LAB_STATE"/*
	echo "$1" > "$LAB_STATE/name"
	_clock
	echo $((NOW_CS + ${2:-$CASE_TIMEOUT} * 100)) > "$LAB_STATE/deadline"
	echo "${2:-$CASE_TIMEOUT}" > "$LAB_STATE/bound"
	echo "$NOW_CS" > "$LAB_STATE/start"
	[ ! -e /tmp/lab/ncases ] || read -r n < /tmp/lab/ncases
	echo $((n + 1)) > /tmp/lab/ncases
	read -r up _ < /proc/uptime
	note "=== case $1 (bound ${2:-$CASE_TIMEOUT}s, guest uptime ${up}s) ==="
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
	local name result=PASS t0 job host row=""
	[ -e "$LAB_STATE/name" ] || return 0
	read -r name < "$LAB_STATE/name"
	if [ -e "$LAB_STATE/jobs" ]; then
		while read -r job host; do _reap "$job" "$host"; done < "$LAB_STATE/jobs"
	fi
	[ ! -e "$LAB_STATE/result" ] || IFS= read -r result < "$LAB_STATE/result"
	read -r t0 < "$LAB_STATE/start"
	_clock
	t0=$((NOW_CS - t0))
	note "=== $name: ${result%% *} after $((t0 / 100)).$((t0 / 10 % 10))s ==="
	if [ -e "$LAB_STATE/row" ]; then
		IFS= read -r row < "$LAB_STATE/row" # one line without a newline: read says 1
		_console_line "@lab ROW ${result%% *}	$row"
	fi
	if [ "${result%% *}" = FAIL ] || [ "${LAB_VERBOSE:-0}" = 1 ] || [ "${LAB_MODE:-}" = demo ]; then
		sed 's/^/@lab # /' "$LAB_TRANSCRIPT" | _to_console
	fi
	case $result in
	PASS) _result PASS "${LAB_SCENARIO:+$LAB_SCENARIO/}$name" ;;
	*) _result "${result%% *}" "${LAB_SCENARIO:+$LAB_SCENARIO/}$name" "${result#* }" ;;
	esac
	_rm_existing "$LAB_STATE"/*
}

# _bound_v SEC: BOUND = the seconds left of SEC within the case bound;
# fails the case (and returns 1) when none are left.
_bound_v() {
	local left deadline bound
	BOUND=$1
	[ -e "$LAB_STATE/deadline" ] || return 0
	read -r deadline < "$LAB_STATE/deadline"
	_clock
	left=$(((deadline - NOW_CS) / 100))
	if [ "$left" -le 0 ]; then
		read -r bound < "$LAB_STATE/bound"
		fail "case exceeded its bound of ${bound}s"
		BOUND=0
		return 1
	fi
	[ "$1" -le "$left" ] || BOUND=$left
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
	local sec=$RUN_TIMEOUT host rc t0 t how=""
	[ "$1" != -t ] || { sec=$2; shift 2; }
	host=$1
	shift
	_check_host "$host" || return 2
	_bound_v "$sec" || return 124
	sec=$BOUND
	note "[$host]\$ $*"
	_clock
	t0=$NOW_CS
	_q_v "$@"
	_rpc_run "$host" "_job_run run.\$\$ $sec $Q" "$sec"
	rc=$RPC_RC
	_clock
	t=$((NOW_CS - t0))
	if [ -n "$RPC_OUT" ]; then
		printf '%s\n' "$RPC_OUT" > "$OUT"
		printf '%s\n' "$RPC_OUT" >> "$LAB_TRANSCRIPT"
	else
		: > "$OUT"
	fi
	[ "$rc" != 124 ] || how=": timed out after ${sec}s"
	note "[$host] exit $rc ($((t / 100)).$((t / 10 % 10))s)$how"
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
	_rm_existing "/tmp/lab/reaped.$name" "/tmp/lab/log.$name"
	_q_v "$name" "$@"
	_rpc_run "$host" "_job_start $Q"
	[ "$RPC_RC" = 0 ] || {
		note "$RPC_OUT"
		return 125
	}
}

# _job_host_v NAME: JOB_HOST = the host the job runs on (a when unknown).
_job_host_v() {
	JOB_HOST=a
	[ ! -e "/tmp/lab/job.$1" ] || read -r JOB_HOST < "/tmp/lab/job.$1"
}

# _job_request HOST SEC NAME ACTION [ARGS...]: jobs.sh's ACTION (a _job_*
# call that prints a status) on HOST, and the job's log in the same
# request (one request where there were two): JOB_STATUS is the status,
# JOB_LOG the log (or why there is no answer).
_job_request() {
	local host=$1 sec=$2
	shift 2
	_q_v "$@"
	_rpc_run "$host" "_job_status_log $Q" "$sec"
	JOB_STATUS=${RPC_OUT%%$'\n'*} JOB_LOG="" JOB_LOG_OK=1
	case $RPC_OUT in *$'\n'*) JOB_LOG=${RPC_OUT#*$'\n'} ;; esac
	[ "$RPC_RC" = 0 ] || JOB_STATUS="" JOB_LOG=$RPC_OUT JOB_LOG_OK=0
}

# _job_number: JOB_STATUS as an exit status, 125 (and a note) when it is
# none.
_job_number() {
	case $JOB_STATUS in '' | *[!0-9]*)
		note "[$1] job $2: $3 answered '$JOB_STATUS'"
		JOB_STATUS=125 ;;
	esac
}

# _log_job NAME HOST: the JOB_LOG of the _job_request just made into the
# transcript, once. The job has ended: its output can no longer change,
# so a copy here (when the request was answered) serves bg_log without a
# request (scenarios read a log right after its end).
_log_job() {
	[ -e "/tmp/lab/job.$1" ] && [ ! -e "/tmp/lab/reaped.$1" ] || return 0
	: > "/tmp/lab/reaped.$1"
	if [ "$JOB_LOG_OK" = 1 ]; then
		if [ -n "$JOB_LOG" ]; then printf '%s\n' "$JOB_LOG"; fi > "/tmp/lab/log.$1"
	fi
	note "--- [$2] output of job $1 ---"
	[ -z "$JOB_LOG" ] || note "$JOB_LOG"
	note "--- end of job $1 ---"
}

# _reap NAME HOST: at case end, stop the job if it still runs, then its
# status and log into the transcript (once).
_reap() {
	[ -e "/tmp/lab/job.$1" ] && [ ! -e "/tmp/lab/reaped.$1" ] || return 0
	_job_request "$2" 20 "$1" _job_stop
	note "[$2] job $1 at case end: $JOB_STATUS"
	_log_job "$1" "$2"
}

# bg_wait NAME SEC: wait for the job; returns its status, or kills it and
# returns 124 after SEC seconds.
bg_wait() {
	local name=$1 sec host how=""
	_job_host_v "$name"
	host=$JOB_HOST
	_bound_v "$2" || { bg_kill "$name"; return 124; }
	sec=$BOUND
	_job_request "$host" "$sec" "$name" _job_wait "$sec"
	_job_number "$host" "$name" wait
	[ "$JOB_STATUS" != 124 ] || how=": timed out after ${sec}s, killed"
	note "[$host] job $name: status $JOB_STATUS$how"
	_log_job "$name" "$host"
	return "$JOB_STATUS"
}

# bg_kill NAME [SIG]: signal the job (default TERM; SIGKILL if it does not
# end within 5 s); returns its status.
bg_kill() {
	local name=$1 sig=${2:-TERM} host
	_job_host_v "$name"
	host=$JOB_HOST
	_job_request "$host" 20 "$name" _job_kill "$sig"
	_job_number "$host" "$name" kill
	note "[$host] job $name killed with SIG$sig: status $JOB_STATUS"
	_log_job "$name" "$host"
	return "$JOB_STATUS"
}

# bg_log NAME: print the job's output so far (its whole output once
# bg_wait, bg_kill or the case end saw it end).
bg_log() {
	if [ -e "/tmp/lab/log.$1" ]; then
		cat "/tmp/lab/log.$1"
		return
	fi
	_job_host_v "$1"
	_q_v "$1"
	_rpc_call "$JOB_HOST" "_job_log $Q"
}

# ---- readiness (no sleeps) ------------------------------------------------------

# _poll HOST SEC WHAT SNIPPET: run SNIPPET on HOST until it succeeds, at most SEC s.
_poll() {
	local host=$1 sec what=$3 snippet=$4 t0 t
	_check_host "$host" || return 2
	_bound_v "$2" || return 124
	sec=$BOUND
	_clock
	t0=$NOW_CS
	_q_v "$snippet"
	_rpc_run "$host" "_poll_local $sec $Q" "$sec"
	local rc=$RPC_RC
	_clock
	t=$((NOW_CS - t0))
	if [ "$rc" = 0 ]; then
		note "[$host] ready: $what ($((t / 100)).$((t / 10 % 10))s)"
	else
		note "[$host] not ready after ${sec}s: $what"
	fi
	return "$rc"
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
	_poll "$1" "$3" "tcp LISTEN on port $2" "_tcp_listening $hex"
}
# wait_log NAME REGEX SEC: the job's output matches REGEX (grep -E).
wait_log() {
	_job_host_v "$1"
	_q_v "$2" "$LAB_JOBS/$1.log"
	_poll "$JOB_HOST" "$3" "job $1 output matches /$2/" "grep -Eq $Q 2>/dev/null"
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
