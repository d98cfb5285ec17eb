#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ptbpf-dump and its tests (tests/{unit,pipeline}/test_dump*.c, test_json*.c) under
# AddressSanitizer and UndefinedBehaviorSanitizer: the Makefile's own rules
# with SANITIZE=address, built into .output/sanitize/ (the normal build is
# left alone), then run. Any sanitizer report fails the run: ASan aborts on
# its first error, UBSan is made fatal.
#
#   tests/sanitize.sh            build and run
#   tests/sanitize.sh OUT_DIR    also run the sanitized ptbpf-dump, in
#                                every mode, on ptbpf's output in OUT_DIR
set -eu
shopt -s nullglob
cd "$(dirname "$0")/.."
out=.output/sanitize
make -s sanitize >/dev/null
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

bins=()
for t in tests/{unit,pipeline}/test_dump*.c tests/{unit,pipeline}/test_json*.c; do
	dir=$(basename "$(dirname "$t")")
	bins+=("$out/tests/$dir/$(basename "$t" .c)")
done
TEST_LOG_DIR="$out/logs" tests/run.sh "${bins[@]}"

if [ $# -gt 0 ]; then
	for mode in "" --json --packets --insn "--timeline $out/tl.json" \
		"--timeline $out/tl.pftrace"; do
		# exit 1 (bad input reported) is fine; a sanitizer abort is not
		# shellcheck disable=SC2086
		"$out/ptbpf-dump" $mode "$@" >/dev/null 2>"$out/dump.err" || \
			[ $? -eq 1 ] || { cat "$out/dump.err"; exit 1; }
	done
	rm -f "$out/tl.json" "$out/tl.pftrace"
	echo "sanitized ptbpf-dump: clean on $*"
fi
