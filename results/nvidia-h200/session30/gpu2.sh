#!/usr/bin/env bash
# Session 30, call 2 (nvidia-h200): (1) read_ceiling_cl: the OpenCL streaming ceiling for DOT's and GEMV's bytes in
# the runtime's and the benchmark's timing protocols; (2) DOT 2^24's committed configuration timed as the tuner times
# (mdh run: each launch alone) and as the benchmark times (an output fill before each launch), cuBLAS beside it;
# (3) GEMM 1024^3, 5 minutes from the session-29 default (evaluations per second, 1 minute against 5).
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
nvidia-smi -L >"$OUT/gpu.txt"
read_ceiling_cl NVIDIA >"$OUT/read_ceiling_cl.txt" 2>&1
for round in 1 2; do
  mdh run apps/dot.mdh --size K=16777216 --config results/nvidia-h200/dot-RW.json --device gpu --repeat 50 \
    --warmup 3 2>&1 | grep -E "kernel time|error" | sed "s/^/dot alone round $round: /" >>"$OUT/dot.txt"
done
scripts/device_run.sh bench gpu experiments.gpu.json --seconds 60 dot:RW >"$OUT/dot-bench.txt" 2>&1
grep -E "^dot|^gemv" results/nvidia-h200/benchmark.csv >>"$OUT/dot.txt"
bash results/nvidia-h200/session26/gpu_tune.sh gemm apps/gemm.mdh I=1024,J=1024,K=1024
cat "$OUT/read_ceiling_cl.txt" "$OUT/dot.txt" "$OUT/log.txt"
