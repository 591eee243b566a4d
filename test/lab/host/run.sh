# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# shellcheck shell=bash
# `lab run|test|demo|shell|list`: pick scenarios, boot, turn the guest's
# console into TAP (or demo text). Sourced by test/lab/lab.

# scenario_header FILE KEY DEFAULT, the guest's runner's too
# shellcheck source=../guest/header.sh
. "$LAB_DIR/guest/header.sh"

# A scenario argument: a file path, or a name in test/lab/scenarios.
scenario_file() {
	local s=$1
	if [ -f "$s" ]; then echo "$s"; return; fi
	s=${s%.sh}
	[ -f "$LAB_DIR/scenarios/$s.sh" ] || die "no scenario '$1' (see: lab list)"
	echo "$LAB_DIR/scenarios/$s.sh"
}

cmd_list() {
	local f
	for f in "$LAB_DIR"/scenarios/*.sh; do
		printf '%-28s hosts: %s  rails: %s  timeout: %ss\n' "$(basename "$f" .sh)" \
			"$(scenario_header "$f" hosts 1)" "$(scenario_header "$f" rails 1)" \
			"$(scenario_header "$f" timeout 300)"
	done
}

# `lab header SCENARIO...`: "HOSTS RAILS TIMEOUT" of scenarios that share
# one boot (a batch in test/lab/meson.build): the hosts and rails they all
# ask for, which must agree (a rails-less scenario never boots with the
# second link), and the sum of their timeouts.
cmd_header() {
	local f h r hosts="" rails="" sum=0
	[ $# -gt 0 ] || die "header: no scenario given"
	for f in "$@"; do
		f=$(scenario_file "$f")
		h=$(scenario_header "$f" hosts 1) r=$(scenario_header "$f" rails 1)
		[ -z "$hosts" ] || [ "$h" = "$hosts" ] ||
			die "one boot for $*: ${f##*/} needs $h hosts, the others $hosts"
		[ -z "$rails" ] || [ "$r" = "$rails" ] ||
			die "one boot for $*: ${f##*/} needs $r rails, the others $rails"
		hosts=$h rails=$r sum=$((sum + $(scenario_header "$f" timeout 300)))
	done
	echo "$hosts $rails $sum"
}

now() { echo "${EPOCHREALTIME/./}" | cut -c1-13; } # milliseconds
secs() { printf '%d.%d' $(($1 / 1000)) $(($1 % 1000 / 100)); }

