#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Host b's agent, run by `nc -ll -p 7700 -e` for each request from host a.
# Request: one line, the base64 of a shell snippet. Reply: "@rc N", then the
# snippet's output (lib.sh is loaded; stdin is /dev/null).
read -r req || exit 0
tmp=$(mktemp /tmp/lab/agent.XXXXXX)
if printf '%s\n' "$req" | base64 -d > "$tmp.sh" 2>/dev/null; then
	echo "[agent] $(head -c 200 "$tmp.sh" | tr '\n' ' ')" > /dev/console
	(. /lab/lib.sh && . "$tmp.sh") > "$tmp" 2>&1 < /dev/null
	echo "@rc $?"
	cat "$tmp"
else
	echo "@rc 126"
	echo "agent: undecodable request"
fi
rm -f "$tmp" "$tmp.sh"
