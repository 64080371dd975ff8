#!/usr/bin/env bash
# Session 34, call 10 (nvidia-h200): does the zeroing of the scratch buffers before each call (runtime/execute.cpp:
# two clEnqueueFillBuffer before the kernel) lengthen the kernel's profiled time? dot_ab_cl --fill times mdh's
# committed DOT kernel (and c7) without and with those fills, interleaved; peer_mdh beside them. Bundle:
# device_peak, dot_ab_cl, peer_mdh.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
B=.device-bundle/bin
A=results/nvidia-h200/session34/ab
nvidia-smi -L >"$OUT/gpu.txt"
{
  $B/device_peak --device gpu | grep -iE "copy"
  $B/dot_ab_cl --fill $A/c0-committed.cl:256:512 $A/c7-pt4-ylocal-private.cl:256:512
  for round in 1 2; do
    $B/peer_mdh --config results/nvidia-h200/dot-RW.json --routine dot --spec apps/dot.mdh --size K=16777216 --seed 1 \
      --device gpu --json "$OUT/r.json" --label RW --warmups 20 --min-runs 300 --max-runs 300 >/dev/null
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('round %s, peer_mdh dot: device %.2f us, call %.2f us, runs %d, passed %s' % (sys.argv[2], d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3, d['runs'], d['validation']['passed']))" "$OUT/r.json" $round
  done
} 2>&1 | tee "$OUT/fill.txt"
