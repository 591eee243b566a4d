# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# shellcheck shell=bash
# `lab bench`: boot two hosts once, run test/lab/bench/guest.sh (rdmatest
# against upstream and perftest, alternating, on two hosts and on one),
# then turn the measurements into a table, JSON and a plot with
# test/lab/bench/report.py. Sourced by test/lab/lab.

bench_usage() {
	cat <<'USAGE'
usage: lab bench --binary PATH [--baseline PATH] [--reps N] [--short-reps N] [--quick]
                 [--hosts 1|2|both] [--only BENCH,...] [--out DIR] [--verbose]
  --baseline P another rdmatest (e.g. the commit before a change) in the same
               rotation, reported as "baseline" next to the two judged tools
  --reps N     repetitions of every pair (default 3); medians and ranges over them
  --short-reps N
               repetitions of the short rows (all but rping, mckey and the
               ib_*_bw rows: a few seconds a run, and the widest run-to-run
               spread): default twice --reps, --reps with --quick
  --quick      a tenth of the counts, for a smoke run (figures are not comparable)
  --hosts T    2: servers on a second guest; 1: both ends in one guest, where
               the CPU cost per operation decides; both (default): each repetition
               runs the two topologies one after the other
  --only B,..  only these benches: rping, ucmatose, mckey, rstream, perftest,
               ibperf (the ib_* applets against perftest 4.5), pingpong
               (ibv_rc/ud_pingpong), udaddy, cmtime, mesh (2 hosts; rdmatest
               alone: its bandwidth and CPU per Gbit)
  --out DIR    where data.jsonl, report.txt, report.json and report.png go
               (default: bench-results in the current directory)
USAGE
}

cmd_bench() {
	local reps=3 short="" quick=0 out=bench-results bin="" base="" verbose=() extra=() scen per per_short rc
	local topos="2hosts 1host" only="rping ucmatose mckey rstream perftest ibperf ibmodes pingpong udaddy cmtime mesh" b
	while [ $# -gt 0 ]; do
		case $1 in
		--binary) bin=${2:?--binary needs a path}; shift ;;
		--baseline) base=${2:?--baseline needs a path}; shift ;;
		--reps) reps=${2:?--reps needs a number}; shift ;;
		--short-reps) short=${2:?--short-reps needs a number}; shift ;;
		--quick) quick=1 ;;
		--hosts)
			case ${2:-} in
			1) topos=1host ;; 2) topos=2hosts ;; both) topos="2hosts 1host" ;;
			*) die "bench: --hosts wants 1, 2 or both, not '${2:-}'" ;;
			esac
			shift ;;
		--only)
			only=$(printf '%s' "${2:?--only needs bench names}" | tr , ' ')
			for b in $only; do
				case $b in rping | ucmatose | mckey | rstream | perftest | ibperf | ibmodes | pingpong | udaddy | cmtime | mesh) ;;
				*) die "bench: --only: unknown bench '$b' (rping, ucmatose, mckey, rstream, perftest, ibperf, ibmodes, pingpong, udaddy, cmtime, mesh)" ;;
				esac
			done
			shift ;;
		--out) out=${2:?--out needs a directory}; shift ;;
		--verbose) verbose=(--verbose) ;;
		-h | --help) bench_usage; return 0 ;;
		*) bench_usage >&2; return 2 ;;
		esac
		shift
	done
	[ -n "$bin" ] || die "bench: --binary PATH is required (e.g. build/rdmatest)"
	case $reps in '' | *[!0-9]* | 0) die "bench: --reps wants a positive number, not '$reps'" ;; esac
	[ -n "$short" ] || short=$((quick == 1 ? reps : reps * 2))
	case $short in '' | *[!0-9]*) die "bench: --short-reps wants a number, not '$short'" ;; esac
	[ "$short" -ge "$reps" ] || die "bench: --short-reps ($short) is less than --reps ($reps)"
	mkdir -p "$out"
	out=$(realpath "$out")
	: > "$out/data.jsonl"
	# one repetition of the full counts takes about 5 minutes per topology in
	# TCG (8 min 24 s for both, 2026-11-23), one of the short rows alone
	# about two and a half
	per=$((quick == 1 ? 180 : 600)) per_short=$((quick == 1 ? 90 : 300))
	[ "$topos" = "${topos#* }" ] || per=$((per * 2)) per_short=$((per_short * 2))
	scen=$(mktemp -d "${TMPDIR:-/tmp}/rdmatest-bench.XXXXXX")/bench.sh
	if [ -n "$base" ]; then
		# the name makes the multicall binary take the applet from argv[1]
		cp "$base" "$(dirname "$scen")/rdmatest-baseline" ||
			die "bench: --baseline: cannot copy '$base'"
		extra=(--extra "$(dirname "$scen")/rdmatest-baseline")
		per=$((per * 3 / 2)) per_short=$((per_short * 3 / 2))
	fi
	{
		printf '# hosts: 2\n# timeout: %s\n' $((reps * per + (short - reps) * per_short))
		printf 'BENCH_REPS=%s\nBENCH_SHORT_REPS=%s\nBENCH_QUICK=%s\nBENCH_TOPOS="%s"\nBENCH_ONLY="%s"\n' \
			"$reps" "$short" "$quick" "$topos" "$only"
		printf 'BENCH_BASELINE=%s\n' $((${#extra[@]} > 0))
		cat "$LAB_DIR/bench/guest.sh"
	} > "$scen"
	bench_meta "$bin" >> "$out/data.jsonl"
	LAB_DATA_OUT=$out/data.jsonl cmd_run_sub run --hosts 2 --binary "$bin" \
		${extra[@]+"${extra[@]}"} ${verbose[@]+"${verbose[@]}"} "$scen" | tee "$out/lab.tap"
	rc=${PIPESTATUS[0]}
	rm -rf "$(dirname "$scen")"
	[ "$rc" = 0 ] || say "bench: the lab run failed (exit $rc); reporting what was measured"
	"$LAB_DIR/bench/report.py" "$out/data.jsonl" --json "$out/report.json" \
		--plot "$out/report.png" | tee "$out/report.txt"
	[ "${PIPESTATUS[0]}" = 0 ] || die "bench: the report failed"
	say "bench: $out/report.txt, report.json, report.png (raw: data.jsonl)"
	return "$rc"
}

# cmd_run in a subshell: its EXIT trap stops the guests and cleans up
cmd_run_sub() { (cmd_run "$@"); }

# What the guest cannot know: this machine and the versions compared.
bench_meta() {
	local cpu ver up
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	ver=$("$1" --version 2>/dev/null | head -n 1)
	up=$(dpkg-query -W -f '${Version}' rdmacm-utils 2>/dev/null || echo unknown)
	printf '{"meta": {"machine": "%s, %s cores", "rdmatest": "%s", "upstream": "rdmacm-utils %s", "perftest": "%s"}}\n' \
		"${cpu//\"/}" "$(nproc)" "${ver//\"/}" "$up" \
		"$(dpkg-query -W -f '${Version}' perftest 2>/dev/null || echo unknown)"
}
