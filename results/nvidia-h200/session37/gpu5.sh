#!/usr/bin/env bash
# Session 37, call 5 (nvidia-h200): the H200 rows whose kernels generator 4 changed, benchmarked with their peers:
# DOT (now call 3's `mdh tune` result) three times, each run's csv and records kept apart, then GEMM RW, GEMV PC and
# GEMV RW once; on the machine's 16 Xeon cores (PoCL) the committed Xeon DOT, generator 3 (mdh_old, 7442e11) against
# generator 4, two rounds of 20 verified runs; the soak's last two contractions (call 4 left them unfinished).
# Bundle: mdh, mdh_old, mdh_codegen_soak_tests, peer_mdh, device_peak, peer_cuda, peer_clblast.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
B=.device-bundle/bin
X=results/pocl-cpu-intel-xeon-16c
nvidia-smi -L >"$OUT/gpu.txt"
for n in 1 2 3; do
  scripts/device_run.sh bench gpu experiments.gpu.json --seconds 150 dot:RW 2>&1 | tee "$OUT/bench-dot$n.txt" | tail -4
  tar czf "$OUT/bench-dot$n.tgz" results/nvidia-h200/benchmark.csv results/nvidia-h200/records
done
scripts/device_run.sh bench gpu experiments.gpu.json --seconds 200 gemm:RW gemv:PC gemv:RW 2>&1 | tee "$OUT/bench.txt" | tail -12
tar czf "$OUT/bench.tgz" results/nvidia-h200/benchmark.csv results/nvidia-h200/records
{
  for round in 1 2; do
    for m in mdh_old mdh; do
      echo "round $round $m dot: $($B/$m run apps/dot.mdh --size K=16777216 --config $X/dot-RW.json --device cpu --repeat 20 --verify 2>&1 | grep -E 'kernel time|FAIL|error' | tr '\n' ' ')"
    done
  done
} 2>&1 | tee "$OUT/xeon-ab.txt"
scripts/device_run.sh soak --seconds 200 --cpu-jobs 0 --gpu-jobs 16 --shards 8 \
  --filter '/(tc_abcdef_gfac_degb|tc_abcdef_gfbc_dega)$' --out "$OUT/soak.tar.gz" 2>&1 | tail -4
