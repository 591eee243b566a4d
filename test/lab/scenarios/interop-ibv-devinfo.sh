# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 1
# timeout: 300
# ibv_devices, ibv_devinfo and ibv_asyncwatch against rdma-core v44's on
# the same rxe devices (rxe0 on veth0, rxe1 on veth1): the text must be
# byte-identical, the JSON valid, and the async events of a link going
# down and up the same lines upstream prints. The upstream programs are
# the image's /usr/bin ones (test/lab/host/image.list); rdmatest's links
# own the plain names on PATH.
# Debian 13's (the default peers). rdma-core 44's text is byte-identical to
# 56's here (ibv_devinfo -v compared in both, 27 Nov), so Debian 12 gets no
# case of its own.
up() { echo "/opt/peers/up13/$1"; }

# same NAME ARGS...: upstream's and our stdout and exit status must match
same() {
	local tool=$1 want rc_up rc_rt
	shift
	case_begin "$tool $*: byte-identical to Debian 13's" 60
	need_applet "$tool" || { pass; return; }
	[ -x "$(up "$tool")" ] || { skip "upstream $tool not in the guest (ibverbs-utils on the host?)"; pass; return; }
	run_on a "$(up "$tool")" "$@"
	rc_up=$?
	cp "$OUT" /tmp/lab/up.out
	run_on a "$RT/$tool" "$@"
	rc_rt=$?
	[ "$rc_up" = "$rc_rt" ] || fail "exit $rc_rt, upstream $rc_up"
	[ -s /tmp/lab/up.out ] || fail "upstream printed nothing"
	cmp /tmp/lab/up.out "$OUT" > /dev/null || {
		diff /tmp/lab/up.out "$OUT" | head -n 20 | note
		fail "output differs from upstream (diff in the transcript)"
	}
	pass
}

same ibv_devices
same ibv_devinfo
same ibv_devinfo -v
same ibv_devinfo -i 1
same ibv_devinfo -l
same ibv_devinfo -d rxe0
same ibv_devinfo -d rxe1 -v -i 1

# the run's document: exactly one, valid (test/lab/tools/json_check.c)
json_ok() { $RT/json-check < "$1" >> "$LAB_TRANSCRIPT" || fail "$2: no single valid JSON document"; }

case_begin "ibv_devinfo --json: valid, both devices, port state, MTU, link layer, typed GIDs" 60
need_applet ibv_devinfo && {
	run_on a $RT/ibv_devinfo -v --json || fail "exit $?"
	cp "$OUT" /tmp/lab/di.json
	json_ok /tmp/lab/di.json "ibv_devinfo --json"
	for want in '"name":"rxe0"' '"name":"rxe1"' '"state":"PORT_ACTIVE"' '"link_layer":"Ethernet"' \
		'"active_mtu":1024' '"gid":"::ffff:192.0.2.1","type":"RoCE v2"' '"gid":"::ffff:192.0.2.2","type":"RoCE v2"'; do
		grep -qF "$want" /tmp/lab/di.json || fail "no $want in the document"
	done
	pass
}

case_begin "ibv_devices --json: valid, GUIDs as in the text" 60
need_applet ibv_devices && {
	run_on a $RT/ibv_devices --json || fail "exit $?"
	cp "$OUT" /tmp/lab/dv.json
	json_ok /tmp/lab/dv.json "ibv_devices --json"
	run_on a $RT/ibv_devices
	g=$(awk '$1 == "rxe0" { print $2 }' "$OUT")
	[ -n "$g" ] && grep -qF "{\"name\":\"rxe0\",\"node_guid\":\"$g\"}" /tmp/lab/dv.json ||
		fail "rxe0's GUID '$g' not in the document"
	pass
}

expect_exit "ibv_devinfo -d nosuch: exit 3" 3 a $RT/ibv_devinfo -d nosuch
case_begin "ibv_devinfo -d nosuch names the devices there are" 30
run_on a $RT/ibv_devinfo -d nosuch
output_has '^ibv_devinfo: -d nosuch: no such RDMA device \(there are: rxe0, rxe1\)$' || fail "message"
pass
case_begin "ibv_devinfo -i 2 on a one-port device: exit 3, one line" 30
run_on a $RT/ibv_devinfo -d rxe0 -i 2
rc=$?
[ "$rc" = 3 ] || fail "exit $rc"
output_has '^ibv_devinfo: -i 2: rxe0 has 1 port$' || fail "message"
pass

# --- asyncwatch: veth0 down and up --------------------------------------------

# events JOB: the event lines of a job's log
events() { bg_log "$1" | grep '^  event_type '; }
port_events() { events "$1" | grep -E 'PORT_(ERR|ACTIVE)'; }

