#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Decode throughput of ptbpf-dump, in MB/s of Intel PT per second of CPU
# time, on a generated
# stream (tests/bench/dump_gen.c, default 64 MiB), next to bare libipt
# loops over the same bytes (libipt's packet, instruction and block
# decoders) and `perf script --itrace=i0ns` on the same snapshot's
# perf.data:
#
#   tests/bench/dump_throughput.sh [MIB]
#
# Output goes to a file (as a user would keep it), removed after each run.
# BASE=path/to/an/older/ptbpf-dump times that one too, on the same data in
# the same run, for before/after figures. Leaves nothing behind.
set -eu
cd "$(dirname "$0")/../.."
mib=${1:-64}
tmp=$(mktemp -d /tmp/ptbpf-bench-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
make -s ptbpf-dump .output/libptbpf.a .output/libptbpf-format.a
cc -O2 -g -std=gnu11 -D_GNU_SOURCE -I.output -Ibpf -Iuser -Itools/format -Itests \
	-o "$tmp/dump_gen" tests/bench/dump_gen.c .output/libptbpf.a .output/libptbpf-format.a \
	-lbpf -lelf -lz -lpthread -lipt
# ptbpf-dump and the bare loops: the fastest of $repeat runs each (a shared
# machine only ever adds time); perf script, minutes long, runs once
repeat=${REPEAT:-3}
"$tmp/dump_gen" "$tmp" "$mib" "$repeat" | tee "$tmp/gen.txt"
snap="$tmp/snapshot-000001"
bytes=$(sed -n 's/^generated \([0-9]*\) bytes/\1/p' "$tmp/gen.txt")

# NAME RUNS COMMAND...: MB/s of the trace per second of CPU time (user +
# system, the writes to the file included), the fastest of RUNS, and the
# wall time of that run: on a shared machine waiting for a CPU is noise.
rate() {
	local name=$1 runs=$2 best= wall= t
	shift 2
	for _ in $(seq "$runs"); do
		t=$( { TIMEFORMAT='%R %U %S'; time "$@" >"$tmp/out" 2>"$tmp/err" ||
			[ $? -eq 1 ]; } 2>&1)
		rm -f "$tmp/out"
		read -r best wall < <(awk -v t="$t" -v b="$best" -v w="$wall" 'BEGIN {
			split(t, f, " "); c = f[2] + f[3]
			if (b == "" || c < b) print c, f[1]; else print b, w }')
	done
	awk -v n="$name" -v b="$bytes" -v d="$best" -v w="$wall" 'BEGIN {
		if (d <= 0) d = 0.001
		printf "%s %.1f MB/s (%.2f s of CPU, %.2f s wall)\n", n, b / d / 1e6, d, w }'
}
rate "ptbpf-dump --packets" "$repeat" ./ptbpf-dump --packets "$snap"
rate "ptbpf-dump --insn" "$repeat" ./ptbpf-dump --insn "$snap"
rate "ptbpf-dump --timeline (perfetto)" "$repeat" ./ptbpf-dump --timeline - \
	--timeline-format perfetto "$snap"
rate "ptbpf-dump --timeline (json)" "$repeat" ./ptbpf-dump --timeline - "$snap"
rate "ptbpf-dump (summary)" "$repeat" ./ptbpf-dump "$snap"
if [ -n "${BASE:-}" ]; then
	rate "baseline ptbpf-dump --packets" "$repeat" "$BASE" --packets "$snap"
	rate "baseline ptbpf-dump --insn" "$repeat" "$BASE" --insn "$snap"
	rate "baseline ptbpf-dump --timeline (json)" "$repeat" "$BASE" --timeline - "$snap"
fi
rate "perf script --itrace=i0ns" 1 perf script --itrace=i0ns -F tid,ip,sym,symoff -i "$snap/perf.data"
