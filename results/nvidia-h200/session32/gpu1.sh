#!/usr/bin/env bash
# Session 32, call 1 (nvidia-h200): (a) where DOT 2^24's last 5% to the OpenCL read ceiling go: dot_tail_cl (the
# ceiling kernel with and without the reduction's end) and mdh's committed DOT against 7 variants (dot/), each
# `mdh run --repeat 50` (each launch alone), two rounds; (b) session 31's gpu12.sh: the committed tuned
# configurations of MCC and the 9 contractions with UNROLL_TILES off and on.
# Bundle: mdh, dot_tail (g++ -O2 -std=c++17 dot_tail_cl.cpp -lOpenCL). Carry .device-bundle.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
nvidia-smi -L >"$OUT/gpu.txt"
s=results/nvidia-h200/session32
dot_tail 2>&1 | tee "$OUT/dot_tail.txt"
for round in 1 2; do
  for f in $s/dot/*.json; do
    echo "round $round $(basename $f .json) $(mdh run apps/dot.mdh --size K=16777216 --config $f --device gpu \
      --repeat 50 --warmup 3 --verify 2>&1 | grep -E '^kernel time|error|verif|FAIL|PASS' | tr '\n' ' ')"
  done
done | tee "$OUT/dot_variants.txt"
bash results/nvidia-h200/session31/gpu12.sh 150
