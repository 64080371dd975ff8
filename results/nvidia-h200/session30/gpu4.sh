#!/usr/bin/env bash
# Session 30, call 4 (nvidia-h200): DOT 2^24 tuned 4 minutes from the default (retune --scale 4), benchmarked with
# cuBLAS and CLBlast; beside it, on the same card, the OpenCL streaming ceiling (read_ceiling_cl) and the committed
# (session 29) configuration against the new one, each timed alone as the tuner times (mdh run, 2 rounds).
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
nvidia-smi -L >"$OUT/gpu.txt"
read_ceiling_cl NVIDIA 2>&1 | grep -E "copy of|BEST" >"$OUT/read_ceiling_cl.txt"
cp results/nvidia-h200/dot-RW.json /tmp/dot-session29.json
scripts/device_run.sh retune gpu experiments.gpu.json --scale 4 --tune-seconds 280 --bench-seconds 60 dot:RW \
  >"$OUT/retune.txt" 2>&1
cp results/nvidia-h200/dot-RW.json results/nvidia-h200/dot-RW.json.journal "$OUT/" 2>/dev/null
grep -E "^nvidia-h200,dot" results/nvidia-h200/benchmark.csv >"$OUT/dot-bench.csv"
mkdir -p "$OUT/records" && cp results/nvidia-h200/records/dot-RW-* results/nvidia-h200/records/device_peak* "$OUT/records/" 2>/dev/null
for round in 1 2; do
  for c in /tmp/dot-session29.json results/nvidia-h200/dot-RW.json; do
    echo "round $round $c: $(mdh run apps/dot.mdh --size K=16777216 --config $c --device gpu --repeat 50 --warmup 3 2>&1 |
      grep -E 'kernel time|error')" >>"$OUT/dot-alone.txt"
  done
done
cat "$OUT/read_ceiling_cl.txt" "$OUT/retune.txt" "$OUT/dot-alone.txt"
