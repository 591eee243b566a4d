# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 300
# The ib_* tests' GPU memory (--use_cuda, --use_rocm) with the fake CUDA
# and HIP drivers the test tree builds (libcuda.so.1 and libamdhip64.so in
# /opt/rdmatest/bin, found through LD_LIBRARY_PATH): the real loading,
# registering and copying code, with "GPU memory" that is host memory,
# which rxe registers as such. Against Debian 13's perftest 25.01 in host
# memory both ways (the wire does not change with the memory) and
# rdmatest on both ends, where the data check reads the landed bytes back
# through the driver's copy. Then what rxe and the host lack, each exit 3
# naming it: the peer memory module, a dma-buf registration, the driver,
# the GPU.
#
# Peer memory: rdmatest checks that /sys/module/nvidia_peermem exists
# before it registers a device address with ibv_reg_mr. The guest has no
# such module, so the GPU side runs in a mount namespace of its own whose
# /sys/module is a tmpfs holding that one name (gpu-run below): nothing in
# rdmatest is told it is a test.
. "$LAB_SCEN/perftest.inc"

# gpu-run [--no-peermem] CMD...: CMD with the fake drivers on the library
# path, and (unless --no-peermem) nvidia_peermem "loaded".
GPU_RUN=/tmp/gpu-run
for h in a b; do
	run_on "$h" sh -c "cat > $GPU_RUN <<'EOF'
#!/bin/sh
if [ \"\$1\" = --no-peermem ]; then
	shift
	exec env LD_LIBRARY_PATH=/opt/rdmatest/bin \"\$@\"
fi
exec unshare -m sh -c 'mount -t tmpfs lab-modules /sys/module &&
	mkdir /sys/module/nvidia_peermem /sys/module/amdgpu &&
	exec env LD_LIBRARY_PATH=/opt/rdmatest/bin \"\$@\"' gpu-run \"\$@\"
EOF
chmod +x $GPU_RUN"
done

# gpu_pair NAME SERVER CLIENT ROW [CHECK]: the server on b, the client on
# a; both exit 0 and print ROW, and every rdmatest side on a GPU names it;
# with CHECK the rdmatest server runs with --json, whose data_check must
# begin with CHECK and whose gpu object names the GPU (instead of its row
# and GPU line); CHECK no-server-row: the server prints no row (perftest's
# read server).
gpu_pair() {
	local row=$4 check=${5:-}
	case_begin "$1" 90
	case $check in ""|no-server-row) bg_start srv b $2 ;; *) bg_start srv b $2 --json ;; esac
	wait_tcp_listen b 18515 20 || fail "server not listening on 18515"
	failed || run_on -t 60 a $3 "$B" || fail "client exited $?"
	failed || output_has "$row" || fail "client printed no row /$row/"
	failed || exit_in srv 0
	if [ "$check" = "no-server-row" ]; then
		: # perftest's read server prints no row
	elif [ -n "$check" ]; then
		failed || log_has srv "\"data_check\":\"$check"
		failed || log_has srv '"gpu":\{"api":"(CUDA|HIP)","index":0,"bus_id":"0000:3b:00.0","name":"[^"]*","memory":"peer memory","pcie_mapping":false\}'
	else
		failed || log_has srv "$row"
		case "$2" in "$GPU_RUN"*) failed || log_has srv "GPU memory +: (CUDA|HIP) GPU 0" ;; esac
	fi
	case "$3" in "$GPU_RUN"*) failed || output_has "GPU memory +: (CUDA|HIP) GPU 0 \(0000:3b:00.0 .*\), peer memory" ||
		fail "the client did not name its GPU" ;; esac
	pass
}

RW="$GPU_RUN $RT/ib_write_bw --timeout 20 --use_cuda=0"
PW="/usr/bin/ib_write_bw -x"
gpu_pair "ib_write_bw: rt client on a GPU -> perftest server, -s 64K -n 50" \
	"$PW $GB -s 65536 -n 50" "$RW -s 65536 -n 50" "$(row 65536 50)"
