#!/usr/bin/env bash
# Session 34, call 7 (nvidia-h200): WG_OWNERSHIP strided (new) on DOT 2^24: the committed configuration and the
# shapes of calls 3-5 with strided work-group tiles (dot/s*.json) against the committed one, two rounds of 300 runs
# through peer_mdh, with the hand-written kernels (dot_shape_cl) and the copy bandwidth in the same run.
# Bundle: device_peak, peer_mdh, dot_shape_cl.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
B=.device-bundle/bin
D=results/nvidia-h200/session34/dot
nvidia-smi -L >"$OUT/gpu.txt"
{
  $B/device_peak --device gpu | grep -iE "copy"
  $B/dot_shape_cl | grep rounds
  for round in 1 2; do
    for f in $D/c0-committed.json $D/s*.json; do
      v=$(basename $f .json)
      $B/peer_mdh --config $f --routine dot --spec apps/dot.mdh --size K=16777216 --seed 1 \
        --device gpu --json "$OUT/r.json" --label $v --warmups 20 --min-runs 300 --max-runs 300 >/dev/null
      python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('round %s, %s: device %.2f us, call %.2f us, runs %d, passed %s' % (sys.argv[2], sys.argv[3], d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3, d['runs'], d['validation']['passed']))" "$OUT/r.json" $round $v
    done
  done
} 2>&1 | tee "$OUT/strided.txt"
