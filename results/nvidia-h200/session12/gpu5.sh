#!/usr/bin/env bash
# Session 12, H200 call 5: results/nvidia-h200 regenerated for the cases whose kernels changed (the GPU default
# of GEMM, MCC and the contractions) and the cases new in experiments.gpu.json (GEMM 4096^3, PRL, six more
# contractions): tuned again from the new default (budgets of experiments.gpu.json x 0.35), then benchmarked with
# their peers and device_peak in the same run.
set -u
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
tc=""
for t in gdab-efgc gdac-efgb gdbc-efga geab-dfgc geac-dfgb gebc-dfga gfab-degc gfac-degb gfbc-dega; do tc+=" tc-abcdef-$t:RW"; done
MDH_BIN=$PWD/.device-bundle/bin bash scripts/device_run.sh retune gpu experiments.gpu.json --scale 0.35 \
  --tune-seconds ${TUNE_SECONDS:-330} --bench-seconds ${BENCH_SECONDS:-200} --run-timeout 30 \
  gemm:RW gemm:PC gemm:PC-4096 mcc:RW prl:RW $tc 2>&1 | tail -40
tar czf "$OUT/results.tar.gz" results/nvidia-h200
