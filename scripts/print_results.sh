#!/usr/bin/env bash
# scripts/print_results.sh [--device D] [--results DIR] [--tuned DIR]: the comparison tables (terminal and RESULTS/<slug>/tables.md)
# and PNG plots (speedup bars, tuning curves) of every device folder of RESULTS (default results/) with a
# benchmark.csv, and RESULTS/portability.md; or, with --device, of that device only, ending with the paths of its files.
set -euo pipefail
exec python3 "$(dirname "$0")/experiments.py" print "$@"
