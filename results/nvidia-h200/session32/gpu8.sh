#!/usr/bin/env bash
# Session 32, call 8 (nvidia-h200): the whole-call time measured as an application sees it. Every peer with kernel
# events (peer_mdh, peer_clblast, peer_cuda) now times the call in a plain call of its own after each timed one
# (PeerSetup::plain_call: no events, no event records). Benchmarked again with all peers: the five cases whose mdh
# call time lost to cuBLAS's under the old protocol. Bundle: mdh, device_peak, peer_mdh, peer_clblast, peer_cuda.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
nvidia-smi -L >"$OUT/gpu.txt"
scripts/device_run.sh bench gpu experiments.gpu.json --seconds 150 dot:RW gemm:RW gemv:RW gemm:PC gemv:PC 2>&1 |
  grep -E "^==|^  (mdh|cublas|clblast)|device peak|not bench"
tar czf "$OUT/bench.tgz" results/nvidia-h200/benchmark.csv results/nvidia-h200/records
