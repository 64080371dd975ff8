#!/usr/bin/env bash
# scripts/print_results.sh [--device D]: the comparison tables (terminal and results/<slug>/tables.md) and PNG plots
# (speedup bars, tuning curves) of every device with a benchmark.csv, or of the one device given.
set -euo pipefail
exec python3 "$(dirname "$0")/experiments.py" print "$@"