# the rdmatest server checks the first message of each QP, read back from
# the GPU through cuMemcpyDtoH: the client's pattern, so it is verified
gpu_pair "ib_write_bw: rt client on a GPU -> rt server on a GPU, -q 2, data read back" \
	"$RW -s 65536 -n 50 -q 2" "$RW -s 65536 -n 50 -q 2" "$(row 65536 100)" \
	"first message of every QP verified"
gpu_pair "ib_write_bw: perftest client -> rt server on a GPU" \
	"$RW -s 4096 -n 50" "$PW $GA -s 4096 -n 50" "$(row 4096 50)"
# read: the client's own buffer receives the data (the server's pattern)
RR="$GPU_RUN $RT/ib_read_bw --timeout 20 --use_cuda_bus_id=3b:00.0"
gpu_pair "ib_read_bw: rt client on a GPU (by bus id) <- rt server on a GPU" \
	"$RR -s 65536 -n 20" "$RR -s 65536 -n 20" "$(row 65536 20)"
gpu_pair "ib_read_bw: rt client on a GPU <- perftest server" \
	"/usr/bin/ib_read_bw -x $GB -s 65536 -n 20" "$RR -s 65536 -n 20" "$(row 65536 20)" no-server-row
RS="$GPU_RUN $RT/ib_send_bw --timeout 20 --use_rocm=0"
gpu_pair "ib_send_bw: rt client on a ROCm GPU -> rt server on a ROCm GPU" \
	"$RS -s 8192 -n 50" "$RS -s 8192 -n 50" "$(row 8192 50)" \
	"first message of every QP verified"

# latency: perftest's send_lat row (size, iterations, figures); the rdmatest
# side sends nothing inline from the GPU (Max inline data 0)
LROW="^ 2 +200 +[0-9]"
RL="$GPU_RUN $RT/ib_send_lat --timeout 20 --use_cuda=0 -n 200"
PL="/usr/bin/ib_send_lat -n 200 -x"
gpu_pair "ib_send_lat: rt client on a GPU -> perftest server" "$PL $GB" "$RL" "$LROW"
gpu_pair "ib_send_lat: perftest client -> rt server on a GPU" "$RL" "$PL $GA" "$LROW"

# What the host lacks, before any peer is reached (the GPU opens with the
# device) or at the registration (against a waiting server)
lacks() {
	local name=$1 want=$2
	shift 2
	case_begin "$name" 60
	run_on -t 40 a "$@"
	rc=$?
	[ "$rc" = 3 ] || fail "exit $rc, expected 3"
	failed || output_has "$want" || fail "no /$want/ in: $(head -c 300 "$OUT")"
	pass
}
W="$RT/ib_write_bw --timeout 10"
lacks "no driver library: exit 3 naming libcuda.so.1" "libcuda\.so\.1" \
	$W --use_cuda=0 "$B"
lacks "no GPU 3: exit 3" "GPU 3|no such|ordinal" \
	$GPU_RUN $W --use_cuda=3 "$B"
lacks "the driver does not start: exit 3" "CUDA" \
	env RT_FAKE_GPU_FAIL=init $GPU_RUN $W --use_cuda=0 "$B"

# these reach the registration: a server waits on b for each
lacks_at_reg() {
	bg_start srv b "$RT/ib_write_bw" --timeout 10 -s 4096 -n 10
	wait_tcp_listen b 18515 20 || { case_begin "$1" 10; fail "server not listening"; return; }
	lacks "$@"
	bg_kill srv
}
lacks_at_reg "no nvidia_peermem: exit 3 naming it" "nvidia_peermem" \
	$GPU_RUN --no-peermem $W --use_cuda=0 -s 4096 -n 10 "$B"
# rxe registers no dma-buf MR and the fake exports one only where the
# guest has /dev/udmabuf: either way a dma-buf is what is named
lacks_at_reg "--use_cuda_dmabuf on rxe: exit 3 naming the dma-buf" "dma-buf" \
	$GPU_RUN $W --use_cuda=0 --use_cuda_dmabuf -s 4096 -n 10 "$B"
lacks_at_reg "device memory exhausted: exit 3" "cuMemAlloc" \
	env RT_FAKE_GPU_FAIL=alloc $GPU_RUN $W --use_cuda=0 -s 4096 -n 10 "$B"
