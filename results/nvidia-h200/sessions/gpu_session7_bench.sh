#!/usr/bin/env bash
# Session 3, third device-machine call: (1) the four contraction configurations that give wrong results on the
# H200 only when NVIDIA's compiler optimises, rebuilt with every cache poisoned with NaN before it is filled
# (MDH_DEBUG_POISON, a local debugging build): NaN in the output would mean that the kernel reads cache elements
# it never loaded; (2) benchmark.sh on the H200 for experiments.gpu.json and on the Xeon through PoCL for
# experiments.xeon.json, each with every other device's tuned configuration (--portability). One case per
# experiments.py call, so that a call stopped by the time limit keeps the rows of the cases before it.
set -u
export MDH_BIN=$PWD/.device-bundle/bin
gpu=$(mdh devices --slug gpu); cpu=$(mdh devices --slug cpu)
soak=.device-bundle/bin/mdh_codegen_soak_tests
for c in ${POISON_CASES-gdab_efgc:176 gdac_efgb:178 gdbc_efga:339 gfab_degc:337}; do
  r=$(MDH_DEBUG_POISON=1 MDH_SOAK=1 MDH_TEST_DEVICE_TYPE=gpu MDH_TUNABLE_SHARD=${c##*:}/1000 timeout 60 \
      $soak --gtest_filter="*/tc_abcdef_${c%%:*}" 2>&1 | grep -E "expected|PASSED  \]|FAILED  \]" | head -2 | cut -c1-200 | tr '\n' ' ')
  echo "poisoned caches, config $c: $r"
done
end=$(( $(date +%s) + ${BENCH_SECONDS:-520} ))
bench() {  # bench DEVICE EXPERIMENTS RUN_TIMEOUT [CASES]
  local cases=${4:-}; [[ -n $cases ]] || cases=$(python3 -c "
import json; e=json.load(open('$2'))
print(' '.join('%s:%s' % (r['name'], s['label']) for r in e['routines'] for s in r['sizes']))")
  for c in $cases; do
    left=$(( end - $(date +%s) ))
    (( left > 10 )) || { echo "not benchmarked (time): $1 $c"; continue; }
    echo "== $1 $c"
    timeout $left python3 scripts/experiments.py benchmark --device $1 --experiments $2 --only $c --portability \
      --run-timeout $3 2>&1 | grep -vE '^\+|^wrote'
  done
}
end_gpu=$end; end=$(( $(date +%s) + ${GPU_SECONDS:-330} )); bench gpu experiments.gpu.json 40; end=$end_gpu
bench cpu experiments.xeon.json ${XEON_TIMEOUT:-15} "${XEON_CASES:-}"
tar czf $OUT/bench7.tar.gz results/$gpu results/$cpu
