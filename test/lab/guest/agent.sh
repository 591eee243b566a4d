#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Host b's agent, run by `nc -ll -p 7700 -e` for each request from host a.
# Request: one line, a shell snippet with its newlines sent as \001 (jobs.sh's
# _rpc_run). Reply: the snippet's output as it comes (stdin is /dev/null),
# then a line "@rc N" after a newline of its own; the caller takes the last
# "@rc" line. The snippet sees /lab/env and jobs.sh, not the scenario API
# (reading lib.sh too cost 20 ms a request under TCG), and runs in this
# shell, not a subshell (a fork, 5-10 ms): a snippet must not `exit`,
# which the caller would see as no answer. No temporary files and no exec
# but the shell's: under TCG every exec costs about 15 ms, and a case
# makes a few requests.
# shellcheck shell=dash disable=SC3003,SC3060 # busybox ash: $'\001', ${v//}
IFS= read -r req || exit 0
snippet=${req//$'\001'/$'\n'}
printf '[agent] %.200s\n' "${snippet%%
*}" > /dev/console
# shellcheck source=/dev/null
. /lab/env
# shellcheck source=/dev/null
. /lab/jobs.sh
{ eval "$snippet"; } 2>&1 < /dev/null
printf '\n@rc %s\n' "$?"
