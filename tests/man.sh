#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The man pages are true to --help: every option --help names has an entry
# in the page's OPTIONS, and every entry there is in --help; both pages
# render without a warning. One test for tests/run.sh: exits 0 when all
# holds.
set -u
cd "$(dirname "$0")/.."
fail=0

opts() { grep -oE '(^|[ ,[])--?[a-zA-Z][a-z-]*' | grep -oE -- '--?[a-zA-Z][a-z-]*' | sort -u; }

# The option entries of a page: the line after each .TP/.TQ in OPTIONS.
entries() {
	awk '/^\.SH/ { in_opts = ($2 == "OPTIONS") } in_opts && take { print; take = 0 }
		in_opts && /^\.T[PQ]/ { take = 1 }' "$1" | sed 's/\\-/-/g'
}

for tool in ptbpf ptbpf-dump; do
	page=tools/man/$tool.1
	help=$(./$tool --help) || { echo "$tool --help failed"; fail=1; continue; }
	in_page=$(entries "$page" | opts)
	in_help=$(printf '%s\n' "$help" | opts)
	for o in $in_help; do
		printf '%s\n' "$in_page" | grep -qx -- "$o" || { echo "$page: no entry for $o (in $tool --help)"; fail=1; }
	done
	for o in $in_page; do
		printf '%s\n' "$in_help" | grep -qx -- "$o" || { echo "$page: $o is not in $tool --help"; fail=1; }
	done
	warn=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
	[ -z "$warn" ] || { echo "$page: groff: $warn"; fail=1; }
done
[ "$fail" = 0 ] && echo "man pages: true to --help"
exit "$fail"
