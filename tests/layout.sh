#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The layout holds: each tree includes only itself and the shared format
# (tools/format/), no folder's modules include each other in a circle, the
# backends' kinds are named only in their tables and their own modules,
# the shared format uses no libbpf, libipt or threads, the
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
# user/ is grouped by subsystem (user/README.md), the folders in this order
# from the top down: a folder includes its own headers bare and another's as
# "folder/x.h", and only from a folder below it; main.c and args.c, at the
# top, include from any folder. Everything may use the shared format, the
# BPF header and the skeleton the tracer's build generates into .output.
layers=(control snapshot output collect watch target unwind proc base)
rank() {
	local i
	for i in "${!layers[@]}"; do
		[ "${layers[$i]}" = "$1" ] && echo "$i" && return
	done
	echo -1
}
for d in user/*/; do
	d=${d#user/}
	d=${d%/}
	[ "$(rank "$d")" -ge 0 ] || bad "user/$d/ is not in layout.sh's order of folders"
	[ -e "user/$d/README.md" ] || bad "user/$d/ has no README.md saying what it holds and may use"
done
for f in user/*.[ch] user/*/*.[ch]; do
	own=${f#user/}
	own=${own%/*}
	[ "$own" = "${f#user/}" ] && own=
	while read -r inc; do
		case $inc in
		*/*)
			to=${inc%%/*}
			if [ ! -e "user/$inc" ]; then
				bad "$f includes \"$inc\", which is not in user/"
			elif [ "$to" = "$own" ]; then
				bad "$f includes \"$inc\" from its own folder: include it as \"${inc#*/}\""
			elif [ -n "$own" ] && [ "$(rank "$to")" -le "$(rank "$own")" ]; then
				bad "$f includes \"$inc\": user/$to/ is not below user/$own/"
			fi
			;;
		*)
			[ -e "user/${own:+$own/}$inc" ] || [ -e "tools/format/$inc" ] ||
				[ -e "bpf/$inc" ] || [ "$inc" = ptbpf.skel.h ] ||
				bad "$f includes \"$inc\", which is neither in its folder nor shared"
			;;
		esac
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done

# no circle of includes between modules (x.c and x.h), across the folders
# of user/ (the order above sees none within a folder) and across the
# reader and the shared format: each line one circle, the includes it is
# made of
no_circles() {
	local what=$1 out rc line
	shift
	out=$(python3 tests/modcycles.py "$@")
	rc=$?
	while read -r line; do
		[ -n "$line" ] && bad "module circle in $what: $line"
	done <<<"$out"
	[ "$rc" = 0 ] || [ "$rc" = 1 ] || bad "tests/modcycles.py failed on $what ($rc)"
}
no_circles user/ --base user -I user -I tools/format -I bpf user
no_circles tools/ --base tools -I tools/dump -I tools/format tools/dump tools/format

# The backends' kinds (enum ptbpf_backend's values but AUTO, and their
# quoted names) are named only in the tables and in each backend's own
# modules: everywhere else the tracer and the reader ask a backend's row
# (user/collect/backend.h, tools/dump/dumpbe.h), so a new backend needs no
# edit in the code that asks. A file is allowed by its path, a module by
# its path without .c/.h.
kinds_allowed=(
	tools/format/snapdata.h # enum ptbpf_backend: the shared format's values
	tools/format/snapfmt.c  # their names: the shared format's table
	user/collect/backend.c  # the tracer's table, one row per backend
	tools/dump/dumpbe.c     # the reader's table, one row per backend
	user/collect/ptbe       # intel-pt's own: the steps its row names
	user/collect/pmu        # intel-pt's own: the intel_pt PMU
	user/collect/ptrecs     # intel-pt's own: its data event's records
	user/collect/auxact     # intel-pt's own: the aux-action events
	user/output/bundle      # the LLDB bundle: trace.json is Intel PT's format
	user/collect/samplebe   # sample's own: the steps its row names
	user/collect/evattr     # sample's own: the cpu-clock attr
	user/collect/sampling   # sample's own: the rate of a run
	user/collect/sampcost   # sample's own: a sample's cost
	user/collect/samprate   # sample's own: the rate picked
)
kinds=$(sed -n '/^enum ptbpf_backend {/,/^};/p' tools/format/snapdata.h |
	grep -oE 'BACKEND_[A-Z0-9_]+' | grep -vx BACKEND_AUTO)
names=$(sed -n 's/^[[:space:]]*\[BACKEND_[A-Z0-9_]*\] = \("[^"]*"\),.*/\1/p' tools/format/snapfmt.c |
	grep -vx '"auto"')
if [ -z "$kinds" ] || [ -z "$names" ]; then
	bad "no backend kinds read from snapdata.h's enum and snapfmt.c's names"
else
	re=$(printf '%s\n' $kinds $names | paste -sd '|')
	for f in $(grep -lE "$re" user/*.[ch] user/*/*.[ch] tools/*/*.[ch] bpf/*.[ch]); do
		ok=
		for a in "${kinds_allowed[@]}"; do
			[ "$f" = "$a" ] || [ "${f%.[ch]}" = "$a" ] && ok=1
		done
		[ -n "$ok" ] && continue
		grep -nE "$re" "$f" | sed "s|^|$f:|"
		bad "$f names a backend kind: ask its row (backend.h, dumpbe.h), or list it in layout.sh's kinds_allowed"
	done
fi

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
	if nm "$tmp/ptbpf-dump" | grep -E ' [TtDdBb] (bundle|ptbpfjson|fileout|recwrite|perfdata|snapwrite|cores|watch|control)_'; then
		bad "ptbpf-dump links tracer code"
	fi
	if ldd "$tmp/ptbpf-dump" | grep -q libbpf; then
		bad "ptbpf-dump links libbpf"
	fi
fi

# design.md's map names every module, as `x.c` (or `x.h` for a header alone)
for f in bpf/*.[ch] user/*.[ch] user/*/*.[ch] tools/dump/*.[ch] tools/format/*.[ch]; do
	case $f in
	*.h) [ -e "${f%.h}.c" ] && continue ;;
	esac
	grep -q "^- \`$f\`: " tools/doc/design.md ||
		bad "tools/doc/design.md's map has no line \"- \`$f\`: ...\""
done
# and no module that is gone
while read -r f; do
	[ -e "$f" ] || bad "tools/doc/design.md's map names $f, which does not exist"
done < <(sed -n 's/^- `\([^`]*\.[ch]\)`: .*/\1/p' tools/doc/design.md)

# the repository describes itself: nothing points at ../shared/
if git grep -n '\.\./shared' -- . ':!tests/layout.sh'; then
	bad "the repository points outside itself"
fi

[ "$fail" = 0 ] && echo "layout: ok"
exit "$fail"
