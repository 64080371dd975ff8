#!/usr/bin/env bash
# scripts/benchmark.sh [--device D] [--experiments FILE] [--only ROUTINE[:LABEL]]... [--portability]
# See scripts/experiments.py for what it writes under results/<device-slug>/.
set -euo pipefail
exec python3 "$(dirname "$0")/experiments.py" benchmark "$@"
