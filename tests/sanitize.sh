#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ptbpf-dump's tests under AddressSanitizer and UndefinedBehaviorSanitizer:
# the dump unit tests (tests/unit/test_dump*.c, test_jsonread.c) and a
# sanitized ptbpf-dump, all built from source into .output/sanitize/ (the
# normal build is left alone), then run. Any sanitizer report fails the
# run: ASan aborts on its first error, UBSan is made fatal.
#
#   tests/sanitize.sh            build and run
#   tests/sanitize.sh OUT_DIR    also run the sanitized ptbpf-dump, in
#                                every mode, on ptbpf's output in OUT_DIR
set -eu
cd "$(dirname "$0")/.."
make -s .output/ptbpf.skel.h >/dev/null
out=.output/sanitize
mkdir -p "$out"
CC=${CC:-gcc}
FLAGS="-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined
-fno-sanitize-recover=undefined -std=gnu11 -D_GNU_SOURCE -DPTBPF_VERSION=\"san\"
-Wall -Wextra -Wno-unused-parameter -Wno-format-truncation
-I.output -Ibpf -Iuser -Itests -Itools/dump"
LIBS="-lbpf -lelf -lz -lpthread -lipt"
lib=$(ls user/*.c | grep -v '^user/main.c$')
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# shellcheck disable=SC2086
$CC $FLAGS -o "$out/ptbpf-dump" tools/dump/*.c $lib $LIBS
bins=()
for t in tests/unit/test_dump*.c tests/unit/test_jsonread.c; do
	b="$out/$(basename "$t" .c)"
	# shellcheck disable=SC2086
	$CC $FLAGS -o "$b" "$t" $lib $LIBS -lcmocka
	bins+=("$b")
done
TEST_LOG_DIR="$out/logs" tests/run.sh "${bins[@]}"

if [ $# -gt 0 ]; then
	for mode in "" --json --packets --insn "--timeline $out/tl.json"; do
		# exit 1 (bad input reported) is fine; a sanitizer abort is not
		# shellcheck disable=SC2086
		"$out/ptbpf-dump" $mode "$@" >/dev/null 2>"$out/dump.err" || \
			[ $? -eq 1 ] || { cat "$out/dump.err"; exit 1; }
	done
	rm -f "$out/tl.json"
	echo "sanitized ptbpf-dump: clean on $*"
fi
