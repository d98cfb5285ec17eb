#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench [B=NAME[,NAME...]]: ptbpf's figures, each next to the
# alternative a user would otherwise have, measured side by side in this
# run. Benchmarks: latency pollution window cost target memory scale scope dump
# trigger budget.
# Prints a Markdown table and writes .output/bench.json. A benchmark that
# fails says why, the rest go on, and make bench then exits 1 naming it; a
# part that cannot run here (no cgroup v2 mount) says so in the log.
#
# Needs root (BPF, perf events, cgroups, sysctl). Leaves nothing behind:
# processes, the cgroup, the temp dir and kernel.bpf_stats_enabled are
# restored by the EXIT trap.
set -euo pipefail

cd "$(dirname "$0")/../.."
ALL="latency pollution window cost target memory scale scope dump trigger budget"
SEL=${*:-${B:-}}
SEL=${SEL//,/ }
[ -n "$SEL" ] || SEL=$ALL
for b in $SEL; do
	case " $ALL " in *" $b "*) ;; *)
		echo "bench: unknown benchmark '$b' (one of: $ALL)" >&2
		exit 2
		;;
	esac
done
if [ "$(id -u)" -ne 0 ]; then
	echo "bench: needs root (BPF, perf events, cgroups): sudo make bench" >&2
	exit 1
fi

PTBPF=${BENCH_PTBPF:-./ptbpf} # BENCH_PTBPF: another build, e.g. the one before a change
PROGS=.output/tests/progs
BIN=.output/bench
CYCLES=${BENCH_CYCLES:-1000}
NCPU=$(nproc)
WORK=$(mktemp -d /tmp/ptbpf-bench.XXXXXX)
RES=$WORK/results.tsv
: >"$RES"
PIDS=()
CGROUP=
STATS_OLD=

cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null || true
	done
	for p in "${PIDS[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	if [ -n "$CGROUP" ] && [ -d "$CGROUP" ]; then
		# the cgroup's tasks are ours and dead by now; move stragglers out
		while read -r p; do
			echo "$p" >"$(dirname "$CGROUP")/cgroup.procs" 2>/dev/null || true
		done <"$CGROUP/cgroup.procs"
		rmdir "$CGROUP" 2>/dev/null || true
	fi
	if [ -n "$STATS_OLD" ]; then
		sysctl -qw kernel.bpf_stats_enabled="$STATS_OLD" || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { echo "bench: $*" >&2; }

# --- helpers ---------------------------------------------------------------

build() {
	local f n
	mkdir -p "$BIN"
	for f in latency memcpy work rss hotcall; do
		[ "$BIN/$f" -nt tests/bench/$f.c ] && continue
		echo "  CC       $BIN/$f"
		cc -g -O2 -Wall -Wextra -D_GNU_SOURCE tests/bench/$f.c -o "$BIN/$f" -lpthread
	done
	n=toggle
	if ! [ "$BIN/$n" -nt tests/bench/$n.c ] || ! [ "$BIN/$n" -nt .output/libptbpf.a ]; then
		echo "  CC       $BIN/$n"
		cc -g -O2 -Wall -Wextra -D_GNU_SOURCE -I.output -Ibpf -Iuser -Itools/format \
			tests/bench/$n.c .output/libptbpf.a .output/libptbpf-format.a \
			-lbpf -lelf -lz -lpthread -o "$BIN/$n"
	fi
}

# row KEY LABEL VALUE UNIT BASELINE BASELINE_NAME NOTE
row() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$RES"
}

# val FILE NAME: the value of "NAME value" in FILE (empty when absent)
val() { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }

# us NS: nanoseconds as microseconds, one decimal
us() { awk -v n="${1:-0}" 'BEGIN { printf "%.1f", n / 1000 }'; }

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

# bg VAR CMD...: start CMD in the background, remember its pid for cleanup
bg() {
	local var=$1
	shift
	"$@" &
	PIDS+=($!)
	printf -v "$var" '%s' "$!"
}

# stop_pid PID [SIG]: signal, wait up to 20 s, then SIGKILL
stop_pid() {
	local p=$1 sig=${2:-INT} i
	kill -"$sig" "$p" 2>/dev/null || true
	for i in $(seq 200); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
}

# wait_line FILE PATTERN [N]: wait (20 s at most) for N lines matching
wait_line() {
	local n=${3:-1} i c
	for i in $(seq 400); do
		c=$(grep -c -- "$2" "$1" 2>/dev/null) || c=0
		[ "$c" -ge "$n" ] && return 0
		sleep 0.05
	done
	log "timed out waiting for '$2' in $1"
	return 1
}

# ptbpf_bg VAR OUT ARGS...: start ptbpf on OUT; wait until collection runs
ptbpf_bg() {
	local var=$1 out=$2
	shift 2
	bg "$var" "$PTBPF" -q -o "$out" "$@" 2>>"$WORK/ptbpf.log"
	wait_line "$out/events.jsonl" '"event":"resume"'
}

# --- 1. latency --------------------------------------------------------------

run_latency_mode() { # MODE CYCLES
	[ -s "$WORK/lat-$1.txt" ] && return 0
	log "latency: $1, $2 stop/continue cycles"
	timeout -k 5 300 "$BIN/latency" "$1" "$2" "$WORK" "$PTBPF" >"$WORK/lat-$1.txt" ||
		log "latency $1 failed: $(tail -n 3 "$WORK/ptbpf.log" 2>/dev/null)"
}

