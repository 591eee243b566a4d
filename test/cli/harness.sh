# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# A small TAP harness for CLI tests (bash), sourced by the *.test scripts.
# check NAME EXIT [--out REGEX] [--err REGEX] [--no-out] -- CMD...
# runs CMD with a bound, and checks its exit status and output.
set -u
TAP_N=0
TAP_FAILED=0
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

tap_ok() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $1"; }
tap_not_ok() {
	TAP_N=$((TAP_N + 1)); TAP_FAILED=$((TAP_FAILED + 1))
	echo "not ok $TAP_N - $1"
	shift
	for line in "$@"; do printf '#   %s\n' "$line"; done
}

check() {
	local name=$1 want=$2 out_re='' err_re='' no_out=0 got why
	shift 2
	while [ "$1" != "--" ]; do
		case $1 in
		--out) out_re=$2; shift 2 ;;
		--err) err_re=$2; shift 2 ;;
		--no-out) no_out=1; shift ;;
		*) echo "check: bad argument $1" >&2; exit 99 ;;
		esac
	done
	shift
	timeout 20 "$@" >"$WORK/out" 2>"$WORK/err" </dev/null
	got=$?
	why=''
	[ "$got" = "$want" ] || why="exit $got, wanted $want"
	if [ -z "$why" ] && [ -n "$out_re" ] && ! grep -Eq -- "$out_re" "$WORK/out"; then
		why="stdout lacks /$out_re/"
	fi
	if [ -z "$why" ] && [ -n "$err_re" ] && ! grep -Eq -- "$err_re" "$WORK/err"; then
		why="stderr lacks /$err_re/"
	fi
	if [ -z "$why" ] && [ "$no_out" = 1 ] && [ -s "$WORK/out" ]; then
		why="stdout should be empty"
	fi
	if [ -z "$why" ]; then
		tap_ok "$name"
	else
		tap_not_ok "$name: $why" "cmd: $*" "stdout: $(head -c 600 "$WORK/out")" \
			"stderr: $(head -c 600 "$WORK/err")"
	fi
}

# same NAME CMD_A -- CMD_B: both must print the same and exit alike.
same() {
	local name=$1 cmd_a='' ra rb
	shift
	while [ "$1" != "--" ]; do cmd_a="$cmd_a $(printf '%q' "$1")"; shift; done; shift
	eval "timeout 20 $cmd_a" >"$WORK/a.out" 2>"$WORK/a.err" </dev/null; ra=$?
	timeout 20 "$@" >"$WORK/b.out" 2>"$WORK/b.err" </dev/null; rb=$?
	if [ "$ra" = "$rb" ] && cmp -s "$WORK/a.out" "$WORK/b.out" &&
	   cmp -s "$WORK/a.err" "$WORK/b.err"; then
		tap_ok "$name"
	else
		tap_not_ok "$name: outputs differ (exit $ra vs $rb)" \
			"$(diff "$WORK/a.out" "$WORK/b.out" | head -5)" \
			"$(diff "$WORK/a.err" "$WORK/b.err" | head -5)"
	fi
}

tap_done() {
	echo "1..$TAP_N"
	echo "# $((TAP_N - TAP_FAILED)) passed, $TAP_FAILED failed"
	[ "$TAP_FAILED" = 0 ]
}
