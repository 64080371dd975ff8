#!/usr/bin/env bash
# Runs the CI test suite (everything except the `soak` label) on the default OpenCL device.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir build --output-on-failure -LE soak -j "$jobs" --timeout 900
