#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Decode throughput of ptbpf-dump, in MB/s of Intel PT, on a generated
# stream (tests/bench/dump_gen.c, default 64 MiB), next to bare libipt
# loops over the same bytes and `perf script --itrace=i0ns` on the same
# snapshot's perf.data:
#
#   tests/bench/dump_throughput.sh [MIB]
#
# Needs `make ptbpf-dump` first. Leaves nothing behind.
set -eu
cd "$(dirname "$0")/../.."
mib=${1:-64}
tmp=$(mktemp -d /tmp/ptbpf-bench-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
make -s ptbpf-dump .output/libptbpf.a
cc -O2 -g -std=gnu11 -D_GNU_SOURCE -I.output -Ibpf -Iuser -Itests \
	-o "$tmp/dump_gen" tests/bench/dump_gen.c .output/libptbpf.a \
	-lbpf -lelf -lz -lpthread -lipt
"$tmp/dump_gen" "$tmp" "$mib" | tee "$tmp/gen.txt"
snap="$tmp/snapshot-000001"
bytes=$(sed -n 's/^generated \([0-9]*\) bytes/\1/p' "$tmp/gen.txt")

rate() { # NAME COMMAND...: runs it, prints MB/s of the trace
	local name=$1 t0 t1
	shift
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>"$tmp/err" || [ $? -eq 1 ]
	t1=$(date +%s.%N)
	awk -v n="$name" -v b="$bytes" -v a="$t0" -v z="$t1" \
		'BEGIN { printf "%s %.1f MB/s (%.2f s)\n", n, b / (z - a) / 1e6, z - a }'
}
rate "ptbpf-dump --packets" ./ptbpf-dump --packets "$snap"
rate "ptbpf-dump --insn" ./ptbpf-dump --insn "$snap"
rate "ptbpf-dump (summary)" ./ptbpf-dump "$snap"
rate "perf script --itrace=i0ns" perf script --itrace=i0ns -F tid,ip,sym,symoff -i "$snap/perf.data"
