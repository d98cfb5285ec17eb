#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The layout holds: each tree includes only itself and the shared format
# (tools/format/), the shared format uses no libbpf, libipt or threads, the
# reader links none of the tracer and not libbpf, building the reader from
# nothing runs neither clang for BPF nor bpftool, and nothing in the
# repository points outside it.
set -u
cd "$(dirname "$0")/.."
fail=0
bad() {
	echo "layout: $*"
	fail=1
}

# includes: "x.h" must be found in the tree itself or in the allowed ones
check_tree() {
	local tree=$1
	shift
	local f inc d found
	for f in "$tree"/*.[ch]; do
		while read -r inc; do
			found=
			for d in "$tree" "$@"; do
				[ -e "${d%/}/$inc" ] && found=$d
			done
			[ -n "$found" ] || bad "$f includes \"$inc\", which is outside $tree and ${*:-nothing else}"
		done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
	done
}
check_tree bpf vmlinux/*/
check_tree tools/format
check_tree tools/dump tools/format
# ptbpf.skel.h is generated into .output by the tracer's build
check_tree user tools/format bpf .output

# the shared format: no libbpf, no libipt, no threads
if grep -nE '#include <(bpf/|intel-pt|pthread)' tools/format/*.[ch]; then
	bad "tools/format includes libbpf, libipt or pthread"
fi
if grep -nE '#include <bpf/' tools/dump/*.[ch]; then
	bad "the reader includes libbpf"
fi

# the reader, built from nothing in a scratch tree
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! make V=1 OUTPUT="$tmp/out" BINDIR="$tmp" "$tmp/ptbpf-dump" >"$tmp/build.log" 2>&1; then
	tail -n 20 "$tmp/build.log"
	bad "make ptbpf-dump failed from a clean tree"
fi
if grep -nE -- '-target bpf|bpftool|ptbpf\.skel\.h' "$tmp/build.log"; then
	bad "building ptbpf-dump ran clang for BPF or bpftool"
fi
[ -e "$tmp/out/ptbpf.bpf.o" ] && bad "building ptbpf-dump made the BPF object"
if [ -x "$tmp/ptbpf-dump" ]; then
	n=$(nm "$tmp/ptbpf-dump" | grep -c 'bundle_')
	[ "$n" = 0 ] || bad "ptbpf-dump has $n bundle_ symbols"
	if nm "$tmp/ptbpf-dump" | grep -E ' [TtDdBb] (bundle|fileout|recwrite|perfdata|snapwrite|cores|watch|control)_'; then
		bad "ptbpf-dump links tracer code"
	fi
	if ldd "$tmp/ptbpf-dump" | grep -q libbpf; then
		bad "ptbpf-dump links libbpf"
	fi
fi

# the repository describes itself: nothing points at ../shared/
if git grep -n '\.\./shared' -- . ':!tests/layout.sh'; then
	bad "the repository points outside itself"
fi

[ "$fail" = 0 ] && echo "layout: ok"
exit "$fail"
