#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages ptbpf needs to build and test, when they are
# missing. Called by `make check`, `make demo` and `make bench`, and by CI on
# a fresh machine: nothing may be assumed to be there already.
set -eu

# Build: the compilers, libbpf and bpftool, the libraries both programs link
# (elfutils' libdw: the reader unwinds stacks with it, the tracer compiles
# unwind tables from CFI with it; the reader decodes instructions within a
# PT block with capstone).
# Tests, demo and bench also run: perf (its script, report, archive, which
# packs with tar and bzip2), gdb, lldb-19, python3, readelf and nm
# (binutils), groff (the man page check), systemd-analyze (the unit
# template check), setpriv (util-linux), protoc (the Perfetto timeline's
# check), and libc's detached debug symbols (libc6-dbg: the stack tests
# expect libc's static functions by name, as perf and gdb name them with it).
PKGS="make gcc binutils clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev
libipt-dev libcmocka-dev pkg-config linux-perf gdb procps util-linux tar
bzip2 lldb-19 python3 libclang-rt-dev groff-base libjson-c-dev libdw-dev
libcapstone-dev protobuf-compiler libc6-dbg systemd"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "ptbpf: missing packages:$missing; run this as root (sudo make ..., or make ... in a root shell) to install them" >&2
	exit 1
fi
echo "ptbpf: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=600 update -qq
# shellcheck disable=SC2086
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >/dev/null
