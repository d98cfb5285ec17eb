#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages ptbpf needs to build and test, when they are
# missing. Called by `make check`, `make demo` and `make bench`, and by CI on
# a fresh machine: nothing may be assumed to be there already.
set -eu

PKGS="make gcc clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev
libipt-dev libcmocka-dev pkg-config linux-perf gdb procps util-linux
lldb-19 python3 libclang-rt-dev groff-base libjson-c-dev
protobuf-compiler libcapstone-dev"

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
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
