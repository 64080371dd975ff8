#!/usr/bin/env bash
# Session 36, call 6 (nvidia-h200): (a) the two H200 rows whose kernels generator 3 changed, GEMM 10x500x64 and MCC,
# benchmarked again with their peers; (b) on the machine's 16 Xeon cores (PoCL), the two committed Xeon
# configurations whose kernels changed (Gaussian RW, tc-abcdef-gdab-efgc RW), generator 2 (mdh_old, f5c694d) against
# generator 3, two rounds of 20 verified runs; (c) the GPU soak's second part (PRL, MCC, the contractions).
# Bundle: mdh, mdh_old, mdh_codegen_soak_tests, peer_mdh, device_peak, peer_cuda, peer_clblast.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
B=.device-bundle/bin
X=results/pocl-cpu-intel-xeon-16c
nvidia-smi -L >"$OUT/gpu.txt"
scripts/device_run.sh bench gpu experiments.gpu.json --seconds 200 gemm:RW mcc:RW 2>&1 | tee "$OUT/bench.txt" | tail -16
tar czf "$OUT/bench.tgz" results/nvidia-h200/benchmark.csv results/nvidia-h200/records
{
  $B/mdh devices 2>&1 | grep -i -m3 "cpu\|pocl"
  for round in 1 2; do
    for m in mdh_old mdh; do
      echo "round $round $m gaussian: $($B/$m run apps/gaussian.mdh --size I=224,J=224 --config $X/gaussian-RW.json --device cpu --repeat 20 --verify 2>&1 | grep -E 'kernel time|FAIL|error' | tr '\n' ' ')"
      echo "round $round $m tc-gdab-efgc: $($B/$m run apps/tc/abcdef-gdab-efgc.mdh --size A=24,B=16,C=16,D=16,E=24,F=16,G=24 --config $X/tc-abcdef-gdab-efgc-RW.json --device cpu --repeat 20 --verify 2>&1 | grep -E 'kernel time|FAIL|error' | tr '\n' ' ')"
    done
  done
} 2>&1 | tee "$OUT/xeon-ab.txt"
scripts/device_run.sh soak --seconds 330 --cpu-jobs 0 --gpu-jobs 16 --shards 8 \
  --filter '/(prl|mcc|contraction4|tc_.*)$' --out "$OUT/soak.tar.gz" 2>&1 | tail -30