# case_tap LINE: one result line of host a's console as TAP (or demo text);
# counts in console_to_tap's locals
case_tap() {
	local line=$1
	case $line in
	*"@lab PASS "*)
		n=$((n + 1)) npass=$((npass + 1))
		rest=${line#*@lab PASS }
		if [ "$RUN_MODE" = demo ]; then echo "PASS $rest"; else echo "ok $n - $rest"; fi
		;;
	*"@lab FAIL "*)
		n=$((n + 1)) nfail=$((nfail + 1))
		rest=${line#*@lab FAIL }
		name=${rest%%$'\t'*} why=${rest#*$'\t'}
		[ "$name" != "$rest" ] || why="(no reason given)"
		if [ "$RUN_MODE" = demo ]; then echo "FAIL $name: $why"; else echo "not ok $n - $name: $why"; fi
		failure_digest "$name: $why"
		;;
	*"@lab SKIP "*)
		n=$((n + 1)) nskip=$((nskip + 1))
		rest=${line#*@lab SKIP }
		name=${rest%%$'\t'*} why=${rest#*$'\t'}
		[ "$name" != "$rest" ] || why="(no reason given)"
		if [ "$RUN_MODE" = demo ]; then echo "SKIP $name: $why"; else echo "ok $n - $name # SKIP $why"; fi
		;;
	esac
}

# failure_digest "NAME: WHY": the failed case's result and the last lines
# of its transcript, kept for the end of the run (and appended to
# $RDMATEST_LAB_FAILURES when set, for ./check's last lines): a CI log cut
# to its tail then still says why a case failed. At most DIGEST_CASES
# cases (case_tap's nfail counts them) of DIGEST_LINES lines each.
DIGEST_CASES=4 DIGEST_LINES=30
failure_digest() {
	[ "$nfail" -le "$DIGEST_CASES" ] || return 0
	{
		echo "=== not ok: $1"
		tail -n "$DIGEST_LINES" "$RUN_DIR/case.tx" 2> /dev/null | sed 's/^/| /'
	} >> "$RUN_DIR/failures"
}

# The digest again, last (and to $RDMATEST_LAB_FAILURES).
failures_print() {
	[ -s "$RUN_DIR/failures" ] || return 0
	echo "# --- failed cases (at most $DIGEST_CASES), each one's last $DIGEST_LINES transcript lines ---"
	sed 's/^/# /' "$RUN_DIR/failures"
	[ -z "${RDMATEST_LAB_FAILURES:-}" ] || cat "$RUN_DIR/failures" >> "$RDMATEST_LAB_FAILURES"
}

# Read host a's console on stdin; print TAP (or demo text); write counts to $1.
console_to_tap() {
	local state=$1 n=0 npass=0 nfail=0 nskip=0 end=0 line rest name why t0 tready="" tall="" tcase
	t0=$(now) tcase=$t0
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		*"@lab PASS "* | *"@lab FAIL "* | *"@lab SKIP "*)
			# a TAP comment after each result: the case's seconds since the
			# last result (the first one's include the boot), for ./check's minutes
			case_tap "$line"
			: > "$RUN_DIR/case.tx"
			[ "$RUN_MODE" = demo ] || echo "# $(secs $(($(now) - tcase))) s"
			tcase=$(now)
			;;
		*"@lab ROW "*) echo "${line#*@lab ROW }" >> "$RUN_DIR/rows" ;;
		*"@lab DATA "*) echo "${line#*@lab DATA }" >> "${LAB_DATA_OUT:-$RUN_DIR/data.jsonl}" ;;
		*"@lab # "*)
			rest=${line#*@lab # }
			case $rest in
			"lab: host a up"*) tready=$(now) ;;
			"lab: ready after"*) tall=$(now) ;;
			esac
			if [ "$RUN_MODE" = demo ]; then echo "$rest"; else echo "# $rest"; fi
			echo "$rest" >> "$RUN_DIR/case.tx"
			;;
		*"@lab END"*)
			end=1
			# poweroff -f follows; should qemu linger, do not wait for the watchdog
			watchdog 15 lingering > /dev/null 2>&1 &
			echo $! > "$RUN_DIR/endkill.pid"
			;;
		*) [ "$RUN_VERBOSE" = 0 ] || echo "# [a] $line" ;;
		esac
	done
	echo "n=$n npass=$npass nfail=$nfail nskip=$nskip end=$end tready=${tready:-0} tall=${tall:-0} t0=$t0" > "$state"
}

# The demo's summary table from the scenarios' rows (demo_row in
# guest/lib.sh): "VERDICT<tab>APPLET<tab>PEER<tab>DIRECTION<tab>FIGURE".
demo_summary() {
	local verdict applet peer dir fig fmt='%-17s %-29s %-30s %-7s %s\n'
	[ -s "$1" ] || return 0
	echo
	echo "summary:"
	# shellcheck disable=SC2059 # one format for every row
	printf "$fmt" applet peer direction verdict "headline figure"
	while IFS=$'\t' read -r verdict applet peer dir fig; do
		# shellcheck disable=SC2059
		printf "$fmt" "$applet" "$peer" "$dir" "$verdict" "$fig"
	done < "$1"
	echo
}

# Print the tail of a console file as TAP comments.
console_tail() {
	[ -s "$1" ] || return 0
	echo "# --- last lines of $2's console ---"
	tail -n "${3:-30}" "$1" | tr -d '\r' | sed 's/^/# | /'
}

# The guest did not reach its END marker: say why, as one failed test.
report_abort() {
	local n=$1 timeout=$2 boot_sec=$3 reason qlog
	if [ -e "$RUN_DIR/boothang" ]; then
		reason="guests did not boot within ${boot_sec}s, twice: qemu killed"
	elif [ -e "$RUN_DIR/timeout" ]; then
		reason="no result within ${timeout}s (guest hung?): qemu killed"
	elif grep -q 'Kernel panic' "$RUN_DIR/a.console" 2> /dev/null; then
		reason="guest kernel panic: $(grep -m1 'Kernel panic' "$RUN_DIR/a.console" | tr -d '\r#')"
	else
		qlog=$(tail -n 1 "$RUN_DIR/a.qemu.log" 2> /dev/null | tr -d '#')
		reason="guest a stopped before the end of the run${qlog:+ (qemu: $qlog)}"
	fi
	if [ "$RUN_MODE" = demo ]; then echo "FAIL lab: $reason"; else echo "not ok $((n + 1)) - lab: $reason"; fi
}

