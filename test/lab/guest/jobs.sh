# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Guest-side internals: local jobs and the RPC to the other host.
# Sourced by lib.sh (scenario shells, the runner, and agent requests).
# Nothing here is scenario API; see lib.sh and docs/dev/lab.md.
# shellcheck shell=dash disable=SC3003,SC3043,SC3045,SC3060 # busybox ash: $'\001', local, read -t, ${v//}

LAB_JOBS=/tmp/lab/bg          # NAME.pid NAME.log NAME.rc NAME.cmd on the host that runs NAME
LAB_AGENT_PORT=7700

# Centiseconds since boot.
_now_cs() {
	local u
	read -r u _ < /proc/uptime
	u=${u%.*}${u#*.}
	u=${u#"${u%%[!0]*}"}
	echo "${u:-0}"
}

# Shell-quote the arguments into one string that eval/sh -c turn back into them.
_q() {
	local out="" a
	for a in "$@"; do
		out="$out '${a//\'/\'\\\'\'}'"
	done
	printf '%s' "$out"
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
	local end=$(($(_now_cs) + $2))
	while [ ! -e "$1" ]; do
		[ "$(_now_cs)" -lt "$end" ] || return 1
		_nap 0.02
	done
}

# Start CMD as a job in its own session with default signal dispositions
# (start-stop-daemon, not '&': ash would make SIGINT ignored).
_job_start() {
	local name=$1
	shift
	mkdir -p "$LAB_JOBS"
	rm -f "$LAB_JOBS/$name".*
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
	cat "$LAB_JOBS/$name.rc"
}

# Wait up to SEC seconds for the job; prints its status, or 124 after
# killing it when the bound is reached.
_job_wait() {
	local name=$1 sec=$2
	[ -e "$LAB_JOBS/$name.cmd" ] || { echo 127; return; }
	if _wait_file "$LAB_JOBS/$name.rc" $((sec * 100)); then
		cat "$LAB_JOBS/$name.rc"
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
		echo "exited $(cat "$LAB_JOBS/$1.rc")"
	else
		echo "still running: killed, status $(_job_kill "$1" TERM)"
	fi
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

# Number of HOST: 1 for a, 2 for b, ... (its address is 192.0.2.N).
_host_n() {
	local n=1 r
	for r in a b c d e f g h; do
		[ "$r" = "$1" ] && { echo "$n"; return 0; }
		n=$((n + 1))
	done
	return 1
}

# Address of HOST's agent on the control network.
_ctl_ip() { echo "198.51.100.$(_host_n "$1")"; }

# Run SNIPPET (shell code, lib.sh loaded) on HOST within SEC seconds.
# Prints "@rc N" then the snippet's output; N is 126 when HOST did not answer.
_rpc() {
	local host=$1 snippet=$2 sec=${3:-30} out rc
	if [ "$LAB_HOSTS" = 1 ] || [ "$host" = "$LAB_ROLE" ]; then
		out=$( (eval "$snippet") 2>&1)
		echo "@rc $?"
		[ -z "$out" ] || printf '%s\n' "$out"
		return 0
	fi
	# one line: the snippet's newlines as \001 (shell code has none), which
	# the agent turns back; no exec (a base64 cost one on each side)
	out=$(printf '%s\n' "${snippet//$'\n'/$'\001'}" |
		timeout $((sec + 10)) nc -w 5 "$(_ctl_ip "$host")" "$LAB_AGENT_PORT" 2>&1)
	# the agent's reply ends in "@rc N" (agent.sh): anything else, a
	# cut-off reply included, is no answer
	case $out in *"@rc "*) rc=${out##*@rc } ;; *) rc="" ;; esac
	case $rc in *[!0-9]*) rc="" ;; esac
	if [ -z "$rc" ]; then
		echo "@rc 126"
		echo "lab: no answer from host $host${out:+: $out}"
		return 0
	fi
	echo "@rc $rc"
	out=${out%@rc *}
	# the agent's own newline before "@rc", and the output's trailing
	# newlines, as a command substitution drops them
	out=$(printf '%s' "$out")
	[ -z "$out" ] || printf '%s\n' "$out"
}

# _rpc, then split: output to stdout, returns N.
_rpc_call() {
	local r rc
	r=$(_rpc "$@")
	rc=${r%%
*}
	rc=${rc#@rc }
	case $r in *"
"*) printf '%s\n' "${r#*
}" ;; esac
	return "$rc"
}
