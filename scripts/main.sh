#!/usr/bin/env bash
# The main job: one small case per workload (experiments.quick.json) on the default device — tuned with about a
# minute of budget each, benchmarked against the peers built here with one measurement method, and printed as
# tables with plots beside them. Everything goes to local-results/<device>/ (git ignores it), and the job ends with
# the paths of its files; the committed tables (results/) and tuned configurations (tuned/) are not rewritten unless
# asked with --results results --tuned tuned.
# Usage: scripts/main.sh [--device D] [--budget-scale F] [--experiments FILE] [--results DIR] [--tuned DIR] [--merge]
# (--merge: keep the rows of an earlier run's other cases in the table, each naming its run; without it a table
# holding such rows is refused.)
set -euo pipefail
cd "$(dirname "$0")/.."
device=() scale=() merge=() experiments=experiments.quick.json results=local-results tuned=
usage() {
  echo "usage: scripts/main.sh [--device D] [--budget-scale F] [--experiments FILE] [--results DIR] [--tuned DIR]" \
    "[--merge]" >&2
  exit 2
}
while (($#)); do
  if [[ $1 == --merge ]]; then
    merge=(--merge)
    shift
    continue
  fi
  (($# >= 2)) || usage
  case $1 in
    --device) device=(--device "$2") ;;
    --budget-scale) scale=(--budget-scale "$2") ;;
    --experiments) experiments=$2 ;;
    --results) results=$2 ;;
    --tuned) tuned=$2 ;;
    *) usage ;;
  esac
  shift 2
done
# print gets a --device always, so that it shows this device's tables only (--device '' is the default device).
((${#device[@]})) || device=(--device "")
# The tuned configurations go beside the tables unless a store is named; their journals stay resumable.
common=("${device[@]}" --experiments "$experiments" --results "$results" --tuned "${tuned:-$results}")
# A table the benchmark would refuse (rows of another run, no --merge) is refused before the tuning, not after it.
python3 scripts/experiments.py check-table "${common[@]}" "${merge[@]}"
bash scripts/tune.sh "${common[@]}" "${scale[@]}" --skip-peer-tuning --keep-journals
bash scripts/benchmark.sh "${common[@]}" "${merge[@]}"
bash scripts/print_results.sh "${device[@]}" --results "$results" --tuned "${tuned:-$results}"
