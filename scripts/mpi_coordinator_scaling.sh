#!/usr/bin/env bash
# The MPI coordinator's limit: evaluations per second against the number of evaluators, with simulated evaluators
# (tests/perf/mpi_coordinator_bench.cpp: an evaluation sleeps D seconds), so 1,000 evaluators cost two idle processes.
# For each evaluator count: the tuning loop with the evaluators in its own process (no MPI), then rank 0 with two
# simulator ranks over MPI without a journal, then with the journal (one fdatasync per evaluation) in DIR.
#
#   scripts/mpi_coordinator_scaling.sh [--seconds T] [--evaluation-seconds D] [--dir DIR] [COUNT...]
#
# Defaults: T = 10, D = 0.5, DIR = a temporary folder, COUNT = 1 4 16 64 256 1000. Prints one line per run.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=10 evaluation=0.5 dir=""
while (($#)); do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --evaluation-seconds) evaluation=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    *) break ;;
  esac
done
counts=("$@")
((${#counts[@]})) || counts=(1 4 16 64 256 1000)
bench=build/bin/mpi_coordinator_bench
[[ -x $bench ]] || { echo "no $bench: build with MPI (cmake -DMDH_WITH_MPI=ON)" >&2; exit 2; }
if [[ -z $dir ]]; then dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT; fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun=(mpirun --oversubscribe --bind-to none -np 3)
for n in "${counts[@]}"; do
  common=(--evaluators "$n" --evaluation-seconds "$evaluation" --seconds "$seconds")
  "$bench" --in-process "${common[@]}"
  "${mpirun[@]}" "$bench" "${common[@]}"
  rm -f "$dir/journal"
  "${mpirun[@]}" "$bench" "${common[@]}" --journal "$dir/journal"
done
