#!/usr/bin/env bash
# Session 29, call 6 (issue 12, DOT 2^24 at 85% of the copy bandwidth): the committed DOT configuration reads x and y
# one float per work-item and step (no private caches); dot-starts/ holds configurations of the same space that read
# float4s (private caches with VECTOR_WIDTH 4, blocks of 4-8 elements per step, unrolled steps). Time them (mdh run,
# median of 50, two rounds), then tune 60 s from them and the default (--start each), and benchmark the result.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
here=results/nvidia-h200/session29
nvidia-smi -L >"$OUT/gpu.txt"
for round in 1 2; do
  for f in results/nvidia-h200/dot-RW.json "$here"/dot-starts/*.json; do
    echo "round $round $(basename "$f" .json) $(mdh run apps/dot.mdh --size K=16777216 --config "$f" --device gpu \
      --repeat 50 --warmup 3 2>&1 | sed -n 's/^kernel time: median \([0-9.]*\) ms.*/\1/p')" >>"$OUT/dot.txt"
  done
done
starts=()
for f in "$here"/dot-starts/*.json; do starts+=(--start "$f"); done
mv results/nvidia-h200/dot-RW.json /tmp/dot-RW.before.json
mv results/nvidia-h200/dot-RW.json.journal /tmp/dot-RW.before.journal
mdh tune apps/dot.mdh --size K=16777216 --device gpu --seed 1 --no-transfer --evals 10000000 --budget 60s "${starts[@]}" \
  --out results/nvidia-h200/dot-RW.json --journal results/nvidia-h200/dot-RW.json.journal 2>&1 |
  grep -vE '^evaluations [0-9]+ \(' | tail -8 >"$OUT/tune.txt"
scripts/device_run.sh bench gpu experiments.gpu.json --seconds 60 dot:RW >"$OUT/bench.txt" 2>&1
cp results/nvidia-h200/dot-RW.json results/nvidia-h200/benchmark.csv "$OUT/"
gzip -c results/nvidia-h200/dot-RW.json.journal >"$OUT/dot-RW.json.journal.gz"
tar czf "$OUT/records.tar.gz" -C results/nvidia-h200 records
