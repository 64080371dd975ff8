#!/usr/bin/env bash
# Session 34, call 11 (nvidia-h200): the committed DOT kernel as mdh generates it for this device (gen.cl, from
# `mdh generate --device gpu`) against ab/c0-committed.cl (the PoCL form with NVIDIA's red and fence patched in),
# each without and with the scratch fills before each launch (dot_ab_cl --fill); peer_mdh beside them.
# Bundle: mdh, device_peak, dot_ab_cl, peer_mdh.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
B=.device-bundle/bin
A=results/nvidia-h200/session34/ab
nvidia-smi -L >"$OUT/gpu.txt"
$B/mdh generate apps/dot.mdh --size K=16777216 --config results/nvidia-h200/dot-RW.json --device gpu -o "$OUT/gen.cl"
{
  $B/device_peak --device gpu | grep -iE "copy"
  $B/dot_ab_cl --fill "$OUT/gen.cl:256:512" $A/c0-committed.cl:256:512
  for round in 1 2; do
    $B/peer_mdh --config results/nvidia-h200/dot-RW.json --routine dot --spec apps/dot.mdh --size K=16777216 --seed 1 \
      --device gpu --json "$OUT/r.json" --label RW --warmups 20 --min-runs 300 --max-runs 300 >/dev/null
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('round %s, peer_mdh dot: device %.2f us, call %.2f us, runs %d, passed %s' % (sys.argv[2], d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3, d['runs'], d['validation']['passed']))" "$OUT/r.json" $round
  done
} 2>&1 | tee "$OUT/gen.txt"
diff "$OUT/gen.cl" $A/c0-committed.cl >"$OUT/gen-vs-ab.diff"