bench_latency() {
	local m p e d
	for m in ptbpf ptrace poll; do
		run_latency_mode "$m" "$CYCLES"
	done
	d=$WORK
	for e in stop resume; do
		for p in p50 p99; do
			local v k t r note
			v=$(val "$d/lat-ptbpf.txt" "${e}_$p")
			k=$(val "$d/lat-ptbpf.txt" "${e}_kernel_$p")
			if [ "$e" = stop ]; then
				note="ptbpf from the kernel's switch-out: $(us "$k") µs; raise→switch-out $(us "$(val "$d/lat-ptbpf.txt" raise_to_switch_$p)") µs, BPF ring buffer→ptbpf $(us "$(val "$d/lat-ptbpf.txt" delivery_$p)") µs"
			else
				note="ptbpf from the kernel's wake-up: $(us "$k") µs"
			fi
			for m in ptrace poll; do
				t=$(val "$d/lat-$m.txt" "${e}_$p")
				if [ "$m" = ptrace ]; then
					r="ptrace notifier (PTRACE_SEIZE + waitpid)"
				else
					r="/proc/PID/stat poller, 1 ms"
				fi
				row "latency.${e}.${p}.vs_$m" \
					"$( [ "$e" = stop ] && echo "stop → paused" || echo "continue → resumed"), $p ($(val "$d/lat-ptbpf.txt" cycles)/$CYCLES cycles)" \
					"$(us "$v")" µs "$(us "$t")" "$r ($(val "$d/lat-$m.txt" cycles) cycles, $(val "$d/lat-$m.txt" missed) missed)" \
					"$note"
			done
		done
	done
}

# --- 2. pollution --------------------------------------------------------------

cgroup_make() {
	local mnt
	mnt=/sys/fs/cgroup/unified
	[ -f "$mnt/cgroup.procs" ] || mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	[ -n "$mnt" ] || return 1
	CGROUP=$mnt/ptbpf-bench-$$
	mkdir "$CGROUP"
}

# samples DIR TARGET UNRELATED: "target unrelated other" sample counts
samples() {
	local f
	for f in "$1"/snapshot-*/perf.data; do
		[ -f "$f" ] && perf script -i "$f" -F pid 2>/dev/null
	done | awk -v t="$2" -v u="$3" '
		$1 == t { a++ } $1 == u { b++ } $1 != t && $1 != u { c++ }
		END { printf "%d %d %d\n", a, b, c }'
}

bench_pollution() {
	local mode tgt unr pb out s share base=
	for mode in no-pause pause cgroup; do
		log "pollution: $mode"
		out=$WORK/pol-$mode
		bg unr "$PROGS/spin" "$NCPU"
		bg tgt "$PROGS/spin"
		local opt=()
		case $mode in
		no-pause) opt=(--no-pause) ;;
		cgroup)
			if ! cgroup_make; then
				log "pollution: no cgroup v2 mount; --cgroup skipped"
				stop_pid "$tgt" KILL
				stop_pid "$unr" KILL
				continue
			fi
			echo "$tgt" >"$CGROUP/cgroup.procs"
			opt=(--cgroup)
			;;
		esac
		if ptbpf_bg pb "$out" -s 16M "${opt[@]}" --pid "$tgt"; then
			sleep 1.5
			kill -STOP "$tgt"
			sleep 1.5
		fi
		stop_pid "$pb"
		stop_pid "$tgt" KILL
		stop_pid "$unr" KILL
		if [ "$mode" = cgroup ]; then
			rmdir "$CGROUP" && CGROUP=
		fi
		s=$(samples "$out" "$tgt" "$unr")
		echo "$mode $s" >>"$WORK/pollution.txt"
	done
	base=$(awk '$1 == "no-pause" { print $3 * 100 / ($2 + $3 + $4 + !($2 + $3 + $4)) }' "$WORK/pollution.txt")
	for mode in pause cgroup; do
		read -r _ t u o < <(grep "^$mode " "$WORK/pollution.txt") || continue
		share=$(awk -v t="$t" -v u="$u" -v o="$o" 'BEGIN { n = t + u + o; printf "%.1f", n ? u * 100 / n : 0 }')
		row "pollution.$mode" "unrelated busy process's share of samples, $mode" \
			"$share" % "$(printf %.1f "$base")" "--no-pause" \
			"samples: target $t, unrelated $u, other $o; target stopped for the 2nd half of 3 s; spin × $NCPU next to it"
	done
}

# --- 3. pause window and write throughput -------------------------------------

bench_window() {
	local size tgt pb out f bytes pmax cp wbytes wns
	bg tgt "$PROGS/spin"
	for size in 64K 256K 1M 4M 16M 64M; do
		log "window: -s $size"
		out=$WORK/win-$size
		ptbpf_bg pb "$out" -t none --full -s "$size" --pid "$tgt" || { stop_pid "$pb"; continue; }
		sleep 1
		for _ in 1 2 3; do
			kill -USR2 "$pb"
			sleep 0.3
		done
		wait_line "$out/events.jsonl" '"trigger":"signal"' 3 || true
		stop_pid "$pb"
		# per-core bytes of the largest core, and its pause, per snapshot
		pmax=$(grep '"trigger":"signal"' "$out/events.jsonl" |
			sed -n 's/.*"paused_max_ns":\([0-9]*\).*/\1/p' | median)
		bytes=$(for f in "$out"/snapshot-*/ptbpf.json; do
			jq '[.cores[] | .bytes + .sideband_bytes] | max' "$f"
		done | median)
		[ -n "$pmax" ] && [ -n "$bytes" ] && [ "$bytes" -gt 0 ] || continue
		cp=$("$BIN/memcpy" "$bytes")
		row "window.$size" "pause window per core for a snapshot, -s $size (median of 3)" \
			"$(us "$pmax")" µs "$(us "$cp")" "memcpy of the same bytes" \
			"$bytes bytes on the fullest core (filled at 4 kHz in ~2 s, not the whole buffer)"
		grep '"trigger":"signal"' "$out/events.jsonl" |
			sed -n 's/.*"bytes":\([0-9]*\).*"write_ns":\([0-9]*\).*/\1 \2/p' >>"$WORK/writes.txt"
	done
	stop_pid "$tgt" KILL
	# throughput of the largest snapshots next to dd of as many bytes
	read -r wbytes wns < <(sort -n "$WORK/writes.txt" | tail -n 1) || return 0
	local mib t0 t1
	mib=$(((wbytes + (1 << 20) - 1) >> 20))
	t0=$(date +%s%N)
	dd if=/dev/zero of="$WORK/dd.bin" bs=1M count="$mib" status=none
	t1=$(date +%s%N)
	rm -f "$WORK/dd.bin"
	row window.write "snapshot write throughput ($wbytes bytes)" \
		"$(awk -v b="$wbytes" -v n="$wns" 'BEGIN { printf "%.0f", b / n * 1000 }')" MB/s \
		"$(awk -v b=$((mib << 20)) -v n=$((t1 - t0)) 'BEGIN { printf "%.0f", b / n * 1000 }')" \
		"dd bs=1M of $mib MiB to the same filesystem" "neither syncs; both land in the page cache"
}

