#!/usr/bin/env bash
# Session 2, second device-machine call: tuning workers on the GPU after the environment fix (evaluations per
# second with and without parallel compilation, GEMM 256^3 200 evaluations + verify), mdh tuning of
# experiments.gpu.json in worker processes, and meanwhile the tunable-kernel soak run on 11 of the Xeon's cores
# through PoCL 5 (optimised builds). Everything worth keeping is packed into $OUT/session6.tar.gz.
set -u
export MDH_BIN=$PWD/.device-bundle/bin CUDA_CACHE_DISABLE=1
slug=$(mdh devices --slug gpu); echo "slug $slug"
mkdir -p /tmp/soak
(.device-bundle/bin/mdh_codegen_soak_tests --gtest_list_tests | awk '/^[A-Za-z]/{s=$1} /^  /{print s $1}' | grep TunableSoak\\. |
  xargs -P11 -I{} sh -c 'MDH_SOAK=1 POCL_CPU_MAX_CU_COUNT=1 timeout 520 .device-bundle/bin/mdh_codegen_soak_tests --gtest_filter="{}" > "/tmp/soak/$(echo {} | tr / _).log" 2>&1; echo "rc=$?" >> "/tmp/soak/$(echo {} | tr / _).log"') &
soak=$!
echo "== worker check: GEMM 64^3, 3 evaluations in worker processes"
mdh tune apps/gemm.mdh --size I=64,J=64,K=64 --device gpu --evals 3 --compile-threads 0 --out /tmp/x.json 2>&1 | tail -2
mode=--in-process
grep -q '"status":"ok"' /tmp/x.json.journal && mode=""
echo "tuning mode: ${mode:-worker processes}"
if [[ -z $mode ]]; then
  for t in 0 4; do
    echo "== evaluations per second, GEMM 256^3, 60 evaluations, workers, compile threads $t"
    /usr/bin/time -f "%e s wall" mdh tune apps/gemm.mdh --size I=256,J=256,K=256 --device gpu --evals 60 --compile-threads $t --out /tmp/w$t.json 2>&1 | tail -3
  done
  echo "== GEMM 256^3, 200 evaluations, seed 1, workers, then run --config --verify"
  /usr/bin/time -f "%e s wall" mdh tune apps/gemm.mdh --size I=256,J=256,K=256 --device gpu --evals 200 --seed 1 --out results/$slug/gemm256-workers.json 2>&1 | tail -3
  mdh run apps/gemm.mdh --size I=256,J=256,K=256 --device gpu --config results/$slug/gemm256-workers.json --verify | tail -3
fi
echo "== mdh tuning of experiments.gpu.json (${mode:-workers})"
timeout ${TUNE_SECONDS:-340} python3 scripts/experiments.py tune --device gpu --experiments experiments.gpu.json --skip-peer-tuning $mode 2>&1 | grep -E "^(best|stopped|warning)|tuned already"
echo "== soak (waiting for it)"
wait $soak
for f in /tmp/soak/*.log; do echo "$(basename $f .log): $(grep -E '^\[  (PASSED|FAILED)|^rc=' $f | tr '\n' ' ')"; done
tar czf $OUT/session6.tar.gz results/$slug /tmp/soak
