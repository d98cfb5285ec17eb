#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The README's examples run as written, in one scratch directory, in order:
# `sudo ptbpf` is the built ./ptbpf, `./server` the test program
# tests/progs/demo (it serves requests in a loop and ignores its
# arguments), `4242` the pid of a fresh one. A recording that does not end
# by itself (no --duration, no --trigger-limit) is ended as a user would:
# --pid by the target's exit, a command by SIGTERM. Each must exit 0 and
# leave a snapshot; each reader line must exit 0 and print something. Root.
# One test for tests/run.sh: exits 0 when all holds.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
PTBPF=$ROOT/ptbpf
DUMP=$ROOT/ptbpf-dump
SERVER=$ROOT/.output/tests/progs/demo
fail=0
pids=()

bad() {
	echo "readme: $*"
	fail=1
}
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "${WORK:-}" ] && rm -rf "$WORK"
}
trap cleanup EXIT

if [ "$(id -u)" != 0 ]; then
	[ "${CI:-}" = true ] && { echo "readme: needs root (CI)"; exit 1; }
	echo "readme: skipped (needs root)"
	exit 77
fi
for f in "$PTBPF" "$DUMP" "$SERVER"; do
	[ -x "$f" ] || { echo "readme: $f is not built"; exit 1; }
done

# the example lines: indented by 4, in "## Examples", comments left out
mapfile -t examples < <(awk '/^## / { on = ($0 == "## Examples") } on && /^    [^ #]/ { sub(/^    /, ""); print }' README.md)
[ "${#examples[@]}" -ge 5 ] || bad "only ${#examples[@]} examples in README.md's Examples"

WORK=$(mktemp -d /tmp/ptbpf-readme-XXXXXX)
cd "$WORK"

# $1 file, $2 pattern: waits up to 60 s for a line
wait_line() {
	local i
	for i in $(seq 600); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# $1 pid: its exit status, waiting up to 60 s (then killed: 124)
wait_pid() {
	local i
	for i in $(seq 600); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		# the command it launched too: a killed ptbpf leaves it running
		pkill -KILL -P "$1"
		kill -KILL "$1"
		wait "$1" 2>/dev/null
		return 124
	fi
	wait "$1"
}

n=0
for ex in "${examples[@]}"; do
	n=$((n + 1))
	case $ex in
	"sudo ptbpf "*)
		target=
		cmd=${ex/#sudo ptbpf/\"\$PTBPF\"}
		cmd=${cmd//.\/server/\"\$SERVER\"}
		if [[ $ex == *4242* ]]; then
			"$SERVER" >/dev/null &
			target=$!
			pids+=("$target")
			cmd=${cmd//4242/$target}
		fi
		out=ptbpf-out
		[[ $ex =~ -o\ ([^ ]+) ]] && out=${BASH_REMATCH[1]}
		before=$(ls -d "$out"/snapshot-* 2>/dev/null | wc -l)
		eval "exec $cmd" >/dev/null 2>"log.$n" &
		pb=$!
		pids+=("$pb")
		wait_line "$out/events.jsonl" '"event":"start"' ||
			bad "example $n: no start: $(head -c 400 "log.$n")"
		if [[ $ex != *--duration* && $ex != *--trigger-limit* ]]; then
			sleep 1.5
			# (SIGTERM: a background job of a script starts with SIGINT ignored)
			if [ -n "$target" ]; then kill -KILL "$target"; else kill -TERM "$pb"; fi
		fi
		wait_pid "$pb"
		st=$?
		[ "$st" = 0 ] || bad "example $n exited $st: $ex: $(head -c 400 "log.$n")"
		after=$(ls -d "$out"/snapshot-* 2>/dev/null | wc -l)
		[ "$after" -gt "$before" ] || bad "example $n wrote no snapshot: $ex"
		[ -n "$target" ] && kill -KILL "$target" 2>/dev/null
		;;
	*)
		cmd=${ex//ptbpf-dump/\"\$DUMP\"}
		txt=$(eval "$cmd" 2>"log.$n")
		st=$?
		[ "$st" = 0 ] || bad "example $n exited $st: $ex: $(head -c 400 "log.$n")"
		# what the newest snapshot holds, to tell why
		[ -n "$txt" ] || bad "example $n printed nothing: $ex; the newest snapshot: $(
			"$DUMP" "$(ls -d out/snapshot-* 2>/dev/null | tail -n 1)" 2>&1 | head -c 800)"
		;;
	esac
done
[ "$fail" = 0 ] && echo "readme: ${#examples[@]} examples ran as written"
exit "$fail"
