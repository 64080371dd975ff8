#!/usr/bin/env bash
# Session 3, first device-machine call: the tunable-kernel soak run (1,000 random valid configurations per md_hom,
# seed 77001, CTest label `soak`) on the H200 through NVIDIA OpenCL — real barriers and real local memory, which
# PoCL's work-item loops cannot exercise — on 12 processes, and the same cases on the Xeon through PoCL 5
# (optimised builds) on the remaining 4 cores. Every case is split into 8 shards (MDH_TUNABLE_SHARD); the union of
# the shards of a case is its unsharded run. A deadline stops what would overrun the call; a shard not finished by
# then is reported as such, never as passed. Logs go to $OUT/soak7.tar.gz.
set -u
soak=${SOAK_BIN:-$PWD/.device-bundle/bin/mdh_codegen_soak_tests}
deadline=$(( $(date +%s) + ${SOAK_SECONDS:-540} ))
shards=8
mkdir -p /tmp/soak
cases=$($soak --gtest_list_tests | awk '/^[A-Za-z]/{s=$1} /^  /{print s $1}' | grep 'TunableSoak\.')

# run_shard DEVICE_TYPE CASE K: one shard, bounded by the deadline; its log ends in rc=… (124: deadline).
run_shard() {
  local type=$1 case=$2 k=$3 left
  local log="/tmp/soak/$type-${case##*/}-$k.log"
  left=$(( deadline - $(date +%s) ))
  if (( left < 5 )); then echo "not started (deadline)" > "$log"; echo "rc=none" >> "$log"; return; fi
  MDH_SOAK=1 MDH_TEST_DEVICE_TYPE=$type MDH_TUNABLE_SHARD=$k/$shards POCL_CPU_MAX_CU_COUNT=1 \
    timeout "$left" "$soak" --gtest_filter="$case" > "$log" 2>&1
  echo "rc=$?" >> "$log"
}
export -f run_shard; export soak deadline shards

for c in $cases; do for k in $(seq 0 $((shards - 1))); do echo "gpu $c $k"; done; done |
  xargs -r -P${GPU_JOBS:-12} -L1 bash -c 'run_shard "$0" "$1" "$2"' &
gpu=$!
# The Xeon takes the cases in reverse order, so that together the two devices cover as much as possible.
for c in $( ((${CPU_JOBS:-4} > 0)) && echo "$cases" | tac); do for k in $(seq 0 $((shards - 1))); do echo "cpu $c $k"; done; done |
  xargs -r -P${CPU_JOBS:-4} -L1 bash -c 'run_shard "$0" "$1" "$2"' &
cpu=$!
wait $gpu $cpu

for type in gpu cpu; do
  echo "== soak on $type: case passed/failed/crashed/unfinished shards (of $shards), then the first failure or crash"
  for c in $cases; do
    name=${c##*/}; passed=0; failed=0; crashed=0; open=0; why=""
    for k in $(seq 0 $((shards - 1))); do
      f=/tmp/soak/$type-$name-$k.log
      if grep -q '^\[  PASSED  \] 1 test' "$f" && grep -q '^rc=0' "$f"; then passed=$((passed + 1))
      elif grep -q '^\[  FAILED  \]' "$f"; then failed=$((failed + 1))
        [[ -z $why ]] && why="shard $k: $(grep -m1 -A4 'Failure' "$f" | tr '\n' ' ' | head -c 700)"
      elif grep -qE '^rc=(124|none)' "$f"; then open=$((open + 1))
      else crashed=$((crashed + 1))
        [[ -z $why ]] && why="shard $k crashed: $(tail -n 4 "$f" | tr '\n' ' ' | head -c 700)"
      fi
    done
    echo "$name $passed/$failed/$crashed/$open $why"
  done
done
tar czf $OUT/${SOAK_TAR:-soak7}.tar.gz -C /tmp soak