# --- 4. cost to everyone else ---------------------------------------------------

pipe_ops() { # ops/s of one perf bench sched pipe run
	perf bench sched pipe -l "${BENCH_PIPE_LOOPS:-100000}" 2>/dev/null |
		awk '/ops\/sec/ { print $1 }'
}

bench_cost() {
	local tgt pb i with=() without=() j
	STATS_OLD=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -qw kernel.bpf_stats_enabled=1
	bg tgt sleep 600
	for i in 1 2 3; do
		log "cost: sched pipe, round $i"
		without+=("$(pipe_ops)")
		ptbpf_bg pb "$WORK/cost-$i" --pid "$tgt" || { stop_pid "$pb"; continue; }
		with+=("$(pipe_ops)")
		if [ "$i" = 3 ]; then
			# ptbpf's programs: the prog_id of each BPF fd it holds
			grep -h '^prog_id:' /proc/"$pb"/fdinfo/* 2>/dev/null | awk '{ print $2 }' |
				sort -un >"$WORK/progids.txt" || true
			bpftool prog show -j >"$WORK/progs.json"
		fi
		stop_pid "$pb"
	done
	stop_pid "$tgt" KILL
	sysctl -qw kernel.bpf_stats_enabled="$STATS_OLD"
	STATS_OLD=
	local w wo
	w=$(printf '%s\n' "${with[@]}" | median)
	wo=$(printf '%s\n' "${without[@]}" | median)
	row cost.sched_pipe "perf bench sched pipe, ptbpf on another process (median of 3)" \
		"$w" ops/s "$wo" "same load without ptbpf" "ptbpf traces an idle 'sleep'; per-core sampling runs"
	[ -s "$WORK/progs.json" ] || return 0
	jq -r --slurpfile ids <(jq -s . "$WORK/progids.txt") '.[] | select(.id as $i | $ids[0] | index($i))
		| select(.run_cnt // 0 > 0)
		| "\(.name) \(.run_time_ns) \(.run_cnt)"' "$WORK/progs.json" >"$WORK/progs.txt" || true
	j=$(awk -v o="$wo" 'BEGIN { printf "%.0f", 1e9 / o }')
	while read -r name ns cnt; do
		row "cost.bpf.$name" "BPF program $name, ns per call" \
			"$(awk -v a="$ns" -v b="$cnt" 'BEGIN { printf "%.0f", a / b }')" ns \
			"$j" "one sched pipe round trip without ptbpf" "$cnt calls while ptbpf ran (one sched pipe run and start-up)"
	done <"$WORK/progs.txt"
}

# --- 5. cost to the target ---------------------------------------------------

bench_target() {
	local kind n i a=() b=()
	for kind in cpu sys; do
		n=200
		[ "$kind" = sys ] && n=300
		a=() b=()
		for i in 1 2 3; do
			log "target: $kind, round $i"
			a+=("$("$BIN/work" "$kind" "$n")")
			b+=("$(timeout -k 5 60 "$PTBPF" -q -o "$WORK/tgt-$kind-$i" -- "$BIN/work" "$kind" "$n" 2>>"$WORK/ptbpf.log")")
		done
		local ta tb
		ta=$(printf '%s\n' "${a[@]}" | median)
		tb=$(printf '%s\n' "${b[@]}" | median)
		row "target.$kind" "$([ "$kind" = cpu ] && echo "CPU-bound workload ($n M hash rounds)" ||
			echo "syscall-heavy workload ($n k getppid+write)") run time, traced (median of 3)" \
			"$(awk -v n="$tb" 'BEGIN { printf "%.1f", n / 1e6 }')" ms \
			"$(awk -v n="$ta" 'BEGIN { printf "%.1f", n / 1e6 }')" "same, untraced" \
			"timed inside the workload; ptbpf -- CMD, default triggers"
	done
}

# --- 6. memory -----------------------------------------------------------------

bench_memory() {
	local size tgt rp pb out bufs rss pin range name
	bg tgt "$PROGS/spin"
	for size in 4M 64M; do
		log "memory: -s $size"
		out=$WORK/mem-$size
		bg rp "$BIN/rss" "$PTBPF" -q -s "$size" -o "$out" --pid "$tgt" 2>"$WORK/rss-$size.txt"
		wait_line "$out/events.jsonl" '"event":"resume"' || true
		pb=$(pgrep -P "$rp" | head -n 1)
		sleep 1
		for _ in 1 2; do
			kill -STOP "$tgt"
			sleep 0.3
			kill -CONT "$tgt"
			sleep 0.3
		done
		# every perf ring ptbpf mapped, as the kernel shows it
		bufs=0
		while read -r range _ _ _ _ name; do
			[ "$name" = "anon_inode:[perf_event]" ] || continue
			bufs=$((bufs + 0x${range#*-} - 0x${range%-*}))
		done <"/proc/$pb/maps"
		pin=$(awk '/^VmPin/ { print $2 }' "/proc/$pb/status")
		stop_pid "$rp"
		rss=$(val "$WORK/rss-$size.txt" maxrss_kib)
		[ -n "$rss" ] || continue
		row "memory.$size" "ptbpf peak RSS, -s $size, 2 stop snapshots" \
			"$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')" MiB \
			"$(awk -v b="$bufs" 'BEGIN { printf "%.1f", b / 1048576 }')" \
			"sum of its perf rings (/proc/PID/maps)" \
			"$NCPU cores × (trace + sideband ring); the rings are kernel pages, pinned (VmPin $((pin / 1024)) MiB), not in RSS"
	done
	stop_pid "$tgt" KILL
}

# --- 7. scale ------------------------------------------------------------------

# tv NAME: the value of NAME in the toggle output, as µs
tv() { us "$(val "$WORK/toggle.txt" "$1")"; }

bench_scale() {
	local t=$WORK/toggle.txt n f m d p c lat ptr base all tree ser fans
	log "scale: toggle microbenchmark (serial and one thread per CPU, idle and busy CPUs)"
	timeout -k 5 300 "$BIN/toggle" 2000 >"$t" || { log "toggle failed"; return 1; }
	n=$(val "$t" cores)
	f=$(val "$t" fanout)
	row scale.toggle_remote "one core's group ioctl (disable), remote CPU" \
		"$(tv ioctl_remote_pause_idle_p50)" µs "$(tv ioctl_local_pause_idle_p50)" \
		"the same on the calling CPU" "remote: the kernel disables the event on its CPU through an IPI and waits; enable: $(tv ioctl_remote_resume_idle_p50) µs remote, $(tv ioctl_local_resume_idle_p50) µs local"
	for m in idle busy; do
		for d in pause resume; do
			for p in p50 p99; do
				row "scale.${d}_parallel.$m.$p" \
					"$d of all $n cores, each core's ioctl on its own CPU (cpurun), $p, $m CPUs" \
					"$(tv "par_${d}_${m}_$p")" µs "$(tv "serial_${d}_${m}_$p")" \
					"one group ioctl per core from one thread (today's cores_${d}_all)" \
					"last core: woken $(tv "par_wake_${d}_${m}_p50") µs after the call, its ioctl $(tv "par_fn_${d}_${m}_p50") µs, the caller back $(tv "par_done_${d}_${m}_p50") µs later (medians); ptbpf's cores_${d}_all: $(tv "all_${d}_${m}_$p") µs"
			done
		done
	done
	row scale.wake_run "wake-to-run of one pinned SCHED_FIFO worker (cpurun_call → fn), idle CPU" \
		"$(tv wake_run_idle_p50)" µs "$(tv ioctl_remote_pause_idle_p50)" "one remote group ioctl" \
		"busy CPU: $(tv wake_run_busy_p50) µs; the tree pays one per level where the serial path pays one remote ioctl per core"
	row scale.futex_send "FUTEX_WAKE of a sleeper on another CPU, sender's cost" \
		"$(tv futex_send_idle_p50)" µs "$(tv ioctl_local_pause_idle_p50)" "one local group ioctl" \
		"a tree node pays one per child before its own ioctl; busy CPU: $(tv futex_send_busy_p50) µs"
	row scale.done_wake "completion: last worker out → cpurun_call returns, caller spinning" \
		"$(tv done_spin_idle_p50)" µs "$(tv done_sleep_idle_p50)" \
		"the same with the caller asleep on the futex (past the spin)" \
		"the caller watches the completion word for up to $(tv spin_ns) µs before it sleeps"
	for c in 16 64 256; do
		row "scale.pause_$c.tree" "pause of $c cores, projected, cpurun tree (fan-out $f)" \
			"$(tv "proj${c}_tree_pause_idle")" µs "$(tv par_pause_idle_p50)" \
			"$n-core parallel pause, measured" \
			"model at $n cores: $(tv "model${n}_tree_pause_idle") µs against $(tv par_pause_idle_p50) µs measured; busy CPUs: $(tv "proj${c}_tree_pause_busy") µs; resume: $(tv "proj${c}_tree_resume_idle") µs"
		row "scale.pause_$c.serial" "pause of $c cores, projected, serial" \
			"$(tv "proj${c}_serial_pause_idle")" µs "$(tv serial_pause_idle_p50)" \
			"$n-core serial pause, measured" \
			"local + $((c - 1)) × remote ioctl; model at $n cores: $(tv "model${n}_serial_pause_idle") µs; resume: $(tv "proj${c}_serial_resume_idle") µs"
	done
	fans=$(for p in 2 4 8 16; do printf '%s %s µs, ' "$p" "$(tv "proj256_tree_f${p}_pause_idle")"; done)
	row scale.fanout "pause of 256 cores, projected, tree of fan-out $f" \
		"$(tv proj256_tree_pause_idle)" µs "$(tv proj256_tree_f2_pause_idle)" "the same tree of fan-out 2" \
		"by fan-out: ${fans%, }"
	run_latency_mode ptbpf 300
	run_latency_mode ptrace 300
	lat=$(val "$WORK/lat-ptbpf.txt" stop_kernel_p50)
	ptr=$(val "$WORK/lat-ptrace.txt" stop_p50)
	[ -n "$lat" ] && [ -n "$ptr" ] || return 0
	# what is not ioctls (detection, delivery, wake-up) stays; the ioctls
	# become the projected pause of c cores
	all=$(val "$t" all_pause_idle_p50)
	base=$((lat - all))
	[ "$base" -gt 0 ] || base=0
	for c in 16 64 256; do
		tree=$(val "$t" "proj${c}_tree_pause_idle")
		ser=$(val "$t" "proj${c}_serial_pause_idle")
		row "scale.projected_$c" "projected stop → paused median at $c cores, cpurun tree" \
			"$(us $((base + tree)))" µs "$(us "$ptr")" "ptrace notifier, measured here" \
			"measured median $(us "$lat") µs at $n cores − $(us "$all") µs of cores_pause_all + $(us "$tree") µs; serial: $(us $((base + ser))) µs"
	done
}

# --- 8. scope ------------------------------------------------------------------

# recs SNAPDIR: "pid tid cpu t kind" per record (kind s: sample, i/o: switch)
recs() {
	perf script -i "$1/perf.data" --ns --show-switch-events -F pid,tid,cpu,time 2>/dev/null |
		awk '{ if (split($1, pt, "/") < 2) next; c = $2; gsub(/[][]/, "", c)
			t = $3; sub(/:$/, "", t); split(t, st, "."); ns = st[1] * 1000000000 + st[2]
			k = "s"; if ($0 ~ /PERF_RECORD_SWITCH/) k = ($0 ~ / OUT/) ? "o" : "i"
			printf "%s %s %s %.0f %s\n", pt[1], pt[2], c, ns, k }'
}

# One run per scope, -s 128K --full, next to two busy unrelated processes'
# worth of threads per core: the target runs 4 s, then stays stopped 1 s,
# with 5 SIGUSR2 snapshots meanwhile (the staging slots are warm by the
# last ones: what a copy costs once running, not its first page faults).
scope_run() { # MODE
	local mode=$1 out=$WORK/scope-$1 tgt unr pb opt=()
	log "scope: $mode"
	bg unr "$PROGS/spin" $((2 * NCPU))
	bg tgt "$PROGS/spin"
	case $mode in
	no-pause) opt=(--scope cpu --no-pause) ;;
	cpu) opt=(--scope cpu) ;;
	process) opt=(--scope process) ;;
	cgroup)
		if ! cgroup_make; then
			log "scope: no cgroup v2 mount; cgroup skipped"
			stop_pid "$tgt" KILL
			stop_pid "$unr" KILL
			return 0
		fi
		echo "$tgt" >"$CGROUP/cgroup.procs"
		opt=(--scope cgroup)
		;;
	esac
	if ptbpf_bg pb "$out" -s 128K --full -t stop "${opt[@]}" --pid "$tgt"; then
		sleep 4
		kill -STOP "$tgt"
		wait_line "$out/events.jsonl" '"event":"snapshot"' || true
		for _ in 1 2 3 4 5; do
			sleep 0.15
			kill -USR2 "$pb"
		done
		wait_line "$out/events.jsonl" '"event":"snapshot"' 6 || true
		sleep 0.3
	fi
	stop_pid "$pb"
	stop_pid "$tgt" KILL
	stop_pid "$unr" KILL
	if [ "$mode" = cgroup ]; then
		rmdir "$CGROUP" && CGROUP=
	fi
	[ -f "$out/snapshot-000001/perf.data" ] || return 0
	local stop_ts copy bytes sb paused last
	stop_ts=$(grep -m1 '"event":"stop"' "$out/events.jsonl" | sed 's/.*"ts":\([0-9]*\).*/\1/')
	# the copies and pauses of the snapshots taken while it was stopped
	copy=$(grep '"event":"snapshot"' "$out/events.jsonl" | sed -n 's/.*"copy_max_ns":\([0-9]*\).*/\1/p' |
		tail -n 3 | median)
	paused=$(grep '"event":"snapshot"' "$out/events.jsonl" | sed -n 's/.*"paused_max_ns":\([0-9]*\).*/\1/p' |
		sort -n | tail -n 1)
	last=$(ls -d "$out"/snapshot-* | tail -n 1)
	bytes=$(jq '[.cores[] | .bytes + .sideband_bytes] | max' "$last/ptbpf.json")
	sb=$(jq '[.cores[] | .sideband_bytes] | add' "$out/snapshot-000001/ptbpf.json")
	echo "$mode ${paused:-0}" >>"$WORK/scope-paused.txt"
	recs "$out/snapshot-000001" >"$out/recs1.txt"
	# --full: the last snapshot holds all the buffers still have
	recs "$last" >"$out/recs.txt"
	# share, coverage (ns of the target's samples' span), records while stopped
	awk -v t="$tgt" -v u="$unr" -v s="$stop_ts" -v m="$mode" -v c="${copy:-0}" -v b="${bytes:-0}" -v sb="${sb:-0}" '
		FNR == NR { if ($5 == "s") { n++; if ($1 == t) { a++; if (!lo || $4 < lo) lo = $4; if ($4 > hi) hi = $4 } else if ($1 == u) x++ }; next }
		$4 > s && $5 != "o" { during++ }
		END { printf "%s %d %d %d %.0f %d %s %s %s\n", m, n, a, x, hi - lo, during, c, b, sb }' \
		"$out/recs1.txt" "$out/recs.txt" >>"$WORK/scope.txt"
}

