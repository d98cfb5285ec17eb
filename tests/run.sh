#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs each cmocka test binary given, sums the results and ends with the
# line `N passed, N failed, N skipped`. An argument ending in ':' ("unit:")
# starts a group: the group's subtotal is printed when it ends. A binary that dies without printing
# its summary counts as one failure. A script (*.sh) is one test that passes
# when it exits 0 (the fuzz runs, the sanitizer builds) and is skipped when it exits 77. In CI (CI=true, as root) a skipped test
# is a failure: privileged tests must run there.
set -u
passed=0 failed=0 skipped=0
group='' g_passed=0 g_failed=0 g_skipped=0

# the subtotal of the group that just ended, if there was one
end_group() {
	[ -n "$group" ] && printf '%-28s %3d passed %3d failed %3d skipped\n' "== $group" \
		"$((passed - g_passed))" "$((failed - g_failed))" "$((skipped - g_skipped))"
	g_passed=$passed g_failed=$failed g_skipped=$skipped
}
log_dir=${TEST_LOG_DIR:-.output/test-logs}
mkdir -p "$log_dir"

for t in "$@"; do
	if [ "${t%:}" != "$t" ]; then
		end_group
		group=${t%:}
		continue
	fi
	name=$(basename "$t")
	log="$log_dir/$name.log"
	timeout --kill-after=10 "${TEST_TIMEOUT:-600}" "$t" >"$log" 2>&1
	rc=$?
	if [ "${t%.sh}" != "$t" ]; then
		# 77, as automake has it: skipped (no root)
		p=0 f=0 s=0
		if [ "$rc" -eq 0 ]; then p=1; elif [ "$rc" -eq 77 ]; then s=1; else f=1; fi
		printf '%-28s %3d passed %3d failed %3d skipped  %s\n' "$name" "$p" "$f" "$s" "$([ "$f" = 0 ] && echo ok || echo FAIL)"
		[ "$f" -gt 0 ] && tail -n 20 "$log" | sed 's/^/    /'
		passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
		continue
	fi
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
	p=${p:-0} f=${f:-0} s=${s:-0}
	if [ -z "$(grep -E '^\[==========\] [0-9]+ test\(s\) run' "$log")" ]; then
		# crashed or hung before its summary
		f=$((f + 1))
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	status=ok
	[ "$f" -gt 0 ] && status=FAIL
	printf '%-28s %3d passed %3d failed %3d skipped  %s\n' "$name" "$p" "$f" "$s" "$status"
	if [ "$f" -gt 0 ] || [ "$s" -gt 0 ]; then
		# each failed or skipped test with what it said last: what was
		# expected and what was seen, not only its file and line
		awk '/^\[ RUN      \]/ { n = 0; running = 1 }
			running { b[n++ % 16] = $0 }
			running && /^\[  (FAILED|SKIPPED) *\] [A-Za-z_0-9]+$/ {
				for (i = (n > 16 ? n - 16 : 0); i < n; i++) print b[i % 16]
				running = 0
			}
			/^\[       OK \]/ { running = 0 }' "$log" | head -n 80 | sed 's/^/    /'
		grep -qE '^\[==========\] [0-9]+ test\(s\) run' "$log" || tail -n 20 "$log" | sed 's/^/    /'
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
done

end_group
rc=0
[ "$failed" -gt 0 ] && rc=1
if [ "${CI:-}" = true ] && [ "$skipped" -gt 0 ]; then
	echo "CI: $skipped test(s) skipped; privileged tests may not be skipped in CI"
	rc=1
fi
echo "$passed passed, $failed failed, $skipped skipped"
exit $rc
