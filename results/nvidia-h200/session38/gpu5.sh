#!/usr/bin/env bash
# Session 38, call 5 (nvidia-h200): the DOT and GEMV rows with their peers under experiments.gpu.json's new protocol for
# them (20 warm-ups, runs until the median's 95% interval is within 0.5%, 100-1,000 runs; every program alike):
# DOT three times (the median run is committed, as in session 37), GEMV PC and RW once. Each run's csv and records
# are kept apart. Bundle: mdh, peer_mdh, peer_cuda, peer_clblast, device_peak.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
nvidia-smi -L >"$OUT/gpu.txt"
scripts/device_run.sh bench gpu experiments.gpu.json --seconds 200 gemv:PC gemv:RW 2>&1 | tee "$OUT/bench-gemv.txt" | tail -12
tar czf "$OUT/bench-gemv.tgz" results/nvidia-h200/benchmark.csv results/nvidia-h200/records
for n in 1 2 3; do
  scripts/device_run.sh bench gpu experiments.gpu.json --seconds 120 dot:RW 2>&1 | tee "$OUT/bench-dot$n.txt" | tail -7
  tar czf "$OUT/bench-dot$n.tgz" results/nvidia-h200/benchmark.csv results/nvidia-h200/records
done
