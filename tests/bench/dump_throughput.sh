#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Decode throughput of ptbpf-dump, in MB/s of Intel PT per second of CPU
# time (user + system: writing the output to a file counts), on a generated
# stream (tests/bench/dump_gen.c, default 64 MiB), each mode next to its
# bare libipt loop over the same bytes (the packet, instruction or block
# decoder), and perf script --itrace=i0ns on the same snapshot's perf.data:
#
#   tests/bench/dump_throughput.sh [MIB]
#
# Each round runs every baseline and every ptbpf-dump mode once, one after
# the other, so a baseline and the mode set against it see the same load;
# the figures are the medians of REPEAT rounds (default 3). perf script,
# minutes long, runs once. Output goes to a file (as a user would keep
# it), removed after each run. A run that fails, or a ptbpf-dump that
# exits non-zero, fails the script. BASE=path/to/an/older/ptbpf-dump times
# that one too in each round, for before/after figures. Leaves nothing
# behind.
#
# Prints "NAME RATE MB/s (...)" per mode and baseline, then one
# "ratio NAME / BASELINE R" line each, with the ratio on ptbpf-dump's user
# time alone next to it (the rest is the kernel writing the file: GBs of
# text for --insn).
set -eu
cd "$(dirname "$0")/../.."
mib=${1:-64}
repeat=${REPEAT:-3}
tmp=$(mktemp -d /tmp/ptbpf-bench-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
make -s ptbpf-dump .output/libptbpf.a .output/libptbpf-format.a
cc -O2 -g -std=gnu11 -D_GNU_SOURCE -I.output -Ibpf -Iuser -Itools/format -Itests \
	-o "$tmp/dump_gen" tests/bench/dump_gen.c .output/libptbpf.a .output/libptbpf-format.a \
	-lbpf -lelf -lz -lpthread -lipt
"$tmp/dump_gen" "$tmp" "$mib" | tee "$tmp/gen.txt"
snap="$tmp/snapshot-000001"
bytes=$(sed -n 's/^generated \([0-9]*\) bytes/\1/p' "$tmp/gen.txt")
[ -n "$bytes" ] || { echo "dump_throughput: dump_gen made no stream" >&2; exit 1; }

# KEY COMMAND...: one run, output to a file; appends "KEY cpu user sys wall"
# to $tmp/runs. CPU time, not wall time: on a shared machine waiting for a
# CPU is noise.
once() {
	local key=$1 t
	shift
	if ! t=$( { TIMEFORMAT='%R %U %S'; time "$@" >"$tmp/out" 2>"$tmp/err"; } 2>&1); then
		echo "dump_throughput: $key failed: $(tail -n 1 "$tmp/err")" >&2
		exit 1
	fi
	echo "$key $(stat -c %s "$tmp/out")" >>"$tmp/sizes"
	rm -f "$tmp/out"
	awk -v k="$key" -v t="$t" 'BEGIN { split(t, f, " ")
		printf "%s %.3f %.3f %.3f %.3f\n", k, f[2] + f[3], f[2], f[3], f[1] }' >>"$tmp/runs"
}

# KIND: one bare libipt loop; it times itself (the loop, not the stream's
# making)
bare() {
	local out
	out=$("$tmp/dump_gen" --bare "$1" "$mib") || {
		echo "dump_throughput: bare $1 loop failed" >&2
		exit 1
	}
	echo "bare-$1 $(sed -n 's/.*(\([0-9.]*\) s of CPU.*/\1/p' <<<"$out") 0 0 0" >>"$tmp/runs"
}

for r in $(seq "$repeat"); do
	echo "round $r of $repeat" >&2
	bare pkt
	once packets ./ptbpf-dump --packets "$snap"
	bare insn
	once insn ./ptbpf-dump --insn "$snap"
	once timeline-pf ./ptbpf-dump --timeline - --timeline-format perfetto "$snap"
	bare blk
	once timeline-json ./ptbpf-dump --timeline - "$snap"
	once summary ./ptbpf-dump "$snap"
	if [ -n "${BASE:-}" ]; then
		once base-packets "$BASE" --packets "$snap"
		once base-insn "$BASE" --insn "$snap"
		once base-timeline-pf "$BASE" --timeline - --timeline-format perfetto "$snap"
	fi
done
once perf-script perf script --itrace=i0ns -F tid,ip,sym,symoff -i "$snap/perf.data"

# KEY: "MBS CPU USER SYS WALL N" of the median run by CPU time
median() {
	awk -v k="$1" '$1 == k { print $2, $3, $4, $5 }' "$tmp/runs" | sort -n |
		awk -v b="$bytes" '{ l[NR] = $0 } END {
			if (!NR) exit 1
			split(l[int((NR + 1) / 2)], f, " "); c = f[1] > 0 ? f[1] : 0.001
			printf "%.1f %.2f %.2f %.2f %.2f %d\n", b / c / 1e6, c, f[2], f[3], f[4], NR }'
}

# NAME KEY: the rate line (with the bytes it wrote, what the system time
# pays for)
line() {
	local m out
	m=$(median "$2") || return 0
	read -r mbs cpu usr sys wall n <<<"$m"
	if [ "${2#bare-}" != "$2" ]; then
		echo "$1 $mbs MB/s ($cpu s of CPU in the loop, median of $n)"
	else
		out=$(awk -v k="$2" '$1 == k { s = $2 } END { printf "%.0f", s / 1e6 }' "$tmp/sizes")
		echo "$1 $mbs MB/s ($cpu s of CPU: $usr user + $sys system, $wall s wall, median of $n; $out MB written)"
	fi
}
rate_of() { median "$1" | cut -d' ' -f1; }
# KEY: MB/s on the median run's user time alone (ptbpf-dump's own work,
# without the kernel's cost of the file it writes); a bare loop's is its
# loop's
user_rate() {
	median "$1" | awk -v b="$bytes" '{ u = $3 > 0 ? $3 : $2; print b / (u > 0 ? u : 0.001) / 1e6 }'
}

line "bare-pkt" bare-pkt
line "bare-insn" bare-insn
line "bare-blk" bare-blk
line "ptbpf-dump --packets" packets
line "ptbpf-dump --insn" insn
line "ptbpf-dump --timeline (perfetto)" timeline-pf
line "ptbpf-dump --timeline (json)" timeline-json
line "ptbpf-dump (summary)" summary
if [ -n "${BASE:-}" ]; then
	line "baseline ptbpf-dump --packets" base-packets
	line "baseline ptbpf-dump --insn" base-insn
	line "baseline ptbpf-dump --timeline (perfetto)" base-timeline-pf
fi
line "perf script --itrace=i0ns" perf-script
# the issue's goals: --packets 0.6x the packet loop, --insn 1.5x and the
# timeline 1x the instruction loop
ratio() {
	awk -v n="$1" -v a="$(rate_of "$2")" -v b="$(rate_of "$3")" -v g="$4" \
		-v ua="$(user_rate "$2")" -v ub="$(user_rate "$3")" \
		'BEGIN { printf "ratio %s %.2f (goal %s; on user time alone %.2f)\n", n, a / b, g, ua / ub }'
}
ratio "ptbpf-dump --packets / bare-pkt" packets bare-pkt 0.6
ratio "ptbpf-dump --insn / bare-insn" insn bare-insn 1.5
ratio "ptbpf-dump --insn / bare-blk" insn bare-blk -
ratio "ptbpf-dump --timeline (perfetto) / bare-insn" timeline-pf bare-insn 1
ratio "ptbpf-dump --timeline (json) / bare-insn" timeline-json bare-insn -
ratio "ptbpf-dump --insn / perf script" insn perf-script -
