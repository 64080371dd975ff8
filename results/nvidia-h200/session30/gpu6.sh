#!/usr/bin/env bash
# Session 30, call 6 (nvidia-h200): the benchmark of DOT 2^24 with call 5's configuration (now committed), its records
# kept (call 5's did not come back), and read_ceiling_cl on the same card.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
nvidia-smi -L >"$OUT/gpu.txt"
read_ceiling_cl NVIDIA 2>&1 | grep -E "copy of|BEST" >"$OUT/read_ceiling_cl.txt"
scripts/device_run.sh bench gpu experiments.gpu.json --seconds 60 dot:RW >"$OUT/bench.txt" 2>&1
grep -E "^nvidia-h200,dot" results/nvidia-h200/benchmark.csv >"$OUT/dot-bench.csv"
tar czf "$OUT/records.tar.gz" -C results/nvidia-h200/records $(cd results/nvidia-h200/records && ls dot-RW-* device_peak*)
cat "$OUT/read_ceiling_cl.txt" "$OUT/bench.txt"
