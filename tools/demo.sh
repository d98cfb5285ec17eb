#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: trace the demo "server" through a stop, a continue and a
# crash, and show what ptbpf recorded. Run as root: `make demo` in a root
# shell (no sudo needed, none used), or `sudo make demo`.
set -u
cd "$(dirname "$0")/.."
OUT=${DEMO_OUT:-ptbpf-demo}
DEMO=.output/tests/progs/demo

if [ "$(id -u)" != 0 ]; then
	echo "ptbpf demo: needs root to load BPF and open perf events: sudo make demo (or make demo as root)" >&2
	exit 1
fi
rm -rf "$OUT"
echo "== ptbpf -o $OUT -- $DEMO"
# stderr through a pipe: plain lines between this script's own, no status line
./ptbpf -o "$OUT" -- "$DEMO" 2> >(cat >&2) &
tracer=$!
for _ in $(seq 50); do
	# the traced pid from the start event (at a terminal ptbpf is two processes)
	target=$(sed -n 's/^{"event":"start","ts":[0-9]*,"pid":\([0-9]*\).*/\1/p' \
		"$OUT/events.jsonl" 2>/dev/null | tail -n 1)
	[ -n "$target" ] && grep -q '"event":"exec"' "$OUT/events.jsonl" 2>/dev/null && break
	sleep 0.1
done
if [ -z "${target:-}" ]; then
	echo "ptbpf demo: the demo program did not start" >&2
	kill "$tracer" 2>/dev/null
	exit 1
fi
sleep 1
echo "== kill -STOP $target   (as Ctrl-Z or a debugger would)"
kill -STOP "$target"
sleep 1
echo "== kill -CONT $target"
kill -CONT "$target"
sleep 1
echo "== kill -USR1 $target   (the demo dereferences NULL on SIGUSR1)"
kill -USR1 "$target"
wait "$tracer"
status=$?
wait # the stderr pipe's last lines
echo
echo "== ptbpf exited with $status (the demo's status: 128 + SIGSEGV = 139)"
echo "== $OUT/events.jsonl:"
cat "$OUT/events.jsonl"
snaps=$(ls -d "$OUT"/snapshot-* 2>/dev/null)
if [ -n "$snaps" ]; then
	echo
	echo "== snapshots:"
	for s in $snaps; do
		echo "$s: $(ls "$s" | tr '\n' ' ')"
	done
	fatal=$(grep '"event":"snapshot"' "$OUT/events.jsonl" | grep '"trigger":"fatal"' |
		sed 's/.*"path":"\([^"]*\)".*/\1/' | head -n 1)
	if [ -n "$fatal" ] && [ -f "$fatal/perf.data" ]; then
		echo
		echo "== perf report -i $fatal/perf.data --comm demo (where the demo spent its last moments):"
		perf report -i "$fatal/perf.data" --comm demo --stdio --sort sym --no-children -g none 2>/dev/null |
			grep -v '^#' | grep -v '^$' | head -n 8
		echo
		echo "== perf script -G -i $fatal/perf.data --comm demo | tail -n 5 (its very last samples):"
		perf script -G -i "$fatal/perf.data" --comm demo -F tid,time,ip,sym 2>/dev/null | tail -n 5
	fi
	if [ -x ./ptbpf-dump ]; then
		echo
		echo "== ptbpf-dump $OUT (what each snapshot holds; --timeline FILE draws it for Perfetto):"
		./ptbpf-dump "$OUT"
	fi
fi
echo
echo "Everything is in $(pwd)/$OUT"