case_begin "ibv_asyncwatch: veth0 down/up gives upstream's PORT_ERR and PORT_ACTIVE lines, --json lines valid" 120
need_applet ibv_asyncwatch && [ -x "$(up ibv_asyncwatch)" ] || skip "upstream or applet missing"
failed || {
	bg_start upw a "$(up ibv_asyncwatch)" -d rxe0
	bg_start rtw a $RT/ibv_asyncwatch -d rxe0 --duration 100
	bg_start rtj a $RT/ibv_asyncwatch -d rxe0 --json --duration 100
	for j in upw rtw; do wait_log $j '^rxe0: async event FD [0-9]+$' 20 || fail "$j did not start"; done
	wait_log rtj '^rxe0: async event FD [0-9]+$' 20 || fail "rtj did not start (header on stderr)"
}
failed || run_on -t 10 a /sbin/ip link set veth0 down || fail "link down"
failed || _poll a 20 "rxe0 DOWN" "/sbin/rdma link show rxe0/1 | grep -q 'state DOWN'" || fail "rxe0 never went down"
failed || run_on -t 10 a /sbin/ip link set veth0 up || fail "link up"
failed || _poll a 20 "rxe0 ACTIVE" "/sbin/rdma link show rxe0/1 | grep -q 'state ACTIVE'" || fail "rxe0 never came back"
failed || for j in upw rtw; do
	wait_log $j 'IBV_EVENT_PORT_ACTIVE' 20 || fail "$j: no PORT_ACTIVE line"
done
failed || wait_log rtj '"event":"IBV_EVENT_PORT_ACTIVE"' 20 || fail "rtj: no PORT_ACTIVE object"
# SIGTERM is how a watch normally ends: exit 0 (upstream has no other end)
for j in rtw rtj; do bg_kill $j TERM; rc=$?; [ "$rc" = 0 ] || fail "$j: exit $rc after SIGTERM, wanted 0"; done
bg_kill upw TERM
port_events upw > /tmp/lab/upw.ev
port_events rtw > /tmp/lab/rtw.ev
note "upstream port events:"; note < /tmp/lab/upw.ev
[ "$(head -n 1 /tmp/lab/upw.ev)" = "  event_type IBV_EVENT_PORT_ERR (10), port 1" ] || fail "upstream's first port event is not PORT_ERR"
cmp /tmp/lab/upw.ev /tmp/lab/rtw.ev > /dev/null || fail "port event lines differ from upstream's"
# the header line; the one field that may differ is the FD number (our
# process holds more descriptors, e.g. the interrupt self-pipe). What
# follows the events differs by design: the job runner notes upstream's
# death by SIGTERM ("Terminated"), ours ends with exit 0 and nothing.
bg_log upw | head -n 1 | sed 's/FD [0-9]*$/FD n/' > /tmp/lab/upw.head
bg_log rtw | head -n 1 | sed 's/FD [0-9]*$/FD n/' > /tmp/lab/rtw.head
[ "$(cat /tmp/lab/rtw.head)" = "rxe0: async event FD n" ] || fail "our header line: $(cat /tmp/lab/rtw.head)"
[ "$(bg_log rtw | grep -vc '^  event_type ')" = 1 ] || fail "ours printed more than the header and the events"
cmp /tmp/lab/upw.head /tmp/lab/rtw.head > /dev/null || fail "header line differs from upstream's"
# JSON lines: every event object valid (checked wrapped in a document), the
# port events in upstream's order, and the run's document last
bg_log rtj > /tmp/lab/rtj.log
n=0
grep '^{"device":' /tmp/lab/rtj.log | while IFS= read -r line; do
	printf '{"tool":"rdmatest","event":%s}\n' "$line" | $RT/json-check > /dev/null ||
		{ note "invalid event line: $line"; exit 1; }
done || fail "an event line is not valid JSON"
sed -n 's/.*"event":"\(IBV_EVENT_PORT_[A-Z]*\)","event_type":\([0-9]*\),"port":\([0-9]*\).*/  event_type \1 (\2), port \3/p' \
	/tmp/lab/rtj.log > /tmp/lab/rtj.ev
cmp /tmp/lab/upw.ev /tmp/lab/rtj.ev > /dev/null || fail "JSON port events differ from upstream's lines"
json_ok /tmp/lab/rtj.log "ibv_asyncwatch --json"
tail -n 1 /tmp/lab/rtj.log | grep -q '^{"tool":"rdmatest".*"verdict":"pass"' || fail "last line is not the passing run document"
pass

case_begin "ibv_asyncwatch --duration 1 with no events: exit 0, 0 events" 30
need_applet ibv_asyncwatch && {
	run_on a $RT/ibv_asyncwatch -d rxe1 --duration 1 --json || fail "exit $?"
	output_has '"results":\{"device":"rxe1","events":0\}' || fail "results"
	pass
}
