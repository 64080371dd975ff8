#!/usr/bin/env bash
# Session 33, call 5 (nvidia-h200): the floor of a profiled kernel time (floor/profiled_floor_cl.cpp) and of a
# CUDA-event time (floor/event_floor.cu) at the grids of mdh's small and streaming cases, read-only streams of 64 and
# 128 MiB; the card's copy bandwidth (device_peak, 1 GiB) and peer_mdh on DOT and GEMV 4096^2 beside them.
# Bundle: device_peak, peer_mdh, profiled_floor_cl, event_floor.
source .device-bundle/env.sh
export NVIDIA_TF32_OVERRIDE=0
B=.device-bundle/bin
nvidia-smi -L >"$OUT/gpu.txt"
{
  $B/profiled_floor_cl
  $B/event_floor
  $B/device_peak --device gpu | grep -iE "copy|GB/s|GFLOP"
  for c in "dot RW K=16777216" "gemv PC I=4096,K=4096"; do
    set -- $c
    $B/peer_mdh --config "results/nvidia-h200/$1-$2.json" --routine "$1" --spec "apps/$1.mdh" --size "$3" --seed 1 \
      --device gpu --json "$OUT/$1-$2.json" --label "$2" --warmups 2 --min-runs 5 --max-runs 100 >/dev/null
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('peer_mdh %s: device %.2f us, call %.2f us' % (sys.argv[2], d['device_time_ns']['median']/1e3, d['call_time_ns']['median']/1e3))" "$OUT/$1-$2.json" "$1 $2"
  done
} 2>&1 | tee "$OUT/floor.txt"
