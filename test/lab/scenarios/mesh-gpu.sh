# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hosts: 2
# timeout: 420
# mesh --gpu on two hosts, over the fake CUDA driver the lab puts in
# /opt/rdmatest/bin (libcuda.so.1: a "device pointer" is a host address,
# so rxe reaches it as the host memory it is). rxe has no PCI function:
# each rank's rail gets the driver's GPU 0 (RT_FAKE_GPUS' default
# 0000:3b:00.0), "nearest unknown". With the peer memory module present
# (a private mount namespace whose /sys/module holds nvidia_peermem; the
# real tree is left alone) --gpu --bw is READY, the GPU named in the JSON
# document and the bytes read back checked; without it, exit 3 naming
# nvidia_peermem; with the driver failing its allocations, exit 3 naming
# cuMemAlloc. What this cannot show: GPU memory itself, dma-buf MRs
# (rxe has none), a real PCIe pairing.
M=$RT/mesh
HOSTS="$A,$B"
ARGS="--hosts $HOSTS --timeout 15 --pings 50 --min-links 1 --gpu cuda"
PEERMEM="mount -t tmpfs none /sys/module && mkdir /sys/module/nvidia_peermem"
# the fakes are glibc libraries: a musl build's lab has none
no_fake() { [ ! -e "$RT/libcuda.so.1" ] && skip "no fake libcuda.so.1 in $RT (a musl build leaves the fakes out)"; }

case_begin "--gpu cuda --bw 4m on two hosts: READY, each rail's GPU in the JSON" 120
no_fake
failed || bg_start r1 b unshare -m sh -c "$PEERMEM && LD_LIBRARY_PATH=$RT exec $M $ARGS --bw 4m"
failed || run_on -t 90 a unshare -m sh -c "$PEERMEM && LD_LIBRARY_PATH=$RT exec $M $ARGS --bw 4m --json" ||
	fail "rank 0 exited $?"
failed || $RT/json-check < "$OUT" >> "$LAB_TRANSCRIPT" || fail "rank 0: no single valid JSON document"
failed || output_has '"verdict":"READY"' || fail "rank 0: no READY verdict"
failed || output_has '"gpu":"0000:3b:00.0","gpu_rel":"unknown"' || fail "no rail's GPU in the JSON"
failed || [ "$(grep -o '"gpu":"0000:3b:00.0"' "$OUT" | wc -l)" -ge 2 ] || fail "not both hosts' GPU"
failed || output_has '"gpu_a":"0000:3b:00.0","gpu_b":"0000:3b:00.0"' || fail "the pair does not name its ends' GPUs"
failed || output_has "^gpu: host 1 \\($B\\) rail 0 rxe0: GPU 0000:3b:00.0, nearest unknown" ||
	fail "the summary does not name rank 1's GPU"
failed || output_has '"gbps":[0-9][0-9.e+-]*,"gbps_rev":[0-9]' || fail "no bandwidth both ways"
failed || bg_wait r1 60 || fail "rank 1 exited $?"
failed || bg_log r1 | grep -q '^READY' || fail "rank 1 did not print rank 0's READY"
record "mesh --gpu 2 hosts --bw 4m: $(sed -n 's/.*"pairs":\[{[^}]*"gbps":\([0-9.]*\),"gbps_rev":\([0-9.]*\).*/\1 Gbit\/s, back \2/p' "$OUT" | head -n 1) Gbit/s (fake GPU: host memory)"
pass

case_begin "--gpu cuda without the peer memory module: exit 3 naming nvidia_peermem" 60
no_fake
failed || run_on -t 40 a sh -c "LD_LIBRARY_PATH=$RT $M $ARGS --bw 1m 2>&1"
rc=$?
failed || [ "$rc" = 3 ] || fail "exit $rc, wanted 3"
failed || output_has 'rail 0 \(rxe[0-9]*\):.*nvidia_peermem' || fail "no line naming nvidia_peermem"
pass

case_begin "--gpu cuda, the driver's allocations failing: exit 3 naming cuMemAlloc" 60
no_fake
failed || run_on -t 40 a unshare -m sh -c "$PEERMEM && RT_FAKE_GPU_FAIL=alloc LD_LIBRARY_PATH=$RT exec $M $ARGS --bw 1m 2>&1"
rc=$?
failed || [ "$rc" = 3 ] || fail "exit $rc, wanted 3"
failed || output_has 'rail 0 \(rxe[0-9]*\):.*cuMemAlloc' || fail "no line naming cuMemAlloc"
pass

case_begin "--gpu hip without a ROCm driver library: exit 3 naming libamdhip64.so" 60
run_on -t 40 a sh -c "LD_LIBRARY_PATH=/nonexistent $M $ARGS --gpu hip 2>&1"
rc=$?
failed || [ "$rc" = 3 ] || fail "exit $rc, wanted 3"
failed || output_has 'libamdhip64\.so' || fail "no line naming libamdhip64.so"
pass
