#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Run an upstream tool of one Debian release from its peers root
# (/opt/peers/SUITE, built by `lab setup`), chrooted there so that it loads
# that release's libraries, libibverbs provider and driver files.
#   up12 TOOL ARGS... / up13 TOOL ARGS...   that release's TOOL
#   /opt/peers/up12/TOOL ARGS...            the same, as one path (for
#                                           scenarios that keep a tool in a variable)
#   TOOL ARGS... (/usr/bin/TOOL links here)  LAB_PEER_REL's, else the default
# It execs the tool (same pid), so jobs, signals and pidof see the tool
# itself. /dev, /proc, /sys, /tmp and /etc/hosts are the guest's (init binds
# them), so paths under /tmp mean the same inside and out.
# shellcheck shell=dash
me=${0##*/}
case $me in
up[0-9]*)
	rel=${me#up}
	[ $# -gt 0 ] || { echo "usage: $me TOOL [ARGS...]" >&2; exit 2; }
	tool=${1##*/}
	shift
	;;
*)
	tool=$me
	case $0 in
	*/up[0-9]*/"$me") rel=${0%/*}; rel=${rel##*/up} ;;
	*) rel=${LAB_PEER_REL:-} ;;
	esac
	;;
esac
while read -r r suite _; do
	[ "$r" = default ] && [ -z "$rel" ] && rel=$suite
	[ "$r" = "$rel" ] && root=/opt/peers/$suite
done < /etc/lab/peers
# the default line is last: look again now that rel is known
[ -n "${root:-}" ] || while read -r r suite _; do
	[ "$r" = "$rel" ] && root=/opt/peers/$suite
done < /etc/lab/peers
if [ -z "${root:-}" ] || [ ! -x "$root/usr/bin/$tool" ]; then
	echo "lab: no $tool among Debian ${rel:-?}'s peers (/etc/lab/peers)" >&2
	exit 127
fi
# The tool starts in the root's /: give it absolute paths (scenarios do).
exec chroot "$root" "/usr/bin/$tool" "$@"
