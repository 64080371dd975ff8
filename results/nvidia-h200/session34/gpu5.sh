#!/usr/bin/env bash
# Session 34, call 5 (nvidia-h200): DOT 2^24 configurations in the space that take the hand-written block_local_y
# shape (c7: x and y through float4 private caches, y's tile in local memory first; c8: the same at 512 x 256) and
# c3 (no local memory), as generated and with the sum in a register / a shorter end (ab/, variants.py), against
# the committed one; dot_shape_cl's hand-written kernels and the copy bandwidth in the same run; then peer_mdh on
# c0, c7 and c8, two rounds. Bundle: device_peak, dot_shape_cl, dot_ab_cl, peer_mdh.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
B=.device-bundle/bin
A=results/nvidia-h200/session34/ab
D=results/nvidia-h200/session34/dot
nvidia-smi -L >"$OUT/gpu.txt"
{
  $B/device_peak --device gpu | grep -iE "copy"
  $B/dot_shape_cl
  $B/dot_ab_cl $A/c0-committed.cl:256:512 $A/c7-pt4-ylocal-private.cl:256:512 $A/c7-pt4-ylocal-private-reg.cl:256:512 \
    $A/c7-pt4-ylocal-private-both.cl:256:512 $A/c3-pt16-run4-nocache.cl:256:512 \
    $A/c3-pt16-run4-nocache-reg.cl:256:512 $A/c3-pt16-run4-nocache-both.cl:256:512 \
    $A/c8-pt4-ylocal-private-512x256.cl:512:256 $A/c8-pt4-ylocal-private-512x256-both.cl:512:256 \
    $A/c1-pt4-both.cl:256:512
  for round in 1 2; do
    for v in c0-committed c7-pt4-ylocal-private c8-pt4-ylocal-private-512x256; do
      $B/peer_mdh --config $D/$v.json --routine dot --spec apps/dot.mdh --size K=16777216 --seed 1 \
        --device gpu --json "$OUT/r.json" --label $v --warmups 20 --min-runs 300 --max-runs 300 >/dev/null
      python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('round %s, %s: device %.2f us, call %.2f us, runs %d, passed %s' % (sys.argv[2], sys.argv[3], d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3, d['runs'], d['validation']['passed']))" "$OUT/r.json" $round $v
    done
  done
} 2>&1 | tee "$OUT/ab.txt"
