#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Job wrapper, started by start-stop-daemon in a new session: runs CMD with
# its output in PREFIX.log and records its exit status in PREFIX.rc.
# Usage: bgwrap.sh PREFIX CMD...
prefix=$1
shift
# A handler (not an ignore) lets the wrapper outlive signals sent to the
# process group while CMD still gets default dispositions.
trap ':' HUP INT QUIT TERM USR1 USR2 PIPE ALRM
read -r _ _ _ _ pgid _ < /proc/$$/stat
echo "$$ $pgid" > "$prefix.pid.tmp" && mv "$prefix.pid.tmp" "$prefix.pid"
# Line-buffered stdio for dynamically linked programs, so logs of killed
# servers are complete (LAB_STDBUF=0 turns this off): what coreutils'
# stdbuf sets up before it execs the program (stdbuf.c: set_LD_PRELOAD,
# set_libstdbuf_options), without stdbuf's own exec, about 40 ms a job
# under TCG.
if [ "${LAB_STDBUF:-1}" = 1 ] && [ -r /usr/libexec/coreutils/libstdbuf.so ]; then
	export LD_PRELOAD=/usr/libexec/coreutils/libstdbuf.so _STDBUF_O=L _STDBUF_E=L
fi
# A bare name runs the file PATH finds, as stdbuf's execvp did: busybox
# ash prefers its own applet of that name (its ip has no "nodad"). No
# exec for the lookup.
case $1 in
*/*) ;;
*)
	ifs=$IFS
	IFS=:
	for d in $PATH; do
		if [ -f "$d/$1" ] && [ -x "$d/$1" ]; then
			cmd="$d/$1"
			shift
			set -- "$cmd" "$@"
			break
		fi
	done
	IFS=$ifs
	;;
esac
: > "$prefix.log"
"$@" >> "$prefix.log" 2>&1 < /dev/null
echo "$?" > "$prefix.rc.tmp" && mv "$prefix.rc.tmp" "$prefix.rc"
