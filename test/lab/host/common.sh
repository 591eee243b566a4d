# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# shellcheck shell=bash
# Host-side shared definitions for the lab driver: paths, messages, cache key.
# Sourced by test/lab/lab; needs LAB_DIR set to test/lab.

LAB_CACHE=${RDMATEST_LAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rdmatest-lab}
LAB_STAMP=$LAB_CACHE/stamp
LAB_BASE=$LAB_CACHE/base.cpio.gz
LAB_KERNEL=$LAB_CACHE/vmlinuz

# Packages copied into the guest image: their versions are part of the
# cache key. What the lab installs is the lab group of scripts/packages
# (scripts/install-deps --lab), which holds these. librdmacm1 is
# librdmacm1t64 on Debian 13: the key takes whichever is installed.
LAB_IMAGE_PKGS="busybox-static iproute2 rdma-core rdmacm-utils ibverbs-utils perftest
  ibverbs-providers libibverbs1 librdmacm1 librdmacm1t64 libc6 libgcc-s1 coreutils"
LAB_INSTALL_DEPS=$LAB_DIR/../../scripts/install-deps

# Files whose content defines the base image (the guest scripts are not
# among them: they travel in the small per-run archive).
LAB_IMAGE_INPUTS="host/common.sh host/setup.sh host/image.list"

say()  { printf 'lab: %s\n' "$*" >&2; }
die()  { printf 'lab: error: %s\n' "$*" >&2; exit 1; }

# Set KPKG to the kernel package linux-image-amd64 depends on (e.g.
# linux-image-6.1.0-56-amd64) and KVER to its candidate version; both empty
# when the apt lists cannot tell. (apt-cache is slow: called once per run.)
KPKG="" KVER=""
resolve_kernel() {
	KPKG=$(apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
	KVER=""
	[ -z "$KPKG" ] || KVER=$(pkg_candidate "$KPKG")
	[ "$KVER" != "(none)" ] || KVER=""
	[ -n "$KVER" ] || KPKG=""
}

# Candidate version of a package in the apt lists (empty if unknown).
pkg_candidate() {
	apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" { print $2; exit }'
}

# "NAME VERSION" for each of the packages that is installed (one dpkg call;
# it exits 1 when any is not installed, which under pipefail must not count).
pkg_versions() {
	# shellcheck disable=SC2086 # a list of names
	{ dpkg-query -W -f='${db:Status-Abbrev} ${Package} ${Version}\n' $1 2>/dev/null || true; } |
		awk '$1 == "ii" { print $2, $3 }'
}

# The cache key: kernel package and version, versions of every package copied
# into the image, and a hash of the lab's image-building files. Fails when
# the kernel package cannot be resolved (resolve_kernel first).
cache_key() {
	local f
	[ -n "$KPKG" ] || return 1
	{
		echo "kernel $KPKG $KVER"
		pkg_versions "$LAB_IMAGE_PKGS" | sed 's/^/pkg /'
		for f in $LAB_IMAGE_INPUTS; do
			echo "file $f $(sha256sum < "$LAB_DIR/$f" | cut -d' ' -f1)"
		done
	}
}

# True when the cached kernel and base image match the current inputs.
cache_valid() {
	local key
	[ -s "$LAB_STAMP" ] && [ -s "$LAB_BASE" ] && [ -s "$LAB_KERNEL" ] || return 1
	[ -n "$KPKG" ] || resolve_kernel
	key=$(cache_key) || return 1
	[ "$key" = "$(cat "$LAB_STAMP")" ]
}
