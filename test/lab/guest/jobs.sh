# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Guest-side internals: local jobs and the RPC to the other host.
# Sourced by lib.sh (scenario shells, the runner, and agent requests).
# Nothing here is scenario API; see lib.sh and docs/dev/lab.md.
# shellcheck shell=dash disable=SC3003,SC3043,SC3045,SC3060 # busybox ash: $'\001', local, read -t, ${v//}

LAB_JOBS=/tmp/lab/bg          # NAME.pid NAME.log NAME.rc NAME.cmd on the host that runs NAME
LAB_AGENT_PORT=7700

# _clock: NOW_CS = centiseconds since boot. No fork: under TCG a fork
# costs 4-10 ms and the waits below read the clock every 20 ms.
_clock() {
	local u
	read -r u _ < /proc/uptime
	u=${u%.*}${u#*.}
	u=${u#"${u%%[!0]*}"}
	NOW_CS=${u:-0}
}
# Centiseconds since boot, on stdout.
_now_cs() {
	_clock
	echo "$NOW_CS"
}

# Shell-quote the arguments into one string that eval/sh -c turn back
# into them: _q prints it, _q_v sets Q (no fork).
_q_v() {
	local a
	Q=""
	for a in "$@"; do
		Q="$Q '${a//\'/\'\\\'\'}'"
	done
}
_q() {
	_q_v "$@"
	printf '%s' "$Q"
}

# _rm_existing FILE...: rm -f those that exist (rm is an exec: none when
# a glob matched nothing).
_rm_existing() {
	local f
	for f in "$@"; do
		[ ! -e "$f" ] || { rm -f "$@"; return; }
	done
}

# _nap SEC: sleep SEC (a fraction) without an exec: a read with a time
# bound on a FIFO that nobody writes (the init makes it). busybox's sleep
# is an exec, about 15 ms under TCG on top of the nap; the lab's waits
# poll, so that adds up.
LAB_NAP=/tmp/lab/nap
_nap() {
	if [ -p "$LAB_NAP" ]; then
		read -r -t "$1" _ <> "$LAB_NAP" || true
	else
		sleep "$1"
	fi
}

# Wait (bounded) until FILE exists. _wait_file FILE CENTISECONDS
_wait_file() {
	local end
	_clock
	end=$((NOW_CS + $2))
	while [ ! -e "$1" ]; do
		_clock
		[ "$NOW_CS" -lt "$end" ] || return 1
		_nap 0.02
	done
}

# Start CMD as a job in its own session with default signal dispositions
# (start-stop-daemon, not '&': ash would make SIGINT ignored).
_job_start() {
	local name=$1
	shift
	# mkdir and rm are execs: only when there is something to do
	[ -d "$LAB_JOBS" ] || mkdir -p "$LAB_JOBS"
	_rm_existing "$LAB_JOBS/$name".*
	_q "$@" > "$LAB_JOBS/$name.cmd"
	start-stop-daemon -S -b -q -p "$LAB_JOBS/$name.ssd" -x /bin/sh -- \
		/lab/bgwrap.sh "$LAB_JOBS/$name" "$@" ||
		{ echo "lab: cannot start job $name"; return 125; }
	_wait_file "$LAB_JOBS/$name.pid" 1000 ||
		{ echo "lab: job $name did not start"; return 125; }
}

# Pids of the job's processes except its wrapper.
_job_members() {
	local pgid wrapper f p rest
	read -r wrapper pgid < "$LAB_JOBS/$1.pid" || return 0
	for f in /proc/[0-9]*/stat; do
		# 2> first: a process may vanish between the glob and the open,
		# and the shell reports a failed redirection on the old stderr
		read -r p rest 2>/dev/null < "$f" || continue
		[ "$p" != "$wrapper" ] || continue
		rest=${rest##*) }
		# shellcheck disable=SC2086 # split the stat fields
		set -- $rest
		[ "${3:-}" = "$pgid" ] && echo "$p"
	done
}

# Signal the job (its whole process group, the wrapper survives and records
# the status); escalate to SIGKILL when it does not end. Prints the status.
_job_kill() {
	local name=$1 sig=${2:-TERM} pgid p
	_wait_file "$LAB_JOBS/$name.pid" 500 || { echo 125; return; }
	if [ ! -e "$LAB_JOBS/$name.rc" ]; then
		read -r _ pgid < "$LAB_JOBS/$name.pid"
		if [ "$sig" = KILL ] || [ "$sig" = 9 ]; then
			for p in $(_job_members "$name"); do kill -KILL "$p" 2>/dev/null; done
		else
			kill -"$sig" -- "-$pgid" 2>/dev/null
		fi
		if ! _wait_file "$LAB_JOBS/$name.rc" 500; then
			echo "lab: job $name ignored SIG$sig for 5 s, sending SIGKILL" >> "$LAB_JOBS/$name.log"
			for p in $(_job_members "$name"); do kill -KILL "$p" 2>/dev/null; done
			_wait_file "$LAB_JOBS/$name.rc" 300 || {
				kill -KILL -- "-$pgid" 2>/dev/null
				echo 137 > "$LAB_JOBS/$name.rc"
			}
		fi
	fi
	_job_rc "$name"
}

# The job's recorded status, on stdout (a read, not a cat: no exec).
_job_rc() {
	local rc=""
	read -r rc < "$LAB_JOBS/$1.rc"
	echo "$rc"
}

# Wait up to SEC seconds for the job; prints its status, or 124 after
# killing it when the bound is reached.
_job_wait() {
	local name=$1 sec=$2
	[ -e "$LAB_JOBS/$name.cmd" ] || { echo 127; return; }
	if _wait_file "$LAB_JOBS/$name.rc" $((sec * 100)); then
		_job_rc "$name"
	else
		echo "lab: job $name still running after ${sec}s: killed" >> "$LAB_JOBS/$name.log"
		_job_kill "$name" TERM > /dev/null
		echo 124
	fi
}

_job_log() { cat "$LAB_JOBS/$1.log" 2>/dev/null; }
_job_cmd() { cat "$LAB_JOBS/$1.cmd" 2>/dev/null; }
_job_done() { [ -e "$LAB_JOBS/$1.rc" ]; }

# Run a job to completion with a bound; print its output, return its status.
_job_run() {
	local name=$1 sec=$2 rc
	shift 2
	_job_start "$name" "$@" || return 125
	rc=$(_job_wait "$name" "$sec")
	_job_log "$name"
	return "$rc"
}

# Stop a job if it still runs; print "exited N" or "killed: status N".
_job_stop() {
	if _job_done "$1"; then
		echo "exited $(_job_rc "$1")"
	else
		echo "still running: killed, status $(_job_kill "$1" TERM)"
	fi
}

# _job_status_log NAME ACTION [ARGS...]: ACTION NAME ARGS (_job_wait,
# _job_kill, _job_stop), the last line it prints, then the job's log: a
# status and the log in one request (lib.sh's _job_request).
_job_status_log() {
	local name=$1 action=$2 s
	shift 2
	s=$("$action" "$name" "$@")
	echo "${s##*$'\n'}"
	_job_log "$name"
}

# Kill every job still running on this host (scenario cleanup).
_job_kill_all() {
	local f
	for f in "$LAB_JOBS"/*.pid; do
		[ -e "$f" ] || continue
		f=${f##*/}
		_job_kill "${f%.pid}" TERM > /dev/null
	done
	rm -rf "$LAB_JOBS"
}

# ---- what agent requests run besides the jobs (lib.sh's _poll, gid_index)

# _poll_local SEC SNIPPET: until SNIPPET succeeds here, at most SEC s (124).
_poll_local() {
	local end
	_clock
	end=$((NOW_CS + $1 * 100))
	until eval "$2"; do
		_clock
		[ "$NOW_CS" -lt "$end" ] || return 124
		_nap 0.05
	done
}

# _tcp_listening HEXPORT: a kernel TCP socket (v4 or v6) listens on the
# port (4 upper-case hex digits, as /proc/net/tcp writes it). Read by the
# shell: the pipeline of cat, awk and grep it replaces cost three execs
# every poll, on the host whose server is starting.
_tcp_listening() {
	local f local_addr state
	for f in /proc/net/tcp /proc/net/tcp6; do
		[ -r "$f" ] || continue
		while read -r _ local_addr _ state _; do
			[ "$state" = 0A ] && [ "${local_addr##*:}" = "$1" ] && return 0
		done < "$f"
	done
	return 1
}

# _gid_index_local DEV: index of the device's IPv4-mapped RoCE v2 GID (1
# when there is none); reads, not cats: no exec per GID.
_gid_index_local() {
	local f i gid type
	for f in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		i=${f##*/} gid="" type=""
		read -r gid 2>/dev/null < "$f"
		case $gid in 0000:0000:0000:0000:0000:ffff:*)
			read -r type 2>/dev/null < "/sys/class/infiniband/$1/ports/1/gid_attrs/types/$i"
			[ "$type" = "RoCE v2" ] && { echo "$i"; return 0; } ;;
		esac
	done
	echo 1
}

# Number of HOST: 1 for a, 2 for b, ... (its address is 192.0.2.N).
_host_n() { _host_index "$1" && echo "$HOST_N"; }
# _host_index HOST: HOST_N = its number, no fork (the RPC's every call).
_host_index() {
	case $1 in
	a) HOST_N=1 ;; b) HOST_N=2 ;; c) HOST_N=3 ;; d) HOST_N=4 ;;
	e) HOST_N=5 ;; f) HOST_N=6 ;; g) HOST_N=7 ;; h) HOST_N=8 ;;
	*) return 1 ;;
	esac
}

