# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 300
# rping's server against hostile clients (rping-evil, test/lab/tools): each
# breaks the protocol in one way per connection; a -P server names each and
# keeps serving, a single-client server exits 1 naming the peer. Apart from
# interop-rping so that the sanitized lab (scripts/sanitize --lab) runs it
# alone.
RTR=$RT/rping

# The peer is untrusted: rping-evil (test/lab/tools) breaks the protocol in
# one way per connection.
case_begin "malicious clients: a -P server names each and keeps serving" 240
bg_start srv b $RTR -s -P -a "$B" --timeout 5
wait_listen b 7174 20 || fail "server not listening"
for mode in short zero oversize badkey burst; do
	failed || run_on -t 40 a $RT/rping-evil -a "$B" -m $mode || fail "evil $mode: not dropped ($?)"
done
failed || run_on -t 60 a $RTR -c -a "$B" -C 10 -V || fail "a good client failed afterwards"
# a burst is caught as out of turn, or (when the READ wins the race) as a
# client that stops answering
for why in 'not 16 bytes' 'length is 0' 'exceeds this side' 'remote access error' '(does not alternate|no progress)'; do
	failed || bg_log srv | grep -Eq "192.0.2.1:[0-9]*: .*$why" || fail "server did not report /$why/ naming the peer"
done
bg_kill srv INT >/dev/null
pass

case_begin "malicious client: a single-client server exits 1 naming the peer" 60
bg_start srv b $RTR -s -a "$B"
wait_listen b 7174 20 || fail "server not listening"
failed || run_on -t 40 a $RT/rping-evil -a "$B" -m oversize || fail "not dropped"
bg_wait srv 30
[ $? = 1 ] || fail "server exit code"
bg_log srv | grep -q "192.0.2.1:[0-9]*: malformed advert: advertised length exceeds" || fail "no reason naming the peer"
pass
