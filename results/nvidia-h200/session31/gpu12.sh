#!/usr/bin/env bash
# Session 31, call 5 (nvidia-h200): the committed tuned configurations of MCC and the 9 contractions (tuned before
# UNROLL_TILES existed: off) against the same with UNROLL_TILES on (tuned-ut/NAME-RW.json, NAME-RW-ut.json), each
# timed alone (mdh run), two rounds while time is left.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
nvidia-smi -L >"$OUT/gpu.txt"
h=results/nvidia-h200/session31/tuned-ut start=$(date +%s)
t() { mdh run $1 --size $2 --config $3 --device gpu --repeat 50 --warmup 3 2>&1 |
  sed -n 's/^kernel time: median \([0-9.]*\) ms.*/\1/p' | head -1; }
for round in 1 2; do
  for f in $h/*-RW.json; do
    (( $(date +%s) - start > ${1:-150} )) && break 2
    spec=$(sed -n 's/^ "spec": "\(.*\)",$/\1/p' $f) size=$(sed -n 's/^ "sizes": "\(.*\)",$/\1/p' $f)
    echo "round $round $(basename $f .json) off=$(t $spec $size $f) on=$(t $spec $size ${f%.json}-ut.json)"
  done
done | tee "$OUT/tuned-ut.txt"
