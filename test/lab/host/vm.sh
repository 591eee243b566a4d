# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# shellcheck shell=bash
# Host side of a lab run: the per-run initramfs and the qemu guests.
# Sourced by test/lab/lab after host/common.sh.

LAB_QEMU=${RDMATEST_LAB_QEMU:-qemu-system-x86_64}
LAB_MEM=${RDMATEST_LAB_MEM:-1024}
# Three hosts or more share the 2 cores and need less each: 384 MiB holds
# the unpacked images with room for the tests (see docs/dev/lab.md).
LAB_MEMN=${RDMATEST_LAB_MEM:-384}
# Host names of a run, in order: host N is the Nth letter (3 to 8 hosts
# share one switch).
LAB_ROLES="a b c d e f g h"

# Copy an executable to ROOT/DEST with the libraries (ldd) the base lacks.
install_exe() {
	local root=$1 src=$2 dest=$3 lib a
	if [ ! -f "$src" ] || [ ! -x "$src" ]; then die "$src: not an executable file"; fi
	mkdir -p "$root$(dirname "$dest")"
	cp -L "$src" "$root$dest"
	ldd "$src" > /dev/null 2>&1 || return 0 # static
	for lib in $(ldd "$src" | awk '/=> \// { print $3 } /^\t\// { print $1 }'); do
		# the base keeps libraries under /usr/lib*; /lib* are links there
		case $lib in /lib*) a=/usr$lib ;; *) a=$lib ;; esac
		grep -qxF ".$a" "$LAB_CACHE/base.files" 2> /dev/null && continue
		mkdir -p "$root$(dirname "$a")"
		cp -L "$lib" "$root$a"
	done
}

# Install the binary under test as ROOT/opt/rdmatest/bin/rdmatest with an
# applet link for each name `--list` prints (run on the host).
run_image_binary() {
	local root=$1 bin=$2 a
	install_exe "$root" "$bin" /opt/rdmatest/bin/rdmatest
	"$bin" --list > "$root/opt/rdmatest/applets" 2> /dev/null ||
		say "warning: '$bin --list' failed: no applet links"
	while read -r a _; do
		case $a in '' | *[!A-Za-z0-9_.-]* | rdmatest) continue ;; esac
		ln -sf rdmatest "$root/opt/rdmatest/bin/$a"
	done < "$root/opt/rdmatest/applets"
}