# sched pipe in threaded mode (-T): both ends are the target's threads, so
# every round trip is two context switches of task-bound events.
scope_pipe() {
	local i w=() wo=() l=${BENCH_PIPE_LOOPS:-100000}
	for i in 1 2 3 4 5; do
		log "scope: sched pipe -T, round $i"
		wo+=("$(perf bench sched pipe -T -l "$l" 2>/dev/null | awk '/ops\/sec/ { print $1 }')")
		w+=("$(timeout -k 5 120 "$PTBPF" -q -t none --scope process -o "$WORK/pipe-$i" -- \
			perf bench sched pipe -T -l "$l" 2>>"$WORK/ptbpf.log" | awk '/ops\/sec/ { print $1 }')")
	done
	row scope.sched_pipe "perf bench sched pipe -T traced, --scope process (median of 5)" \
		"$(printf '%s\n' "${w[@]}" | median)" ops/s "$(printf '%s\n' "${wo[@]}" | median)" \
		"the same, untraced, alternating" "task-bound sampling and sideband events (per-thread): an hrtimer stopped and started and two switch records per context switch"
}

bench_scope() {
	local mode
	for mode in no-pause cpu cgroup process; do
		scope_run "$mode"
	done
	scope_pipe
	[ -s "$WORK/scope.txt" ] || return 0
	# mode samples target unrelated span_ns during_stop copy_ns bytes sideband
	local np cpu m n a x span during copy bytes sb
	np=$(awk '$1 == "no-pause" { print $4 * 100 / ($2 + !$2) }' "$WORK/scope.txt")
	read -r _ _ _ _ cspan cduring _ _ csb < <(grep '^cpu ' "$WORK/scope.txt") || true
	for m in cpu cgroup process; do
		read -r _ n a x span during copy bytes sb < <(grep "^$m " "$WORK/scope.txt") || continue
		row "scope.share.$m" "unrelated share of the stop snapshot's samples, --scope $m" \
			"$(awk -v x="$x" -v n="$n" 'BEGIN { printf "%.1f", n ? x * 100 / n : 0 }')" % \
			"$(printf %.1f "${np:-0}")" "--no-pause, same load" \
			"samples: $n, target $a, unrelated $x; spin × $((2 * NCPU)) threads next to it"
		row "scope.during_stop.$m" "records written while the target was stopped (1 s), --scope $m" \
			"$during" records "$(awk '$1 == "no-pause" { print $6 }' "$WORK/scope.txt")" "--no-pause" \
			"every record after the stop's kernel timestamp but the switch-out that is the cut"
		[ "$m" = cpu ] && continue
		row "scope.cover.$m" "target run time covered by the stop snapshot, -s 128K, --scope $m" \
			"$(awk -v n="$span" 'BEGIN { printf "%.0f", n / 1e6 }')" ms \
			"$(awk -v n="${cspan:-0}" 'BEGIN { printf "%.0f", n / 1e6 }')" "--scope cpu" \
			"span of the target's samples in the stop snapshot; the target ran 4 s"
		row "scope.sideband.$m" "sideband bytes in the stop snapshot, --scope $m" \
			"$sb" bytes "${csb:-0}" "--scope cpu" "context-switch records of every core"
		row "scope.copy.$m" "snapshot of the stopped target (--full): longest copy of one core, --scope $m" \
			"$(us "$copy")" µs "$(us "$("$BIN/memcpy" "$bytes")")" "memcpy of the same bytes" \
			"$bytes bytes on the fullest core, median of the last 3 of 6; longest pause of any core for any of them: $(awk -v m="$m" '$1 == m { print $2 }' "$WORK/scope-paused.txt") ns ($([ "$m" = process ] && echo "no ioctl: the kernel took the events off with the target" || echo "paused by ptbpf at the stop"))"
	done
}