# Parse options shared by run/test/demo/shell into RUN_* variables.
run_parse() {
	RUN_HOSTS="" RUN_RAILS="" RUN_BINARY="" RUN_TIMEOUT="" RUN_VERBOSE=0 RUN_KEEP=0
	RUN_SCENARIOS=() RUN_EXTRA=() RUN_INITRDS=() RUN_APPEND=
	while [ $# -gt 0 ]; do
		case $1 in
		--hosts) RUN_HOSTS=${2:?--hosts needs a number from 1 to 8}; shift ;;
		--hosts=*) RUN_HOSTS=${1#*=} ;;
		--rails) RUN_RAILS=${2:?--rails needs 1 or 2}; shift ;;
		--rails=*) RUN_RAILS=${1#*=} ;;
		--binary) RUN_BINARY=${2?--binary needs a path}; shift ;;
		--binary=*) RUN_BINARY=${1#*=} ;;
		--extra) RUN_EXTRA+=("$(realpath "${2:?--extra needs a path}")"); shift ;;
		--initrd) RUN_INITRDS+=("$(realpath "${2:?--initrd needs a file}")"); shift ;;
		--append) RUN_APPEND=${2?--append needs kernel parameters}; shift ;;
		--extra=*) RUN_EXTRA+=("$(realpath "${1#*=}")") ;;
		--timeout) RUN_TIMEOUT=${2:?--timeout needs seconds}; shift ;;
		--timeout=*) RUN_TIMEOUT=${1#*=} ;;
		--verbose | -v) RUN_VERBOSE=1 ;;
		--keep) RUN_KEEP=1 ;;
		-*) die "$RUN_MODE: unknown option $1" ;;
		*) RUN_SCENARIOS+=("$(scenario_file "$1")") ;;
		esac
		shift
	done
	case ${RUN_HOSTS:-1} in [1-8]) ;; *) die "--hosts must be a number from 1 to 8" ;; esac
	case ${RUN_RAILS:-1} in [12]) ;; *) die "--rails must be 1 or 2" ;; esac
	[ -z "$RUN_BINARY" ] || RUN_BINARY=$(realpath "$RUN_BINARY")
}

