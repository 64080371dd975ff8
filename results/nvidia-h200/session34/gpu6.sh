#!/usr/bin/env bash
# Session 34, call 6 (nvidia-h200): the hand-written DOT 2^24 (load_hints_cl --sm-grids: plain loads, the ceiling
# without an end and the red/membar end) on grids of whole multiples of the compute units against 256 x 512; the
# committed configuration through dot_ab_cl and peer_mdh in the same run. Bundle: device_peak, load_hints_cl,
# dot_ab_cl, peer_mdh.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
B=.device-bundle/bin
nvidia-smi -L >"$OUT/gpu.txt"
{
  $B/device_peak --device gpu | grep -iE "copy"
  $B/load_hints_cl --sm-grids
  $B/dot_ab_cl results/nvidia-h200/session34/ab/c0-committed.cl:256:512
  for round in 1 2; do
    $B/peer_mdh --config results/nvidia-h200/dot-RW.json --routine dot --spec apps/dot.mdh --size K=16777216 --seed 1 \
      --device gpu --json "$OUT/r.json" --label RW --warmups 20 --min-runs 300 --max-runs 300 >/dev/null
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('round %s, peer_mdh dot: device %.2f us, call %.2f us, runs %d, passed %s' % (sys.argv[2], d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3, d['runs'], d['validation']['passed']))" "$OUT/r.json" $round
  done
} 2>&1 | tee "$OUT/grids.txt"