# ptbpf-dump's decoding of a generated Intel PT stream (BENCH_DUMP_MIB,
# default 64 MiB), output to a file, next to bare libipt loops over the
# same bytes and perf script --itrace=i0ns on the same perf.data.
bench_dump() {
	local t=$WORK/dump.txt mib=${BENCH_DUMP_MIB:-64}
	tests/bench/dump_throughput.sh "$mib" >"$t" 2>&1 || { log "dump: $(tail -1 "$t")"; return 1; }
	mbs() { sed -n "s/^$1 \([0-9.]*\) MB\/s.*/\1/p" "$t" | head -1; }
	# how each was measured (CPU split, medians), for the rows' notes
	how() { sed -n "s/^$1 [0-9.]* MB\/s (\(.*\))$/\1/p" "$t" | head -1; }
	# MODE BASE: the ratio on ptbpf-dump's user time alone
	user() { sed -n "s/^ratio $1 \/ $2 [0-9.]* (goal [^;]*; on user time alone \([0-9.]*\))$/\1/p" "$t"; }
	local k
	for k in bare-pkt bare-insn bare-blk 'ptbpf-dump --packets' 'ptbpf-dump --insn' \
		'ptbpf-dump --timeline (perfetto)' 'ptbpf-dump --timeline (json)' 'perf script --itrace=i0ns'; do
		[ -n "$(mbs "$k")" ] || { log "dump: no figure for $k"; return 1; }
	done
	row dump.packets "ptbpf-dump --packets, $mib MiB of PT, to a file" \
		"$(mbs 'ptbpf-dump --packets')" MB/s "$(mbs bare-pkt)" "bare libipt packet loop" \
		"$(how 'ptbpf-dump --packets'); on user time alone $(user 'ptbpf-dump --packets' bare-pkt)×; goal 0.6×"
	row dump.insn "ptbpf-dump --insn, $mib MiB of PT, to a file" \
		"$(mbs 'ptbpf-dump --insn')" MB/s "$(mbs bare-insn)" "bare libipt instruction loop" \
		"$(how 'ptbpf-dump --insn'); on user time alone $(user 'ptbpf-dump --insn' bare-insn)×; goal 1.5×"
	row dump.insn_vs_blk "ptbpf-dump --insn next to libipt's block decoder" \
		"$(mbs 'ptbpf-dump --insn')" MB/s "$(mbs bare-blk)" "bare libipt block loop" \
		"the block loop decodes without a line written"
	row dump.timeline "ptbpf-dump --timeline, Perfetto protobuf, $mib MiB of PT, to a file" \
		"$(mbs 'ptbpf-dump --timeline (perfetto)')" MB/s "$(mbs bare-insn)" "bare libipt instruction loop" \
		"$(how 'ptbpf-dump --timeline (perfetto)'); on user time alone $(user 'ptbpf-dump --timeline (perfetto)' bare-insn)×; goal 1×"
	row dump.timeline_json "ptbpf-dump --timeline, Chrome JSON, $mib MiB of PT, to a file" \
		"$(mbs 'ptbpf-dump --timeline (json)')" MB/s "$(mbs bare-insn)" "bare libipt instruction loop" \
		"$(how 'ptbpf-dump --timeline (json)')"
	row dump.insn_vs_perf "ptbpf-dump --insn next to perf script --itrace=i0ns" \
		"$(mbs 'ptbpf-dump --insn')" MB/s "$(mbs 'perf script --itrace=i0ns')" "perf script, same perf.data" \
		"perf script once; ptbpf-dump the median of its rounds"
}

