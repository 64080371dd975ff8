#!/usr/bin/env bash
# Session 15, call 6 on nvidia-h200:
# 1. GEMM variants around the best run configurations (configs/h*.json: reduction private tiles, longer reduction
#    tiles, WG_SWIZZLE, split-K, another work-item shape), 50 runs after 3 warm-ups, two rounds, with the committed
#    configurations and cuBLAS (TF32 off) in each round.
# 2. Issue 13 item 5: a 5-minute reference run of GEMV 4096^2 (auc_bandit, seed 1, no transfer) with its journal.
# Bundle: build/bin/mdh build-cuda/bin/peer_cuda -- apps experiments.json experiments.gpu.json
set -u
out=${OUT:-/tmp/gpu4}
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
cfg=results/nvidia-h200/session15/configs
time1() {  # SIZE CONFIG
  echo "$1 $(basename "$2"): $(mdh run apps/gemm.mdh --size "$1" --device gpu --config "$2" --repeat 50 --warmup 3 \
    --verify </dev/null 2>&1 | grep -E 'kernel time|PASS|FAIL|error' | sed -E 's/over 50 runs.*//; s/verify.*(PASS|FAIL).*/\1/' |
    cut -c1-140 | tr '\n' ' ')"
}
cublas() {  # SIZE
  peer_cuda --routine gemm --spec apps/gemm.mdh --size "$1" --warmups 3 --min-runs 50 --max-runs 50 \
    --json "$out/cublas.json" >/dev/null 2>&1 </dev/null
  python3 -c "import json,sys; print('$1 cuBLAS: median %.4f ms' % (json.load(open(sys.argv[1]))['device_time_ns']['median'] / 1e6))" \
    "$out/cublas.json"
}
s1=I=1024,J=1024,K=1024
s4=I=4096,J=4096,K=4096
for round in 1 2; do
  cublas $s1
  time1 $s1 results/nvidia-h200/gemm-PC.json
  for c in $cfg/h1024-*.json; do time1 $s1 "$c"; done
  cublas $s4
  time1 $s4 results/nvidia-h200/gemm-PC-4096.json
  for c in $cfg/h4096-*.json; do time1 $s4 "$c"; done
done
rm -f "$out/cublas.json"
mdh tune apps/gemv.mdh --size I=4096,K=4096 --device gpu --technique auc_bandit --seed 1 --evals 100000 --budget 300s \
  --no-transfer --journal "$out/gemv4096-300s.journal" --out "$out/gemv4096-300s.json" 2>&1 |
  grep -E '^(stopped|time|best|compiles)'
