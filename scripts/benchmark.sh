#!/usr/bin/env bash
# scripts/benchmark.sh [--device D] [--experiments FILE] [--results DIR] [--tuned DIR] [--only ROUTINE[:LABEL]]... [--portability]
# See scripts/experiments.py for what it writes under RESULTS/<device-slug>/ (--results, default results/),
# running the configurations tuned under TUNED/<device-slug>/ (--tuned, default tuned/).
set -euo pipefail
exec python3 "$(dirname "$0")/experiments.py" benchmark "$@"
