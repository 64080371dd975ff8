#!/usr/bin/env bash
# Session 33, call 4 (nvidia-h200): every case of experiments.gpu.json benchmarked in one run on one card, with the
# protocol as it stands (call times from plain calls, session 32; no output fill between timed calls, OutputPoison),
# so that the whole table comes from one card. Bundle: mdh, device_peak, peer_mdh, peer_clblast, peer_cuda, peer_prl.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
nvidia-smi -L >"$OUT/gpu.txt"
scripts/device_run.sh bench gpu experiments.gpu.json --seconds 540 dot:RW gemm:RW gemv:RW gemv:PC gemm:PC \
  gemm:PC-4096 gaussian:RW gaussian:PC jacobi3d:RW jacobi3d:PC mcc:RW tc-abcdef-gdab-efgc:RW \
  tc-abcdef-gdac-efgb:RW tc-abcdef-gdbc-efga:RW tc-abcdef-geab-dfgc:RW tc-abcdef-geac-dfgb:RW \
  tc-abcdef-gebc-dfga:RW tc-abcdef-gfab-degc:RW tc-abcdef-gfac-degb:RW tc-abcdef-gfbc-dega:RW prl:RW 2>&1 |
  grep -E "^==|^  (mdh|cublas|cudnn|clblast|prl)|device peak|not bench" | tee "$OUT/bench.txt"
tar czf "$OUT/bench.tgz" results/nvidia-h200/benchmark.csv results/nvidia-h200/records
