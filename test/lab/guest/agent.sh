#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Host b's agent, run by `nc -ll -p 7700 -e` for each request from host a.
# Request: one line, the base64 of a shell snippet. Reply: the snippet's
# output (lib.sh is loaded; stdin is /dev/null) as it comes, then a line
# "@rc N" after a newline of its own; the caller (jobs.sh's _rpc) takes
# the last "@rc" line. No temporary files and one exec (base64): under
# TCG every exec costs about 15 ms, and a case makes a few requests.
# shellcheck shell=dash
read -r req || exit 0
if snippet=$(printf '%s\n' "$req" | base64 -d 2> /dev/null); then
	printf '[agent] %.200s\n' "${snippet%%
*}" > /dev/console
	# shellcheck source=/dev/null
	(. /lab/lib.sh && eval "$snippet") 2>&1 < /dev/null
	printf '\n@rc %s\n' "$?"
else
	printf 'agent: undecodable request\n@rc 126\n'
fi
