#!/usr/bin/env bash
# The main job: one small case per workload (experiments.quick.json) on the default device — tuned with about a
# minute of budget each, benchmarked against the peers built here with one measurement method, and printed as
# tables with plots beside them. Everything goes to local-results/<device>/ (git ignores it), and the job ends with
# the paths of its files; the committed results of the project's device sessions (results/) are neither read nor
# rewritten unless asked with --results results.
# Usage: scripts/main.sh [--device D] [--budget-scale F] [--experiments FILE] [--results DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
device=() scale=() experiments=experiments.quick.json results=local-results
usage() {
  echo "usage: scripts/main.sh [--device D] [--budget-scale F] [--experiments FILE] [--results DIR]" >&2
  exit 2
}
while (($#)); do
  (($# >= 2)) || usage
  case $1 in
    --device) device=(--device "$2") ;;
    --budget-scale) scale=(--budget-scale "$2") ;;
    --experiments) experiments=$2 ;;
    --results) results=$2 ;;
    *) usage ;;
  esac
  shift 2
done
# print gets a --device always, so that it shows this device's tables only (--device '' is the default device).
((${#device[@]})) || device=(--device "")
common=("${device[@]}" --experiments "$experiments" --results "$results")
bash scripts/tune.sh "${common[@]}" "${scale[@]}" --skip-peer-tuning
bash scripts/benchmark.sh "${common[@]}"
bash scripts/print_results.sh "${device[@]}" --results "$results"
