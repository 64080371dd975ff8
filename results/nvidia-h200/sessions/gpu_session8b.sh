#!/usr/bin/env bash
# Session 4, the second short call: (1) the H200 cases whose tuned configuration fills private caches from local
# caches, benchmarked again now that such kernels are assembled at -cl-nv-opt-level=1 on NVIDIA (the cost of the
# workaround, against session 3's numbers at the default level); (2) the Xeon's GEMM cases retuned with the
# default start (session 3 found 752 ms for GEMM PC in 8 evaluations).
set -u
export MDH_BIN=$PWD/.device-bundle/bin
gpu=$(mdh devices --slug gpu); cpu=$(mdh devices --slug cpu)
bench() {  # bench DEVICE EXPERIMENTS SECONDS CASES...
  local dev=$1 exp=$2 end=$(( $(date +%s) + $3 )); shift 3
  for c in "$@"; do
    local left=$(( end - $(date +%s) ))
    (( left > 8 )) || { echo "not benchmarked (time): $dev $c"; continue; }
    echo "== benchmark $dev $c"
    timeout $left python3 scripts/experiments.py benchmark --device $dev --experiments $exp --only $c --run-timeout 20 \
      2>&1 | grep -vE '^\+|^wrote'
  done
}
bench gpu experiments.gpu.json 120 gemv:PC gemm:RW dot:RW gaussian:RW gaussian:PC jacobi3d:RW jacobi3d:PC
for c in gemm-PC gemm-RW; do rm -f results/$cpu/$c.json results/$cpu/$c.json.journal; done
timeout 70 python3 scripts/experiments.py tune --device cpu --experiments experiments.xeon.json --budget-scale 0.5 \
  --only gemm:PC --only gemm:RW 2>&1 | grep -E "^(best|stopped)|error"
bench cpu experiments.xeon.json 50 gemm:PC gemm:RW
tar czf $OUT/s8b.tar.gz results/$gpu results/$cpu
