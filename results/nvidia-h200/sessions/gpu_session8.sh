#!/usr/bin/env bash
# Session 4, the last device-machine call (about 8 minutes), after two changes that alter what tuning finds on the
# H200: `mdh tune` now evaluates the default configuration first, and kernels whose private caches are filled from
# local caches are assembled at -cl-nv-opt-level=1 on NVIDIA (codegen/tunable_kernel.cpp).
#  1. Retune on the H200 what the default start matters most for: GEMM PC, MCC and the three contractions (the
#     budgets of experiments.gpu.json scaled by GPU_SCALE); then benchmark them against their peers in one run each.
#  2. On the 16-core Xeon through PoCL: tune and benchmark the stencils, MCC and a contraction (experiments.xeon.json),
#     which had not been run there.
# A phase that would overrun its deadline is cut, and what it did not do is printed. Results: $OUT/s8.tar.gz.
set -u
export MDH_BIN=$PWD/.device-bundle/bin
gpu=$(mdh devices --slug gpu); cpu=$(mdh devices --slug cpu); echo "devices: $gpu $cpu"
begin=$(date +%s)
phase() {  # phase DEVICE EXPERIMENTS SCALE TUNE_SECONDS BENCH_SECONDS RUN_TIMEOUT CASES...
  local dev=$1 exp=$2 scale=$3 tune_s=$4 bench_s=$5 run_timeout=$6; shift 6
  local slug; slug=$(mdh devices --slug $dev) only=()
  for c in "$@"; do rm -f results/$slug/${c%%:*}-${c##*:}.json results/$slug/${c%%:*}-${c##*:}.json.journal; only+=(--only $c); done
  echo "== tune on $dev ($*)"
  timeout $tune_s python3 scripts/experiments.py tune --device $dev --experiments $exp --budget-scale $scale \
    --skip-peer-tuning "${only[@]}" 2>&1 | grep -E "^(best|stopped|warning|note)|error" || echo "(tuning cut at $tune_s s)"
  local end=$(( $(date +%s) + bench_s ))
  for c in "$@"; do
    local left=$(( end - $(date +%s) ))
    (( left > 10 )) || { echo "not benchmarked (time): $dev $c"; continue; }
    echo "== benchmark $dev $c"
    timeout $left python3 scripts/experiments.py benchmark --device $dev --experiments $exp --only $c \
      --run-timeout $run_timeout 2>&1 | grep -vE '^\+|^wrote'
  done
}
phase gpu experiments.gpu.json ${GPU_SCALE:-0.75} 250 150 30 \
  gemm:PC mcc:RW tc-abcdef-gdab-efgc:RW tc-abcdef-geab-dfgc:RW tc-abcdef-gfbc-dega:RW
phase cpu experiments.xeon.json ${XEON_SCALE:-0.8} 110 70 20 \
  gaussian:RW jacobi3d:RW mcc:RW tc-abcdef-gdab-efgc:RW
echo "call took $(( $(date +%s) - begin )) s"
for s in $gpu $cpu; do
  for j in results/$s/*.json; do python3 -c "import json,sys; d=json.load(open('$j')); print('$j', d['kernel_time_ns']/1e6, 'ms', d['evaluations'], 'evals', round(d['tuning_seconds']), 's')" 2>/dev/null; done
done
tar czf $OUT/s8.tar.gz results/$gpu results/$cpu
