#!/usr/bin/env bash
# Runs the CI test suite (everything except the `soak` label) on the default OpenCL device, then checks that the C++
# sources follow .clang-format. Both always run; the exit status is non-zero if either fails.
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
status=0
ctest --test-dir build --output-on-failure -LE soak -j "$jobs" --timeout 900 || status=1
bash scripts/format.sh --check || status=1
exit $status
