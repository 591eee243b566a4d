# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# shellcheck shell=bash
# Shared by the launcher tests (bash, sourced): four ranks of
# `rdmatest mesh --dry-run` started by a real launcher, each writing what
# it resolved to out/<pid>, and the checks that the four agree.
# shellcheck source=../cli/harness.sh
. "$(dirname "$0")/../cli/harness.sh" || exit 99
RT=$(readlink -f "$1")
INSTALL_HINT="scripts/install-deps --launchers"
export RT WORK
mkdir -p "$WORK/out"

# skip_all REASON: the whole test is skipped, saying why
skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

# need PROG...: skipped, naming the group to install, when one is missing
need() {
	local p
	for p; do
		command -v "$p" >/dev/null || skip_all "$p is not installed ($INSTALL_HINT)"
	done
}

# $WORK/rank [--as HOST] ARGS...: one rank. --as makes HOST this
# machine's name (in a UTS namespace of its own), so that four ranks on
# one machine find four different hosts of a --hosts list.
cat > "$WORK/rank" <<'RANK'
#!/bin/sh
out=$WORK/out/$$
if [ "${1:-}" = --as ]; then
	hostname "$2" || { echo 99 > "$out.rc"; exit 99; }
	shift 2
fi
"$RT" mesh --dry-run "$@" > "$out" 2> "$out.err"
echo $? > "$out.rc"
RANK
chmod +x "$WORK/rank"

# A UTS namespace: root's own, or an unprivileged user's through a user
# namespace; empty when neither works here.
export UTS=""
if unshare --uts true 2>/dev/null; then
	UTS="unshare --uts"
elif unshare --user --map-root-user --uts true 2>/dev/null; then
	UTS="unshare --user --map-root-user --uts"
fi

# same_as FILE OUT...: every OUT's lines but its rank are FILE's
same_as() {
	local want=$1 f
	shift
	for f; do cmp -s "$want" "$f.rest" || return 1; done
}

# agree LAUNCHER: four ranks ran, each exited 0, the ranks are 0..3 once
# each, and all else they resolved (launcher, size, hosts, coordinator,
# port, schedule, and whatever a later build adds) is the same.
agree() {
	local want=$1 files rcs ranks first f
	files=$(find "$WORK/out" -name '[0-9]*' ! -name '*.*' | sort)
	rcs=$(cat "$WORK"/out/*.rc 2>/dev/null | sort | paste -sd,)
	if [ "$rcs" = "0,0,0,0" ]; then
		tap_ok "$want: 4 ranks ran, each exited 0"
	else
		tap_not_ok "$want: 4 ranks each exiting 0 wanted, got exits '$rcs'" \
			"stderr: $(cat "$WORK"/out/*.err 2>/dev/null | head -c 600)"
	fi
	ranks=$(cat $files /dev/null | sed -n 's/^rank: //p' | sort -n | paste -sd,)
	if [ "$ranks" = "0,1,2,3" ]; then
		tap_ok "$want: ranks 0..3, each once"
	else
		tap_not_ok "$want: ranks 0,1,2,3 wanted, got '$ranks'"
	fi
	first=$(echo "$files" | head -n 1)
	for f in $files; do
		grep -v '^rank: ' "$f" > "$f.rest"
	done
	if [ -n "$first" ] && grep -q "^launcher: $want$" "$first.rest" &&
	   grep -q '^size: 4$' "$first.rest" &&
	   same_as "$first.rest" $files; then
		tap_ok "$want: the ranks agree on size 4, hosts, coordinator and schedule"
	else
		tap_not_ok "$want: the ranks disagree (or are not $want ranks of 4)" \
			"$(for f in $files; do paste -sd' ' "$f"; done)"
	fi
}
