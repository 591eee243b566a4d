# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# shellcheck shell=bash
# `lab setup`: install host packages, fetch Debian's kernel and build the cached
# base initramfs (busybox, iproute2, upstream peers, libraries, modules).
# Sourced by test/lab/lab after host/common.sh.

# Install what is missing (scripts/install-deps --lab: the one package
# list, scripts/packages). apt-get update runs only when something is
# missing or the kernel package cannot be resolved, so a set-up machine
# stays fast.
setup_packages() {
	"$LAB_INSTALL_DEPS" --lab || die "installing packages failed (scripts/install-deps --lab, above)"
	resolve_kernel
	if [ -n "$KPKG" ] && [ "${1:-}" != refresh ]; then
		return 0
	fi
	say "refreshing apt lists (apt-get update)"
	apt-get update -q >&2 || die "apt-get update failed"
	resolve_kernel
	[ -n "$KPKG" ] || die "cannot resolve the kernel package of linux-image-amd64 (apt-cache depends)"
}

# Download the kernel .deb into $LAB_CACHE/dl (kept for rebuilds); print its path.
setup_fetch_kernel() {
	local kpkg=$1 kver=$2 dl=$LAB_CACHE/dl deb
	mkdir -p "$dl"
	for deb in "$dl"/*.deb; do
		[ -e "$deb" ] || continue
		if [ "$(dpkg-deb -f "$deb" Package Version 2>/dev/null | tr '\n' ' ')" = "Package: $kpkg Version: $kver " ]; then
			echo "$deb"
			return 0
		fi
		rm -f "$deb"
	done
	say "downloading $kpkg $kver"
	# as root, apt's _apt sandbox user cannot write here: download as root, quietly
	(cd "$dl" && apt-get download -q -o APT::Sandbox::User=root "$kpkg=$kver" >&2) ||
		die "apt-get download $kpkg failed"
	for deb in "$dl"/"${kpkg}"_*.deb; do
		[ -e "$deb" ] && { echo "$deb"; return 0; }
	done
	die "downloaded $kpkg but found no .deb in $dl"
}

# Copy a host file into the image root at the same (or the given) path.
img_copy() {
	local src=$1 dst=${2:-$1}
	[ -e "$src" ] || die "image input missing on the host: $src"
	mkdir -p "$ROOT$(dirname "$dst")"
	cp -L "$src" "$ROOT$dst"
}

# Copy an ELF file and every library ldd lists (plus the loader).
img_elf() {
	local src=$1 dst=${2:-$1} lib
	img_copy "$src" "$dst"
	ldd "$src" >/dev/null 2>&1 || return 0 # static: nothing more to copy
	for lib in $(ldd "$src" | awk '/=> \// { print $3 } /^\t\// { print $1 }'); do
		[ -e "$ROOT$lib" ] || img_copy "$lib"
	done
}

# Expand modules with their dependencies (load order) and copy them; writes
# /etc/lab/modules.list, the insmod order used by the guest's init.
img_modules() {
	local ktree=$1 kver=$2 mods=$3 m line path seen=" "
	depmod -b "$ktree" "$kver" || die "depmod failed"
	mkdir -p "$ROOT/etc/lab"
	: > "$ROOT/etc/lab/modules.list"
	for m in $mods; do
		while read -r line; do
			case $line in
			insmod\ *) path=${line#insmod }; path=${path%% *} ;;
			builtin\ *) continue ;;
			*) die "unexpected modprobe output for $m: $line" ;;
			esac
			case $seen in *" $path "*) continue ;; esac
			seen="$seen$path "
			path=${path#"$ktree"}
			mkdir -p "$ROOT$(dirname "$path")"
			case $path in
			*.ko.xz) xz -dc "$ktree$path" > "$ROOT${path%.xz}"; path=${path%.xz} ;;
			*) cp "$ktree$path" "$ROOT$path" ;;
			esac
			echo "$path" >> "$ROOT/etc/lab/modules.list"
		done < <(modprobe -d "$ktree" -S "$kver" --show-depends "$m" 2>&1 ||
			echo "error: module $m not found")
	done
}

# Busybox plus a link for each applet that no real binary already provides.
img_busybox() {
	local a
	img_copy /bin/busybox /usr/bin/busybox
	for a in $(/bin/busybox --list-full); do
		a=/usr/${a#usr/}
		[ -e "$ROOT$a" ] || [ -L "$ROOT$a" ] || {
			mkdir -p "$ROOT$(dirname "$a")"
			ln -s /usr/bin/busybox "$ROOT$a"
		}
	done
}

img_skeleton() {
	local d
	mkdir -p "$ROOT"/usr/bin "$ROOT"/usr/sbin "$ROOT"/usr/lib "$ROOT"/usr/lib64 \
		"$ROOT"/dev "$ROOT"/proc "$ROOT"/sys "$ROOT"/tmp "$ROOT"/run "$ROOT"/root "$ROOT"/etc
	for d in bin sbin lib lib64; do ln -s "usr/$d" "$ROOT/$d"; done
	printf 'root:x:0:0:root:/root:/bin/sh\n' > "$ROOT/etc/passwd"
	printf 'root:x:0:\n' > "$ROOT/etc/group"
	printf '127.0.0.1 localhost\n192.0.2.1 a\n192.0.2.2 b\n' > "$ROOT/etc/hosts"
	printf 'hosts: files\n' > "$ROOT/etc/nsswitch.conf"
}

# Read image.list and fill the root.
img_from_list() {
	local kind a b f mods=""
	while read -r kind a b; do
		case $kind in
		'' | '#'*) continue ;;
		elf) for f in $a; do img_elf "$f" ${b:+"$b"}; done ;;
		file) for f in $a; do img_copy "$f" ${b:+"$b"}; done ;;
		mod) mods="$mods $a" ;;
		*) die "image.list: unknown kind '$kind'" ;;
		esac
	done < "$LAB_DIR/host/image.list"
	echo "$mods"
}

setup_build() {
	local key deb tmp kdir
	key=$(cache_key) || die "cannot compute the cache key"
	mkdir -p "$LAB_CACHE"
	# shellcheck disable=SC2153 # KPKG and KVER are set by resolve_kernel
	deb=$(setup_fetch_kernel "$KPKG" "$KVER")
	tmp=$(mktemp -d "$LAB_CACHE/build.XXXXXX")
	# shellcheck disable=SC2064 # expand $tmp now
	trap "rm -rf '$tmp'" EXIT
	say "extracting $(basename "$deb")"
	dpkg -x "$deb" "$tmp/k" || die "dpkg -x failed"
	# Debian 13's kernel package has its modules in usr/lib/modules only
	# (merged /usr); its kmod still reads lib/modules: link lib to usr/lib
	# as on an installed system
	[ -e "$tmp/k/lib" ] || [ ! -d "$tmp/k/usr/lib" ] || ln -s usr/lib "$tmp/k/lib"
	kdir=$(find "$tmp/k/lib/modules" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	[ -n "$kdir" ] || die "no lib/modules in $deb"
	ROOT=$tmp/root
	img_skeleton
	say "collecting binaries and libraries"
	local mods
	mods=$(img_from_list)
	img_busybox
	say "collecting kernel modules"
	img_modules "$tmp/k" "$(basename "$kdir")" "$mods"
	basename "$kdir" > "$ROOT/etc/lab/kernel-release"
	say "packing the base image"
	(cd "$ROOT" && find . -mindepth 1 | LC_ALL=C sort) > "$tmp/base.files"
	(cd "$ROOT" && cpio -o -H newc -R 0:0 --quiet) < "$tmp/base.files" |
		gzip -1 > "$tmp/base.cpio.gz" || die "packing failed"
	cp "$tmp/k/boot/vmlinuz-$(basename "$kdir")" "$tmp/vmlinuz" || die "no vmlinuz in $deb"
	rm -f "$LAB_STAMP"
	mv "$tmp/vmlinuz" "$LAB_KERNEL"
	mv "$tmp/base.cpio.gz" "$LAB_BASE"
	mv "$tmp/base.files" "$LAB_CACHE/base.files"
	printf '%s\n' "$key" > "$LAB_STAMP"
	rm -rf "$tmp"
	trap - EXIT
	say "base image ready: $LAB_BASE ($(du -h "$LAB_BASE" | cut -f1)), kernel $(basename "$kdir")"
}

# lab setup [--force] [--refresh]
cmd_setup() {
	local force=0 refresh=""
	while [ $# -gt 0 ]; do
		case $1 in
		--force) force=1 ;;
		--refresh) refresh=refresh ;;
		*) die "setup: unknown option $1" ;;
		esac
		shift
	done
	setup_packages $refresh
	if [ "$force" = 0 ] && cache_valid; then
		say "cache valid: $LAB_CACHE"
		return 0
	fi
	setup_build
}
