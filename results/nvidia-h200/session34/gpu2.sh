#!/usr/bin/env bash
# Session 34, call 2 (nvidia-h200): which part of mdh's DOT shape costs time (dot_shape_cl.cpp); the card's copy
# bandwidth; peer_mdh on the committed DOT 2^24, two rounds, in the same run. Bundle: device_peak, peer_mdh,
# dot_shape_cl.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
B=.device-bundle/bin
nvidia-smi -L >"$OUT/gpu.txt"
{
  $B/device_peak --device gpu | grep -iE "copy"
  $B/dot_shape_cl
  for round in 1 2; do
    $B/peer_mdh --config results/nvidia-h200/dot-RW.json --routine dot --spec apps/dot.mdh --size K=16777216 --seed 1 \
      --device gpu --json "$OUT/dot-RW.json" --label RW --warmups 2 --min-runs 5 --max-runs 100 >/dev/null
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('round %s, peer_mdh dot: device %.2f us, call %.2f us' % (sys.argv[2], d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3))" "$OUT/dot-RW.json" $round
  done
} 2>&1 | tee "$OUT/shape.txt"
