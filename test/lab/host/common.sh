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
LAB_IMAGE_PKGS="busybox-static iproute2 rdma-core
  ibverbs-providers libibverbs1 librdmacm1 librdmacm1t64 libc6 libgcc-s1 coreutils"
LAB_INSTALL_DEPS=$LAB_DIR/../../scripts/install-deps

# The upstream peers: each Debian release's rdmacm-utils, ibverbs-utils and
# perftest in a root of its own, /opt/peers/SUITE in the guest, as
# "RELEASE:SUITE" pairs; scenarios run them with `up12 TOOL`, `up13 TOOL`,
# or by the bare name (LAB_PEER_DEFAULT, the current stable release). Both
# are fetched by suite name whatever the host runs, so the same scenario
# meets the same peers on a bookworm and on a trixie host.
LAB_PEER_RELEASES="12:bookworm 13:trixie"
LAB_PEER_DEFAULT=13
LAB_PEER_PKGS="rdmacm-utils ibverbs-utils perftest"
# Their private APT state (sources, lists, cache): the host's is not touched.
LAB_PEER_APT=$LAB_CACHE/apt

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
		peers_key
		for f in $LAB_IMAGE_INPUTS; do
			echo "file $f $(sha256sum < "$LAB_DIR/$f" | cut -d' ' -f1)"
		done
	}
}

# The Debian mirror of the host's apt sources (one-line or deb822 format):
# the first "deb" entry for the host's own release. RDMATEST_LAB_MIRROR
# overrides it.
peers_mirror() {
	local f codename
	[ -z "${RDMATEST_LAB_MIRROR:-}" ] || { echo "$RDMATEST_LAB_MIRROR"; return 0; }
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	# a missing file is skipped without a failed status: under pipefail the
	# loop's last test would fail the pipeline (a minbase root has only
	# sources.list)
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		cat "$f"
		echo
	done | awk -v want="$codename" '
		function consider(uri, suites,  i, n, s) {
			n = split(suites, s, " ")
			for (i = 1; i <= n; i++)
				if (s[i] == want && found == "") found = uri
		}
		/^deb / { if ($2 ~ /^\[/) consider($3, $4); else consider($2, $3); next }
		/^Types:/ { types = $0 }
		/^URIs:/ { uri = $2 }
		/^Suites:/ { suites = $0; sub(/^Suites:[ \t]*/, "", suites) }
		/^[ \t]*$/ { if (types ~ /[ \t]deb([ \t]|$)/) consider(uri, suites); types = "" }
		END { if (types ~ /[ \t]deb([ \t]|$)/) consider(uri, suites); print found }'
}

# apt-get/apt-cache (first argument) on SUITE's private APT state, bounded
# (a stalled mirror must not hang `lab setup`).
peers_apt() {
	local tool=$1 d=$LAB_PEER_APT/$2
	shift 2
	timeout 600 "$tool" -q -o Dir::Etc::sourcelist="$d/sources.list" -o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" \
		-o Dir::State::status=/dev/null -o APT::Sandbox::User=root "$@"
}

# What determines the peers: per suite, the mirror and the suite's index as
# last fetched by `lab setup` (its InRelease, so a point release of the
# suite invalidates the image only after `lab setup --refresh`).
peers_key() {
	local rs suite rel f sum
	for rs in $LAB_PEER_RELEASES; do
		rel=${rs%%:*} suite=${rs#*:}
		sum=none
		for f in "$LAB_PEER_APT/$suite"/lists/*_dists_"${suite}"_InRelease; do
			[ -e "$f" ] && sum=$(sha256sum < "$f" | cut -d' ' -f1)
		done
		echo "peers $rel $suite $(cat "$LAB_PEER_APT/$suite/sources.list" 2>/dev/null) $sum"
	done
}

# True when the cached kernel and base image match the current inputs.
cache_valid() {
	local key
	[ -s "$LAB_STAMP" ] && [ -s "$LAB_BASE" ] && [ -s "$LAB_KERNEL" ] || return 1
	[ -n "$KPKG" ] || resolve_kernel
	key=$(cache_key) || return 1
	[ "$key" = "$(cat "$LAB_STAMP")" ]
}