# --- report ----------------------------------------------------------------------

# --- trigger -----------------------------------------------------------------

# The cost of a --trigger-on point (a uprobe for every process, the BPF
# side keeping the target's hits) to a call of its function: in a process
# that is not the target, and in the target itself (--min-interval 60m
# folds every hit after the first: the hit's event without its snapshot),
# against the same calls with no point.
bench_trigger() {
	local idle pid n=20000 i a=() b=() c=()
	for i in 1 2 3; do
		log "trigger: round $i"
		a+=("$("$BIN/hotcall" "$n")")
		bg idle "$BIN/hotcall" 0
		ptbpf_bg pid "$WORK/trig-$i" -b sample --trigger-on hot --pid "$idle" || true
		b+=("$("$BIN/hotcall" "$n")")
		stop_pid "$pid"
		stop_pid "$idle" KILL
		rm -f "$WORK/hot.out"
		timeout -k 5 120 "$PTBPF" -q -b sample -o "$WORK/trigt-$i" --min-interval 60m \
			--trigger-on hot -- "$BIN/hotcall" "$n" >"$WORK/hot.out" 2>>"$WORK/ptbpf.log" || true
		c+=("$(cat "$WORK/hot.out")")
	done
	local ta tb tc
	ta=$(printf '%s\n' "${a[@]}" | median)
	tb=$(printf '%s\n' "${b[@]}" | median)
	tc=$(printf '%s\n' "${c[@]}" | median)
	row trigger.other "a call of a --trigger-on function, in another process (median of 3)" \
		"$tb" ns "$ta" "no point" "the uprobe's trap; the BPF side drops the hit"
	row trigger.target "a call of a --trigger-on function, in the target (median of 3)" \
		"$tc" ns "$ta" "no point" "each hit a trigger event; --min-interval 60m folds the snapshots"
}

