#!/usr/bin/env bash
# Session 36, call 3 (nvidia-h200): on one card, how far the committed DOT is from a bare read of its 128 MiB.
# Session 33's floor program (session33/floor/profiled_floor_cl.cpp: empty kernels and read-only streams at 18
# grids, profiled as peer_mdh times a call), the copy bandwidth, and three rounds of 300 runs of the committed DOT
# (and session 34's) through peer_mdh. Bundle: mdh, peer_mdh, device_peak, profiled_floor_cl.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
mkdir -p /work && ln -sfn "$PWD" /work/main
B=.device-bundle/bin
nvidia-smi -L >"$OUT/gpu.txt"
{
  $B/device_peak --device gpu | grep -iE "copy"
  $B/profiled_floor_cl
  for round in 1 2 3; do
    for f in results/nvidia-h200/dot-RW.json results/nvidia-h200/session36/configs/dot-committed-s34.json; do
      $B/peer_mdh --config $f --routine dot --spec apps/dot.mdh --size K=16777216 --seed 1 --device gpu \
        --json "$OUT/r.json" --label RW --warmups 20 --min-runs 300 --max-runs 300 >/dev/null
      python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('round %s, %s: device %.2f us, call %.2f us, passed %s' % (sys.argv[2], sys.argv[3], d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3, d['validation']['passed']))" "$OUT/r.json" $round $(basename $f)
    done
  done
  $B/device_peak --device gpu | grep -iE "copy"
} 2>&1 | tee "$OUT/floor.txt"