# run_image DIR MODE HOSTS VERBOSE BINARY SCENARIO_FILE... -> DIR/initrd.img
# (RUN_EXTRA: more executables for /opt/rdmatest/bin, e.g. test-only peers;
# RUN_RAILS: RDMA links between the guests, 1 or 2)
run_image() {
	local dir=$1 mode=$2 hosts=$3 verbose=$4 bin=$5 root=$1/root f names=""
	shift 5
	mkdir -p "$root/lab/scenarios"
	cp "$LAB_DIR/guest/init" "$root/init"
	cp "$LAB_DIR"/guest/*.sh "$root/lab/"
	cp "$LAB_DIR/guest/motd" "$root/lab/motd"
	# every scenario file is shipped (scenarios may source shared helpers)
	cp "$LAB_DIR"/scenarios/* "$root/lab/scenarios/" 2> /dev/null || true
	for f in "$@"; do
		cp "$f" "$root/lab/scenarios/"
		names="$names $(basename "$f" .sh)"
	done
	cat > "$root/lab/config" <<-EOF
		LAB_HOSTS=$hosts
		LAB_RAILS=${RUN_RAILS:-1}
		LAB_MODE=$mode
		LAB_VERBOSE=$verbose
		LAB_SCENARIOS='${names# }'
	EOF
	[ -z "$bin" ] || run_image_binary "$root" "$bin"
	for f in ${RUN_EXTRA[@]+"${RUN_EXTRA[@]}"}; do
		install_exe "$root" "$f" "/opt/rdmatest/bin/$(basename "$f")"
	done
	chmod 755 "$root/init" "$root"/lab/*.sh
	(cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
		gzip -1 > "$dir/run.cpio.gz"
	# --initrd archives come last: the kernel unpacks them over the lab's
	# (how a distribution's initramfs takes in an extra archive)
	cat "$LAB_BASE" "$dir/run.cpio.gz" ${RUN_INITRDS[@]+"${RUN_INITRDS[@]}"} > "$dir/initrd.img"
}

# A TCP port on 127.0.0.1 that nothing listens on (the caller retries when
# qemu loses the race for it).
free_port() {
	local p hex
	while :; do
		p=$((20000 + RANDOM % 40000))
		hex=$(printf ':%04X ' "$p")
		grep -qi "$hex" /proc/net/tcp /proc/net/tcp6 2> /dev/null || { echo "$p"; return; }
	done
}

# True when 127.0.0.1:PORT is in LISTEN state.
port_listening() {
	awk -v p="$(printf '0100007F:%04X' "$1")" '$2 == p && $4 == "0A" { f = 1 } END { exit !f }' /proc/net/tcp
}

# How the two VMs are wired: "unix" (default): -netdev stream over unix
# sockets in the run directory (reliable, no Nagle delay, no ports to
# collide); "tcp": -netdev socket listen/connect on 127.0.0.1 ports, about
# 20 ms per request/response because of Nagle (qemu leaves TCP_NODELAY off).
LAB_NET=${RDMATEST_LAB_NET:-unix}

# qemu_args ROLE HOSTS CONSOLE [DATA CTL [RAIL]]: print the argument list,
# one per line. DATA/CTL: socket paths (unix), ports (tcp) or multicast
# groups (3 hosts or more) of the two links; RAIL, when given, those of
# the second RDMA link (`# rails: 2`): a third NIC, MAC ..:02:0N, that the
# guest renames rail1.
qemu_args() {
	local role=$1 hosts=$2 console=$3 d=${4:-} c=${5:-} r=${6:-} n=1 listen=on
	local append="console=ttyS0 panic=-1 quiet loglevel=${RDMATEST_LAB_LOGLEVEL:-4} mitigations=off tsc=reliable labrole=$role${RUN_APPEND:+ $RUN_APPEND}"
	local mem=$LAB_MEM
	[ "$hosts" -le 2 ] || mem=$LAB_MEMN
	printf '%s\n' -nodefaults -no-user-config -display none -no-reboot -m "$mem" \
		-kernel "$LAB_KERNEL" -initrd "$RUN_DIR/initrd.img" -append "$append"
	if [ "$hosts" = 1 ]; then
		printf '%s\n' -accel "${RDMATEST_LAB_ACCEL:-tcg,thread=multi}" -smp "${RDMATEST_LAB_SMP1:-2}"
	elif [ "$hosts" -gt 2 ]; then
		# one switch per link: every guest joins the link's multicast group
		# on 127.0.0.1 (a hub: each frame reaches every guest, the NIC keeps
		# its own); no daemon, nothing but this run on those groups
		n=$(role_index "$role")
		printf '%s\n' -accel "${RDMATEST_LAB_ACCEL2:-tcg}" -smp "${RDMATEST_LAB_SMP2:-1}" \
			-netdev "socket,id=data,mcast=$d,localaddr=127.0.0.1" \
			-netdev "socket,id=ctl,mcast=$c,localaddr=127.0.0.1" \
			-device "virtio-net-pci,netdev=data,mac=52:54:00:12:00:0$n,romfile=,addr=0x4" \
			-device "virtio-net-pci,netdev=ctl,mac=52:54:00:12:01:0$n,romfile=,addr=0x5"
		[ -z "$r" ] || printf '%s\n' -netdev "socket,id=rail1,mcast=$r,localaddr=127.0.0.1" \
			-device "virtio-net-pci,netdev=rail1,mac=52:54:00:12:02:0$n,romfile=,addr=0x6"
	else
		printf '%s\n' -accel "${RDMATEST_LAB_ACCEL2:-tcg}" -smp "${RDMATEST_LAB_SMP2:-1}"
		[ "$role" = a ] || { n=2; listen=off; }
		if [ "$LAB_NET" = tcp ]; then
			[ "$role" = a ] && listen=listen || listen=connect
			printf '%s\n' -netdev "socket,id=data,$listen=127.0.0.1:$d" -netdev "socket,id=ctl,$listen=127.0.0.1:$c"
			[ -z "$r" ] || printf '%s\n' -netdev "socket,id=rail1,$listen=127.0.0.1:$r"
		else
			printf '%s\n' -netdev "stream,id=data,server=$listen,addr.type=unix,addr.path=$d" \
				-netdev "stream,id=ctl,server=$listen,addr.type=unix,addr.path=$c"
			[ -z "$r" ] || printf '%s\n' -netdev "stream,id=rail1,server=$listen,addr.type=unix,addr.path=$r"
		fi
		# eth0 = data link (192.0.2.N), eth1 = control link (198.51.100.N),
		# rail1 = second RDMA link (203.0.113.N), with `# rails: 2` only
		printf '%s\n' \
			-device "virtio-net-pci,netdev=data,mac=52:54:00:12:00:0$n,romfile=,addr=0x4" \
			-device "virtio-net-pci,netdev=ctl,mac=52:54:00:12:01:0$n,romfile=,addr=0x5"
		[ -z "$r" ] || printf '%s\n' -device "virtio-net-pci,netdev=rail1,mac=52:54:00:12:02:0$n,romfile=,addr=0x6"
	fi
	if [ "$console" = stdio ]; then
		printf '%s\n' -serial mon:stdio
	else
		printf '%s\n' -serial "file:$console"
	fi
}

# 1 for host a, 2 for b, ...
role_index() {
	local i=1 r
	for r in $LAB_ROLES; do
		[ "$r" = "$1" ] && { echo "$i"; return; }
		i=$((i + 1))
	done
	die "no host '$1'"
}

# The first N host names ("a b c d" for 4).
roles_of() {
	local -a all
	read -r -a all <<< "$LAB_ROLES"
	echo "${all[*]:0:$1}"
}

# The qemu pid of host ROLE (empty when it does not run).
pid_of() {
	local v=QEMU_PID_$1
	echo "${!v:-}"
}

# Start host ROLE in the background; sets QEMU_PID_<role>.
qemu_start() {
	local role=$1 hosts=$2 console=$3
	shift 3
	local -a args
	mapfile -t args < <(qemu_args "$role" "$hosts" "$console" "$@")
	"$LAB_QEMU" "${args[@]}" < /dev/null > "$RUN_DIR/$role.qemu.log" 2>&1 &
	printf -v "QEMU_PID_$role" '%s' "$!"
	QEMU_PIDS="${QEMU_PIDS:-} $!"
}

# Multicast groups on 127.0.0.1 for the switched links of a run of
# three hosts or more: "DATA CTL" as GROUP:PORT, and RAIL after them with
# two rails. Random within 239.255.0.0/16 (organisation-local, never
# routed) and a port range with nothing else on it, so parallel runs do
# not meet.
mcast_endpoints() {
	local g=239.255.$((RANDOM % 250 + 1)).$((RANDOM % 250 + 1)) p
	p=$(free_udp_port)
	if [ "${RUN_RAILS:-1}" -ge 2 ]; then
		echo "$g:$p $g:$((p + 1)) $g:$((p + 2))"
	else
		echo "$g:$p $g:$((p + 1))"
	fi
}

# A UDP port on which, like the next two, nothing is bound.
free_udp_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 40000))
		grep -qi "$(printf ':%04X \\|:%04X \\|:%04X ' "$p" $((p + 1)) $((p + 2)))" /proc/net/udp /proc/net/udp6 2> /dev/null ||
			{ echo "$p"; return; }
	done
}

# The link endpoints for a two-host run: "DATA CTL", and RAIL after them
# with two rails.
link_endpoints() {
	local pd pc pr=""
	if [ "$LAB_NET" = tcp ]; then
		pd=$(free_port)
		pc=$(free_port)
		while [ "$pd" = "$pc" ]; do pc=$(free_port); done
		if [ "${RUN_RAILS:-1}" -ge 2 ]; then
			pr=$(free_port)
			while [ "$pr" = "$pd" ] || [ "$pr" = "$pc" ]; do pr=$(free_port); done
		fi
		echo "$pd $pc${pr:+ $pr}"
	elif [ "${RUN_RAILS:-1}" -ge 2 ]; then
		echo "$RUN_DIR/data.sock $RUN_DIR/ctl.sock $RUN_DIR/rail1.sock"
	else
		echo "$RUN_DIR/data.sock $RUN_DIR/ctl.sock"
	fi
}

# True once host a (started with endpoints D C [R]) accepts connections on
# each.
links_ready() {
	local e
	for e; do
		if [ "$LAB_NET" = tcp ]; then
			port_listening "$e" || return 1
		else
			[ -S "$e" ] || return 1
		fi
	done
}

# Boot the guests for a run (console files RUN_DIR/a.console, b.console).
# With two hosts, a listens and b connects once a does.
boot_guests() {
	local hosts=$1 console_a=${2:-$RUN_DIR/a.console} try d c rl
	local r
	QEMU_PID_a="" QEMU_PID_b="" QEMU_PIDS=""
	if [ "$hosts" = 1 ]; then
		qemu_start a 1 "$console_a"
		return
	fi
	if [ "$hosts" -gt 2 ]; then
		# a hub needs no listener: every guest joins, in any order
		read -r d c rl < <(mcast_endpoints)
		for r in $(roles_of "$hosts"); do
			if [ "$r" = a ]; then
				qemu_start a "$hosts" "$console_a" "$d" "$c" ${rl:+"$rl"}
			else
				qemu_start "$r" "$hosts" "$RUN_DIR/$r.console" "$d" "$c" ${rl:+"$rl"}
			fi
		done
		return
	fi
	[ "$LAB_NET" = tcp ] || [ ${#RUN_DIR} -lt 90 ] || LAB_NET=tcp # sun_path limit
	for try in 1 2 3 4 5; do
		read -r d c rl < <(link_endpoints)
		qemu_start a 2 "$console_a" "$d" "$c" ${rl:+"$rl"}
		for _ in $(seq 100); do
			links_ready "$d" "$c" ${rl:+"$rl"} && break
			kill -0 "$QEMU_PID_a" 2> /dev/null || break
			sleep 0.1
		done
		if links_ready "$d" "$c" ${rl:+"$rl"}; then
			qemu_start b 2 "$RUN_DIR/b.console" "$d" "$c" ${rl:+"$rl"}
			return 0
		fi
		kill "$QEMU_PID_a" 2> /dev/null || true
		wait "$QEMU_PID_a" 2> /dev/null || true
		QEMU_PIDS=""
		say "host a did not listen on $d $c${rl:+ $rl} (try $try): $(tail -n 1 "$RUN_DIR/a.qemu.log")"
	done
	die "could not start host a"
}

# Stop the guests that still run.
stop_guests() {
	local p
	for p in ${QEMU_PIDS:-}; do
		kill "$p" 2> /dev/null || true
	done
	for p in ${QEMU_PIDS:-}; do
		wait "$p" 2> /dev/null || true
	done
	QEMU_PID_a="" QEMU_PID_b="" QEMU_PIDS=""
}