# --- 11. budget: only the target pays, within --overhead ------------------------

# work_stopped VAR KIND N TAG: work KIND N, stopped before its clock starts
work_stopped() {
	local _var=$1 _i _w
	WORK_STOP=1 WORK_CPUTIME=1 "$BIN/work" "$2" "$3" >"$WORK/w-$4.txt" &
	_w=$!
	PIDS+=("$_w")
	for _i in $(seq 400); do
		[ "$(awk '{ print $3 }' /proc/"$_w"/stat 2>/dev/null)" = T ] && break
		sleep 0.05
	done
	printf -v "$_var" '%s' "$_w"
}

# perf_ready PID: perf record has its events open (one per CPU at least)
perf_ready() {
	local i n
	for i in $(seq 400); do
		n=$(ls -l /proc/"$1"/fd 2>/dev/null | grep -c 'perf_event') || n=0
		[ "$n" -ge "$NCPU" ] && { sleep 0.3; return 0; }
		sleep 0.05
	done
	return 1
}

# target_run MODE KIND N TAG: the workload's ns under MODE (untraced,
# ptbpf ARGS in $PTARGS, or perf record -F 4000 -g -p), attached by pid
target_run() {
	local mode=$1 kind=$2 n=$3 tag=$4 w tp=
	work_stopped w "$kind" "$n" "$tag"
	case $mode in
	ptbpf)
		# shellcheck disable=SC2086
		bg tp "$PTBPF" -q -o "$WORK/b-$tag" $PTARGS --pid "$w" 2>>"$WORK/ptbpf.log"
		wait_line "$WORK/b-$tag/events.jsonl" '"event":"start"' >/dev/null 2>&1 || true
		;;
	perf)
		bg tp perf record -q -F 4000 -g -o "$WORK/p-$tag.data" -p "$w" 2>/dev/null
		perf_ready "$tp" || log "perf record did not start"
		;;
	esac
	kill -CONT "$w"
	wait "$w" 2>/dev/null || true
	[ -n "$tp" ] && stop_pid "$tp"
	cat "$WORK/w-$tag.txt"
}

# by_run MODE TAG: the bystander's ns while ptbpf records an idle target
by_run() {
	local mode=$1 tag=$2 tgt= pb= t opt=()
	case $mode in
	untraced) ;;
	cpu)
		bg tgt sleep 600
		kill -STOP "$tgt"
		opt=(--scope cpu --pid "$tgt")
		;;
	cgroup) opt=(--scope cgroup -- sleep 600) ;;
	*)
		bg tgt sleep 600
		opt=(--pid "$tgt")
		;;
	esac
	if [ "$mode" != untraced ]; then
		bg pb "$PTBPF" -q -F 4000 -o "$WORK/by-$tag" "${opt[@]}" 2>>"$WORK/ptbpf.log"
		wait_line "$WORK/by-$tag/events.jsonl" '"event":"start"' >/dev/null 2>&1 || true
		sleep 0.2
	fi
	t=$(WORK_CPUTIME=1 "$BIN/work" cpu "$BY_N")
	[ -n "$pb" ] && stop_pid "$pb"
	[ -n "$tgt" ] && stop_pid "$tgt" KILL
	if [ -n "$pb" ]; then
		grep -o '"sample_timer_ns":[0-9]*' "$WORK/by-$tag/events.jsonl" | tail -n 1 |
			sed "s/.*:/$mode /" >>"$WORK/by-timer.txt"
	fi
	echo "$t"
}

