# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# shellcheck shell=sh
# The one reader of a scenario's header lines ("# hosts: N", "# rails: N",
# "# timeout: SECONDS"): the guest's runner (busybox sh) sources it from
# /lab, the host's driver (host/run.sh) from here, and test/lab/meson.build
# asks the driver (`lab header`), so the three agree on every header.

# scenario_header FILE KEY DEFAULT: N of the first "# KEY: N" line, or
# DEFAULT. sed stops at that line itself: a pipe into head would let a
# second match end sed with SIGPIPE, which pipefail (the host) turns into
# a failure.
scenario_header() {
	_sh_v=$(sed -n "/^# *$2: *[0-9]/{s/^# *$2: *\([0-9][0-9]*\).*/\1/p;q;}" "$1")
	echo "${_sh_v:-$3}"
}
