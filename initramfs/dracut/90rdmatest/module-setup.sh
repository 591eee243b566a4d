#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# dracut module: rdmatest and its diagnostics hook in the initramfs.
# Install: copy this directory to /usr/lib/dracut/modules.d/90rdmatest/,
# then `dracut --add rdmatest --force` (or add_dracutmodules+=" rdmatest "
# in /etc/dracut.conf.d/rdmatest.conf). See docs/initramfs.md.

# the diag hook and the binary; RDMATEST_PREFIX where `meson install` put them
_rdmatest_find() {
	local p
	for p in "${RDMATEST_PREFIX:-}" /usr/local /usr; do
		[ -n "$p" ] && [ -e "$p/$1" ] && { echo "$p/$1"; return 0; }
	done
	return 1
}

check() {
	_rdmatest_find bin/rdmatest > /dev/null && _rdmatest_find lib/rdmatest/diag > /dev/null
}

depends() {
	return 0
}

installkernel() {
	hostonly='' instmods ib_uverbs rdma_ucm rdma_rxe
}

install() {
	local bin diag a
	bin=$(_rdmatest_find bin/rdmatest)
	diag=$(_rdmatest_find lib/rdmatest/diag)
	# inst_binary copies the libraries of a dynamic build too
	inst_binary "$bin" /usr/bin/rdmatest
	for a in $("$bin" --list); do
		ln_r /usr/bin/rdmatest "/usr/bin/$a"
	done
	inst_simple "$diag" /usr/lib/rdmatest/diag
	inst_multiple -o rdma ip modprobe tee
	# after udev has set up the network devices, before the root is mounted
	inst_hook pre-mount 90 "$moddir/rdmatest-hook.sh"
}
