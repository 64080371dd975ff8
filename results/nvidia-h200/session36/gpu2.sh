#!/usr/bin/env bash
# Session 36, call 2 (nvidia-h200, a fresh machine): does call 1's DOT row hold? The benchmark row dot:RW with its
# peers twice more, as `scripts/device_run.sh bench` runs it, each run's csv and records kept apart.
# Bundle: mdh, peer_mdh, device_peak, peer_cuda, peer_clblast.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
nvidia-smi -L >"$OUT/gpu.txt"
for n in 1 2; do
  scripts/device_run.sh bench gpu experiments.gpu.json --seconds 240 dot:RW 2>&1 | tee "$OUT/bench$n.txt" | tail -8
  tar czf "$OUT/bench$n.tgz" results/nvidia-h200/benchmark.csv results/nvidia-h200/records
done
