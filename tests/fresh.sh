#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-fresh`: the README's two commands on a fresh Debian 12, as a
# newcomer would type them. A debootstrap minbase chroot of bookworm with
# nothing but make, git, sudo and ca-certificates (kept in FRESH_CACHE, made
# once), copied anew for every run; this repository's commit (HEAD, or the
# ref given) cloned into it; then `make demo` and `make check` as root, with
# /proc, /sys and /dev of this machine, since BPF and perf events are the
# kernel's. A test that passes here cannot lean on a package someone
# installed by hand. Root only; downloads from the machine's Debian mirror.
#
#   tests/fresh.sh [REF]       FRESH_CACHE (default /var/cache/ptbpf-fresh)
#                              FRESH_KEEP=1 keeps the run's chroot for a look
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)
ref=${1:-HEAD}
cache=${FRESH_CACHE:-/var/cache/ptbpf-fresh}
base=$cache/bookworm
say() { echo "fresh: $*" >&2; }

if [ "$(id -u)" != 0 ]; then
	say "needs root (debootstrap, chroot, BPF): sudo make check-fresh"
	exit 1
fi
commit=$(git rev-parse --verify "$ref^{commit}") || {
	say "$ref: not a commit of this repository"
	exit 1
}

# the mirror this machine's apt uses, so the chroot reaches what it reaches
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null |
	grep -v security | head -n 1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' \
	/etc/apt/sources.list 2>/dev/null)
mirror=${mirror:-http://deb.debian.org/debian}

if [ ! -f "$base/.ptbpf-fresh-done" ]; then
	command -v debootstrap >/dev/null || {
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
			debootstrap >/dev/null
	}
	say "making the base chroot in $base (once) from $mirror"
	# a debootstrap that died may have left its /proc or /sys mounted there
	if findmnt -rn -o TARGET | grep -q "^$base/"; then
		say "$base has mounts left by an earlier run (findmnt); unmount them first"
		exit 1
	fi
	rm -rf "$base"
	mkdir -p "$cache"
	debootstrap --variant=minbase --include=make,git,sudo,ca-certificates \
		bookworm "$base" "$mirror" >"$cache/debootstrap.log" 2>&1 || {
		tail -n 20 "$cache/debootstrap.log" >&2
		say "debootstrap failed; its log: $cache/debootstrap.log"
		exit 1
	}
	# bookworm-updates and the security suite, as an installed Debian 12 has them
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		rm -f "$base/etc/apt/sources.list"
		cp /etc/apt/sources.list.d/debian.sources "$base/etc/apt/sources.list.d/"
	fi
	touch "$base/.ptbpf-fresh-done"
fi

root=$(mktemp -d "$cache/run.XXXXXX")
mounted=()
cleanup() {
	local m
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		m=${mounted[i]}
		umount -R "$m" 2>/dev/null || umount -R -l "$m" 2>/dev/null || true
	done
	# never remove through a mount that is still there: that would be this machine's /sys
	if findmnt -rn -o TARGET | grep -q "^$root/"; then
		say "$root still has mounts; left in place"
	elif [ "${FRESH_KEEP:-0}" = 1 ]; then
		say "kept $root"
	else
		rm -rf "$root"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cp -a "$base/." "$root/"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
git clone -q --no-local "$top" "$root/root/ptbpf"
git -C "$root/root/ptbpf" checkout -q "$commit"

mount -t proc proc "$root/proc" && mounted+=("$root/proc")
mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys" && mounted+=("$root/sys")
mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev" && mounted+=("$root/dev")

say "commit $(git log -1 --format='%h %s' "$commit")"
rc=0
chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb CI="${CI:-true}" \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	/bin/bash -c 'cd /root/ptbpf && make demo </dev/null && make check </dev/null' || rc=$?
say "make demo && make check in a fresh Debian 12 chroot: exit $rc"
exit $rc
