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

# The peers' APT lists, one private set per suite (peers_apt), fetched when
# missing, when the mirror changed, or with --refresh (arg "refresh").
setup_peer_lists() {
	local rs suite d mirror want
	mirror=$(peers_mirror)
	[ -n "$mirror" ] || die "no Debian mirror for this release in /etc/apt/sources* (set RDMATEST_LAB_MIRROR)"
	for rs in $LAB_PEER_RELEASES; do
		suite=${rs#*:} d=$LAB_PEER_APT/${rs#*:}
		want="deb $mirror $suite main"
		mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
		if [ "${1:-}" = refresh ] || [ "$(cat "$d/sources.list" 2>/dev/null)" != "$want" ] ||
			! compgen -G "$d/lists/*_dists_${suite}_InRelease" > /dev/null; then
			printf '%s\n' "$want" > "$d/sources.list"
			say "fetching the $suite package index (peers of Debian ${rs%%:*})"
			peers_apt apt-get "$suite" update > "$d/update.log" 2>&1 ||
				die "apt-get update for $suite failed: $(grep -m1 '^E:' "$d/update.log") (log: $d/update.log)"
		fi
	done
}

# Packages of SUITE that the peers need, one per line: the tools, the rxe
# provider, libgcc-s1 (glibc dlopens it, so no ELF names it) and coreutils
# (for libstdbuf.so alone), closed over Depends/Pre-Depends through the
# packages of section "libs" only: that is where shared libraries live
# (zlib1g as much as libc6); the rest (adduser, pci.ids ...) serve
# maintainer scripts or data the tools do not load. Whether this is enough
# is checked on the ELF files later (img_peers), not assumed.
peers_resolve() {
	local suite=$1 todo seen=" " next p
	todo="$LAB_PEER_PKGS ibverbs-providers libgcc-s1 libc6"
	while [ -n "$todo" ]; do
		next=""
		for p in $todo; do seen="$seen$p "; done
		# shellcheck disable=SC2086 # a list of names
		todo=$(peers_apt apt-cache "$suite" depends --no-recommends --no-suggests \
			--no-conflicts --no-breaks --no-replaces --no-enhances $todo |
			awk '/^ *(\|)?(Pre)?Depends: / && !alt && $2 !~ /^</ { print $2 } { alt = ($1 ~ /^\|/) }' | sort -u)
		for p in $todo; do
			case $seen in *" $p "*) ;; *) next="$next $p" ;; esac
		done
		todo=""
		# shellcheck disable=SC2086 # a list of names
		[ -z "$next" ] || todo=$(peers_libs_only "$suite" $next)
	done
	echo "$seen coreutils" | tr ' ' '\n' | sed '/^$/d' | sort -u
}

# The names among PKG... whose candidate is in section libs.
peers_libs_only() {
	local suite=$1
	shift
	peers_apt apt-cache "$suite" show --no-all-versions "$@" |
		awk '/^Package: / { p = $2 } /^Section: / && ($2 == "libs" || $2 ~ /\/libs$/) { print p }' | sort -u
}

# Download SUITE's packages into $LAB_CACHE/dl/SUITE (the exact files the
# index names, so a cached one is reused only while it is current; others
# are deleted). Prints the .deb paths.
setup_fetch_peers() {
	local suite=$1 dl=$LAB_CACHE/dl/$1 pkgs uris f missing="" keep=" "
	pkgs=$(peers_resolve "$suite") || die "cannot resolve the $suite peers' packages"
	mkdir -p "$dl"
	# shellcheck disable=SC2086 # a list of names
	uris=$(peers_apt apt-get "$suite" download --print-uris $pkgs) ||
		die "apt-get download --print-uris failed for $suite"
	for f in $(printf '%s\n' "$uris" | awk '{ print $2 }'); do
		keep="$keep$f "
		[ -s "$dl/$f" ] || missing="$missing ${f%%_*}"
	done
	for f in "$dl"/*.deb; do
		[ -e "$f" ] || continue
		case $keep in *" ${f##*/} "*) ;; *) rm -f "$f" ;; esac
	done
	if [ -n "$missing" ]; then
		say "downloading $suite:$missing"
		# shellcheck disable=SC2086 # a list of names
		(cd "$dl" && peers_apt apt-get "$suite" download $missing >&2) ||
			die "apt-get download ($suite) failed"
	fi
	for f in $keep; do
		[ -s "$dl/$f" ] || die "$suite: $f missing after the download"
		echo "$dl/$f"
	done
}

