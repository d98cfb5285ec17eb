#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every libFuzzer target (tests/fuzz/fuzz_*.c) for FUZZ_SECONDS (default 30)
# each, from tests/fuzz/seeds: a crash, a sanitizer report or a leak fails.
set -euo pipefail
cd "$(dirname "$0")/../.."
make -s fuzz