bench_budget() {
	local mode kind n i r a b c t ta tb tc rounds=${BENCH_ROUNDS:-5} kr
	# the switch-bound and the 2 % rows vary most with the load: more rounds
	local long=${BENCH_ROUNDS:-9}
	BY_N=${BENCH_BY_N:-30}
	: >"$WORK/by-timer.txt"
	# 1. an unrelated CPU-bound process while ptbpf records an idle target
	for mode in process cgroup cpu; do
		a=() b=()
		for i in $(seq "$rounds"); do
			log "budget: bystander, $mode, round $i"
			a+=("$(by_run untraced "u$mode$i")")
			b+=("$(by_run "$mode" "$mode$i")")
		done
		ta=$(printf '%s\n' "${a[@]}" | median)
		tb=$(printf '%s\n' "${b[@]}" | median)
		t=$(awk -v m="$mode" '$1 == m { print $2 }' "$WORK/by-timer.txt" | median)
		row "budget.bystander.$mode" "unrelated CPU-bound process ($BY_N M hash rounds) while ptbpf -F 4000 records an idle target, $(
			case $mode in
			cpu) echo "cpu scope, target stopped" ;;
			*) echo "$mode scope" ;;
			esac) (median of $rounds)" \
			"$(awk -v n="$tb" 'BEGIN { printf "%.1f", n / 1e6 }')" ms \
			"$(awk -v n="$ta" 'BEGIN { printf "%.1f", n / 1e6 }')" "same, untraced, alternating" \
			"its CPU time for the same work (interrupts taken count in it, other load does not); ptbpf's timers ran ${t:-?} ns (sample_timer_ns)"
	done
	# 2. the target's cost against perf record -F 4000 -g -p, same attach
	for kind in cpu sys pipe fork; do
		case $kind in
		cpu) n=20 ;;
		sys) n=20 ;;
		pipe) n=10 ;;
		fork) n=100 ;;
		esac
		a=() b=() c=() kr=$rounds
		[ "$kind" = pipe ] && kr=$long
		for i in $(seq "$kr"); do
			log "budget: target $kind, round $i"
			a+=("$(target_run untraced "$kind" "$n" "u$kind$i")")
			PTARGS="-F 4000"
			b+=("$(target_run ptbpf "$kind" "$n" "f$kind$i")")
			c+=("$(target_run perf "$kind" "$n" "p$kind$i")")
		done
		ta=$(printf '%s\n' "${a[@]}" | median)
		tb=$(printf '%s\n' "${b[@]}" | median)
		tc=$(printf '%s\n' "${c[@]}" | median)
		row "budget.target.$kind" "target cost, $kind workload, ptbpf -F 4000 --pid: (traced - untraced) CPU time (median of $kr)" \
			"$(awk -v b="$tb" -v a="$ta" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')" ms \
			"$(awk -v c="$tc" -v a="$ta" 'BEGIN { printf "%.1f", (c - a) / 1e6 }')" "perf record -F 4000 -g -p, same" \
			"untraced $(awk -v n="$ta" 'BEGIN { printf "%.1f", n / 1e6 }') ms; ptbpf $(awk -v n="$tb" 'BEGIN { printf "%.1f", n / 1e6 }') ms; perf $(awk -v n="$tc" 'BEGIN { printf "%.1f", n / 1e6 }') ms"
		if [ "$kind" = cpu ]; then
			# the rate ptbpf took for -F 4000, and what it measured a sample at
			local hz cal
			hz=$(cat "$WORK"/b-fcpu*/events.jsonl | grep -o '"rate_hz":[0-9]*' | cut -d: -f2 | median)
			cal=$(cat "$WORK"/b-fcpu*/events.jsonl | grep -o '"sample_cost_ns":[0-9]*' | cut -d: -f2 | median)
			# 4. the calibration against the cost the bench sees: the
			# extra time over the samples the timer took (rate x time)
			row budget.calibration "per-sample cost found by ptbpf's calibration (median of $rounds starts)" \
				"$cal" ns \
				"$(awk -v b="$tb" -v a="$ta" -v h="$hz" 'BEGIN { printf "%.0f", (b - a) / (h * b / 1e9) }')" \
				"measured here: (traced - untraced) / (rate x traced time), CPU-bound at $hz Hz" ""
		fi
	done
	# 3. the default budget on the CPU-bound loop, long enough (about 0.15 s)
	# for tens of samples at the few hundred Hz a 2 % budget allows here
	a=() b=()
	for i in $(seq "$long"); do
		log "budget: default --overhead, round $i"
		a+=("$(target_run untraced cpu 100 "ud$i")")
		PTARGS=""
		b+=("$(target_run ptbpf cpu 100 "d$i")")
	done
	ta=$(printf '%s\n' "${a[@]}" | median)
	tb=$(printf '%s\n' "${b[@]}" | median)
	t=$(cat "$WORK"/b-d*/events.jsonl | grep -o '"rate_hz":[0-9]*' | cut -d: -f2 | median)
	row budget.default "CPU-bound target (work cpu 100) at the default --overhead 2 (median of $long)" \
		"$(awk -v n="$tb" 'BEGIN { printf "%.1f", n / 1e6 }')" ms \
		"$(awk -v n="$ta" 'BEGIN { printf "%.1f", n / 1e6 }')" "same, untraced, alternating" \
		"the rate the budget chose: $t Hz (median)"
}

report() {
	local json=.output/bench.json
	echo
	echo "| Metric | ptbpf | Baseline | Ratio | Note |"
	echo "|---|---|---|---|---|"
	awk -F'\t' '{
		r = ($5 + 0 != 0) ? sprintf("%.2f", $3 / $5) : "–"
		printf "| %s | %s %s | %s %s (%s) | %s | %s |\n", $2, $3, $4, $5, $4, $6, r, $7
	}' "$RES"
	jq -R -s 'split("\n") | map(select(length > 0) | split("\t")) |
		map({ key: .[0], value: {
			value: (.[2] | tonumber? // .), unit: .[3],
			baseline: (.[4] | tonumber? // .), baseline_name: .[5],
			ratio: (if (.[4] | tonumber? // 0) != 0 then
				((.[2] | tonumber) / (.[4] | tonumber) * 1000 | round) / 1000
				else null end),
			label: .[1], note: .[6] } }) | from_entries' "$RES" >"$json"
	echo
	echo "bench: $(wc -l <"$RES") figures; written to $json" >&2
}

build
FAILED=()
for b in $SEL; do
	"bench_$b" || {
		log "$b: failed, going on"
		FAILED+=("$b")
	}
done
report
if [ "${#FAILED[@]}" -gt 0 ]; then
	echo "bench: ${#FAILED[@]} failed: ${FAILED[*]}" >&2
	exit 1
fi