# Build ROOT/opt/peers/SUITE from SUITE's .debs: the ELF programs of the
# tool packages, every library their own loader resolves for them, the rxe
# provider and its driver file, libgcc_s and libstdbuf (the lab's stdbuf
# preloads it by path, and inside the root that path is the root's).
img_peers() {
	local rel=$1 suite=$2 x=$3 r=$ROOT/opt/peers/$2 deb f p elfs="" tools="" ld vers=""
	shift 3
	mkdir -p "$x" "$r/usr/bin" "$r/usr/lib" "$r/usr/lib64" "$r/etc" "$r/dev" "$r/proc" "$r/sys" "$r/tmp"
	for p in bin sbin lib lib64; do ln -s "usr/$p" "$r/$p"; done
	for deb in "$@"; do
		dpkg -x "$deb" "$x" || die "dpkg -x $deb failed"
		p=$(dpkg-deb -f "$deb" Package)
		case " $LAB_PEER_PKGS " in
		*" $p "*)
			for f in $(dpkg-deb -c "$deb" | awk '$1 ~ /^-/ && $6 ~ /^\.\/usr\/bin\// { print substr($6, 2) }'); do
				[ "$(head -c 4 "$x$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
				# Soft-RoCE has no raw packet QPs: perftest's raw_ethernet_*
				# cannot run in the lab (1.3 MB a root)
				case $f in */raw_ethernet_*) continue ;; esac
				tools="$tools ${f##*/}"
			done
			vers="$vers $p=$(dpkg-deb -f "$deb" Version)"
			;;
		esac
	done
	for f in $tools; do elfs="$elfs /usr/bin/$f"; done
	for f in "$x"/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so; do elfs="$elfs ${f#"$x"}"; done
	elfs="$elfs /usr/libexec/coreutils/libstdbuf.so"
	for f in /usr/lib/x86_64-linux-gnu/libgcc_s.so.1 /lib/x86_64-linux-gnu/libgcc_s.so.1; do
		[ -e "$x$f" ] && elfs="$elfs $f" && break
	done
	for f in /usr/lib64/ld-linux-x86-64.so.2 /lib64/ld-linux-x86-64.so.2; do
		[ -e "$x$f" ] && ld=$x$f && break
	done
	[ -n "${ld:-}" ] || die "$suite: no ld-linux-x86-64.so.2 in libc6"
	for f in $elfs; do
		peers_copy "$x" "$r" "$f"
		# the root's own loader lists what the root's libraries give this ELF
		"$ld" --library-path "$x/usr/lib/x86_64-linux-gnu:$x/lib/x86_64-linux-gnu" --list "$x$f" > "$x.ldd" 2>&1 ||
			die "$suite: the loader cannot resolve $f: $(cat "$x.ldd")"
		! grep -q 'not found' "$x.ldd" || die "$suite: $f needs $(grep 'not found' "$x.ldd" | tr -s '\t\n' '  ')"
		# the loader falls back to the host's directories: a library found
		# there is one the packages lack, not one to borrow
		! grep -v -e 'linux-vdso' -e "=> $x/" -e "^[[:space:]]*$x/" "$x.ldd" | grep -q . ||
			die "$suite: $f resolved outside its packages: $(grep -v -e 'linux-vdso' -e "=> $x/" "$x.ldd" | tr -s '\t\n' '  ')"
		while read -r p; do
			peers_copy "$x" "$r" "$p"
		done < <(awk -v x="$x" '{ for (i = 1; i <= NF; i++) if (index($i, x "/") == 1) print substr($i, length(x) + 1) }' "$x.ldd")
	done
	f=$(find "$x/etc/libibverbs.d" -name rxe.driver | head -n 1)
	[ -n "$f" ] || die "$suite: no rxe.driver in ibverbs-providers"
	mkdir -p "$r/etc/libibverbs.d"
	cp "$f" "$r/etc/libibverbs.d/"
	cp "$ROOT/etc/passwd" "$ROOT/etc/group" "$ROOT/etc/nsswitch.conf" "$r/etc/"
	: > "$r/etc/hosts" # the guest's init binds its own over it
	echo "$rel $suite$vers" >> "$ROOT/etc/lab/peers"
	mkdir -p "$ROOT/opt/peers/up$rel"
	for f in $tools; do
		ln -s /lab/peer.sh "$ROOT/opt/peers/up$rel/$f"
		[ -e "$ROOT/usr/bin/$f" ] || [ -L "$ROOT/usr/bin/$f" ] || ln -s /lab/peer.sh "$ROOT/usr/bin/$f"
	done
	ln -s /lab/peer.sh "$ROOT/usr/bin/up$rel"
	say "peers of Debian $rel ($suite):$vers, $(du -sh "$r" | cut -f1)"
}

# Copy FILE from the unpacked tree X into root R (following links: the
# loader asks for the soname), at its /usr path (R's /lib is usr/lib).
peers_copy() {
	local x=$1 r=$2 f=$3 dst
	dst=$f
	case $dst in /usr/*) ;; *) dst=/usr$dst ;; esac
	[ -e "$r$dst" ] && return 0
	mkdir -p "$r$(dirname "$dst")"
	cp -L "$x$f" "$r$dst" || die "cannot copy $f into the peers root"
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
	local mods rs
	mods=$(img_from_list)
	mkdir -p "$ROOT/etc/lab"
	: > "$ROOT/etc/lab/peers"
	for rs in $LAB_PEER_RELEASES; do
		say "building the peers root of Debian ${rs%%:*}"
		# shellcheck disable=SC2046 # one .deb path a line, no spaces
		img_peers "${rs%%:*}" "${rs#*:}" "$tmp/x-${rs#*:}" $(setup_fetch_peers "${rs#*:}")
	done
	echo "default $LAB_PEER_DEFAULT" >> "$ROOT/etc/lab/peers"
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
	setup_peer_lists $refresh
	if [ "$force" = 0 ] && cache_valid; then
		say "cache valid: $LAB_CACHE"
		return 0
	fi
	setup_build
}
