#!/usr/bin/env bash
# Session 30, call 5 (nvidia-h200): DOT 2^24, 4 minutes of `mdh tune` (seed 1) starting from the stored results (the
# committed session-29 configuration among them), then the new configuration benchmarked with the peers, and the
# committed one against the new one timed alone (mdh run, 2 rounds); read_ceiling_cl on the same card.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
nvidia-smi -L >"$OUT/gpu.txt"
read_ceiling_cl NVIDIA 2>&1 | grep -E "copy of|BEST" >"$OUT/read_ceiling_cl.txt"
cp results/nvidia-h200/dot-RW.json /tmp/dot-session29.json
mdh tune apps/dot.mdh --size K=16777216 --device gpu --seed 1 --evals 10000000 --budget 240s \
  --out /tmp/dot.json --journal /tmp/dot.json.journal 2>&1 | grep -vE '^evaluations [0-9]+ \(' | tail -9 >"$OUT/tune.txt"
cp /tmp/dot.json /tmp/dot.json.journal "$OUT/"
cp /tmp/dot.json results/nvidia-h200/dot-RW.json
scripts/device_run.sh bench gpu experiments.gpu.json --seconds 60 dot:RW >"$OUT/bench.txt" 2>&1
grep -E "^nvidia-h200,dot" results/nvidia-h200/benchmark.csv >"$OUT/dot-bench.csv"
mkdir -p "$OUT/records" && cp results/nvidia-h200/records/dot-RW-{mdh,mdh-default,cublas,clblast,clblast_tuned}.json \
  results/nvidia-h200/records/device_peak.json "$OUT/records/"
for round in 1 2; do
  for c in /tmp/dot-session29.json /tmp/dot.json; do
    echo "round $round $c: $(mdh run apps/dot.mdh --size K=16777216 --config $c --device gpu --repeat 50 --warmup 3 2>&1 |
      grep -E 'kernel time|error')" >>"$OUT/dot-alone.txt"
  done
done
cat "$OUT/read_ceiling_cl.txt" "$OUT/tune.txt" "$OUT/bench.txt" "$OUT/dot-alone.txt"