# _rpc_run HOST SNIPPET [SEC]: run SNIPPET (shell code, jobs.sh loaded) on
# HOST within SEC seconds; RPC_RC = its status (126 when HOST did not
# answer), RPC_OUT = its output without trailing newlines. One fork for
# the request and none around it: a case makes several.
_rpc_run() {
	local host=$1 snippet=$2 sec=${3:-30} nl=$'\n'
	RPC_OUT="" RPC_RC=126
	if [ "$LAB_HOSTS" = 1 ] || [ "$host" = "$LAB_ROLE" ]; then
		RPC_OUT=$(eval "$snippet" 2>&1) # a subshell already
		RPC_RC=$?
		return 0
	fi
	_host_index "$host" || { RPC_OUT="lab: no host '$host'"; return 0; }
	# one line: the snippet's newlines as \001 (shell code has none), which
	# the agent turns back; no exec (a base64 cost one on each side)
	RPC_OUT=$(printf '%s\n' "${snippet//$'\n'/$'\001'}" |
		timeout $((sec + 10)) nc -w 5 "198.51.100.$HOST_N" "$LAB_AGENT_PORT" 2>&1)
	# the agent's reply ends in "@rc N" (agent.sh): anything else, a
	# cut-off reply included, is no answer
	case $RPC_OUT in *"@rc "*) RPC_RC=${RPC_OUT##*@rc } ;; *) RPC_RC="" ;; esac
	case $RPC_RC in '' | *[!0-9]*)
		RPC_RC=126
		RPC_OUT="lab: no answer from host $host${RPC_OUT:+: $RPC_OUT}"
		return 0 ;;
	esac
	RPC_OUT=${RPC_OUT%@rc *}
	# the agent's own newline before "@rc", and the output's trailing
	# newlines, as a command substitution would drop them
	while [ "${RPC_OUT%"$nl"}" != "$RPC_OUT" ]; do RPC_OUT=${RPC_OUT%"$nl"}; done
}

# _rpc HOST SNIPPET [SEC]: prints "@rc N" then the snippet's output.
_rpc() {
	_rpc_run "$@"
	echo "@rc $RPC_RC"
	[ -z "$RPC_OUT" ] || printf '%s\n' "$RPC_OUT"
}

# _rpc_call HOST SNIPPET [SEC]: the output to stdout, returns N.
_rpc_call() {
	_rpc_run "$@"
	[ -z "$RPC_OUT" ] || printf '%s\n' "$RPC_OUT"
	return "$RPC_RC"
}
