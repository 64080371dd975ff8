#!/usr/bin/env bash
# Session 37, call 8 (nvidia-h200 machine, its 16 Xeon cores through PoCL): the committed Xeon-16c DOT, generator 3
# (mdh_old, 7442e11) against generator 4, seven interleaved rounds of 50 verified runs (call 5's two rounds of 20
# spread 0.84-1.23 ms). Bundle: mdh, mdh_old.
source .device-bundle/env.sh
mkdir -p /work && ln -sfn "$PWD" /work/main
B=.device-bundle/bin
X=results/pocl-cpu-intel-xeon-16c
$B/mdh devices 2>&1 | grep -i -m2 "cpu\|pocl" >"$OUT/xeon-ab.txt"
for round in 1 2 3 4 5 6 7; do
  for m in mdh_old mdh; do
    echo "round $round $m dot: $($B/$m run apps/dot.mdh --size K=16777216 --config $X/dot-RW.json --device cpu --repeat 50 --verify 2>&1 | grep -E 'kernel time|FAIL|error' | tr '\n' ' ')"
  done
done 2>&1 | tee -a "$OUT/xeon-ab.txt" | cut -c1-120
