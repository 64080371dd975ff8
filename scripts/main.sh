#!/usr/bin/env bash
# The main job: one small case per workload (experiments.quick.json) on the default device — tuned with about a
# minute of budget each, benchmarked against the peers built here with one measurement method, and printed as
# tables (results/<device>/tables.md, plots beside it). Usage: scripts/main.sh [--device D] [--budget-scale F]
set -euo pipefail
cd "$(dirname "$0")/.."
device=(); scale=()
while (($#)); do
  case $1 in
    --device) device=(--device "$2"); shift 2 ;;
    --budget-scale) scale=(--budget-scale "$2"); shift 2 ;;
    *) echo "usage: scripts/main.sh [--device D] [--budget-scale F]" >&2; exit 2 ;;
  esac
done
bash scripts/tune.sh "${device[@]}" --experiments experiments.quick.json "${scale[@]}" --skip-peer-tuning
bash scripts/benchmark.sh "${device[@]}" --experiments experiments.quick.json
bash scripts/print_results.sh "${device[@]}"
