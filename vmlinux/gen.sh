#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Regenerate vmlinux/<arch>/vmlinux.h from the running kernel's BTF. The BPF
# program uses CO-RE, so the header only has to name the types; the loader
# relocates field offsets against the target kernel's own BTF.
set -eu
arch=$(uname -m | sed 's/x86_64/x86/; s/aarch64/arm64/')
dir=$(dirname "$0")/$arch
mkdir -p "$dir"
bpftool btf dump file /sys/kernel/btf/vmlinux format c > "$dir/vmlinux.h.tmp"
mv "$dir/vmlinux.h.tmp" "$dir/vmlinux.h"
echo "wrote $dir/vmlinux.h"