cmd_run() {
	RUN_MODE=$1
	shift
	run_parse "$@"
	local f max=1 rails=1 bound=120 h
	if [ "$RUN_MODE" = demo ]; then
		RUN_HOSTS=2
		if [ -z "$RUN_BINARY" ]; then
			# applet demos need the binary under test
			say "no --binary: running demo-upstream.sh only"
			RUN_SCENARIOS+=("$LAB_DIR/scenarios/demo-upstream.sh")
		elif [ -n "${RDMATEST_LAB_DEMO:-}" ]; then
			# some applets alone: scripts/fresh-machine proves a fresh root
			# with a few, where the suites have run every demo's code paths
			say "RDMATEST_LAB_DEMO: the demos of $RDMATEST_LAB_DEMO alone"
			for h in $RDMATEST_LAB_DEMO; do
				f=$LAB_DIR/scenarios/demo-$h.sh
				[ -f "$f" ] || die "RDMATEST_LAB_DEMO: no demo of '$h' (no scenarios/demo-$h.sh)"
				RUN_SCENARIOS+=("$f")
			done
		else
			# one demo-<applet>.sh per applet (demo-upstream.sh is the upstream tools')
			for f in "$LAB_DIR"/scenarios/demo-*.sh; do
				[ "${f##*/}" = demo-upstream.sh ] || RUN_SCENARIOS+=("$f")
			done
		fi
	fi
	if ! cache_valid; then
		if [ "$RUN_MODE" = test ]; then
			if [ "${RDMATEST_LAB_REQUIRED:-0}" = 1 ]; then
				echo "Bail out! lab not set up or stale (RDMATEST_LAB_REQUIRED=1): run test/lab/lab setup"
				exit 1
			fi
			# Meson fails a TAP test that exits non-zero, so a skip is a 1..0 plan and exit 0.
			echo "1..0 # SKIP lab not set up or stale: run test/lab/lab setup"
			exit 0
		fi
		die "lab not set up or stale ($LAB_CACHE): run test/lab/lab setup"
	fi
	[ "$RUN_MODE" = shell ] || [ ${#RUN_SCENARIOS[@]} -gt 0 ] || die "$RUN_MODE: no scenario given"
	for f in "${RUN_SCENARIOS[@]}"; do
		h=$(scenario_header "$f" hosts 1)
		[ "$h" -le "$max" ] || max=$h
		h=$(scenario_header "$f" rails 1)
		[ "$h" -le "$rails" ] || rails=$h
		bound=$((bound + $(scenario_header "$f" timeout 300) + 30))
	done
	# --rails 2 alone (lab shell --rails 2) means two hosts
	[ "${RUN_RAILS:-1}" = 1 ] || [ "$max" -ge 2 ] || max=2
	RUN_HOSTS=${RUN_HOSTS:-$max}
	# the second RDMA link joins two guests or more: a one-host run (where
	# such a scenario is a SKIP) boots as ever
	if [ "$RUN_HOSTS" = 1 ]; then
		[ "${RUN_RAILS:-1}" = 1 ] || die "--rails $RUN_RAILS needs two hosts or more"
		rails=1
	fi
	RUN_RAILS=${RUN_RAILS:-$rails}
	RUN_TIMEOUT=${RUN_TIMEOUT:-$bound}
	[ "$RUN_VERBOSE" = 0 ] || RDMATEST_LAB_LOGLEVEL=${RDMATEST_LAB_LOGLEVEL:-5}

	RUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/rdmatest-lab.XXXXXX")
	trap 'run_exit' EXIT
	trap 'exit 130' INT TERM
	run_image "$RUN_DIR" "$RUN_MODE" "$RUN_HOSTS" "$RUN_VERBOSE" "$RUN_BINARY" "${RUN_SCENARIOS[@]}"
	if [ "$RUN_MODE" = shell ]; then
		run_shell
	else
		run_guests
	fi
}

run_exit() {
	local rc=$?
	[ -z "${WATCHDOG_PID:-}" ] || kill "$WATCHDOG_PID" 2> /dev/null || true
	# shellcheck disable=SC2086 # a list of pids
	[ -z "${BTAIL_PID:-}" ] || kill $BTAIL_PID 2> /dev/null || true
	stop_guests
	if [ "$RUN_KEEP" = 1 ] || [ "${RUN_FAILED:-0}" = 1 ] || { [ "$rc" != 0 ] && [ "$RUN_MODE" != shell ]; }; then
		say "logs kept in $RUN_DIR"
	else
		rm -rf "$RUN_DIR"
	fi
}

# Kill the guests after SEC seconds, marking why in RUN_DIR/FLAG; or, with
# a MARKER, only if some console still lacks that line by then.
watchdog() {
	local sec=$1 flag=$2 marker=${3:-} f sp
	sleep "$sec" &
	sp=$!
	trap 'kill "$sp" 2> /dev/null; exit 0' TERM
	wait "$sp"
	if [ -n "$marker" ]; then
		for f in "$RUN_DIR"/[a-h].console; do
			grep -q "$marker" "$f" 2> /dev/null || { touch "$RUN_DIR/$flag"; break; }
		done
		[ -e "$RUN_DIR/$flag" ] || return 0
	else
		touch "$RUN_DIR/$flag"
	fi
	# shellcheck disable=SC2086 # a list of pids
	kill ${QEMU_PIDS:-} 2> /dev/null
}

# Boot, stream the console through the TAP filter, and summarise. A guest
# that does not finish booting within RDMATEST_LAB_BOOT_TIMEOUT (TCG
# occasionally hangs early) is booted once more before it counts as a FAIL.
run_guests() {
	local state=$RUN_DIR/state n npass nfail nskip end tready tall t0 tend rc=0 try boot_pid r all="" rails=""
	local boot_sec=${RDMATEST_LAB_BOOT_TIMEOUT:-90}
	[ "$RUN_MODE" = demo ] || echo "TAP version 13"
	for try in 1 2; do
		rm -f "$RUN_DIR"/*.console "$RUN_DIR/boothang" "$RUN_DIR/timeout" "$RUN_DIR/rows" "$RUN_DIR/case.tx" "$RUN_DIR/failures"
		boot_guests "$RUN_HOSTS"
		watchdog "$RUN_TIMEOUT" timeout > /dev/null 2>&1 &
		WATCHDOG_PID=$!
		watchdog "$boot_sec" boothang '@lab # lab: host [a-h] up' > /dev/null 2>&1 &
		boot_pid=$!
		if [ "$RUN_VERBOSE" = 1 ] && [ "$RUN_HOSTS" -ge 2 ]; then
			for r in $(roles_of "$RUN_HOSTS"); do
				[ "$r" != a ] || continue
				tail -n +1 -F -s 0.2 --pid="$(pid_of "$r")" "$RUN_DIR/$r.console" 2> /dev/null |
					sed -u "s/\r\$//; s/^/# [$r] /" &
				BTAIL_PID="${BTAIL_PID:+$BTAIL_PID }$!"
			done
		fi
		tail -n +1 -F -s 0.2 --pid="$QEMU_PID_a" "$RUN_DIR/a.console" 2> /dev/null |
			console_to_tap "$state" || true
		tend=$(now)
		kill "$WATCHDOG_PID" "$boot_pid" 2> /dev/null || true
		[ ! -s "$RUN_DIR/endkill.pid" ] || kill "$(cat "$RUN_DIR/endkill.pid")" 2> /dev/null || true
		stop_guests
		if [ ! -e "$RUN_DIR/boothang" ] || [ "$try" = 2 ]; then break; fi
		echo "# lab: a guest did not boot within ${boot_sec}s; booting again"
		for r in $(roles_of "$RUN_HOSTS"); do console_tail "$RUN_DIR/$r.console" "$r" 15; done
	done
	# shellcheck disable=SC1090 # written by console_to_tap
	. "$state"
	if [ "$end" != 1 ]; then
		report_abort "$n" "$RUN_TIMEOUT" "$boot_sec"
		n=$((n + 1)) nfail=$((nfail + 1))
		console_tail "$RUN_DIR/a.console" a 40
	fi
	if [ "$nfail" -gt 0 ]; then
		for r in $(roles_of "$RUN_HOSTS"); do
			[ "$r" = a ] || console_tail "$RUN_DIR/$r.console" "$r" 20
		done
	fi
	failures_print
	# with a switch, host a is up before the others: when did they all answer?
	[ "$RUN_HOSTS" -le 2 ] || all=" all $RUN_HOSTS answering after $(secs $((tall > 0 ? tall - t0 : 0)))s,"
	[ "${RUN_RAILS:-1}" = 1 ] || rails=" rails $RUN_RAILS,"
	echo "# lab: hosts $RUN_HOSTS,$rails guest ready after $(secs $((tready > 0 ? tready - t0 : 0)))s,$all" \
		"run took $(secs $((tend - t0)))s"
	if [ "$RUN_MODE" = demo ]; then
		demo_summary "$RUN_DIR/rows"
		echo "demo: $npass passed, $nfail failed, $nskip skipped"
	else
		echo "1..$n"
	fi
	# Meson marks a TAP test ERROR (not FAIL) when it also exits non-zero:
	# for `lab test` the "not ok" lines carry the failures.
	[ "$nfail" = 0 ] || RUN_FAILED=1
	[ "$nfail" = 0 ] || [ "$RUN_MODE" = test ] || rc=1
	# the summary above says why: end here, not through set -e's ERR trap
	[ "$rc" = 0 ] || exit "$rc"
}

# Interactive: host a on this terminal, host b (if any) in the background.
run_shell() {
	local -a args
	local d c rl
	if [ "$RUN_HOSTS" = 1 ]; then
		mapfile -t args < <(qemu_args a 1 stdio)
		"$LAB_QEMU" "${args[@]}"
		return
	fi
	if [ "$RUN_HOSTS" -gt 2 ]; then
		local r
		read -r d c rl < <(mcast_endpoints)
		for r in $(roles_of "$RUN_HOSTS"); do
			[ "$r" = a ] || qemu_start "$r" "$RUN_HOSTS" "$RUN_DIR/$r.console" "$d" "$c" ${rl:+"$rl"}
		done
		say "hosts b to $r boot in the background; their consoles: $RUN_DIR/[b-$r].console"
		mapfile -t args < <(qemu_args a "$RUN_HOSTS" stdio "$d" "$c" ${rl:+"$rl"})
		"$LAB_QEMU" "${args[@]}"
		return
	fi
	read -r d c rl < <(link_endpoints)
	mapfile -t args < <(qemu_args a 2 stdio "$d" "$c" ${rl:+"$rl"})
	(
		for _ in $(seq 100); do
			links_ready "$d" "$c" ${rl:+"$rl"} && break
			sleep 0.1
		done
		local -a bargs
		mapfile -t bargs < <(qemu_args b 2 "$RUN_DIR/b.console" "$d" "$c" ${rl:+"$rl"})
		exec "$LAB_QEMU" "${bargs[@]}" < /dev/null > "$RUN_DIR/b.qemu.log" 2>&1
	) &
	QEMU_PID_b=$! QEMU_PIDS=$!
	say "host b boots in the background; its console: $RUN_DIR/b.console"
	"$LAB_QEMU" "${args[@]}"
}
